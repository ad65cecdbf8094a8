// What the commands that run a pass share: PassInput, the input a command's options hold as a field
// (made from the command's own flag group objects), and the clock flags completed. complete() turns
// flags into values, validateOptions() checks them, then load() and pass() do the work. Heavy
// modules (the loader, the controller) are imported inside those steps, never at the top.

import type {ApiClient} from '../cluster/live/api.js'
import type {Connection, ConnectionFlags} from '../cluster/live/kubeconfig.js'
import type {PodsToRead} from '../cluster/live/read.js'
import type {MemoryStore} from '../cluster/memory.js'
import type {World} from '../cluster/world.js'
import type {Deployment} from '../controller/api/types.js'
import type {ParsedFeatureGates} from '../controller/features.js'
import type {KubeMinor} from '../controller/version.js'
import {NotFoundError, UsageError} from '../errors.js'
import type {DeploymentResult, SyncResult} from '../pass/result.js'
import type {PassOutcome} from '../pass/run.js'
import type {DeploymentKey, ObjectRef, Selection} from '../pass/selection.js'
import type {InputGap} from '../status/gaps.js'
import type {SyncDocument} from '../status/item.js'
import {parseDuration, parseRFC3339} from '../util/duration.js'
import {escapeControl} from '../util/terminal.js'
import type {IO} from './base-command.js'
import {
  ConfigOptions,
  FileNameOptions,
  type SelectionFlagValues,
  SelectionOptions,
  type ValidateMode,
} from './flag-groups.js'
import {Progress, progressWanted, withProgress} from './progress.js'
import type {TimelineFlagValues} from './timeline-flags.js'
import {TimelineOptions} from './timeline-options.js'

/**
 * A file this large takes about a second to read: its progress line is shown before parsing starts.
 * (A 24 MB file of kubectl-style YAML took 2.7 s of CPU for dry-run sync on the development machine.)
 */
