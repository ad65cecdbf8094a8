// Why there is a new ReplicaSet: the pod template's differences between the previous revision and
// the current one (the new ReplicaSet, or the Deployment's template when none has it yet), with the
// field diff `plan` uses.

import type {ReplicaSet} from '../controller/api/types.js'
import {RevisionAnnotation} from '../controller/util/deployment-util.js'
import type {RolloutContext} from '../status/context.js'
import {type FieldChange, templateChanges} from '../status/template-diff.js'

export interface TemplateDiff {
  /** The previous revision: the old ReplicaSet with the highest revision. */
  from: {replicaSet: string; revision: number}
  /** The new ReplicaSet; replicaSet null when the next pass has yet to create it (the Deployment's template). */
  to: {replicaSet: string | null; revision: number | null}
  changes: FieldChange[]
}

function revisionOf(rs: ReplicaSet): number {
  const v = Number(rs.metadata.annotations?.[RevisionAnnotation] ?? '')
  return Number.isSafeInteger(v) ? v : 0
}

/** Null when the Deployment has no previous revision. */
export function explainTemplateDiff(ctx: RolloutContext): TemplateDiff | null {
  const {newRS, oldRSs} = ctx.view
  const previous = [...oldRSs].sort((a, b) => revisionOf(b) - revisionOf(a))[0]
  if (!previous) return null
  const to = newRS ? newRS.spec.template : ctx.d.spec.template
  return {
    from: {replicaSet: previous.metadata.name ?? '', revision: revisionOf(previous)},
    to: newRS
      ? {replicaSet: newRS.metadata.name ?? '', revision: revisionOf(newRS)}
      : {replicaSet: null, revision: null},
    changes: templateChanges(previous.spec.template, to),
  }
}
