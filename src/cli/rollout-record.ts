// `rollout record`: the options of the recorder, composed from the selection and connection groups
// (NAME... | -l | -A, -n, the kubeconfig flags) and its own (-O FILE, --until-done | --duration,
// --max-size, --no-redact, --no-delta). The recorder (src/watch/record.ts) and the file (cluster/timeline) load
// inside run().

import type {ConnectionFlags} from '../cluster/live/kubeconfig.js'
import {UsageError} from '../errors.js'
import type {RecordEnd} from '../watch/record.js'
import type {CommandOptions, IO} from './base-command.js'
import {ConfigOptions, type SelectionFlagValues, SelectionOptions} from './flag-groups.js'

export type RolloutRecordFlags = SelectionFlagValues &
  ConnectionFlags & {
    'output-file'?: string
    'until-done': boolean
    duration?: string
    'max-size': string
    redact: boolean
    delta: boolean
    v?: number
  }

/** 256 MiB: a few hours of a busy namespace. */
export const DEFAULT_MAX_SIZE = '256Mi'

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  ki: 1024,
  kib: 1024,
  mi: 1024 ** 2,
  mib: 1024 ** 2,
  gi: 1024 ** 3,
  gib: 1024 ** 3,
}

/** `256Mi`, `50MB`, `1Gi`, `1048576`: bytes, or undefined. */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text)
  const unit = UNITS[(m?.[2] ?? '').toLowerCase()]
  if (!m || unit === undefined) return undefined
  const bytes = Math.floor(Number(m[1]) * unit)
  return bytes > 0 ? bytes : undefined
}

export class RolloutRecordOptions implements CommandOptions<RolloutRecordFlags> {
  // The shared groups it has (flag-groups.ts): -n/-A/-l with the names, and the connection.
  readonly selectionFlags = new SelectionOptions()
  readonly configFlags = new ConfigOptions()
  file = ''
  untilDone = false
  durationMs: number | undefined
  maxBytes = 0
  redact = true
  deltas = true
  verbosity = 0

  constructor(private readonly io: IO) {}

  async complete(flags: RolloutRecordFlags, args: readonly string[]): Promise<void> {
    await this.selectionFlags.complete(flags, args)
    await this.configFlags.complete(flags)
    this.file = flags['output-file'] ?? ''
    this.untilDone = flags['until-done']
    if (flags.duration !== undefined) {
      const {parseDuration} = await import('../util/duration.js')
      const ms = parseDuration(flags.duration)
      if (ms === undefined || ms <= 0) {
        throw new UsageError(
          `invalid --duration "${flags.duration}": want a duration such as 10m or 1h30m greater than 0`,
        )
      }
      this.durationMs = ms
    }
    const size = parseSize(flags['max-size'])
    if (size === undefined) {
      throw new UsageError(
        `invalid --max-size "${flags['max-size']}": want a size such as 256Mi, 50MB or 1Gi`,
      )
    }
    this.maxBytes = size
    this.redact = flags.redact
    this.deltas = flags.delta
    this.verbosity = flags.v ?? 0
  }

  async validateOptions(): Promise<void> {
    if (this.file === '') throw new UsageError('-O FILE is required: the file the recording is written to')
    if (this.untilDone && this.durationMs !== undefined) {
      throw new UsageError(
        '--until-done and --duration cannot be combined: one decides when the recording ends',
      )
    }
    const names = this.selectionFlags.selection.names ?? []
    if (
      names.length === 0 &&
      !this.selectionFlags.selection.allNamespaces &&
      this.selectionFlags.selection.labelSelector === undefined
    ) {
      throw new UsageError('say what to record: NAME..., -l SELECTOR or -A')
    }
    if (
      names.length > 0 &&
      (this.selectionFlags.selection.allNamespaces ||
        this.selectionFlags.selection.labelSelector !== undefined)
    ) {
      throw new UsageError('NAME... records those Deployments of one namespace: -A and -l do not apply')
    }
    const {validateSelection} = await import('../pass/selection.js')
    validateSelection(this.selectionFlags.selection)
  }

