// upstream: checkPausedConditions (sync.go) — kept in its own file because it is the one status
// write that happens before any branch is chosen.

import {ConditionUnknown, type Deployment, DeploymentProgressing} from './api/types.js'
import type {ControllerContext} from './interfaces.js'
import {
  getDeploymentCondition,
  hasProgressDeadline,
  newDeploymentCondition,
  PausedDeployReason,
  ResumedDeployReason,
  setDeploymentCondition,
  TimedOutReason,
} from './util/deployment-util.js'

// upstream: checkPausedConditions — an Unknown Progressing condition while paused, so the
// deadline cannot fire for a rollout nobody is allowed to make; resuming restarts the clock.
export async function checkPausedConditions(ctx: ControllerContext, d: Deployment): Promise<void> {
  ctx.trace.enter('checkPausedConditions')
  if (!hasProgressDeadline(d)) return
  const cond = getDeploymentCondition(d.status, DeploymentProgressing)
  if (cond?.reason === TimedOutReason) return
  const pausedCondExists = cond?.reason === PausedDeployReason
  const now = ctx.clock.now()
  let needsUpdate = false
  if (d.spec.paused && !pausedCondExists) {
    setDeploymentCondition(
      (d.status ??= {}),
      newDeploymentCondition(
        DeploymentProgressing,
        ConditionUnknown,
        PausedDeployReason,
        'Deployment is paused',
        now,
      ),
    )
    needsUpdate = true
  } else if (!d.spec.paused && pausedCondExists) {
    setDeploymentCondition(
      (d.status ??= {}),
      newDeploymentCondition(
        DeploymentProgressing,
        ConditionUnknown,
        ResumedDeployReason,
        'Deployment is resumed',
        now,
      ),
    )
    needsUpdate = true
  }
  if (needsUpdate) await ctx.client.updateDeploymentStatus(d)
}
