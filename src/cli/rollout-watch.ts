// `rollout watch`: follow a Deployment's rollout. On files, the rollout is simulated (src/sim) and
// shown as an ink view replayed at --speed on a terminal, one line per change otherwise, or NDJSON
// with -o json. Heavy modules (the loader, the controller, ink and React) load inside run().

import type {Connection} from '../cluster/live/kubeconfig.js'
import type {World} from '../cluster/world.js'
import type {IntOrString} from '../controller/api/types.js'
import {InputError, UsageError} from '../errors.js'
import type {FrameSource} from '../render/watch/replay.js'
import type {Simulation} from '../sim/simulator.js'
import type {GateOptions} from '../status/gate.js'
import type {WatchOutcome, WatchUpdate} from '../status/update.js'
import {escapeControl} from '../util/terminal.js'
import type {GateTargets} from '../watch/gate.js'
import type {LiveWatch} from '../watch/live.js'
import type {IO} from './base-command.js'
import {type PassFlags, PassOptions} from './pass-options.js'
import type {GateCluster} from './rollout-gate.js'

/** The pass flags (-A and -l are not offered: pass false and nothing) and the simulation's. */
export type RolloutWatchFlags = Omit<PassFlags, 'context'> & {
  /** Repeatable (multiContextFlags): several clusters for the gate. */
  context?: string | string[]
  'all-contexts'?: boolean
  'pod-ready-after'?: string
  'terminate-after'?: string
  'fail-new-pods'?: string
  'max-time'?: string
  speed?: string
  'line-mode'?: boolean
  /** Live mode: give up after this long (Go duration; 0 = never). */
  timeout?: string
  /** Live mode: also wait until no old pod is terminating. */
  settled?: boolean
  /** Live mode: a paused Deployment ends the watch with success. */
  'paused-ok'?: boolean
  /** -f: wait for the files' Deployments on the cluster, or simulate them, whatever the files hold. */
  live?: boolean
  simulate?: boolean
  /** The gate: a Deployment missing at the start is an error instead of being waited for. */
  'require-existing'?: boolean
  'max-restarts'?: number
  'unschedulable-grace'?: string
  'fail-fast'?: boolean
  'log-lines'?: number
  junit?: string
  /** With a timeline: play the recording and check its writes against the port's. */
  replay?: boolean
}

/** Where a live watch's updates go in line mode and with -o json. */
interface LiveSink {
  update(u: WatchUpdate): void
  finish(outcome: WatchOutcome): void
}

/** The terminal, for the interactive view (absent in tests that drive the options directly). */
export interface Terminal {
  stdout: NodeJS.WriteStream
  stdin: NodeJS.ReadStream
}

/** ink's own test (is-in-ci): CI or CONTINUOUS_INTEGRATION set to anything but 0 or false. */
export function isCI(env: NodeJS.ProcessEnv): boolean {
  const set = (key: string) => key in env && env[key] !== '0' && env[key] !== 'false'
  return set('CI') || set('CONTINUOUS_INTEGRATION')
}

/**
 * Files that hold a snapshot (as `kubectl get -o yaml` writes it: objects with status, ReplicaSets or
 * pods, or a timeline) rather than manifests one applies (Deployments without status).
 */
export function holdsSnapshot(world: World): boolean {
  if (world.timeline || world.replicaSets.length > 0 || world.pods.length > 0) return true
  return world.deployments.some((d) => {
    const written = (world.raw?.get(d) ?? d) as {status?: unknown}
    const status = written.status
    return typeof status === 'object' && status !== null && Object.keys(status).length > 0
  })
}

