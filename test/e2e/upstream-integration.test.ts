// Upstream's integration suite for the Deployment controller, re-created end to end: real kubectl
// as the user, the built CLI's `run` as the cluster's Deployment controller, and the test API
// server's simulated cluster (ReplicaSet controller, scheduler, kubelet) in place of
// kube-controller-manager's ReplicaSet controller. Each test names the upstream test it follows in
// kubernetes/kubernetes test/integration/deployment/deployment_test.go and util.go, read at
// atiratree/kubernetes@169e8d8c (the v1.33+ line that carries TestTerminatingReplicasDeploymentStatus;
// the stored kubernetes/kubernetes copy predates it) and kubernetes/kubernetes test/utils/deployment.go.
//
// Adaptations, each said where it happens:
// - Upstream runs no kubelet and marks pods ready itself (waitForDeploymentCompleteAndMarkPodsReady).
//   Here the simulated kubelet makes pods ready 150 ms after creation, which is that marking; where a
//   test keeps pods from becoming ready ("do not mark pods as ready") the image is on a `.invalid`
//   registry the kubelet can never pull; where a test marks them ready later, the template binds pods
//   to `fake-node`, a node without a kubelet, and the test marks them ready with
//   `kubectl patch pod --subresource=status` (upstream: UpdateStatus).
// - Updates (upstream: UpdateDeploymentWithRetries, UpdateReplicaSetWithRetries) are `kubectl
//   replace` of the object just read, retried on a conflict, or kubectl's own verbs where they make
//   exactly the same change (rollout pause/resume, scale).
// - At every step, live `rollout watch -o json` and live `explain -o json` must say what
//   `kubectl rollout status` says (DeploymentTester.agree).

import {randomUUID} from 'node:crypto'
import {afterAll, beforeAll, describe, it} from 'vitest'
import type {Deployment, Pod, ReplicaSet} from '../../src/controller/api/types.js'
import {
  controllerOf,
  DESIRED_REPLICAS,
  DeploymentTester,
  FAKE_IMAGE,
  fenceposts,
  HASH_LABEL,
  KUBECTL,
  newIntegrationDeployment,
  poll,
  TestCluster,
  testLabels,
} from './upstream-harness.js'

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration'
/** Never pulled by the simulated kubelet: upstream's "do not mark pods as ready". */
const never = (image: string) => `registry.example.invalid/${image}`
/** Pods of this template are left to the test (upstream's integration tests have no kubelet). */
const onFakeNode = (d: Deployment) => {
  ;(d.spec.template?.spec as Record<string, unknown>).nodeName = 'fake-node'
}

const describeKubectl = KUBECTL ? describe : describe.skip
const TEST_TIMEOUT = 240_000

/** upstream: checkRSHashLabels — one hash in the labels, the selector, the template and the name. */
function checkRSHashLabels(rs: ReplicaSet): string {
  const hash = rs.metadata.labels?.[HASH_LABEL]
  const selectorHash = rs.spec.selector?.matchLabels?.[HASH_LABEL]
  const templateHash = rs.spec.template?.metadata?.labels?.[HASH_LABEL]
  if (hash !== selectorHash || selectorHash !== templateHash) {
    throw new Error(`mismatching hash value found in replicaset ${rs.metadata.name}`)
  }
  if (!hash) throw new Error(`replicaset ${rs.metadata.name} is missing the ${HASH_LABEL} labels`)
  if (!rs.metadata.name?.endsWith(hash))
    throw new Error(`replicaset ${rs.metadata.name} name does not end with ${hash}`)
  return hash
}

/** upstream: checkPodsHashLabel — every pod carries the same hash. */
function checkPodsHashLabel(pods: Pod[]): string {
  if (pods.length === 0) throw new Error('no pods given')
  const hashes = new Set(pods.map((p) => p.metadata.labels?.[HASH_LABEL]))
  if (hashes.size !== 1 || hashes.has(undefined))
    throw new Error(`pods carry hashes ${[...hashes].join(', ')}`)
  return [...hashes][0] as string
}

