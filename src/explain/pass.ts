// The pass in words: each check syncDeployment makes, in its order, with its answer; then the
// branch it took with the numbers behind every decision. The numbers are the ones the controller
// computed (the tracer's facts) or come from the port's own util functions.

import {
  type Deployment,
  DeploymentProgressing,
  RecreateStrategyType,
  type ReplicaSet,
  RollingUpdateStrategyType,
} from '../controller/api/types.js'
import {filterActiveReplicaSets, specReplicas} from '../controller/controller-utils.js'
import {getRollbackTo} from '../controller/rollback.js'
import {
  deploymentComplete,
  deploymentReplicas,
  getDeploymentCondition,
  getDesiredReplicasAnnotation,
  getReplicaCountForReplicaSets,
  hasProgressDeadline,
  hasRevisionHistoryLimit,
  MaxReplicasAnnotation,
  maxSurge,
} from '../controller/util/deployment-util.js'
import {i32} from '../controller/util/go.js'
import {isSelectEverythingLiteral, labelSelectorAsSelector} from '../controller/util/labels.js'
import type {RolloutContext} from '../status/context.js'
import {scaledReplicaSets} from '../status/replicasets.js'
import {explainFenceposts} from './fenceposts.js'
import {foreignOf, overlapOf} from './overlaps.js'
import type {CheckName, Cleanup, PassCheck, PassExplain, Share, Step} from './types.js'

/** A ReplicaSet whose spec.replicas the pass changes (or creates). */
export function deletedReplicaSets(ctx: RolloutContext): string[] {
  return ctx.result.actions
    .filter((a) => a.resource === 'replicasets' && a.verb === 'delete')
    .map((a) => a.name)
}

const pods = (n: number) => `${n} ${n === 1 ? 'pod' : 'pods'}`
const names = (list: string[]) => (list.length === 0 ? 'none' : list.join(', '))

function selectorText(d: Deployment): string {
  try {
    const s = labelSelectorAsSelector(d.spec.selector).toString()
    return s === '' ? '(empty)' : s
  } catch (err) {
    return `invalid (${err instanceof Error ? err.message : String(err)})`
  }
}

export function explainPass(ctx: RolloutContext): PassExplain {
  const branch = ctx.facts.branch()
  const checks = passChecks(ctx, branch)
  const reachedStrategy = branch === 'rollingUpdate' || branch === 'recreate'
  const fenceposts =
    reachedStrategy || branch === 'scalingEvent' || branch === 'paused' ? explainFenceposts(ctx.d) : null
  const steps = passSteps(ctx, branch)
  return {path: ctx.result.path, checks, fenceposts, steps, cleanup: explainCleanup(ctx, branch)}
}

// --- the checks of syncDeployment ------------------------------------------------------------------

