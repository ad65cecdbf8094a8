// `run` as a process in a cluster, the way kube-controller-manager and controller-runtime's Manager
// run a controller: API clients with client-side rate limits (the Lease client on its own
// budget), /metrics and the probes served from the start, informers on every replica (a standby's
// caches are warm), workers only while this replica holds the Lease, and an ordered shutdown.
//
// Shutdown on SIGINT/SIGTERM: stop taking keys -> finish the syncs in flight -> stop the informers
// -> release the Lease -> close the HTTP servers. Losing the Lease is different: upstream exits at
// once (klog.FlushAndExit), and so does this, with code 1; writes were refused from the moment
// renewal failed.

import {ApiClient} from '../cluster/live/api.js'
import type {Connection} from '../cluster/live/kubeconfig.js'
import {HealthzAdaptor, KCM_HEALTHZ_TIMEOUT_MS} from '../cluster/live/leaderelection/healthz.js'
import type {LeaderElector} from '../cluster/live/leaderelection/leaderelection.js'
import type {Lease} from '../cluster/live/leaderelection/leaselock.js'
import type {ControllerMetrics} from '../cluster/live/metrics/index.js'
import {clientRateLimiter} from '../cluster/live/ratelimit/token-bucket.js'
import {clientHooks} from '../cluster/live/request-hooks.js'
import {realClock} from '../cluster/live/workqueue/clock.js'
import type {ControllerLoop, ControllerLoopOptions} from './controller.js'
import type {Logger} from './log.js'
import type {BindAddress, RunningServer} from './serve.js'

export interface LeaderElectionSettings {
  leaseDurationMs: number
  renewDeadlineMs: number
  retryPeriodMs: number
  resourceName: string
  resourceNamespace: string
  identity: string
}

export interface SignalSource {
  on(signal: 'SIGINT' | 'SIGTERM', fn: () => void): unknown
  off(signal: 'SIGINT' | 'SIGTERM', fn: () => void): unknown
}

export interface ManagerOptions {
  conn: Connection
  loop: Omit<ControllerLoopOptions, 'api' | 'conn' | 'logger' | 'queueMetrics' | 'leadership' | 'log'>
  logger: Logger
  /** undefined: no leader election (the CLI's default). */
  leaderElection?: LeaderElectionSettings
  metricsBind?: BindAddress
  probesBind?: BindAddress
  /**
   * /metrics over HTTPS behind TokenReview and SubjectAccessReview (--metrics-secure), with the
   * certificate of certDir (tls.crt, tls.key) or a self-signed one; undefined: plain HTTP.
   */
  metricsSecure?: {certDir: string | undefined}
  qps: number
  burst: number
  /** The product part of the User-Agent: kubectl-deployctl/VERSION (os/arch). */
  userAgent: string
  /** --v 6: every request. */
  verbose?: (line: string) => void
  /** Skip the check for another active Deployment controller (--force). */
  force: boolean
  signals: SignalSource
  /** How the process ends at once (lost lease, second signal). */
  exit: (code: number) => void
  /**
   * How long leader election may keep failing for authorization, or a standby see the Lease
   * unrenewed past its lease duration, before /readyz fails (default KCM_HEALTHZ_TIMEOUT_MS).
   */
  leaderReadyToleranceMs?: number
  /** Called once the servers listen and the controller starts (tests). */
  onStarted?: (m: {loop: ControllerLoop; elector?: LeaderElector; servers: RunningServer[]}) => void
}

/** How long the syncs in progress get to finish after the first SIGINT/SIGTERM. */
export const SHUTDOWN_GRACE_MS = 2000

