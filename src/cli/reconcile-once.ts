// `reconcile-once`: one controller pass per Deployment, applied. On files it prints the world after
// the pass as a `kind: List` that can be fed back (-f -) for the next pass; on a live cluster it
// performs the writes with optimistic concurrency and reports what was done.

import type {Action} from '../cluster/action.js'
import type {World} from '../cluster/world.js'
import {UsageError} from '../errors.js'
import type {DeploymentResult, SyncResult} from '../pass/result.js'
import {type PassFlags, PassOptions} from './pass-options.js'

export const RECONCILE_OUTPUT_FORMATS = ['table', 'wide', 'yaml', 'json'] as const
export type ReconcileOutputFormat = (typeof RECONCILE_OUTPUT_FORMATS)[number]

export interface ReconcileOnceFlags extends PassFlags {
  output?: string
  'dry-run': string
  retries: number
  'concurrent-deployment-syncs'?: number
  'record-events': boolean
}

/** Live mode: why a pass stopped writing, for the report. */
interface Stop {
  /** The conflict with someone else's write, when the pass met one. */
  conflict?: string
  /** Writes the server did not confirm (timeout, reset, cut response): they may have been applied. */
  uncertain: Action[]
}

export class ReconcileOnceOptions extends PassOptions {
  output: ReconcileOutputFormat | undefined
  serverDryRun = false
  retries = 0
  concurrency = 5
  recordEvents = true

  override async complete(flags: ReconcileOnceFlags, args: readonly string[]): Promise<void> {
    await super.complete(flags, args)
    this.output = flags.output as ReconcileOutputFormat | undefined
    this.serverDryRun = flags['dry-run'] === 'server'
    this.retries = flags.retries
    this.concurrency = flags['concurrent-deployment-syncs'] ?? 5
    this.recordEvents = flags['record-events']
  }

  override async validateOptions(): Promise<void> {
    await super.validateOptions()
    if (!this.isLive && (this.output === 'table' || this.output === 'wide')) {
      throw new UsageError(
        'with -f, reconcile-once prints the objects after the pass: use -o yaml or -o json',
      )
    }
    if (!this.isLive && this.serverDryRun) {
      throw new UsageError('--dry-run=server needs a cluster; with -f nothing is written anyway')
    }
  }

  /** Returns the exit code: 0 when every pass succeeded, 1 otherwise. */
  async run(): Promise<number> {
    const world = await this.load()
    return this.isLive ? this.runLive(world) : this.runFiles(world)
  }

  private async runFiles(world: World): Promise<number> {
    const {result, objects} = await this.pass(world)
    const {renderDocument} = await import('../render/document.js')
    this.io.out(
      await renderDocument(
        {apiVersion: 'v1', kind: 'List', metadata: {resourceVersion: ''}, items: objects},
        this.output === 'json' ? 'json' : 'yaml',
      ),
    )
    return this.reportErrors(result.results)
  }

