// The live pass: read → pass → apply, one Deployment at a time over a worker pool, as `reconcile-once`
// runs it against a cluster. Each pass writes through the live client with optimistic concurrency;
// a conflict (or a write whose outcome is unknown) stops that pass, and --retries reads the
// namespace again and runs it anew. The result is the same SyncResult the file pass produces, each
// action with its outcome.

import type {Action} from '../cluster/action.js'
import type {ApiClient} from '../cluster/live/api.js'
import {LiveClient} from '../cluster/live/client.js'
import {postEvents} from '../cluster/live/events.js'
import {type PodsToRead, readWorld} from '../cluster/live/read.js'
import {MemoryStore} from '../cluster/memory.js'
import type {World} from '../cluster/world.js'
import type {KubeObject} from '../controller/api/types.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {formatTime} from '../util/duration.js'
import {type DeploymentResult, envelope, type SyncResult} from './result.js'
import {syncOne} from './run.js'
import {type DeploymentKey, type Selection, selectDeployments} from './selection.js'

/** Why a live pass stopped writing, for the report. */
export interface Stop {
  /** The conflict with someone else's write, when the pass met one. */
  conflict?: string
  /** Writes the server did not confirm (timeout, reset, cut response): they may have been applied. */
  uncertain: Action[]
}

export interface LivePassOptions {
  api: ApiClient
  now: number
  gates: FeatureGates & {values: Record<string, boolean>}
  /** Send every write with dryRun=All. */
  serverDryRun: boolean
  /** Re-read and run a stopped pass again up to this many times. */
  retries: number
  /** upstream: --concurrent-deployment-syncs. */
  concurrency: number
  /** Post each pass's events on its Deployment. */
  recordEvents: boolean
  /** Which pods a re-read lists. */
  pods: PodsToRead
  /** A line for stderr (retries, events that could not be posted). */
  warn: (line: string) => void
}

export interface LivePassOutcome {
  result: SyncResult
  /** Why each stopped pass stopped. */
  stops: Map<DeploymentResult, Stop>
  /** An object as the first read saw it (what the CHANGE column compares with). */
  before: (resource: string, namespace: string, name: string) => KubeObject | undefined
}

/** Runs and applies one pass per selected Deployment of `world` (the first read of the cluster). */
export async function runLivePasses(
  world: World,
  selection: Selection,
  options: LivePassOptions,
): Promise<LivePassOutcome> {
  const keys = selectDeployments(world, selection)
  const results: DeploymentResult[] = new Array(keys.length)
  const stops = new Map<DeploymentResult, Stop>()
  const syncKey = async (key: DeploymentKey): Promise<DeploymentResult> => {
    let current = world
    let result: DeploymentResult | undefined
    // The writes of the attempts before the last: --retries reports every write it sent.
    const earlier: Action[] = []
    let attempts = 0
    let stop: Stop | undefined
    for (let attempt = 0; ; attempt++) {
      attempts = attempt + 1
      const store = new MemoryStore(current, {now: () => options.now})
      let client: LiveClient | undefined
      result = await syncOne(store, key, {
        now: options.now,
        gates: options.gates,
        makeClient: () => {
          client = new LiveClient(options.api, {serverDryRun: options.serverDryRun})
          return client
        },
      })
      for (const a of result.actions) a.attempt = attempt + 1
      stop = client ? {conflict: client.conflict?.message, uncertain: client.uncertain} : undefined
      const stopped = client?.stopped
      if (!stopped || attempt >= options.retries) break
      earlier.push(...result.actions)
      options.warn(
        `deployment ${key.namespace}/${key.name}: ${stopped.message}; re-reading and retrying (${attempt + 1}/${options.retries})`,
      )
      // Someone else changed an object, or a write's outcome is unknown: read the namespace
      // again and run the pass anew.
      current = await readWorld(options.api, {namespace: key.namespace, pods: options.pods})
    }
    if (options.retries > 0) result = {...result, actions: [...earlier, ...result.actions], attempts}
    if (stop) stops.set(result, stop)
    if (options.recordEvents && result.events.length > 0) {
      const d = current.deployments.find(
        (x) => x.metadata.namespace === key.namespace && x.metadata.name === key.name,
      )
      for (const problem of await postEvents(
        options.api,
        result.events,
        d,
        formatTime(options.now),
        options.serverDryRun,
      )) {
        options.warn(`warning: deployment ${key.namespace}/${key.name}: ${problem}`)
      }
    }
    return result
  }
  // upstream: the controller's worker pool (--concurrent-deployment-syncs). Each Deployment's
  // pass is independent; results keep the selection's order.
  let next = 0
  const worker = async () => {
    while (next < keys.length) {
      const i = next++
      results[i] = await syncKey(keys[i]!)
    }
  }
  await Promise.all(Array.from({length: Math.min(options.concurrency, keys.length)}, worker))
  return {
    result: envelope('SyncResult', options.now, options.gates, results),
    stops,
    before: (resource, namespace, name) => {
      const list =
        resource === 'deployments'
          ? world.deployments
          : resource === 'replicasets'
            ? world.replicaSets
            : world.pods
      return list.find((o) => o.metadata.namespace === namespace && o.metadata.name === name)
    },
  }
}
