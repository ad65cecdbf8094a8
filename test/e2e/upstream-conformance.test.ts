// Upstream's end-to-end (conformance) tests of Deployments, re-created end to end: real kubectl as
// the user, the built CLI's `run` as the cluster's Deployment controller, and the test API server's
// simulated cluster. Each test names the upstream test it follows in kubernetes/kubernetes
// test/e2e/apps/deployment.go, read at 0122c43a (the v1.35/v1.36 line, with
// DeploymentPodReplacementPolicy), and test/e2e/framework/deployment/fixtures.go; the rollback tests
// (testRollbackDeployment, testRollbackDeploymentRSNoRevision) were dropped from upstream with the
// extensions/v1beta1 rollback subresource and are read from the v1.5 line's test/e2e/deployment.go.
//
// Adaptations, each said where it happens: images upstream relies on never pulling use a `.invalid`
// registry, which the simulated kubelet can never pull; the random sleeps of the iterative test are
// scaled to the simulated pods (100 ms for upstream's second); a step a typed client makes that
// kubectl cannot express is said so. At every step, live `rollout watch -o json` and live
// `explain -o json` must say what `kubectl rollout status` says (DeploymentTester.agree).

import {afterAll, beforeAll, describe, it} from 'vitest'
import type {Deployment, Pod, ReplicaSet} from '../../src/controller/api/types.js'
import {
  controllerOf,
  DeploymentTester,
  fenceposts,
  KUBECTL,
  newE2EDeployment,
  newE2EReplicaSet,
  poll,
  REVISION,
  sleep,
  TestCluster,
} from './upstream-harness.js'

// upstream: test/utils/image manifests (WebserverImage, AgnhostImage) and their names.
const WEBSERVER_IMAGE_NAME = 'httpd'
const WEBSERVER_IMAGE = 'registry.k8s.io/e2e-test-images/httpd:2.4.38-4'
const AGNHOST_IMAGE_NAME = 'agnhost'
const AGNHOST_IMAGE = 'registry.k8s.io/e2e-test-images/agnhost:2.53'

const describeKubectl = KUBECTL ? describe : describe.skip
const TEST_TIMEOUT = 240_000
const DEPRECATED_ROLLBACK_TO = 'deprecated.deployment.rollback.to'

/** A seeded PRNG (mulberry32) in place of Go's math/rand, so a failing sequence can be replayed. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** upstream: e2epod.VerifyPodsRunning — `replicas` pods named by the label, Running. */
async function verifyPodsRunning(t: DeploymentTester, name: string, replicas: number): Promise<void> {
  await poll(`${replicas} running pods labelled name=${name}`, async () => {
    const pods = await t.cluster.list<Pod>(`/api/v1/namespaces/${t.ns}/pods?labelSelector=name%3D${name}`)
    const running = pods.filter((p) => p.metadata.deletionTimestamp == null && p.status?.phase === 'Running')
    return running.length === replicas
  })
}

/** upstream: ensureReplicas — spec and status of the ReplicaSet at `replicas` (eventually here). */
async function ensureReplicas(t: DeploymentTester, name: string, replicas: number): Promise<void> {
  let last: ReplicaSet | undefined
  await poll(
    `replicaset ${name} with ${replicas} replicas in spec and status`,
    async () => {
      last = await t.replicaSet(name)
      return last.spec.replicas === replicas && (last.status?.replicas ?? 0) === replicas
    },
    {state: () => JSON.stringify({spec: last?.spec.replicas, status: last?.status})},
  )
}

/** upstream: waitForReplicaSetTargetSpecReplicas */
async function waitForReplicaSetTargetSpecReplicas(t: DeploymentTester, rs: ReplicaSet, target: number) {
  const generation = rs.metadata.generation ?? 0
  let last: ReplicaSet | undefined
  await poll(
    `replicaset ${rs.metadata.name} to have .spec.replicas = ${target}`,
    async () => {
      last = await t.replicaSet(rs.metadata.name ?? '')
      return (last.status?.observedGeneration ?? 0) >= generation && last.spec.replicas === target
    },
    {state: () => `spec.replicas ${last?.spec.replicas}`},
  )
}

