// The pod lifecycle model: the scheduler and the kubelet, reduced to the states a rollout cares
// about. A healthy pod goes Pending -> scheduled (ContainerCreating) -> Running and Ready after
// `readyAfter`; a failing one stays in ImagePullBackOff or in CrashLoopBackOff with a growing
// restart count; a terminating one disappears after `terminateAfter`. An image whose registry host
// ends in `.invalid` never pulls. Pure: every function takes the time and returns new objects (the
// store freezes the ones it is given). A container whose command is a script that exits
// (container-script.ts) crash loops. The file simulator (`rollout watch -f`) advances it on a
// virtual clock, the test API server's simulated cluster (test/apiserver/simulate.ts) on timers.

import {hexDigest} from '../cluster/digest.js'
import type {Container, ContainerStatus, Pod, PodCondition, PodStatus} from '../controller/api/types.js'
import {PodFailed, PodSucceeded} from '../controller/api/types.js'
import {timeValue} from '../controller/util/equality.js'
import {
  CONTAINER_FAILURES,
  isPodActive,
  isPodReady,
  maxRestarts,
  nodeOf,
  waitingReason,
} from '../status/pods.js'
import type {SimEvent} from '../status/update.js'
import {formatTime} from '../util/duration.js'
import {containerRun, crashingContainer} from './container-script.js'

export type FailureMode = 'ImagePullBackOff' | 'CrashLoopBackOff'

export interface PodTimings {
  /** From creation to Running and Ready, in ms. */
  readyAfter: number
  /** From deletion to gone, in ms. */
  terminateAfter: number
  /** From scheduling to ErrImagePull for an image that never pulls; default PULL_ERROR_AFTER. */
  pullErrorAfter?: number
  /** From ErrImagePull to ImagePullBackOff; default PULL_BACKOFF_AFTER. */
  pullBackoffAfter?: number
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
  /** No node fits: PodScheduled False/Unschedulable; the nodes never change, so it stays. */
  | 'unschedulable'
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
  /** The index of the container that fails (default 0, the first). */
  container?: number
  /** When a terminating pod disappears. */
  goneAt?: number
  /**
   * The pod is bound to a node whose kubelet does not run: nothing changes its status but clients,
   * and once deleted it stays terminating until someone deletes it with a grace period of 0.
   */
  unattended?: true
  /**
   * The scheduler's refusal of this pod's template, read from a pod of the input it left
   * Unschedulable: the reason (resources, affinity, taints) is not modeled, and nothing in the
   * simulated cluster changes it, so pods of that template stay Unschedulable with the same message.
   */
  refusal?: string
  /**
   * The scheduler found no room for this pod on the nodes (Node objects: resources, taints,
   * affinity): it stays Pending, Unschedulable, until a pod leaves a node (requeueAt), then tries
   * again. `attempts` drives upstream's back-off (1 s doubling up to 10 s); `at`, the last attempt.
   */
  noRoom?: {attempts: number; at: number}
}

/** upstream: the scheduling queue's DefaultPodInitialBackoffDuration and DefaultPodMaxBackoffDuration. */
export const SCHEDULE_BACKOFF_INITIAL = 1_000
export const SCHEDULE_BACKOFF_MAX = 10_000

/**
 * A pod waiting for room, moved back to the scheduler's queue at `now` because a pod left a node
 * (upstream: MoveAllToActiveOrBackoffQueue on AssignedPodDelete): tried again once its back-off
 * since the last attempt has passed. Other plans are returned as they are.
 */
export function requeueAt(plan: PodPlan, now: number): PodPlan {
  if (plan.stage !== 'unschedulable' || plan.noRoom === undefined || plan.nextAt !== undefined) return plan
  const backoff = Math.min(
    SCHEDULE_BACKOFF_INITIAL * 2 ** Math.max(plan.noRoom.attempts - 1, 0),
    SCHEDULE_BACKOFF_MAX,
  )
  return {...plan, stage: 'unscheduled', nextAt: Math.max(now, plan.noRoom.at + backoff)}
}

const IMAGE_FAILURES = new Set(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'ErrImageNeverPull'])

/**
 * The plan of a pod read from the input: what it will do from `start` on. `kubeletRuns` says whether
 * a node's kubelet runs (default: every node's); a pod bound to a node without one is unattended.
 */
