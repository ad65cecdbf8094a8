// `rollout watch`: follow a Deployment's rollout. On files, the rollout is simulated (src/sim) and
// shown as an ink view replayed at --speed on a terminal, one line per change otherwise, or NDJSON
// with -o json. Heavy modules (the loader, the controller, ink and React) load inside run().

import type {World} from '../cluster/world.js'
import {InputError, UsageError} from '../errors.js'
import type {FrameSource} from '../render/watch/replay.js'
import type {Simulation} from '../sim/simulator.js'
import type {WatchOutcome, WatchUpdate} from '../status/update.js'
import {escapeControl} from '../util/terminal.js'
import type {LiveWatch} from '../watch/live.js'
import type {CommandOptions, IO} from './base-command.js'
import {
  ConfigOptions,
  ContextsOptions,
  FileNameOptions,
  PrintOptions,
  SelectionOptions,
} from './flag-groups.js'
import {type PassFlags, PassInput} from './pass-options.js'
import type {RolloutGate} from './rollout-gate.js'
import {TimelineOptions} from './timeline-options.js'
import {GateReportOptions, SimulationOptions, WaitOptions} from './watch-options.js'

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

/**
 * The pass commands' groups and input, the contexts group (explain's), and its own: what a
 * simulation assumes, how long to wait, what the gate reports. One Deployment's live watch, its
 * simulation and the gate over several (RolloutGate) all read these same objects.
 */
export class RolloutWatchOptions implements CommandOptions<RolloutWatchFlags> {
  readonly configFlags = new ConfigOptions()
  /** --context repeated, --all-contexts: the gate covers each cluster. */
  readonly contextsFlags = new ContextsOptions()
  readonly fileNames = new FileNameOptions()
  readonly selectionFlags = new SelectionOptions()
  readonly printFlags = new PrintOptions(['table', 'json', 'yaml', 'name', 'jsonpath'])
  readonly timeline = new TimelineOptions()
  /** The files (kept as written: manifests or a snapshot?) or the cluster, the selection, the clock. */
  readonly input: PassInput
  readonly simulation = new SimulationOptions()
  readonly wait = new WaitOptions()
  readonly report = new GateReportOptions()

  name = ''
  namespace = 'default'
  nowGiven = false
  lineMode = false
  /** --live / --simulate, when given. */
  forced: 'live' | 'simulate' | undefined
  replayRecorded = false

  constructor(
    readonly io: IO,
    readonly terminal?: Terminal,
  ) {
    this.input = new PassInput(io, this, {keepRaw: true})
  }

  async complete(flags: RolloutWatchFlags, args: readonly string[]): Promise<void> {
    await this.contextsFlags.complete(flags)
    await this.input.complete({...flags, context: this.contextsFlags.first}, args)
    this.printFlags.complete(flags)
    this.nowGiven = flags.now !== undefined
    this.namespace = flags.namespace ?? 'default'
    await this.simulation.complete(flags)
    this.lineMode = flags['line-mode'] === true
    await this.wait.complete(flags)
    if (flags.live && flags.simulate) throw new UsageError('--live and --simulate cannot be used together')
    this.forced = flags.live ? 'live' : flags.simulate ? 'simulate' : undefined
    this.report.complete(flags)
    this.replayRecorded = flags.replay === true
    if (this.replayRecorded && this.input.isLive) {
      throw new UsageError(
        '--replay plays a recording: give -f FILE written by rollout record (or kubectl get -w --output-watch-events -o json)',
      )
    }
  }

  async validateOptions(): Promise<void> {
    const names = this.input.selection.names ?? []
    const selects =
      this.input.selection.allNamespaces === true || this.input.selection.labelSelector !== undefined
    if (names.length === 0 && !selects && this.fileNames.files.length === 0) {
      throw new UsageError('a Deployment NAME is required')
    }
    if (this.forced === 'simulate' && this.fileNames.files.length === 0) {
      throw new UsageError('--simulate needs -f FILE: it simulates the rollout of the files’ objects')
    }
    if (this.fileNames.files.length > 0 && selects) {
      throw new UsageError('-f names the Deployments to watch: -A and -l do not apply with it')
    }
    this.name = names[0] ?? ''
    await this.input.validateOptions()
  }

