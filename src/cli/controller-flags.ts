// The flag groups of a controller process, named as kube-controller-manager and controller-runtime
// name them: leader election, serving (metrics and probes), the API client's rate limits, and
// logging. Each group has its flags and its complete/validate step into plain options.

import * as Flags from '@oclif/core/flags'
import {UsageError} from '../errors.js'
import {parseDuration} from '../util/duration.js'

const LEADER = 'LEADER ELECTION'
const SERVING = 'SERVING'

export const leaderElectionFlags = {
  'leader-elect': Flags.boolean({
    helpGroup: LEADER,
    default: false,
    allowNo: true,
    description:
      'Take a Lease before running the workers, so that one of several replicas is the controller at a time (kube-controller-manager flag).',
  }),
  'leader-elect-lease-duration': Flags.string({
    helpGroup: LEADER,
    helpValue: 'DURATION',
    default: '15s',
    description:
      'How long a standby waits, after it last saw the Lease change, before it takes the Lease over.',
  }),
  'leader-elect-renew-deadline': Flags.string({
    helpGroup: LEADER,
    helpValue: 'DURATION',
    default: '10s',
    description: 'How long the leader retries renewing the Lease before it gives up (and exits 1).',
  }),
  'leader-elect-retry-period': Flags.string({
    helpGroup: LEADER,
    helpValue: 'DURATION',
    default: '2s',
    description: 'How long candidates wait between tries to take or renew the Lease.',
  }),
  'leader-elect-resource-name': Flags.string({
    helpGroup: LEADER,
    helpValue: 'NAME',
    default: 'kubectl-deployctl',
    description: 'Name of the Lease (coordination.k8s.io/v1).',
  }),
  'leader-elect-resource-namespace': Flags.string({
    helpGroup: LEADER,
    helpValue: 'NS',
    description:
      "Namespace of the Lease (default: the pod's namespace when running in a cluster, else kube-system).",
  }),
}

export const servingFlags = {
  'metrics-bind-address': Flags.string({
    helpGroup: SERVING,
    helpValue: 'HOST:PORT',
    default: '0',
    description: 'Serve Prometheus metrics on /metrics at this address, e.g. :8080; 0 turns it off.',
  }),
  'health-probe-bind-address': Flags.string({
    helpGroup: SERVING,
    helpValue: 'HOST:PORT',
    default: '0',
    description: 'Serve /healthz and /readyz at this address, e.g. :8081; 0 turns it off.',
  }),
  'metrics-secure': Flags.boolean({
    helpGroup: SERVING,
    default: true,
    description:
      "Serve /metrics over HTTPS to callers whose token a TokenReview authenticates and a SubjectAccessReview allows to get /metrics (kubebuilder's default); --metrics-secure=false serves plain HTTP to anyone.",
  }),
  'metrics-cert-path': Flags.string({
    helpGroup: SERVING,
    helpValue: 'DIR',
    description:
      'Directory with tls.crt and tls.key for /metrics (e.g. a mounted Secret); default: a self-signed certificate made at start-up.',
  }),
}

export const apiClientFlags = {
  'kube-api-qps': Flags.string({
    helpGroup: 'CLUSTER',
    helpValue: 'QPS',
    default: '20',
    description:
      'Requests per second the controller may send to the API server, watches included (the Lease client has its own budget); 0: 5, as client-go; negative: no limit.',
  }),
  'kube-api-burst': Flags.integer({
    helpGroup: 'CLUSTER',
    helpValue: 'N',
    default: 30,
    description: 'Requests the controller may send at once above --kube-api-qps (0: 10, as client-go).',
  }),
}

export const loggingFlags = {
  'log-format': Flags.string({
    helpGroup: 'GLOBAL',
    options: ['text', 'json'],
    default: 'text',
    description:
      "Log format on stderr: klog's text, or JSON as kube-controller-manager's --logging-format=json.",
  }),
}

export interface ControllerFlags {
  'leader-elect': boolean
  'leader-elect-lease-duration': string
  'leader-elect-renew-deadline': string
  'leader-elect-retry-period': string
  'leader-elect-resource-name': string
  'leader-elect-resource-namespace'?: string
  'metrics-bind-address': string
  'health-probe-bind-address': string
  'metrics-secure'?: boolean
  'metrics-cert-path'?: string
  'kube-api-qps': string
  'kube-api-burst': number
  'log-format': string
}

