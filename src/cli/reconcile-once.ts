// `reconcile-once`: one controller pass per Deployment, applied: on a live cluster the writes are made
// with optimistic concurrency; on files they are applied in memory. Both print the same SyncResult
// (what was done); on files its `objects` holds the world after the pass, to feed back (-f) for the
// next pass.

import type {Action} from '../cluster/action.js'
import type {World} from '../cluster/world.js'
import {UsageError} from '../errors.js'
import type {Stop} from '../pass/live.js'
import {type DeploymentResult, failedWrites} from '../pass/result.js'
import {escapeControl} from '../util/terminal.js'
import type {CommandOptions, IO} from './base-command.js'
import {ConfigOptions, FileNameOptions, PrintOptions, SelectionOptions} from './flag-groups.js'
import {type PassFlags, PassInput} from './pass-options.js'
import {TimelineOptions} from './timeline-options.js'

export type ReconcileOnceFlags = PassFlags & {
  'dry-run': string
  retries: number
  'concurrent-deployment-syncs'?: number
  'record-events': boolean
}

/** dry-run sync's groups and pass input, and the writes' own flags (--dry-run=server, --retries...). */
export class ReconcileOnceOptions implements CommandOptions<ReconcileOnceFlags> {
  readonly configFlags = new ConfigOptions()
  readonly fileNames = new FileNameOptions()
  readonly selectionFlags = new SelectionOptions()
  readonly printFlags = new PrintOptions()
  readonly timeline = new TimelineOptions()
  /** The files or the cluster, the selection and the clock, read from the groups above. */
  readonly input: PassInput
  /** --exit-code: kubectl diff's exit statuses (PassInput.passExitCode). */
  exitCode = false
  serverDryRun = false
  retries = 0
  concurrency = 5
  recordEvents = true

  constructor(private readonly io: IO) {
    this.input = new PassInput(io, this)
  }

  async complete(flags: ReconcileOnceFlags, args: readonly string[]): Promise<void> {
    await this.input.complete(flags, args)
    this.printFlags.complete(flags)
    this.exitCode = flags['exit-code'] === true
    this.serverDryRun = flags['dry-run'] === 'server'
    this.retries = flags.retries
    this.concurrency = flags['concurrent-deployment-syncs'] ?? 5
    this.recordEvents = flags['record-events']
  }

  async validateOptions(): Promise<void> {
    await this.input.validateOptions()
    if (!this.input.isLive && this.serverDryRun) {
      throw new UsageError('--dry-run=server needs a cluster; with -f nothing is written anyway')
    }
  }

  /**
   * Returns the exit code (passExitCode). Without --exit-code: 0 when every pass succeeded, 1
   * otherwise. With it (kubectl diff's convention, for a command that writes): 0 when the passes
   * wrote nothing, 1 when one wrote something (with --dry-run=server: would have; on files: the
   * objects printed differ from the input), 2 when a sync failed or a write was refused, the input
   * is incomplete or the namespace holds no Deployment while others do.
   */
  async run(): Promise<number> {
    const world = await this.input.load()
    return this.input.isLive ? this.runLive(world) : this.runFiles(world)
  }

  partialErrors(): ReadonlyArray<string | Error> {
    return this.input.partialErrors()
  }

  /**
   * Files: the pass applied to the objects in memory, printed as dry-run sync prints it (the same
   * SyncResult as against a cluster, without the writes' outcomes), with the objects after the pass
   * in the document's `objects` (a v1 List, to feed back with -f: -o jsonpath={.objects}).
   */
  private async runFiles(world: World): Promise<number> {
    const {isStructured} = await import('../render/output.js')
    const structured = isStructured(this.printFlags.output)
    const outcome = await this.input.pass(world, structured)
    const {result} = outcome
    const doc = structured
      ? {
          ...(await this.input.syncDocument(world, {result, store: outcome.store})),
          objects: {apiVersion: 'v1', kind: 'List', metadata: {resourceVersion: ''}, items: outcome.objects},
        }
      : result
    const {renderSyncResult} = await import('../render/sync-result.js')
    const store = outcome.store
    await this.printFlags.print(this.io, doc, (options) =>
      renderSyncResult(result, {
        ...options,
        before: (resource, namespace, name) => store.initial(resource, namespace, name),
      }),
    )
    this.reportErrors(result.items)
    return this.input.passExitCode(result.items, this.exitCode)
  }

  private async runLive(world: World): Promise<number> {
    const {isStructured} = await import('../render/output.js')
    const {runLivePasses} = await import('../pass/live.js')
    const input = this.input
    const live = input.live!
    const {result, stops, before} = await runLivePasses(world, input.selection, {
      api: live.api,
      now: input.now,
      gates: input.gates,
      serverDryRun: this.serverDryRun,
      retries: this.retries,
      concurrency: this.concurrency,
      recordEvents: this.recordEvents,
      pods: input.livePods,
      warn: (line) => this.io.err(`${escapeControl(line)}\n`),
    })
    if (result.items.length === 0) this.io.err(`${await input.nothingSelected(world)}\n`)
    // The verdicts judge the objects as read, before the writes (a pass of their own in memory).
    const doc = isStructured(this.printFlags.output) ? await input.syncDocument(world, {result}) : result
    const {renderSyncResult} = await import('../render/sync-result.js')
    await this.printFlags.print(this.io, doc, (options) =>
      renderSyncResult(result, {...options, before, serverDryRun: this.serverDryRun}),
    )
    this.reportErrors(result.items, stops)
    return input.passExitCode(result.items, this.exitCode)
  }

  /**
   * One line per failed pass on stderr, naming what was already written before the failure and
   * what the server did not confirm. A conflict is named as the cause even when the pass then
   * failed on something it led to (a ReplicaSet someone else created is not in the pass's read).
   */
  private reportErrors(results: DeploymentResult[], stops?: Map<DeploymentResult, Stop>): void {
    const list = (actions: Action[]) =>
      actions
        .map((a) => `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.name}`)
        .join(', ')
    for (const r of results) {
      if (r.error === null) {
        // The controller went on after a refused write (as upstream does): still a failure.
        const failed = failedWrites(r)
        if (failed.length === 0) continue
        const what = failed.map((a) => `${list([a])}: ${a.error ?? 'failed'}`).join('; ')
        this.io.err(
          `error: ${escapeControl(`sync of deployment ${r.deployment.namespace}/${r.deployment.name}: ${failed.length === 1 ? 'a write was' : 'writes were'} refused: ${what}`)}\n`,
        )
        continue
      }
      const stop = stops?.get(r)
      const reason =
        stop?.conflict !== undefined && stop.conflict !== r.error
          ? `${stop.conflict} (someone else wrote it during the pass)`
          : r.error
      let done = ''
      if (this.input.isLive) {
        const written = r.actions.filter((a) => a.outcome === 'succeeded' || a.outcome === undefined)
        const uncertain = stop?.uncertain ?? []
        const parts: string[] = []
        if (written.length > 0) parts.push(`already written: ${list(written)}`)
        if (uncertain.length > 0) parts.push(`not confirmed, may have been applied: ${list(uncertain)}`)
        if (parts.length === 0) parts.push('nothing was written')
        done = `; ${parts.join('; ')}`
      }
      this.io.err(
        `error: ${escapeControl(`sync of deployment ${r.deployment.namespace}/${r.deployment.name} failed: ${reason}${done}`)}\n`,
      )
    }
  }
}
