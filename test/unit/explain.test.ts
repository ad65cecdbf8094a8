// explain's analysis on small worlds built by hand: every verdict, the fencepost rounding, the
// blockers read from pods and ReplicaSets, the dead ends, the progress clock and the next pass.

import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import type {World} from '../../src/cluster/world.js'
import type {
  Deployment,
  DeploymentCondition,
  IntOrString,
  Pod,
  ReplicaSet,
  ReplicaSetCondition,
} from '../../src/controller/api/types.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import {describeScaling, explainFenceposts} from '../../src/explain/fenceposts.js'
import {explainWorld} from '../../src/explain/index.js'
import type {Explanation} from '../../src/explain/types.js'
import {renderExplainResult} from '../../src/render/explain.js'
import {
  CLOCK_STATES,
  COMPLETE_REASONS,
  DEAD_END_CODES,
  DEADLINE_REASONS,
  DELETING_REASONS,
  HARD_BLOCKERS,
  INCOMPLETE_REASONS,
  INVALID_REASONS,
  type KubeEvent,
  PAUSED_REASONS,
  PROGRESSING_REASONS,
  SOFT_BLOCKERS,
  VERDICT_CODES,
} from '../../src/status/types.js'

const NOW = Date.parse('2026-11-29T10:00:00Z')
const at = (secondsFromNow: number) =>
  new Date(NOW + secondsFromNow * 1000).toISOString().replace('.000Z', 'Z')
const gates = parseFeatureGates(undefined)
const emptyWorldOf = (): World => ({deployments: [], replicaSets: [], pods: [], sources: new WeakMap()})

interface DOptions {
  replicas?: number
  maxSurge?: IntOrString
  maxUnavailable?: IntOrString
  strategy?: string
  image?: string
  paused?: boolean
  progressDeadlineSeconds?: number | null
  minReadySeconds?: number
  revisionHistoryLimit?: number
  generation?: number
  observedGeneration?: number
  selector?: Deployment['spec']['selector']
  labels?: Record<string, string>
  deletionTimestamp?: string
  annotations?: Record<string, string>
  status?: Deployment['status']
  conditions?: DeploymentCondition[]
}

function deployment(name: string, o: DOptions = {}): Deployment {
  const labels = o.labels ?? {app: name}
  const d: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: 'demo',
      uid: `uid-d-${name}`,
      generation: o.generation ?? 2,
      creationTimestamp: at(-3600),
      annotations: o.annotations ?? {},
      ...(o.deletionTimestamp ? {deletionTimestamp: o.deletionTimestamp} : {}),
    },
    spec: {
      replicas: o.replicas ?? 3,
      selector: o.selector ?? {matchLabels: {...labels}},
      strategy:
        (o.strategy ?? 'RollingUpdate') === 'RollingUpdate'
          ? {
              type: 'RollingUpdate',
              rollingUpdate: {maxSurge: o.maxSurge ?? '25%', maxUnavailable: o.maxUnavailable ?? '25%'},
            }
          : {type: o.strategy},
      template: {
        metadata: {labels: {...labels}},
        spec: {containers: [{name: 'app', image: o.image ?? 'app:2'}]},
      },
      revisionHistoryLimit: o.revisionHistoryLimit ?? 10,
      ...(o.progressDeadlineSeconds === null
        ? {}
        : {progressDeadlineSeconds: o.progressDeadlineSeconds ?? 600}),
      ...(o.minReadySeconds ? {minReadySeconds: o.minReadySeconds} : {}),
      ...(o.paused ? {paused: true} : {}),
    },
    status: {
      observedGeneration: o.observedGeneration ?? o.generation ?? 2,
      ...(o.status ?? {}),
      ...(o.conditions ? {conditions: o.conditions} : {}),
    },
  }
  return d
}

function progressing(reason: string, lastUpdateSecondsAgo: number, status = 'True'): DeploymentCondition {
  return {
    type: 'Progressing',
    status,
    reason,
    message: reason,
    lastUpdateTime: at(-lastUpdateSecondsAgo),
    lastTransitionTime: at(-lastUpdateSecondsAgo),
  }
}

interface RSOptions {
  image?: string
  replicas: number
  current?: number
  ready?: number
  available?: number
  revision?: string
  createdSecondsAgo?: number
  owner?: Deployment | null | {kind: string; name: string; uid: string}
  labels?: Record<string, string>
  desired?: number
  maxReplicas?: number
  conditions?: ReplicaSetCondition[]
  history?: string
}

function replicaSet(d: Deployment, name: string, o: RSOptions): ReplicaSet {
  const hash = name.slice(name.lastIndexOf('-') + 1)
  const labels = o.labels ?? {...(d.spec.template.metadata?.labels ?? {}), 'pod-template-hash': hash}
  const template = structuredClone(d.spec.template)
  template.metadata = {labels: {...labels}}
  if (o.image) template.spec = {containers: [{name: 'app', image: o.image}]}
  const owner = o.owner === undefined ? d : o.owner
  const annotations: Record<string, string> = {
    'deployment.kubernetes.io/revision': o.revision ?? '1',
    'deployment.kubernetes.io/desired-replicas': String(o.desired ?? d.spec.replicas ?? 1),
    'deployment.kubernetes.io/max-replicas': String(o.maxReplicas ?? (d.spec.replicas ?? 1) + 1),
  }
  if (o.history) annotations['deployment.kubernetes.io/revision-history'] = o.history
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: 'demo',
      uid: `uid-rs-${name}`,
      generation: 1,
      labels,
      annotations,
      creationTimestamp: at(-(o.createdSecondsAgo ?? 600)),
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'metadata' in owner ? 'Deployment' : owner.kind,
                name: 'metadata' in owner ? (owner.metadata.name ?? '') : owner.name,
                uid: 'metadata' in owner ? (owner.metadata.uid ?? '') : owner.uid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: {replicas: o.replicas, selector: {matchLabels: {...labels}}, template},
    status: {
      replicas: o.current ?? o.replicas,
      readyReplicas: o.ready ?? o.replicas,
      availableReplicas: o.available ?? o.ready ?? o.replicas,
      observedGeneration: 1,
      ...(o.conditions ? {conditions: o.conditions} : {}),
    },
  }
}