function passChecks(ctx: RolloutContext, branch: string | undefined): PassCheck[] {
  const {d, facts} = ctx
  const checks: PassCheck[] = []
  let ended = false
  const add = (check: CheckName, question: string, answer: string, detail: string) => {
    checks.push(
      ended ? {check, question, answer: 'not reached', detail: ''} : {check, question, answer, detail},
    )
  }

  const everything = isSelectEverythingLiteral(d.spec.selector)
  add(
    'selectsEverything',
    'Does the selector select every pod?',
    everything ? 'yes' : 'no',
    everything
      ? 'spec.selector is empty, so it would select every pod of the namespace. The controller refuses such a Deployment: it records a SelectingAll warning and stops here.'
      : `selector ${selectorText(d)}`,
  )
  if (everything) ended = true

  const claimedNames = facts.last('ownedReplicaSets')
  const adopted = facts.all('adopt')
  const released = facts.all('release')
  if (claimedNames === undefined && !ended) {
    add(
      'claimReplicaSets',
      'Which ReplicaSets does it own?',
      'error',
      ctx.result.error ?? 'the pass stopped before claiming ReplicaSets',
    )
    ended = true
  } else {
    const parts = [names(claimedNames ?? [])]
    if (adopted.length > 0) parts.push(`adopts ${adopted.join(', ')} (no owner, labels match the selector)`)
    if (released.length > 0)
      parts.push(`releases ${released.join(', ')} (owned, labels no longer match the selector)`)
    const overlap = overlapOf(ctx)
    const {listed: foreign, grouped} = foreignOf(ctx, overlap)
    if (foreign.length > 0) {
      parts.push(
        `leaves ${foreign.map((i) => `${i.rs.metadata.name} (controlled by ${i.controller})`).join(', ')} alone`,
      )
    }
    if (grouped > 0) {
      parts.push(
        `leaves the ${grouped} ReplicaSets of the ${overlap.count} Deployments whose selectors overlap alone`,
      )
    }
    add(
      'claimReplicaSets',
      'Which ReplicaSets does it own?',
      String(claimedNames?.length ?? 0),
      parts.join('; '),
    )
  }

  const deleting = d.metadata.deletionTimestamp != null
  add(
    'deleting',
    'Is the Deployment being deleted?',
    deleting ? 'yes' : 'no',
    deleting
      ? `deletionTimestamp ${d.metadata.deletionTimestamp}: the controller only updates the status; it scales and creates nothing.`
      : '',
  )
  if (branch === 'deleting') ended = true

  const paused = d.spec.paused === true
  add(
    'paused',
    'Is it paused?',
    paused ? 'yes' : 'no',
    paused
      ? 'spec.paused: the controller only follows spec.replicas (scaling every ReplicaSet in proportion) and cleans up old revisions; it does not roll out template changes.'
      : '',
  )
  if (branch === 'paused') ended = true

  const rollbackTo = getRollbackTo(d)
  add(
    'rollback',
    'Is a rollback requested?',
    rollbackTo !== undefined ? 'yes' : 'no',
    rollbackTo !== undefined
      ? `annotation deprecated.deployment.rollback.to is ${rollbackTo === 0n ? '0 (the previous revision)' : rollbackTo}: the controller copies that revision's pod template back into the Deployment and removes the annotation; the rollout itself starts on the next pass.`
      : '',
  )
  if (branch === 'rollback') ended = true

  add(
    'scalingEvent',
    'Is this a scaling event?',
    branch === 'scalingEvent' ? 'yes' : 'no',
    scalingEventDetail(ctx, branch),
  )
  if (branch === 'scalingEvent') ended = true

  const type = d.spec.strategy?.type ?? ''
  let strategyDetail: string
  if (type === RollingUpdateStrategyType) {
    strategyDetail = 'replace pods gradually, within maxSurge extra pods and maxUnavailable missing ones'
  } else if (type === RecreateStrategyType) {
    strategyDetail = 'stop every old pod first, then start the new ones'
  } else {
    strategyDetail = `unknown strategy type "${type}": the pass ends in an error`
  }
  add('strategy', 'Which strategy?', type || '(none)', strategyDetail)
  return checks
}

function scalingEventDetail(ctx: RolloutContext, branch: string | undefined): string {
  const fact = ctx.facts.last('scalingEvent')
  if (branch === 'scalingEvent' && fact) {
    return `${fact.replicaSet}'s desired-replicas annotation says ${fact.desiredReplicasAnnotation} but spec.replicas is ${fact.replicas}: the controller resizes the ReplicaSets in proportion and rolls nothing out in this pass.`
  }
  const replicas = deploymentReplicas(ctx.d)
  const active = filterActiveReplicaSets([...ctx.view.oldRSs, ctx.view.newRS])
  const annotated = active.filter((rs) => getDesiredReplicasAnnotation(rs) !== undefined)
  if (annotated.length === 0) return 'no active ReplicaSet carries a desired-replicas annotation'
  return `the desired-replicas annotation of ${annotated.length === 1 ? `${annotated[0]!.metadata.name} is` : `every active ReplicaSet is`} ${replicas}, as spec.replicas`
}

// --- the branch ------------------------------------------------------------------------------------

function passSteps(ctx: RolloutContext, branch: string | undefined): Step[] {
  switch (branch) {
    case 'rollingUpdate':
      return [...createStep(ctx), ...rollingSteps(ctx), statusStep(ctx, true)]
    case 'recreate':
      return [...recreateSteps(ctx), statusStep(ctx, true)]
    case 'scalingEvent':
    case 'paused':
      return [scaleStep(ctx), statusStep(ctx, false)]
    case 'rollback':
      return [rollbackStep(ctx)]
    case 'deleting':
      return [statusStep(ctx, false)]
    default:
      return []
  }
}