/** upstream: checkDeploymentStatusReplicasFields (with terminatingReplicas, undefined when not set). */
async function statusReplicasFields(t: DeploymentTester) {
  const s = (await t.get()).status ?? {}
  return {
    replicas: s.replicas ?? 0,
    updatedReplicas: s.updatedReplicas ?? 0,
    readyReplicas: s.readyReplicas ?? 0,
    availableReplicas: s.availableReplicas ?? 0,
    unavailableReplicas: s.unavailableReplicas ?? 0,
    terminatingReplicas: s.terminatingReplicas,
  }
}
const fields = (
  replicas: number,
  updatedReplicas: number,
  readyReplicas: number,
  availableReplicas: number,
  unavailableReplicas: number,
  terminatingReplicas: number | undefined,
) => ({replicas, updatedReplicas, readyReplicas, availableReplicas, unavailableReplicas, terminatingReplicas})

describeKubectl('upstream integration tests (test/integration/deployment) on a simulated cluster', () => {
  let cluster: TestCluster

  beforeAll(async () => {
    cluster = await TestCluster.start()
  }, 90_000)

  afterAll(async () => {
    await cluster?.close()
  }, 60_000)

  describe.concurrent('one cluster, one namespace per test', () => {
    it(
      'TestNewDeployment: revision 1 rolls out, the ReplicaSet gets the annotations but last-applied, one pod-template-hash everywhere',
      async ({expect}) => {
        const name = 'test-new-deployment'
        const ns = await cluster.namespace(name)
        const t = new DeploymentTester(cluster, ns, name)
        const replicas = 20
        const d = newIntegrationDeployment(name, ns, replicas)
        d.spec.minReadySeconds = 4
        d.metadata.annotations = {
          test: 'should-copy-to-replica-set',
          [LAST_APPLIED]: 'should-not-copy-to-replica-set',
        }
        await t.create(d)
        await t.agree()

        await t.waitForRevisionAndImage('1', FAKE_IMAGE)
        await t.waitForComplete()
        await t.agree('done')

        const newRS = await t.expectNewReplicaSet()
        expect(newRS.metadata.annotations?.test).toBe('should-copy-to-replica-set')
        expect(newRS.metadata.annotations?.[LAST_APPLIED] ?? '').toBe('')
        const rsHash = checkRSHashLabels(newRS)
        const pods = await t.pods()
        expect(pods).toHaveLength(replicas)
        expect(checkPodsHashLabel(pods)).toBe(rsHash)
      },
      TEST_TIMEOUT,
    )

    it(
      'TestDeploymentRollingUpdate: rolls out a new image within maxSurge/maxUnavailable, then rolls over one that cannot finish',
      async ({expect}) => {
        const name = 'test-rolling-update-deployment'
        const ns = await cluster.namespace(name)
        const t = new DeploymentTester(cluster, ns, name)
        const d = newIntegrationDeployment(name, ns, 20)
        d.spec.minReadySeconds = 4
        d.spec.strategy = {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: '25%', maxSurge: '25%'}}
        await t.create(d)
        const oriImage = t.deployment.spec.template?.spec?.containers?.[0]?.image as string
        await t.waitForRevisionAndImage('1', oriImage)
        await t.waitForComplete()
        await t.agree('done')

        // 1. Roll out a new image.
        const setImage = (image: string) => (u: Deployment) => {
          const c = u.spec.template?.spec?.containers?.[0]
          if (c) c.image = image
        }
        await t.update(setImage('new-image'))
        await t.waitForRevisionAndImage('2', 'new-image')
        await t.agree()
        await t.waitForComplete({rolling: true})
        await t.agree('done')

        // 2. Roll over a deployment before the previous rolling update finishes: pods of the third
        // revision never become ready.
        await t.update(setImage(never('dont-finish')))
        await t.waitForRevisionAndImage('3', never('dont-finish'))
        await t.agree('waiting')
        await t.update(setImage('rollover'))
        await t.waitForRevisionAndImage('4', 'rollover')
        await t.waitForComplete({rolling: true})
        await t.agree('done')
        const {allOldRSs} = await t.oldReplicaSets()
        expect(allOldRSs.map((rs) => [rs.metadata.name, rs.spec.replicas])).toEqual(
          allOldRSs.map((rs) => [rs.metadata.name, 0]),
        )
      },
      TEST_TIMEOUT,
    )

    it(
      'TestPausedDeployment: a paused Deployment starts no rollout, and a template change while paused makes no ReplicaSet',
      async ({expect}) => {
        const name = 'test-paused-deployment'
        const ns = await cluster.namespace(name)
        const t = new DeploymentTester(cluster, ns, name)
        const d = newIntegrationDeployment(name, ns, 1)
        d.spec.paused = true
        ;(d.spec.template?.spec as Record<string, unknown>).terminationGracePeriodSeconds = 1
        await t.create(d)

        // upstream checks at once; here after the controller has synced it, which the check needs to mean anything.
        await t.waitForObserved(t.deployment.metadata.generation ?? 1)
        await t.expectNoNewReplicaSet()
        await t.agree('waiting')

        await t.kubectl('rollout', 'resume', `deployment/${name}`)
        await t.refresh()
        await t.waitForObserved(t.deployment.metadata.generation ?? 0)
        await t.waitForRevisionAndImage('1', FAKE_IMAGE)
        await t.waitForComplete()
        await t.agree('done')
        await t.expectNewReplicaSet()

        await t.kubectl('rollout', 'pause', `deployment/${name}`)
        await t.refresh()
        await t.waitForObserved(t.deployment.metadata.generation ?? 0)

        await t.update((u) => {
          ;(u.spec.template?.spec as Record<string, unknown>).terminationGracePeriodSeconds = 0
        })
        await t.waitForObserved(t.deployment.metadata.generation ?? 0)
        await t.expectNoNewReplicaSet()
        await t.agree('waiting')

        const {allOldRSs} = await t.oldReplicaSets()
        expect(allOldRSs).toHaveLength(1)
        expect(allOldRSs[0]?.spec.template?.spec?.terminationGracePeriodSeconds).toBe(1)
      },
      TEST_TIMEOUT,
    )

    it(
      'TestScalePausedDeployment: a paused Deployment can be scaled',
      async ({expect}) => {
        const name = 'test-scale-paused-deployment'
        const ns = await cluster.namespace(name)
        const t = new DeploymentTester(cluster, ns, name)
        const d = newIntegrationDeployment(name, ns, 1)
        ;(d.spec.template?.spec as Record<string, unknown>).terminationGracePeriodSeconds = 1
        await t.create(d)
        await t.waitForRevisionAndImage('1', FAKE_IMAGE)
        await t.waitForComplete()
        await t.expectNewReplicaSet()
        await t.agree('done')

        await t.kubectl('rollout', 'pause', `deployment/${name}`)
        await t.refresh()
        await t.waitForObserved(t.deployment.metadata.generation ?? 0)

        await t.kubectl('scale', `deployment/${name}`, '--replicas=10')
        await t.refresh()
        await t.waitForObserved(t.deployment.metadata.generation ?? 0)
        const rs = await t.expectNewReplicaSet()
        expect(rs.spec.replicas).toBe(10)

        await t.waitForComplete()
        await t.agree('done')
      },
      TEST_TIMEOUT,
    )

    it(
      'TestDeploymentHashCollision: a ReplicaSet whose template was changed under its name makes the controller count a collision and roll out a new one',
      async ({expect}) => {
        const name = 'test-hash-collision-deployment'
        const ns = await cluster.namespace(name)
        const t = new DeploymentTester(cluster, ns, name)
        await t.create(newIntegrationDeployment(name, ns, 1))
        await t.waitForRevisionAndImage('1', FAKE_IMAGE)

        // Mock a hash collision.
        const newRS = await t.expectNewReplicaSet()
        await t.updateReplicaSet(newRS.metadata.name ?? '', (rs) => {
          ;(rs.spec.template?.spec as Record<string, unknown>).terminationGracePeriodSeconds = 5
        })

        const collided = await poll('the collision counter to increment', async () => {
          const cur = await t.get()
          return cur.status?.collisionCount === 1 ? cur : undefined
        })
        expect(collided.status?.collisionCount).toBe(1)
        await t.waitForRevisionAndImage('2', FAKE_IMAGE)
        await t.waitForComplete()
        await t.agree('done')
      },
      TEST_TIMEOUT,
    )

    it(
      'TestFailedDeployment: pods that never become ready time the rollout out; once ready it completes',
      async () => {
        const name = 'test-failed-deployment'
        const ns = await cluster.namespace(name)
        const t = new DeploymentTester(cluster, ns, 'progress-check')
        const d = newIntegrationDeployment('progress-check', ns, 1)
        d.spec.progressDeadlineSeconds = 3
        onFakeNode(d)
        await t.create(d)

        await t.waitForUpdatedReplicasGTE(1)
        // Waiting, or already past the 3 s deadline on a busy machine: the three agree either way.
        await t.agree()
        // Pods are not marked as ready: the rollout times out after progressDeadlineSeconds.
        await t.waitForCondition('ProgressDeadlineExceeded', 'Progressing')
        await t.agree('deadlineExceeded')

        // Mark the pods ready and wait for the deployment to complete.
        await t.waitForComplete({markPodsReady: true})
        await t.waitForCondition('NewReplicaSetAvailable', 'Progressing')
        await t.agree('done')
      },
      TEST_TIMEOUT,
    )

    it(
      'TestOverlappingDeployments: two Deployments with one selector proceed independently',
      async ({expect}) => {
        const ns = await cluster.namespace('test-overlapping-deployments')
        const testers = ['first-deployment', 'second-deployment'].map(
          (n) => new DeploymentTester(cluster, ns, n),
        )
        const rss: ReplicaSet[] = []
        for (const t of testers) {
          await t.create(newIntegrationDeployment(t.name, ns, 1))
          await t.waitForRevisionAndImage('1', FAKE_IMAGE)
          await t.waitForComplete()
          rss.push(await t.expectNewReplicaSet())
        }
        expect(rss[0]?.metadata.uid).not.toBe(rss[1]?.metadata.uid)
        for (const t of testers) await t.agree('done')

        // Scale only the first deployment by 1.
        const [first, second] = testers as [DeploymentTester, DeploymentTester]
        await first.update((u) => {
          u.spec.replicas = 2
        })
        await first.waitForComplete()
        await second.refresh()
        for (const [i, t] of testers.entries()) {
          const rs = await t.replicaSet(rss[i]?.metadata.name ?? '')
          expect({rs: rs.metadata.name, replicas: rs.spec.replicas}).toEqual({
            rs: rs.metadata.name,
            replicas: t.deployment.spec.replicas,
          })
          await t.agree('done')
        }
      },
      TEST_TIMEOUT,
    )

    it(
      'TestScaledRolloutDeployment: scaling and a new template at once do not block the rollout; every ReplicaSet gets the new desired-replicas',
      async ({expect}) => {
        const name = 'test-scaled-rollout-deployment'
        const ns = await cluster.namespace(name)
        const t = new DeploymentTester(cluster, ns, name)
        const d = newIntegrationDeployment(name, ns, 10)
        d.spec.strategy = {type: 'RollingUpdate', rollingUpdate: {maxSurge: 3, maxUnavailable: 2}}
        await t.create(d)
        await t.waitForRevisionAndImage('1', FAKE_IMAGE)
        await t.waitForComplete()
        await t.agree('done')
        let firstRS = await t.expectNewReplicaSet()

        const image = (img: string, replicas?: number) => (u: Deployment) => {
          if (replicas !== undefined) u.spec.replicas = replicas
          const c = u.spec.template?.spec?.containers?.[0]
          if (c) c.image = img
        }
        const minAvailable = (x: Deployment) => (x.spec.replicas ?? 1) - fenceposts(x).maxUnavailable

        // A second image whose pods never become ready blocks the new ReplicaSet.
        await t.update(image(never('fakeimage2')))
        await t.waitForRevisionAndImage('2', never('fakeimage2'))
        let cur = await t.get()
        expect(cur.status?.availableReplicas ?? 0).toBeGreaterThanOrEqual(minAvailable(cur))
        firstRS = await t.replicaSet(firstRS.metadata.name ?? '')
        await t.waitRSStable(firstRS)
        const secondRS = await t.expectNewReplicaSet()
        await t.waitRSStable(secondRS)
        await t.agree('waiting')

        // Scale up and change the image at once (these pods become ready).
        await t.update(image('fakeimage3', 20))
        await t.waitForRevisionAndImage('3', 'fakeimage3')
        await t.waitForComplete()
        await t.agree('done')
        let thirdRS = await t.expectNewReplicaSet()
        for (const rs of [firstRS, secondRS, thirdRS]) {
          const fresh = await t.replicaSet(rs.metadata.name ?? '')
          expect({rs: fresh.metadata.name, desired: fresh.metadata.annotations?.[DESIRED_REPLICAS]}).toEqual({
            rs: fresh.metadata.name,
            desired: '20',
          })
        }

        // A fourth image whose pods never become ready.
        await t.update(image(never('fakeimage4')))
        await t.waitForRevisionAndImage('4', never('fakeimage4'))
        cur = await t.get()
        expect(cur.status?.availableReplicas ?? 0).toBeGreaterThanOrEqual(minAvailable(cur))
        thirdRS = await t.replicaSet(thirdRS.metadata.name ?? '')
        await t.waitRSStable(thirdRS)
        const fourthRS = await t.expectNewReplicaSet()
        await t.waitRSStable(fourthRS)
        await t.agree('waiting')

        // Scale down and change the image at once.
        await t.update(image('fakeimage5', 5))
        await t.waitForRevisionAndImage('5', 'fakeimage5')
        await t.waitForComplete()
        await t.agree('done')
        const fifthRS = await t.expectNewReplicaSet()
        for (const rs of [thirdRS, fourthRS, fifthRS]) {
          const fresh = await t.replicaSet(rs.metadata.name ?? '')
          expect({rs: fresh.metadata.name, desired: fresh.metadata.annotations?.[DESIRED_REPLICAS]}).toEqual({
            rs: fresh.metadata.name,
            desired: '5',
          })
        }
      },
      TEST_TIMEOUT,
    )

    it(
      'TestSpecReplicasChange: a Recreate Deployment scales up, to zero and back, and observes a change that is not of replicas',
      async ({expect}) => {
        const name = 'test-spec-replicas-change'
        const ns = await cluster.namespace(name)
        const t = new DeploymentTester(cluster, ns, 'deployment')
        const d = newIntegrationDeployment('deployment', ns, 1)
        d.spec.strategy = {type: 'Recreate'}
        await t.create(d)

        for (const replicas of [2, 0, 1]) {
          await t.scaleDeployment(replicas)
          await t.agree('done')
        }

        const oldGeneration = (await t.get()).metadata.generation
        await t.update((u) => {
          u.spec.revisionHistoryLimit = 4
        })
        const savedGeneration = t.deployment.metadata.generation ?? 0
        expect(savedGeneration).not.toBe(oldGeneration)
        await t.waitForObserved(savedGeneration)
        await t.agree('done')
      },
      TEST_TIMEOUT,
    )

    it(
      'TestDeploymentAvailableCondition: Available follows minReadySeconds, and the status counts every replica',
      async ({expect}) => {
        const name = 'test-deployment-available-condition'
        const ns = await cluster.namespace(name)
        const t = new DeploymentTester(cluster, ns, 'deployment')
        const d = newIntegrationDeployment('deployment', ns, 10)
        d.spec.minReadySeconds = 3600
        d.spec.progressDeadlineSeconds = 7200
        onFakeNode(d)
        await t.create(d)

        await t.waitForUpdatedReplicasGTE(10)
        // Pods are not marked ready.
        await t.waitForCondition('MinimumReplicasUnavailable', 'Available')
        expect(await statusReplicasFields(t)).toEqual(fields(10, 10, 0, 0, 10, 0))
        await t.agree('waiting')

        // Mark the pods ready without waiting for the deployment to complete.
        await poll('every updated pod marked ready', async () => (await t.markUpdatedPodsReady()) === 0)
        await t.waitForReadyReplicas()
        // Still unavailable within minReadySeconds.
        await t.waitForCondition('MinimumReplicasUnavailable', 'Available')
        expect(await statusReplicasFields(t)).toEqual(fields(10, 10, 10, 0, 10, 0))
        await t.agree('waiting')

        await t.update((u) => {
          u.spec.minReadySeconds = 1
        })
        await t.waitForObserved(t.deployment.metadata.generation ?? 0)
        await t.waitForCondition('MinimumReplicasAvailable', 'Available')
        expect(await statusReplicasFields(t)).toEqual(fields(10, 10, 10, 10, 0, 0))
        await t.agree('done')
      },
      TEST_TIMEOUT,
    )

    it(
      'TestGeneralReplicaSetAdoption: the controller puts its controllerRef back on its ReplicaSet',
      async ({expect}) => {
        const name = 'test-general-replicaset-adoption'
        const ns = await cluster.namespace(name)
        const t = new DeploymentTester(cluster, ns, 'deployment')
        await t.create(newIntegrationDeployment('deployment', ns, 1))
        await t.waitForRevisionAndImage('1', FAKE_IMAGE)
        await t.waitForComplete()
        const rs = await t.expectNewReplicaSet()

        /** upstream: testRSControllerRefPatch */
        const controllerRefPatch = async (ref: Record<string, unknown>, expectedOwnerReferences: number) => {
          await t.updateReplicaSet(rs.metadata.name ?? '', (u) => {
            u.metadata.ownerReferences = [ref as never]
          })
          const adopted = await poll('the replicaset to have a controllerRef again', async () => {
            const cur = await t.replicaSet(rs.metadata.name ?? '')
            return controllerOf(cur) ? cur : undefined
          })
          expect(controllerOf(adopted)?.uid).toBe(t.deployment.metadata.uid)
          expect(adopted.metadata.ownerReferences).toHaveLength(expectedOwnerReferences)
        }
        // Only a StatefulSet's reference, not a controller: the Deployment adds its controllerRef beside it.
        await controllerRefPatch(
          {
            uid: randomUUID(),
            apiVersion: 'apps/v1',
            kind: 'StatefulSet',
            name: 'deployment',
            controller: false,
          },
          2,
        )
        // Only the Deployment's reference, not a controller: the Deployment makes it the controller.
        await controllerRefPatch(
          {
            uid: t.deployment.metadata.uid,
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: 'deployment',
            controller: false,
          },
          1,
        )
        await t.agree('done')
      },
      TEST_TIMEOUT,
    )

    it(
      'TestDeploymentScaleSubresource: the scale subresource reads and sets spec.replicas',
      async ({expect}) => {
        const name = 'test-deployment-scale-subresource'
        const ns = await cluster.namespace(name)
        const t = new DeploymentTester(cluster, ns, 'deployment')
        await t.create(newIntegrationDeployment('deployment', ns, 2))
        await t.waitForRevisionAndImage('1', FAKE_IMAGE)
        await t.waitForComplete()
        await t.agree('done')

        /** upstream: testScalingUsingScaleSubresource */
        const scaleTo = async (replicas: number) => {
          const before = await t.get()
          const scale = JSON.parse(
            await t.kubectl('get', 'deployment', 'deployment', '--subresource=scale', '-o', 'json'),
          ) as {kind: string; spec: {replicas: number}}
          expect(scale.kind).toBe('Scale')
          expect(scale.spec.replicas).toBe(before.spec.replicas)
          // upstream: UpdateScale (a PUT of the Scale). kubectl cannot PUT a Scale (it has no mapping
          // for the kind); `kubectl scale` writes the same spec.replicas through the subresource.
          const seen = cluster.server.requests.length
          await t.kubectl('scale', 'deployment/deployment', `--replicas=${replicas}`)
          expect(
            cluster.server.requests
              .slice(seen)
              .some((r) => r.resource === 'deployments' && r.subresource === 'scale' && r.method !== 'GET'),
          ).toBe(true)
          const after = await t.refresh()
          expect(after.spec.replicas).toBe(replicas)
          await t.waitForComplete()
          await t.agree('done')
        }
        await scaleTo(3)
        await scaleTo(0)
      },
      TEST_TIMEOUT,
    )

    it(
      'TestReplicaSetOrphaningAndAdoptionWhenLabelsChange: a ReplicaSet whose labels stop matching is released, and adopted again when they match',
      async ({expect}) => {
        const name = 'test-replicaset-orphaning-and-adoption-when-labels-change'
        const ns = await cluster.namespace(name.slice(0, 50))
        const t = new DeploymentTester(cluster, ns, 'deployment')
        await t.create(newIntegrationDeployment('deployment', ns, 1))
        await t.waitForRevisionAndImage('1', FAKE_IMAGE)
        await t.waitForComplete()

        const rs = await t.expectNewReplicaSet()
        expect(controllerOf(rs)?.uid).toBe(t.deployment.metadata.uid)
        const rsName = rs.metadata.name ?? ''

        // Orphaning: labels that no longer match.
        await t.updateReplicaSet(rsName, (u) => {
          u.metadata.labels = {'new-name': 'new-test'}
        })
        await poll(
          'the controllerRef of the replicaset to go',
          async () => !controllerOf(await t.replicaSet(rsName)),
        )

        // The new ReplicaSet has another name: the controller avoids the name of the released one.
        const created = await poll('a new replicaset after the orphaning', async () =>
          t.newReplicaSet(t.deployment),
        )
        expect(created.metadata.uid).not.toBe(rs.metadata.uid)

        // Adoption: labels that match again.
        await t.updateReplicaSet(rsName, (u) => {
          u.metadata.labels = testLabels()
        })
        await poll('the replicaset adopted by the deployment', async () => {
          return controllerOf(await t.replicaSet(rsName))?.uid === t.deployment.metadata.uid
        })
        await t.waitForComplete()
        await t.agree('done')
      },
      TEST_TIMEOUT,
    )
  })
})