const SLOW_FILE_BYTES = 8 * 1024 * 1024

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`
}

export type {InputFlagValues, OutputFlagValues, SelectionFlagValues, ValidateMode} from './flag-groups.js'

import type {InputFlagValues, OutputFlagValues} from './flag-groups.js'

export interface ClockFlagValues {
  now?: string
  'feature-gates'?: string
  'kube-version'?: string
}

/** --exit-code (flags.ts exitCodeFlag), on the commands that take it. */
export interface ExitCodeFlagValues {
  'exit-code'?: boolean
}

export type PassFlags = InputFlagValues &
  SelectionFlagValues &
  ClockFlagValues &
  ConnectionFlags &
  OutputFlagValues &
  ExitCodeFlagValues &
  TimelineFlagValues & {v?: number}

/** A connection to a live cluster, kept for commands that write (reconcile-once). */
export interface LiveSession {
  api: ApiClient
  connection: Connection
}

/**
 * What a command's pass input differs in, given when it is made (not overridden by subclasses):
 * whether its arguments may name ReplicaSets and pods, which pods a live read lists, whether the
 * loader keeps objects as written.
 */
export interface PassSpec {
  /** explain: arguments may name a ReplicaSet or pod to start from (rs/NAME, pod/NAME). */
  acceptsRefs?: boolean
  /** Which pods a live read lists (default: only for Recreate Deployments, which the pass needs). */
  livePods?: PodsToRead
  /** Keep each loaded object as written (World.raw): what the files said, before defaults. */
  keepRaw?: boolean
  /** Named Deployments missing from the input are an error (plan reports them itself: false). */
  namesSelectFromWorld?: boolean
}

/** The flag groups a pass input reads from: the command's own objects, shared, not copies. */
export interface PassGroups {
  fileNames: FileNameOptions
  selectionFlags: SelectionOptions
  configFlags: ConfigOptions
  timeline: TimelineOptions
}

/**
 * The input of a pass, shared by the commands that run one (explain, plan, dry-run sync,
 * reconcile-once, rollout watch): the files (-f) or the cluster (the connection flags), the
 * Deployments selected (-n, -A, -l, NAMEs), the clock and the Kubernetes minor acted as. A command's
 * options hold one as a field, made from the same flag group objects the command holds, as a
 * kubectl command's options hold FilenameOptions and ConfigFlags and build a resource.Builder from
 * them in Complete (upstream: resource.Builder, genericclioptions). complete() fills it from the
 * flags, validateOptions() checks it, load() reads the World and pass() runs the controller on it.
 */
export class PassInput {
  // The flag groups (flag-groups.ts), each completed and validated by itself.
  readonly fileNames: FileNameOptions
  readonly selectionFlags: SelectionOptions
  readonly configFlags: ConfigOptions
  /** --at, and the moment of a timeline input. */
  readonly timeline: TimelineOptions

  get files(): string[] {
    return this.fileNames.files
  }
  get recursive(): boolean {
    return this.fileNames.recursive
  }
  get validate(): ValidateMode {
    return this.fileNames.validate
  }
  get selection(): Selection {
    return this.selectionFlags.selection
  }
  set selection(s: Selection) {
    this.selectionFlags.selection = s
  }
  get connectionFlags(): ConnectionFlags {
    return this.configFlags.connectionFlags
  }
  set connectionFlags(c: ConnectionFlags) {
    this.configFlags.connectionFlags = c
  }

  now = 0
  /** --now as written (undefined: the current time). */
  clock: Clock | undefined
  gates!: ParsedFeatureGates
  /** The Kubernetes minor acted as: --kube-version, else with -f the newest, live the server's. */
  kubeVersion!: KubeVersionChoice
  verbosity = 0
  /** Set by load() in live mode (no -f). */
  live: LiveSession | undefined
  /** Which pods a live read lists. */
  readonly livePods: PodsToRead
  private readonly acceptsRefs: boolean
  private readonly keepRaw: boolean
  private readonly namesSelectFromWorld: boolean
  /** The objects named on the command line, when the command accepts more than Deployments. */
  refs: ObjectRef[] = []

  constructor(
    readonly io: IO,
    groups: Partial<PassGroups> = {},
    private readonly spec: PassSpec = {},
  ) {
    this.fileNames = groups.fileNames ?? new FileNameOptions()
    this.selectionFlags = groups.selectionFlags ?? new SelectionOptions()
    this.configFlags = groups.configFlags ?? new ConfigOptions()
    this.timeline = groups.timeline ?? new TimelineOptions()
    this.livePods = spec.livePods ?? 'recreate-only'
    this.acceptsRefs = spec.acceptsRefs ?? false
    this.keepRaw = spec.keepRaw ?? false
    this.namesSelectFromWorld = spec.namesSelectFromWorld ?? true
  }

  /** Completes its groups and the clock, as kubectl's Complete() fills an options struct from its flag sets. */
  async complete(flags: PassFlags, args: readonly string[]): Promise<void> {
    this.fileNames.complete(flags)
    await this.selectionFlags.complete(flags, this.acceptsRefs ? [] : args)
    if (this.acceptsRefs) {
      const {parseRefs} = await import('../pass/selection.js')
      this.refs = parseRefs(args)
      this.selection.names = this.refs.filter((r) => r.kind === 'Deployment').map((r) => r.name)
    }
    Object.assign(this, await completeClock(flags))
    if (this.kubeVersion.warning) this.io.err(`${this.kubeVersion.warning}\n`)
    await this.timeline.complete(flags)
    if (this.clock?.kind === 'relative' && this.isLive)
      this.noteClock('the current time', this.now - this.clock.offsetMs)
    await this.configFlags.complete(flags)
    this.verbosity = flags.v ?? 0
  }

  async validateOptions(): Promise<void> {
    await this.selectionFlags.validate(this.io)
    if (this.refs.length > 0 && (this.selection.names ?? []).length === 0) {
      // A pod or ReplicaSet is named in one namespace, as a Deployment is.
      const {validateSelection} = await import('../pass/selection.js')
      validateSelection({...this.selection, names: this.refs.map((r) => r.name)})
    }
  }

  /**
   * The same input read from another context (explain --summary over several): its own connection
   * and selection groups, the other groups and the completed clock shared.
   */
  forContext(context: string): PassInput {
    const configFlags = Object.assign(new ConfigOptions(), this.configFlags, {
      connectionFlags: {...this.connectionFlags, context},
    })
    const selectionFlags = Object.assign(new SelectionOptions(), this.selectionFlags, {
      selection: {...this.selection},
    })
    const one = new PassInput(
      this.io,
      {fileNames: this.fileNames, selectionFlags, configFlags, timeline: this.timeline},
      this.spec,
    )
    one.now = this.now
    one.clock = this.clock
    one.gates = this.gates
    one.kubeVersion = this.kubeVersion
    one.verbosity = this.verbosity
    one.refs = this.refs
    return one
  }

  get isLive(): boolean {
    return this.files.length === 0
  }

  private defaultFileNamespace: string | undefined

  /**
   * The namespace of objects in files that name none: -n, else the kubeconfig context's when there is
   * a kubeconfig, else `default` (read once, and only when asked). upstream: kubectl get -f
   * (resource.Builder DefaultNamespace with the ConfigFlags' namespace).
   */
  async fileNamespace(): Promise<string> {
    return (await this.fileNamespaceReader())()
  }

  /** fileNamespace() as a synchronous call, for the loader (which asks only when an object names none). */
  private async fileNamespaceReader(): Promise<() => string> {
    const {contextNamespace} = await import('../cluster/live/kubeconfig-files.js')
    return () => {
      this.defaultFileNamespace ??=
        this.selection.namespace ?? contextNamespace(this.connectionFlags) ?? 'default'
      return this.defaultFileNamespace
    }
  }

  async load(): Promise<World> {
    const world = this.isLive ? await this.loadLive() : await this.loadFiles()
    this.now = this.timeline.apply(world.timeline, this.clock, this.now, (line) => this.io.err(`${line}\n`))
    if (world.timeline) {
      this.selection.namespace ??= this.timeline.recordedNamespace()
      await this.actAsRecordedVersion(world.timeline.timeline.header?.serverVersion)
    } else if (!this.isLive) {
      // kubectl get -f: without -n, each object in its own namespace, not only the default one's.
      if (!this.selectionFlags.namespaceGiven && !this.selection.allNamespaces)
        this.selection = {...this.selection, inputNamespaces: true}
      if (this.clock?.kind === 'relative') await this.anchorClock(world, this.clock)
    }
    await this.checkNames(world)
    return world
  }

  /** --now +10m with files: from the snapshot's newest timestamp (the current time when it has none). */
  private async anchorClock(world: World, clock: Extract<Clock, {kind: 'relative'}>): Promise<void> {
    const [{newestTimestamp}, {SYNTHETIC_CREATION_TIMESTAMP}] = await Promise.all([
      import('../cluster/world.js'),
      import('../cluster/load/index.js'),
    ])
    let newest = newestTimestamp(world)
    // Objects without a creationTimestamp get a fixed synthetic one when loaded: that is no time
    // the files carry, and --now +10m on a hand-written file is ten minutes from now.
    if (newest === Date.parse(SYNTHETIC_CREATION_TIMESTAMP)) newest = undefined
    const anchor = newest === undefined ? wholeSeconds(Date.now()) : wholeSeconds(newest)
    this.now = anchor + clock.offsetMs
    this.noteClock(
      newest === undefined
        ? 'the current time (the files carry no timestamp)'
        : "the snapshot's newest timestamp",
      anchor,
    )
  }

  /** Says on stderr what a relative --now resolved to, and from what. */
  private noteClock(from: string, anchor: number): void {
    if (this.clock?.kind !== 'relative') return
    const at = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')
    const by = this.clock.text.replace(/^[+-]/, '')
    const side = this.clock.offsetMs < 0 ? 'before' : 'after'
    this.io.err(`note: --now ${this.clock.text} is ${at(this.now)}, ${by} ${side} ${from} (${at(anchor)})\n`)
  }

  private async loadFiles(): Promise<World> {
    const {loadWorld} = await import('../cluster/load/index.js')
    const defaultNamespace = await this.fileNamespaceReader()
    const kept = await gatedFieldsKept(this.gates)
    const progress = this.progress()
    return withProgress(progress, () =>
      loadWorld(this.files, {
        recursive: this.recursive,
        validate: this.validate,
        apiServer: {
          minor: this.gates.kubeVersion,
          enabled: kept,
          knownFieldsOnly: this.kubeVersion.fromFlag,
        },
        ...(this.keepRaw ? {keepRaw: true} : {}),
        defaultNamespace,
        ...(this.timeline.at ? {at: this.timeline.at} : {}),
        // The loader's lines carry their own `warning:` / `note:` prefix.
        warn: (line: string) => progress.print(() => this.io.err(`${line}\n`)),
        onFile: (name, bytes) => {
          progress.set(`reading ${escapeControl(name)}${bytes === undefined ? '' : ` (${megabytes(bytes)})`}`)
          // Parsing blocks the event loop, so the line could not appear on time: shown before.
          if ((bytes ?? 0) >= SLOW_FILE_BYTES) progress.showNow()
        },
      }),
    )
  }

  /**
   * A progress line on stderr when it is a terminal (cli/progress.ts); not with -v, whose log lines
   * go to stderr meanwhile.
   */
  progress(): Progress {
    const terminal = this.io.stderrTerminal ?? {}
    const stream = {...terminal, write: terminal.write ?? ((text: string) => this.io.err(text))}
    return new Progress(stream, progressWanted(stream, this.io.env) && this.verbosity === 0)
  }

  /**
   * Deployments outside the selected namespace, named `name` when given: from the files, or from
   * one list across the cluster's namespaces (nothing when that is not allowed).
   */
  async deploymentsElsewhere(world: World | undefined, name?: string): Promise<DeploymentKey[]> {
    const {namespaceOf} = await import('../cluster/memory.js')
    if (!this.isLive) {
      return (world?.deployments ?? [])
        .filter((d) => name === undefined || d.metadata.name === name)
        .map((d) => ({namespace: namespaceOf(d), name: d.metadata.name ?? ''}))
    }
    if (!this.live) return []
    const {collectionPath} = await import('../cluster/live/read.js')
    try {
      const page = await this.live.api.request<{items?: Deployment[]}>({
        method: 'GET',
        path: collectionPath('deployments', undefined),
        query: {limit: 500, ...(name !== undefined ? {fieldSelector: `metadata.name=${name}`} : {})},
      })
      return (page.items ?? []).map((d) => ({namespace: namespaceOf(d), name: d.metadata.name ?? ''}))
    } catch {
      return []
    }
  }

  /** Where else a Deployment or Deployments are, as a hint (undefined: nowhere). */
  async namespaceHint(world: World | undefined, name?: string): Promise<string | undefined> {
    if (this.selection.allNamespaces || this.selection.inputNamespaces) return undefined
    const {namespaceHint} = await import('../pass/selection.js')
    const found = await this.deploymentsElsewhere(world, name)
    return namespaceHint(this.selection, found, this.isLive ? 'cluster' : 'files', name)
  }

  /** The named Deployments that were not found, when others were (kubectl get's partial answer). */
  private notFound: Error[] = []

  /** Whether NAME arguments select from the loaded world (not so for plan, whose are in PROPOSED). */

  /**
   * Named Deployments that are missing: kubectl's NotFound (the server's, from a cluster), with
   * where else they are as a hint on the next line. When every name is missing, that is the error;
   * when only some are, the others are processed and the missing ones are errors after the output
   * (partialErrors), as `kubectl get deploy a b` does.
   */
  private async checkNames(world: World): Promise<void> {
    const names = this.selection.names ?? []
    if (names.length === 0) return
    const {namespaceOf, DEFAULT_NAMESPACE} = await import('../cluster/memory.js')
    const namespace = this.selection.namespace || DEFAULT_NAMESPACE
    const all = this.selection.allNamespaces === true || this.selection.inputNamespaces === true
    const present = new Set(
      world.deployments.filter((d) => all || namespaceOf(d) === namespace).map((d) => d.metadata.name),
    )
    const missing = names.filter((n) => !present.has(n))
    if (missing.length === 0) return
    const sentence = (hint: string) => `${hint[0]?.toUpperCase()}${hint.slice(1)}.`
    if (!this.namesSelectFromWorld) {
      // The names are found elsewhere (plan: in PROPOSED); one that is in another namespace of the
      // world is still worth the hint.
      for (const name of all ? [] : missing) {
        const hint = await this.namespaceHint(world, name)
        if (hint !== undefined)
          throw new NotFoundError(`deployments.apps "${name}" not found`, this.isLive, sentence(hint))
      }
      return
    }
    const errors: NotFoundError[] = []
    for (const name of missing) {
      const hint = all ? undefined : await this.namespaceHint(world, name)
      errors.push(
        new NotFoundError(
          `deployments.apps "${name}" not found`,
          this.isLive,
          hint === undefined ? undefined : sentence(hint),
        ),
      )
    }
    if (missing.length === names.length && errors[0]) throw errors[0]
    this.notFound = errors
    this.selection = {...this.selection, names: names.filter((n) => present.has(n))}
  }

  /** Errors to print after the output: the named Deployments that were not found. */
  partialErrors(): ReadonlyArray<string | Error> {
    return this.notFound
  }

  /** Connects to the cluster of the connection flags (requests logged at -v 6). */
  async connectLive(): Promise<LiveSession> {
    const {connect} = await import('../cluster/live/kubeconfig.js')
    const {ApiClient} = await import('../cluster/live/api.js')
    const connection = await connect(this.connectionFlags, (line) => this.io.err(`${line}\n`))
    const verbose = this.verbosity >= 6 ? (line: string) => this.io.err(`I ${line}\n`) : undefined
    this.live = {api: new ApiClient(connection, verbose), connection}
    await this.actAsServerVersion(this.live.api)
    return this.live
  }

  /** Acts as the server's minor (its /version), unless --kube-version chose one. */
  async actAsServerVersion(api: ApiClient): Promise<void> {
    if (this.kubeVersion.fromFlag) return
    this.kubeVersion = await serverKubeVersion(api, this.kubeVersion)
    if (this.kubeVersion.warning) this.io.err(`${this.kubeVersion.warning}\n`)
    this.gates = await gatesOfMinor(this.gates, this.kubeVersion.minor)
  }

  /**
   * The gates one of several contexts acts with: its server's minor (its /version), unless
   * --kube-version chose one; this input's own version and gates stay as they are.
   */
  async gatesForServer(api: ApiClient, context: string): Promise<PassInput['gates']> {
    if (this.kubeVersion.fromFlag) return this.gates
    const version = await serverKubeVersion(api, this.kubeVersion)
    if (version.warning) {
      this.io.err(
        `${version.warning.replace(/^warning: /, `warning: context "${escapeControl(context)}": `)}\n`,
      )
    }
    return gatesOfMinor(this.gates, version.minor)
  }

  /**
   * A recording that names its server's version (rollout record's header, `serverVersion`) is
   * replayed, explained and synced as that minor, as a live command acts as the server's /version;
   * --kube-version still chooses. (The objects were already read: a recording holds what the server
   * stored, and no gate is on in the newest minor and off in an older one, so the newest minor's
   * drops, used while reading, remove nothing such a server kept.)
   */
  private async actAsRecordedVersion(serverVersion: string | undefined): Promise<void> {
    if (this.kubeVersion.fromFlag || serverVersion === undefined) return
    const {resolveKubeVersion} = await import('../controller/version.js')
    let r: {minor: KubeMinor; warning?: string}
    try {
      r = resolveKubeVersion(serverVersion, `the recording's serverVersion (${serverVersion})`)
    } catch {
      this.io.err(
        `warning: the recording's serverVersion ${JSON.stringify(serverVersion)} is not a Kubernetes version; acting as Kubernetes 1.${this.kubeVersion.minor} (--kube-version to choose)\n`,
      )
      return
    }
    this.kubeVersion = {
      minor: r.minor,
      from: `the recording's serverVersion ${serverVersion}`,
      fromFlag: false,
      warning: r.warning,
    }
    if (r.warning) this.io.err(`${r.warning}\n`)
    if (r.minor !== this.gates.kubeVersion) {
      const {parseFeatureGates} = await import('../controller/features.js')
      this.gates = parseFeatureGates(this.gates.spec, r.minor)
    }
  }

  /** Reads the cluster: one list per kind for the namespace (or for all of them with -A). */
  async loadLive(): Promise<World> {
    const {readWorld} = await import('../cluster/live/read.js')
    const {api, connection} = await this.connectLive()
    if (!this.selection.allNamespaces) this.selection = {...this.selection, namespace: connection.namespace}
    const progress = this.progress()
    progress.set(
      `listing the cluster's Deployments, ReplicaSets and Pods ${this.selection.allNamespaces ? 'in all namespaces' : `in namespace ${escapeControl(connection.namespace)}`}`,
    )
    return withProgress(progress, () =>
      readWorld(api, {
        namespace: this.selection.allNamespaces ? undefined : connection.namespace,
        pods: this.livePods,
      }),
    )
  }

  /**
   * One pass over the selected Deployments. `collectFacts`: for a document (-o json|yaml|...),
   * whose items carry the Deployment's verdict, judged from the pass's own facts.
   */
  async pass(world: World, collectFacts = false): Promise<PassOutcome> {
    const {runPasses} = await import('../pass/run.js')
    const outcome = await runPasses(world, this.selection, {now: this.now, gates: this.gates, collectFacts})
    if (outcome.result.items.length === 0) this.io.err(`${await this.nothingSelected(world)}\n`)
    if (!this.isLive) await this.checkInput(outcome)
    return outcome
  }

  /**
   * The SyncResult a command prints for -o json|yaml|name|jsonpath: each item with its Deployment's
   * verdict (status/item.ts), the same document on files and live.
   */
  async syncDocument(world: World, pass: {result: SyncResult; store?: MemoryStore}): Promise<SyncDocument> {
    const {syncDocument} = await import('../status/item.js')
    return syncDocument(world, pass, this.selection, {
      now: this.now,
      gates: this.gates,
      events: !this.isLive && world.events && world.events.length > 0 ? world.events : undefined,
      checkInput: !this.isLive,
    })
  }

  /** What the input lacks around the passed Deployments (a partial snapshot); set by pass() on files. */
  inputGaps: InputGap[] = []

  /** Warns, one line per Deployment, when the files lack what its status refers to. */
  async checkInput(outcome: PassOutcome): Promise<void> {
    const {gapWarning, storeGaps} = await import('../status/gaps.js')
    for (const r of outcome.result.items) {
      const gaps = storeGaps(outcome.store, r.deployment.namespace, r.deployment.name)
      // Pods matter to a pass only under Recreate (it waits for old pods); ReplicaSets always.
      const d = outcome.store.initial('deployments', r.deployment.namespace, r.deployment.name) as
        | Deployment
        | undefined
      const relevant = gaps.filter(
        (g) => g.code === 'MissingReplicaSets' || d?.spec.strategy?.type === 'Recreate',
      )
      for (const g of relevant) this.io.err(`${gapWarning(g)}\n`)
      this.inputGaps.push(...relevant)
    }
  }

  /**
   * The exit code of a pass that applies or would apply writes (`dry-run sync`, `reconcile-once`).
   * Without --exit-code: 1 when a sync failed (it returned an error, or the server refused a write;
   * said on stderr or in the output), else 0. With it, kubectl diff's convention: 2 when a sync
   * failed, when nothing was selected but there are Deployments in other namespaces (a typo must
   * not pass a gate as "nothing changes"), or when the files lack what a status refers to (warned
   * on stderr: the answer is about the objects given, not the cluster); else 1 when a pass wrote,
   * or would write, something, 0 when none did. Errors thrown before (a named Deployment that is
   * missing) exit 2 by BaseCommand's floor.
   */
  async passExitCode(items: readonly DeploymentResult[], exitCode: boolean): Promise<number> {
    const {passFailed, passWrote} = await import('../pass/result.js')
    const failed = items.some(passFailed)
    if (!exitCode) return failed ? 1 : 0
    if (failed || this.wrongNamespace || this.inputGaps.length > 0) return 2
    return items.some(passWrote) ? 1 : 0
  }

  /** Set by nothingSelected(): nothing was selected, but there are Deployments in other namespaces. */
  wrongNamespace = false

  /** kubectl's "No resources found", with a hint when the files or the cluster hold Deployments elsewhere. */
  async nothingSelected(world: World): Promise<string> {
    const {noResourcesMessage} = await import('../pass/selection.js')
    if (this.selection.inputNamespaces) {
      // Files without -n: the input's namespaces, or, when it holds no Deployment, the default one.
      return world.deployments.length > 0
        ? noResourcesMessage({allNamespaces: true})
        : noResourcesMessage({namespace: await this.fileNamespace()})
    }
    const message = noResourcesMessage(this.selection)
    if (this.selection.labelSelector) return message
    const hint = await this.namespaceHint(world)
    if (hint === undefined) return message
    this.wrongNamespace = true
    return `${message}\n${hint[0]?.toUpperCase()}${hint.slice(1)}.`
  }
}