export class RolloutWatchOptions extends PassOptions {
  name = ''
  namespace = 'default'
  nowGiven = false
  readyAfter = 10_000
  terminateAfter = 5_000
  failNewPods: IntOrString | undefined
  maxTime = 30 * 60_000
  speed: number | 'auto' = 'auto'
  lineMode = false
  timeoutMs = 0
  settled = false
  pausedOk = false
  /** The simulation's own flags that were given (--fail-new-pods, --max-time, ...). */
  simulationFlags: string[] = []
  /** --live / --simulate, when given. */
  forced: 'live' | 'simulate' | undefined
  requireExisting = false
  gateOptions: GateOptions = {
    failFast: true,
    maxRestarts: 2,
    unschedulableGraceMs: 60_000,
    settled: false,
    pausedOk: false,
  }
  logLines = 20
  junit: string | undefined
  replayRecorded = false

  constructor(
    io: IO,
    private readonly terminal?: Terminal,
  ) {
    super(io, {outputs: ['table', 'json', 'yaml', 'name', 'jsonpath'], keepRaw: true})
  }

  /** --context repeated or --all-contexts: the gate covers each (empty: one cluster). */
  contexts: string[] = []

  override async complete(flags: RolloutWatchFlags, args: readonly string[]): Promise<void> {
    const {completeContexts} = await import('./contexts.js')
    const {first, many} = await completeContexts(flags)
    await super.complete({...flags, context: first}, args)
    this.contexts = many
    const {parseDuration} = await import('../util/duration.js')
    const duration = (flag: string, value: string, min: number): number => {
      const ms = parseDuration(value)
      if (ms === undefined || ms < min) {
        throw new UsageError(
          `invalid --${flag} "${value}": want a duration such as 10s, 1m30s or 500ms${min > 0 ? ' greater than 0' : ''}`,
        )
      }
      return ms
    }
    this.nowGiven = flags.now !== undefined
    this.namespace = flags.namespace ?? 'default'
    this.readyAfter = duration('pod-ready-after', flags['pod-ready-after'] ?? '10s', 0)
    this.terminateAfter = duration('terminate-after', flags['terminate-after'] ?? '5s', 0)
    this.maxTime = duration('max-time', flags['max-time'] ?? '30m', 1)
    // The flags of a simulation: given with -f, they ask for one.
    const simulation = ['pod-ready-after', 'terminate-after', 'fail-new-pods', 'max-time'] as const
    this.simulationFlags = simulation.filter((f) => flags[f] !== undefined).map((f) => `--${f}`)
    if (flags['fail-new-pods'] !== undefined) {
      const {parseFailNewPods, SimulationError} = await import('../sim/simulator.js')
      try {
        this.failNewPods = parseFailNewPods(flags['fail-new-pods'])
      } catch (err) {
        if (err instanceof SimulationError)
          throw new UsageError(err.message.replace('fail-new-pods', '--fail-new-pods'))
        throw err
      }
    }
    if (flags.speed !== undefined && flags.speed !== 'auto') {
      const speed = Number(flags.speed)
      if (!Number.isFinite(speed) || speed <= 0) {
        throw new UsageError(
          `invalid --speed "${flags.speed}": want auto or a positive number (virtual seconds per second)`,
        )
      }
      this.speed = speed
    }
    this.lineMode = flags['line-mode'] === true
    if (flags.timeout !== undefined) this.timeoutMs = duration('timeout', flags.timeout, 0)
    this.settled = flags.settled === true
    this.pausedOk = flags['paused-ok'] === true
    if (flags.live && flags.simulate) throw new UsageError('--live and --simulate cannot be used together')
    this.forced = flags.live ? 'live' : flags.simulate ? 'simulate' : undefined
    this.requireExisting = flags['require-existing'] === true
    const count = (flag: string, value: number | undefined, fallback: number): number => {
      if (value === undefined) return fallback
      if (!Number.isSafeInteger(value) || value < 0) {
        throw new UsageError(`invalid --${flag} "${value}": want a whole number, 0 or more`)
      }
      return value
    }
    this.gateOptions = {
      failFast: flags['fail-fast'] !== false,
      maxRestarts: count('max-restarts', flags['max-restarts'], 2),
      unschedulableGraceMs:
        flags['unschedulable-grace'] !== undefined
          ? duration('unschedulable-grace', flags['unschedulable-grace'], 0)
          : 60_000,
      settled: this.settled,
      pausedOk: this.pausedOk,
    }
    this.logLines = count('log-lines', flags['log-lines'], 20)
    if (flags.junit !== undefined) {
      if (flags.junit === '') throw new UsageError('--junit wants a file name')
      this.junit = flags.junit
    }
    this.replayRecorded = flags.replay === true
    if (this.replayRecorded && this.isLive) {
      throw new UsageError(
        '--replay plays a recording: give -f FILE written by rollout record (or kubectl get -w --output-watch-events -o json)',
      )
    }
  }

