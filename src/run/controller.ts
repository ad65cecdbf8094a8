// upstream: DeploymentController.Run — informers for Deployments, ReplicaSets and Pods, the event
// handlers feeding a rate-limited work queue, and N workers each taking a key, running
// syncDeployment over the caches with its writes sent to the cluster, and handling the error.

import type {Action, RecordedEvent} from '../cluster/action.js'
import type {ApiClient} from '../cluster/live/api.js'
import {Informer} from '../cluster/live/cache/informer.js'
import {
  InformerListers,
  POD_CONTROLLER_UID_INDEX,
  podControllerUID,
  replicaSetIndexers,
} from '../cluster/live/cache/listers.js'
import {trimPodForController} from '../cluster/live/cache/trim.js'
import {LiveClient} from '../cluster/live/client.js'
import {postEvents} from '../cluster/live/events.js'
import type {Connection} from '../cluster/live/kubeconfig.js'
import {listAll} from '../cluster/live/read.js'
import {type LoopClock, realClock, sleep, type TimerHandle} from '../cluster/live/workqueue/clock.js'
import {type QueueMetrics, WorkQueue} from '../cluster/live/workqueue/queue.js'
import {defaultControllerRateLimiter} from '../cluster/live/workqueue/rate-limiter.js'
import {RecordingClient} from '../cluster/memory.js'
import {errorMessage, hasStatusCause, NamespaceTerminatingCause} from '../controller/api/errors.js'
import type {Deployment, Pod, ReplicaSet} from '../controller/api/types.js'
import {syncDeployment} from '../controller/deployment-controller.js'
import type {EventType, FeatureGates} from '../controller/interfaces.js'
import {ChangeTracker} from '../pass/change.js'
import {newControllerContext} from '../pass/context.js'
import {formatTime, goDuration} from '../util/duration.js'
import {dryRunStore} from './dry-run-store.js'
import {DeploymentEventHandlers} from './handlers.js'
import type {Logger} from './log.js'

/** upstream: maxRetries — after this many requeues a failing key is dropped (until its next event). */
export const MAX_RETRIES = 15

/**
 * upstream: the informer factory's resync period, ResyncPeriod(MinResyncPeriod = 12h): a random
 * value between 12 and 24 hours.
 */
export function resyncPeriodMs(): number {
  return 12 * 3600_000 * (1 + Math.random())
}

/** --once-synced: error retries due within this delay are waited for; later ones count as failures. */
export const ONCE_SYNCED_RETRY_WAIT_MS = 1000
/** --once-synced: the queue must stay empty this long (the echoes of the last writes arrive meanwhile). */
export const ONCE_SYNCED_SETTLE_MS = 500

export interface ControllerLoopOptions {
  api: ApiClient
  conn: Connection
  /** undefined: every namespace. */
  namespace: string | undefined
  /** -l: only Deployments with these labels are watched (and so synced). */
  labelSelector?: string
  workers: number
  serverDryRun: boolean
  /**
   * --dry-run=client: nothing is sent. Each sync writes into a store of the cached objects it can
   * touch (dryRunStore; the recording client of dry-run sync) and every write and event it would
   * have sent is logged instead.
   */
  clientDryRun?: boolean
  gates: FeatureGates
  verbosity: number
  onceSynced: boolean
  /** One line to stderr (no newline). */
  log: (line: string) => void
  clock?: LoopClock
  /** Informer resync period; 0 disables it. Default: resyncPeriodMs(). */
  resyncMs?: number
  /** Called after every sync, with why the key was queued (tests count syncs by cause). */
  onSync?: (record: SyncRecord) => void
  /** Structured logging (--log-format); without it, `log` gets klog text lines. */
  logger?: Logger
  /** The work queue's metrics (workqueue_*{name="deployment"}). */
  queueMetrics?: QueueMetrics<string>
  /**
   * With leader election: resolves true once this replica leads (workers start then), false when
   * it stops before leading. Informers run before that, so a standby's caches are warm.
   */
  leadership?: Promise<boolean>
}

