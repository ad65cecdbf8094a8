// upstream: pkg/controller/deployment/rollback.go — the deprecated.deployment.rollback.to
// annotation: copy an old revision's template back into the Deployment.

import type {Deployment, ReplicaSet} from './api/types.js'
import type {ControllerContext} from './interfaces.js'
import {getAllReplicaSetsAndSyncRevision} from './sync.js'
import {
  DeprecatedRollbackTo,
  equalIgnoreHash,
  lastRevision,
  RevisionError,
  RollbackDone,
  RollbackRevisionNotFound,
  RollbackTemplateUnchanged,
  revision,
  setDeploymentAnnotationsTo,
  setFromReplicaSetTemplate,
} from './util/deployment-util.js'
import {parseInt64} from './util/go.js'

// upstream: getRollbackTo — an unparsable value is ignored, forever.
export function getRollbackTo(d: Deployment): bigint | undefined {
  const v = d.metadata.annotations?.[DeprecatedRollbackTo] ?? ''
  if (v === '') return undefined
  return parseInt64(v)
}

// upstream: rollback
export async function rollback(ctx: ControllerContext, d: Deployment, rsList: ReplicaSet[]): Promise<void> {
  ctx.trace.enter('rollback')
  const {newRS, oldRSs} = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
  const allRSs = [...oldRSs, newRS]
  let target = getRollbackTo(d) ?? 0n
  ctx.trace.fact('rollbackTo', target.toString())
  if (target === 0n) {
    target = lastRevision(allRSs)
    ctx.trace.fact('lastRevision', target.toString())
    if (target === 0n) {
      ctx.recorder.event(d, 'Warning', RollbackRevisionNotFound, 'Unable to find last revision.')
      await updateDeploymentAndClearRollbackTo(ctx, d)
      return
    }
  }
  for (const rs of allRSs) {
    if (!rs) continue
    let v: bigint
    try {
      v = revision(rs)
    } catch (err) {
      if (err instanceof RevisionError) continue
      throw err
    }
    if (v === target) {
      const performed = await rollbackToTemplate(ctx, d, rs)
      if (performed) {
        ctx.recorder.event(
          d,
          'Normal',
          RollbackDone,
          `Rolled back deployment "${d.metadata.name}" to revision ${target}`,
        )
      }
      return
    }
  }
  ctx.recorder.event(d, 'Warning', RollbackRevisionNotFound, 'Unable to find the revision to rollback to.')
  await updateDeploymentAndClearRollbackTo(ctx, d)
}

// upstream: rollbackToTemplate — resolves true only when the template changed and the update
// succeeded (upstream reports both and emits the event only in that case).
async function rollbackToTemplate(ctx: ControllerContext, d: Deployment, rs: ReplicaSet): Promise<boolean> {
  let performed = false
  if (!equalIgnoreHash(d.spec.template, rs.spec.template)) {
    ctx.trace.fact('rollbackTemplateFrom', rs.metadata.name ?? '')
    setFromReplicaSetTemplate(d, rs.spec.template)
    // The old revision's annotations (change-cause and the like) travel back with its template.
    setDeploymentAnnotationsTo(d, rs)
    performed = true
  } else {
    ctx.recorder.event(
      d,
      'Warning',
      RollbackTemplateUnchanged,
      `The rollback revision contains the same template as current deployment "${d.metadata.name}"`,
    )
  }
  await updateDeploymentAndClearRollbackTo(ctx, d)
  return performed
}

// upstream: updateDeploymentAndClearRollbackTo
async function updateDeploymentAndClearRollbackTo(ctx: ControllerContext, d: Deployment): Promise<void> {
  if (d.metadata.annotations) delete d.metadata.annotations[DeprecatedRollbackTo]
  await ctx.client.updateDeployment(d)
}