function createStep(ctx: RolloutContext): Step[] {
  const fact = ctx.facts.last('newReplicaSet')
  if (!fact) return []
  const replicas = deploymentReplicas(ctx.d)
  const current = getReplicaCountForReplicaSets(ctx.view.claimed)
  const step: Step = {
    step: 'createNewReplicaSet',
    outcome: `creates ${fact.name} with ${pods(fact.replicas).replace('pod', 'replica')} (revision ${fact.revision})`,
    detail: `No ReplicaSet runs the current pod template, so the controller creates one, named after the Deployment and a hash of the template (${fact.hash}).`,
    numbers: {replicas: fact.replicas, existingPods: current, specReplicas: replicas},
  }
  if (ctx.d.spec.strategy?.type === RollingUpdateStrategyType) {
    const maxTotal = i32(replicas + maxSurge(ctx.d))
    step.detail += ` Its size: at most ${maxTotal} pods in total (spec.replicas + maxSurge) and ${pods(current)} already exist, so room for ${Math.max(0, maxTotal - current)}, but never more than spec.replicas (${replicas}) → ${fact.replicas}.`
    step.numbers = {...step.numbers, maxTotalPods: maxTotal}
  } else {
    step.detail += ` With Recreate it starts at spec.replicas (${replicas}).`
  }
  return [step]
}