/** One sync, as onSync reports it. */
export interface SyncRecord {
  key: string
  /** Why the key was queued: the informer events and requeues since its previous sync. */
  causes: string[]
  /** When the sync started (the loop's clock). */
  at: number
  error: unknown
  writes: number
  /** The requeues the sync asked for, in the words of the --v 2 log. */
  requeues: string[]
}

export interface SyncOutcome {
  key: string
  error: unknown
  ms: number
  writes: Action[]
  requeues: string[]
}

type Severity = 'I' | 'W' | 'E'

export type ErrorDecision = {action: 'forget'} | {action: 'requeue'; delayMs: number} | {action: 'drop'}

/**
 * upstream: handleErr — success or a terminating namespace forgets the key's back-off; an error
 * requeues it rate-limited until it has been requeued MAX_RETRIES times, then it is dropped.
 */
export function handleErr(queue: WorkQueue<string>, key: string, error: unknown): ErrorDecision {
  if (error === undefined || hasStatusCause(error, NamespaceTerminatingCause)) {
    queue.forget(key)
    return {action: 'forget'}
  }
  if (queue.numRequeues(key) < MAX_RETRIES) {
    return {action: 'requeue', delayMs: queue.addRateLimited(key, 'retry after an error')}
  }
  queue.forget(key)
  return {action: 'drop'}
}

export class ControllerLoop {
  readonly queue: WorkQueue<string>
  readonly deployments: Informer<Deployment>
  readonly replicaSets: Informer<ReplicaSet>
  readonly pods: Informer<Pod>
  readonly listers: InformerListers
  readonly handlers: DeploymentEventHandlers
  private readonly clock: LoopClock
  private stopping = false
  private stopRequested: () => void = () => {}
  private readonly stopped: Promise<void>
  private readonly pendingEvents = new Set<Promise<unknown>>()
  /** The outcome of each key's latest sync: true when it succeeded. */
  readonly lastOk = new Map<string, {ok: boolean; error?: string}>()
  /** Error retries whose delay is short enough for --once-synced to wait for them. */
  private readonly shortRetries = new Set<string>()
  private lastActivity = 0

  constructor(private readonly opts: ControllerLoopOptions) {
    this.clock = opts.clock ?? realClock
    this.queue = new WorkQueue<string>(
      this.clock,
      defaultControllerRateLimiter<string>(this.clock),
      opts.queueMetrics,
    )
    this.queue.onReady = () => {
      this.lastActivity = this.clock.now()
    }
    const freeze = process.env.VITEST !== undefined || process.env.DEPLOYCTL_FREEZE === '1'
    const common = {
      api: opts.api,
      conn: opts.conn,
      namespace: opts.namespace,
      clock: this.clock,
      resyncMs: opts.resyncMs ?? resyncPeriodMs(),
      freeze,
      warn: (line: string) => this.log('W', line),
      debug: opts.verbosity >= 4 ? (line: string) => this.log('I', line) : undefined,
    }
    this.deployments = new Informer<Deployment>({
      ...common,
      resource: 'deployments',
      labelSelector: opts.labelSelector,
    })
    this.replicaSets = new Informer<ReplicaSet>({
      ...common,
      resource: 'replicasets',
      indexers: replicaSetIndexers,
    })
    this.pods = new Informer<Pod>({
      ...common,
      resource: 'pods',
      indexers: {[POD_CONTROLLER_UID_INDEX]: podControllerUID},
      transform: trimPodForController,
    })
    this.listers = new InformerListers(this.deployments, this.replicaSets, this.pods)
    this.handlers = new DeploymentEventHandlers({
      getDeployment: (ns, name) => this.listers.getDeployment(ns, name),
      listDeployments: (ns) => this.listers.listDeployments(ns),
      getReplicaSet: (ns, name) => this.listers.getReplicaSet(ns, name),
      podsByControllerUID: (uid) => this.listers.podsByControllerUID(uid),
      listReplicaSetsFromAPI: async (ns, labelSelector) =>
        (await listAll<ReplicaSet>(opts.api, 'replicasets', ns, labelSelector ? {labelSelector} : {})).items,
      enqueue: (d, cause) => this.queue.add(`${d.metadata.namespace ?? ''}/${d.metadata.name ?? ''}`, cause),
      debug: opts.verbosity >= 4 ? (line) => this.log('I', line) : undefined,
    })
    const h = this.handlers
    this.deployments.addEventHandler({
      add: (d) => h.addDeployment(d),
      update: (old, cur) => h.updateDeployment(old, cur),
      delete: (d) => h.deleteDeployment(d),
    })
    this.replicaSets.addEventHandler({
      add: (rs) => h.addReplicaSet(rs),
      update: (old, cur) => h.updateReplicaSet(old, cur),
      delete: (rs) => h.deleteReplicaSet(rs),
    })
    this.pods.addEventHandler({
      delete: (pod) => {
        this.track(h.deletePod(pod))
      },
    })
    this.stopped = new Promise((resolve) => {
      this.stopRequested = resolve
    })
  }

