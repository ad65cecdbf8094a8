// `explain`: why a Deployment is where it is, what blocks it and what the controller does next.
// Files or a live cluster are read as for `dry-run sync`; the analysis (src/explain) runs the same
// pass with the tracer on, given the World and, from a cluster, its recent Events.

import type {ClusterObject, World} from '../cluster/world.js'
import {UsageError} from '../errors.js'
import type {FailOn} from '../explain/summary.js'
import type {ExplainResult} from '../explain/types.js'
import type {ObjectRef} from '../pass/selection.js'
import type {KubeEvent} from '../status/types.js'
import {escapeControl} from '../util/terminal.js'
import type {CommandOptions, IO} from './base-command.js'
import {
  ConfigOptions,
  ContextsOptions,
  FileNameOptions,
  PrintOptions,
  SelectionOptions,
  terminalWidth,
} from './flag-groups.js'
import {type PassFlags, PassInput} from './pass-options.js'
import {TimelineOptions} from './timeline-options.js'

export type ExplainFlags = Omit<PassFlags, 'context'> & {
  summary?: boolean
  'fail-on'?: string
  'timeline-summary'?: boolean
  /** Repeated: several clusters (--summary); one is PassFlags' context. */
  context?: string | string[]
  'all-contexts'?: boolean
}

/** The width text output wraps to: the terminal's, else COLUMNS, else 100. */
export function outputWidth(io: {stdoutIsTTY: boolean; env: NodeJS.ProcessEnv}, columns?: number): number {
  return terminalWidth(io, columns) ?? 100
}

/** dry-run sync's groups and pass input, with the contexts group beside the connection's. */
export class ExplainOptions implements CommandOptions<ExplainFlags> {
  readonly configFlags = new ConfigOptions()
  /** --context repeated, --all-contexts: one summary per cluster. */
  readonly contextsFlags = new ContextsOptions()
  readonly fileNames = new FileNameOptions()
  readonly selectionFlags = new SelectionOptions()
  readonly printFlags = new PrintOptions()
  readonly timeline = new TimelineOptions()
  /** The files or the cluster, the selection and the clock, read from the groups above. */
  readonly input: PassInput

  constructor(private readonly io: IO) {
    // rs/NAME and pod/NAME start from that object; blockers are read from pods, so a live read
    // lists them for every Deployment.
    this.input = new PassInput(io, this, {acceptsRefs: true, livePods: 'always'})
  }

  /** The terminal's width when stdout is one (process.stdout.columns). */
  columns: number | undefined

  /**
   * Recent events for the analysis: from a live cluster, the namespace's (or every namespace's)
   * Events; from files, the Events they hold (`kubectl get events -o yaml` in a snapshot). Events
   * that cannot be listed (RBAC) leave the explanation without them rather than failing it.
   */
  async events(world: World, input = this.input): Promise<KubeEvent[] | undefined> {
    if (!input.live) return world.events && world.events.length > 0 ? world.events : undefined
    return this.listLive<KubeEvent>(input, 'events')
  }

  /** The selected namespace's (or every namespace's) objects of a kind; a refused list warns and gives none. */
  private async listLive<T>(
    input: PassInput,
    resource: 'events' | 'horizontalpodautoscalers',
  ): Promise<T[] | undefined> {
    if (!input.live) return undefined
    const {listAll} = await import('../cluster/live/read.js')
    const namespace = input.selection.allNamespaces ? undefined : input.selection.namespace
    try {
      const {items} = await listAll(input.live.api, resource, namespace)
      return items as unknown as T[]
    } catch (err) {
      this.io.err(
        `Warning: cannot list ${resource}: ${escapeControl(err instanceof Error ? err.message : String(err))}\n`,
      )
      return undefined
    }
  }

  /**
   * The HorizontalPodAutoscalers for the analysis: from files, those they hold; live, listed in the
   * namespace (or every namespace) only when there is a Deployment to explain. An autoscaler list
   * that fails (RBAC, no autoscaling/v2) leaves the explanation without it.
   */
  async autoscalers(world: World): Promise<ClusterObject[] | undefined> {
    if (!this.input.live) return world.autoscalers
    if (world.deployments.length === 0) return undefined
    return this.listLive<ClusterObject>(this.input, 'horizontalpodautoscalers')
  }