  override async validateOptions(): Promise<void> {
    const names = this.selection.names ?? []
    const selects = this.selection.allNamespaces === true || this.selection.labelSelector !== undefined
    if (names.length === 0 && !selects && this.files.length === 0) {
      throw new UsageError('a Deployment NAME is required')
    }
    if (this.forced === 'simulate' && this.files.length === 0) {
      throw new UsageError('--simulate needs -f FILE: it simulates the rollout of the files’ objects')
    }
    if (this.files.length > 0 && selects) {
      throw new UsageError('-f names the Deployments to watch: -A and -l do not apply with it')
    }
    this.name = names[0] ?? ''
    await super.validateOptions()
  }

  /**
   * Set once this run is the gate (or the files given without a NAME ask for it): the gate keeps
   * exit 1 for "a Deployment failed or the timeout passed", so its other errors exit 2.
   */
  gate = false

  /** One Deployment named on the cluster: the one-Deployment view; otherwise the gate. */
  private get gateWanted(): boolean {
    const names = this.selection.names ?? []
    return (
      names.length !== 1 ||
      this.selection.allNamespaces === true ||
      this.selection.labelSelector !== undefined
    )
  }

  /** The interactive view is for terminals: not with CI set, TERM=dumb, --line-mode or -o json. */
  interactive(): boolean {
    return (
      this.output.kind === 'table' &&
      !this.lineMode &&
      this.io.stdoutIsTTY &&
      this.terminal !== undefined &&
      !isCI(this.io.env) &&
      this.io.env.TERM !== 'dumb'
    )
  }

  /** Returns the exit code: 0 when the rollout completed, 1 otherwise, 130 when interrupted. */
  async run(): Promise<number> {
    if (this.isLive) return this.gateWanted || this.contexts.length > 0 ? this.runGate() : this.runLive()
    this.gate =
      this.forced === 'live' ||
      (this.forced === undefined &&
        this.simulationFlags.length === 0 &&
        (this.selection.names ?? []).length === 0)
    // The names asked for (load() keeps only those the files hold).
    const names = this.selection.names ?? []
    const world = await this.load()
    const snapshot = holdsSnapshot(world)
    const mode =
      this.forced ??
      (snapshot || this.replayRecorded || this.simulationFlags.length > 0 ? 'simulate' : 'live')
    if (mode === 'live') return this.runGate(world)
    if (this.contexts.length > 0) {
      throw new UsageError(
        'several contexts are waited for on their clusters: a simulated rollout (-f snapshot, --simulate) has none',
      )
    }
    if (names.length !== 1) {
      throw new UsageError(
        names.length === 0
          ? 'a Deployment NAME is required'
          : `rollout watch follows one Deployment, got ${names.length}: a snapshot (-f) is simulated one Deployment at a time`,
      )
    }
    if (this.replayRecorded) return this.runReplay(world)
    // A timeline's moment: its namespace (unless -n) and its time are where the simulation starts.
    if (world.timeline) this.namespace = this.selection.namespace ?? this.namespace
    else if (this.selection.inputNamespaces) this.namespace = await this.inputNamespaceOf(world)
    this.io.err(
      `rollout watch: ${this.forced ? '--simulate' : snapshot ? 'the files hold a snapshot (objects with status, ReplicaSets or pods)' : `${this.simulationFlags.join(', ')} given`}: simulating deployment "${escapeControl(this.name)}" on a virtual clock${this.forced ? '' : ' (--live waits for it on the cluster instead)'}\n`,
    )
    const sim = await this.simulate(world)
    if (this.output.kind !== 'table') await this.printJson(sim)
    else if (this.interactive()) {
      if ((await this.replay(sim)) === 'interrupted') return 130
    } else await this.printLines(sim)
    return sim.summary.complete ? 0 : 1
  }

