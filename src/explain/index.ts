// explain: why a Deployment is where it is, what blocks it, and what the controller does next.
// The analysis takes a World (from files today, from a cluster later) and, when the source has
// them, recent Events; it runs the port's own pass with the tracer on and reads its record.

import {type MemoryStore, namespaceOf} from '../cluster/memory.js'
import type {World} from '../cluster/world.js'
import type {Deployment} from '../controller/api/types.js'
import {KUBERNETES_VERSION} from '../controller/features.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {ChangeTracker} from '../pass/change.js'
import {Facts} from '../pass/facts.js'
import type {DeploymentResult} from '../pass/result.js'
import {type PassOutcome, runPasses} from '../pass/run.js'
import type {Selection} from '../pass/selection.js'
import {explainBlockers, podsInInput, warningEvents} from '../status/blockers.js'
import type {ExplainContext} from '../status/context.js'
import {explainProgress} from '../status/progress.js'
import {replicaSetRows, replicaSetView} from '../status/replicasets.js'
import {rolloutStatus} from '../status/rollout-status.js'
import {explainVerdict} from '../status/verdict.js'
import {formatTime} from '../util/duration.js'
import {explainDeadEnds} from './dead-ends.js'
import {explainNext} from './next.js'
import {explainPass, scaledReplicaSets} from './pass.js'
import type {ExplainResult, Explanation, KubeEvent} from './types.js'

export interface ExplainOptions {
  /** --now, epoch milliseconds. */
  now: number
  gates: FeatureGates & {values: Record<string, boolean>}
  /** Recent events of the namespaces concerned (live mode); undefined when the source has none. */
  events?: KubeEvent[]
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
  const explanations = pass.result.results.map((r) =>
    explainDeployment(world, pass.store, r, tracker, options),
  )
  return {
    result: {
      kind: 'ExplainResult',
      apiVersion: 'deployctl.kubectl.io/v1alpha1',
      now: formatTime(options.now),
      kubernetesVersion: KUBERNETES_VERSION,
      featureGates: {...options.gates.values},
      explanations,
    },
    pass,
  }
}

/** The explanation of one Deployment from the record of its pass. */
export function explainDeployment(
  world: World,
  store: MemoryStore,
  result: DeploymentResult,
  tracker: ChangeTracker,
  options: ExplainOptions,
): Explanation {
  const {namespace, name} = result.deployment
  const d = store.initial('deployments', namespace, name) as Deployment
  const after = (store.peek('deployments', namespace, name) as Deployment | undefined) ?? d
  const facts = new Facts(result)
  const namespaceReplicaSets = store.listers.listReplicaSets(namespace)
  const partial = {
    namespace,
    name,
    d,
    after,
    others: world.deployments
      .filter((o) => namespaceOf(o) === namespace && o.metadata.name !== name)
      .map(
        (o) =>
          (store.initial('deployments', namespace, o.metadata.name ?? '') as Deployment | undefined) ?? o,
      ),
    namespaceReplicaSets,
    result,
    facts,
    store,
    now: options.now,
    events: options.events,
  }
  const ctx: ExplainContext = {...partial, view: replicaSetView(d, namespaceReplicaSets, facts, store)}
  const pass = explainPass(ctx)
  const progress = explainProgress(ctx)
  const blockers = explainBlockers(ctx)
  const deadEnds = explainDeadEnds(ctx, blockers, progress, pass.fenceposts)
  const verdict = explainVerdict(ctx, blockers, progress, scaledReplicaSets(ctx), deadEnds)
  return {
    deployment: {namespace, name},
    generation: d.metadata.generation ?? 0,
    observedGeneration: d.status?.observedGeneration ?? 0,
    strategy: d.spec.strategy?.type ?? null,
    verdict,
    rolloutStatus: rolloutStatus(d),
    replicaSets: replicaSetRows(ctx.view, options.now),
    podsInInput: podsInInput(ctx),
    pass,
    progress,
    blockers,
    deadEnds,
    events: warningEvents(ctx),
    next: explainNext(ctx, tracker, progress.state),
  }
}

export type {ExplainResult, Explanation, KubeEvent} from './types.js'