export function planForInputPod(
  pod: Pod,
  start: number,
  timings: PodTimings,
  kubeletRuns: (node: string) => boolean = () => true,
): PodPlan {
  const created = timeValue(pod.metadata.creationTimestamp)
  const createdAt = Number.isFinite(created) ? created : start
  if (nodeOf(pod) !== '' && !kubeletRuns(nodeOf(pod))) return {stage: 'static', createdAt, unattended: true}
  if (pod.metadata.deletionTimestamp != null) {
    // Finalizers hold the pod until their owners remove them, and nothing simulated does.
    if ((pod.metadata.finalizers ?? []).length > 0) return {stage: 'static', createdAt}
    return {stage: 'static', createdAt, goneAt: start + timings.terminateAfter}
  }
  const phase = pod.status?.phase
  if (phase === PodSucceeded || phase === PodFailed) return {stage: 'static', createdAt}
  const refusal = refusalOf(pod)
  if (refusal !== undefined && nodeOf(pod) === '') return {stage: 'unschedulable', createdAt, refusal}
  if (isPodReady(pod)) return {stage: 'ready', createdAt}
  const reason = waitingReason(pod)
  if (reason && CONTAINER_FAILURES.has(reason)) {
    return {
      stage: 'static',
      createdAt,
      failure: IMAGE_FAILURES.has(reason) ? 'ImagePullBackOff' : 'CrashLoopBackOff',
    }
  }
  const bad = unpullableImage(pod)
  const failing = failureOf(pod) ?? {}
  if (nodeOf(pod) === '') {
    return {
      stage: 'unscheduled',
      createdAt,
      nextAt: Math.max(createdAt + scheduleAfter(timings), start),
      ...failing,
    }
  }
  if (bad !== undefined) {
    return {
      stage: 'creating',
      createdAt,
      nextAt: Math.max(createdAt + pullErrorAfter(timings), start),
      ...failing,
    }
  }
  return {stage: 'creating', createdAt, nextAt: Math.max(createdAt + timings.readyAfter, start), ...failing}
}

/** What keeps a new pod failing by itself: an image that never pulls, else a container that exits. */
function failureOf(pod: Pod): {failure: FailureMode; container: number} | undefined {
  const bad = unpullableImage(pod)
  if (bad !== undefined) return {failure: 'ImagePullBackOff', container: bad}
  const crashing = crashingContainer(pod.spec?.containers ?? [])
  return crashing === undefined ? undefined : {failure: 'CrashLoopBackOff', container: crashing}
}

/**
 * The plan of a pod just created by the ReplicaSet controller: `failure` when the model is told to
 * keep it failing (`--fail-new-pods`), else ImagePullBackOff when one of its images never pulls.
 */
export function planForNewPod(
  createdAt: number,
  timings: PodTimings,
  failure?: FailureMode,
  pod?: Pod,
): PodPlan {
  const failing = failure !== undefined ? {failure} : ((pod && failureOf(pod)) ?? {})
  return {stage: 'unscheduled', createdAt, nextAt: createdAt + scheduleAfter(timings), ...failing}
}

/**
 * The registry host of an image reference, as containerd resolves it: the first path component when
 * it has a dot or a port or is `localhost`; docker.io otherwise. Without the port.
 */
export function registryHost(image: string): string {
  const slash = image.indexOf('/')
  const first = slash < 0 ? '' : image.slice(0, slash)
  const isHost = first.includes('.') || first.includes(':') || first === 'localhost'
  const host = isHost ? first : 'docker.io'
  return host.replace(/:\d+$/, '')
}

/**
 * The index of the first container whose image can never be pulled: its registry host ends in
 * `.invalid`, a name RFC 2606 guarantees never resolves. Undefined when every image can be pulled.
 */