  /** Stops taking keys; run() then drains the workers and returns. */
  stop(): void {
    if (this.stopping) return
    this.stopping = true
    this.stopRequested()
  }

  get isStopping(): boolean {
    return this.stopping
  }

  /** Every informer has listed once (/readyz). */
  get cachesSynced(): boolean {
    return this.deployments.hasSynced && this.replicaSets.hasSynced && this.pods.hasSynced
  }

  /**
   * Runs until stop() (or, with --once-synced, until every key has been processed and the queue
   * is idle). Returns the exit code.
   */
  async run(): Promise<number> {
    const scope = this.opts.namespace === undefined ? 'all namespaces' : `namespace ${this.opts.namespace}`
    this.log('I', `starting deployment controller for ${scope}; waiting for caches to sync`)
    const informers = [this.deployments, this.replicaSets, this.pods]
    try {
      await Promise.all(informers.map((i) => i.start()))
    } catch (err) {
      await Promise.all(informers.map((i) => i.stop()))
      // Asked to stop while a first list hung: its request was cut, which is no failure.
      if (this.stopping) {
        this.log('I', 'deployment controller stopped before its caches synced')
        return 0
      }
      throw err
    }
    this.log(
      'I',
      `caches synced: ${this.deployments.size} deployments, ${this.replicaSets.size} replicasets, ${this.pods.size} pods; ${this.opts.workers} worker${this.opts.workers === 1 ? '' : 's'}${this.opts.serverDryRun ? ' (server dry run: nothing is stored)' : this.opts.clientDryRun ? ' (client dry run: nothing is sent)' : ''}`,
    )
    if (this.opts.leadership) {
      this.log('I', 'waiting to lead before starting workers')
      const leading = await Promise.race([this.opts.leadership, this.stopped.then(() => false)])
      if (!leading) {
        this.stopping = true
        this.queue.shutDown()
        await Promise.all(informers.map((i) => i.stop()))
        this.log('I', 'deployment controller stopped before it led')
        return 0
      }
      this.log('I', `leading: starting ${this.opts.workers} workers`)
    }
    const workers = Array.from({length: this.opts.workers}, () => this.worker())
    let code = 0
    let completed = true
    if (this.opts.onceSynced) {
      completed = await Promise.race([this.waitIdle().then(() => true), this.stopped.then(() => false)])
    } else {
      await this.stopped
    }
    this.stopping = true
    if (this.queue.processingCount() > 0) {
      this.log('I', `stopping: waiting for ${this.queue.processingCount()} sync(s) in progress`)
    }
    await this.queue.shutDownWithDrain()
    await Promise.all(workers)
    await Promise.all(informers.map((i) => i.stop()))
    // Events are posted in the background; give the last ones a moment to land.
    let giveUp: TimerHandle | undefined
    await Promise.race([
      Promise.allSettled([...this.pendingEvents]),
      new Promise<void>((resolve) => {
        giveUp = this.clock.setTimer(5000, resolve)
      }),
    ])
    giveUp?.cancel()
    if (this.opts.onceSynced) {
      const failed = [...this.lastOk].filter(([, r]) => !r.ok)
      for (const [key, r] of failed) this.log('E', `sync of deployment ${key} failed: ${r.error ?? ''}`)
      this.log(
        'I',
        completed
          ? `once-synced: ${this.lastOk.size} deployment${this.lastOk.size === 1 ? '' : 's'} synced, ${failed.length} failed`
          : 'once-synced: interrupted before the queue drained',
      )
      code = failed.length > 0 || !completed ? 1 : 0
    } else {
      this.log('I', 'deployment controller stopped')
    }
    return code
  }