  /**
   * The Deployments that control the ReplicaSets and pods named on the command line (rs/NAME,
   * pod/NAME): they join the selection, and their explanations start from those objects.
   */
  async resolveRefs(world: World): Promise<Map<string, ObjectRef[]>> {
    const starts = new Map<string, ObjectRef[]>()
    const input = this.input
    const others = input.refs.filter((r) => r.kind !== 'Deployment')
    if (others.length === 0) return starts
    const {namespacesHolding, owningDeployment} = await import('../pass/selection.js')
    const {DEFAULT_NAMESPACE} = await import('../cluster/memory.js')
    const names = [...(input.selection.names ?? [])]
    for (const ref of others) {
      // Files without -n: the namespace of the input that holds the object (the default one if none
      // or several do, so that the error names it).
      const holding = input.selection.inputNamespaces ? namespacesHolding(world, ref) : []
      const namespace =
        holding.length === 1
          ? (holding[0] ?? DEFAULT_NAMESPACE)
          : input.selection.namespace || DEFAULT_NAMESPACE
      const name = owningDeployment(world, namespace, ref)
      if (!names.includes(name)) names.push(name)
      const key = `${namespace}/${name}`
      starts.set(key, [...(starts.get(key) ?? []), ref])
    }
    input.selection = {...input.selection, names}
    return starts
  }

  async explain(world: World): Promise<ExplainResult> {
    const {explainWorld} = await import('../explain/index.js')
    const starts = await this.resolveRefs(world)
    const input = this.input
    const {result} = await explainWorld(world, input.selection, {
      starts,
      now: input.now,
      gates: input.gates,
      events: await this.events(world),
      eventsFrom: input.isLive ? 'cluster' : 'files',
      checkInput: !input.isLive,
      autoscalers: await this.autoscalers(world),
    })
    return result
  }

  /** --summary: one row per Deployment. */
  summary = false
  /** --timeline-summary: each rollout of a recording. */
  timelineSummary = false
  /** --fail-on: exit 1 when a Deployment is in one of these states. */
  failOn: FailOn[] = []

  /** --context repeated or --all-contexts: the contexts to cover, one summary each (empty: one cluster). */
  get contexts(): string[] {
    return this.contextsFlags.contexts
  }

