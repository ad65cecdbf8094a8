// The ReplicaSet controller and pod lifecycle models of src/sim: upstream's victim order, the
// status the Deployment controller reads, minReadySeconds, and the pod states over time.

import {describe, expect, it} from 'vitest'
import type {Pod, PodCondition, ReplicaSet} from '../../src/controller/api/types.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import {SimulatedCluster} from '../../src/sim/cluster.js'
import {
  advancePod,
  DEFAULT_TIMINGS,
  feasibleNodes,
  type KubeletContext,
  nextPodEventAt,
  nodeLabels,
  normalizeImage,
  planForInputPod,
  planForNewPod,
  registryHost,
  schedulingFailure,
  terminatePod,
} from '../../src/sim/pods.js'
import {generateName, Random} from '../../src/sim/random.js'
import {
  calculateStatus,
  deletesBefore,
  getPodsToDelete,
  manageReplicas,
  nextAvailableAt,
  PodDeletionCostAnnotation,
  podFromTemplate,
  replicaSetStatus,
  statusToWrite,
} from '../../src/sim/replicaset.js'
import {isPodAvailable} from '../../src/status/pods.js'

const T0 = Date.parse('2026-11-29T10:00:00Z')
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')
const gates = parseFeatureGates(undefined)

interface PodSpecOptions {
  node?: string
  phase?: string
  /** When the pod became ready (ms); not ready when absent. */
  readySince?: number
  created?: number
  restarts?: number
  uid?: string
  cost?: number
  deleting?: boolean
  labels?: Record<string, string>
  owner?: string
}

function pod(name: string, o: PodSpecOptions = {}): Pod {
  const conditions: PodCondition[] = []
  if (o.readySince !== undefined)
    conditions.push({type: 'Ready', status: 'True', lastTransitionTime: iso(o.readySince)})
  else conditions.push({type: 'Ready', status: 'False', lastTransitionTime: iso(T0)})
  return {
    metadata: {
      name,
      namespace: 'demo',
      uid: o.uid ?? `uid-${name}`,
      creationTimestamp: iso(o.created ?? T0 - 3_600_000),
      labels: o.labels ?? {app: 'web', 'pod-template-hash': 'abc'},
      ...(o.cost !== undefined ? {annotations: {[PodDeletionCostAnnotation]: String(o.cost)}} : {}),
      ...(o.deleting ? {deletionTimestamp: iso(T0 + 30_000)} : {}),
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: o.owner ?? 'web-abc',
          uid: `uid-${o.owner ?? 'web-abc'}`,
          controller: true,
        },
      ],
    },
    spec: {
      containers: [{name: 'app', image: 'nginx:1.27'}],
      ...(o.node !== undefined ? {nodeName: o.node} : {nodeName: 'n1'}),
    },
    status: {
      phase: o.phase ?? 'Running',
      conditions,
      containerStatuses: [{name: 'app', ready: o.readySince !== undefined, restartCount: o.restarts ?? 0}],
    },
  }
}

function rs(replicas: number, extra: Partial<ReplicaSet['spec']> = {}, generation = 2): ReplicaSet {
  return {
    metadata: {name: 'web-abc', namespace: 'demo', uid: 'uid-web-abc', generation},
    spec: {replicas, template: {metadata: {labels: {app: 'web', 'pod-template-hash': 'abc'}}}, ...extra},
  }
}

/** The names in deletion order. */
function victims(pods: Pod[], now = T0, related = pods): string[] {
  return getPodsToDelete(pods, related, pods.length - 1, now).map((p) => p.metadata.name ?? '')
}

