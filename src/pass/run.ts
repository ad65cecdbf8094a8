// The pass runner: one syncDeployment per selected Deployment over an in-memory store, with every
// write, event, requeue and decision recorded into a SyncResult.

import {type Action, isWrite} from '../cluster/action.js'
import {MemoryStore, RecordingClient} from '../cluster/memory.js'
import type {World} from '../cluster/world.js'
import {errorMessage, hasStatusCause, NamespaceTerminatingCause} from '../controller/api/errors.js'
import type {KubeObject} from '../controller/api/types.js'
import {syncDeployment} from '../controller/deployment-controller.js'
import type {Client, ControllerContext, FeatureGates} from '../controller/interfaces.js'
import {newControllerContext, type RequeueCall} from './context.js'
import {type DeploymentResult, envelope, type Requeue, type SyncResult} from './result.js'
import {type DeploymentKey, type Selection, selectDeployments} from './selection.js'

export interface PassOptions {
  /** The pass's clock, epoch milliseconds. */
  now: number
  /** From parseFeatureGates. */
  gates: FeatureGates & {values: Record<string, boolean>}
  /** Record the tracer's facts into each result (for `explain`). */
  collectFacts?: boolean
  /** Enforce resourceVersion preconditions in the store (live-mode experiments). */
  checkResourceVersion?: boolean
  /**
   * The client each pass writes through. Default: a RecordingClient over the in-memory store (files,
   * dry runs). Live reconcile-once passes a client that writes to the cluster.
   */
  makeClient?: (store: MemoryStore, key: DeploymentKey) => Client & {actions: Action[]}
  /** The sync of one Deployment. Default: the controller's syncDeployment (the runner's tests pass a stand-in). */
  sync?: (ctx: ControllerContext, namespace: string, name: string) => Promise<void>
}

export interface PassOutcome {
  result: SyncResult
  /** The world after the pass, in input order (see MemoryStore.objects). */
  world: World
  /** The same objects as one list: what `reconcile-once` prints. */
  objects: KubeObject[]
  /** The store, for the objects as they were before the pass (MemoryStore.initial). */
  store: MemoryStore
}

/** Runs one pass over the selected Deployments of `world`, sorted by namespace then name. */
export async function runPasses(
  world: World,
  selection: Selection,
  options: PassOptions,
): Promise<PassOutcome> {
  const keys = selectDeployments(world, selection)
  const store = new MemoryStore(world, {
    now: () => options.now,
    checkResourceVersion: options.checkResourceVersion,
  })
  const results: DeploymentResult[] = []
  for (const key of keys) results.push(await syncOne(store, key, options))
  // The world after the pass is only needed by reconcile-once: build it on first use.
  let after: {world: World; objects: KubeObject[]} | undefined
  return {
    result: envelope('SyncResult', options.now, options.gates, results),
    get world() {
      after ??= store.after()
      return after.world
    },
    get objects() {
      after ??= store.after()
      return after.objects
    },
    store,
  }
}

/** One syncDeployment over the shared store, with its own recording client, recorder and queue. */
export async function syncOne(
  store: MemoryStore,
  key: DeploymentKey,
  options: PassOptions,
): Promise<DeploymentResult> {
  const client = options.makeClient ? options.makeClient(store, key) : new RecordingClient(store)
  const {ctx, record} = newControllerContext({
    listers: store.listers,
    client,
    now: () => options.now,
    gates: options.gates,
    key,
    collectFacts: options.collectFacts,
  })
  let error: unknown
  let failed = false
  try {
    await (options.sync ?? syncDeployment)(ctx, key.namespace, key.name)
  } catch (err) {
    failed = true
    error = err
  }
  const requeue = requeueOf(record.requeues, failed, error)
  const result: DeploymentResult = {
    deployment: {namespace: key.namespace, name: key.name},
    path: record.path,
    actions: client.actions.filter(isWrite),
    events: record.events,
    requeueAfterSeconds: requeue === null ? null : requeue.kind === 'after' ? (requeue.seconds ?? 0) : 0,
    requeue,
    error: failed ? errorMessage(error) : null,
  }
  if (options.collectFacts) result.facts = record.facts
  return result
}

/**
 * What the work queue would do with the key: upstream's handleErr rate-limits it after an error
 * (forgets it when the namespace is terminating); otherwise the earliest of the sync's own requeue
 * calls wins, as in the delaying queue.
 */
function requeueOf(calls: RequeueCall[], failed: boolean, error: unknown): Requeue | null {
  if (failed) return hasStatusCause(error, NamespaceTerminatingCause) ? null : {kind: 'rateLimited'}
  if (calls.some((c) => c.kind === 'rateLimited')) return {kind: 'rateLimited'}
  const delays = calls.map((c) => c.seconds ?? 0)
  return delays.length === 0 ? null : {kind: 'after', seconds: Math.min(...delays)}
}