  partialErrors(): ReadonlyArray<string | Error> {
    return this.input.partialErrors()
  }

  /**
   * Set once this run is the gate (or the files given without a NAME ask for it): the gate keeps
   * exit 1 for "a Deployment failed or the timeout passed", so its other errors exit 2.
   */
  gate = false

  /** One Deployment named on the cluster: the one-Deployment view; otherwise the gate. */
  private get gateWanted(): boolean {
    const names = this.input.selection.names ?? []
    return (
      names.length !== 1 ||
      this.input.selection.allNamespaces === true ||
      this.input.selection.labelSelector !== undefined
    )
  }

  /** The interactive view is for terminals: not with CI set, TERM=dumb, --line-mode or -o json. */
  interactive(): boolean {
    return (
      this.printFlags.output.kind === 'table' &&
      !this.lineMode &&
      this.io.stdoutIsTTY &&
      this.terminal !== undefined &&
      !isCI(this.io.env) &&
      this.io.env.TERM !== 'dumb'
    )
  }

  /** Returns the exit code: 0 when the rollout completed, 1 otherwise, 130 when interrupted. */
  async run(): Promise<number> {
    if (this.input.isLive)
      return this.gateWanted || this.contextsFlags.contexts.length > 0 ? this.runGate() : this.runLive()
    this.gate =
      this.forced === 'live' ||
      (this.forced === undefined &&
        this.simulation.given.length === 0 &&
        (this.input.selection.names ?? []).length === 0)
    // The names asked for (load() keeps only those the files hold).
    const names = this.input.selection.names ?? []
    const world = await this.input.load()
    const snapshot = holdsSnapshot(world)
    const mode =
      this.forced ??
      (snapshot || this.replayRecorded || this.simulation.given.length > 0 ? 'simulate' : 'live')
    if (mode === 'live') return this.runGate(world)
    if (this.contextsFlags.contexts.length > 0) {
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
    if (world.timeline) this.namespace = this.input.selection.namespace ?? this.namespace
    else if (this.input.selection.inputNamespaces) this.namespace = await this.inputNamespaceOf(world)
    this.io.err(
      `rollout watch: ${this.forced ? '--simulate' : snapshot ? 'the files hold a snapshot (objects with status, ReplicaSets or pods)' : `${this.simulation.given.join(', ')} given`}: simulating deployment "${escapeControl(this.name)}" on a virtual clock${this.forced ? '' : ' (--live waits for it on the cluster instead)'}\n`,
    )
    const sim = await this.simulate(world)
    if (this.printFlags.output.kind !== 'table') await this.printJson(sim)
    else if (this.interactive()) {
      if ((await this.replay(sim)) === 'interrupted') return 130
    } else await this.printLines(sim)
    return sim.summary.complete ? 0 : 1
  }

  /**
   * The gate: every Deployment named, selected (-l, -A) or defined by the -f manifests in `world`,
   * waited for on the cluster until each is done or failed, or --timeout passes; made of this
   * command's own pieces (rollout-gate.ts, loaded only then).
   */
  async runGate(world?: World): Promise<number> {
    this.gate = true
    return (await this.rolloutGate()).run(world)
  }

  /** The gate over several Deployments, composed of the same group objects this command holds. */
  async rolloutGate(): Promise<RolloutGate> {
    const {RolloutGate} = await import('./rollout-gate.js')
    return new RolloutGate(this)
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
    return holding[0] ?? (await this.input.fileNamespace())
  }

  /** Live mode: informers on the cluster, one update per change, ended as kubectl rollout status ends. */
  async runLive(): Promise<number> {
    const {LiveWatch} = await import('../watch/live.js')
    const {api, connection} = await this.input.connectLive()
    this.input.selection = {...this.input.selection, namespace: connection.namespace}
    const verbose = this.input.verbosity >= 6 ? (line: string) => this.io.err(`I ${line}\n`) : undefined
    const interactive = this.interactive()
    const watch = new LiveWatch({
      api,
      conn: connection,
      namespace: connection.namespace,
      name: this.name,
      timeoutMs: this.wait.timeoutMs,
      settled: this.wait.settled,
      pausedOk: this.wait.pausedOk,
      judge: this.wait.judge,
      minFrameMs: interactive ? 250 : 100,
      gates: this.input.gates,
      ...(this.nowGiven ? {now: this.input.now} : {}),
      // The next pass in words is for the view only.
      describeNext: interactive,
      tickMs: interactive ? 1000 : 0,
      warn: (line) => {
        if (!interactive || this.input.verbosity > 0) this.io.err(`warning: ${escapeControl(line)}\n`)
      },
      ...(verbose ? {debug: verbose} : {}),
    })
    if (interactive) return this.liveInteractive(watch)
    const sink = this.printFlags.output.kind !== 'table' ? await this.jsonSink() : await this.lineSink()
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
    const hint = await this.input.namespaceHint(undefined, this.name)
    if (hint !== undefined) this.io.err(`${hint[0]?.toUpperCase()}${hint.slice(1)}.\n`)
  }

  /**
   * Each object of the stream, as `kubectl get -w` prints them: -o json one a line (NDJSON), -o yaml
   * documents after `---`, -o name the Deployment's name at each step, -o jsonpath the template run
   * on each object.
   */
  private async objectPrinter(): Promise<(value: Record<string, unknown>) => string> {
    const format = this.printFlags.output
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
        `--replay plays a recording, and ${this.fileNames.files.join(', ')} is not one: give -f FILE written by rollout record (or kubectl get -w --output-watch-events -o json)`,
      )
    }
    this.namespace = this.input.selection.namespace ?? this.namespace
    const {replayTimeline} = await import('../watch/replay.js')
    const interactive = this.interactive()
    const {updates, divergences, end} = await replayTimeline({
      timeline: moment.timeline,
      namespace: this.namespace,
      name: this.name,
      gates: this.input.gates,
      ...(moment.atText !== undefined ? {from: moment.at} : {}),
      settled: this.wait.settled,
      pausedOk: this.wait.pausedOk,
      describeNext: interactive,
    })
    const outcome = {...end.outcome, end: moment.timeline.end}
    if (this.printFlags.output.kind !== 'table') {
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
      this.nowGiven || world.timeline
        ? this.input.now
        : (snapshotTime(world, this.namespace) ?? this.input.now)
    try {
      return await simulate(world, {
        namespace: this.namespace,
        name: this.name,
        start,
        gates: this.input.gates,
        timings: {readyAfter: this.simulation.readyAfter, terminateAfter: this.simulation.terminateAfter},
        maxTime: this.simulation.maxTime,
        ...(this.simulation.failNewPods !== undefined ? {failNewPods: this.simulation.failNewPods} : {}),
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
        kubernetesVersion: `v1.${this.input.gates.kubeVersion}`,
      },
    }
  }

  private async printJson(sim: Simulation): Promise<void> {
    const {stepJson, summaryJson} = await import('../render/watch/ndjson.js')
    const ndjsonLine = await this.objectPrinter()
    let text = ''
    for (const e of sim.timeline) text += ndjsonLine(stepJson(e))
    this.io.out(text + ndjsonLine(summaryJson(sim.summary, `v1.${this.input.gates.kubeVersion}`)))
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
    if (this.simulation.speed === 'auto') frames = [...frames.slice(0, 1), ...lastPerInstant(frames.slice(1))]
    const delays = replayDelays(
      frames.map((f) => f.time),
      this.simulation.speed,
    )
    const realMs = delays.reduce((a, b) => a + b, 0)
    const speed =
      this.simulation.speed === 'auto'
        ? `${humanDuration(span)} in ${humanDuration(realMs)}`
        : `${this.simulation.speed}×`
    return runInteractive(replaySource(frames, delays), {
      stdout: terminal.stdout,
      stdin: terminal.stdin,
      footer: `${what(speed)} · q or Ctrl-C to stop`,
    })
  }
}
