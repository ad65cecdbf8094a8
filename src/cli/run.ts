// `run`: be the Deployment controller. Flags become options here (complete, validate); the loop
// itself (informers, queue, workers) lives in src/run and is imported only when it starts.

import type {ParsedFeatureGates} from '../controller/features.js'
import {UsageError} from '../errors.js'
import type {IO} from './base-command.js'
import type {ControllerFlags, ControllerProcessOptions} from './controller-flags.js'
import {ConfigOptions, SelectionOptions} from './flag-groups.js'
import type {KubeVersionChoice} from './pass-options.js'

export interface RunFlags extends Partial<ControllerFlags> {
  namespace?: string
  'all-namespaces': boolean
  selector?: string
  'feature-gates'?: string
  'kube-version'?: string
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

/** run's default --request-timeout (other commands wait as long as kubectl does: for ever). */
export const RUN_REQUEST_TIMEOUT = '30s'

/** Something that can deliver SIGINT/SIGTERM (the process, or a test's emitter). */
export interface SignalSource {
  on(signal: 'SIGINT' | 'SIGTERM', fn: () => void): unknown
  off(signal: 'SIGINT' | 'SIGTERM', fn: () => void): unknown
}

export class RunOptions {
  // The flag groups it shares with the other commands (flag-groups.ts): -n/-A/-l and the connection.
  readonly selectionFlags = new SelectionOptions()
  readonly configFlags = new ConfigOptions()
  gates!: ParsedFeatureGates
  kubeVersion!: KubeVersionChoice
  workers = 5
  serverDryRun = false
  clientDryRun = false
  onceSynced = false
  force = false
  verbosity = 0
  process!: ControllerProcessOptions
  version = '0.0.0'

  constructor(
    private readonly io: IO,
    private readonly signals: SignalSource = process,
    private readonly exit: (code: number) => void = (code) => process.exit(code),
  ) {}

  async complete(flags: RunFlags, version?: string): Promise<void> {
    if (version) this.version = version
    const {parseFeatureGates} = await import('../controller/features.js')
    await this.selectionFlags.complete(flags, [])
    const {completeKubeVersion} = await import('./pass-options.js')
    this.kubeVersion = await completeKubeVersion(flags['kube-version'])
    this.gates = parseFeatureGates(flags['feature-gates'], this.kubeVersion.minor)
    this.workers = flags['concurrent-deployment-syncs']
    this.serverDryRun = flags['dry-run'] === 'server'
    this.clientDryRun = flags['dry-run'] === 'client'
    this.onceSynced = flags['once-synced']
    this.force = flags.force
    this.verbosity = flags.v ?? 0
    // A controller runs unattended: no request may hang it (--help says so).
    await this.configFlags.complete({
      ...flags,
      'request-timeout': flags['request-timeout'] ?? RUN_REQUEST_TIMEOUT,
    })
    const {controllerProcessOptions} = await import('./controller-flags.js')
    this.process = await controllerProcessOptions({
      'leader-elect': flags['leader-elect'] ?? false,
      'leader-elect-lease-duration': flags['leader-elect-lease-duration'] ?? '15s',
      'leader-elect-renew-deadline': flags['leader-elect-renew-deadline'] ?? '10s',
      'leader-elect-retry-period': flags['leader-elect-retry-period'] ?? '2s',
      'leader-elect-resource-name': flags['leader-elect-resource-name'] ?? 'kubectl-deployctl',
      'leader-elect-resource-namespace': flags['leader-elect-resource-namespace'],
      'metrics-bind-address': flags['metrics-bind-address'] ?? '0',
      'health-probe-bind-address': flags['health-probe-bind-address'] ?? '0',
      'metrics-secure': flags['metrics-secure'] ?? true,
      'metrics-cert-path': flags['metrics-cert-path'],
      'kube-api-qps': flags['kube-api-qps'] ?? '20',
      'kube-api-burst': flags['kube-api-burst'] ?? 30,
      'log-format': flags['log-format'] ?? 'text',
    })
  }

