// kube-controller-manager's metrics, as component-base defines them (names, help texts with their
// stability prefix, labels, buckets), on prom-client: the work queue's (client-go util/workqueue
// metrics.go over component-base/metrics/prometheus/workqueue), the REST client's
// (component-base/metrics/prometheus/restclient), leader election's
// (component-base/metrics/prometheus/clientgo/leaderelection), and the process metrics.
//
// Loaded only by `run` with --metrics-bind-address set (prom-client is imported here and nowhere
// else).

import {Counter, collectDefaultMetrics, exponentialBuckets, Gauge, Histogram, Registry} from 'prom-client'
import type {LeaderMetrics} from '../leaderelection/leaderelection.js'
import type {RequestObserver} from '../request-hooks.js'
import type {LoopClock} from '../workqueue/clock.js'
import type {QueueMetrics} from '../workqueue/queue.js'

/** component-base prefixes every help text with the metric's stability level. */
const ALPHA = '[ALPHA] '
const BETA = '[BETA] '

/** upstream: ExponentialBuckets(10e-9, 10, 10) — 10 ns to 10 s. */
export const WORKQUEUE_BUCKETS = exponentialBuckets(10e-9, 10, 10)
/** upstream: restclient requestLatency and rateLimiterLatency buckets. */
export const REST_LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0]

export class ControllerMetrics implements RequestObserver {
  readonly registry = new Registry()
  private readonly queues: WorkqueueMetrics[] = []

  readonly depth = new Gauge({
    name: 'workqueue_depth',
    help: `${BETA}Current depth of workqueue`,
    labelNames: ['name'],
    registers: [this.registry],
  })
  readonly adds = new Counter({
    name: 'workqueue_adds_total',
    help: `${BETA}Total number of adds handled by workqueue`,
    labelNames: ['name'],
    registers: [this.registry],
  })
  readonly latency = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: `${BETA}How long in seconds an item stays in workqueue before being requested.`,
    labelNames: ['name'],
    buckets: WORKQUEUE_BUCKETS,
    registers: [this.registry],
  })
  readonly workDuration = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: `${BETA}How long in seconds processing an item from workqueue takes.`,
    labelNames: ['name'],
    buckets: WORKQUEUE_BUCKETS,
    registers: [this.registry],
  })
  readonly unfinished = new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: `${BETA}How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.`,
    labelNames: ['name'],
    registers: [this.registry],
    // upstream refreshes these two every 500 ms; here they are computed when scraped.
    collect: () => this.updateUnfinishedWork(),
  })
  readonly longestRunning = new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: `${BETA}How many seconds has the longest running processor for workqueue been running.`,
    labelNames: ['name'],
    registers: [this.registry],
  })
  readonly retries = new Counter({
    name: 'workqueue_retries_total',
    help: `${BETA}Total number of retries handled by workqueue`,
    labelNames: ['name'],
    registers: [this.registry],
  })

  readonly requestLatency = new Histogram({
    name: 'rest_client_request_duration_seconds',
    help: `${ALPHA}Request latency in seconds. Broken down by verb, and host.`,
    labelNames: ['verb', 'host'],
    buckets: REST_LATENCY_BUCKETS,
    registers: [this.registry],
  })
  readonly rateLimiterLatency = new Histogram({
    name: 'rest_client_rate_limiter_duration_seconds',
    help: `${ALPHA}Client side rate limiter latency in seconds. Broken down by verb, and host.`,
    labelNames: ['verb', 'host'],
    buckets: REST_LATENCY_BUCKETS,
    registers: [this.registry],
  })
  readonly requestResult = new Counter({
    name: 'rest_client_requests_total',
    help: `${ALPHA}Number of HTTP requests, partitioned by status code, method, and host.`,
    labelNames: ['code', 'method', 'host'],
    registers: [this.registry],
  })

  readonly leaderGauge = new Gauge({
    name: 'leader_election_master_status',
    help: `${ALPHA}Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.`,
    labelNames: ['name'],
    registers: [this.registry],
  })
  readonly leaderSlowpath = new Counter({
    name: 'leader_election_slowpath_total',
    help: `${ALPHA}Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the lease. Please make sure to group by name.`,
    labelNames: ['name'],
    registers: [this.registry],
  })

  constructor(opts: {processMetrics?: boolean} = {}) {
    if (opts.processMetrics !== false) collectDefaultMetrics({register: this.registry})
  }

  /** upstream: the prometheus workqueue provider — one set of series per queue name. */
  queue(name: string, clock: LoopClock): WorkqueueMetrics {
    const m = new WorkqueueMetrics(this, name, clock)
    this.queues.push(m)
    return m
  }

  /** upstream: the leaderelection provider's adapter. */
  leader(): LeaderMetrics {
    return {
      on: (name) => this.leaderGauge.set({name}, 1),
      off: (name) => this.leaderGauge.set({name}, 0),
      slowpathExercised: (name) => this.leaderSlowpath.inc({name}),
    }
  }

  /** rest_client_* for every request of one client: results, latency, and rate-limiter waits. */
  observeRequest(method: string, url: URL, code: string, seconds: number): void {
    this.requestResult.inc({code, method, host: url.host})
    this.requestLatency.observe({verb: method, host: url.host}, seconds)
  }

  observeRateLimiter(method: string, url: URL, seconds: number): void {
    this.rateLimiterLatency.observe({verb: method, host: url.host}, seconds)
  }

  /** The Prometheus text exposition. */
  async expose(): Promise<{contentType: string; body: string}> {
    return {contentType: this.registry.contentType, body: await this.registry.metrics()}
  }

  private updateUnfinishedWork(): void {
    for (const q of this.queues) q.updateUnfinishedWork()
  }
}

