// status/: one model of a rollout's state — observe (Deployment, ReplicaSets, pods, events, now) →
// RolloutState — read by explain, rollout watch (live and simulated) and the TUI.
//
// The state is judged the way explain always judged it: one pass of the port runs over a copy of
// the objects with its facts recorded (what the next pass does is part of where a rollout stands),
// then kubectl's done/not-done rule, the progress clock, the blockers, the verdict and the signs of
// an absent controller are read from the objects and that record.

import {MemoryStore, namespaceOf} from '../cluster/memory.js'
import type {World} from '../cluster/world.js'
import type {Deployment, Pod, ReplicaSet} from '../controller/api/types.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {Facts} from '../pass/facts.js'
import type {DeploymentResult} from '../pass/result.js'
import {syncOne} from '../pass/run.js'
import {explainBlockers} from './blockers.js'
import type {ReplicaSetView, RolloutContext} from './context.js'
import {type InputGap, inputGaps} from './gaps.js'
import {type ControllerHints, type ControllerSigns, noControllerSigns} from './no-controller.js'
import {explainProgress} from './progress.js'
import {replicaSetView, scaledReplicaSets} from './replicasets.js'
import {rolloutStatus} from './rollout-status.js'
import {type ToolVerdicts, toolVerdicts} from './tools.js'
import type {Blocker, KubeEvent, ProgressClock, RolloutStatus, Verdict} from './types.js'
import {explainVerdict} from './verdict.js'

/** Where one rollout stands at one instant: the same answer for every reader. */
export interface RolloutState {
  verdict: Verdict
  /** What `kubectl rollout status` prints for the Deployment as given. */
  rolloutStatus: RolloutStatus
  /** What kubectl rollout status, kstatus and Argo CD answer for the Deployment as given, side by side. */
  tools: ToolVerdicts
  /** kubectl's done, and no old pod still terminating (`rollout watch --settled`). */
  settled: boolean
  progress: ProgressClock
  blockers: Blocker[]
  /** Signs that no Deployment controller acts on it; null when a controller seems to. */
  noController: ControllerSigns | null
}

export interface ObserveOptions {
  now: number
  /** Recent events of the namespace when the source has them (live); undefined from files. */
  events?: KubeEvent[]
  hints?: ControllerHints
  /**
   * Check the input for objects the Deployment's status refers to but the input lacks (files: a
   * partial snapshot). A cluster's objects are what there is, so live readers leave it off.
   */
  checkInput?: boolean
}

/** The context of one Deployment's pass over `store`: the objects before and after, and its record. */
export function rolloutContext(
  world: World,
  store: MemoryStore,
  result: DeploymentResult,
  options: ObserveOptions,
): RolloutContext {
  const {namespace, name} = result.deployment
  const d = store.initial('deployments', namespace, name) as Deployment
  const after = (store.peek('deployments', namespace, name) as Deployment | undefined) ?? d
  const facts = new Facts(result)
  const namespaceReplicaSets = store.listers.replicaSetsIn(namespace)
  const view = replicaSetView(d, namespaceReplicaSets, facts, store)
  let others: Deployment[] | undefined
  return {
    namespace,
    name,
    d,
    after,
    // Read only for overlapping selectors, and then once per namespace: a list per Deployment would
    // be quadratic with -A.
    get others() {
      others ??= world.deployments
        .filter((o) => namespaceOf(o) === namespace && o.metadata.name !== name)
        .map(
          (o) =>
            (store.initial('deployments', namespace, o.metadata.name ?? '') as Deployment | undefined) ?? o,
        )
      return others
    },
    namespaceReplicaSets,
    result,
    facts,
    store,
    now: options.now,
    events: options.events,
    hints: options.hints ?? {},
    view,
    gaps: options.checkInput ? viewGaps(d, view) : [],
  }
}

/** The gaps of the input, from the ReplicaSets the Deployment owns or would adopt and their pods. */
function viewGaps(d: Deployment, view: ReplicaSetView): InputGap[] {
  const related = view.all.filter((i) => i.ownership !== 'foreign')
  return inputGaps(
    d,
    related.map((i) => i.rs),
    related.reduce((n, i) => n + i.pods.length, 0),
  )
}

/** The rollout's state, read from its context. */
export function stateOf(ctx: RolloutContext): RolloutState {
  const progress = explainProgress(ctx)
  const blockers = explainBlockers(ctx)
  const kubectl = rolloutStatus(ctx.d)
  const oldTerminating = ctx.view.oldRSs.some((rs) =>
    ctx.view.all.find((i) => i.rs === rs)?.pods.some((p) => p.metadata.deletionTimestamp != null),
  )
  const gap = ctx.gaps[0]
  return {
    verdict: gap
      ? {
          code: 'IncompleteInput',
          reason: gap.code,
          message: `${gap.message}${statusSays(blockers)} Get a complete snapshot: ${gap.command}`,
        }
      : explainVerdict(ctx, blockers, progress, scaledReplicaSets(ctx)),
    rolloutStatus: kubectl,
    tools: toolVerdicts(ctx.d, kubectl),
    settled: kubectl.done && !oldTerminating,
    progress,
    blockers,
    noController: noControllerSigns(ctx.d, ctx.now, ctx.hints) ?? null,
  }
}

/** What the Deployment's own status says of the missing ReplicaSet's failure, as a sentence. */
function statusSays(blockers: Blocker[]): string {
  const b = blockers.find((x) => x.object.kind === 'Deployment' && x.code === 'ReplicaFailure')
  return b
    ? ` Its status says that ReplicaSet cannot create pods: ${b.message.replace(/^its status says its ReplicaSet cannot create pods: /, '')}.`
    : ''
}

export interface RolloutObjects {
  deployment: Deployment
  /** The namespace's ReplicaSets and pods (others are ignored by the pass as by the controller). */
  replicaSets: readonly ReplicaSet[]
  pods: readonly Pod[]
  /** The namespace's other Deployments, for overlapping selectors; none when unknown. */
  others?: readonly Deployment[]
  /**
   * The caller never mutates these objects (a simulator replaces them): the pass reads them as
   * they are instead of copies, which costs a copy of every pod at each observation otherwise.
   */
  immutable?: boolean
}

/**
 * Observes one Deployment: runs the pass over copies of the objects (the callers' objects, an
 * informer's cache or a simulator's world, stay untouched) and reads its state.
 */
export async function observeRollout(
  objects: RolloutObjects,
  options: ObserveOptions & {gates: FeatureGates & {values: Record<string, boolean>}},
): Promise<{state: RolloutState; context: RolloutContext}> {
  const d = objects.deployment
  const copy = <T>(o: T): T => (objects.immutable ? o : structuredClone(o))
  const world: World = {
    deployments: [d, ...(objects.others ?? [])].map(copy),
    replicaSets: objects.replicaSets.map(copy),
    pods: objects.pods.map(copy),
    sources: new WeakMap(),
  }
  const store = new MemoryStore(world, {now: () => options.now})
  const key = {namespace: namespaceOf(d), name: d.metadata.name ?? ''}
  const result = await syncOne(store, key, {now: options.now, gates: options.gates, collectFacts: true})
  const context = rolloutContext(world, store, result, options)
  return {state: stateOf(context), context}
}