export async function runManager(opts: ManagerOptions): Promise<number> {
  const {logger, conn} = opts
  const le = opts.leaderElection
  const metrics: ControllerMetrics | undefined = opts.metricsBind
    ? new (await import('../cluster/live/metrics/index.js')).ControllerMetrics()
    : undefined

  let elector: LeaderElector | undefined
  const who = le ? ` ${le.identity}` : ''
  const api = new ApiClient(conn, opts.verbose, undefined, {
    hooks: clientHooks({
      observer: metrics,
      limiter: clientRateLimiter(opts.qps, opts.burst),
      mayWrite: le ? () => elector?.mayWrite() ?? false : undefined,
    }),
    userAgent: `${opts.userAgent} deployment-controller${who}`,
    keepLog: false,
  })

  if (!opts.force) {
    const {detectOtherController} = await import('./preflight.js')
    const {InputError} = await import('../errors.js')
    const {signs, warnings} = await detectOtherController(api, opts.loop.namespace, Date.now())
    for (const w of warnings) logger.log('W', `Warning: ${w}`)
    if (signs.length > 0) {
      throw new InputError(
        `another Deployment controller is active: ${signs.join('; ')}. Two controllers would fight over the same ReplicaSets; pass --force to start anyway`,
      )
    }
  }

  let loop: ControllerLoop | undefined
  const healthz = new HealthzAdaptor()
  const servers: RunningServer[] = []
  const closeServers = async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()))
  }
  try {
    await startServers(
      opts,
      metrics,
      healthz,
      () => loop,
      () => elector,
      servers,
    )
  } catch (err) {
    await closeServers()
    throw err
  }

  let shuttingDown = false
  let lost = false
  let election: {stop: AbortController; done: Promise<void>} | undefined
  let leadership: Promise<boolean> | undefined
  if (le) {
    const started = await startElection(opts, le, metrics, healthz, {
      isShuttingDown: () => shuttingDown,
      onLost: () => {
        lost = true
        logger.error('leaderelection lost', {lock: `${le.resourceNamespace}/${le.resourceName}`})
        opts.exit(1)
        loop?.stop()
      },
    })
    elector = started.elector
    election = {stop: started.stop, done: started.done}
    leadership = started.leadership
  }

  const {ControllerLoop} = await import('./controller.js')
  loop = new ControllerLoop({
    ...opts.loop,
    api,
    conn,
    logger,
    log: () => {},
    queueMetrics: metrics?.queue('deployment', realClock),
    leadership,
  })
  const current = loop
  let signalled = 0
  const onSignal = (name: 'SIGINT' | 'SIGTERM') => () => {
    signalled++
    shuttingDown = true
    if (signalled > 1) {
      logger.log('W', `${name} again: exiting without waiting for the syncs in progress`)
      opts.exit(name === 'SIGINT' ? 130 : 143)
      return
    }
    logger.log('I', `${name} received: finishing the syncs in progress, then exiting`)
    current.stop()
    // A request that hangs must not hold the exit: whatever is still in flight after the grace
    // period is cut (kube-controller-manager cancels its context at once).
    api.shutdown(SHUTDOWN_GRACE_MS)
  }
  const onInt = onSignal('SIGINT')
  const onTerm = onSignal('SIGTERM')
  opts.signals.on('SIGINT', onInt)
  opts.signals.on('SIGTERM', onTerm)
  opts.onStarted?.({loop, elector, servers})
  let code: number
  try {
    // Stops taking keys, finishes the syncs in flight and stops the informers before it returns.
    code = await loop.run()
  } finally {
    shuttingDown = true
    if (election) {
      election.stop.abort()
      await election.done
    }
    await closeServers()
    opts.signals.off('SIGINT', onInt)
    opts.signals.off('SIGTERM', onTerm)
  }
  return lost ? 1 : code
}

async function startServers(
  opts: ManagerOptions,
  metrics: ControllerMetrics | undefined,
  healthz: HealthzAdaptor,
  loop: () => ControllerLoop | undefined,
  elector: () => LeaderElector | undefined,
  servers: RunningServer[],
): Promise<void> {
  const {serve, checksHandler, metricsHandler} = await import('./serve.js')
  const tolerance = opts.leaderReadyToleranceMs ?? KCM_HEALTHZ_TIMEOUT_MS
  const probes = opts.probesBind
    ? [
        checksHandler('/healthz', opts.leaderElection ? [healthz] : []),
        checksHandler('/readyz', [
          {
            name: 'informer-sync',
            check: () => (loop()?.cachesSynced ? undefined : new Error('caches not synced')),
          },
          ...(opts.leaderElection
            ? [{name: 'leaderElection', check: () => elector()?.readiness(tolerance)}]
            : []),
        ]),
      ]
    : []
  let metricsHandlers = metrics ? [metricsHandler(() => metrics.expose())] : []
  let tls: import('./metrics-auth.js').TlsMaterial | undefined
  if (opts.metricsSecure && opts.metricsBind && metrics) {
    const auth = await import('./metrics-auth.js')
    const {ApiClient} = await import('../cluster/live/api.js')
    // A client of its own: the reviews are POSTs that a standby makes too, past the write guard.
    const reviews = new ApiClient(opts.conn, opts.verbose, undefined, {
      userAgent: `${opts.userAgent} metrics-auth`,
      keepLog: false,
    })
    const inner = metricsHandler(() => metrics.expose())
    metricsHandlers = [
      auth.authenticatedHandler(reviews, inner, (msg, err) =>
        opts.logger.error(msg, {err: err instanceof Error ? err.message : String(err)}),
      ),
    ]
    tls =
      opts.metricsSecure.certDir !== undefined
        ? auth.readCertificate(opts.metricsSecure.certDir)
        : auth.selfSignedCertificate('localhost')
  }
  const same =
    !tls &&
    opts.probesBind &&
    opts.metricsBind &&
    opts.probesBind.host === opts.metricsBind.host &&
    opts.probesBind.port === opts.metricsBind.port &&
    opts.probesBind.port !== 0
  if (same && opts.metricsBind) {
    const s = await serve(opts.metricsBind, [...metricsHandlers, ...probes], '--metrics-bind-address')
    servers.push(s)
    opts.logger.info('Serving metrics and health probes', {address: s.address})
    return
  }
  if (opts.metricsBind) {
    const s = await serve(opts.metricsBind, metricsHandlers, '--metrics-bind-address', tls)
    servers.push(s)
    opts.logger.info('Serving metrics', {
      address: s.address,
      path: '/metrics',
      secure: tls !== undefined,
      ...(tls && !opts.metricsSecure?.certDir ? {certificate: 'self-signed'} : {}),
    })
  }
  if (opts.probesBind) {
    const s = await serve(opts.probesBind, probes, '--health-probe-bind-address')
    servers.push(s)
    opts.logger.info('Serving health probes', {address: s.address, paths: '/healthz,/readyz'})
  }
}