  /**
   * The gate: every Deployment named, selected (-l, -A) or defined by the -f manifests in `world`,
   * waited for on the cluster until each is done or failed, or --timeout passes.
   */
  async runGate(world?: World): Promise<number> {
    this.gate = true
    if (this.output.kind !== 'table' && this.output.kind !== 'json') {
      throw new UsageError(
        `-o ${this.output.kind} is for one Deployment: the gate over several prints its table, lines, or -o json`,
      )
    }
    const common = {
      io: this.io,
      ...(this.terminal ? {terminal: this.terminal} : {}),
      interactive: this.interactive(),
      output: this.output,
      judge: this.gateOptions,
      timeoutMs: this.timeoutMs,
      requireExisting: this.requireExisting,
      logLines: this.logLines,
      ...(this.junit !== undefined ? {junit: this.junit} : {}),
      gates: this.gates,
      verbosity: this.verbosity,
    }
    const {runGate} = await import('./rollout-gate.js')
    if (this.contexts.length > 0) return runGate({...common, clusters: await this.gateClusters(world)})
    const {api, connection} = await this.connectLive()
    return runGate({...common, api, connection, targets: this.gateTargets(connection, world)})
  }

  /**
   * Several contexts: each connected (at once) with its targets, or the error that kept it from
   * connecting; the others' gates run on (multi-gate.ts).
   */
  private async gateClusters(world: World | undefined): Promise<GateCluster[]> {
    const [{connect}, {ApiClient}] = await Promise.all([
      import('../cluster/live/kubeconfig.js'),
      import('../cluster/live/api.js'),
    ])
    const verbose = this.verbosity >= 6 ? (line: string) => this.io.err(`I ${line}\n`) : undefined
    return Promise.all(
      this.contexts.map(async (context): Promise<GateCluster> => {
        try {
          const connection = await connect({...this.connectionFlags, context})
          const api = new ApiClient(connection, verbose)
          return {context, api, connection, targets: this.gateTargets(connection, world, context)}
        } catch (err) {
          if (err instanceof UsageError) throw err
          return {context, error: err instanceof Error ? err.message : String(err)}
        }
      }),
    )
  }

