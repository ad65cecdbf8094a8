// The pod lifecycle model: the scheduler and the kubelet, reduced to the states a rollout cares
// about. A healthy pod goes Pending -> scheduled (ContainerCreating) -> Running and Ready after
// `readyAfter`; a failing one stays in ImagePullBackOff or in CrashLoopBackOff with a growing
// restart count; a terminating one disappears after `terminateAfter`. Pure: every function takes the
// time and returns new objects (the store freezes the ones it is given).

import {hexDigest} from '../cluster/digest.js'
import type {Container, ContainerStatus, Pod, PodCondition, PodStatus} from '../controller/api/types.js'
import {PodFailed, PodSucceeded} from '../controller/api/types.js'
import {timeValue} from '../controller/util/equality.js'
import {isPodReady, maxRestarts, nodeOf, waitingReason} from '../status/pods.js'
import type {SimEvent} from '../status/update.js'
import {formatTime} from '../util/duration.js'

export type FailureMode = 'ImagePullBackOff' | 'CrashLoopBackOff'

export interface PodTimings {
  /** From creation to Running and Ready, in ms. */
  readyAfter: number
  /** From deletion to gone, in ms. */
  terminateAfter: number
}

export const DEFAULT_TIMINGS: PodTimings = {readyAfter: 10_000, terminateAfter: 5_000}

/** The scheduler binds a new pod this long after its creation (at most half of readyAfter). */
export const SCHEDULE_AFTER = 1_000
/** A pod whose image does not exist reports ErrImagePull this long after it was scheduled... */
export const PULL_ERROR_AFTER = 2_000
/** ...and ImagePullBackOff this long after that. */
export const PULL_BACKOFF_AFTER = 5_000
/** A crashing container runs this long before it exits. */
export const CRASH_RUNS_FOR = 2_000
/** The kubelet's restart back-off: 10s doubling up to 5 minutes. */
export const CRASH_BACKOFF_BASE = 10_000
export const CRASH_BACKOFF_MAX = 300_000

export type PodStage =
  | 'unscheduled'
  | 'creating'
  | 'ready'
  | 'pull-error'
  | 'pull-backoff'
  | 'crash-running'
  | 'crash-backoff'
  /** A pod from the input whose state the model leaves alone (failing, finished or unknown). */
  | 'static'

/** What the model knows about a pod beyond the object: its schedule. Plain data. */
export interface PodPlan {
  stage: PodStage
  /** When the pod was created, in ms (the object's creationTimestamp has whole seconds). */
  createdAt: number
  /** When the next transition is due; absent when the pod stays as it is. */
  nextAt?: number
  /** Set when the model keeps this pod failing. */
  failure?: FailureMode
  /** When a terminating pod disappears. */
  goneAt?: number
}

const CONTAINER_FAILURES = new Set([
  'ImagePullBackOff',
  'ErrImagePull',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
  'CreateContainerError',
  'InvalidImageName',
  'ErrImageNeverPull',
  'RunContainerError',
])

const IMAGE_FAILURES = new Set(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'ErrImageNeverPull'])

/** The plan of a pod read from the input: what it will do from `start` on. */
export function planForInputPod(pod: Pod, start: number, timings: PodTimings): PodPlan {
  const created = timeValue(pod.metadata.creationTimestamp)
  const createdAt = Number.isFinite(created) ? created : start
  if (pod.metadata.deletionTimestamp != null) {
    return {stage: 'static', createdAt, goneAt: start + timings.terminateAfter}
  }
  const phase = pod.status?.phase
  if (phase === PodSucceeded || phase === PodFailed) return {stage: 'static', createdAt}
  if (isPodReady(pod)) return {stage: 'ready', createdAt}
  const reason = waitingReason(pod)
  if (reason && CONTAINER_FAILURES.has(reason)) {
    return {
      stage: 'static',
      createdAt,
      failure: IMAGE_FAILURES.has(reason) ? 'ImagePullBackOff' : 'CrashLoopBackOff',
    }
  }
  if (nodeOf(pod) === '') {
    return {stage: 'unscheduled', createdAt, nextAt: Math.max(createdAt + scheduleAfter(timings), start)}
  }
  return {stage: 'creating', createdAt, nextAt: Math.max(createdAt + timings.readyAfter, start)}
}

/** The plan of a pod just created by the ReplicaSet controller. */
export function planForNewPod(createdAt: number, timings: PodTimings, failure?: FailureMode): PodPlan {
  return {
    stage: 'unscheduled',
    createdAt,
    nextAt: createdAt + scheduleAfter(timings),
    ...(failure ? {failure} : {}),
  }
}

