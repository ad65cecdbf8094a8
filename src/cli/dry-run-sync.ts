// `dry-run sync`: one controller pass on files; prints what it would do and writes nothing.

import {PassOptions} from './pass-options.js'

export class DryRunSyncOptions extends PassOptions {
  /**
   * Returns the exit code (passExitCode). Without --exit-code: 0, or 1 when a sync ended in an
   * error. With it (as `kubectl diff`): 0 when no Deployment would change, 1 when some would, 2 when
   * a sync failed, the input is incomplete or the namespace holds none while others do.
   */
  async run(): Promise<number> {
    const world = await this.load()
    const outcome = await this.pass(world)
    const {result, store} = outcome
    const {isStructured} = await import('../render/output.js')
    const doc = isStructured(this.output) ? await this.syncDocument(world, outcome) : result
    const {renderSyncResult} = await import('../render/sync-result.js')
    await this.print(doc, (options) =>
      renderSyncResult(result, {
        ...options,
        before: (resource, namespace, name) => store.initial(resource, namespace, name),
      }),
    )
    return this.passExitCode(result.items)
  }
}