  /**
   * What the gate waits for on one cluster: every Deployment named, selected (-l, -A) or defined by
   * the -f manifests in `world` (in the namespace each file names, else the connection's).
   */
  private gateTargets(connection: Connection, world: World | undefined, context?: string): GateTargets {
    const names = this.selection.names ?? []
    let targets: GateTargets
    if (world) {
      const wanted = new Set(names)
      const found = world.deployments.filter((d) => wanted.size === 0 || wanted.has(d.metadata.name ?? ''))
      const missing = names.filter((n) => !world.deployments.some((d) => d.metadata.name === n))
      if (missing.length > 0) {
        throw new UsageError(
          `the files define no Deployment named ${missing.map((n) => `"${n}"`).join(', ')}`,
        )
      }
      if (found.length === 0) throw new InputError('the files define no Deployment to wait for')
      // As kubectl apply -f: the namespace a file names, else the context's (or -n).
      const keys = found.map((d) => {
        const written = world.raw?.get(d) as {metadata?: {namespace?: unknown}} | undefined
        const ns = written?.metadata?.namespace
        return {
          namespace: typeof ns === 'string' && ns !== '' ? ns : connection.namespace,
          name: d.metadata.name ?? '',
        }
      })
      const namespaces = [...new Set(keys.map((k) => k.namespace))].sort()
      const n = keys.length
      this.io.err(
        `rollout watch: ${context ? `context "${escapeControl(context)}": ` : ''}${this.forced ? '--live' : `the files hold ${n === 1 ? 'a Deployment manifest' : `${n} Deployment manifests`} (no status)`}: waiting for ${n === 1 ? 'it' : 'them'} on the cluster in namespace${namespaces.length === 1 ? '' : 's'} ${escapeControl(namespaces.join(', '))}${this.forced ? '' : ` (--simulate simulates ${n === 1 ? 'it' : 'them'} instead)`}\n`,
      )
      targets = {namespaces, keys}
    } else if (this.selection.allNamespaces) {
      if (names.length > 0) {
        throw new UsageError('a resource cannot be retrieved by name across all namespaces')
      }
      targets = {
        namespaces: undefined,
        ...(this.selection.labelSelector ? {labelSelector: this.selection.labelSelector} : {}),
      }
    } else {
      const namespace = connection.namespace
      targets =
        names.length > 0
          ? {namespaces: [namespace], keys: names.map((name) => ({namespace, name}))}
          : {
              namespaces: [namespace],
              ...(this.selection.labelSelector ? {labelSelector: this.selection.labelSelector} : {}),
            }
      if (names.length > 0 && this.selection.labelSelector) {
        throw new UsageError('NAMEs and -l cannot be used together: name the Deployments or select them')
      }
    }
    return targets
  }

  /** Files without -n: the namespace of the input that holds the Deployment (kubectl get -f). */
  private async inputNamespaceOf(world: World): Promise<string> {
    const {namespacesHolding} = await import('../pass/selection.js')
    const holding = namespacesHolding(world, {kind: 'Deployment', name: this.name})
    if (holding.length > 1) {
      throw new UsageError(
        `the files hold deployment ${this.name} in namespaces ${holding.join(', ')}: choose one with -n`,
      )
    }
    return holding[0] ?? (await this.fileNamespace())
  }

  /** Live mode: informers on the cluster, one update per change, ended as kubectl rollout status ends. */
  async runLive(): Promise<number> {
    const {LiveWatch} = await import('../watch/live.js')
    const {api, connection} = await this.connectLive()
    this.selection = {...this.selection, namespace: connection.namespace}
    const verbose = this.verbosity >= 6 ? (line: string) => this.io.err(`I ${line}\n`) : undefined
    const interactive = this.interactive()
    const watch = new LiveWatch({
      api,
      conn: connection,
      namespace: connection.namespace,
      name: this.name,
      timeoutMs: this.timeoutMs,
      settled: this.settled,
      pausedOk: this.pausedOk,
      judge: this.gateOptions,
      minFrameMs: interactive ? 250 : 100,
      gates: this.gates,
      ...(this.nowGiven ? {now: this.now} : {}),
      // The next pass in words is for the view only.
      describeNext: interactive,
      tickMs: interactive ? 1000 : 0,
      warn: (line) => {
        if (!interactive || this.verbosity > 0) this.io.err(`warning: ${escapeControl(line)}\n`)
      },
      ...(verbose ? {debug: verbose} : {}),
    })
    if (interactive) return this.liveInteractive(watch)
    const sink = this.output.kind !== 'table' ? await this.jsonSink() : await this.lineSink()
    // Ctrl-C: nothing to restore on a plain stream; stop the watches and exit 130.
    const onSignal = () => {
      void watch.stop()
    }
    process.once('SIGINT', onSignal)
    try {
      const end = await watch.run(sink.update)
      sink.finish(end.outcome)
      await this.notFoundHint(end.outcome)
      return end.code
    } finally {
      process.removeListener('SIGINT', onSignal)
    }
  }

