// `run`: be the Deployment controller. Flags become options here (complete, validate); the loop
// itself (informers, queue, workers) lives in src/run and is imported only when it starts.

import type {ConnectionFlags} from '../cluster/live/kubeconfig.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {InputError, UsageError} from '../errors.js'
import type {IO} from './base-command.js'

export interface RunFlags {
  namespace?: string
  'all-namespaces': boolean
  selector?: string
  'feature-gates'?: string
  'concurrent-deployment-syncs': number
  'dry-run': string
  'once-synced': boolean
  force: boolean
  kubeconfig?: string
  context?: string
  cluster?: string
  user?: string
  'request-timeout'?: string
  'insecure-skip-tls-verify'?: boolean
  as?: string
  'as-group'?: string[]
  v?: number
}

/** Something that can deliver SIGINT/SIGTERM (the process, or a test's emitter). */
export interface SignalSource {
  on(signal: 'SIGINT' | 'SIGTERM', fn: () => void): unknown
  off(signal: 'SIGINT' | 'SIGTERM', fn: () => void): unknown
}

export class RunOptions {
  allNamespaces = false
  namespace: string | undefined
  labelSelector: string | undefined
  gates!: FeatureGates & {values: Record<string, boolean>}
  workers = 5
  serverDryRun = false
  onceSynced = false
  force = false
  verbosity = 0
  connectionFlags: ConnectionFlags = {}

  constructor(
    private readonly io: IO,
    private readonly signals: SignalSource = process,
  ) {}

  async complete(flags: RunFlags): Promise<void> {
    const {parseFeatureGates} = await import('../controller/features.js')
    this.allNamespaces = flags['all-namespaces']
    this.namespace = flags.namespace
    this.labelSelector = flags.selector
    this.gates = parseFeatureGates(flags['feature-gates'])
    this.workers = flags['concurrent-deployment-syncs']
    this.serverDryRun = flags['dry-run'] === 'server'
    this.onceSynced = flags['once-synced']
    this.force = flags.force
    this.verbosity = flags.v ?? 0
    const {connectionFlagsOf} = await import('../cluster/live/kubeconfig.js')
    this.connectionFlags = connectionFlagsOf(flags)
  }

  async validateOptions(): Promise<void> {
    if (!Number.isInteger(this.workers) || this.workers < 1) {
      throw new UsageError('--concurrent-deployment-syncs must be at least 1')
    }
    if (this.labelSelector !== undefined) {
      const {parseSelectorFlag} = await import('../pass/selection.js')
      parseSelectorFlag(this.labelSelector)
    }
    if (this.connectionFlags['request-timeout'] !== undefined) {
      const {parseRequestTimeout} = await import('../cluster/live/kubeconfig.js')
      parseRequestTimeout(this.connectionFlags['request-timeout'])
    }
    if (this.allNamespaces && this.namespace) {
      this.io.err(`Warning: -A/--all-namespaces overrides --namespace ${this.namespace}\n`)
    }
  }

  /** Runs the controller until a signal (or, with --once-synced, until the queue drains). Returns the exit code. */
  async run(): Promise<number> {
    const {connect} = await import('../cluster/live/kubeconfig.js')
    const {ApiClient} = await import('../cluster/live/api.js')
    const connection = await connect(this.connectionFlags)
    const verbose = this.verbosity >= 6 ? (line: string) => this.io.err(`I ${line}\n`) : undefined
    const api = new ApiClient(connection, verbose)
    const namespace = this.allNamespaces ? undefined : connection.namespace

    if (!this.force) {
      const {detectOtherController} = await import('../run/preflight.js')
      const {signs, warnings} = await detectOtherController(api, namespace, Date.now())
      for (const w of warnings) this.io.err(`Warning: ${w}\n`)
      if (signs.length > 0) {
        throw new InputError(
          `another Deployment controller seems to be active: ${signs.join('; ')}. Two controllers would fight over the same ReplicaSets; pass --force to start anyway`,
        )
      }
    }

    const {ControllerLoop} = await import('../run/controller.js')
    const loop = new ControllerLoop({
      api,
      conn: connection,
      namespace,
      labelSelector: this.labelSelector,
      workers: this.workers,
      serverDryRun: this.serverDryRun,
      gates: this.gates,
      verbosity: this.verbosity,
      onceSynced: this.onceSynced,
      log: (line) => this.io.err(`${line}\n`),
    })
    let signalled = 0
    const onSignal = (name: 'SIGINT' | 'SIGTERM') => () => {
      signalled++
      if (signalled > 1) {
        this.io.err(`${name} again: exiting without waiting for the syncs in progress\n`)
        process.exit(name === 'SIGINT' ? 130 : 143)
      }
      this.io.err(`${name} received: finishing the syncs in progress, then exiting\n`)
      loop.stop()
    }
    const onInt = onSignal('SIGINT')
    const onTerm = onSignal('SIGTERM')
    this.signals.on('SIGINT', onInt)
    this.signals.on('SIGTERM', onTerm)
    try {
      return await loop.run()
    } finally {
      this.signals.off('SIGINT', onInt)
      this.signals.off('SIGTERM', onTerm)
    }
  }
}