function rollingSteps(ctx: RolloutContext): Step[] {
  const {facts, result} = ctx
  const path = result.path
  const newName = ctx.view.newRS?.metadata.name ?? facts.last('newReplicaSet')?.name ?? 'the new ReplicaSet'
  const steps: Step[] = []
  const scaled = scaledReplicaSets(ctx)
  const newScaled = scaled.find((s) => s.name === newName && !s.created)

  // reconcileNewReplicaSet
  const up = facts.last('scaleUp')
  const down = facts.last('newReplicaSetScaleDown')
  const replicas = deploymentReplicas(ctx.d)
  if (!path.includes('reconcileNewReplicaSet')) {
    steps.push({step: 'scaleUp', outcome: 'not reached', detail: ctx.result.error ?? ''})
    return steps
  }
  if (down) {
    steps.push({
      step: 'scaleDownNewReplicaSet',
      outcome: `scales ${newName} down ${down.from} → ${down.to}`,
      detail: `The new ReplicaSet has more replicas than spec.replicas (${replicas}).`,
      numbers: {from: down.from, to: down.to},
    })
  } else if (up) {
    const room = up.maxTotalPods - up.currentPods
    const numbers = {
      currentPods: up.currentPods,
      maxTotalPods: up.maxTotalPods,
      budget: Math.max(0, room),
      from: up.from,
      to: up.to,
    }
    const limits = `At most ${up.maxTotalPods} pods may exist (spec.replicas ${replicas} + maxSurge ${up.maxSurge}) and the ReplicaSets have ${up.currentPods}`
    if (up.to > up.from) {
      steps.push({
        step: 'scaleUp',
        outcome: `scales ${newName} up ${up.from} → ${up.to}`,
        detail: `${limits}: room for ${room}. The new ReplicaSet needs ${replicas - up.from} more to reach spec.replicas, so it gets ${up.to - up.from}.`,
        numbers,
      })
    } else {
      steps.push({
        step: 'scaleUp',
        outcome: `${newName} stays at ${up.from} (budget 0)`,
        detail: `${limits}: no room for another pod until an old one goes.`,
        numbers,
      })
    }
  } else {
    steps.push({
      step: 'scaleUp',
      outcome: `${newName} stays at ${replicas}`,
      detail: 'already at spec.replicas',
      numbers: {from: replicas, to: replicas},
    })
  }
  if (newScaled || (down && down.from !== down.to)) {
    steps.push({
      step: 'scaleDown',
      outcome: 'not reached',
      detail:
        'A pass that resizes the new ReplicaSet stops there; the old ReplicaSets are looked at in the next pass.',
    })
    return steps
  }

  // reconcileOldReplicaSets
  if (!path.includes('reconcileOldReplicaSets')) {
    steps.push({step: 'scaleDown', outcome: 'not reached', detail: ctx.result.error ?? ''})
    return steps
  }
  const sd = facts.last('scaleDown')
  if (!sd) {
    steps.push({step: 'scaleDown', outcome: 'nothing', detail: 'No old ReplicaSet has replicas left.'})
    return steps
  }
  const budgetLine = `Budget ${sd.maxScaledDown} = ${sd.allPodsCount} pods − ${sd.minAvailable} minAvailable − ${sd.newRSUnavailablePodCount} new ${sd.newRSUnavailablePodCount === 1 ? 'pod' : 'pods'} not available yet`
  const numbers: Record<string, number> = {
    oldPods: sd.oldPodsCount,
    allPods: sd.allPodsCount,
    minAvailable: sd.minAvailable,
    newUnavailable: sd.newRSUnavailablePodCount,
    budget: Math.max(0, sd.maxScaledDown),
  }
  if (sd.maxScaledDown <= 0) {
    const why =
      sd.newRSUnavailablePodCount > 0
        ? `: removing an old pod now could leave fewer than ${sd.minAvailable} available, because ${pods(sd.newRSUnavailablePodCount)} of the new ReplicaSet ${sd.newRSUnavailablePodCount === 1 ? 'is' : 'are'} not available`
        : `: removing an old pod now could leave fewer than ${sd.minAvailable} available`
    steps.push({
      step: 'scaleDown',
      outcome: 'nothing (budget 0)',
      detail: `${budgetLine}${why}. The ${pods(sd.oldPodsCount)} of the old ReplicaSets stay.`,
      numbers,
    })
    return steps
  }
  const olds = new Set(ctx.view.oldRSs.map((rs) => rs.metadata.name ?? ''))
  const downs = scaled.filter((s) => olds.has(s.name) && s.to < s.from)
  const budget = facts.last('scaleDownBudget')
  let detail = `${budgetLine}. Old pods that are not available go first; then available ones, oldest ReplicaSet first, as long as ${budget ? `at least ${budget.minAvailable} stay available (${budget.availablePods} available now, so ${budget.budget} may go)` : 'minAvailable stay available'}.`
  if (budget) numbers.availablePods = budget.availablePods
  if (downs.length === 0) detail += ' None can go in this pass.'
  const swallowed = facts.last('swallowedError')
  if (swallowed)
    detail += ` A write failed (${swallowed}); the controller ignores it and retries on the next pass.`
  steps.push({
    step: 'scaleDown',
    outcome:
      downs.length > 0 ? downs.map((s) => `scales ${s.name} down ${s.from} → ${s.to}`).join('; ') : 'nothing',
    detail,
    numbers,
  })
  return steps
}

function recreateSteps(ctx: RolloutContext): Step[] {
  const {facts, result} = ctx
  const steps: Step[] = []
  const scaled = scaledReplicaSets(ctx)
  const olds = new Set(ctx.view.oldRSs.map((rs) => rs.metadata.name ?? ''))
  const downs = scaled.filter((s) => olds.has(s.name))
  steps.push({
    step: 'scaleDownOldForRecreate',
    outcome:
      downs.length > 0 ? downs.map((s) => `scales ${s.name} down ${s.from} → ${s.to}`).join('; ') : 'nothing',
    detail:
      downs.length > 0
        ? 'Recreate scales every old ReplicaSet to 0 first; the pass stops there and waits for their pods to go.'
        : 'The old ReplicaSets are at 0 already.',
  })
  if (downs.length > 0) return steps
  if (facts.last('oldPodsRunning')) {
    const oldPods = ctx.view.all
      .filter((i) => i.role === 'old')
      .flatMap((i) => i.pods)
      .filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed')
    const reported = ctx.view.oldRSs.reduce((n, rs) => n + (rs.status?.replicas ?? 0), 0)
    const count = Math.max(oldPods.length, reported)
    steps.push({
      step: 'waitForOldPods',
      outcome: 'waits for them to go',
      detail: `${pods(count)} of the old ReplicaSets still ${count === 1 ? 'exists' : 'exist'} (${oldPods.length > 0 ? oldPods.map((p) => p.metadata.name).join(', ') : `status.replicas ${reported}`}). Recreate starts the new pods only once every old pod is gone (Succeeded and Failed pods do not count).`,
      numbers: {oldPods: count},
    })
    return steps
  }
  steps.push(...createStep(ctx))
  if (!result.path.includes('scaleUpNewReplicaSetForRecreate')) return steps
  const newName = ctx.view.newRS?.metadata.name ?? facts.last('newReplicaSet')?.name ?? ''
  const up = scaled.find((s) => s.name === newName && !s.created)
  const replicas = deploymentReplicas(ctx.d)
  steps.push({
    step: 'scaleUpForRecreate',
    outcome: up ? `scales ${newName} up ${up.from} → ${up.to}` : `${newName} stays at ${replicas}`,
    detail: up
      ? 'No old pod is left, so the new ReplicaSet goes straight to spec.replicas.'
      : 'The new ReplicaSet is at spec.replicas.',
  })
  return steps
}