  /** A Deployment that was never found: where the cluster has one of that name, on stderr. */
  private async notFoundHint(outcome: WatchOutcome): Promise<void> {
    if (outcome.kind !== 'deleted' || !outcome.message.startsWith('Error from server (NotFound)')) return
    const hint = await this.namespaceHint(undefined, this.name)
    if (hint !== undefined) this.io.err(`${hint[0]?.toUpperCase()}${hint.slice(1)}.\n`)
  }

  /**
   * Each object of the stream, as `kubectl get -w` prints them: -o json one a line (NDJSON), -o yaml
   * documents after `---`, -o name the Deployment's name at each step, -o jsonpath the template run
   * on each object.
   */
  private async objectPrinter(): Promise<(value: Record<string, unknown>) => string> {
    const format = this.output
    if (format.kind === 'jsonpath') {
      const {jsonpath} = await import('../render/jsonpath.js')
      return (value) => jsonpath(format.template, value)
    }
    if (format.kind === 'yaml') {
      const {yamlPrinter} = await import('../render/document.js')
      const yaml = await yamlPrinter()
      return (value) => `---\n${yaml(value)}`
    }
    if (format.kind === 'name') {
      return (value) => {
        const name = (value.deployment as {name?: string} | undefined)?.name
        return value.kind === 'Step' && name ? `deployment.apps/${name}\n` : ''
      }
    }
    const {ndjsonLine} = await import('../render/watch/ndjson.js')
    return ndjsonLine
  }

  private async jsonSink(): Promise<LiveSink> {
    const {endJson, updateJson} = await import('../render/watch/ndjson.js')
    const {SummaryTracker} = await import('../render/watch/lines.js')
    const ndjsonLine = await this.objectPrinter()
    const seen = new SummaryTracker()
    let step = 0
    let last = {time: Date.now(), elapsed: 0}
    return {
      update: (u) => {
        last = u
        seen.push(u)
        // Live: what kubectl rollout status, kstatus and Argo CD answer, as explain's items carry it.
        this.io.out(ndjsonLine({...updateJson(u, step++), tools: u.state.tools}))
      },
      finish: (outcome) => {
        const now = Date.now()
        const elapsed = last.elapsed + (now - last.time)
        this.io.out(ndjsonLine(endJson(outcome, now, elapsed, seen.summary(elapsed, outcome))))
      },
    }
  }

  private async lineSink(): Promise<LiveSink> {
    const {LineWriter, clock} = await import('../render/watch/lines.js')
    const {humanDuration} = await import('../util/duration.js')
    const writer = new LineWriter(this.name, {live: true})
    let paused = false
    return {
      update: (u) => {
        const lines = writer.push(u)
        const d = u.observation.deployment
        if (d.paused !== paused && !u.observation.rollout.done) {
          paused = d.paused
          lines.push(
            escapeControl(
              `${this.name} [${clock(u.time)} +${humanDuration(u.elapsed)}] ${paused ? `deployment "${this.name}" is paused: waiting for it to be resumed` : `deployment "${this.name}" resumed`}`,
            ),
          )
        }
        if (lines.length > 0) this.io.out(`${lines.join('\n')}\n`)
      },
      finish: (outcome) => {
        if (outcome.kind === 'interrupted') return
        this.io.out(`${writer.finish({...outcome, end: Date.now()}).join('\n')}\n`)
        if (outcome.kind !== 'complete' && outcome.kind !== 'paused') {
          // kubectl's error line goes to stderr too, where scripts look for it.
          this.io.err(`${escapeControl(outcome.message)}\n`)
        }
      },
    }
  }