/** upstream: e2ereplicaset.WaitForReplicaSetTargetAvailableReplicas */
async function waitForReplicaSetTargetAvailableReplicas(t: DeploymentTester, rs: ReplicaSet, target: number) {
  const generation = rs.metadata.generation ?? 0
  await poll(`replicaset ${rs.metadata.name} to have ${target} available replicas`, async () => {
    const cur = await t.replicaSet(rs.metadata.name ?? '')
    return (
      (cur.status?.observedGeneration ?? 0) >= generation && (cur.status?.availableReplicas ?? 0) === target
    )
  })
}

/** upstream: waitForReplicaSetDesiredReplicas */
async function waitForReplicaSetDesiredReplicas(t: DeploymentTester, rs: ReplicaSet) {
  const generation = rs.metadata.generation ?? 0
  await poll(`replicaset ${rs.metadata.name} to have its desired number of replicas`, async () => {
    const cur = await t.replicaSet(rs.metadata.name ?? '')
    return (
      (cur.status?.observedGeneration ?? 0) >= generation &&
      (cur.status?.replicas ?? 0) === rs.spec.replicas &&
      (cur.status?.replicas ?? 0) === cur.spec.replicas
    )
  })
}

/** upstream (v1.5 e2e): CheckNewRSAnnotations — the new ReplicaSet carries these annotations. */
async function checkNewRSAnnotations(t: DeploymentTester, expected: Record<string, string>) {
  const rs = await t.expectNewReplicaSet()
  for (const [k, v] of Object.entries(expected)) {
    if (rs.metadata.annotations?.[k] !== v) {
      throw new Error(
        `new replicaset ${rs.metadata.name}: annotation ${k} is ${rs.metadata.annotations?.[k]}, want ${v}`,
      )
    }
  }
}

/** upstream (v1.5 e2e): checkDeploymentRevision — revision and container of the Deployment and its new ReplicaSet. */
async function checkDeploymentRevision(
  t: DeploymentTester,
  revision: string,
  imageName: string,
  image: string,
) {
  const d = await t.get()
  const rs = await t.expectNewReplicaSet()
  const seen = (x: Deployment | ReplicaSet) => ({
    revision: x.metadata.annotations?.[REVISION],
    name: x.spec.template?.spec?.containers?.[0]?.name,
    image: x.spec.template?.spec?.containers?.[0]?.image,
  })
  const want = {revision, name: imageName, image}
  for (const got of [seen(d), seen(rs)]) {
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      throw new Error(`revision check: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`)
    }
  }
}

/** upstream (v1.5 e2e): WaitForDeploymentRollbackCleared — the controller has taken the rollback request. */
async function waitForRollbackCleared(t: DeploymentTester) {
  await poll(`the rollback request of ${t.name} to be cleared`, async () => {
    const d = await t.get()
    return d.metadata.annotations?.[DEPRECATED_ROLLBACK_TO] === undefined
  })
}

/** The Deployment's events of one reason, as the controller posted them. */
async function deploymentEvents(t: DeploymentTester, reason: string): Promise<string[]> {
  const list = JSON.parse(await t.kubectl('get', 'events', '-o', 'json')) as {
    items: Array<{reason?: string; message?: string; involvedObject?: {kind?: string; name?: string}}>
  }
  return list.items
    .filter(
      (e) =>
        e.involvedObject?.kind === 'Deployment' && e.involvedObject.name === t.name && e.reason === reason,
    )
    .map((e) => e.message ?? '')
}

const setContainer = (name: string, image: string) => (u: Deployment) => {
  const c = u.spec.template?.spec?.containers?.[0]
  if (c) {
    c.name = name
    c.image = image
  }
}