function scaleStep(ctx: RolloutContext): Step {
  const {facts, d} = ctx
  const replicas = deploymentReplicas(d)
  const scaled = scaledReplicaSets(ctx)
  const moves = scaled.map((s) => `${s.name} ${s.from} → ${s.to}`).join('; ')
  if (!ctx.result.path.includes('scale'))
    return {step: 'proportionalScaling', outcome: 'not reached', detail: ''}
  const only = facts.last('activeOrLatest')
  if (only !== undefined) {
    return {
      step: 'proportionalScaling',
      outcome: moves || `${only} stays at ${replicas}`,
      detail: `Only ${only} has pods (or, when none has, it is the newest), so it takes spec.replicas (${replicas}) directly.`,
      numbers: {replicas},
    }
  }
  const saturated = facts.last('saturated')
  if (saturated !== undefined) {
    return {
      step: 'proportionalScaling',
      outcome: moves || 'nothing',
      detail: `The new ReplicaSet ${saturated} is complete (${replicas} replicas, all available), so the old ones go to 0.`,
    }
  }
  const fact = facts.last('proportionalScaling')
  if (!fact) {
    return {
      step: 'proportionalScaling',
      outcome: moves || 'nothing',
      detail:
        d.spec.strategy?.type === RollingUpdateStrategyType
          ? ''
          : 'Several ReplicaSets have pods and the strategy is not RollingUpdate: the controller leaves their sizes alone.',
    }
  }
  const surge = maxSurge(d)
  const shares: Share[] = fact.shares.map((s, i) => {
    const rs = ctx.view.claimed.find((r) => r.metadata.name === s.replicaSet)
    const to = Math.max(0, s.from + s.proportion + (i === 0 ? fact.leftover : 0))
    return {
      replicaSet: s.replicaSet,
      from: s.from,
      to,
      proportion: s.proportion,
      formula: shareFormula(rs, s.from, fact.allowedSize, d),
    }
  })
  const verb = fact.toAdd >= 0 ? 'add' : 'remove'
  let detail = `The ReplicaSets may have ${fact.allowedSize} pods together (spec.replicas ${replicas} + maxSurge ${surge}) and have ${fact.current}: ${verb} ${Math.abs(fact.toAdd)}. Each ReplicaSet gets a share in proportion to its size: its replicas × ${fact.allowedSize} ÷ the total its max-replicas annotation recorded, rounded.`
  if (fact.leftover !== 0)
    detail += ` Rounding leaves ${fact.leftover}, which goes to the largest ReplicaSet (${fact.shares[0]?.replicaSet}).`
  return {
    step: 'proportionalScaling',
    outcome: moves || 'nothing',
    detail,
    numbers: {
      allowedSize: fact.allowedSize,
      current: fact.current,
      toAdd: fact.toAdd,
      leftover: fact.leftover,
    },
    shares,
  }
}

