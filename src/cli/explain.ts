// `explain`: why a Deployment is where it is, what blocks it and what the controller does next.
// Files or a live cluster are read as for `dry-run sync`; the analysis (src/explain) runs the same
// pass with the tracer on, given the World and, from a cluster, its recent Events.

import type {World} from '../cluster/world.js'
import type {ExplainResult} from '../explain/types.js'
import type {KubeEvent} from '../status/types.js'
import {escapeControl} from '../util/terminal.js'
import {type PassFlags, PassOptions, terminalWidth} from './pass-options.js'

export type ExplainFlags = PassFlags

/** The width text output wraps to: the terminal's, else COLUMNS, else 100. */
export function outputWidth(io: {stdoutIsTTY: boolean; env: NodeJS.ProcessEnv}, columns?: number): number {
  return terminalWidth(io, columns) ?? 100
}

export class ExplainOptions extends PassOptions {
  /** Blockers are read from pods: a live read lists them for every Deployment. */
  protected override livePods: 'always' | 'never' | 'recreate-only' = 'always'
  /** The terminal's width when stdout is one (process.stdout.columns). */
  columns: number | undefined

  /**
   * Recent events for the analysis: from a live cluster, the namespace's (or every namespace's)
   * Events; none from files (the loader keeps Deployments, ReplicaSets and Pods). Events that cannot
   * be listed (RBAC) leave the explanation without them rather than failing it.
   */
  async events(): Promise<KubeEvent[] | undefined> {
    if (!this.live) return undefined
    const {listAll} = await import('../cluster/live/read.js')
    const namespace = this.selection.allNamespaces ? undefined : this.selection.namespace
    try {
      const {items} = await listAll(this.live.api, 'events', namespace)
      return items as unknown as KubeEvent[]
    } catch (err) {
      this.io.err(
        `Warning: cannot list events: ${escapeControl(err instanceof Error ? err.message : String(err))}\n`,
      )
      return undefined
    }
  }

  async explain(world: World): Promise<ExplainResult> {
    const {explainWorld} = await import('../explain/index.js')
    const {result} = await explainWorld(world, this.selection, {
      now: this.now,
      gates: this.gates,
      events: await this.events(),
      checkInput: !this.isLive,
    })
    return result
  }

  /** Prints the explanations; returns the exit code (0: explaining a stuck rollout is a success). */
  async run(): Promise<number> {
    const world = await this.load()
    const result = await this.explain(world)
    if (result.items.length === 0) this.io.err(`${await this.nothingSelected(world)}\n`)
    const {renderExplainResult} = await import('../render/explain.js')
    await this.print(result, (options) =>
      renderExplainResult(result, {...options, width: outputWidth(this.io, this.columns)}),
    )
    return 0
  }
}
