// `plan`: what applying PROPOSED (-f) would do to each Deployment's rollout. The current world is
// read from --current files or, without them, from the cluster (read-only); the proposed objects
// are defaulted by the loader offline, or by the API server's dry-run apply live.

import type {World} from '../cluster/world.js'
import type {Deployment} from '../controller/api/types.js'
import {InputError, UsageError} from '../errors.js'
import type {ApplyMode, ClusterContext, PlanResult, Proposal} from '../plan/index.js'
import type {CommandOptions, IO} from './base-command.js'
import {outputWidth} from './explain.js'
import {ConfigOptions, FileNameOptions, PrintOptions, SelectionOptions} from './flag-groups.js'
import {type PassFlags, PassInput} from './pass-options.js'
import {TimelineOptions} from './timeline-options.js'

export type PlanFlags = PassFlags & {
  current?: string[]
  apply?: string
  'field-manager'?: string
  'force-conflicts'?: boolean
  'pod-ready-after'?: string
}

/** kubectl apply's field managers: client-side (the default) and `--server-side`. */
export const DEFAULT_FIELD_MANAGER = 'kubectl-client-side-apply'
export const SERVER_SIDE_FIELD_MANAGER = 'kubectl'
export const APPLY_MODES = ['client', 'server', 'replace'] as const

/**
 * Two file groups: -f PROPOSED, and --current, the files the pass input reads the current world
 * from (without them, the cluster of the connection flags).
 */
export class PlanOptions implements CommandOptions<PlanFlags> {
  readonly configFlags = new ConfigOptions()
  /** -f PROPOSED: the files about to be applied. */
  readonly proposed = new FileNameOptions()
  /** --current: the current world's files (the pass input's file group). */
  readonly current = new FileNameOptions()
  readonly selectionFlags = new SelectionOptions()
  readonly printFlags = new PrintOptions()
  readonly timeline = new TimelineOptions()
  /** The current world (--current files or the cluster), the selection and the clock. */
  readonly input: PassInput
  /** --exit-code: 1 when something would roll out. */
  exitCode = false

  constructor(private readonly io: IO) {
    // Names missing from the files are reported by plan itself (what would be created).
    this.input = new PassInput(
      io,
      {
        fileNames: this.current,
        selectionFlags: this.selectionFlags,
        configFlags: this.configFlags,
        timeline: this.timeline,
      },
      {livePods: 'always', namesSelectFromWorld: false},
    )
  }

  get proposedFiles(): string[] {
    return this.proposed.files
  }
  fieldManager = DEFAULT_FIELD_MANAGER
  apply: ApplyMode = 'client'
  forceConflicts = false
  nowGiven = false
  readyAfter: number | undefined
  columns: number | undefined

  async complete(flags: PlanFlags, args: readonly string[]): Promise<void> {
    // -f is PROPOSED here; the pass input's files are the current world (--current).
    await this.input.complete({...flags, filename: flags.current, 'all-namespaces': false}, args)
    this.printFlags.complete(flags)
    this.exitCode = flags['exit-code'] === true
    this.proposed.complete(flags)
    const mode = flags.apply ?? 'client'
    if (!(APPLY_MODES as readonly string[]).includes(mode)) {
      throw new UsageError(
        `invalid --apply "${mode}": want client (kubectl apply), server (kubectl apply --server-side) or replace (kubectl replace)`,
      )
    }
    this.apply = mode as ApplyMode
    this.forceConflicts = flags['force-conflicts'] === true
    this.fieldManager =
      flags['field-manager'] ?? (this.apply === 'server' ? SERVER_SIDE_FIELD_MANAGER : DEFAULT_FIELD_MANAGER)
    this.nowGiven = flags.now !== undefined
    if (flags['pod-ready-after'] !== undefined) {
      const {parseDuration} = await import('../util/duration.js')
      const ms = parseDuration(flags['pod-ready-after'])
      if (ms === undefined || ms < 0) {
        throw new UsageError(
          `invalid --pod-ready-after "${flags['pod-ready-after']}": want a duration such as 10s, 1m30s or 500ms`,
        )
      }
      this.readyAfter = ms
    }
  }

  async validateOptions(): Promise<void> {
    if (this.proposedFiles.length === 0) {
      throw new UsageError('-f PROPOSED is required: the files you are about to apply (- for stdin)')
    }
    if (this.proposedFiles.includes('-') && this.current.files.includes('-')) {
      throw new UsageError('-f and --current cannot both read standard input (-)')
    }
    if (this.fieldManager === '') throw new UsageError('--field-manager must not be empty')
    if (this.forceConflicts && this.apply !== 'server') {
      throw new UsageError('--force-conflicts only applies with --apply=server')
    }
    await this.input.validateOptions()
  }

  partialErrors(): ReadonlyArray<string | Error> {
    return this.input.partialErrors()
  }

  /** The namespace of objects that name none: -n, else the kubeconfig context's, else default. */
  private async defaultNamespace(): Promise<string> {
    const input = this.input
    return input.selection.namespace || input.live?.connection.namespace || (await input.fileNamespace())
  }