describe('victim order (upstream ActivePodsWithRanks)', () => {
  const ready = T0 - 3_600_000

  it('deletes unassigned pods before assigned ones', () => {
    expect(
      victims([
        pod('assigned', {readySince: ready}),
        pod('unassigned', {node: '', phase: 'Pending'}),
        pod('x', {readySince: ready}),
      ])[0],
    ).toBe('unassigned')
  })

  it('orders phases Pending < Unknown < Running', () => {
    const order = victims([
      pod('running', {readySince: ready}),
      pod('unknown', {phase: 'Unknown'}),
      pod('pending', {phase: 'Pending'}),
      pod('last', {readySince: ready}),
    ])
    expect(order.slice(0, 2)).toEqual(['pending', 'unknown'])
  })

  it('deletes not-ready pods before ready ones', () => {
    expect(
      victims([
        pod('ready', {readySince: ready}),
        pod('not-ready'),
        pod('also-ready', {readySince: ready}),
      ])[0],
    ).toBe('not-ready')
  })

  it('deletes the lower pod-deletion-cost first', () => {
    expect(
      victims([
        pod('expensive', {readySince: ready, cost: 100}),
        pod('cheap', {readySince: ready, cost: -5}),
        pod('default', {readySince: ready}),
      ]),
    ).toEqual(['cheap', 'default'])
  })

  it('deletes pods doubled up on a node (more related pods there) first', () => {
    const pods = [
      pod('alone', {readySince: ready, node: 'n2'}),
      pod('crowded-a', {readySince: ready, node: 'n1'}),
      pod('crowded-b', {readySince: ready, node: 'n1'}),
    ]
    expect(victims(pods)).toEqual(['crowded-a', 'crowded-b'])
    // Related pods of sibling ReplicaSets count too.
    const sibling = [
      pod('s1', {node: 'n2', owner: 'web-old', readySince: ready}),
      pod('s2', {node: 'n2', owner: 'web-old', readySince: ready}),
    ]
    expect(getPodsToDelete(pods, [...pods, ...sibling], 1, T0).map((p) => p.metadata.name)).toEqual(['alone'])
  })

  it('deletes the pod ready for the shorter time first (logarithmic buckets, then UID)', () => {
    // 10s and 100s ago are in different powers of two of nanoseconds; 100s and 110s ago are not.
    expect(
      victims([
        pod('old-ready', {readySince: T0 - 100_000}),
        pod('new-ready', {readySince: T0 - 10_000}),
        pod('z', {readySince: T0 - 1_000_000}),
      ]),
    ).toEqual(['new-ready', 'old-ready'])
    const sameBucket = [
      pod('b', {readySince: T0 - 110_000, uid: 'uid-2'}),
      pod('a', {readySince: T0 - 100_000, uid: 'uid-1'}),
      pod('z', {readySince: T0 - 1_000_000}),
    ]
    expect(victims(sameBucket)).toEqual(['a', 'b'])
    const byUid = [
      pod('a', {readySince: T0 - 100_000, uid: 'uid-9'}),
      pod('b', {readySince: T0 - 110_000, uid: 'uid-1'}),
      pod('z', {readySince: T0 - 1_000_000}),
    ]
    expect(victims(byUid)).toEqual(['b', 'a'])
  })

  it('deletes the pod with more restarts first', () => {
    expect(victims([pod('calm'), pod('crashy', {restarts: 7}), pod('some', {restarts: 2})])).toEqual([
      'crashy',
      'some',
    ])
  })

  it('deletes the newer pod first, and a pod with no creation time before any', () => {
    expect(
      victims([
        pod('old', {created: T0 - 1_000_000}),
        pod('new', {created: T0 - 10_000}),
        pod('older', {created: T0 - 10_000_000}),
      ]),
    ).toEqual(['new', 'old'])
    const noTime = pod('no-time')
    delete noTime.metadata.creationTimestamp
    expect(
      victims([pod('new', {created: T0 - 10_000}), noTime, pod('old', {created: T0 - 1_000_000})])[0],
    ).toBe('no-time')
  })

  it('applies the criteria in upstream order: phase before readiness before restarts before age', () => {
    const a = pod('pending-old', {phase: 'Pending', created: T0 - 10_000_000})
    const b = pod('running-notready-new', {created: T0 - 10_000})
    expect(deletesBefore(a, 1, b, 1, T0)).toBe(true)
    const c = pod('notready-calm')
    const d = pod('ready-crashy', {readySince: ready, restarts: 9})
    expect(deletesBefore(c, 1, d, 1, T0)).toBe(true)
  })

  it('takes all pods in their order when deleting as many as there are', () => {
    const pods = [pod('a', {readySince: ready}), pod('b')]
    expect(getPodsToDelete(pods, pods, 2, T0).map((p) => p.metadata.name)).toEqual(['a', 'b'])
  })
})

