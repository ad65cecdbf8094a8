// `rollout watch` as a gate: several Deployments on the cluster (NAMEs, -l, -A, or the Deployments
// that -f manifests define) waited for together, with the outputs a CI job reads: a live view on a
// terminal, one line per change otherwise, NDJSON with -o json, JUnit XML, GitHub Actions
// annotations. Loaded only when the gate runs.

import {writeFile} from 'node:fs/promises'
import type {ApiClient} from '../cluster/live/api.js'
import type {Connection} from '../cluster/live/kubeconfig.js'
import type {World} from '../cluster/world.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {InputError, UsageError} from '../errors.js'
import {githubAnnotations, rowLine, summaryLines} from '../render/gate/text.js'
import type {OutputFormat} from '../render/output.js'
import {type GateOptions, type GateSummary, gateSummary} from '../status/gate.js'
import {escapeControl} from '../util/terminal.js'
import {type GateEnd, type GateTargets, type GateUpdate, LiveGate} from '../watch/gate.js'
import type {GateRunner} from '../watch/multi-gate.js'
import type {IO} from './base-command.js'
import type {ContextsOptions, PrintOptions, SelectionOptions} from './flag-groups.js'
import type {PassInput} from './pass-options.js'
import type {Terminal} from './rollout-watch.js'
import type {GateReportOptions, WaitOptions} from './watch-options.js'

export interface GateRunOptions {
  io: IO
  terminal?: Terminal
  interactive: boolean
  output: OutputFormat
  /** One cluster: the connection flags' context. */
  api?: ApiClient
  connection?: Connection
  targets?: GateTargets
  /** Several (--context repeated, --all-contexts): each connected, or the error of its connection. */
  clusters?: GateCluster[]
  judge: GateOptions
  timeoutMs: number
  requireExisting: boolean
  logLines: number
  junit?: string
  /** The gates of the connection flags' cluster (its /version's minor unless --kube-version). */
  gates: FeatureGates & {values: Record<string, boolean>}
  verbosity: number
}

export type GateCluster =
  | {
      context: string
      api: ApiClient
      connection: Connection
      targets: GateTargets
      /** This context's own gates: its server's minor, unless --kube-version chose one. */
      gates: FeatureGates & {values: Record<string, boolean>}
    }
  | {context: string; error: string; targets?: GateTargets}

/**
 * The pieces a gate is made of: the same group objects `rollout watch` holds (the output, the
 * selection, the contexts, the pass input with its connection and clock, the wait), passed by
 * reference, not copied.
 */
export interface GatePieces {
  readonly io: IO
  readonly terminal?: Terminal | undefined
  readonly printFlags: PrintOptions
  readonly selectionFlags: SelectionOptions
  readonly contextsFlags: ContextsOptions
  readonly input: PassInput
  readonly wait: WaitOptions
  readonly report: GateReportOptions
  /** --live or --simulate, when given (the gate's first line says which). */
  readonly forced: 'live' | 'simulate' | undefined
  /** The interactive view (a terminal without CI, TERM=dumb, --line-mode or -o json). */
  interactive(): boolean
}

/**
 * `rollout watch` as a gate, composed of the command's pieces (GatePieces): every Deployment named,
 * selected (-l, -A) or defined by the -f manifests, waited for on one cluster or several.
 */
export class RolloutGate {
  readonly printFlags: PrintOptions
  readonly selectionFlags: SelectionOptions
  readonly contextsFlags: ContextsOptions
  readonly input: PassInput
  readonly wait: WaitOptions
  readonly report: GateReportOptions
  private readonly io: IO

  constructor(private readonly pieces: GatePieces) {
    this.io = pieces.io
    this.printFlags = pieces.printFlags
    this.selectionFlags = pieces.selectionFlags
    this.contextsFlags = pieces.contextsFlags
    this.input = pieces.input
    this.wait = pieces.wait
    this.report = pieces.report
  }