  // upstream: worker / processNextWorkItem
  private async worker(): Promise<void> {
    while (!this.stopping) {
      const key = await this.queue.get()
      if (key === undefined) return
      try {
        if (this.stopping) return
        this.shortRetries.delete(key)
        const causes = this.queue.causesOf(key)
        const at = this.clock.now()
        const outcome = await this.syncKey(key, causes)
        this.handleErr(outcome)
        this.opts.onSync?.({
          key,
          causes,
          at,
          error: outcome.error,
          writes: outcome.writes.length,
          requeues: outcome.requeues,
        })
      } finally {
        this.queue.done(key)
        this.lastActivity = this.clock.now()
      }
    }
  }

  // upstream: handleErr
  private handleErr({key, error}: SyncOutcome): void {
    const requeues = this.queue.numRequeues(key)
    const decision = handleErr(this.queue, key, error)
    if (decision.action === 'requeue') {
      if (decision.delayMs <= ONCE_SYNCED_RETRY_WAIT_MS) this.shortRetries.add(key)
      if (this.opts.verbosity >= 2) {
        this.log(
          'I',
          `error syncing deployment ${key}: ${errorMessage(error)}; retry ${requeues + 1} in ${goDuration(decision.delayMs)}`,
        )
      }
    } else if (decision.action === 'drop') {
      this.log(
        'E',
        `dropping deployment ${key} out of the queue after ${MAX_RETRIES} retries: ${errorMessage(error)}`,
      )
    }
  }

  /** One syncDeployment over the caches, its writes sent to the cluster, its events posted. */
  async syncKey(key: string, causes: string[] = []): Promise<SyncOutcome> {
    const slash = key.indexOf('/')
    const namespace = key.slice(0, slash)
    const name = key.slice(slash + 1)
    const started = this.clock.now()
    const store = this.opts.clientDryRun
      ? dryRunStore(this.listers, namespace, name, () => this.clock.now())
      : undefined
    const client = store
      ? new RecordingClient(store)
      : new LiveClient(this.opts.api, {serverDryRun: this.opts.serverDryRun})
    const requeues: string[] = []
    // --dry-run=client: the events, logged after the writes they follow.
    const dryEvents: string[] = []
    const {ctx, record} = newControllerContext({
      listers: this.listers,
      client,
      now: () => this.clock.now(),
      gates: this.opts.gates,
      key: {namespace, name},
      onEvent: (d, type, reason, message) =>
        store
          ? dryEvents.push(
              `dry run: would record event ${type} ${reason} on deployment ${key}: ${message} (not sent)`,
            )
          : this.postEvent(d, type, reason, message, key),
      // requeueStuckDeployment's progress checks. --once-synced reports them and does not follow
      // them, as it does not wait for delayed requeues: a Deployment whose Progressing condition is
      // past its deadline but neither complete nor timed out (NewReplicaSetAvailable, say, while old
      // pods terminate) is re-checked rate-limited after every sync, upstream too, until the world
      // changes; --once-synced would then never see an idle queue.
      queue: {
        addAfter: (seconds) => {
          const after = goDuration(seconds * 1000)
          if (this.opts.onceSynced) {
            requeues.push(`requeue after ${after} not followed (--once-synced)`)
            return
          }
          this.queue.addAfter(key, seconds * 1000, `progress check after ${after}`)
          requeues.push(`requeue after ${after}`)
        },
        addRateLimited: () => {
          if (this.opts.onceSynced) {
            requeues.push('rate-limited requeue not followed (--once-synced)')
            return
          }
          const delay = this.queue.addRateLimited(key, 'progress check now (rate-limited)')
          requeues.push(`rate-limited requeue in ${goDuration(delay)}`)
        },
      },
    })
    const path = record.path
    let error: unknown
    try {
      await syncDeployment(ctx, namespace, name)
    } catch (err) {
      error = err ?? new Error('sync failed')
    }
    const ms = this.clock.now() - started
    const writes = client.actions.filter((a) => a.verb !== 'get')
    if (store) {
      // As dry-run sync's table: each write described against the object before it.
      const tracker = new ChangeTracker((resource, ns, n) => store.initial(resource, ns, n))
      for (const a of writes) {
        const what = `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.namespace}/${a.name}`
        this.log('I', `dry run: would ${what}: ${tracker.describe(a).summary || 'no change'} (not sent)`)
      }
      for (const line of dryEvents) this.log('I', line)
    }
    this.lastOk.set(key, error === undefined ? {ok: true} : {ok: false, error: errorMessage(error)})
    if (this.opts.verbosity >= 2) {
      const parts = [`${writes.length} write${writes.length === 1 ? '' : 's'}`, ...requeues]
      const result = error === undefined ? 'ok' : `error: ${errorMessage(error)}`
      this.log(
        error === undefined ? 'I' : 'E',
        `synced deployment ${key} in ${goDuration(ms)}: ${result} (${parts.join(', ')})`,
      )
    }
    if (this.opts.verbosity >= 4) {
      if (causes.length > 0) this.log('I', `  queued by: ${causes.join('; ')}`)
      this.log('I', `  path: ${path.join(' > ')}`)
      for (const a of store ? [] : writes) {
        const what = `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.namespace}/${a.name}`
        this.log('I', `  ${what}: ${a.outcome ?? 'sent'}${a.error ? ` (${a.error})` : ''}`)
      }
    }
    return {key, error, ms, writes, requeues}
  }