export interface LeaderElectionOptions {
  leaseDurationMs: number
  renewDeadlineMs: number
  retryPeriodMs: number
  resourceName: string
  /** undefined: decided once connected (the pod's namespace in a cluster, else kube-system). */
  resourceNamespace: string | undefined
}

export interface ControllerProcessOptions {
  leaderElection: LeaderElectionOptions | undefined
  metricsBindAddress: string
  healthProbeBindAddress: string
  /** /metrics over HTTPS behind TokenReview and SubjectAccessReview; certDir: tls.crt and tls.key. */
  metricsSecure: {certDir: string | undefined} | undefined
  qps: number
  burst: number
  logFormat: 'text' | 'json'
}

/** A Go duration flag (15s, 1m30s), as kube-controller-manager parses its leader election flags. */
function durationFlag(text: string, flag: string): number {
  const ms = parseDuration(text)
  if (ms === undefined)
    throw new UsageError(`invalid ${flag} "${text}": want a duration such as 15s, 1m or 500ms`)
  return Math.round(ms)
}

/** Complete and validate the groups (durations parsed, upstream's leader election checks). */
export async function controllerProcessOptions(flags: ControllerFlags): Promise<ControllerProcessOptions> {
  let leaderElection: LeaderElectionOptions | undefined
  if (flags['leader-elect']) {
    const le: LeaderElectionOptions = {
      leaseDurationMs: durationFlag(flags['leader-elect-lease-duration'], '--leader-elect-lease-duration'),
      renewDeadlineMs: durationFlag(flags['leader-elect-renew-deadline'], '--leader-elect-renew-deadline'),
      retryPeriodMs: durationFlag(flags['leader-elect-retry-period'], '--leader-elect-retry-period'),
      resourceName: flags['leader-elect-resource-name'],
      resourceNamespace: flags['leader-elect-resource-namespace'],
    }
    const {validateLeaderElectionConfig} = await import('../cluster/live/leaderelection/leaderelection.js')
    const problem = validateLeaderElectionConfig(le)
    if (problem) {
      throw new UsageError(
        `invalid leader election timing: ${problem} (--leader-elect-lease-duration ${flags['leader-elect-lease-duration']}, --leader-elect-renew-deadline ${flags['leader-elect-renew-deadline']}, --leader-elect-retry-period ${flags['leader-elect-retry-period']})`,
      )
    }
    if (le.leaseDurationMs % 1000 !== 0) {
      // The Lease stores whole seconds (leaseDurationSeconds); upstream truncates silently.
      throw new UsageError(
        `--leader-elect-lease-duration ${flags['leader-elect-lease-duration']}: the Lease holds whole seconds`,
      )
    }
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(le.resourceName)) {
      throw new UsageError(`--leader-elect-resource-name "${le.resourceName}" is not a valid Lease name`)
    }
    leaderElection = le
  }
  const {parseBindAddress} = await import('../run/serve.js')
  const metricsBind = parseBindAddress(flags['metrics-bind-address'], '--metrics-bind-address')
  const probesBind = parseBindAddress(flags['health-probe-bind-address'], '--health-probe-bind-address')
  const secure = flags['metrics-secure'] !== false
  if (
    secure &&
    metricsBind &&
    probesBind &&
    metricsBind.port !== 0 &&
    metricsBind.port === probesBind.port &&
    metricsBind.host === probesBind.host
  ) {
    throw new UsageError(
      '--metrics-bind-address and --health-probe-bind-address name one address, but /metrics is served over HTTPS (--metrics-secure) and the probes over plain HTTP: give them two ports, or pass --metrics-secure=false',
    )
  }
  if (!secure && flags['metrics-cert-path'] !== undefined) {
    throw new UsageError('--metrics-cert-path needs --metrics-secure (the default)')
  }
  const qps = Number(flags['kube-api-qps'])
  if (!Number.isFinite(qps) || flags['kube-api-qps'].trim() === '') {
    throw new UsageError(`invalid --kube-api-qps "${flags['kube-api-qps']}": want a number, e.g. 20`)
  }
  const burst = flags['kube-api-burst']
  if (burst < 0)
    throw new UsageError("--kube-api-burst must not be negative (0 means client-go's default, 10)")
  return {
    leaderElection,
    metricsBindAddress: flags['metrics-bind-address'],
    healthProbeBindAddress: flags['health-probe-bind-address'],
    metricsSecure: secure ? {certDir: flags['metrics-cert-path']} : undefined,
    qps,
    burst,
    logFormat: flags['log-format'] === 'json' ? 'json' : 'text',
  }
}