describe('manageReplicas', () => {
  it('creates the missing pods, ignoring terminating and finished ones', () => {
    const pods = [
      pod('a', {readySince: T0}),
      pod('gone', {deleting: true}),
      pod('done', {phase: 'Succeeded'}),
    ]
    expect(manageReplicas(rs(3), pods, pods, T0)).toEqual({create: 2, delete: []})
  })

  it('deletes the surplus in victim order', () => {
    const pods = [pod('a', {readySince: T0 - 60_000}), pod('b'), pod('c', {readySince: T0 - 60_000})]
    const r = manageReplicas(rs(1), pods, pods, T0)
    expect(r.create).toBe(0)
    expect(r.delete.map((p) => p.metadata.name)).toEqual(['b', 'a'])
  })
})

describe('replicaSetStatus', () => {
  it('counts active, fully labelled, ready, available and terminating pods', () => {
    const pods = [
      pod('ready-long', {readySince: T0 - 60_000}),
      pod('ready-just-now', {readySince: T0 - 2_000}),
      pod('not-ready'),
      pod('mislabelled', {readySince: T0 - 60_000, labels: {app: 'web'}}),
      pod('terminating', {readySince: T0 - 60_000, deleting: true}),
      pod('finished', {phase: 'Succeeded'}),
    ]
    const status = replicaSetStatus(rs(4, {minReadySeconds: 10}), pods, T0, gates)
    expect(status).toEqual({
      replicas: 4,
      fullyLabeledReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 2,
      terminatingReplicas: 1,
      observedGeneration: 2,
    })
  })

  it('adds ReplicaFailure when managing the pods failed, keeps the first one, drops it after a success', () => {
    // upstream: calculateStatus — FailedCreate when pods are missing, the error as the message.
    const r = rs(3)
    const failed = replicaSetStatus(r, [], T0, gates, {
      message: 'pods "web-abc-" is forbidden: exceeded quota',
    })
    expect(failed.conditions).toEqual([
      {
        type: 'ReplicaFailure',
        status: 'True',
        reason: 'FailedCreate',
        message: 'pods "web-abc-" is forbidden: exceeded quota',
        lastTransitionTime: '2026-11-29T10:00:00Z',
      },
    ])
    r.status = failed
    expect(replicaSetStatus(r, [], T0 + 5_000, gates, {message: 'another error'})).toBe(r.status)
    expect(replicaSetStatus(r, [], T0 + 5_000, gates).conditions).toBeUndefined()
  })

  it('writes nothing in the steady state (upstream updateReplicaSetStatus)', () => {
    const r = rs(1)
    const pods = [pod('a', {readySince: T0 - 60_000})]
    r.status = {
      replicas: 1,
      fullyLabeledReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      terminatingReplicas: 0,
      observedGeneration: 2,
    }
    expect(statusToWrite(r, calculateStatus(r, pods, T0, gates))).toBeUndefined()
    r.metadata.generation = 3
    expect(statusToWrite(r, calculateStatus(r, pods, T0, gates))).toMatchObject({observedGeneration: 3})
  })

  it('makes pods from the template with the controller reference (upstream GetPodFromTemplate)', () => {
    const r = rs(1)
    r.spec.template = {
      metadata: {labels: {app: 'web'}, annotations: {a: 'b'}},
      spec: {containers: [{name: 'app', image: 'x'}]},
    }
    const p = podFromTemplate(r)
    expect(p.metadata).toEqual({
      generateName: 'web-abc-',
      namespace: 'demo',
      labels: {app: 'web'},
      annotations: {a: 'b'},
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-abc',
          uid: 'uid-web-abc',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    })
    expect(p.spec).toEqual({containers: [{name: 'app', image: 'x'}]})
  })

  it('leaves zero counts out, writes terminatingReplicas only with the gate, drops ReplicaFailure', () => {
    const r = rs(0)
    r.status = {replicas: 2, conditions: [{type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate'}]}
    expect(
      replicaSetStatus(r, [], T0, parseFeatureGates('DeploymentReplicaSetTerminatingReplicas=false')),
    ).toEqual({
      replicas: 0,
      observedGeneration: 2,
    })
    expect(replicaSetStatus(r, [], T0, gates)).toEqual({
      replicas: 0,
      terminatingReplicas: 0,
      observedGeneration: 2,
    })
  })
})

describe('minReadySeconds', () => {
  it('makes a ready pod available only strictly after minReadySeconds', () => {
    const p = pod('p', {readySince: T0})
    expect(isPodAvailable(p, 0, T0)).toBe(true)
    expect(isPodAvailable(p, 5, T0 + 5_000)).toBe(false)
    expect(isPodAvailable(p, 5, T0 + 5_001)).toBe(true)
  })

  it('schedules the recheck of the ReplicaSet for the first millisecond past the mark', () => {
    const r = rs(2, {minReadySeconds: 5})
    const pods = [pod('a', {readySince: T0}), pod('b', {readySince: T0 + 3_000}), pod('c')]
    expect(nextAvailableAt(r, pods, T0 + 1_000)).toBe(T0 + 5_001)
    expect(nextAvailableAt(r, pods, T0 + 5_001)).toBe(T0 + 8_001)
    expect(nextAvailableAt(r, pods, T0 + 9_000)).toBeUndefined()
    expect(nextAvailableAt(rs(2), pods, T0)).toBeUndefined()
  })
})

describe('pod lifecycle', () => {
  const ctx: KubeletContext = {timings: DEFAULT_TIMINGS, pickNode: () => 'node-1'}

  function fresh(): Pod {
    return {
      metadata: {name: 'web-abc-x', namespace: 'demo', uid: 'uid-x', creationTimestamp: iso(T0)},
      spec: {containers: [{name: 'app', image: 'nginx:1.27'}], terminationGracePeriodSeconds: 30},
      status: {phase: 'Pending'},
    }
  }

  it('leaves a pod whose nodeSelector no node matches Unschedulable, as kube-scheduler writes it', () => {
    const nodes = ['node-1', 'node-2', 'node-3']
    const pod = {...fresh(), spec: {...fresh().spec, nodeSelector: {disktype: 'ssd'}}}
    const r = advancePod(pod, planForNewPod(T0, DEFAULT_TIMINGS), T0 + 60_000, {...ctx, nodes})
    const message =
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    expect(r.pod?.spec?.nodeName).toBeUndefined()
    expect(r.pod?.status?.phase).toBe('Pending')
    expect(r.pod?.status?.conditions).toEqual([
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message,
        lastProbeTime: null,
        lastTransitionTime: iso(T0 + 1_000),
      },
    ])
    expect(r.events).toEqual([
      {
        type: 'Warning',
        reason: 'FailedScheduling',
        object: 'Pod/web-abc-x',
        message,
        source: 'default-scheduler',
      },
    ])
    expect(r.plan.stage).toBe('unschedulable')
    expect(r.plan.nextAt).toBeUndefined()
    // A selector a node's own labels satisfy schedules there.
    const pinned = {...fresh(), spec: {...fresh().spec, nodeSelector: {'kubernetes.io/hostname': 'node-2'}}}
    expect(feasibleNodes(pinned, nodes)).toEqual(['node-2'])
    expect(schedulingFailure(pinned, nodes)).toBeUndefined()
  })

  it('gives nodes every label a kubelet sets, the beta os/arch twins too (sock-shop selects on them)', () => {
    const nodes = ['node-1', 'node-2']
    expect(nodeLabels('node-1')).toEqual({
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': 'node-1',
      'kubernetes.io/os': 'linux',
    })
    const legacy = {...fresh(), spec: {...fresh().spec, nodeSelector: {'beta.kubernetes.io/os': 'linux'}}}
    expect(feasibleNodes(legacy, nodes)).toEqual(nodes)
    const r = advancePod(legacy, planForNewPod(T0, DEFAULT_TIMINGS), T0 + 60_000, {...ctx, nodes})
    expect(r.pod?.spec?.nodeName).toBeDefined()
    expect(r.plan.stage).not.toBe('unschedulable')
  })

  it('keeps a pod of the input the scheduler refused, and refuses its template again', () => {
    const message = '0/3 nodes are available: 3 Insufficient cpu.'
    const refused: Pod = {
      ...fresh(),
      status: {
        phase: 'Pending',
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message,
            lastTransitionTime: iso(T0),
          },
        ],
      },
    }
    const plan = planForInputPod(refused, T0 + 5_000, DEFAULT_TIMINGS)
    expect(plan).toEqual({stage: 'unschedulable', createdAt: T0, refusal: message})
    expect(nextPodEventAt(plan)).toBeUndefined()
    // A new pod of the same template, planned with that refusal, is left Unschedulable too.
    const r = advancePod(fresh(), {...planForNewPod(T0, DEFAULT_TIMINGS), refusal: message}, T0 + 60_000, ctx)
    expect(r.pod?.spec?.nodeName).toBeUndefined()
    expect(r.pod?.status?.conditions?.[0]).toMatchObject({
      type: 'PodScheduled',
      reason: 'Unschedulable',
      message,
    })
    expect(r.events.map((e) => [e.type, e.reason, e.source])).toEqual([
      ['Warning', 'FailedScheduling', 'default-scheduler'],
    ])
  })

  it('schedules a healthy pod after 1s and makes it Running and Ready at readyAfter', () => {
    let plan = planForNewPod(T0, DEFAULT_TIMINGS)
    let r = advancePod(fresh(), plan, T0 + 999, ctx)
    expect(r.notes).toEqual([])
    r = advancePod(fresh(), plan, T0 + 1_000, ctx)
    expect(r.pod?.spec?.nodeName).toBe('node-1')
    expect(r.pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('ContainerCreating')
    expect(r.events.map((e) => e.reason)).toEqual(['Scheduled'])
    plan = r.plan
    r = advancePod(r.pod as Pod, plan, T0 + 10_000, ctx)
    expect(r.notes).toEqual(['ContainerCreating -> Running, ready'])
    expect(r.pod?.status?.phase).toBe('Running')
    const readyCond = r.pod?.status?.conditions?.find((c) => c.type === 'Ready')
    expect(readyCond).toMatchObject({status: 'True', lastTransitionTime: '2026-11-29T10:00:10Z'})
    expect(r.plan.nextAt).toBeUndefined()
  })

  it('applies every transition due at once, each at its own time', () => {
    const r = advancePod(fresh(), planForNewPod(T0, DEFAULT_TIMINGS), T0 + 60_000, ctx)
    expect(r.notes).toEqual(['scheduled to node-1, ContainerCreating', 'ContainerCreating -> Running, ready'])
    expect(r.pod?.status?.conditions?.find((c) => c.type === 'PodScheduled')?.lastTransitionTime).toBe(
      '2026-11-29T10:00:01Z',
    )
  })

  it('keeps an image-pull failure in ImagePullBackOff with the registry message', () => {
    const r = advancePod(fresh(), planForNewPod(T0, DEFAULT_TIMINGS, 'ImagePullBackOff'), T0 + 3_600_000, ctx)
    expect(r.notes).toEqual([
      'scheduled to node-1, ContainerCreating',
      'ContainerCreating -> ErrImagePull',
      'ErrImagePull -> ImagePullBackOff',
    ])
    const waiting = r.pod?.status?.containerStatuses?.[0]?.state?.waiting
    expect(waiting?.reason).toBe('ImagePullBackOff')
    expect(waiting?.message).toBe(
      'Back-off pulling image "nginx:1.27": ErrImagePull: rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:1.27": failed to resolve reference "docker.io/library/nginx:1.27": docker.io/library/nginx:1.27: not found',
    )
    expect(r.plan.nextAt).toBeUndefined()
    // upstream: the kubelet's image manager (Pulling, Failed, a Normal BackOff) and startContainer ("Error: ...").
    expect(r.events.map((e) => `${e.type} ${e.reason}: ${e.message.slice(0, 45)}`)).toEqual([
      'Normal Scheduled: Successfully assigned demo/web-abc-x to node-',
      'Normal Pulling: Pulling image "nginx:1.27"',
      'Warning Failed: Failed to pull image "nginx:1.27": rpc error:',
      'Warning Failed: Error: ErrImagePull',
      'Normal BackOff: Back-off pulling image "nginx:1.27"',
      'Warning Failed: Error: ImagePullBackOff',
    ])
    expect(r.events.slice(1).every((e) => e.fieldPath === 'spec.containers{app}')).toBe(true)
  })

  it('never pulls an image from a host under .invalid: the container that names it waits', () => {
    const p = fresh()
    p.spec = {
      containers: [
        {name: 'sidecar', image: 'nginx:1.27'},
        {name: 'app', image: 'registry.example.invalid:5000/team/app:2.0'},
      ],
    }
    const timings = {...DEFAULT_TIMINGS, pullErrorAfter: 500, pullBackoffAfter: 700}
    const fast: KubeletContext = {timings, pickNode: () => 'node-1'}
    const plan = planForNewPod(T0, timings, undefined, p)
    expect(plan).toMatchObject({failure: 'ImagePullBackOff', container: 1})
    let r = advancePod(p, plan, T0 + 1_000 + 499, fast)
    expect(r.pod?.status?.containerStatuses?.[1]?.state?.waiting?.reason).toBe('ContainerCreating')
    r = advancePod(p, plan, T0 + 1_500, fast)
    const [sidecar, app] = r.pod?.status?.containerStatuses ?? []
    expect(sidecar?.state?.running).toBeDefined()
    expect(app?.state?.waiting).toEqual({
      reason: 'ErrImagePull',
      message:
        'rpc error: code = Unknown desc = failed to pull and unpack image "registry.example.invalid:5000/team/app:2.0": failed to resolve reference "registry.example.invalid:5000/team/app:2.0": failed to do request: Head "https://registry.example.invalid:5000/v2/team/app/manifests/2.0": dial tcp: lookup registry.example.invalid: no such host',
    })
    expect(r.events.at(-1)).toMatchObject({
      reason: 'Failed',
      message: 'Error: ErrImagePull',
      fieldPath: 'spec.containers{app}',
    })
    r = advancePod(p, plan, T0 + 2_200, fast)
    expect(r.pod?.status?.containerStatuses?.[1]?.state?.waiting?.reason).toBe('ImagePullBackOff')
    expect(r.pod?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False')
    // A pod read from the input that has not started yet gets the same plan.
    expect(planForInputPod(p, T0, DEFAULT_TIMINGS)).toMatchObject({failure: 'ImagePullBackOff', container: 1})
  })

  it('finds the registry host as containerd does', () => {
    expect(registryHost('nginx:1.27')).toBe('docker.io')
    expect(registryHost('library/nginx')).toBe('docker.io')
    expect(registryHost('localhost/app')).toBe('localhost')
    expect(registryHost('registry.example.invalid:5000/app:1')).toBe('registry.example.invalid')
    expect(registryHost('ghcr.io/x/y@sha256:abc')).toBe('ghcr.io')
  })

  it('restarts a crashing container with a doubling back-off and a growing restart count', () => {
    const r = advancePod(fresh(), planForNewPod(T0, DEFAULT_TIMINGS, 'CrashLoopBackOff'), T0 + 87_000, ctx)
    // Starts at 10s and crashes 2s after each start; back-offs 10s, 20s, 40s: starts again at 22s, 44s, 86s.
    const crashes = r.notes.filter((n) => n.includes('-> CrashLoopBackOff'))
    expect(crashes).toEqual([
      'Running -> CrashLoopBackOff (1 restart)',
      'Running -> CrashLoopBackOff (2 restarts)',
      'Running -> CrashLoopBackOff (3 restarts)',
    ])
    expect(r.plan.stage).toBe('crash-running')
    expect(r.plan.nextAt).toBe(T0 + 88_000)
    const c = r.pod?.status?.containerStatuses?.[0]
    expect(c?.restartCount).toBe(3)
    expect(c?.ready).toBe(false)
    expect(c?.lastState?.terminated).toMatchObject({exitCode: 1, reason: 'Error'})
    expect(r.pod?.status?.phase).toBe('Running')
  })

  it('terminates a bound pod gracefully and drops an unbound one at once', () => {
    const bound = advancePod(fresh(), planForNewPod(T0, DEFAULT_TIMINGS), T0 + 2_000, ctx)
    const t = terminatePod(bound.pod as Pod, bound.plan, T0 + 2_000, DEFAULT_TIMINGS)
    expect(t.pod?.metadata.deletionTimestamp).toBe('2026-11-29T10:00:32Z')
    expect(t.pod?.metadata.deletionGracePeriodSeconds).toBe(30)
    expect(t.plan.goneAt).toBe(T0 + 7_000)
    expect(advancePod(t.pod as Pod, t.plan, T0 + 6_999, ctx).pod).toBeDefined()
    expect(advancePod(t.pod as Pod, t.plan, T0 + 7_000, ctx)).toMatchObject({pod: undefined, notes: ['gone']})
    expect(terminatePod(fresh(), planForNewPod(T0, DEFAULT_TIMINGS), T0, DEFAULT_TIMINGS).pod).toBeUndefined()
  })

  it('reads the plan of an input pod from its state', () => {
    const start = T0 + 4_000
    expect(planForInputPod(pod('ready', {readySince: T0}), start, DEFAULT_TIMINGS)).toMatchObject({
      stage: 'ready',
    })
    expect(planForInputPod(pod('creating', {created: T0}), start, DEFAULT_TIMINGS)).toMatchObject({
      stage: 'creating',
      nextAt: T0 + 10_000,
    })
    expect(planForInputPod(pod('late', {created: T0 - 60_000}), start, DEFAULT_TIMINGS)).toMatchObject({
      stage: 'creating',
      nextAt: start,
    })
    expect(
      planForInputPod(pod('unbound', {node: '', phase: 'Pending', created: T0}), start, DEFAULT_TIMINGS),
    ).toMatchObject({stage: 'unscheduled', nextAt: start})
    expect(planForInputPod(pod('leaving', {deleting: true}), start, DEFAULT_TIMINGS)).toMatchObject({
      stage: 'static',
      goneAt: start + 5_000,
    })
    const pulling = pod('pulling')
    pulling.status = {
      phase: 'Pending',
      containerStatuses: [{name: 'app', state: {waiting: {reason: 'ImagePullBackOff'}}}],
    }
    expect(planForInputPod(pulling, start, DEFAULT_TIMINGS)).toEqual({
      stage: 'static',
      createdAt: T0 - 3_600_000,
      failure: 'ImagePullBackOff',
    })
  })

  it('normalizes image references as containerd does', () => {
    expect(normalizeImage('nginx')).toBe('docker.io/library/nginx:latest')
    expect(normalizeImage('bitnami/redis:7')).toBe('docker.io/bitnami/redis:7')
    expect(normalizeImage('registry.k8s.io/pause:3.9')).toBe('registry.k8s.io/pause:3.9')
    expect(normalizeImage('localhost:5000/app')).toBe('localhost:5000/app:latest')
  })
})

describe('names and durations', () => {
  it('generates pod names as <rs>-<5 chars> from the seed, the same on every run', () => {
    const a = new Random(42)
    const b = new Random(42)
    const names = [generateName('web-cc544bdcc-', a), generateName('web-cc544bdcc-', a)]
    expect(names).toEqual([generateName('web-cc544bdcc-', b), generateName('web-cc544bdcc-', b)])
    for (const n of names) expect(n).toMatch(/^web-cc544bdcc-[bcdfghjklmnpqrstvwxz2456789]{5}$/)
    expect(names[0]).not.toBe(names[1])
    expect(generateName(`${'x'.repeat(70)}-`, a)).toHaveLength(63)
  })
})

describe('SimulatedCluster (the models without the Deployment controller)', () => {
  const replicaSet: ReplicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {name: 'web-abc', namespace: 'demo', uid: 'uid-web-abc', generation: 1},
    spec: {
      replicas: 2,
      selector: {matchLabels: {app: 'web'}},
      template: {metadata: {labels: {app: 'web'}}, spec: {containers: [{name: 'app', image: 'nginx:1.27'}]}},
    },
  }

  it('creates, schedules, readies and scales down pods as the clock is advanced', () => {
    const cluster = new SimulatedCluster(
      {deployments: [], replicaSets: [replicaSet], pods: [], sources: new WeakMap()},
      {namespace: 'demo', start: T0, seed: 7},
    )
    const first = cluster.advance(T0)
    expect(first.actions.map((a) => `${a.actor} ${a.verb} ${a.resource}`)).toEqual([
      'replicaset-controller create pods',
      'replicaset-controller create pods',
      'replicaset-controller update replicasets',
    ])
    expect(first.replicaSetsChanged).toBe(true)
    const pod0 = cluster.pods[0]!
    expect(pod0.metadata.name).toMatch(/^web-abc-[bcdfghjklmnpqrstvwxz2456789]{5}$/)
    expect(pod0.metadata.labels).toEqual({app: 'web'})
    expect(pod0.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'web-abc',
        uid: 'uid-web-abc',
        controller: true,
        blockOwnerDeletion: true,
      },
    ])
    expect(pod0.status).toEqual({phase: 'Pending'})
    expect(cluster.replicaSets[0]?.status).toEqual({
      replicas: 2,
      fullyLabeledReplicas: 2,
      terminatingReplicas: 0,
      observedGeneration: 1,
    })

    expect(cluster.nextEventAt(T0)).toBe(T0 + 1_000)
    expect(cluster.advance(T0 + 1_000).replicaSetsChanged).toBe(false)
    // Spread over the made-up nodes.
    expect(new Set(cluster.pods.map((p) => p.spec?.nodeName))).toEqual(new Set(['node-1', 'node-2']))
    expect(cluster.nextEventAt(T0 + 1_000)).toBe(T0 + 10_000)
    cluster.advance(T0 + 10_000)
    expect(cluster.replicaSets[0]?.status).toMatchObject({
      replicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
    })

    // A controller scales the ReplicaSet down: one pod terminates, then goes.
    const w = cluster.world()
    cluster.update({
      ...w,
      replicaSets: [{...w.replicaSets[0]!, spec: {...w.replicaSets[0]!.spec, replicas: 1}}],
    })
    const down = cluster.advance(T0 + 20_000)
    expect(down.actions.filter((a) => a.verb === 'delete').map((a) => a.summary)).toEqual([
      'terminating (was Running, ready)',
    ])
    expect(cluster.replicaSets[0]?.status).toMatchObject({replicas: 1, terminatingReplicas: 1})
    expect(cluster.nextEventAt(T0 + 20_000)).toBe(T0 + 25_000)
    expect(cluster.advance(T0 + 25_000).podsGone).toBe(true)
    expect(cluster.pods).toHaveLength(1)
    expect(cluster.nextEventAt(T0 + 25_000)).toBeUndefined()
  })
})