/** Makes a not-yet-ready pod of the input fail from now on (`--fail-new-pods` on an existing pod). */
export function failFromNow(plan: PodPlan, failure: FailureMode, now: number): PodPlan {
  if (plan.stage === 'unscheduled') return {...plan, failure}
  if (plan.stage !== 'creating') return plan
  return {...plan, failure, nextAt: now}
}

function scheduleAfter(timings: PodTimings): number {
  return Math.min(SCHEDULE_AFTER, Math.floor(timings.readyAfter / 2))
}

function crashBackoff(restarts: number): number {
  return Math.min(CRASH_BACKOFF_BASE * 2 ** Math.max(restarts - 1, 0), CRASH_BACKOFF_MAX)
}

/** When the next thing happens to this pod, if anything will. */
export function nextPodEventAt(plan: PodPlan): number | undefined {
  const times = [plan.nextAt, plan.goneAt].filter((t): t is number => t !== undefined)
  return times.length === 0 ? undefined : Math.min(...times)
}

export interface PodStepResult {
  /** The pod after the transitions due by `now`; undefined once it is gone. */
  pod: Pod | undefined
  plan: PodPlan
  /** One phrase per transition: `ContainerCreating -> Running, ready`. */
  notes: string[]
  events: SimEvent[]
}

export interface KubeletContext {
  timings: PodTimings
  /** The node the scheduler binds a pod to (called once per pod, when it is scheduled). */
  pickNode(pod: Pod): string
}

/** Applies every transition of one pod due at or before `now`, each at its own time. */
export function advancePod(pod: Pod, plan: PodPlan, now: number, ctx: KubeletContext): PodStepResult {
  const notes: string[] = []
  const events: SimEvent[] = []
  let current = pod
  let p = plan
  // Each transition moves nextAt forward or clears it, so this ends; the bound is a safety net.
  for (let guard = 0; guard < 64; guard++) {
    const due = nextPodEventAt(p)
    if (due === undefined || due > now) break
    if (p.goneAt !== undefined && p.goneAt <= (p.nextAt ?? Number.POSITIVE_INFINITY)) {
      notes.push('gone')
      return {pod: undefined, plan: p, notes, events}
    }
    const at = p.nextAt as number
    const next = transition(current, p, at, ctx)
    current = next.pod
    p = next.plan
    notes.push(next.note)
    events.push(...next.events)
  }
  return {pod: current, plan: p, notes, events}
}

interface Transition {
  pod: Pod
  plan: PodPlan
  note: string
  events: SimEvent[]
}

