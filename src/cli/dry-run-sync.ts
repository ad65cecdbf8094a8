// `dry-run sync`: one controller pass on files or the cluster; prints what it would do and writes
// nothing. Its options hold the flag groups and the pass input made of them (upstream: a kubectl
// command's options struct holding PrintFlags and FilenameOptions, with Complete/Validate/Run).

import type {CommandOptions, IO} from './base-command.js'
import {ConfigOptions, FileNameOptions, PrintOptions, SelectionOptions} from './flag-groups.js'
import {type PassFlags, PassInput} from './pass-options.js'
import {TimelineOptions} from './timeline-options.js'

export class DryRunSyncOptions implements CommandOptions<PassFlags> {
  readonly configFlags = new ConfigOptions()
  readonly fileNames = new FileNameOptions()
  readonly selectionFlags = new SelectionOptions()
  readonly printFlags = new PrintOptions()
  readonly timeline = new TimelineOptions()
  /** The files or the cluster, the selection and the clock, read from the groups above. */
  readonly input: PassInput
  /** --exit-code: kubectl diff's exit statuses (PassInput.passExitCode). */
  exitCode = false

  constructor(private readonly io: IO) {
    this.input = new PassInput(io, this)
  }

  async complete(flags: PassFlags, args: readonly string[]): Promise<void> {
    await this.input.complete(flags, args)
    this.printFlags.complete(flags)
    this.exitCode = flags['exit-code'] === true
  }

  validateOptions(): Promise<void> {
    return this.input.validateOptions()
  }

  /**
   * Returns the exit code (passExitCode). Without --exit-code: 0, or 1 when a sync ended in an
   * error. With it (as `kubectl diff`): 0 when no Deployment would change, 1 when some would, 2 when
   * a sync failed, the input is incomplete or the namespace holds none while others do.
   */
  async run(): Promise<number> {
    const world = await this.input.load()
    const {isStructured} = await import('../render/output.js')
    const structured = isStructured(this.printFlags.output)
    const outcome = await this.input.pass(world, structured)
    const {result, store} = outcome
    const doc = structured ? await this.input.syncDocument(world, outcome) : result
    const {renderSyncResult} = await import('../render/sync-result.js')
    await this.printFlags.print(this.io, doc, (options) =>
      renderSyncResult(result, {
        ...options,
        before: (resource, namespace, name) => store.initial(resource, namespace, name),
      }),
    )
    return this.input.passExitCode(result.items, this.exitCode)
  }

  partialErrors(): ReadonlyArray<string | Error> {
    return this.input.partialErrors()
  }
}
