// `reconcile-once`: one controller pass per Deployment, applied. On files it prints the world after
// the pass as a `kind: List` that can be fed back (-f -) for the next pass; on a live cluster it
// performs the writes with optimistic concurrency and reports what was done.

import type {World} from '../cluster/world.js'
import {UsageError} from '../cluster/world.js'
import type {DeploymentResult, SyncResult} from '../result.js'
import {type PassFlags, PassOptions} from './pass-options.js'

export const RECONCILE_OUTPUT_FORMATS = ['table', 'wide', 'yaml', 'json'] as const
export type ReconcileOutputFormat = (typeof RECONCILE_OUTPUT_FORMATS)[number]

export interface ReconcileOnceFlags extends PassFlags {
  output?: string
  'dry-run': string
  retries: number
  'record-events': boolean
}

export class ReconcileOnceOptions extends PassOptions {
  output: ReconcileOutputFormat | undefined
  serverDryRun = false
  retries = 0
  recordEvents = true

  override async complete(flags: ReconcileOnceFlags, args: readonly string[]): Promise<void> {
    await super.complete(flags, args)
    this.output = flags.output as ReconcileOutputFormat | undefined
    this.serverDryRun = flags['dry-run'] === 'server'
    this.retries = flags.retries
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
    const results: DeploymentResult[] = []
    for (const key of keys) {
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
        if (!client?.conflict || attempt >= this.retries) break
        this.io.err(
          `deployment ${key.namespace}/${key.name}: ${client.conflict.message}; re-reading and retrying (${attempt + 1}/${this.retries})\n`,
        )
        // Someone else changed an object: read the namespace again and run the pass anew.
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
      results.push(result)
    }
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
    return this.reportErrors(results)
  }

  /** One line per failed pass on stderr, naming what was already written before the failure. */
  private reportErrors(results: DeploymentResult[]): number {
    let code = 0
    for (const r of results) {
      if (r.error === null) continue
      const written = r.actions.filter((a) => a.outcome === 'succeeded' || a.outcome === undefined)
      const done =
        this.isLive && written.length > 0
          ? `; already written: ${written.map((a) => `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.name}`).join(', ')}`
          : this.isLive
            ? '; nothing was written'
            : ''
      this.io.err(
        `error: sync of deployment ${r.deployment.namespace}/${r.deployment.name} failed: ${r.error}${done}\n`,
      )
      code = 1
    }
    return code
  }
}