// --- the clock group, completed ----------------------------------------------------------------

export async function completeClock(flags: ClockFlagValues): Promise<{
  now: number
  clock: Clock | undefined
  gates: ParsedFeatureGates
  kubeVersion: KubeVersionChoice
}> {
  const clock = flags.now === undefined ? undefined : parseClock(flags.now)
  const kubeVersion = await completeKubeVersion(flags['kube-version'])
  const {parseFeatureGates} = await import('../controller/features.js')
  return {
    now: clock?.kind === 'absolute' ? clock.ms : wholeSeconds(Date.now() + (clock?.offsetMs ?? 0)),
    clock,
    gates: parseFeatureGates(flags['feature-gates'], kubeVersion.minor),
    kubeVersion,
  }
}

/** The minor a command acts as, and where it came from (said by the commands that print it). */
export interface KubeVersionChoice {
  minor: KubeMinor
  /** "--kube-version 1.35", "the server's /version v1.35.2", "the newest supported" */
  from: string
  /** true: from --kube-version (a live command then does not ask the server) */
  fromFlag: boolean
  warning?: string
}

/** --kube-version, or the newest supported minor until a live command asks the server. */
export async function completeKubeVersion(flag: string | undefined): Promise<KubeVersionChoice> {
  const {NEWEST_MINOR, resolveKubeVersion} = await import('../controller/version.js')
  if (flag === undefined) return {minor: NEWEST_MINOR, from: 'the newest supported', fromFlag: false}
  const r = resolveKubeVersion(flag, '--kube-version')
  return {minor: r.minor, from: `--kube-version ${flag.trim()}`, fromFlag: true, warning: r.warning}
}

