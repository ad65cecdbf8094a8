// How a pod reads from a rollout's point of view: ready and available as the controllers judge it,
// its owner, kubectl get pods' STATUS, and a one-word state for the views. Read by the status model,
// the simulator's models and explain's blockers alike.

import type {Pod, ReplicaSet} from '../controller/api/types.js'
import {PodFailed, PodSucceeded} from '../controller/api/types.js'
import {getControllerOf} from '../controller/controller-utils.js'
import {timeValue} from '../controller/util/equality.js'

/** How a pod stands, from the rollout's point of view. */
export type PodState =
  | 'pending'
  | 'creating'
  | 'running'
  | 'ready'
  | 'available'
  | 'failing'
  | 'terminating'
  | 'succeeded'
  | 'failed'

export interface PodSummary {
  name: string
  state: PodState
  /** kubectl get pods' STATUS column: Pending, ContainerCreating, Running, ImagePullBackOff, Terminating... */
  reason: string
  /** The waiting message or the reason the pod is not ready, when there is one. */
  message?: string
  ready: boolean
  available: boolean
  restarts: number
  node?: string
  /**
   * How many identical pods this one stands for: the simulator models pods in cohorts above
   * MAX_POD_OBJECTS (sim/cluster.ts). Absent for one pod; count with podCount().
   */
  count?: number
}

/** How many pods the summaries stand for. */
export function podCount(pods: readonly PodSummary[]): number {
  let n = 0
  for (const p of pods) n += p.count ?? 1
  return n
}

// upstream: podutil.IsPodReady
export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false
}

/** The Ready condition's lastTransitionTime when the pod is ready, in ms; undefined otherwise. */
export function podReadyTime(pod: Pod): number | undefined {
  const c = pod.status?.conditions?.find((x) => x.type === 'Ready' && x.status === 'True')
  if (!c) return undefined
  const t = timeValue(c.lastTransitionTime)
  return Number.isFinite(t) ? t : undefined
}

// upstream: podutil.IsPodAvailable — ready for strictly longer than minReadySeconds.
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false
  if (minReadySeconds === 0) return true
  const since = podReadyTime(pod)
  return since !== undefined && since + minReadySeconds * 1000 < now
}

// upstream: controller.IsPodActive
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase
  return phase !== PodSucceeded && phase !== PodFailed && pod.metadata.deletionTimestamp == null
}

// upstream: controller.IsPodTerminating
export function isPodTerminating(pod: Pod): boolean {
  const phase = pod.status?.phase
  return phase !== PodSucceeded && phase !== PodFailed && pod.metadata.deletionTimestamp != null
}

/** The waiting reason of the first container that reports one (ContainerCreating, ImagePullBackOff...). */
export function waitingReason(pod: Pod): string | undefined {
  for (const c of pod.status?.containerStatuses ?? []) {
    const reason = c.state?.waiting?.reason
    if (reason) return reason
  }
  return undefined
}

/** The node the pod is bound to; '' when it is not scheduled. */
export function nodeOf(pod: Pod): string {
  const node = pod.spec?.nodeName
  return typeof node === 'string' ? node : ''
}

/** The highest restart count of the pod's containers. */
export function maxRestarts(pod: Pod): number {
  let max = 0
  for (const c of pod.status?.containerStatuses ?? []) max = Math.max(max, c.restartCount ?? 0)
  return max
}

/** The pods whose controller is this ReplicaSet (upstream's controller-ref index). */
export function podsOwnedBy(rs: ReplicaSet, pods: readonly Pod[]): Pod[] {
  const uid = rs.metadata.uid
  return pods.filter((p) => {
    const ref = getControllerOf(p.metadata)
    return ref !== undefined && ref.kind === 'ReplicaSet' && ref.uid === uid
  })
}

/** kubectl get pods' STATUS, simplified: Terminating, a container's waiting or terminated reason, or the phase. */
export function podReason(pod: Pod): string {
  if (pod.metadata.deletionTimestamp != null) return 'Terminating'
  if (pod.status?.phase === 'Succeeded') return 'Completed'
  const waiting = waitingReason(pod)
  if (waiting) return waiting
  for (const c of pod.status?.containerStatuses ?? []) {
    const terminated = c.state?.terminated?.reason
    if (terminated) return terminated
  }
  return pod.status?.reason ?? pod.status?.phase ?? 'Pending'
}

/** Container waiting reasons that are failures, not a start in progress. */
export const CONTAINER_FAILURES: ReadonlySet<string> = new Set([
  'ImagePullBackOff',
  'ErrImagePull',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
  'CreateContainerError',
  'InvalidImageName',
  'ErrImageNeverPull',
  'RunContainerError',
])

/** kubectl STATUS values of a failing pod: a failing container, or one that exited in error. */
const FAILING = new Set([...CONTAINER_FAILURES, 'Error'])

export function summarizePod(pod: Pod, minReadySeconds: number, now: number): PodSummary {
  const ready = isPodReady(pod)
  const available = isPodAvailable(pod, minReadySeconds, now)
  const reason = podReason(pod)
  const restarts = maxRestarts(pod)
  const node = nodeOf(pod)
  let state: PodState
  let message: string | undefined
  if (pod.metadata.deletionTimestamp != null) state = 'terminating'
  else if (pod.status?.phase === 'Succeeded') state = 'succeeded'
  else if (pod.status?.phase === 'Failed') state = 'failed'
  else if (FAILING.has(reason) || (!ready && restarts > 0)) state = 'failing'
  else if (available) state = 'available'
  else if (ready) state = 'ready'
  else if (pod.status?.phase === 'Running') state = 'running'
  else if (node !== '') state = 'creating'
  else state = 'pending'
  if (state === 'failing' || state === 'creating' || state === 'pending') {
    for (const c of pod.status?.containerStatuses ?? []) {
      if (c.state?.waiting?.message) {
        message = c.state.waiting.message
        break
      }
    }
    if (!message && state === 'pending') {
      message = pod.status?.conditions?.find(
        (c) => c.type === 'PodScheduled' && c.status === 'False',
      )?.message
    }
  } else if (state === 'running') {
    message = 'not ready'
  } else if (state === 'ready') {
    message = `ready, available after minReadySeconds ${minReadySeconds}s`
  }
  return {
    name: pod.metadata.name ?? '',
    state,
    reason,
    ...(message ? {message} : {}),
    ready,
    available,
    restarts,
    ...(node ? {node} : {}),
  }
}