  /** Records until the end condition; 0, or 1 when --until-done ends on a failed rollout. */
  async run(): Promise<number> {
    const [{connect}, {ApiClient}, {Recorder}, {RecordingFile}, {TIMELINE_API_VERSION}] = await Promise.all([
      import('../cluster/live/kubeconfig.js'),
      import('../cluster/live/api.js'),
      import('../watch/record.js'),
      import('../cluster/timeline/recording-file.js'),
      import('../cluster/timeline/format.js'),
    ])
    // The file first, before the server is asked anything: a file another recorder writes is
    // refused at once. The header is rewritten in open(); this placeholder is never written.
    const sink = new RecordingFile(this.file, this.maxBytes, {
      apiVersion: TIMELINE_API_VERSION,
      kind: 'Timeline',
      selection: {namespace: null},
      start: '',
      kinds: [],
      redacted: true,
      trimmed: '',
    })
    sink.lock()
    let end: RecordEnd
    try {
      const connection = await connect(this.configFlags.connectionFlags, (line) => this.io.err(`${line}\n`))
      const verbose = this.verbosity >= 6 ? (line: string) => this.io.err(`I ${line}\n`) : undefined
      const api = new ApiClient(connection, verbose)
      const namespace = this.selectionFlags.selection.allNamespaces ? undefined : connection.namespace
      const names = this.selectionFlags.selection.names ?? []
      const header = {
        apiVersion: TIMELINE_API_VERSION,
        kind: 'Timeline' as const,
        context: connection.kc.getCurrentContext(),
        ...(connection.kc.getCurrentCluster()?.name
          ? {cluster: connection.kc.getCurrentCluster()?.name}
          : {}),
        server: connection.server,
        ...(await serverVersion(api)),
        selection: {
          namespace: namespace ?? null,
          ...(names.length > 0 ? {names} : {}),
          ...(this.selectionFlags.selection.labelSelector
            ? {labelSelector: this.selectionFlags.selection.labelSelector}
            : {}),
        },
        recorder: api.userAgent,
      }
      const recorder = new Recorder({
        api,
        conn: connection,
        namespace,
        names,
        ...(this.selectionFlags.selection.labelSelector
          ? {labelSelector: this.selectionFlags.selection.labelSelector}
          : {}),
        sink,
        header,
        redact: this.redact,
        deltas: this.deltas,
        untilDone: this.untilDone,
        ...(this.durationMs !== undefined ? {durationMs: this.durationMs} : {}),
        warn: (line) => this.io.err(`warning: ${line}\n`),
        ...(verbose ? {debug: verbose} : {}),
      })
      const what =
        names.length > 0
          ? `deployment ${names.join(', ')}`
          : this.selectionFlags.selection.labelSelector
            ? `deployments -l ${this.selectionFlags.selection.labelSelector}`
            : 'every deployment'
      this.io.err(
        `recording ${what} ${namespace === undefined ? 'in every namespace' : `in namespace ${namespace}`} to ${this.file} ${this.untilDone ? 'until the rollouts are done' : this.durationMs !== undefined ? 'for the --duration' : 'until Ctrl-C'}\n`,
      )
      const onSignal = () => {
        void recorder.stop()
      }
      process.once('SIGINT', onSignal)
      process.once('SIGTERM', onSignal)
      try {
        end = await recorder.run()
      } finally {
        process.removeListener('SIGINT', onSignal)
        process.removeListener('SIGTERM', onSignal)
      }
    } finally {
      sink.close()
    }
    await this.printSummary(end)
    return end.code
  }

  /** What the recording holds, per rollout (explain --timeline-summary prints the same). */
  private async printSummary(end: RecordEnd): Promise<void> {
    const {statSync} = await import('node:fs')
    const bytes = statSync(this.file).size
    this.io.err(
      `recorded ${this.file} (${(bytes / (1024 * 1024)).toFixed(1)} MB), ${end.reason === 'done' ? 'every rollout done' : end.reason === 'duration' ? 'its --duration passed' : 'interrupted'}\n`,
    )
    const [{readFileSync}, {mergeTimelines, parseTimelineFile}, {summarizeTimeline, timelineDeployments}] =
      await Promise.all([
        import('node:fs'),
        import('../cluster/timeline/read.js'),
        import('../watch/timeline-summary.js'),
      ])
    const timeline = mergeTimelines([parseTimelineFile(this.file, readFileSync(this.file, 'utf8'))])
    if (timeline.changes.length === 0) return
    const names = this.selectionFlags.selection.names ?? []
    const namespace = timeline.header?.selection.namespace ?? undefined
    const deployments =
      names.length > 0
        ? names.map((name) => ({namespace: namespace ?? 'default', name}))
        : timelineDeployments(timeline, namespace)
    const {parseFeatureGates} = await import('../controller/features.js')
    const items = await summarizeTimeline({timeline, gates: parseFeatureGates(undefined), deployments})
    if (items.length === 0) {
      this.io.out('no rollout in the recording\n')
      return
    }
    const {renderTimelineSummary} = await import('../render/timeline-summary.js')
    this.io.out(renderTimelineSummary(items))
  }
}

/** GET /version's gitVersion, for the header; nothing when the server does not say. */
async function serverVersion(api: {
  request<T>(spec: {method: 'GET'; path: string}): Promise<T>
}): Promise<{serverVersion?: string}> {
  try {
    const v = await api.request<{gitVersion?: string}>({method: 'GET', path: '/version'})
    return typeof v?.gitVersion === 'string' ? {serverVersion: v.gitVersion} : {}
  } catch {
    return {}
  }
}