  private postEvent(d: Deployment, type: EventType, reason: string, message: string, key: string): void {
    const event: RecordedEvent = {
      type,
      reason,
      message,
      object: {kind: 'Deployment', namespace: d.metadata.namespace ?? '', name: d.metadata.name ?? ''},
    }
    if (this.opts.verbosity >= 4) this.log('I', `  event ${type} ${reason} on ${key}: ${message}`)
    this.track(
      postEvents(this.opts.api, [event], d, formatTime(this.clock.now()), this.opts.serverDryRun).then(
        (problems) => {
          for (const p of problems) this.log('W', `deployment ${key}: ${p}`)
        },
      ),
    )
  }

  private track(p: Promise<unknown>): void {
    const tracked = p.catch((err: unknown) => this.log('W', errorMessage(err)))
    this.pendingEvents.add(tracked)
    void tracked.finally(() => this.pendingEvents.delete(tracked))
  }

  /**
   * --once-synced: resolves once no key is ready or being processed, no short error retry is
   * pending, and nothing changed for ONCE_SYNCED_SETTLE_MS. Delayed requeues (progress deadlines,
   * long back-offs) are not waited for.
   */
  private async waitIdle(): Promise<void> {
    let quietSince: number | undefined
    let changes = this.informerChanges()
    while (!this.stopping) {
      await sleep(this.clock, 50)
      const now = this.clock.now()
      const nowChanges = this.informerChanges()
      const idle =
        this.queue.len() === 0 &&
        this.queue.processingCount() === 0 &&
        this.pendingEvents.size === 0 &&
        ![...this.shortRetries].some((k) => this.queue.waitingUntil(k) !== undefined)
      if (!idle || nowChanges !== changes || this.lastActivity > (quietSince ?? 0)) {
        changes = nowChanges
        quietSince = idle ? now : undefined
        continue
      }
      quietSince ??= now
      if (now - quietSince >= ONCE_SYNCED_SETTLE_MS) return
    }
  }

  private informerChanges(): number {
    return this.deployments.changes + this.replicaSets.changes + this.pods.changes
  }

  private log(severity: Severity, message: string): void {
    if (this.opts.logger) this.opts.logger.log(severity, message)
    else this.opts.log(`${severity}${klogTime(new Date(this.clock.now()))} ${message}`)
  }
}

/** klog's header time: MMDD hh:mm:ss.uuuuuu (local time). */
function klogTime(t: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${p(t.getMonth() + 1)}${p(t.getDate())} ${p(t.getHours())}:${p(t.getMinutes())}:${p(t.getSeconds())}.${p(t.getMilliseconds() * 1000, 6)}`
}