interface PodOptions {
  phase?: string
  ready?: boolean
  readySecondsAgo?: number
  waiting?: {reason: string; message?: string}
  restarts?: number
  lastExit?: {exitCode: number; reason?: string}
  unschedulable?: string
  deletionTimestamp?: string
  running?: boolean
}

function pod(rs: ReplicaSet, suffix: string, o: PodOptions = {}): Pod {
  const ready = o.ready ?? false
  const readyAt = at(-(o.readySecondsAgo ?? 300))
  const conditions = o.unschedulable
    ? [{type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: o.unschedulable}]
    : [
        {type: 'PodScheduled', status: 'True'},
        {type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: readyAt},
        {
          type: 'ContainersReady',
          status: ready ? 'True' : 'False',
          lastTransitionTime: readyAt,
          ...(ready ? {} : {message: 'containers with unready status: [app]'}),
        },
      ]
  const image = rs.spec.template?.spec?.containers?.[0]?.image ?? ''
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${rs.metadata.name}-${suffix}`,
      namespace: 'demo',
      uid: `uid-pod-${rs.metadata.name}-${suffix}`,
      labels: {...(rs.metadata.labels ?? {})},
      creationTimestamp: at(-400),
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: rs.metadata.name ?? '',
          uid: rs.metadata.uid ?? '',
          controller: true,
        },
      ],
      ...(o.deletionTimestamp
        ? {deletionTimestamp: o.deletionTimestamp, deletionGracePeriodSeconds: 30}
        : {}),
    },
    spec: {containers: [{name: 'app', image}], ...(o.unschedulable ? {} : {nodeName: 'node-1'})},
    status: {
      phase: o.phase ?? (o.unschedulable || o.waiting ? 'Pending' : 'Running'),
      conditions,
      ...(o.unschedulable
        ? {}
        : {
            containerStatuses: [
              {
                name: 'app',
                image,
                ready,
                restartCount: o.restarts ?? 0,
                state: o.waiting ? {waiting: o.waiting} : {running: {startedAt: at(-350)}},
                ...(o.lastExit ? {lastState: {terminated: {...o.lastExit, finishedAt: at(-20)}}} : {}),
              },
            ],
          }),
    },
  }
}

function world(deployments: Deployment[], replicaSets: ReplicaSet[] = [], pods: Pod[] = []): World {
  return {deployments, replicaSets, pods, sources: new WeakMap()}
}

async function explain(w: World, events?: KubeEvent[], name?: string): Promise<Explanation> {
  const {result} = await explainWorld(
    w,
    {namespace: 'demo', names: name ? [name] : undefined},
    {now: NOW, gates, events},
  )
  return result.items[0]!
}

/** A RollingUpdate mid-rollout: old RS 3/3 (app:1), new RS with `newReplicas` of app:2 and these pods. */
function rollout(
  o: DOptions & {newReplicas?: number; newAvailable?: number; newReady?: number},
  podOptions: PodOptions[],
  rsExtra: Partial<RSOptions> = {},
): World {
  const d = deployment('web', {
    maxSurge: 1,
    maxUnavailable: 0,
    conditions: [progressing('ReplicaSetUpdated', 60)],
    ...o,
  })
  const newReplicas = o.newReplicas ?? podOptions.length
  const available = o.newAvailable ?? 0
  d.status = {
    ...d.status,
    replicas: 3 + newReplicas,
    updatedReplicas: newReplicas,
    readyReplicas: 3 + (o.newReady ?? available),
    availableReplicas: 3 + available,
  }
  const old = replicaSet(d, 'web-old111', {
    image: 'app:1',
    replicas: 3,
    revision: '1',
    createdSecondsAgo: 7200,
  })
  const neu = replicaSet(d, 'web-new222', {
    replicas: newReplicas,
    ready: o.newReady ?? available,
    available,
    revision: '2',
    createdSecondsAgo: 120,
    ...rsExtra,
  })
  const oldPods = ['a', 'b', 'c'].map((s) => pod(old, s, {ready: true}))
  const newPods = podOptions.map((p, i) => pod(neu, `n${i}`, p))
  return world([d], [old, neu], [...oldPods, ...newPods])
}

function steady(o: DOptions = {}): World {
  const available: DeploymentCondition = {
    type: 'Available',
    status: 'True',
    reason: 'MinimumReplicasAvailable',
    message: 'Deployment has minimum availability.',
    lastUpdateTime: at(-3000),
    lastTransitionTime: at(-3000),
  }
  const d = deployment('web', {
    conditions: [available, progressing('NewReplicaSetAvailable', 3000)],
    status: {replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3},
    annotations: {'deployment.kubernetes.io/revision': '1'},
    ...o,
  })
  const rs = replicaSet(d, 'web-aaa111', {replicas: 3, revision: '1'})
  return world(
    [d],
    [rs],
    ['x', 'y', 'z'].map((s) => pod(rs, s, {ready: true})),
  )
}

describe('verdict', () => {
  it('Complete: every replica updated and available; kubectl agrees', async () => {
    const e = await explain(steady())
    expect(e.verdict).toMatchObject({code: 'Complete', reason: 'RolloutComplete'})
    expect(e.rolloutStatus).toEqual({
      message: 'deployment "web" successfully rolled out',
      done: true,
      error: false,
    })
    expect(e.next.actions).toEqual([])
    expect(e.next.requeue).toBeNull()
    expect(e.progress.state).toBe('Complete')
    expect(e.blockers).toEqual([])
    expect(e.deadEnds).toEqual([])
  })

  it('Progressing/NewReplicaSetCreated: no ReplicaSet runs the template', async () => {
    const d = deployment('web', {generation: 1, observedGeneration: 0})
    d.status = {}
    const e = await explain(world([d]))
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'NewReplicaSetCreated'})
    expect(e.rolloutStatus.message).toBe('Waiting for deployment spec update to be observed...')
    const step = e.pass.steps.find((s) => s.step === 'createNewReplicaSet')
    expect(step?.numbers).toMatchObject({replicas: 3, existingPods: 0, maxTotalPods: 4})
    expect(e.next.actions.map((a) => `${a.verb} ${a.resource}`)).toEqual([
      'create replicasets',
      'update deployments',
      'update deployments',
    ])
  })

  it('Progressing/ScalingUp: the surge budget lets the new ReplicaSet grow', async () => {
    const e = await explain(rollout({newReplicas: 0}, []))
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'ScalingUp'})
    const up = e.pass.steps.find((s) => s.step === 'scaleUp')
    expect(up?.outcome).toBe('scales web-new222 up 0 → 1')
    expect(up?.numbers).toEqual({currentPods: 3, maxTotalPods: 4, budget: 1, from: 0, to: 1})
    expect(e.pass.steps.find((s) => s.step === 'scaleDown')?.outcome).toBe('not reached')
  })

  it('Progressing/ScalingDown: maxUnavailable leaves room to remove an old pod', async () => {
    const e = await explain(rollout({maxUnavailable: 1, newAvailable: 1}, [{ready: true}]))
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'ScalingDown'})
    const down = e.pass.steps.find((s) => s.step === 'scaleDown')
    expect(down?.outcome).toBe('scales web-old111 down 3 → 1')
    expect(down?.numbers).toMatchObject({allPods: 4, minAvailable: 2, newUnavailable: 0, budget: 2})
  })

  it('Progressing/PodsStarting and PodsNotReady: waits that clear by themselves', async () => {
    const starting = await explain(rollout({}, [{waiting: {reason: 'ContainerCreating'}}]))
    expect(starting.verdict).toMatchObject({code: 'Progressing', reason: 'PodsStarting'})
    expect(starting.blockers.map((b) => [b.code, b.hard])).toEqual([['ContainerCreating', false]])
    const notReady = await explain(rollout({}, [{}]))
    expect(notReady.verdict).toMatchObject({code: 'Progressing', reason: 'PodsNotReady'})
    expect(notReady.blockers[0]).toMatchObject({
      code: 'NotReady',
      object: {kind: 'Pod', name: 'web-new222-n0'},
    })
  })

  it('Stalled/ImagePullBackOff, with the image, kubectl message and the deadline ahead', async () => {
    const e = await explain(
      rollout({}, [{waiting: {reason: 'ImagePullBackOff', message: 'Back-off pulling image "app:2"'}}]),
    )
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'ImagePullBackOff'})
    expect(e.verdict.message).toContain('1 new pod cannot pull app:2 (ImagePullBackOff)')
    expect(e.verdict.message).toContain('at 2026-11-29T10:09:00Z')
    expect(e.rolloutStatus.message).toBe(
      'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...',
    )
    expect(e.blockers[0]).toMatchObject({
      code: 'ImagePullBackOff',
      hard: true,
      image: 'app:2',
      container: 'app',
      replicaSet: 'web-new222',
    })
    expect(e.blockers[0]?.message).toContain('Back-off pulling image "app:2"')
    expect(e.progress).toMatchObject({state: 'Running', deadline: '2026-11-29T10:09:00Z', secondsLeft: 540})
    expect(e.deadEnds.map((d) => d.code)).toEqual(['MaxUnavailableZeroStuck'])
  })

  it('Stalled/CrashLoopBackOff with restarts and the last exit code', async () => {
    const e = await explain(
      rollout({}, [
        {waiting: {reason: 'CrashLoopBackOff'}, restarts: 6, lastExit: {exitCode: 137, reason: 'OOMKilled'}},
      ]),
    )
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'CrashLoopBackOff'})
    expect(e.blockers[0]).toMatchObject({code: 'CrashLoopBackOff', restarts: 6, lastExitCode: 137})
    expect(e.blockers[0]?.message).toBe(
      'container app keeps crashing: 6 restarts; last exit code 137 (OOMKilled) at 2026-11-29T09:59:40Z',
    )
    expect(e.verdict.message).toContain('keeps crashing (container app: 6 restarts, last exit code 137)')
  })

  it('Stalled/CreateContainerConfigError', async () => {
    const e = await explain(
      rollout({}, [{waiting: {reason: 'CreateContainerConfigError', message: 'secret "db" not found'}}]),
    )
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'CreateContainerConfigError'})
    expect(e.blockers[0]?.message).toBe('container app CreateContainerConfigError: secret "db" not found')
  })

  it("Stalled/Unschedulable with the scheduler's message", async () => {
    const msg = '0/3 nodes are available: 3 Insufficient cpu.'
    const e = await explain(rollout({}, [{unschedulable: msg}]))
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'Unschedulable'})
    expect(e.blockers[0]).toMatchObject({
      code: 'Unschedulable',
      hard: true,
      message: `cannot be scheduled: ${msg}`,
    })
    expect(e.verdict.message).toContain(msg)
  })

  it('Stalled/ReplicaFailure: quota, and the QuotaOrFailedCreate dead end', async () => {
    const quota =
      'pods "web-new222-x" is forbidden: exceeded quota: compute, requested: cpu=1, limited: cpu=4'
    const e = await explain(
      rollout({newReplicas: 1}, [], {
        current: 0,
        conditions: [{type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: quota}],
      }),
    )
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'ReplicaFailure'})
    expect(e.blockers[0]).toMatchObject({
      code: 'ReplicaFailure',
      object: {kind: 'ReplicaSet', name: 'web-new222'},
    })
    const dead = e.deadEnds.find((d) => d.code === 'QuotaOrFailedCreate')
    expect(dead?.message).toContain('exceeded quota')
  })

  it('Stalled/ReadinessProbeFailing when events say the readiness probe fails', async () => {
    const events: KubeEvent[] = [
      {
        type: 'Warning',
        reason: 'Unhealthy',
        message: 'Readiness probe failed: HTTP probe failed with statuscode: 503',
        involvedObject: {kind: 'Pod', name: 'web-new222-n0', namespace: 'demo'},
        lastTimestamp: at(-10),
        count: 12,
      },
      {
        type: 'Warning',
        reason: 'FailedScheduling',
        message: 'older',
        involvedObject: {kind: 'Pod', name: 'web-new222-n0', namespace: 'demo'},
        lastTimestamp: at(-300),
      },
      {type: 'Normal', reason: 'Pulled', involvedObject: {kind: 'Pod', name: 'web-new222-n0'}},
      {type: 'Warning', reason: 'Other', involvedObject: {kind: 'Pod', name: 'unrelated'}},
    ]
    const e = await explain(rollout({}, [{}]), events)
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'ReadinessProbeFailing'})
    expect(e.events?.map((x) => [x.reason, x.count])).toEqual([
      ['Unhealthy', 12],
      ['FailedScheduling', 1],
    ])
    const noEvents = await explain(rollout({}, [{}]))
    expect(noEvents.events).toBeNull()
  })

  it('Progressing/MinReadySeconds: ready pods wait out minReadySeconds', async () => {
    const e = await explain(rollout({minReadySeconds: 30, newReady: 1}, [{ready: true, readySecondsAgo: 10}]))
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'MinReadySeconds'})
    expect(e.blockers[0]).toMatchObject({
      code: 'MinReadySeconds',
      since: '2026-11-29T09:59:50Z',
      until: '2026-11-29T10:00:20Z',
    })
    expect(e.blockers[0]?.message).toContain('(in 20s)')
  })

  it('Stalled/MinReadySeconds when minReadySeconds outlasts the progress deadline', async () => {
    const e = await explain(
      rollout({minReadySeconds: 900, newReady: 1}, [{ready: true, readySecondsAgo: 10}]),
    )
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'MinReadySeconds'})
    expect(e.deadEnds.map((d) => d.code)).toContain('MinReadySecondsExceedsDeadline')
  })

  it('DeadlineExceeded: this pass marks it, naming the cause', async () => {
    const e = await explain(
      rollout({conditions: [progressing('ReplicaSetUpdated', 700)]}, [{waiting: {reason: 'ErrImagePull'}}]),
    )
    expect(e.verdict).toMatchObject({code: 'DeadlineExceeded', reason: 'ErrImagePull'})
    expect(e.verdict.message).toContain('The next pass marks it as failed')
    expect(e.progress).toMatchObject({
      state: 'FiresThisPass',
      deadline: '2026-11-29T09:58:20Z',
      secondsLeft: -100,
      lastProgress: '2026-11-29T09:48:20Z',
    })
    expect(e.next.actions.map((a) => a.change).join('; ')).toContain(
      'Progressing: True (ReplicaSetUpdated) -> False (ProgressDeadlineExceeded)',
    )
  })

  it('DeadlineExceeded already marked: kubectl fails, the clock is Exceeded', async () => {
    const e = await explain(
      rollout({conditions: [progressing('ProgressDeadlineExceeded', 120, 'False')]}, [{}]),
    )
    expect(e.verdict).toMatchObject({code: 'DeadlineExceeded', reason: 'NotReady'})
    expect(e.rolloutStatus).toEqual({
      message: 'error: deployment "web" exceeded its progress deadline',
      done: false,
      error: true,
    })
    expect(e.progress.state).toBe('Exceeded')
    expect(e.pass.steps.find((s) => s.step === 'status')?.outcome).toBe('keeps the rollout marked as failed')
  })

  it('DeadlineExceeded with a short deadline names it once (5s, not "5s, 5s")', async () => {
    const e = await explain(
      rollout(
        {progressDeadlineSeconds: 5, conditions: [progressing('ProgressDeadlineExceeded', 120, 'False')]},
        [{}],
      ),
    )
    expect(e.verdict.message).toContain('made no progress for progressDeadlineSeconds (5s).')
    const long = await explain(
      rollout({conditions: [progressing('ProgressDeadlineExceeded', 120, 'False')]}, [{}]),
    )
    expect(long.verdict.message).toContain('made no progress for progressDeadlineSeconds (600s, 10m).')
  })

  it('Paused/PausedWithPendingTemplate, whose deadline will not fire', async () => {
    const d = deployment('web', {
      paused: true,
      image: 'app:3',
      conditions: [progressing('DeploymentPaused', 300, 'Unknown')],
      status: {replicas: 3, availableReplicas: 3, readyReplicas: 3},
    })
    const rs = replicaSet(d, 'web-aaa111', {replicas: 3, image: 'app:2'})
    const e = await explain(world([d], [rs]))
    expect(e.verdict).toMatchObject({code: 'Paused', reason: 'PausedWithPendingTemplate'})
    expect(e.pass.checks.map((c) => c.answer)).toEqual([
      'no',
      '1',
      'no',
      'yes',
      'not reached',
      'not reached',
      'not reached',
    ])
    expect(e.progress.state).toBe('Paused')
    expect(e.deadEnds.map((x) => x.code)).toEqual(['PausedWithPendingTemplate', 'DeadlineWillNotFire'])
  })

  it('Paused/PausedMidRollout and Paused', async () => {
    const mid = await explain(rollout({paused: true}, [{}]))
    expect(mid.verdict).toMatchObject({code: 'Paused', reason: 'PausedMidRollout'})
    const done = await explain(steady({paused: true}))
    expect(done.verdict).toMatchObject({code: 'Paused', reason: 'Paused'})
  })

  it('Deleting: status only', async () => {
    const e = await explain(steady({deletionTimestamp: at(-5)}))
    expect(e.verdict).toMatchObject({code: 'Deleting', reason: 'BeingDeleted'})
    expect(e.pass.checks.find((c) => c.check === 'deleting')?.answer).toBe('yes')
    expect(e.pass.cleanup?.waits).toContain('being deleted')
  })

  it('Invalid/SelectsEverything: the controller only warns', async () => {
    const e = await explain(steady({selector: {}}))
    expect(e.verdict).toMatchObject({code: 'Invalid', reason: 'SelectsEverything'})
    expect(e.pass.checks[0]).toMatchObject({check: 'selectsEverything', answer: 'yes'})
    expect(e.pass.checks.slice(1).every((c) => c.answer === 'not reached')).toBe(true)
    expect(e.next.events.map((x) => x.reason)).toEqual(['SelectingAll'])
  })

  it('Invalid/UnknownStrategy, InvalidSelector, SelectorDoesNotMatchTemplate', async () => {
    const unknown = await explain(steady({strategy: 'BlueGreen'}))
    expect(unknown.verdict).toMatchObject({code: 'Invalid', reason: 'UnknownStrategy'})
    expect(unknown.next.error).toContain('unexpected deployment strategy type: BlueGreen')
    const bad = await explain(steady({selector: {matchExpressions: [{key: 'app', operator: 'In'}]}}))
    expect(bad.verdict).toMatchObject({code: 'Invalid', reason: 'InvalidSelector'})
    expect(bad.pass.checks[1]).toMatchObject({check: 'claimReplicaSets', answer: 'error'})
    const mismatch = await explain(steady({selector: {matchLabels: {app: 'other'}}}))
    expect(mismatch.verdict).toMatchObject({code: 'Invalid', reason: 'SelectorDoesNotMatchTemplate'})
  })

  it('Progressing/RollbackRequested', async () => {
    const w = steady({annotations: {'deprecated.deployment.rollback.to': '1'}})
    const d = w.deployments[0]!
    w.replicaSets.push(
      replicaSet(d, 'web-old000', {replicas: 0, image: 'app:1', revision: '1', createdSecondsAgo: 9000}),
    )
    w.replicaSets[0]!.metadata.annotations!['deployment.kubernetes.io/revision'] = '2'
    const e = await explain(w)
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'RollbackRequested'})
    expect(e.pass.steps[0]).toMatchObject({step: 'rollback'})
    expect(e.pass.steps[0]?.outcome).toContain('revision 1 (web-old000)')
  })

  it('every verdict and reason the analysis can produce is declared', () => {
    expect(VERDICT_CODES).toHaveLength(8)
    const reasons = new Set<string>([
      ...INVALID_REASONS,
      ...DELETING_REASONS,
      ...PAUSED_REASONS,
      ...COMPLETE_REASONS,
      ...DEADLINE_REASONS,
      ...PROGRESSING_REASONS,
      ...HARD_BLOCKERS,
      ...SOFT_BLOCKERS,
    ])
    for (const r of ['RolloutComplete', 'ScalingUp', 'MinReadySeconds', 'SelectsEverything'])
      expect(reasons.has(r)).toBe(true)
  })
})

describe('fenceposts', () => {
  it('shows the rounding the controller applies', () => {
    expect(describeScaling('25%', 10, true)).toBe('25% of 10 = 2.5, rounded up → 3')
    expect(describeScaling('25%', 10, false)).toBe('25% of 10 = 2.5, rounded down → 2')
    expect(describeScaling('50%', 4, true)).toBe('50% of 4 = 2')
    expect(describeScaling('33%', 7, false)).toBe('33% of 7 = 2.31, rounded down → 2')
    expect(describeScaling(2, 10, true)).toBe('2 (a pod count, used as written)')
    expect(describeScaling('12.5%', 10, true)).toMatch(/^invalid \(.*\): the controller uses 0$/)
  })

  it('resolves both zero to maxUnavailable 1, caps at spec.replicas, and uses 0 for no replicas', () => {
    const zero = explainFenceposts(deployment('a', {replicas: 3, maxSurge: '10%', maxUnavailable: '10%'}))
    expect(zero?.maxSurge).toMatchObject({resolved: 1, rounding: '10% of 3 = 0.3, rounded up → 1'})
    const both = explainFenceposts(deployment('a', {replicas: 3, maxSurge: 0, maxUnavailable: '10%'}))
    expect(both?.maxUnavailable.resolved).toBe(1)
    expect(both?.maxUnavailable.rounding).toBe(
      '10% of 3 = 0.3, rounded down → 0; maxSurge is 0 too, and two zeros would let no pod be replaced, so the controller uses 1',
    )
    expect(both).toMatchObject({maxTotalPods: 3, minAvailable: 2})
    const capped = explainFenceposts(deployment('a', {replicas: 2, maxSurge: 1, maxUnavailable: 5}))
    expect(capped?.maxUnavailable).toMatchObject({resolved: 2})
    expect(capped?.maxUnavailable.rounding).toContain('capped at spec.replicas → 2')
    const none = explainFenceposts(deployment('a', {replicas: 0}))
    expect(none?.maxUnavailable.rounding).toContain('spec.replicas is 0, so the controller uses 0')
    expect(explainFenceposts(deployment('a', {strategy: 'Recreate'}))).toBeNull()
  })

  it('are what the pass uses', async () => {
    const e = await explain(rollout({replicas: 10, maxSurge: '25%', maxUnavailable: '25%'}, []))
    expect(e.pass.fenceposts).toMatchObject({
      replicas: 10,
      maxSurge: {written: '25%', resolved: 3, rounding: '25% of 10 = 2.5, rounded up → 3'},
      maxUnavailable: {written: '25%', resolved: 2, rounding: '25% of 10 = 2.5, rounded down → 2'},
      maxTotalPods: 13,
      minAvailable: 8,
    })
  })
})

describe('the pass', () => {
  it('explains why the scale-down budget is zero', async () => {
    const e = await explain(rollout({}, [{waiting: {reason: 'ImagePullBackOff'}}]))
    const down = e.pass.steps.find((s) => s.step === 'scaleDown')
    expect(down?.outcome).toBe('nothing (budget 0)')
    expect(down?.numbers).toEqual({oldPods: 3, allPods: 4, minAvailable: 3, newUnavailable: 1, budget: 0})
    expect(down?.detail).toContain('Budget 0 = 4 pods − 3 minAvailable − 1 new pod not available yet')
    const up = e.pass.steps.find((s) => s.step === 'scaleUp')
    expect(up?.outcome).toBe('web-new222 stays at 1 (budget 0)')
  })

  it('names the scaling event and the annotation it comes from, with proportional shares', async () => {
    const d = deployment('web', {
      replicas: 12,
      generation: 3,
      observedGeneration: 2,
      conditions: [progressing('ReplicaSetUpdated', 20)],
    })
    d.status = {...d.status, replicas: 10, updatedReplicas: 4, availableReplicas: 8, readyReplicas: 8}
    const old = replicaSet(d, 'web-old111', {
      image: 'app:1',
      replicas: 6,
      revision: '1',
      desired: 8,
      maxReplicas: 10,
      createdSecondsAgo: 7200,
    })
    const neu = replicaSet(d, 'web-new222', {
      replicas: 4,
      available: 2,
      revision: '2',
      desired: 8,
      maxReplicas: 10,
    })
    const e = await explain(world([d], [old, neu]))
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'ProportionalScaling'})
    const check = e.pass.checks.find((c) => c.check === 'scalingEvent')
    expect(check?.answer).toBe('yes')
    expect(check?.detail).toContain('desired-replicas annotation says 8 but spec.replicas is 12')
    const step = e.pass.steps.find((s) => s.step === 'proportionalScaling')
    expect(step?.numbers).toEqual({allowedSize: 15, current: 10, toAdd: 5, leftover: 0})
    expect(step?.shares).toEqual([
      {replicaSet: 'web-old111', from: 6, to: 9, proportion: 3, formula: '6 × 15 ÷ 10 (max-replicas) = 9'},
      {replicaSet: 'web-new222', from: 4, to: 6, proportion: 2, formula: '4 × 15 ÷ 10 (max-replicas) = 6'},
    ])
    expect(e.progress.state).toBe('Running')
  })

  it('cleans up beyond revisionHistoryLimit and says which ReplicaSet it keeps and why', async () => {
    const w = steady({revisionHistoryLimit: 1})
    const d = w.deployments[0]!
    w.replicaSets[0]!.metadata.annotations!['deployment.kubernetes.io/revision'] = '4'
    for (const [i, rev] of ['1', '2', '3'].entries()) {
      const rs = replicaSet(d, `web-r${rev}`, {
        replicas: 0,
        image: `app:0.${rev}`,
        revision: rev,
        createdSecondsAgo: 90000 - i,
      })
      if (rev === '1') rs.status = {...rs.status, replicas: 1}
      w.replicaSets.push(rs)
    }
    const e = await explain(w)
    expect(e.pass.cleanup).toEqual({
      revisionHistoryLimit: 1,
      oldReplicaSets: 3,
      excess: 2,
      deletes: ['web-r2'],
      skipped: [{replicaSet: 'web-r1', reason: 'status.replicas is 1: the ReplicaSet still reports pods'}],
      waits: null,
    })
    expect(e.replicaSets.map((r) => [r.revision, r.role])).toEqual([
      ['4', 'new'],
      ['3', 'old'],
      ['2', 'old'],
      ['1', 'old'],
    ])
  })

  it('says why cleanup waits while the rollout is incomplete', async () => {
    const e = await explain(rollout({}, [{}]))
    expect(e.pass.cleanup?.waits).toMatch(/^Cleanup runs only once the rollout is complete/)
  })

  it('Recreate waits for old pods, terminating or not', async () => {
    const d = deployment('job', {strategy: 'Recreate', conditions: [progressing('ReplicaSetUpdated', 30)]})
    d.status = {...d.status, replicas: 0}
    const old = replicaSet(d, 'job-old111', {image: 'app:1', replicas: 0, current: 0, ready: 0, available: 0})
    const e = await explain(
      world([d], [old], [pod(old, 'a', {deletionTimestamp: at(20)}), pod(old, 'b', {ready: true})]),
    )
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'OldPodsTerminating'})
    expect(e.pass.steps.map((s) => s.step)).toEqual(['scaleDownOldForRecreate', 'waitForOldPods', 'status'])
    expect(e.blockers.map((b) => b.code)).toEqual(['Terminating', 'OldPodRunning'])
    expect(e.pass.fenceposts).toBeNull()
  })
})

describe('dead ends', () => {
  it('OverlappingSelector: another Deployment selects our pods', async () => {
    const w = steady()
    w.deployments.push(
      deployment('all-apps', {
        selector: {matchExpressions: [{key: 'app', operator: 'Exists'}]},
        labels: {app: 'x'},
      }),
    )
    const e = await explain(w, undefined, 'web')
    const dead = e.deadEnds.find((d) => d.code === 'OverlappingSelector')
    expect(dead?.message).toContain("Deployment all-apps's selector (app) selects this Deployment's pods")
  })

  it('ForeignOwnedMatchingReplicaSet, WillAdopt and WillRelease', async () => {
    const w = steady()
    const d = w.deployments[0]!
    w.replicaSets.push(
      replicaSet(d, 'web-foreign1', {
        replicas: 1,
        owner: {kind: 'Deployment', name: 'other', uid: 'uid-other'},
      }),
      replicaSet(d, 'web-orphan1', {
        replicas: 0,
        owner: null,
        image: 'app:0',
        revision: '0',
        createdSecondsAgo: 99999,
      }),
      replicaSet(d, 'web-stray1', {replicas: 0, labels: {app: 'stray'}, revision: '0'}),
    )
    const e = await explain(w)
    expect(e.deadEnds.map((x) => x.code)).toEqual([
      'ForeignOwnedMatchingReplicaSet',
      'WillAdopt',
      'WillRelease',
    ])
    const rows = Object.fromEntries(e.replicaSets.map((r) => [r.name, [r.role, r.ownership]]))
    expect(rows).toEqual({
      'web-aaa111': ['new', 'owned'],
      'web-orphan1': ['old', 'adopt'],
      'web-foreign1': ['not owned', 'foreign'],
      'web-stray1': ['not owned', 'release'],
    })
    expect(e.next.actions.filter((a) => a.verb === 'patch').map((a) => `${a.name} ${a.change}`)).toEqual([
      'web-orphan1 adopted',
      'web-stray1 released',
    ])
  })

  it("Deployments sharing a selector: the others' ReplicaSets counted once per group, other controllers listed", async () => {
    const shared = {app: 'shared'}
    const ds = ['a', 'b', 'c'].map((n) => deployment(n, {labels: shared}))
    const rss = ds.map((d, i) => replicaSet(d, `${d.metadata.name}-h${i}`, {replicas: 3, revision: '1'}))
    // A StatefulSet's, and one a Deployment named b controlled under another uid (a b since replaced).
    rss.push(
      replicaSet(ds[0]!, 'db-h9', {replicas: 1, owner: {kind: 'StatefulSet', name: 'db', uid: 'uid-db'}}),
      replicaSet(ds[1]!, 'b-stale', {replicas: 0, owner: {kind: 'Deployment', name: 'b', uid: 'uid-old-b'}}),
    )
    const {result} = await explainWorld(world(ds, rss), {namespace: 'demo'}, {now: NOW, gates})
    const by = Object.fromEntries(result.items.map((e) => [e.deployment.name, e]))
    const rows = (n: string) => by[n]!.replicaSets.map((r) => `${r.name} ${r.ownership}`).sort()
    const claim = (n: string) => by[n]!.pass.checks.find((c) => c.check === 'claimReplicaSets')?.detail
    const foreign = (n: string) =>
      by[n]!.deadEnds.filter((x) => x.code === 'ForeignOwnedMatchingReplicaSet').map((x) => x.objects[0])
    expect(rows('a')).toEqual(['a-h0 owned', 'db-h9 foreign'])
    expect(rows('b')).toEqual(['b-h1 owned', 'b-stale foreign', 'db-h9 foreign'])
    expect(rows('c')).toEqual(['c-h2 owned', 'db-h9 foreign'])
    // b-stale is b's namesake's: one of the group's for a and c, listed on its own for b.
    expect(claim('a')).toContain(
      'leaves the 3 ReplicaSets of the 2 Deployments whose selectors overlap alone',
    )
    expect(claim('b')).toContain(
      'leaves db-h9 (controlled by StatefulSet/db), b-stale (controlled by Deployment/b) alone',
    )
    expect(claim('b')).toContain(
      'leaves the 2 ReplicaSets of the 2 Deployments whose selectors overlap alone',
    )
    expect(foreign('a')).toEqual(['ReplicaSet/db-h9'])
    expect(foreign('b')).toEqual(['ReplicaSet/db-h9', 'ReplicaSet/b-stale'])
  })

  it('DeadlineWillNotFire without progressDeadlineSeconds', async () => {
    const e = await explain(rollout({progressDeadlineSeconds: null, conditions: []}, [{}]))
    expect(e.progress.state).toBe('NoDeadline')
    expect(e.deadEnds.map((x) => x.code)).toContain('DeadlineWillNotFire')
    expect(e.verdict.code).toBe('Progressing')
  })

  it('NoPodsInInput when ReplicaSets report pods the input lacks', async () => {
    const w = rollout({}, [{}])
    w.pods = []
    const e = await explain(w)
    expect(e.podsInInput).toBe(false)
    expect(e.blockers.map((b) => b.code)).toEqual(['NoPodsInInput'])
    expect(e.verdict.reason).toBe('WaitingForPods')
  })

  it('IncompleteInput when the input is checked: pods missing, then ReplicaSets missing', async () => {
    const w = rollout({}, [{}])
    w.pods = []
    const check = async () =>
      (await explainWorld(w, {namespace: 'demo'}, {now: NOW, gates, checkInput: true})).result.items[0]!
    expect((await check()).verdict).toMatchObject({code: 'IncompleteInput', reason: 'MissingPods'})
    w.replicaSets = []
    const e = await check()
    expect(e.verdict).toMatchObject({code: 'IncompleteInput', reason: 'MissingReplicaSets'})
    expect(e.verdict.message).toContain('kubectl get deploy,rs,pods,events -n demo -o yaml')
  })

  it('no IncompleteInput for a complete rollout whose pods are left out, nor for a new Deployment', async () => {
    const w = rollout({}, [{}])
    w.pods = []
    const d = w.deployments[0]!
    const done = {
      replicas: 3,
      updatedReplicas: 3,
      availableReplicas: 3,
      readyReplicas: 3,
      observedGeneration: 2,
    }
    d.status = {...d.status, ...done}
    w.replicaSets = w.replicaSets.filter((rs) => rs.spec.template?.spec?.containers?.[0]?.image === 'app:2')
    w.replicaSets[0]!.status = {
      ...w.replicaSets[0]!.status,
      replicas: 3,
      availableReplicas: 3,
      readyReplicas: 3,
    }
    const opts = {now: NOW, gates, checkInput: true}
    expect((await explainWorld(w, {namespace: 'demo'}, opts)).result.items[0]?.verdict.code).not.toBe(
      'IncompleteInput',
    )
    const fresh = {...emptyWorldOf(), deployments: [deployment('new', {status: {}, annotations: {}})]}
    expect((await explainWorld(fresh, {namespace: 'demo'}, opts)).result.items[0]?.verdict.code).toBe(
      'Progressing',
    )
  })
})

describe('text rendering', () => {
  it('colours only when asked, and wraps by visible width', async () => {
    const {result} = await explainWorld(
      rollout({}, [{waiting: {reason: 'ImagePullBackOff'}}]),
      {namespace: 'demo'},
      {now: NOW, gates},
    )
    const plain = await renderExplainResult(result, {format: {kind: 'table'}, width: 80})
    const coloured = await renderExplainResult(result, {format: {kind: 'table'}, width: 80, color: true})
    expect(plain).not.toContain('\u001b[')
    expect(coloured).toContain('\u001b[31mStalled (ImagePullBackOff)\u001b[39m')
    const strip = (s: string) =>
      s
        .split('\u001b[')
        .map((p, i) => (i === 0 ? p : p.replace(/^[0-9;]*m/, '')))
        .join('')
    expect(strip(coloured)).toBe(plain)
    for (const line of plain.split('\n').filter((l) => l.startsWith(' ')))
      expect(line.length).toBeLessThanOrEqual(80)
  })

  it('prints the Warning events when the source gives them', async () => {
    const events: KubeEvent[] = [
      {
        type: 'Warning',
        reason: 'BackOff',
        message: 'Back-off restarting failed container',
        involvedObject: {kind: 'Pod', name: 'web-new222-n0'},
        lastTimestamp: at(-5),
        count: 3,
      },
    ]
    const {result} = await explainWorld(rollout({}, [{}]), {namespace: 'demo'}, {now: NOW, gates, events})
    const text = await renderExplainResult(result, {format: {kind: 'table'}, width: 100})
    expect(text).toContain(
      'Warning events\n  The event concerns this rollout: 1 Warning, newest 2026-11-29T09:59:55Z.\n  5s (x3 over <unknown>)  BackOff  Pod/web-new222-n0: Back-off restarting failed container',
    )
  })
})

describe('docs/explain-reasons.md', () => {
  it('documents every code', () => {
    const doc = readFileSync(new URL('../../docs/explain-reasons.md', import.meta.url), 'utf8')
    const codes = [
      ...VERDICT_CODES,
      ...INCOMPLETE_REASONS,
      ...INVALID_REASONS,
      ...DELETING_REASONS,
      ...PAUSED_REASONS,
      ...COMPLETE_REASONS,
      ...DEADLINE_REASONS,
      ...PROGRESSING_REASONS,
      ...HARD_BLOCKERS,
      ...SOFT_BLOCKERS,
      ...DEAD_END_CODES,
      ...CLOCK_STATES,
    ]
    for (const code of codes) expect(doc, code).toContain(`\`${code}\``)
  })
})