describeKubectl('upstream integration test with feature gates flipped between controller runs', () => {
  let cluster: TestCluster

  beforeAll(async () => {
    cluster = await TestCluster.start({
      run: ['-A', '--v', '2', '--feature-gates', 'DeploymentReplicaSetTerminatingReplicas=false'],
    })
  }, 90_000)

  afterAll(async () => {
    await cluster?.close()
  }, 60_000)

  it(
    'TestTerminatingReplicasDeploymentStatus: status.terminatingReplicas is counted only with DeploymentReplicaSetTerminatingReplicas',
    async ({expect}) => {
      // upstream flips the gate of the running controllers; here `run` restarts with the other
      // --feature-gates (the simulated ReplicaSet controller keeps v1.36's default, on, as upstream's
      // ReplicaSet status only feeds the Deployment's sum when the Deployment controller's gate is on).
      const name = 'test-terminating-replica-status'
      const ns = await cluster.namespace(name)
      const t = new DeploymentTester(cluster, ns, 'deployment')
      const d = newIntegrationDeployment('deployment', ns, 6)
      d.spec.strategy = {type: 'Recreate'}
      onFakeNode(d)
      ;(d.spec.template?.spec as Record<string, unknown>).terminationGracePeriodSeconds = 300
      await t.create(d)

      await t.waitForComplete({markPodsReady: true})
      expect(await statusReplicasFields(t)).toEqual(fields(6, 6, 6, 6, 0, undefined))
      await t.agree('done')

      const scale = async (replicas: number) => {
        await t.update((u) => {
          u.spec.replicas = replicas
        })
        await t.waitForReadyReplicas()
      }
      await scale(4)
      expect(await statusReplicasFields(t)).toEqual(fields(4, 4, 4, 4, 0, undefined))
      await t.agree('done')

      await cluster.stopController()
      await cluster.startController(['-A', '--v', '2'])
      await scale(3)
      // The pods deleted by both scale-downs stay terminating: their node has no kubelet.
      expect(await statusReplicasFields(t)).toEqual(fields(3, 3, 3, 3, 0, 3))
      await t.agree('done')

      await cluster.stopController()
      await cluster.startController([
        '-A',
        '--v',
        '2',
        '--feature-gates',
        'DeploymentReplicaSetTerminatingReplicas=false',
      ])
      await scale(2)
      expect(await statusReplicasFields(t)).toEqual(fields(2, 2, 2, 2, 0, undefined))
      await t.agree('done')
    },
    TEST_TIMEOUT,
  )
})