  private async liveInteractive(watch: LiveWatch): Promise<number> {
    const terminal = this.terminal as Terminal
    const {FrameBuilder} = await import('../render/watch/frame.js')
    const {runInteractive} = await this.inkApp()
    const builder = new FrameBuilder(5, {tools: true})
    let code = 1
    let failure: unknown
    const source: FrameSource = {
      subscribe(onFrame, onEnd) {
        watch
          .run((u) => onFrame(builder.push(u)))
          .then((end) => {
            code = end.code
            const last = builder.finish(end.outcome)
            if (last) onFrame(last)
            onEnd()
          })
          .catch((err: unknown) => {
            failure = err
            onEnd()
          })
        return () => {
          void watch.stop()
        }
      },
    }
    const how = await runInteractive(source, {
      stdout: terminal.stdout,
      stdin: terminal.stdin,
      footer: `live · ${this.name} · q or Ctrl-C to stop`,
    })
    await watch.stop()
    if (failure !== undefined) throw failure
    if (how === 'interrupted') return 130
    return code
  }

  /**
   * The ink app, coloured only where other output is (NO_COLOR unset): ink colours through chalk,
   * which ignores NO_COLOR and reads FORCE_COLOR once, when it loads.
   */
  private async inkApp() {
    const {wantColor} = await import('../render/style.js')
    if (!wantColor({isTTY: true}, this.io.env)) process.env.FORCE_COLOR = '0'
    return import('../render/watch/app.js')
  }

  /**
   * --replay: the recording's updates for the Deployment (the live watch's, on the recorded clock)
   * and the divergences of its ReplicaSet writes from the port's; exits as the live watch would have.
   */
  async runReplay(world: World): Promise<number> {
    const moment = world.timeline
    if (!moment) {
      throw new UsageError(
        `--replay plays a recording, and ${this.files.join(', ')} is not one: give -f FILE written by rollout record (or kubectl get -w --output-watch-events -o json)`,
      )
    }
    this.namespace = this.selection.namespace ?? this.namespace
    const {replayTimeline} = await import('../watch/replay.js')
    const interactive = this.interactive()
    const {updates, divergences, end} = await replayTimeline({
      timeline: moment.timeline,
      namespace: this.namespace,
      name: this.name,
      gates: this.gates,
      ...(moment.atText !== undefined ? {from: moment.at} : {}),
      settled: this.settled,
      pausedOk: this.pausedOk,
      describeNext: interactive,
    })
    const outcome = {...end.outcome, end: moment.timeline.end}
    if (this.output.kind !== 'table') {
      const {endJson, updateJson} = await import('../render/watch/ndjson.js')
      const ndjsonLine = await this.objectPrinter()
      let text = ''
      updates.forEach((u, i) => {
        text += ndjsonLine(updateJson(u, i))
      })
      const last = updates.at(-1)
      const endObject = endJson(
        outcome,
        moment.timeline.end,
        (last?.elapsed ?? 0) + (moment.timeline.end - (last?.time ?? moment.timeline.end)),
      )
      this.io.out(text + ndjsonLine({...endObject, divergences: divergences.length}))
    } else if (interactive) {
      if ((await this.replayRecording(updates, outcome, divergences.length)) === 'interrupted') return 130
    } else {
      const {LineWriter} = await import('../render/watch/lines.js')
      const writer = new LineWriter(this.name)
      const lines: string[] = []
      let exceeded = false
      for (const u of updates) {
        lines.push(...writer.push(u))
        // The live watch ends here; the recording (and the replay) may go on.
        const r = u.state.rolloutStatus
        if (r.error && !exceeded && u !== updates.at(-1))
          lines.push(writer.note(u, `${r.message} (the live watch ended here, exit 1)`))
        exceeded = r.error
      }
      lines.push(writer.replaySummary(divergences))
      lines.push(...writer.finish(outcome))
      this.io.out(`${lines.join('\n')}\n`)
      if (outcome.kind !== 'complete' && outcome.kind !== 'paused')
        this.io.err(`${escapeControl(outcome.message)}\n`)
    }
    return end.code
  }

  /** A recording's updates played on a terminal: the simulated replay's view, on the recorded clock. */
  private replayRecording(
    updates: WatchUpdate[],
    outcome: WatchOutcome,
    divergences: number,
  ): Promise<'ended' | 'interrupted'> {
    const span = (updates.at(-1)?.time ?? 0) - (updates[0]?.time ?? 0)
    const found =
      divergences === 0 ? 'no divergence' : `${divergences} divergence${divergences === 1 ? '' : 's'}`
    return this.play(updates, outcome, span, (speed) => `recorded replay (${speed}) · ${found}`)
  }