  /**
   * The gate: every Deployment named, selected (-l, -A) or defined by the -f manifests in `world`,
   * waited for on the cluster until each is done or failed, or --timeout passes.
   */
  async run(world?: World): Promise<number> {
    const output = this.printFlags.output
    if (output.kind !== 'table' && output.kind !== 'json') {
      throw new UsageError(
        `-o ${output.kind} is for one Deployment: the gate over several prints its table, lines, or -o json`,
      )
    }
    const {io, terminal} = this.pieces
    const common = () => ({
      io,
      ...(terminal ? {terminal} : {}),
      interactive: this.pieces.interactive(),
      output,
      judge: this.wait.judge,
      timeoutMs: this.wait.timeoutMs,
      requireExisting: this.report.requireExisting,
      logLines: this.report.logLines,
      ...(this.report.junit !== undefined ? {junit: this.report.junit} : {}),
      // Read once connected: connecting acts as the server's /version (its minor's gate defaults).
      gates: this.input.gates,
      verbosity: this.input.verbosity,
    })
    if (this.contextsFlags.isMany) {
      const clusters = await this.clusters(world)
      return runGate({...common(), clusters})
    }
    const {api, connection} = await this.input.connectLive()
    return runGate({...common(), api, connection, targets: this.targets(connection, world)})
  }

