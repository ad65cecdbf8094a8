// upstream: pkg/controller/deployment/progress.go — the Progressing condition, the progress
// deadline and when to look at a stuck rollout again.

import {
  ConditionFalse,
  ConditionTrue,
  type Deployment,
  type DeploymentCondition,
  DeploymentProgressing,
  DeploymentReplicaFailure,
  type DeploymentStatus,
  type ReplicaSet,
} from './api/types.js'
import type {ControllerContext} from './interfaces.js'
import {calculateStatus} from './sync.js'
import {
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  getDeploymentCondition,
  hasProgressDeadline,
  NewRSAvailableReason,
  newDeploymentCondition,
  ReplicaSetUpdatedReason,
  removeDeploymentCondition,
  replicaSetToDeploymentCondition,
  setDeploymentCondition,
  TimedOutReason,
} from './util/deployment-util.js'
import {deploymentStatusEqual, timeValue} from './util/equality.js'

// upstream: syncRolloutStatus
export async function syncRolloutStatus(
  ctx: ControllerContext,
  allRSs: Array<ReplicaSet | undefined>,
  newRS: ReplicaSet | undefined,
  d: Deployment,
): Promise<void> {
  ctx.trace.enter('syncRolloutStatus')
  const newStatus = calculateStatus(ctx, allRSs, newRS, d)
  const now = ctx.clock.now()
  if (!hasProgressDeadline(d)) removeDeploymentCondition(newStatus, DeploymentProgressing)

  const currentCond = getDeploymentCondition(d.status, DeploymentProgressing)
  const isCompleteDeployment =
    (newStatus.replicas ?? 0) === (newStatus.updatedReplicas ?? 0) &&
    currentCond?.reason === NewRSAvailableReason
  const subject = newRS ? `ReplicaSet "${newRS.metadata.name}"` : `Deployment "${d.metadata.name}"`
  if (hasProgressDeadline(d) && !isCompleteDeployment) {
    if (deploymentComplete(d, newStatus)) {
      ctx.trace.fact('progress', 'complete')
      setDeploymentCondition(
        newStatus,
        newDeploymentCondition(
          DeploymentProgressing,
          ConditionTrue,
          NewRSAvailableReason,
          `${subject} has successfully progressed.`,
          now,
        ),
      )
    } else if (deploymentProgressing(d, newStatus)) {
      ctx.trace.fact('progress', 'progressing')
      const condition = newDeploymentCondition(
        DeploymentProgressing,
        ConditionTrue,
        ReplicaSetUpdatedReason,
        `${subject} is progressing.`,
        now,
      )
      // Progress refreshes lastUpdateTime even when the reason stays the same: this is the
      // heartbeat the deadline is measured from.
      if (currentCond) {
        if (currentCond.status === ConditionTrue)
          condition.lastTransitionTime = currentCond.lastTransitionTime
        removeDeploymentCondition(newStatus, DeploymentProgressing)
      }
      setDeploymentCondition(newStatus, condition)
    } else if (deploymentTimedOut(d, newStatus, now)) {
      ctx.trace.fact('progress', 'timedOut')
      setDeploymentCondition(
        newStatus,
        newDeploymentCondition(
          DeploymentProgressing,
          ConditionFalse,
          TimedOutReason,
          `${subject} has timed out progressing.`,
          now,
        ),
      )
    } else {
      ctx.trace.fact('progress', 'noProgress')
    }
  }

  const failures = getReplicaFailures(allRSs, newRS)
  if (failures.length > 0) setDeploymentCondition(newStatus, failures[0]!)
  else removeDeploymentCondition(newStatus, DeploymentReplicaFailure)

  if (deploymentStatusEqual(d.status, newStatus)) {
    requeueStuckDeployment(ctx, d, newStatus)
    return
  }
  d.status = newStatus
  await ctx.client.updateDeploymentStatus(d)
}

// upstream: getReplicaFailures — the new ReplicaSet's failures win over the old ones'.
function getReplicaFailures(
  allRSs: Array<ReplicaSet | undefined>,
  newRS: ReplicaSet | undefined,
): DeploymentCondition[] {
  const fromRS = (rs: ReplicaSet) =>
    (rs.status?.conditions ?? [])
      .filter((c) => c.type === DeploymentReplicaFailure)
      .map(replicaSetToDeploymentCondition)
  if (newRS) {
    const own = fromRS(newRS)
    if (own.length > 0) return own
  }
  return allRSs.flatMap((rs) => (rs ? fromRS(rs) : []))
}

/**
 * upstream: requeueStuckDeployment. Returns the time left before the deadline, in seconds: -1 when
 * there is nothing to watch, 0 when it is under a second away (rate-limited requeue).
 */
export function requeueStuckDeployment(
  ctx: ControllerContext,
  d: Deployment,
  newStatus: DeploymentStatus,
): number {
  ctx.trace.enter('requeueStuckDeployment')
  const currentCond = getDeploymentCondition(d.status, DeploymentProgressing)
  if (!hasProgressDeadline(d) || !currentCond) return -1
  if (deploymentComplete(d, newStatus) || currentCond.reason === TimedOutReason) return -1
  const deadline = timeValue(currentCond.lastUpdateTime) + (d.spec.progressDeadlineSeconds ?? 0) * 1000
  const after = (deadline - ctx.clock.now()) / 1000
  ctx.trace.fact('progressDeadline', {
    deadline: Number.isFinite(deadline) ? new Date(deadline).toISOString() : null,
    secondsLeft: after,
  })
  if (after < 1) {
    ctx.queue.addRateLimited()
    return 0
  }
  // The extra second absorbs clock skew between AddAfter and the deadline check.
  ctx.queue.addAfter(after + 1)
  return after
}