  async simulate(world: World): Promise<Simulation> {
    const {simulate, snapshotTime, SimulationError} = await import('../sim/simulator.js')
    const start =
      this.nowGiven || world.timeline ? this.now : (snapshotTime(world, this.namespace) ?? this.now)
    try {
      return await simulate(world, {
        namespace: this.namespace,
        name: this.name,
        start,
        gates: this.gates,
        timings: {readyAfter: this.readyAfter, terminateAfter: this.terminateAfter},
        maxTime: this.maxTime,
        ...(this.failNewPods !== undefined ? {failNewPods: this.failNewPods} : {}),
      })
    } catch (err) {
      if (err instanceof SimulationError) throw new InputError(err.message)
      throw err
    }
  }

  private outcome(sim: Simulation): WatchOutcome {
    const s = sim.summary
    return {
      kind: s.outcome,
      message: s.message,
      end: s.end,
      summary: {
        duration: s.duration,
        peakPods: s.peakPods,
        minAvailable: s.minAvailable,
        deadlineExceeded: s.deadlineExceeded,
        kubernetesVersion: `v1.${this.gates.kubeVersion}`,
      },
    }
  }

  private async printJson(sim: Simulation): Promise<void> {
    const {stepJson, summaryJson} = await import('../render/watch/ndjson.js')
    const ndjsonLine = await this.objectPrinter()
    let text = ''
    for (const e of sim.timeline) text += ndjsonLine(stepJson(e))
    this.io.out(text + ndjsonLine(summaryJson(sim.summary, `v1.${this.gates.kubeVersion}`)))
  }

  private async printLines(sim: Simulation): Promise<void> {
    const {LineWriter} = await import('../render/watch/lines.js')
    const writer = new LineWriter(this.name)
    const lines: string[] = []
    for (const e of sim.timeline) lines.push(...writer.push(e))
    lines.push(...writer.finish(this.outcome(sim)))
    this.io.out(`${lines.join('\n')}\n`)
  }

  private replay(sim: Simulation): Promise<'ended' | 'interrupted'> {
    return this.play(
      sim.timeline,
      this.outcome(sim),
      sim.summary.duration,
      (speed) => `simulated replay (${speed})`,
    )
  }

  /** Updates as frames on the terminal, at --speed (auto: `span` of virtual time in a few seconds). */
  private async play(
    updates: readonly WatchUpdate[],
    outcome: WatchOutcome,
    span: number,
    what: (speed: string) => string,
  ): Promise<'ended' | 'interrupted'> {
    const terminal = this.terminal as Terminal
    const {FrameBuilder} = await import('../render/watch/frame.js')
    const {lastPerInstant, replayDelays, replaySource} = await import('../render/watch/replay.js')
    const {humanDuration} = await import('../util/duration.js')
    const {runInteractive} = await this.inkApp()
    const builder = new FrameBuilder()
    let frames = updates.map((e) => builder.push(e))
    const last = builder.finish(outcome)
    if (last) frames[frames.length - 1] = last
    // The first frame is the input as loaded: keep it even when the first pass shares its instant.
    if (this.speed === 'auto') frames = [...frames.slice(0, 1), ...lastPerInstant(frames.slice(1))]
    const delays = replayDelays(
      frames.map((f) => f.time),
      this.speed,
    )
    const realMs = delays.reduce((a, b) => a + b, 0)
    const speed =
      this.speed === 'auto' ? `${humanDuration(span)} in ${humanDuration(realMs)}` : `${this.speed}×`
    return runInteractive(replaySource(frames, delays), {
      stdout: terminal.stdout,
      stdin: terminal.stdin,
      footer: `${what(speed)} · q or Ctrl-C to stop`,
    })
  }
}