export function unpullableImage(pod: Pod): number | undefined {
  const containers = pod.spec?.containers ?? []
  const i = containers.findIndex((c) =>
    registryHost(c.image ?? '')
      .toLowerCase()
      .endsWith('.invalid'),
  )
  return i < 0 ? undefined : i
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

/**
 * The scheduler's choice, reduced to spreading: the node with the fewest active pods among `nodes`
 * (the first such node on a tie). Each pod is counted once, by name.
 */
export function leastLoadedNode(nodes: readonly string[], pods: Iterable<Pod>): string {
  return new NodeLoad(pods).pick(nodes)
}

/**
 * The active pods per node, kept as pods are bound, so that placing n pods costs n lookups rather
 * than n walks over every pod (which made a rollout of 10,000 pods take minutes).
 */
export class NodeLoad {
  private readonly load = new Map<string, number>()

  /** Counts the active bound pods of `pods`, each once by name (`weight`: how many pods it stands for). */
  constructor(pods: Iterable<Pod>, weight: (pod: Pod) => number = () => 1) {
    const seen = new Set<string>()
    for (const p of pods) {
      const name = p.metadata.name ?? ''
      if (seen.has(name)) continue
      seen.add(name)
      const node = nodeOf(p)
      if (node !== '' && isPodActive(p)) this.load.set(node, (this.load.get(node) ?? 0) + weight(p))
    }
  }

  /** The node of `nodes` with the fewest active pods (the first such node on a tie). */
  pick(nodes: readonly string[]): string {
    let best = nodes[0] ?? 'node-1'
    for (const n of nodes) if ((this.load.get(n) ?? 0) < (this.load.get(best) ?? 0)) best = n
    return best
  }

  /** A pod (or `count` of them) was bound to `node`. */
  bound(node: string, count = 1): void {
    this.load.set(node, (this.load.get(node) ?? 0) + count)
  }
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
  /** The cluster's nodes; with them, a pod whose nodeSelector no node matches is left Unschedulable. */
  nodes?: readonly string[]
  /**
   * With Node objects: the scheduler's decision over their room (sim/fit.ts NodeFit), which
   * replaces pickNode and the label-only check.
   */
  place?(pod: Pod): {node: string} | {refusal: string}
}

/** The message of a pod's PodScheduled False/Unschedulable condition, if the scheduler refused it. */
export function refusalOf(pod: Pod): string | undefined {
  const c = pod.status?.conditions?.find((x) => x.type === 'PodScheduled')
  return c?.status === 'False' && c.reason === 'Unschedulable' ? (c.message ?? '') : undefined
}

/**
 * The labels the kubelet gives every simulated node (upstream: kubelet's initialNode, which sets the
 * stable os/arch labels and, still, their deprecated beta twins that older manifests select on).
 */
export function nodeLabels(node: string): Record<string, string> {
  return {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': node,
    'kubernetes.io/os': 'linux',
  }
}

/** The nodes whose labels hold every pair of the pod's spec.nodeSelector (upstream: NodeAffinity's filter). */
export function feasibleNodes(pod: Pod, nodes: readonly string[]): string[] {
  const selector = Object.entries(pod.spec?.nodeSelector ?? {})
  return nodes.filter((n) => {
    const labels = nodeLabels(n)
    return selector.every(([k, v]) => labels[k] === v)
  })
}

/**
 * The scheduler's message when no node fits, else undefined. upstream: FitError.Error() —
 * "0/%v nodes are available: " + the sorted "<count> <reason>" histogram + ".", then the PostFilter
 * (DefaultPreemption) message, which for a NodeAffinity rejection (UnschedulableAndUnresolvable)
 * is "preemption: 0/%v nodes are available: %v Preemption is not helpful for scheduling.".
 */
export function schedulingFailure(pod: Pod, nodes: readonly string[]): string | undefined {
  if (nodes.length === 0 || feasibleNodes(pod, nodes).length > 0) return undefined
  const n = nodes.length
  return `0/${n} nodes are available: ${n} node(s) didn't match Pod's node affinity/selector. preemption: 0/${n} nodes are available: ${n} Preemption is not helpful for scheduling.`
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
  const failing = plan.container ?? 0
  const container = pod.spec?.containers?.[failing]
  // The kubelet's container events name the container they are about.
  const kubelet = (type: SimEvent['type'], reason: string, message: string): SimEvent => ({
    type,
    reason,
    object: ref,
    message,
    source: 'kubelet',
    fieldPath: `spec.containers{${container?.name ?? ''}}`,
  })
  switch (plan.stage) {
    case 'unscheduled': {
      const placed = plan.refusal === undefined && ctx.place ? ctx.place(pod) : undefined
      const refused =
        plan.refusal ??
        (placed
          ? 'refusal' in placed
            ? placed.refusal
            : undefined
          : ctx.nodes
            ? schedulingFailure(pod, ctx.nodes)
            : undefined)
      if (refused !== undefined && placed !== undefined) {
        // No room on the nodes now: Unschedulable until a pod leaves a node (requeueAt).
        const conditions = setCondition(
          pod.status?.conditions ?? [],
          'PodScheduled',
          'False',
          formatTime(at),
          {
            reason: 'Unschedulable',
            message: refused,
          },
        )
        const attempts = (plan.noRoom?.attempts ?? 0) + 1
        return {
          pod: {...pod, status: {...pod.status, phase: 'Pending', conditions}},
          plan: withoutNext({...plan, stage: 'unschedulable', noRoom: {attempts, at}}),
          note: 'Unschedulable',
          events: [
            {
              type: 'Warning',
              reason: 'FailedScheduling',
              object: ref,
              message: refused,
              source: 'default-scheduler',
            },
          ],
        }
      }
      if (refused !== undefined) {
        // upstream: the scheduler's handleSchedulingFailure — PodScheduled False/Unschedulable with
        // the FitError's message (status patch), and a FailedScheduling Warning event.
        const conditions = setCondition(
          pod.status?.conditions ?? [],
          'PodScheduled',
          'False',
          formatTime(at),
          {
            reason: 'Unschedulable',
            message: refused,
          },
        )
        return {
          pod: {...pod, status: {...pod.status, phase: 'Pending', conditions}},
          plan: withoutNext({...plan, stage: 'unschedulable', refusal: refused}),
          note: 'Unschedulable',
          events: [
            {
              type: 'Warning',
              reason: 'FailedScheduling',
              object: ref,
              message: refused,
              source: 'default-scheduler',
            },
          ],
        }
      }
      const node = placed && 'node' in placed ? placed.node : ctx.pickNode(pod)
      const scheduled = withStatus({...pod, spec: {...pod.spec, nodeName: node}}, at, {
        phase: 'Pending',
        scheduled: true,
        containers: 'creating',
        failing,
      })
      const next =
        plan.failure === 'ImagePullBackOff'
          ? at + pullErrorAfter(timings)
          : // A pod that waited for room starts its containers once bound: the usual time from binding to Ready.
            Math.max(
              plan.createdAt + timings.readyAfter,
              plan.noRoom ? at + timings.readyAfter - scheduleAfter(timings) : at,
            )
      return {
        pod: scheduled,
        plan: {...withoutRoomWait(plan), stage: 'creating', nextAt: next},
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
        // upstream: kubelet images.imageManager.EnsureImageExists, then startContainer's "Error: %v".
        const image = container?.image ?? ''
        const message = pullErrorMessage(image)
        return {
          pod: withStatus(pod, at, {
            phase: 'Pending',
            scheduled: true,
            containers: 'waiting',
            waiting: {reason: 'ErrImagePull', message},
            failing,
          }),
          plan: {...plan, stage: 'pull-error', nextAt: at + pullBackoffAfter(timings)},
          note: 'ContainerCreating -> ErrImagePull',
          events: [
            kubelet('Normal', 'Pulling', `Pulling image "${image}"`),
            kubelet('Warning', 'Failed', `Failed to pull image "${image}": ${message}`),
            kubelet('Warning', 'Failed', 'Error: ErrImagePull'),
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
            failing,
          }),
          plan: {...plan, stage: 'crash-running', nextAt: at + CRASH_RUNS_FOR},
          note: 'ContainerCreating -> Running, not ready',
          events: [],
        }
      }
      return {
        pod: withStatus(pod, at, {phase: 'Running', scheduled: true, containers: 'ready', failing}),
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
      // upstream: the image back-off of EnsureImageExists — a Normal BackOff event, then the failed start.
      const image = container?.image ?? ''
      return {
        pod: withStatus(pod, at, {
          phase: 'Pending',
          scheduled: true,
          containers: 'waiting',
          waiting: {
            reason: 'ImagePullBackOff',
            message: `Back-off pulling image "${image}": ErrImagePull: ${pullErrorMessage(image)}`,
          },
          failing,
        }),
        plan: withoutNext({...plan, stage: 'pull-backoff'}),
        note: 'ErrImagePull -> ImagePullBackOff',
        events: [
          kubelet('Normal', 'BackOff', `Back-off pulling image "${image}"`),
          kubelet('Warning', 'Failed', 'Error: ImagePullBackOff'),
        ],
      }
    }
    case 'crash-running': {
      const restarts = maxRestarts(pod) + 1
      const backoff = crashBackoff(restarts)
      const containerName = container?.name ?? ''
      const podRef = `${name}_${pod.metadata.namespace}(${pod.metadata.uid ?? ''})`
      return {
        pod: withStatus(pod, at, {
          phase: 'Running',
          scheduled: true,
          containers: 'crash-backoff',
          restarts,
          waiting: {
            reason: 'CrashLoopBackOff',
            message: `back-off ${backoff / 1000}s restarting failed container=${containerName} pod=${podRef}`,
          },
          failing,
        }),
        plan: {...plan, stage: 'crash-backoff', nextAt: at + backoff},
        note: `Running -> CrashLoopBackOff (${restarts} restart${restarts === 1 ? '' : 's'})`,
        events: [
          {
            type: 'Warning',
            reason: 'BackOff',
            object: ref,
            message: `Back-off restarting failed container ${containerName} in pod ${podRef}`,
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
          failing,
        }),
        plan: {...plan, stage: 'crash-running', nextAt: at + CRASH_RUNS_FOR},
        note: 'CrashLoopBackOff -> Running, not ready',
        events: [],
      }
    default:
      return {pod, plan: withoutNext(plan), note: 'unchanged', events: []}
  }
}

function withoutRoomWait(plan: PodPlan): PodPlan {
  const {noRoom: _, ...rest} = plan
  return rest
}

function withoutNext(plan: PodPlan): PodPlan {
  const {nextAt: _, ...rest} = plan
  return rest
}

/**
 * The moment the API server accepts a DELETE: graceful for a bound pod, immediate for an unbound
 * one or when the request asks for a grace period of 0 (`gracePeriodSeconds`, as DeleteOptions
 * carries it; default the pod's terminationGracePeriodSeconds, else 30).
 */
export function terminatePod(
  pod: Pod,
  plan: PodPlan,
  now: number,
  timings: PodTimings,
  gracePeriodSeconds?: number,
): {pod: Pod | undefined; plan: PodPlan} {
  // upstream: pod strategy CheckGracefulDelete — a pod that never reached a node goes at once.
  if (nodeOf(pod) === '' || gracePeriodSeconds === 0) return {pod: undefined, plan}
  const graceSpec = pod.spec?.terminationGracePeriodSeconds
  const grace = gracePeriodSeconds ?? (typeof graceSpec === 'number' ? graceSpec : 30)
  const terminating: Pod = {
    ...pod,
    metadata: {
      ...pod.metadata,
      deletionTimestamp: formatTime(now + grace * 1000),
      deletionGracePeriodSeconds: grace,
    },
  }
  // Without a kubelet nobody confirms the termination: the pod stays until a grace-0 delete.
  if (plan.unattended) return {pod: terminating, plan: withoutNext(plan)}
  return {pod: terminating, plan: {...withoutNext(plan), goneAt: now + timings.terminateAfter}}
}

// --- statuses -------------------------------------------------------------------------------------

interface StatusShape {
  phase: 'Pending' | 'Running'
  scheduled: boolean
  containers: 'creating' | 'ready' | 'waiting' | 'crash-running' | 'crash-backoff'
  waiting?: {reason: string; message: string}
  restarts?: number
  /** The index of the container the shape is about; the others start normally. */
  failing: number
}

/** The pod with the status the kubelet would report in `shape`, keeping transition times that did not change. */
function withStatus(pod: Pod, at: number, shape: StatusShape): Pod {
  const ts = formatTime(at)
  const old = pod.status ?? {}
  const containers = pod.spec?.containers ?? []
  const statuses: ContainerStatus[] = containers.map((c, i) =>
    containerStatus(c, i === shape.failing, shape, ts, old),
  )
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
  // Only the failing container waits; the others of a failing pod start normally.
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
      const exitCode = containerRun(c).exitCode ?? 1
      return {
        ...base,
        imageID: imageId(c.image),
        restartCount: shape.restarts ?? 0,
        lastState: {
          terminated: {
            exitCode,
            reason: exitCode === 0 ? 'Completed' : 'Error',
            startedAt: prev?.state?.running?.startedAt,
            finishedAt: ts,
          } as NonNullable<NonNullable<ContainerStatus['state']>['terminated']>,
        },
        state: {waiting: {...shape.waiting}},
      }
    }
  }
}

