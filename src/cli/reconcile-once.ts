// `reconcile-once`: the same pass as `dry-run sync`, printing the world after it as a `kind: List`
// that can be fed back (-f -) for the next pass.

import {type PassFlags, PassOptions} from './pass-options.js'

export const RECONCILE_OUTPUT_FORMATS = ['yaml', 'json'] as const
export type ReconcileOutputFormat = (typeof RECONCILE_OUTPUT_FORMATS)[number]

export interface ReconcileOnceFlags extends PassFlags {
  output: string
}

export class ReconcileOnceOptions extends PassOptions {
  output: ReconcileOutputFormat = 'yaml'

  override async complete(flags: ReconcileOnceFlags, args: readonly string[]): Promise<void> {
    await super.complete(flags, args)
    this.output = flags.output as ReconcileOutputFormat
  }

  /** Prints the List; returns 1 when a sync ended in an error (reported on stderr), else 0. */
  async run(): Promise<number> {
    const world = await this.load()
    const {result, objects} = await this.pass(world)
    const {renderDocument} = await import('../render/document.js')
    this.io.out(
      await renderDocument(
        {apiVersion: 'v1', kind: 'List', metadata: {resourceVersion: ''}, items: objects},
        this.output,
      ),
    )
    let code = 0
    for (const r of result.results) {
      if (r.error === null) continue
      this.io.err(
        `error: sync of deployment ${r.deployment.namespace}/${r.deployment.name} failed: ${r.error}\n`,
      )
      code = 1
    }
    return code
  }
}