function transition(pod: Pod, plan: PodPlan, at: number, ctx: KubeletContext): Transition {
  const name = pod.metadata.name ?? ''
  const ref = `Pod/${name}`
  const {timings} = ctx
  switch (plan.stage) {
    case 'unscheduled': {
      const node = ctx.pickNode(pod)
      const scheduled = withStatus({...pod, spec: {...pod.spec, nodeName: node}}, at, {
        phase: 'Pending',
        scheduled: true,
        containers: 'creating',
      })
      const next =
        plan.failure === 'ImagePullBackOff'
          ? at + PULL_ERROR_AFTER
          : Math.max(plan.createdAt + timings.readyAfter, at)
      return {
        pod: scheduled,
        plan: {...plan, stage: 'creating', nextAt: next},
        note: `scheduled to ${node}, ContainerCreating`,
        events: [
          {
            type: 'Normal',
            reason: 'Scheduled',
            object: ref,
            message: `Successfully assigned ${pod.metadata.namespace}/${name} to ${node}`,
            source: 'default-scheduler',
          },
        ],
      }
    }
    case 'creating': {
      if (plan.failure === 'ImagePullBackOff') {
        const image = firstImage(pod)
        const message = pullErrorMessage(image)
        return {
          pod: withStatus(pod, at, {
            phase: 'Pending',
            scheduled: true,
            containers: 'waiting',
            waiting: {reason: 'ErrImagePull', message},
          }),
          plan: {...plan, stage: 'pull-error', nextAt: at + PULL_BACKOFF_AFTER},
          note: 'ContainerCreating -> ErrImagePull',
          events: [
            {
              type: 'Warning',
              reason: 'Failed',
              object: ref,
              message: `Failed to pull image "${image}": ${message}`,
              source: 'kubelet',
            },
          ],
        }
      }
      if (plan.failure === 'CrashLoopBackOff') {
        return {
          pod: withStatus(pod, at, {
            phase: 'Running',
            scheduled: true,
            containers: 'crash-running',
            restarts: 0,
          }),
          plan: {...plan, stage: 'crash-running', nextAt: at + CRASH_RUNS_FOR},
          note: 'ContainerCreating -> Running, not ready',
          events: [],
        }
      }
      return {
        pod: withStatus(pod, at, {phase: 'Running', scheduled: true, containers: 'ready'}),
        plan: {
          stage: 'ready',
          createdAt: plan.createdAt,
          ...(plan.goneAt !== undefined ? {goneAt: plan.goneAt} : {}),
        },
        note: 'ContainerCreating -> Running, ready',
        events: [],
      }
    }
    case 'pull-error': {
      const image = firstImage(pod)
      return {
        pod: withStatus(pod, at, {
          phase: 'Pending',
          scheduled: true,
          containers: 'waiting',
          waiting: {
            reason: 'ImagePullBackOff',
            message: `Back-off pulling image "${image}": ErrImagePull: ${pullErrorMessage(image)}`,
          },
        }),
        plan: withoutNext({...plan, stage: 'pull-backoff'}),
        note: 'ErrImagePull -> ImagePullBackOff',
        events: [
          {
            type: 'Warning',
            reason: 'BackOff',
            object: ref,
            message: `Back-off pulling image "${image}"`,
            source: 'kubelet',
          },
        ],
      }
    }
    case 'crash-running': {
      const restarts = maxRestarts(pod) + 1
      const backoff = crashBackoff(restarts)
      const container = pod.spec?.containers?.[0]?.name ?? ''
      const podRef = `${name}_${pod.metadata.namespace}(${pod.metadata.uid ?? ''})`
      return {
        pod: withStatus(pod, at, {
          phase: 'Running',
          scheduled: true,
          containers: 'crash-backoff',
          restarts,
          waiting: {
            reason: 'CrashLoopBackOff',
            message: `back-off ${backoff / 1000}s restarting failed container=${container} pod=${podRef}`,
          },
        }),
        plan: {...plan, stage: 'crash-backoff', nextAt: at + backoff},
        note: `Running -> CrashLoopBackOff (${restarts} restart${restarts === 1 ? '' : 's'})`,
        events: [
          {
            type: 'Warning',
            reason: 'BackOff',
            object: ref,
            message: `Back-off restarting failed container ${container} in pod ${podRef}`,
            source: 'kubelet',
          },
        ],
      }
    }
    case 'crash-backoff':
      return {
        pod: withStatus(pod, at, {
          phase: 'Running',
          scheduled: true,
          containers: 'crash-running',
          restarts: maxRestarts(pod),
        }),
        plan: {...plan, stage: 'crash-running', nextAt: at + CRASH_RUNS_FOR},
        note: 'CrashLoopBackOff -> Running, not ready',
        events: [],
      }
    default:
      return {pod, plan: withoutNext(plan), note: 'unchanged', events: []}
  }
}

function withoutNext(plan: PodPlan): PodPlan {
  const {nextAt: _, ...rest} = plan
  return rest
}

/** The moment the API server accepts a DELETE: graceful for a bound pod, immediate for an unbound one. */
export function terminatePod(
  pod: Pod,
  plan: PodPlan,
  now: number,
  timings: PodTimings,
): {pod: Pod | undefined; plan: PodPlan} {
  // upstream: pod strategy CheckGracefulDelete — a pod that never reached a node goes at once.
  if (nodeOf(pod) === '') return {pod: undefined, plan}
  const graceSpec = pod.spec?.terminationGracePeriodSeconds
  const grace = typeof graceSpec === 'number' ? graceSpec : 30
  const terminating: Pod = {
    ...pod,
    metadata: {
      ...pod.metadata,
      deletionTimestamp: formatTime(now + grace * 1000),
      deletionGracePeriodSeconds: grace,
    },
  }
  return {pod: terminating, plan: {...withoutNext(plan), goneAt: now + timings.terminateAfter}}
}

// --- statuses -------------------------------------------------------------------------------------

interface StatusShape {
  phase: 'Pending' | 'Running'
  scheduled: boolean
  containers: 'creating' | 'ready' | 'waiting' | 'crash-running' | 'crash-backoff'
  waiting?: {reason: string; message: string}
  restarts?: number
}