/** `6 × 15 ÷ 10 = 9`: getReplicaSetFraction's arithmetic as a formula (the result is the fact's). */
function shareFormula(rs: ReplicaSet | undefined, from: number, allowed: number, d: Deployment): string {
  if (!rs || from === 0) return `${from} replicas: no share`
  const ann = Number.parseInt(rs.metadata.annotations?.[MaxReplicasAnnotation] ?? '', 10)
  const base = Number.isFinite(ann) && ann > 0 ? ann : (d.status?.replicas ?? 0)
  const source = Number.isFinite(ann) && ann > 0 ? 'max-replicas' : 'status.replicas'
  if (base === 0) return `no max-replicas annotation and status.replicas 0: no share`
  const exact = (from * allowed) / base
  const shown = Number.isInteger(exact)
    ? String(exact)
    : `${Number(exact.toFixed(2))}, rounded → ${Math.round(exact)}`
  return `${from} × ${allowed} ÷ ${base} (${source}) = ${shown}`
}

function rollbackStep(ctx: RolloutContext): Step {
  const {facts, result} = ctx
  const target = facts.last('lastRevision') ?? facts.last('rollbackTo') ?? ''
  const from = facts.last('rollbackTemplateFrom')
  const event = result.events.find((e) => e.reason.startsWith('DeploymentRollback'))
  if (from) {
    return {
      step: 'rollback',
      outcome: `copies the template of revision ${target} (${from}) into the Deployment`,
      detail:
        'The annotation is removed in the same update. The next pass finds that ReplicaSet as the new one and rolls back to it like any rollout.',
    }
  }
  return {
    step: 'rollback',
    outcome: 'removes the annotation only',
    detail: event ? `${event.reason}: ${event.message}` : (result.error ?? ''),
  }
}

function statusStep(ctx: RolloutContext, rollout: boolean): Step {
  const availability = ctx.facts.last('availability')
  const progress = ctx.facts.last('progress')
  const parts: string[] = []
  if (availability) {
    const ok = availability.availableReplicas >= availability.minAvailable
    parts.push(
      // Under RollingUpdate, explain's limits table already shows how minAvailable is reached.
      ctx.d.spec.strategy?.type === RollingUpdateStrategyType
        ? `Available=${ok ? 'True' : 'False'}: ${availability.availableReplicas} available ${ok ? '≥' : '<'} minAvailable ${availability.minAvailable}.`
        : `Available=${ok ? 'True' : 'False'}: ${availability.availableReplicas} available ${ok ? '≥' : '<'} ${availability.minAvailable} (spec.replicas ${availability.replicas} − maxUnavailable ${availability.maxUnavailable}).`,
    )
  }
  let outcome = 'updates the status'
  if (!rollout) {
    parts.push('This path does not look at the progress deadline.')
  } else if (!hasProgressDeadline(ctx.d)) {
    parts.push('No progress deadline: Progressing is not maintained.')
  } else {
    const before = getDeploymentCondition(ctx.d.status, DeploymentProgressing)
    const cond = getDeploymentCondition(ctx.after.status, DeploymentProgressing)
    switch (progress) {
      case 'complete':
        outcome = 'marks the rollout complete'
        parts.push('Every replica is updated and available: Progressing=True, NewReplicaSetAvailable.')
        break
      case 'progressing':
        outcome = 'records progress'
        parts.push(
          'More pods are updated, ready or available than the status said (or fewer old ones): Progressing=True, ReplicaSetUpdated, with lastUpdateTime now. That restarts the deadline clock.',
        )
        break
      case 'timedOut':
        if (before?.reason === 'ProgressDeadlineExceeded') {
          outcome = 'keeps the rollout marked as failed'
          parts.push('Still no progress: Progressing stays False, ProgressDeadlineExceeded.')
        } else {
          outcome = 'marks the rollout failed'
          parts.push('No progress within the deadline: Progressing=False, ProgressDeadlineExceeded.')
        }
        break
      case 'noProgress':
        // This pass's own earlier status write set the condition (a Deployment without status, or a
        // new ReplicaSet): that write is what starts the clock, not a status written before.
        if (
          cond &&
          (before?.reason !== cond.reason ||
            before?.status !== cond.status ||
            before?.lastUpdateTime !== cond.lastUpdateTime)
        ) {
          outcome = 'starts the progress clock'
          parts.push(
            `This pass writes Progressing=${cond.status}, ${cond.reason ?? ''} (lastUpdateTime ${cond.lastUpdateTime ?? 'unknown'}): the deadline clock starts there, and the passes that follow measure progress from it.`,
          )
        } else {
          outcome = 'records no progress'
          parts.push(`Progressing stays ${cond?.reason ?? 'as it is'}: nothing moved since it was written.`)
        }
        break
      default:
        if (cond?.reason === 'NewReplicaSetAvailable') {
          parts.push(
            'Progressing says NewReplicaSetAvailable and status.replicas equals updatedReplicas: the controller skips the progress check.',
          )
        }
    }
  }
  const writes = ctx.result.actions.filter((a) => a.resource === 'deployments' && a.subresource === 'status')
  if (writes.length === 0)
    outcome = outcome === 'updates the status' ? 'no change' : `${outcome} (no change to write)`
  return {step: 'status', outcome, detail: parts.join(' ')}
}