  private async runLive(world: World): Promise<number> {
    const {MemoryStore, rfc3339} = await import('../cluster/memory.js')
    const {LiveClient} = await import('../cluster/live/client.js')
    const {readWorld} = await import('../cluster/live/read.js')
    const {postEvents} = await import('../cluster/live/events.js')
    const {syncOne} = await import('../pass/run.js')
    const {selectDeployments} = await import('../pass/selection.js')
    const {KUBERNETES_VERSION} = await import('../controller/features.js')
    const live = this.live!
    const keys = selectDeployments(world, this.selection)
    if (keys.length === 0) {
      const {noResourcesMessage} = await import('../pass/selection.js')
      this.io.err(`${noResourcesMessage(this.selection)}\n`)
    }
    const results: DeploymentResult[] = new Array(keys.length)
    const stops = new Map<DeploymentResult, Stop>()
    const syncKey = async (key: (typeof keys)[number]): Promise<DeploymentResult> => {
      let current = world
      let result: DeploymentResult | undefined
      for (let attempt = 0; ; attempt++) {
        const store = new MemoryStore(current, {now: () => this.now})
        let client: InstanceType<typeof LiveClient> | undefined
        result = await syncOne(store, key, {
          now: this.now,
          gates: this.gates,
          makeClient: () => {
            client = new LiveClient(live.api, {serverDryRun: this.serverDryRun})
            return client
          },
        })
        if (client) stops.set(result, {conflict: client.conflict?.message, uncertain: client.uncertain})
        const stopped = client?.stopped
        if (!stopped || attempt >= this.retries) break
        this.io.err(
          `deployment ${key.namespace}/${key.name}: ${stopped.message}; re-reading and retrying (${attempt + 1}/${this.retries})\n`,
        )
        // Someone else changed an object, or a write's outcome is unknown: read the namespace
        // again and run the pass anew.
        current = await readWorld(live.api, {namespace: key.namespace, pods: this.livePods})
      }
      if (this.recordEvents && result.events.length > 0) {
        const d = current.deployments.find(
          (x) => x.metadata.namespace === key.namespace && x.metadata.name === key.name,
        )
        for (const problem of await postEvents(
          live.api,
          result.events,
          d,
          rfc3339(this.now),
          this.serverDryRun,
        )) {
          this.io.err(`warning: deployment ${key.namespace}/${key.name}: ${problem}\n`)
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
    await Promise.all(Array.from({length: Math.min(this.concurrency, keys.length)}, worker))
    const syncResult: SyncResult = {
      kind: 'SyncResult',
      apiVersion: 'deployctl.kubectl.io/v1alpha1',
      now: rfc3339(this.now),
      kubernetesVersion: KUBERNETES_VERSION,
      featureGates: {...this.gates.values},
      results,
    }
    const {renderSyncResult} = await import('../render/sync-result.js')
    const {wantColor} = await import('../render/style.js')
    if (results.length > 0 || this.output === 'json' || this.output === 'yaml') {
      this.io.out(
        await renderSyncResult(syncResult, {
          format: this.output ?? 'table',
          before: (resource, namespace, name) => {
            const list =
              resource === 'deployments'
                ? world.deployments
                : resource === 'replicasets'
                  ? world.replicaSets
                  : world.pods
            return list.find((o) => o.metadata.namespace === namespace && o.metadata.name === name)
          },
          color: wantColor({isTTY: this.io.stdoutIsTTY}, this.io.env),
        }),
      )
    }
    return this.reportErrors(results, stops)
  }

  /**
   * One line per failed pass on stderr, naming what was already written before the failure and
   * what the server did not confirm. A conflict is named as the cause even when the pass then
   * failed on something it led to (a ReplicaSet someone else created is not in the pass's read).
   */
  private reportErrors(results: DeploymentResult[], stops?: Map<DeploymentResult, Stop>): number {
    const list = (actions: Action[]) =>
      actions
        .map((a) => `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.name}`)
        .join(', ')
    let code = 0
    for (const r of results) {
      if (r.error === null) continue
      const stop = stops?.get(r)
      const reason =
        stop?.conflict !== undefined && stop.conflict !== r.error
          ? `${stop.conflict} (someone else wrote it during the pass)`
          : r.error
      let done = ''
      if (this.isLive) {
        const written = r.actions.filter((a) => a.outcome === 'succeeded' || a.outcome === undefined)
        const uncertain = stop?.uncertain ?? []
        const parts: string[] = []
        if (written.length > 0) parts.push(`already written: ${list(written)}`)
        if (uncertain.length > 0) parts.push(`not confirmed, may have been applied: ${list(uncertain)}`)
        if (parts.length === 0) parts.push('nothing was written')
        done = `; ${parts.join('; ')}`
      }
      this.io.err(
        `error: sync of deployment ${r.deployment.namespace}/${r.deployment.name} failed: ${reason}${done}\n`,
      )
      code = 1
    }
    return code
  }
}