async function startElection(
  opts: ManagerOptions,
  le: LeaderElectionSettings,
  metrics: ControllerMetrics | undefined,
  healthz: HealthzAdaptor,
  hooks: {isShuttingDown: () => boolean; onLost: () => void},
): Promise<{
  elector: LeaderElector
  stop: AbortController
  done: Promise<void>
  leadership: Promise<boolean>
}> {
  const {LeaderElector} = await import('../cluster/live/leaderelection/leaderelection.js')
  const {LeaseLock} = await import('../cluster/live/leaderelection/leaselock.js')
  // upstream (kube-controller-manager): a client of its own for leader election, its timeout the
  // renew deadline, and its own rate limiter, so the controller's traffic cannot starve renewals.
  const leaseApi = new ApiClient(
    {...opts.conn, requestTimeoutMs: le.renewDeadlineMs},
    opts.verbose,
    undefined,
    {
      hooks: clientHooks({observer: metrics, limiter: clientRateLimiter(opts.qps, opts.burst)}),
      userAgent: `${opts.userAgent} leader-election ${le.identity}`,
      keepLog: false,
    },
  )
  const lock = new LeaseLock(
    leaseApi,
    le.resourceNamespace,
    le.resourceName,
    le.identity,
    undefined,
    (lease, msg) => postLeaseEvent(leaseApi, lease, msg),
  )
  let resolveLeading: (leading: boolean) => void = () => {}
  const leadership = new Promise<boolean>((resolve) => {
    resolveLeading = resolve
  })
  const elector = new LeaderElector({
    lock,
    leaseDurationMs: le.leaseDurationMs,
    renewDeadlineMs: le.renewDeadlineMs,
    retryPeriodMs: le.retryPeriodMs,
    releaseOnCancel: true,
    name: le.resourceName,
    log: opts.logger,
    metrics: metrics?.leader(),
    callbacks: {
      onStartedLeading: (signal) => {
        resolveLeading(true)
        signal.addEventListener('abort', () => {
          if (!hooks.isShuttingDown()) hooks.onLost()
        })
      },
      onStoppedLeading: () => resolveLeading(false),
      onNewLeader: (identity) => {
        if (identity === le.identity) return
        opts.logger.info('New leader elected', {identity: identity || '<none>'})
      },
    },
  })
  healthz.setLeaderElection(elector)
  const stop = new AbortController()
  const done = elector.run(stop.signal).catch((err: unknown) => {
    opts.logger.error('leader election failed', {err: err instanceof Error ? err.message : String(err)})
    if (!hooks.isShuttingDown()) hooks.onLost()
  })
  return {elector, stop, done, leadership}
}

/** upstream: LeaseLock.RecordEvent's event — Normal LeaderElection on the Lease. Best effort. */
function postLeaseEvent(api: ApiClient, lease: Lease, message: string): void {
  const now = new Date().toISOString()
  const ns = lease.metadata.namespace ?? 'default'
  const name = lease.metadata.name ?? ''
  void api
    .request({
      method: 'POST',
      path: `/api/v1/namespaces/${encodeURIComponent(ns)}/events`,
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: {generateName: `${name}.`, namespace: ns},
        involvedObject: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          namespace: ns,
          name,
          uid: lease.metadata.uid,
          resourceVersion: lease.metadata.resourceVersion,
        },
        reason: 'LeaderElection',
        message,
        type: 'Normal',
        source: {component: name},
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      },
    })
    .catch(() => {})
}
