// `rollout watch` as a gate: several Deployments on the cluster (NAMEs, -l, -A, or the Deployments
// that -f manifests define) waited for together, with the outputs a CI job reads: a live view on a
// terminal, one line per change otherwise, NDJSON with -o json, JUnit XML, GitHub Actions
// annotations. Loaded only when the gate runs.

import {writeFile} from 'node:fs/promises'
import type {ApiClient} from '../cluster/live/api.js'
import type {Connection} from '../cluster/live/kubeconfig.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {UsageError} from '../errors.js'
import {githubAnnotations, rowLine, summaryLines} from '../render/gate/text.js'
import type {OutputFormat} from '../render/output.js'
import {type GateOptions, type GateSummary, gateSummary} from '../status/gate.js'
import {escapeControl} from '../util/terminal.js'
import {type GateEnd, type GateTargets, type GateUpdate, LiveGate} from '../watch/gate.js'
import type {GateRunner} from '../watch/multi-gate.js'
import type {IO} from './base-command.js'
import type {Terminal} from './rollout-watch.js'

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
  gates: FeatureGates & {values: Record<string, boolean>}
  verbosity: number
}

export type GateCluster =
  | {context: string; api: ApiClient; connection: Connection; targets: GateTargets}
  | {context: string; error: string; targets?: GateTargets}

/** Runs the gate to its end; returns the exit code (0 all done, 1 failed or timed out, 130 interrupted). */
export async function runGate(o: GateRunOptions): Promise<number> {
  const verbose = o.verbosity >= 6 ? (line: string) => o.io.err(`I ${line}\n`) : undefined
  const liveGate = (api: ApiClient, conn: Connection, targets: GateTargets, context?: string) =>
    new LiveGate({
      api,
      conn,
      targets,
      judge: o.judge,
      timeoutMs: o.timeoutMs,
      requireExisting: o.requireExisting,
      gates: o.gates,
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
              gate: liveGate(c.api, c.connection, c.targets, c.context),
              targets: c.targets,
            },
      ),
    )
  } else {
    if (!o.api || !o.connection || !o.targets) throw new Error('runGate: a cluster is needed')
    gate = liveGate(o.api, o.connection, o.targets)
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
