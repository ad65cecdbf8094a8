// explain/: why a Deployment is where it is — the rollout's status (src/status) with the pass
// explained check by check, its dead ends and what the controller does next.
//
// The analysis takes a World (from files today, from a cluster later) and, when the source has
// them, recent Events; it runs the port's own pass with the tracer on and reads its record.

import type {MemoryStore} from '../cluster/memory.js'
import type {ClusterObject, World} from '../cluster/world.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {ChangeTracker} from '../pass/change.js'
import {type DeploymentResult, envelope} from '../pass/result.js'
import {type PassOutcome, runPasses} from '../pass/run.js'
import type {ObjectRef, Selection} from '../pass/selection.js'
import {concerningEvents, newestEventTime, podsInInput, warningEvents} from '../status/blockers.js'
import type {RolloutContext} from '../status/context.js'
import {rolloutContext, stateOf} from '../status/index.js'
import {replicaSetRows} from '../status/replicasets.js'
import type {KubeEvent} from '../status/types.js'
import {autoscalerDeadEnd, explainAutoscaler} from './autoscaler.js'
import {explainDeadEnds} from './dead-ends.js'
import {explainNext} from './next.js'
import {foreignOf, overlapOf} from './overlaps.js'
import {explainPass} from './pass.js'
import {describeStart} from './start.js'
import {explainTemplateDiff} from './template.js'
import type {EventSource, ExplainResult, Explanation} from './types.js'

export interface ExplainOptions {
  /** --now, epoch milliseconds. */
  now: number
  gates: FeatureGates & {values: Record<string, boolean>}
  /** Recent events of the namespaces concerned (live mode); undefined when the source has none. */
  events?: KubeEvent[]
  /** Files: say when the input lacks what the Deployment's status refers to (IncompleteInput). */
  checkInput?: boolean
  /** Pods and ReplicaSets named on the command line, by `namespace/name` of their Deployment. */
  starts?: Map<string, ObjectRef[]>
  /** Where `events` come from (default: cluster). */
  eventsFrom?: 'cluster' | 'files'
  /** The HorizontalPodAutoscalers of the namespaces concerned (files, or listed live). */
  autoscalers?: ClusterObject[]
}

export interface ExplainOutcome {
  result: ExplainResult
  pass: PassOutcome
}

/** Runs one pass over the selected Deployments and explains each. */
export async function explainWorld(
  world: World,
  selection: Selection,
  options: ExplainOptions,
): Promise<ExplainOutcome> {
  const pass = await runPasses(world, selection, {now: options.now, gates: options.gates, collectFacts: true})
  const tracker = new ChangeTracker((resource, namespace, name) =>
    pass.store.initial(resource, namespace, name),
  )
  const explanations = pass.result.items.map((r) => explainDeployment(world, pass.store, r, tracker, options))
  return {
    result: envelope('ExplainResult', options.now, options.gates, explanations),
    pass,
  }
}

/** The explanation of one Deployment from the record of its pass: its state, and the pass in detail. */
export function explainDeployment(
  world: World,
  store: MemoryStore,
  result: DeploymentResult,
  tracker: ChangeTracker,
  options: ExplainOptions,
): Explanation {
  const ctx = rolloutContext(world, store, result, options)
  const {d} = ctx
  const state = stateOf(ctx)
  const pass = explainPass(ctx)
  const overlap = overlapOf(ctx)
  const deadEnds = explainDeadEnds(ctx, state.blockers, state.progress, pass.fenceposts)
  const autoscaler = explainAutoscaler(ctx, options.autoscalers)
  const fight = autoscalerDeadEnd(ctx, autoscaler, pass.fenceposts)
  if (fight && autoscaler) {
    deadEnds.push(fight)
    autoscaler.message += ` Mid-rollout it counts the surge pods too (dead end ${fight.code}).`
  }
  if (state.noController) {
    deadEnds.unshift({
      code: 'NoControllerActing',
      message: state.noController.message,
      objects: [`Deployment/${ctx.name}`],
    })
  }
  // The item's head first, as every command's (status/item.ts).
  return {
    deployment: {namespace: ctx.namespace, name: ctx.name},
    verdict: state.verdict,
    startedFrom: (options.starts?.get(`${ctx.namespace}/${ctx.name}`) ?? []).map((ref) =>
      describeStart(ctx, state, ref),
    ),
    generation: d.metadata.generation ?? 0,
    observedGeneration: d.status?.observedGeneration ?? 0,
    strategy: d.spec.strategy?.type ?? null,
    rolloutStatus: state.rolloutStatus,
    tools: state.tools,
    replicaSets: replicaSetRows(
      {...ctx.view, all: [...ctx.view.all, ...foreignOf(ctx, overlap).listed]},
      options.now,
    ),
    templateDiff: explainTemplateDiff(ctx),
    autoscaler,
    podsInInput: podsInInput(ctx),
    pass,
    progress: state.progress,
    blockers: state.blockers,
    deadEnds,
    events: warningEvents(ctx),
    eventSource: eventSource(ctx, options),
    next: explainNext(ctx, tracker, state.progress.state),
  }
}

function eventSource(ctx: RolloutContext, options: ExplainOptions): EventSource | null {
  if (!options.events) return null
  const concerning = concerningEvents(ctx)
  return {
    from: options.eventsFrom ?? 'cluster',
    total: options.events.length,
    concerning: concerning.length,
    warnings: concerning.filter((e) => e.type === 'Warning').length,
    newest: newestEventTime(concerning),
  }
}