// --- revisionHistoryLimit ----------------------------------------------------------------------------

function explainCleanup(ctx: RolloutContext, branch: string | undefined): Cleanup | null {
  const {d, facts, result, view} = ctx
  if (branch === undefined) return null
  const limit = hasRevisionHistoryLimit(d) ? (d.spec.revisionHistoryLimit ?? 0) : null
  const candidates = view.oldRSs.filter((rs) => rs.metadata.deletionTimestamp == null)
  const base: Cleanup = {
    revisionHistoryLimit: limit,
    oldReplicaSets: candidates.length,
    excess: limit === null ? 0 : Math.max(0, candidates.length - limit),
    deletes: [],
    skipped: [],
    waits: null,
  }
  if (limit === null) {
    return {...base, waits: 'revisionHistoryLimit is not set: every old ReplicaSet is kept.'}
  }
  if (result.path.includes('cleanupDeployment')) {
    const fact = facts.last('cleanup')
    const skipped = facts.all('cleanupSkipped').map((n) => ({
      replicaSet: n,
      reason: skipReason(view.claimed.find((rs) => rs.metadata.name === n)),
    }))
    return {
      ...base,
      oldReplicaSets: fact?.oldReplicaSets ?? base.oldReplicaSets,
      excess: fact?.excess ?? base.excess,
      deletes: deletedReplicaSets(ctx),
      skipped,
    }
  }
  let waits: string
  switch (branch) {
    case 'deleting':
      waits = 'A Deployment being deleted is not cleaned up.'
      break
    case 'rollback':
      waits = 'A rollback pass does nothing else.'
      break
    case 'scalingEvent':
      waits =
        'A scaling-event pass does not clean up; the next rollout pass does, once the rollout is complete.'
      break
    case 'paused':
      waits = 'The pass did not get that far.'
      break
    default: {
      const s = d.status ?? {}
      if (!deploymentComplete(d, s)) {
        waits = `Cleanup runs only once the rollout is complete, judged on the status the Deployment had before the pass (spec.replicas ${deploymentReplicas(d)}: updated ${s.updatedReplicas ?? 0}, total ${s.replicas ?? 0}, available ${s.availableReplicas ?? 0}${(s.observedGeneration ?? 0) < (d.metadata.generation ?? 0) ? ', generation not yet observed' : ''}).`
      } else {
        waits = 'Cleanup runs only in a pass that scales nothing.'
      }
    }
  }
  return {...base, waits}
}

/** Why cleanupDeployment leaves a ReplicaSet it would otherwise delete (the same tests as the port's). */
function skipReason(rs: ReplicaSet | undefined): string {
  if (!rs) return 'unknown'
  if ((rs.status?.replicas ?? 0) !== 0)
    return `status.replicas is ${rs.status?.replicas}: the ReplicaSet still reports pods`
  if (specReplicas(rs) !== 0) return `spec.replicas is ${specReplicas(rs)}`
  if ((rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) {
    return `generation ${rs.metadata.generation} is not observed yet (observedGeneration ${rs.status?.observedGeneration ?? 0})`
  }
  if (rs.metadata.deletionTimestamp != null) return 'it is being deleted'
  return 'unknown'
}