/** upstream: defaultQueueMetrics — called by the queue under the same conditions as client-go's. */
export class WorkqueueMetrics implements QueueMetrics<string> {
  private readonly addTimes = new Map<string, number>()
  private readonly processingStartTimes = new Map<string, number>()

  constructor(
    private readonly m: ControllerMetrics,
    readonly name: string,
    private readonly clock: LoopClock,
  ) {
    // Series exist (at 0) from the start, as upstream's WithLabelValues creates them.
    m.depth.set({name}, 0)
    m.adds.inc({name}, 0)
    m.retries.inc({name}, 0)
    m.unfinished.set({name}, 0)
    m.longestRunning.set({name}, 0)
    m.latency.zero({name})
    m.workDuration.zero({name})
  }

  add(item: string): void {
    this.m.adds.inc({name: this.name})
    this.m.depth.inc({name: this.name})
    if (!this.addTimes.has(item)) this.addTimes.set(item, this.clock.now())
  }

  get(item: string): void {
    this.m.depth.dec({name: this.name})
    const now = this.clock.now()
    this.processingStartTimes.set(item, now)
    const added = this.addTimes.get(item)
    if (added !== undefined) {
      this.m.latency.observe({name: this.name}, (now - added) / 1000)
      this.addTimes.delete(item)
    }
  }

  done(item: string): void {
    const started = this.processingStartTimes.get(item)
    if (started === undefined) return
    this.m.workDuration.observe({name: this.name}, (this.clock.now() - started) / 1000)
    this.processingStartTimes.delete(item)
  }

  retry(): void {
    this.m.retries.inc({name: this.name})
  }

  updateUnfinishedWork(): void {
    const now = this.clock.now()
    let total = 0
    let oldest = 0
    for (const t of this.processingStartTimes.values()) {
      const age = (now - t) / 1000
      total += age
      if (age > oldest) oldest = age
    }
    this.m.unfinished.set({name: this.name}, total)
    this.m.longestRunning.set({name: this.name}, oldest)
  }
}
