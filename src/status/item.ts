// One item shape per Deployment, in every document a command prints (docs/output.md): which
// Deployment (`deployment.{namespace,name}`) and where its rollout stands (`verdict.{code,reason,
// message}`, the status model's verdict, the one explain prints), then the command's own fields.
// explain, explain --summary, dry-run sync, reconcile-once and plan build their items here, on files
// and live alike, so that `-o jsonpath={.items[0].verdict.code}` reads the same on every command.

import type {MemoryStore} from '../cluster/memory.js'
import type {World} from '../cluster/world.js'
import type {FeatureGates} from '../controller/interfaces.js'
import type {DeploymentResult, ResultEnvelope, SyncResult} from '../pass/result.js'
import {runPasses} from '../pass/run.js'
import type {Selection} from '../pass/selection.js'
import {type ObserveOptions, type RolloutState, rolloutContext, stateOf} from './index.js'
import type {KubeEvent, Verdict} from './types.js'

/** Which Deployment an item is about. */
export interface DeploymentRef {
  namespace: string
  name: string
}

/** What every Deployment's item starts with. */
export interface DeploymentItem {
  deployment: DeploymentRef
  verdict: Verdict
}

/** An item: the Deployment, its verdict, then the command's fields (in that order in JSON). */
export function deploymentItem<T extends object>(
  deployment: DeploymentRef,
  verdict: Verdict,
  fields: T,
): DeploymentItem & Omit<T, keyof DeploymentItem> {
  const {deployment: _d, verdict: _v, ...rest} = fields as T & Partial<DeploymentItem>
  return {deployment: {namespace: deployment.namespace, name: deployment.name}, verdict, ...rest}
}

/** The state of a passed Deployment's rollout (its result must carry the pass's facts: collectFacts). */
export function rolloutStateOf(
  world: World,
  store: MemoryStore,
  result: DeploymentResult,
  options: ObserveOptions,
): RolloutState {
  return stateOf(rolloutContext(world, store, result, options))
}

/** A pass's result as printed: the item's head, then the pass's record without its internal facts. */
export type SyncItem = DeploymentItem & Omit<DeploymentResult, 'deployment' | 'facts'>

/** `dry-run sync` and `reconcile-once`'s document. */
export type SyncDocument = ResultEnvelope<'SyncResult', SyncItem>

/** A pass's result with its Deployment's verdict at the front and its facts left out. */
export function syncItem(result: DeploymentResult, verdict: Verdict): SyncItem {
  const {facts: _facts, ...rest} = result
  return deploymentItem(result.deployment, verdict, rest)
}

/**
 * `dry-run sync` and `reconcile-once`'s document: the pass's SyncResult with each item's verdict.
 * A pass that recorded its facts (collectFacts) is judged from them, over its own store; another
 * (reconcile-once against a cluster, whose store held the writes) by a pass of its own over `world`,
 * the objects as read.
 */
export async function syncDocument(
  world: World,
  pass: {result: SyncResult; store?: MemoryStore},
  selection: Selection,
  options: JudgeOptions,
): Promise<SyncDocument> {
  const {result, store} = pass
  const judged =
    store && result.items.every((r) => r.facts !== undefined)
      ? new Map(
          result.items.map((r) => [itemKey(r.deployment), rolloutStateOf(world, store, r, options).verdict]),
        )
      : await judgeWorld(world, selection, options)
  const items = result.items.map((r) => {
    const verdict = judged.get(itemKey(r.deployment))
    if (verdict === undefined) throw new Error(`no verdict for deployment ${itemKey(r.deployment)}`)
    return syncItem(r, verdict)
  })
  return {...result, items}
}

export interface JudgeOptions {
  now: number
  gates: FeatureGates & {values: Record<string, boolean>}
  events?: KubeEvent[]
  /** Files: judge what the input lacks (IncompleteInput); a cluster's objects are what there is. */
  checkInput?: boolean
}

/**
 * The verdict of each selected Deployment of `world`, by `namespace/name`, from a pass of its own
 * (in memory, facts recorded): for commands whose pass did not record facts, or wrote elsewhere
 * (reconcile-once against a cluster judges the world it read).
 */
export async function judgeWorld(
  world: World,
  selection: Selection,
  options: JudgeOptions,
): Promise<Map<string, Verdict>> {
  const pass = await runPasses(world, selection, {now: options.now, gates: options.gates, collectFacts: true})
  const verdicts = new Map<string, Verdict>()
  for (const r of pass.result.items) {
    const state = rolloutStateOf(world, pass.store, r, options)
    verdicts.set(itemKey(r.deployment), state.verdict)
  }
  return verdicts
}

export function itemKey(ref: DeploymentRef): string {
  return `${ref.namespace}/${ref.name}`
}
