// `dry-run sync`: one controller pass on files; prints what it would do and writes nothing.

import {isWrite} from '../cluster/action.js'
import {type PassFlags, PassOptions} from './pass-options.js'

export type DryRunSyncFlags = PassFlags & {'exit-code': boolean}

export class DryRunSyncOptions extends PassOptions {
  exitCode = false

  override async complete(flags: DryRunSyncFlags, args: readonly string[]): Promise<void> {
    await super.complete(flags, args)
    this.exitCode = flags['exit-code']
  }

  /**
   * Returns the exit code. Without --exit-code: 0, or 1 when a sync ended in an error. With it (as
   * `kubectl diff`): 0 when no Deployment would change, 1 when some would, 2 when a sync failed or
   * the input lacks ReplicaSets (or, for Recreate, pods) that a Deployment's status refers to.
   */
  async run(): Promise<number> {
    const world = await this.load()
    const outcome = await this.pass(world)
    const {result, store} = outcome
    const {renderSyncResult} = await import('../render/sync-result.js')
    await this.print(result, (options) =>
      renderSyncResult(result, {
        ...options,
        before: (resource, namespace, name) => store.initial(resource, namespace, name),
      }),
    )
    const {passFailed} = await import('../pass/result.js')
    const failed = result.items.some(passFailed)
    if (!this.exitCode) return failed ? 1 : 0
    // Nothing selected while the input has Deployments elsewhere: a typo, not "nothing changes".
    if (failed || this.wrongNamespace) return 2
    // A partial snapshot: the answer is about the objects given, not the cluster (warned on stderr).
    if (this.inputGaps.length > 0) return 2
    return result.items.some((r) => r.actions.some(isWrite)) ? 1 : 0
  }
}