describeKubectl('upstream conformance tests (test/e2e/apps/deployment.go) on a simulated cluster', () => {
  let cluster: TestCluster

  beforeAll(async () => {
    cluster = await TestCluster.start()
  }, 90_000)

  afterAll(async () => {
    await cluster?.close()
  }, 60_000)

  describe.concurrent('one cluster, one namespace per test', () => {
    it(
      'RollingUpdateDeployment should delete old pods and create new ones (testRollingUpdateDeployment): adopts a ReplicaSet and numbers its revision after it',
      async ({expect}) => {
        const ns = await cluster.namespace('deployment')
        const deploymentName = 'test-rolling-update-deployment'
        const t = new DeploymentTester(cluster, ns, deploymentName)
        const rsPodLabels = {name: 'sample-pod', pod: WEBSERVER_IMAGE_NAME}
        const rs = newE2EReplicaSet(
          'test-rolling-update-controller',
          1,
          rsPodLabels,
          WEBSERVER_IMAGE_NAME,
          WEBSERVER_IMAGE,
        )
        rs.metadata.annotations = {[REVISION]: '3546343826724305832'}
        await t.createObject(rs)
        await verifyPodsRunning(t, 'sample-pod', 1)

        await t.create(
          newE2EDeployment(
            deploymentName,
            1,
            {name: 'sample-pod'},
            AGNHOST_IMAGE_NAME,
            AGNHOST_IMAGE,
            'RollingUpdate',
          ),
        )
        // The next revision after the adopted ReplicaSet's, beyond 2^53.
        await t.waitForRevisionAndImage('3546343826724305833', AGNHOST_IMAGE)
        await t.waitForComplete()
        await t.agree('done')
        const {allOldRSs} = await t.oldReplicaSets()
        expect(allOldRSs.map((r) => r.metadata.name)).toEqual(['test-rolling-update-controller'])
      },
      TEST_TIMEOUT,
    )

    it(
      'RecreateDeployment should delete old pods and create new ones (testRecreateDeployment): new pods never run beside old ones',
      async ({expect}) => {
        const ns = await cluster.namespace('deployment')
        const deploymentName = 'test-recreate-deployment'
        const t = new DeploymentTester(cluster, ns, deploymentName)
        await t.create(
          newE2EDeployment(
            deploymentName,
            1,
            {name: 'sample-pod-3'},
            AGNHOST_IMAGE_NAME,
            AGNHOST_IMAGE,
            'Recreate',
          ),
        )
        await t.waitForRevisionAndImage('1', AGNHOST_IMAGE)
        await t.waitForComplete()
        await t.agree('done')

        const updated = await t.update(setContainer(WEBSERVER_IMAGE_NAME, WEBSERVER_IMAGE))

        // upstream: watchRecreateDeployment — from the update on, no status with new pods beside old ones.
        const violations: string[] = []
        let done: () => void = () => {}
        const finished = new Promise<void>((resolve) => {
          done = resolve
        })
        const watch = cluster.watch<Deployment>(
          `/apis/apps/v1/namespaces/${ns}/deployments`,
          {
            fieldSelector: `metadata.name=${deploymentName}`,
            resourceVersion: updated.metadata.resourceVersion ?? '',
          },
          (_type, d) => {
            const s = d.status ?? {}
            if ((s.updatedReplicas ?? 0) > 0 && s.replicas !== s.updatedReplicas) {
              violations.push(`running new pods alongside old pods: ${JSON.stringify(s)}`)
            }
            if (
              d.spec.replicas === s.replicas &&
              d.spec.replicas === s.updatedReplicas &&
              (d.metadata.generation ?? 0) <= (s.observedGeneration ?? 0)
            ) {
              done()
            }
          },
        )
        try {
          await Promise.race([
            finished,
            poll('the Recreate rollout to finish', async () => false, {timeoutMs: 120_000}),
          ])
        } finally {
          watch.stop()
          await watch.ended
        }
        expect(violations).toEqual([])
        await t.waitForComplete()
        await t.agree('done')
      },
      TEST_TIMEOUT,
    )

    it(
      'deployment should delete old replica sets (testDeploymentCleanUpPolicy): revisionHistoryLimit 0 leaves no old ReplicaSet, and only the new pod is created',
      async ({expect}) => {
        const ns = await cluster.namespace('deployment')
        const deploymentName = 'test-cleanup-deployment'
        const t = new DeploymentTester(cluster, ns, deploymentName)
        const rsPodLabels = {name: 'cleanup-pod', pod: WEBSERVER_IMAGE_NAME}
        await t.createObject(
          newE2EReplicaSet('test-cleanup-controller', 1, rsPodLabels, WEBSERVER_IMAGE_NAME, WEBSERVER_IMAGE),
        )
        await verifyPodsRunning(t, 'cleanup-pod', 1)

        // There should be only one pod created from here on, the one with the agnhost image.
        const pods = await cluster.get<{metadata: {resourceVersion: string}}>(`/api/v1/namespaces/${ns}/pods`)
        const created: Pod[] = []
        const watch = cluster.watch<Pod>(
          `/api/v1/namespaces/${ns}/pods`,
          {resourceVersion: pods?.metadata.resourceVersion ?? ''},
          (type, pod) => {
            if (type === 'ADDED') created.push(pod)
          },
        )
        try {
          const d = newE2EDeployment(
            deploymentName,
            1,
            {name: 'cleanup-pod'},
            AGNHOST_IMAGE_NAME,
            AGNHOST_IMAGE,
            'RollingUpdate',
          )
          d.spec.revisionHistoryLimit = 0
          await t.create(d)
          // upstream: waitForDeploymentOldRSsNum(0)
          await poll('the old replica sets to be cleaned up', async () => {
            const {allOldRSs} = await t.oldReplicaSets()
            return allOldRSs.length === 0
          })
          await t.waitForComplete()
          await t.agree('done')
        } finally {
          watch.stop()
          await watch.ended
        }
        expect(created.map((p) => p.spec?.containers?.[0]?.name)).toEqual([AGNHOST_IMAGE_NAME])
      },
      TEST_TIMEOUT,
    )

    it(
      'deployment should support rollover (testRolloverDeployment): a new template while a rollout is stuck rolls over both old ReplicaSets',
      async () => {
        const ns = await cluster.namespace('deployment')
        const podName = 'rollover-pod'
        const rsName = 'test-rollover-controller'
        const deploymentName = 'test-rollover-deployment'
        const t = new DeploymentTester(cluster, ns, deploymentName)
        await t.createObject(
          newE2EReplicaSet(
            rsName,
            1,
            {name: podName, pod: WEBSERVER_IMAGE_NAME},
            WEBSERVER_IMAGE_NAME,
            WEBSERVER_IMAGE,
          ),
        )
        await verifyPodsRunning(t, podName, 1)
        // upstream: e2ereplicaset.WaitForReadyReplicaSet
        await poll(`replicaset ${rsName} ready`, async () => {
          const rs = await t.replicaSet(rsName)
          return (rs.status?.readyReplicas ?? 0) === rs.spec.replicas
        })

        // A nonexistent image, so that the rollout cannot finish (upstream: gcr.io/...:nonexistent).
        const deploymentImage = 'gcr.invalid/google_samples/gb-redisslave:nonexistent'
        const d = newE2EDeployment(
          deploymentName,
          1,
          {name: podName},
          'redis-slave',
          deploymentImage,
          'RollingUpdate',
        )
        d.spec.strategy = {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 0, maxSurge: 1}}
        d.spec.minReadySeconds = 10
        await t.create(d)

        await t.waitForUpdatedReplicasGTE(1)
        // upstream: checkDeploymentRevisionAndImage (at once; the state is steady here).
        await t.waitForRevisionAndImage('1', deploymentImage)
        await ensureReplicas(t, rsName, 1)
        const stuckRS = await t.expectNewReplicaSet()
        await ensureReplicas(t, stuckRS.metadata.name ?? '', 1)
        await t.agree('waiting')

        // The deployment is stuck: roll over both ReplicaSets with a new image.
        await t.update(setContainer(AGNHOST_IMAGE_NAME, AGNHOST_IMAGE))
        await t.waitForObserved(t.deployment.metadata.generation ?? 0)
        await t.waitForRevisionAndImage('2', AGNHOST_IMAGE)
        await t.waitForComplete({rolling: true})
        await t.agree('done')
        await ensureReplicas(t, rsName, 0)
        // Not the new ReplicaSet any more; read by name.
        await ensureReplicas(t, stuckRS.metadata.name ?? '', 0)
      },
      TEST_TIMEOUT,
    )

    it(
      'deployment should support proportional scaling (testProportionalScalingDeployment): scaling mid-rollout shares the new replicas among the active ReplicaSets',
      async ({expect}) => {
        const ns = await cluster.namespace('deployment')
        const deploymentName = 'webserver-deployment'
        const t = new DeploymentTester(cluster, ns, deploymentName)
        const replicas = 10
        const d = newE2EDeployment(
          deploymentName,
          replicas,
          {name: WEBSERVER_IMAGE_NAME},
          WEBSERVER_IMAGE_NAME,
          WEBSERVER_IMAGE,
          'RollingUpdate',
        )
        d.spec.strategy = {type: 'RollingUpdate', rollingUpdate: {maxSurge: 3, maxUnavailable: 2}}
        await t.create(d)
        await t.waitForObserved(t.deployment.metadata.generation ?? 0)
        await verifyPodsRunning(t, WEBSERVER_IMAGE_NAME, replicas)
        await t.waitForComplete()
        await t.agree('done')
        const firstRS = await t.expectNewReplicaSet()

        // A non-existent image blocks the new ReplicaSet: a partial rollout.
        await t.update((u) => {
          const c = u.spec.template?.spec?.containers?.[0]
          if (c) c.image = 'registry.example.invalid/webserver:404'
        })
        await t.waitForObserved(t.deployment.metadata.generation ?? 0)
        const {maxSurge, maxUnavailable} = fenceposts(t.deployment)

        // The first rollout's ReplicaSet keeps replicas - maxUnavailable = 8, available and desired.
        const minAvailableReplicas = replicas - maxUnavailable
        await waitForReplicaSetTargetAvailableReplicas(t, firstRS, minAvailableReplicas)
        await waitForReplicaSetTargetSpecReplicas(t, firstRS, minAvailableReplicas)
        await waitForReplicaSetDesiredReplicas(t, await t.replicaSet(firstRS.metadata.name ?? ''))

        // The second one: replicas + maxSurge - 8 = 5, none available.
        const secondRS = await t.expectNewReplicaSet()
        expect(secondRS.status?.availableReplicas ?? 0).toBe(0)
        await waitForReplicaSetTargetSpecReplicas(t, secondRS, replicas + maxSurge - minAvailableReplicas)
        await waitForReplicaSetDesiredReplicas(t, await t.replicaSet(secondRS.metadata.name ?? ''))
        expect((await t.get()).status?.availableReplicas ?? 0).toBeGreaterThanOrEqual(minAvailableReplicas)
        await t.agree('waiting')

        // Scale to 30: 8 + 20·8/13 → 20 and 5 + 20·5/13 → 13.
        await t.update((u) => {
          u.spec.replicas = 30
        })
        await waitForReplicaSetTargetSpecReplicas(t, await t.replicaSet(firstRS.metadata.name ?? ''), 20)
        await waitForReplicaSetTargetSpecReplicas(t, await t.replicaSet(secondRS.metadata.name ?? ''), 13)
        await t.agree('waiting')
      },
      TEST_TIMEOUT,
    )

    it(
      'iterative rollouts should eventually progress (testIterativeDeployments): 20 seeded random updates, rollbacks, scales, pauses and pod deletions',
      async ({expect}) => {
        const ns = await cluster.namespace('deployment')
        const deploymentName = 'webserver'
        const t = new DeploymentTester(cluster, ns, deploymentName)
        const d = newE2EDeployment(
          deploymentName,
          6,
          {name: WEBSERVER_IMAGE_NAME},
          WEBSERVER_IMAGE_NAME,
          WEBSERVER_IMAGE,
          'RollingUpdate',
        )
        d.spec.progressDeadlineSeconds = 300
        d.spec.revisionHistoryLimit = 2
        await t.create(d)
        let deployment = t.deployment

        const seed = 14
        const rand = seededRandom(seed)
        const steps: string[] = []
        /** upstream: randomScale — drawn once per step (upstream draws again when an update is retried). */
        const randomScale = (): ((u: Deployment) => void) => {
          const r = rand()
          return (u) => {
            if (r < 0.3) u.spec.replicas = (u.spec.replicas ?? 1) + 1
            else if (r < 0.6 && (u.spec.replicas ?? 1) > 1) u.spec.replicas = (u.spec.replicas ?? 1) - 1
          }
        }
        for (let i = 0; i < 20; i++) {
          const r = rand()
          // upstream sleeps i·r seconds; the simulated pods are ready in 150 ms, so 100 ms stand for a second.
          if (r < 0.6) await sleep(i * r * 100)
          const n = rand()
          if (n < 0.2) {
            steps.push(`${i}: a new rollout`)
            const scale = randomScale()
            deployment = await t.update((u) => {
              const c = u.spec.template?.spec?.containers?.[0]
              if (c) c.env = [...((c.env as unknown[]) ?? []), {name: `A${i}`, value: `${i}`}]
              scale(u)
            })
          } else if (n < 0.4) {
            steps.push(`${i}: a rollback to the previous revision`)
            deployment = await t.update((u) => {
              u.metadata.annotations = {...u.metadata.annotations, [DEPRECATED_ROLLBACK_TO]: '0'}
            })
          } else if (n < 0.6) {
            steps.push(`${i}: scaling`)
            deployment = await t.update(randomScale())
          } else if (n < 0.8) {
            const resume = deployment.spec.paused === true
            steps.push(`${i}: ${resume ? 'resuming' : 'pausing'}`)
            const scale = randomScale()
            deployment = await t.update((u) => {
              u.spec.paused = !resume
              scale(u)
            })
          } else {
            const pods = await t.pods()
            const victims = pods.filter(() => rand() >= 0.5).map((p) => p.metadata.name ?? '')
            steps.push(`${i}: deleting ${victims.length} of ${pods.length} pods`)
            if (victims.length > 0) {
              const r = await cluster.kubectl([
                '-n',
                ns,
                'delete',
                'pod',
                ...victims,
                '--wait=false',
                '--ignore-not-found',
              ])
              expect(r.stderr).toBe('')
            }
          }
          await t.agree()
        }

        // Unpause the deployment if it ended paused.
        deployment = await t.get()
        if (deployment.spec.paused) {
          steps.push('resuming at the end')
          await t.kubectl('rollout', 'resume', `deployment/${deploymentName}`)
          deployment = await t.refresh()
        }
        await t.waitForObserved(deployment.metadata.generation ?? 0)
        await t.waitForComplete()
        await t.waitForCondition('NewReplicaSetAvailable', 'Progressing')
        await t.agree('done')
        expect(steps).toHaveLength(20 + (steps.at(-1) === 'resuming at the end' ? 1 : 0))
      },
      TEST_TIMEOUT,
    )

    it(
      'Deployment should have a working scale subresource (testDeploymentSubresources)',
      async ({expect}) => {
        const ns = await cluster.namespace('deployment')
        const deploymentName = 'test-new-deployment'
        const t = new DeploymentTester(cluster, ns, deploymentName)
        await t.create(
          newE2EDeployment(
            deploymentName,
            1,
            {name: WEBSERVER_IMAGE_NAME},
            WEBSERVER_IMAGE_NAME,
            WEBSERVER_IMAGE,
            'RollingUpdate',
          ),
        )
        await t.waitForRevisionAndImage('1', WEBSERVER_IMAGE)
        await t.waitForComplete()
        await t.agree('done')

        const scale = JSON.parse(
          await t.kubectl('get', `deployment/${deploymentName}`, '--subresource=scale', '-o', 'json'),
        ) as {spec: {replicas: number}; status: {replicas: number}}
        expect(scale.spec.replicas).toBe(1)
        expect(scale.status.replicas).toBe(1)

        // upstream: UpdateScale, unconditional. kubectl cannot PUT a Scale (no mapping for the kind);
        // `kubectl scale` writes it through the same subresource.
        await t.kubectl('scale', `deployment/${deploymentName}`, '--replicas=2')
        expect((await t.refresh()).spec.replicas).toBe(2)

        // upstream: a strategic merge patch of the scale subresource.
        await t.kubectl(
          'patch',
          `deployment/${deploymentName}`,
          '--subresource=scale',
          '-p',
          '{"spec":{"replicas":4}}',
        )
        expect((await t.refresh()).spec.replicas).toBe(4)
        await t.waitForComplete()
        await t.agree('done')
      },
      TEST_TIMEOUT,
    )
  })

  describe.concurrent('rollback and undo', () => {
    const nginxImageName = 'nginx'
    const nginxImage = 'gcr.io/google_containers/nginx-slim:0.7'
    const redisImageName = 'redis'
    const redisImage = 'gcr.io/google_containers/redis:e2e'

    it(
      'deployment should support rollback (testRollbackDeployment, v1.5 e2e): kubectl rollout undo to revision 1, then to the last revision',
      async () => {
        const ns = await cluster.namespace('deployment')
        const deploymentName = 'test-rollback-deployment'
        const t = new DeploymentTester(cluster, ns, deploymentName)
        const d = newE2EDeployment(
          deploymentName,
          1,
          {name: 'nginx'},
          nginxImageName,
          nginxImage,
          'RollingUpdate',
        )
        d.metadata.labels = {}
        const createAnnotation = {action: 'create', author: 'node'}
        d.metadata.annotations = createAnnotation
        await t.create(d)
        await t.waitForRevisionAndImage('1', nginxImage)
        await t.waitForComplete()
        await t.agree('done')
        await checkNewRSAnnotations(t, createAnnotation)

        // 2. A new image, and the Deployment's annotations replaced.
        const updateAnnotation = {action: 'update', log: 'I need to update it'}
        await t.update((u) => {
          setContainer(redisImageName, redisImage)(u)
          u.metadata.annotations = {...updateAnnotation}
        })
        await t.waitForObserved(t.deployment.metadata.generation ?? 0)
        await t.waitForRevisionAndImage('2', redisImage)
        await t.waitForComplete()
        await t.agree('done')
        await checkNewRSAnnotations(t, updateAnnotation)

        // 3. Roll back to revision 1 (upstream: the rollback subresource; here kubectl's own undo).
        await t.kubectl('rollout', 'undo', `deployment/${deploymentName}`, '--to-revision=1')
        await t.refresh()
        await t.waitForRevisionAndImage('3', nginxImage)
        await t.waitForComplete()
        await t.agree('done')
        await checkNewRSAnnotations(t, createAnnotation)

        // 4. Roll back to the last revision.
        await t.kubectl('rollout', 'undo', `deployment/${deploymentName}`)
        await t.refresh()
        await t.waitForRevisionAndImage('4', redisImage)
        await t.waitForComplete()
        await t.agree('done')
        await checkNewRSAnnotations(t, updateAnnotation)
      },
      TEST_TIMEOUT,
    )

    it(
      "deployment should support rollback when there's replica set with no revision (testRollbackDeploymentRSNoRevision, v1.5 e2e): the controller's rollback, requested by annotation",
      async ({expect}) => {
        // The extensions/v1beta1 rollback subresource set spec.rollbackTo; apps/v1 keeps its
        // controller path behind the deprecated.deployment.rollback.to annotation (upstream:
        // getRollbackTo, rollback, emitRollbackWarningEvent, emitRollbackNormalEvent).
        const ns = await cluster.namespace('deployment')
        const deploymentName = 'test-rollback-no-revision-deployment'
        const t = new DeploymentTester(cluster, ns, deploymentName)
        const rsName = 'test-rollback-no-revision-controller'
        const rs = newE2EReplicaSet(
          rsName,
          0,
          {name: 'nginx', pod: nginxImageName},
          nginxImageName,
          nginxImage,
        )
        rs.metadata.annotations = {make: 'difference'}
        await t.createObject(rs)

        // 1. A Deployment whose template differs from that ReplicaSet's.
        await t.create(
          newE2EDeployment(deploymentName, 1, {name: 'nginx'}, nginxImageName, nginxImage, 'RollingUpdate'),
        )
        await t.waitForRevisionAndImage('1', nginxImage)
        await t.waitForComplete()
        await t.agree('done')
        expect((await t.replicaSet(rsName)).metadata.annotations?.[REVISION]).toBeUndefined()

        const rollbackTo = async (revision: number) => {
          await t.update((u) => {
            u.metadata.annotations = {...u.metadata.annotations, [DEPRECATED_ROLLBACK_TO]: String(revision)}
          })
          await waitForRollbackCleared(t)
        }

        // 2. To the last revision: there is none before 1, so nothing changes.
        await rollbackTo(0)
        await checkDeploymentRevision(t, '1', nginxImageName, nginxImage)
        await t.agree('done')

        // 3. A new image: revision 2.
        await t.update(setContainer(redisImageName, redisImage))
        await t.waitForObserved(t.deployment.metadata.generation ?? 0)
        await t.waitForRevisionAndImage('2', redisImage)
        await t.waitForComplete()
        await t.agree('done')

        // 4. To revision 1: its template comes back as revision 3.
        await rollbackTo(1)
        await t.waitForRevisionAndImage('3', nginxImage)
        await t.waitForComplete()
        await t.agree('done')

        // 5. To revision 10, which is not in the history: nothing changes.
        await rollbackTo(10)
        await checkDeploymentRevision(t, '3', nginxImageName, nginxImage)
        await t.agree('done')

        // 6. To revision 3, the current one: nothing changes.
        await rollbackTo(3)
        await checkDeploymentRevision(t, '3', nginxImageName, nginxImage)
        await t.agree('done')

        // What upstream's TODOs wanted checked: the controller said what it did with each request
        // (upstream: deploymentutil.RollbackRevisionNotFound, RollbackDone, RollbackTemplateUnchanged).
        await poll(
          'the rollback events',
          async () => (await deploymentEvents(t, 'DeploymentRollbackTemplateUnchanged')).length > 0,
        )
        expect((await deploymentEvents(t, 'DeploymentRollbackRevisionNotFound')).sort()).toEqual([
          'Unable to find last revision.',
          'Unable to find the revision to rollback to.',
        ])
        expect(await deploymentEvents(t, 'DeploymentRollback')).toEqual([
          `Rolled back deployment "${deploymentName}" to revision 1`,
        ])
        expect(await deploymentEvents(t, 'DeploymentRollbackTemplateUnchanged')).toEqual([
          'The rollback revision contains the same template as current deployment "test-rollback-no-revision-deployment"',
        ])
        expect(controllerOf(await t.replicaSet(rsName))?.uid).toBe(t.deployment.metadata.uid)
      },
      TEST_TIMEOUT,
    )
  })
})