  /** The Deployments of PROPOSED (those named, when names are given), with how they were written. */
  async proposals(): Promise<Proposal[]> {
    const {loadWorld} = await import('../cluster/load/index.js')
    const {gatedFieldsKept} = await import('./pass-options.js')
    const {gates, kubeVersion} = this.input
    const proposed = await loadWorld(this.proposedFiles, {
      recursive: this.proposed.recursive,
      validate: this.proposed.validate,
      keepRaw: true,
      apiServer: {
        minor: gates.kubeVersion,
        enabled: await gatedFieldsKept(gates),
        knownFieldsOnly: kubeVersion.fromFlag,
      },
      warn: (line: string) => this.io.err(`${line}\n`),
    })
    const namespace = await this.defaultNamespace()
    const all = proposed.deployments.map((d): Proposal => {
      const raw = proposed.raw?.get(d)
      const rawMeta = (raw as {metadata?: {namespace?: unknown}} | undefined)?.metadata
      if (rawMeta?.namespace === undefined || rawMeta.namespace === '') d.metadata.namespace = namespace
      return {deployment: d, raw}
    })
    if (all.length === 0) {
      throw new InputError(
        `no Deployment in ${this.proposedFiles.join(', ')}: plan reads the Deployments you are about to apply`,
      )
    }
    const names = this.input.selection.names ?? []
    if (names.length === 0) return all
    return names.map((n) => {
      const p = all.find((x) => x.deployment.metadata.name === n)
      if (!p) throw new InputError(`deployments.apps "${n}" not found in ${this.proposedFiles.join(', ')}`)
      return p
    })
  }

  /** Live: the proposed objects as the API server would store them (a dry run of the apply). */
  async dryRunApply(proposals: Proposal[]): Promise<Proposal[]> {
    const live = this.input.live
    if (!live) return proposals
    const {dryRunApply} = await import('../cluster/live/apply.js')
    const out: Proposal[] = []
    for (const p of proposals) {
      const stored = (await dryRunApply(live.api, p.raw ?? p.deployment, {
        namespace: p.deployment.metadata.namespace ?? (await this.defaultNamespace()),
        name: p.deployment.metadata.name ?? '',
        fieldManager: this.fieldManager,
        force: this.forceConflicts,
        mode: this.apply,
      })) as Deployment
      out.push({deployment: stored, raw: p.raw, stored: true})
    }
    return out
  }

  /**
   * Live: the world of the proposals' namespaces (Deployments, ReplicaSets, Pods), and their
   * autoscalers and quotas; files carry none of those (the loader keeps workloads only).
   */
  private async readLive(namespaces: string[]): Promise<{world: World; cluster: ClusterContext}> {
    const {listAll, readWorld} = await import('../cluster/live/read.js')
    const {emptyWorld} = await import('../cluster/world.js')
    const api = this.input.live!.api
    const world = emptyWorld()
    const cluster: ClusterContext & {autoscalers: unknown[]; quotas: unknown[]} = {
      autoscalers: [],
      quotas: [],
    }
    const list = async (resource: 'horizontalpodautoscalers' | 'resourcequotas', namespace: string) => {
      try {
        return (await listAll(api, resource, namespace)).items
      } catch (err) {
        this.io.err(`Warning: cannot list ${resource}: ${err instanceof Error ? err.message : String(err)}\n`)
        return []
      }
    }
    for (const namespace of namespaces) {
      const w = await readWorld(api, {namespace, pods: 'always'})
      world.deployments.push(...w.deployments)
      world.replicaSets.push(...w.replicaSets)
      world.pods.push(...w.pods)
      cluster.autoscalers.push(...(await list('horizontalpodautoscalers', namespace)))
      cluster.quotas.push(...(await list('resourcequotas', namespace)))
    }
    // The surge fit: the nodes, and every pod bound to them (read-only; without the right to list
    // nodes the fit is left out, and the plan says so).
    try {
      cluster.nodes = (await listAll(api, 'nodes', undefined)).items
      if (cluster.nodes.length > 0) cluster.pods = (await listAll(api, 'pods', undefined)).items
    } catch (err) {
      cluster.nodes = []
      cluster.nodesNote = `cannot list nodes or pods cluster-wide (${err instanceof Error ? err.message : String(err)}): the surge fit is not checked (docs/plan.md names the RBAC it needs)`
    }
    return {world, cluster: cluster as ClusterContext}
  }

  async plan(): Promise<PlanResult> {
    const {planAll} = await import('../plan/index.js')
    let world: World
    let cluster: ClusterContext | undefined
    let proposals: Proposal[]
    const input = this.input
    if (input.isLive) {
      await input.connectLive()
      proposals = await this.proposals()
      const namespaces = [
        ...new Set(proposals.map((p) => p.deployment.metadata.namespace ?? 'default')),
      ].sort()
      ;({world, cluster} = await this.readLive(namespaces))
      proposals = await this.dryRunApply(proposals)
    } else {
      world = await input.load()
      proposals = await this.proposals()
      // HorizontalPodAutoscalers and ResourceQuotas the files carry, as a cluster's.
      cluster = {autoscalers: world.autoscalers ?? [], quotas: world.quotas ?? [], nodes: world.nodes ?? []}
    }
    return planAll(world, proposals, {
      now: input.now,
      nowGiven: this.nowGiven || input.isLive || this.timeline.moment !== undefined,
      apply: this.apply,
      serverSide: {fieldManager: this.fieldManager, force: this.forceConflicts},
      gates: input.gates,
      ...(this.readyAfter !== undefined ? {readyAfter: this.readyAfter} : {}),
      ...(cluster ? {cluster} : {}),
    })
  }

  /** 0; with --exit-code (as kubectl diff): 0 nothing would roll out, 1 something would. */
  async run(): Promise<number> {
    const result = await this.plan()
    const {renderPlanResult} = await import('../render/plan.js')
    await this.printFlags.print(this.io, result, (options) =>
      renderPlanResult(result, {...options, width: outputWidth(this.io, this.columns)}),
    )
    if (!this.exitCode) return 0
    return result.items.some((i) => i.rollout) ? 1 : 0
  }
}