/**
 * The server's minor from its /version (kubectl version's request), unless --kube-version chose
 * one. A server that does not answer leaves the newest supported, with a warning.
 */
export async function serverKubeVersion(
  api: {request<T>(r: {method: 'GET'; path: string}): Promise<T>},
  choice: KubeVersionChoice,
): Promise<KubeVersionChoice> {
  if (choice.fromFlag) return choice
  const {resolveKubeVersion} = await import('../controller/version.js')
  let gitVersion: string
  try {
    const info = await api.request<{gitVersion?: unknown}>({method: 'GET', path: '/version'})
    if (typeof info?.gitVersion !== 'string') throw new Error('no gitVersion in the answer')
    gitVersion = info.gitVersion
  } catch (err) {
    // Only a server that answers without a version is worked around (403, 404, 5xx); anything
    // else (no server, bad credentials or TLS material) fails the command as its next request would.
    const {StatusError} = await import('../controller/api/errors.js')
    if (!(err instanceof StatusError) || err.code === 401) throw err
    return {
      ...choice,
      warning: `warning: could not read the server's /version (${err instanceof Error ? err.message : String(err)}); acting as Kubernetes 1.${choice.minor}, the newest supported (--kube-version to choose)`,
    }
  }
  const r = resolveKubeVersion(gitVersion, `the server's /version (${gitVersion})`)
  return {minor: r.minor, from: `the server's /version ${gitVersion}`, fromFlag: false, warning: r.warning}
}

