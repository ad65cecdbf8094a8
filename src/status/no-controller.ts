// Is any Deployment controller acting on this Deployment? A controller observes a new generation
// within a second and marks a passed progress deadline one second after it passes
// (requeueStuckDeployment). When the object shows neither for much longer than that, no controller
// seems to be running: the rollout will not move, whatever the pass here says it would do.

import {type Deployment, DeploymentProgressing} from '../controller/api/types.js'
import {
  deploymentComplete,
  getDeploymentCondition,
  hasProgressDeadline,
  NewRSAvailableReason,
  TimedOutReason,
} from '../controller/util/deployment-util.js'
import {formatTime, humanDuration, parseTime} from '../util/duration.js'

/**
 * How long a lag may last before it counts as no controller: a controller acts within seconds,
 * but a busy one (a long queue, its 10 qps rate limiter) may take minutes; snapshots taken just
 * after a deadline passed must not cry wolf.
 */
export const NO_CONTROLLER_AFTER_MS = 5 * 60_000

export interface ControllerSigns {
  code: 'NoControllerActing'
  /** What shows it: the generation not observed, or a deadline passed without being marked. */
  sign: 'GenerationNotObserved' | 'DeadlineNotMarked'
  /** Since when a controller should have acted (RFC 3339). */
  since: string
  message: string
}

export interface ControllerHints {
  /**
   * When the watcher first saw the current generation unobserved (epoch ms): a live watch knows
   * it; files and a single read do not, and then only a never-observed Deployment's creation time
   * dates the lag.
   */
  generationUnobservedSince?: number
}

/** Signs that no Deployment controller is acting on `d` at `now`, or undefined when there are none. */
export function noControllerSigns(
  d: Deployment,
  now: number,
  hints: ControllerHints = {},
): ControllerSigns | undefined {
  const name = d.metadata.name ?? ''
  const generation = d.metadata.generation ?? 0
  const observed = d.status?.observedGeneration ?? 0
  if (d.metadata.deletionTimestamp != null) return undefined
  if (generation > observed) {
    // Only an object an API server stored (it has a resourceVersion) dates the lag by its creation:
    // a manifest written by hand has never met a controller, and its creation time is made up.
    const stored = d.metadata.resourceVersion !== undefined && d.metadata.resourceVersion !== ''
    const created = observed === 0 && stored ? parseTime(d.metadata.creationTimestamp) : undefined
    const since = hints.generationUnobservedSince ?? created
    if (since !== undefined && now - since > NO_CONTROLLER_AFTER_MS) {
      return {
        code: 'NoControllerActing',
        sign: 'GenerationNotObserved',
        since: formatTime(since),
        message: `No Deployment controller seems to be acting: generation ${generation} has not been observed (observedGeneration ${observed}) for ${humanDuration(now - since)}, where a controller observes it within seconds. Check that kube-controller-manager runs with its deployment controller, or run one (kubectl deployctl run).`,
      }
    }
  }
  const cond = getDeploymentCondition(d.status, DeploymentProgressing)
  if (
    cond?.status === 'True' &&
    cond.reason !== NewRSAvailableReason &&
    cond.reason !== TimedOutReason &&
    !d.spec.paused &&
    hasProgressDeadline(d) &&
    !deploymentComplete(d, d.status ?? {})
  ) {
    const last = parseTime(cond.lastUpdateTime)
    if (last === undefined) return undefined
    const deadline = last + (d.spec.progressDeadlineSeconds ?? 0) * 1000
    if (now - deadline > NO_CONTROLLER_AFTER_MS) {
      return {
        code: 'NoControllerActing',
        sign: 'DeadlineNotMarked',
        since: formatTime(deadline),
        message: `No Deployment controller seems to be acting: the progress deadline passed ${humanDuration(now - deadline)} ago, yet Progressing is still True (${cond.reason ?? ''}); a controller marks it ProgressDeadlineExceeded a second after it passes. Check that kube-controller-manager runs with its deployment controller, or run one (kubectl deployctl run). deployment "${name}" will not move until one does.`,
      }
    }
  }
  return undefined
}

/**
 * When noControllerSigns may first find a sign for `d` as it stands (epoch ms), or undefined when
 * time alone will not make one: the lag's start plus NO_CONTROLLER_AFTER_MS. Watchers judge again
 * then instead of polling.
 */
export function noControllerDueAt(d: Deployment, hints: ControllerHints = {}): number | undefined {
  if (d.metadata.deletionTimestamp != null) return undefined
  const at: number[] = []
  const observed = d.status?.observedGeneration ?? 0
  if ((d.metadata.generation ?? 0) > observed) {
    const stored = d.metadata.resourceVersion !== undefined && d.metadata.resourceVersion !== ''
    const created = observed === 0 && stored ? parseTime(d.metadata.creationTimestamp) : undefined
    const since = hints.generationUnobservedSince ?? created
    if (since !== undefined) at.push(since + NO_CONTROLLER_AFTER_MS)
  }
  const cond = getDeploymentCondition(d.status, DeploymentProgressing)
  const last = parseTime(cond?.lastUpdateTime)
  if (cond?.status === 'True' && last !== undefined && hasProgressDeadline(d)) {
    at.push(last + (d.spec.progressDeadlineSeconds ?? 0) * 1000 + NO_CONTROLLER_AFTER_MS)
  }
  return at.length > 0 ? Math.min(...at) : undefined
}