function pullErrorAfter(timings: PodTimings): number {
  return timings.pullErrorAfter ?? PULL_ERROR_AFTER
}

function pullBackoffAfter(timings: PodTimings): number {
  return timings.pullBackoffAfter ?? PULL_BACKOFF_AFTER
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

/** containerd's error through the CRI: a host that does not resolve, or a reference the registry lacks. */
function pullErrorMessage(image: string): string {
  const ref = normalizeImage(image)
  const host = registryHost(image)
  if (host.toLowerCase().endsWith('.invalid')) {
    const slash = ref.indexOf('/')
    const hostPort = ref.slice(0, slash)
    const rest = ref.slice(slash + 1)
    const at = rest.indexOf('@')
    const colon = rest.lastIndexOf(':')
    const [repo, tag] =
      at >= 0 ? [rest.slice(0, at), rest.slice(at + 1)] : [rest.slice(0, colon), rest.slice(colon + 1)]
    return `rpc error: code = Unknown desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": failed to do request: Head "https://${hostPort}/v2/${repo}/manifests/${tag}": dial tcp: lookup ${host}: no such host`
  }
  return `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`
}

/** A digest reference for a pulled image, derived from its name so that reruns print the same. */
function imageId(image: string | undefined): string {
  const ref = normalizeImage(image ?? '')
  const at = ref.lastIndexOf(':')
  const repo = at > ref.lastIndexOf('/') ? ref.slice(0, at) : ref
  return `${repo}@sha256:${hexDigest('sha256', ref)}`
}