  async complete(flags: ExplainFlags, args: readonly string[]): Promise<void> {
    await this.contextsFlags.complete(flags)
    await this.input.complete({...flags, context: this.contextsFlags.first}, args)
    this.printFlags.complete(flags)
    this.summary = flags.summary === true
    this.timelineSummary = flags['timeline-summary'] === true
    if (this.summary && this.timelineSummary) {
      throw new UsageError(
        '--summary and --timeline-summary cannot be combined: one is a row per Deployment now, the other each rollout of a recording',
      )
    }
    if (flags['fail-on'] !== undefined) {
      const {FAIL_ON} = await import('../explain/summary.js')
      const given = flags['fail-on']
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== '')
      const bad = given.filter((x) => !(FAIL_ON as readonly string[]).includes(x))
      if (given.length === 0 || bad.length > 0) {
        throw new UsageError(
          `invalid --fail-on "${flags['fail-on']}": want a comma-separated list of ${FAIL_ON.join(', ')}`,
        )
      }
      this.failOn = [...new Set(given)] as FailOn[]
    }
  }

  async validateOptions(): Promise<void> {
    await this.input.validateOptions()
    await this.contextsFlags.validate(this.fileNames)
    if (this.contexts.length > 0 && !this.summary) {
      throw new UsageError('several contexts are summarized: add --summary (or give one --context)')
    }
  }

  /**
   * Prints the explanations (or with --summary one row each); returns the exit code: 0, explaining
   * a stuck rollout being a success, unless --fail-on names a state some Deployment is in (1), or
   * nothing was selected while other namespaces hold Deployments (1).
   */
  async run(): Promise<number> {
    if (this.contexts.length > 0) return this.runContexts()
    const world = await this.input.load()
    if (this.summary) return this.runSummary(world)
    if (this.timelineSummary) return this.runTimelineSummary(world)
    const result = await this.explain(world)
    if (result.items.length === 0) this.io.err(`${await this.input.nothingSelected(world)}\n`)
    const {renderExplainResult} = await import('../render/explain.js')
    await this.printFlags.print(this.io, result, (options) =>
      renderExplainResult(result, {...options, width: outputWidth(this.io, this.columns)}),
    )
    const {failOnStates} = await import('../explain/summary.js')
    return this.gate(
      result.items.map((e) => ({deployment: e.deployment, matches: failOnStates(e.verdict, e.progress)})),
    )
  }

  /** --timeline-summary: each rollout the recording holds of the selected Deployments. */
  private async runTimelineSummary(world: World): Promise<number> {
    const moment = world.timeline
    if (!moment) {
      throw new UsageError(
        `--timeline-summary reads a recording, and ${this.input.isLive ? 'the cluster' : this.fileNames.files.join(', ')} is not one: give -f FILE written by rollout record (or kubectl get -w --output-watch-events -o json)`,
      )
    }
    const [{selectDeployments}, {summarizeTimeline}, {envelope}] = await Promise.all([
      import('../pass/selection.js'),
      import('../watch/timeline-summary.js'),
      import('../pass/result.js'),
    ])
    const {selection, gates} = this.input
    const keys = selectDeployments(world, selection)
    const items = await summarizeTimeline({timeline: moment.timeline, gates, deployments: keys})
    const doc = envelope('TimelineSummary', moment.timeline.end, gates, items)
    if (keys.length === 0) this.io.err(`${await this.input.nothingSelected(world)}\n`)
    else if (items.length === 0)
      this.io.err(
        `the recording holds no rollout of ${keys.map((k) => `${k.namespace}/${k.name}`).join(', ')}\n`,
      )
    const {renderTimelineSummary} = await import('../render/timeline-summary.js')
    await this.printFlags.print(this.io, doc, async () => renderTimelineSummary(items))
    return 0
  }

  /** One summary row per Deployment of `input` (this command's, or one context's). */
  private async summarize(world: World, input = this.input) {
    const {summarizeWorld} = await import('../explain/summary.js')
    return summarizeWorld(world, input.selection, {
      now: input.now,
      gates: input.gates,
      events: await this.events(world, input),
      eventsFrom: input.isLive ? 'cluster' : 'files',
      checkInput: !input.isLive,
    })
  }

  /** Several contexts: the contexts that could not be read, as errors after the output. */
  private contextErrors: string[] = []

  partialErrors(): ReadonlyArray<string | Error> {
    return [...this.input.partialErrors(), ...this.contextErrors]
  }

  /**
   * --summary over several contexts, read at once: the rows of each, tagged with its context, in the
   * order the contexts were given. A context that cannot be read (unreachable, refused, unknown) is
   * an error after the output (exit 1), and the other contexts' rows stand.
   */
  private async runContexts(): Promise<number> {
    const {summarizeContexts} = await import('../explain/summary.js')
    const results = await Promise.all(
      this.contexts.map(async (context) => {
        // The same input read from that context: its own connection and selection groups.
        const one = this.input.forContext(context)
        try {
          const world = await one.load()
          const summary = await this.summarize(world, one)
          return {context, items: summary.items, errors: [...one.partialErrors()]}
        } catch (err) {
          return {context, items: [], errors: [err instanceof Error ? err.message : String(err)]}
        }
      }),
    )
    const summary = summarizeContexts(results, {now: this.input.now, gates: this.input.gates})
    this.contextErrors = results.flatMap((r) => r.errors.map((e) => `context "${r.context}": ${e}`))
    const {renderSummary} = await import('../render/explain-summary.js')
    await this.printFlags.print(this.io, summary, (options) => renderSummary(summary, options))
    return this.gate(summary.items)
  }

  private async runSummary(world: World): Promise<number> {
    const summary = await this.summarize(world)
    if (summary.items.length === 0) this.io.err(`${await this.input.nothingSelected(world)}\n`)
    const {renderSummary} = await import('../render/explain-summary.js')
    await this.printFlags.print(this.io, summary, (options) => renderSummary(summary, options))
    return this.gate(summary.items)
  }

  /** --fail-on: 1 when any Deployment matches (named on stderr), or when the namespace was a mistake. */
  private gate(
    rows: Array<{deployment: {namespace: string; name: string}; matches: FailOn[]; context?: string}>,
  ): number {
    if (this.failOn.length === 0) return 0
    if (this.input.wrongNamespace) return 1
    const hit = rows.filter((r) => r.matches.some((m) => this.failOn.includes(m)))
    if (hit.length === 0) return 0
    const shown = hit
      .slice(0, 10)
      .map(
        (r) =>
          `${r.context ? `${r.context}:` : ''}${r.deployment.namespace}/${r.deployment.name} (${r.matches.filter((m) => this.failOn.includes(m)).join(', ')})`,
      )
    const more = hit.length - shown.length
    this.io.err(
      `--fail-on ${this.failOn.join(',')}: ${hit.length} of ${rows.length} ${rows.length === 1 ? 'Deployment matches' : 'Deployments match'}: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}\n`,
    )
    return 1
  }
}
