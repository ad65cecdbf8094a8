// `explain`: why a Deployment is where it is, what blocks it and what the controller does next.
// Files or a live cluster are read as for `dry-run sync`; the analysis (src/explain) runs the same
// pass with the tracer on, given the World and, from a cluster, its recent Events.

import type {World} from '../cluster/world.js'
import type {ExplainResult} from '../explain/types.js'
import type {ObjectRef} from '../pass/selection.js'
import type {KubeEvent} from '../status/types.js'
import {type PassFlags, PassOptions} from './pass-options.js'

export type ExplainFlags = PassFlags

/** The width text output wraps to: the terminal's, else COLUMNS, else 100. */
export function outputWidth(io: {stdoutIsTTY: boolean; env: NodeJS.ProcessEnv}, columns?: number): number {
  if (io.stdoutIsTTY && columns !== undefined && columns > 0) return columns
  const env = Number.parseInt(io.env.COLUMNS ?? '', 10)
  if (Number.isFinite(env) && env > 0) return env
  return 100
}

export class ExplainOptions extends PassOptions {
  protected override acceptsRefs = true
  /** Blockers are read from pods: a live read lists them for every Deployment. */
  protected override livePods: 'always' | 'never' | 'recreate-only' = 'always'
  /** The terminal's width when stdout is one (process.stdout.columns). */
  columns: number | undefined

  /**
   * Recent events for the analysis: from a live cluster, the namespace's (or every namespace's)
   * Events; from files, the Events they hold (`kubectl get events -o yaml` in a snapshot). Events
   * that cannot be listed (RBAC) leave the explanation without them rather than failing it.
   */
  async events(world: World): Promise<KubeEvent[] | undefined> {
    if (!this.live) return world.events && world.events.length > 0 ? world.events : undefined
    const {listAll} = await import('../cluster/live/read.js')
    const namespace = this.selection.allNamespaces ? undefined : this.selection.namespace
    try {
      const {items} = await listAll(this.live.api, 'events', namespace)
      return items as unknown as KubeEvent[]
    } catch (err) {
      this.io.err(`Warning: cannot list events: ${err instanceof Error ? err.message : String(err)}\n`)
      return undefined
    }
  }

  /**
   * The Deployments that control the ReplicaSets and pods named on the command line (rs/NAME,
   * pod/NAME): they join the selection, and their explanations start from those objects.
   */
  async resolveRefs(world: World): Promise<Map<string, ObjectRef[]>> {
    const starts = new Map<string, ObjectRef[]>()
    const others = this.refs.filter((r) => r.kind !== 'Deployment')
    if (others.length === 0) return starts
    const {owningDeployment} = await import('../pass/selection.js')
    const {DEFAULT_NAMESPACE} = await import('../cluster/memory.js')
    const namespace = this.selection.namespace || DEFAULT_NAMESPACE
    const names = [...(this.selection.names ?? [])]
    for (const ref of others) {
      const name = owningDeployment(world, namespace, ref)
      if (!names.includes(name)) names.push(name)
      const key = `${namespace}/${name}`
      starts.set(key, [...(starts.get(key) ?? []), ref])
    }
    this.selection = {...this.selection, names}
    return starts
  }

  async explain(world: World): Promise<ExplainResult> {
    const {explainWorld} = await import('../explain/index.js')
    const starts = await this.resolveRefs(world)
    const {result} = await explainWorld(world, this.selection, {
      starts,
      now: this.now,
      gates: this.gates,
      events: await this.events(world),
      eventsFrom: this.isLive ? 'cluster' : 'files',
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
