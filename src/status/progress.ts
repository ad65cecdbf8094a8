// The progress clock: progressDeadlineSeconds counted from the Progressing condition's
// lastUpdateTime (the last time the controller saw progress), when it runs out, or why it cannot.

import {type Deployment, type DeploymentCondition, DeploymentProgressing} from '../controller/api/types.js'
import {
  deploymentComplete,
  getDeploymentCondition,
  hasProgressDeadline,
  NewRSAvailableReason,
  TimedOutReason,
} from '../controller/util/deployment-util.js'
import {formatTime, parseTime, relative, seconds} from '../util/duration.js'
import type {RolloutContext} from './context.js'
import type {ClockState, Condition, ProgressClock} from './types.js'

function condition(c: DeploymentCondition | undefined): Condition | null {
  if (!c) return null
  return {
    status: c.status,
    reason: c.reason ?? null,
    message: c.message ?? null,
    lastUpdateTime: c.lastUpdateTime ?? null,
    lastTransitionTime: c.lastTransitionTime ?? null,
  }
}

function sameCondition(a: Condition | null, b: Condition | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

export function explainProgress(ctx: RolloutContext): ProgressClock {
  const {d, after, now} = ctx
  const pds = hasProgressDeadline(d) ? (d.spec.progressDeadlineSeconds ?? 0) : null
  const before = condition(getDeploymentCondition(d.status, DeploymentProgressing))
  const cond = condition(getDeploymentCondition(after.status, DeploymentProgressing))
  // Once timed out, the condition's time is when it timed out; the last progress is the one before.
  const lastProgress =
    cond?.reason === TimedOutReason
      ? before?.reason !== TimedOutReason
        ? (before?.lastUpdateTime ?? null)
        : null
      : (cond?.lastUpdateTime ?? null)
  const lastMs = parseTime(lastProgress)
  const deadlineMs = pds !== null && lastMs !== undefined ? lastMs + pds * 1000 : undefined
  const factLeft = ctx.facts.last('progressDeadline')?.secondsLeft
  // Only a clock that runs (or just ran out) has a deadline worth printing.
  const clock = (state: ClockState, message: string, deadline?: number): ProgressClock => ({
    state,
    progressDeadlineSeconds: pds,
    condition: cond,
    conditionBefore: sameCondition(before, cond) ? null : before,
    lastProgress,
    deadline: deadline === undefined ? null : formatTime(deadline),
    secondsLeft:
      deadline === undefined
        ? null
        : deadline === deadlineMs && factLeft !== undefined
          ? factLeft
          : Math.round((deadline - now) / 1000),
    message,
  })
  const at = (ms: number) => `${formatTime(ms)} (${relative(ms, now)})`
  const complete = deploymentComplete(d, after.status ?? {})

  if (pds === null) {
    return clock(
      'NoDeadline',
      'progressDeadlineSeconds is not set: the controller never marks this rollout as failed, however long it takes.',
    )
  }
  const limit = `progressDeadlineSeconds is ${pds} (${seconds(pds)})`
  if (d.spec.paused) {
    return clock(
      'Paused',
      `${limit}, but the Deployment is paused: the deadline is not checked while paused (Progressing is Unknown, DeploymentPaused). Resuming restarts the clock.`,
    )
  }
  if (cond?.reason === TimedOutReason) {
    if (before?.reason !== TimedOutReason) {
      const beforeMs = parseTime(before?.lastUpdateTime)
      return clock(
        'FiresThisPass',
        `${limit}. The last progress was at ${lastProgressText(before, now)}, so the deadline passed at ${deadlineText(before, pds, now)}. The next pass marks the rollout as failed: Progressing=False, ProgressDeadlineExceeded.`,
        beforeMs === undefined ? undefined : beforeMs + pds * 1000,
      )
    }
    const since = parseTime(cond.lastTransitionTime)
    return clock(
      'Exceeded',
      `${limit}, and it was exceeded: Progressing has been False, ProgressDeadlineExceeded${since !== undefined ? ` since ${at(since)}` : ''}. The controller does not retry by itself; it clears the condition when pods make progress again (or the template changes).`,
    )
  }
  if (complete) {
    return clock(
      'Complete',
      `${limit}, but the rollout is complete: the deadline only runs while a rollout is under way.`,
    )
  }
  if (cond?.reason === NewRSAvailableReason) {
    return clock(
      'CheckSkipped',
      `${limit}, but Progressing still says NewReplicaSetAvailable from the last completed rollout. While it does, the controller never marks a deadline as exceeded (and skips the check entirely as long as status.replicas equals updatedReplicas): the clock starts only when it records progress or a new ReplicaSet.`,
    )
  }
  if (cond === null || lastMs === undefined || deadlineMs === undefined) {
    return clock(
      'NoCondition',
      `${limit}, but there is no Progressing condition with a time yet: the controller adds one when it creates or finds the new ReplicaSet, and the clock starts then.`,
    )
  }
  const refreshed = ctx.facts.last('progress') === 'progressing'
  const last = refreshed
    ? 'The next pass records progress, so the clock restarts now'
    : `The last progress was at ${at(lastMs)}`
  if (deadlineMs > now) {
    return clock(
      'Running',
      `${limit}. ${last}${refreshed ? ':' : ', so'} the deadline is ${at(deadlineMs)}. More updated, ready or available pods (or fewer old ones) push it back.`,
      deadlineMs,
    )
  }
  return clock(
    'Passed',
    `${limit}. ${last}, so the deadline passed at ${at(deadlineMs)}, but the next pass does not check it (${ctx.facts.branch() === 'scalingEvent' ? 'a scaling-event pass' : 'that path'} only updates counts). The first rollout pass after it marks the rollout as failed unless pods make progress.`,
    deadlineMs,
  )
}

function lastProgressText(c: Condition | null, now: number): string {
  const ms = parseTime(c?.lastUpdateTime)
  return ms === undefined ? 'an unknown time' : `${formatTime(ms)} (${relative(ms, now)})`
}

function deadlineText(c: Condition | null, pds: number, now: number): string {
  const ms = parseTime(c?.lastUpdateTime)
  if (ms === undefined) return 'an unknown time'
  const deadline = ms + pds * 1000
  return `${formatTime(deadline)} (${relative(deadline, now)})`
}

/** minReadySeconds is not shorter than the progress deadline: ready pods time out before they count. */
export function minReadyOutlastsDeadline(d: Deployment): boolean {
  const minReady = d.spec.minReadySeconds ?? 0
  return hasProgressDeadline(d) && minReady > 0 && minReady >= (d.spec.progressDeadlineSeconds ?? 0)
}