  /**
   * Several contexts: each connected (at once) with its targets, or the error that kept it from
   * connecting; the others' gates run on (multi-gate.ts).
   */
  private async clusters(world: World | undefined): Promise<GateCluster[]> {
    const [{connect}, {ApiClient}] = await Promise.all([
      import('../cluster/live/kubeconfig.js'),
      import('../cluster/live/api.js'),
    ])
    const verbose = this.input.verbosity >= 6 ? (line: string) => this.io.err(`I ${line}\n`) : undefined
    return Promise.all(
      this.contextsFlags.contexts.map(async (context): Promise<GateCluster> => {
        try {
          const connection = await connect({...this.input.connectionFlags, context})
          const api = new ApiClient(connection, verbose)
          const gates = await this.input.gatesForServer(api, context)
          return {context, api, connection, targets: this.targets(connection, world, context), gates}
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
  private targets(connection: Connection, world: World | undefined, context?: string): GateTargets {
    const selection = this.selectionFlags.selection
    const forced = this.pieces.forced
    const names = selection.names ?? []
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
        `rollout watch: ${context ? `context "${escapeControl(context)}": ` : ''}${forced ? '--live' : `the files hold ${n === 1 ? 'a Deployment manifest' : `${n} Deployment manifests`} (no status)`}: waiting for ${n === 1 ? 'it' : 'them'} on the cluster in namespace${namespaces.length === 1 ? '' : 's'} ${escapeControl(namespaces.join(', '))}${forced ? '' : ` (--simulate simulates ${n === 1 ? 'it' : 'them'} instead)`}\n`,
      )
      targets = {namespaces, keys}
    } else if (selection.allNamespaces) {
      if (names.length > 0) {
        throw new UsageError('a resource cannot be retrieved by name across all namespaces')
      }
      targets = {
        namespaces: undefined,
        ...(selection.labelSelector ? {labelSelector: selection.labelSelector} : {}),
      }
    } else {
      const namespace = connection.namespace
      targets =
        names.length > 0
          ? {namespaces: [namespace], keys: names.map((name) => ({namespace, name}))}
          : {
              namespaces: [namespace],
              ...(selection.labelSelector ? {labelSelector: selection.labelSelector} : {}),
            }
      if (names.length > 0 && selection.labelSelector) {
        throw new UsageError('NAMEs and -l cannot be used together: name the Deployments or select them')
      }
    }
    return targets
  }
}

/** Runs the gate to its end; returns the exit code (0 all done, 1 failed or timed out, 130 interrupted). */
export async function runGate(o: GateRunOptions): Promise<number> {
  const verbose = o.verbosity >= 6 ? (line: string) => o.io.err(`I ${line}\n`) : undefined
  const liveGate = (
    api: ApiClient,
    conn: Connection,
    targets: GateTargets,
    gates: GateRunOptions['gates'],
    context?: string,
  ) =>
    new LiveGate({
      api,
      conn,
      targets,
      judge: o.judge,
      timeoutMs: o.timeoutMs,
      requireExisting: o.requireExisting,
      gates,
      logLines: o.logLines,
      minFrameMs: o.interactive ? 250 : 100,
      warn: (line) => {
        if (!o.interactive || o.verbosity > 0)
          o.io.err(
            `warning: ${context ? `context "${escapeControl(context)}": ` : ''}${escapeControl(line)}\n`,
          )
      },
      ...(verbose ? {debug: verbose} : {}),
    })
  let gate: GateRunner
  if (o.clusters) {
    const {MultiGate} = await import('../watch/multi-gate.js')
    gate = new MultiGate(
      o.clusters.map((c) =>
        'error' in c
          ? {context: c.context, error: c.error, ...(c.targets ? {targets: c.targets} : {})}
          : {
              context: c.context,
              gate: liveGate(c.api, c.connection, c.targets, c.gates, c.context),
              targets: c.targets,
            },
      ),
    )
  } else {
    if (!o.api || !o.connection || !o.targets) throw new Error('runGate: a cluster is needed')
    gate = liveGate(o.api, o.connection, o.targets, o.gates)
  }
  const json = o.output.kind === 'json'
  let end: GateEnd
  if (o.interactive) {
    // ink colours through chalk, which reads FORCE_COLOR once, when it loads: set it first.
    const {wantColor} = await import('../render/style.js')
    if (!wantColor({isTTY: true}, o.io.env)) process.env.FORCE_COLOR = '0'
    const {runGateView} = await import('../render/gate/app.js')
    const terminal = o.terminal as Terminal
    end = await runGateView(gate, {stdout: terminal.stdout, stdin: terminal.stdin})
  } else {
    const onSignal = () => {
      void gate.stop()
    }
    process.once('SIGINT', onSignal)
    try {
      end = await gate.run((u) => o.io.out(json ? updateJson(u) : updateLines(u)))
    } finally {
      process.removeListener('SIGINT', onSignal)
    }
  }
  if (end.nothingSelected !== undefined) {
    o.io.err(`${end.nothingSelected}\n`)
    return 1
  }
  const summary = gateSummary(
    end.rows,
    {
      elapsed: end.elapsed,
      now: end.time,
      ...(end.timedOut !== undefined ? {timedOut: end.timedOut} : {}),
      ...(end.interrupted ? {interrupted: true} : {}),
    },
    o.gates,
  )
  if (json) o.io.out(`${JSON.stringify(summary)}\n`)
  else o.io.out(`${summaryLines(summary, o.logLines).join('\n')}\n`)
  if (o.io.env.GITHUB_ACTIONS === 'true') {
    const lines = githubAnnotations(summary)
    // Workflow commands are read from the job's output: beside NDJSON they go to stderr.
    if (lines.length > 0 && json) o.io.err(`${lines.join('\n')}\n`)
    else if (lines.length > 0) o.io.out(`${lines.join('\n')}\n`)
  }
  if (o.junit !== undefined) await writeJunit(o.junit, summary, o.logLines)
  if (summary.result !== 'Succeeded' && summary.result !== 'Interrupted' && !json) {
    o.io.err(`error: ${escapeControl(summary.message)}\n`)
  }
  return end.code
}

async function writeJunit(path: string, summary: GateSummary, logLines: number): Promise<void> {
  const {junitXml} = await import('../render/gate/text.js')
  try {
    await writeFile(path, junitXml(summary, logLines))
  } catch (err) {
    throw new UsageError(`--junit ${path}: ${err instanceof Error ? err.message : String(err)}`)
  }
}

function updateLines(u: GateUpdate): string {
  return u.changed.map((r) => `${rowLine(r, u.time)}\n`).join('')
}

function updateJson(u: GateUpdate): string {
  return u.changed
    .map(
      (r) =>
        `${JSON.stringify({kind: 'RolloutGateEvent', time: new Date(u.time).toISOString(), elapsed: u.elapsed, ...r})}\n`,
    )
    .join('')
}