/** The pod with the status the kubelet would report in `shape`, keeping transition times that did not change. */
function withStatus(pod: Pod, at: number, shape: StatusShape): Pod {
  const ts = formatTime(at)
  const old = pod.status ?? {}
  const containers = pod.spec?.containers ?? []
  const statuses: ContainerStatus[] = containers.map((c, i) => containerStatus(c, i === 0, shape, ts, old))
  const allReady = statuses.length > 0 && statuses.every((c) => c.ready === true)
  const unready = statuses.filter((c) => c.ready !== true).map((c) => c.name)
  const notReady = {
    reason: 'ContainersNotReady',
    message: `containers with unready status: [${unready.join(' ')}]`,
  }
  let conditions = old.conditions ?? []
  conditions = setCondition(
    conditions,
    'PodReadyToStartContainers',
    shape.containers === 'creating' ? 'False' : 'True',
    ts,
  )
  conditions = setCondition(conditions, 'Initialized', 'True', ts)
  conditions = setCondition(
    conditions,
    'Ready',
    allReady ? 'True' : 'False',
    ts,
    allReady ? undefined : notReady,
  )
  conditions = setCondition(
    conditions,
    'ContainersReady',
    allReady ? 'True' : 'False',
    ts,
    allReady ? undefined : notReady,
  )
  if (shape.scheduled) conditions = setCondition(conditions, 'PodScheduled', 'True', ts)
  const status: PodStatus = {
    ...old,
    phase: shape.phase,
    conditions,
    containerStatuses: statuses,
    startTime: old.startTime ?? ts,
  }
  return {...pod, status}
}

const CONDITION_ORDER = [
  'PodReadyToStartContainers',
  'Initialized',
  'Ready',
  'ContainersReady',
  'PodScheduled',
]

function setCondition(
  conditions: PodCondition[],
  type: string,
  status: string,
  ts: string,
  detail?: {reason: string; message: string},
): PodCondition[] {
  const old = conditions.find((c) => c.type === type)
  const next: PodCondition = {
    type,
    status,
    lastProbeTime: null,
    lastTransitionTime: old && old.status === status ? old.lastTransitionTime : ts,
    ...(detail ? {reason: detail.reason, message: detail.message} : {}),
  }
  const rest = conditions.filter((c) => c.type !== type)
  return [...rest, next].sort(
    (a, b) => rank(CONDITION_ORDER.indexOf(a.type)) - rank(CONDITION_ORDER.indexOf(b.type)),
  )
}

const rank = (i: number) => (i < 0 ? CONDITION_ORDER.length : i)

function containerStatus(
  c: Container,
  failing: boolean,
  shape: StatusShape,
  ts: string,
  old: PodStatus,
): ContainerStatus {
  const prev = old.containerStatuses?.find((s) => s.name === c.name)
  const base: ContainerStatus = {
    name: c.name,
    image: c.image ?? '',
    imageID: '',
    lastState: prev?.lastState ?? {},
    ready: false,
    restartCount: prev?.restartCount ?? 0,
    started: false,
    state: {},
  }
  const running = (since: string | undefined): ContainerStatus => ({
    ...base,
    imageID: imageId(c.image),
    started: true,
    state: {running: {startedAt: since ?? ts}},
  })
  // Only the first container fails; the others of a failing pod start normally.
  const mode = failing || shape.containers === 'creating' ? shape.containers : 'ready'
  switch (mode) {
    case 'creating':
      return {...base, state: {waiting: {reason: 'ContainerCreating'}}}
    case 'waiting':
      return {...base, state: {waiting: {...shape.waiting}}}
    case 'ready':
      return {...running(prev?.state?.running?.startedAt), ready: true}
    case 'crash-running':
      return {...running(undefined), restartCount: shape.restarts ?? 0}
    case 'crash-backoff': {
      return {
        ...base,
        imageID: imageId(c.image),
        restartCount: shape.restarts ?? 0,
        lastState: {
          terminated: {
            exitCode: 1,
            reason: 'Error',
            startedAt: prev?.state?.running?.startedAt,
            finishedAt: ts,
          } as NonNullable<NonNullable<ContainerStatus['state']>['terminated']>,
        },
        state: {waiting: {...shape.waiting}},
      }
    }
  }
}

function firstImage(pod: Pod): string {
  return pod.spec?.containers?.[0]?.image ?? ''
}

/** `nginx:1.27` -> `docker.io/library/nginx:1.27`, as containerd names images. */
export function normalizeImage(image: string): string {
  let ref = image
  const slash = ref.indexOf('/')
  const first = slash < 0 ? '' : ref.slice(0, slash)
  if (slash < 0) ref = `docker.io/library/${ref}`
  else if (!first.includes('.') && !first.includes(':') && first !== 'localhost') ref = `docker.io/${ref}`
  const last = ref.slice(ref.lastIndexOf('/') + 1)
  if (!last.includes(':') && !ref.includes('@')) ref = `${ref}:latest`
  return ref
}

function pullErrorMessage(image: string): string {
  const ref = normalizeImage(image)
  return `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`
}

/** A digest reference for a pulled image, derived from its name so that reruns print the same. */
function imageId(image: string | undefined): string {
  const ref = normalizeImage(image ?? '')
  const at = ref.lastIndexOf(':')
  const repo = at > ref.lastIndexOf('/') ? ref.slice(0, at) : ref
  return `${repo}@sha256:${hexDigest('sha256', ref)}`
}