/** The gates as the flags set them, on top of another minor's defaults (the same when it is theirs). */
async function gatesOfMinor(gates: ParsedFeatureGates, minor: KubeMinor): Promise<ParsedFeatureGates> {
  if (minor === gates.kubeVersion) return gates
  const {parseFeatureGates} = await import('../controller/features.js')
  return parseFeatureGates(gates.spec, minor)
}

const wholeSeconds = (ms: number) => Math.floor(ms / 1000) * 1000

/** --now: RFC 3339; default the current time, in whole seconds as metav1.Time keeps it. */
export function parseNow(text: string | undefined): number {
  if (text === undefined) return wholeSeconds(Date.now())
  const clock = parseClock(text)
  return clock.kind === 'absolute' ? clock.ms : wholeSeconds(Date.now() + clock.offsetMs)
}

export type Clock = {kind: 'absolute'; ms: number} | {kind: 'relative'; offsetMs: number; text: string}

/**
 * --now as written: an RFC 3339 time, or a signed duration (`+10m`, `-1h30m`) relative to the
 * current time (a cluster) or to the snapshot's newest timestamp (files).
 */
export function parseClock(text: string): Clock {
  const m = /^\s*([+-])([0-9.].*)$/.exec(text)
  if (m) {
    const ms = parseDuration(`${m[2]}`)
    if (ms !== undefined) return {kind: 'relative', offsetMs: m[1] === '-' ? -ms : ms, text: text.trim()}
  }
  const ms = parseRFC3339(text)
  if (ms === undefined) {
    throw new UsageError(
      `invalid --now "${text}": want an RFC 3339 time such as 2026-11-29T10:05:00Z, or a duration relative to the current time (or, with -f, to the snapshot's newest timestamp) such as +10m or -1h`,
    )
  }
  return {kind: 'absolute', ms}
}

/** The loader's question "does the API server keep this gate's fields?" (controller/features.ts). */
export async function gatedFieldsKept(gates: ParsedFeatureGates): Promise<(gate: string) => boolean> {
  const {explicitGates, keepsGatedFields} = await import('../controller/features.js')
  const explicit = explicitGates(gates.spec)
  // Asked for every gate of every object loaded: answered once per gate (a search of the feature
  // table each time: 3-10 ms of a 1,000-Deployment dry-run).
  const known = new Map<string, boolean>()
  return (gate) => {
    let kept = known.get(gate)
    if (kept === undefined) {
      kept = keepsGatedFields(gates, gate, explicit)
      known.set(gate, kept)
    }
    return kept
  }
}