  async validateOptions(): Promise<void> {
    if (!Number.isInteger(this.workers) || this.workers < 1) {
      throw new UsageError('--concurrent-deployment-syncs must be at least 1')
    }
    await this.selectionFlags.validate(this.io)
    // kubectl's client dry run sends nothing; taking and renewing a Lease is a write.
    if (this.clientDryRun && this.process.leaderElection) {
      throw new UsageError('--leader-elect cannot be used with --dry-run=client (the Lease is a write)')
    }
  }

  /** Runs the controller until a signal (or, with --once-synced, until the queue drains). Returns the exit code. */
  async run(): Promise<number> {
    const {connect} = await import('../cluster/live/kubeconfig.js')
    const {createLogger} = await import('../run/log.js')
    const {parseBindAddress} = await import('../run/serve.js')
    const {runManager} = await import('../run/manager.js')
    const connection = await connect(this.configFlags.connectionFlags, (line) => this.io.err(`${line}\n`))
    const logger = createLogger({
      format: this.process.logFormat,
      verbosity: this.verbosity,
      write: (line) => this.io.err(`${line}\n`),
    })
    const verbose = this.verbosity >= 6 ? (line: string) => logger.log('I', line) : undefined
    // The minor to act as: --kube-version, else the server's, read once at start as KCM runs one.
    const {serverKubeVersion} = await import('./pass-options.js')
    const {ApiClient} = await import('../cluster/live/api.js')
    this.kubeVersion = await serverKubeVersion(new ApiClient(connection, verbose), this.kubeVersion)
    if (this.kubeVersion.warning) logger.log('W', this.kubeVersion.warning.replace(/^warning: /, ''))
    if (this.kubeVersion.minor !== this.gates.kubeVersion) {
      const {parseFeatureGates} = await import('../controller/features.js')
      this.gates = parseFeatureGates(this.gates.spec, this.kubeVersion.minor)
    }
    logger.info('Kubernetes version', {
      version: `v1.${this.kubeVersion.minor}`,
      from: this.kubeVersion.from,
    })
    const namespace = this.selectionFlags.selection.allNamespaces ? undefined : connection.namespace
    const le = this.process.leaderElection
    let leaderElection: import('../run/manager.js').LeaderElectionSettings | undefined
    if (le) {
      const {defaultIdentity} = await import('../cluster/live/leaderelection/leaderelection.js')
      leaderElection = {
        ...le,
        // upstream: the resource namespace defaults to the pod's own in a cluster.
        resourceNamespace:
          le.resourceNamespace ?? (connection.inCluster ? connection.namespace : 'kube-system'),
        identity: defaultIdentity(),
      }
      logger.info('Leader election', {
        identity: leaderElection.identity,
        lock: `${leaderElection.resourceNamespace}/${leaderElection.resourceName}`,
      })
    }
    return runManager({
      conn: connection,
      loop: {
        namespace,
        labelSelector: this.selectionFlags.selection.labelSelector,
        workers: this.workers,
        serverDryRun: this.serverDryRun,
        clientDryRun: this.clientDryRun,
        gates: this.gates,
        verbosity: this.verbosity,
        onceSynced: this.onceSynced,
      },
      logger,
      leaderElection,
      metricsBind: parseBindAddress(this.process.metricsBindAddress, '--metrics-bind-address'),
      probesBind: parseBindAddress(this.process.healthProbeBindAddress, '--health-probe-bind-address'),
      ...(this.process.metricsSecure ? {metricsSecure: this.process.metricsSecure} : {}),
      qps: this.process.qps,
      burst: this.process.burst,
      userAgent: `kubectl-deployctl/${this.version} (${process.platform}/${process.arch})`,
      verbose,
      force: this.force,
      signals: this.signals,
      exit: this.exit,
    })
  }
}
