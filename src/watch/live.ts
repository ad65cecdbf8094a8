// `rollout watch` on a live cluster: informers (list, then watch; resume after a dropped stream,
// re-list after 410 Gone) on the Deployment's namespace for Deployments, ReplicaSets and pods. Each
// change schedules one update (at most one per minFrameMs) built with src/sim's observe(), so the
// view, line mode and NDJSON render a live rollout exactly as they render a simulated one. The
// watch ends as kubectl rollout status does: complete, progress deadline exceeded, or --timeout.

import type {ApiClient} from '../cluster/live/api.js'
import {Informer} from '../cluster/live/cache/informer.js'
import type {Connection} from '../cluster/live/kubeconfig.js'
import {collectionPath} from '../cluster/live/read.js'
import type {Deployment, KubeObject, Pod, ReplicaSet} from '../controller/api/types.js'
import type {WatchAnalysis, WatchOutcome, WatchUpdate} from '../render/watch/frame.js'
import {formatDuration} from '../sim/duration.js'
import type {Actor, SimEvent} from '../sim/types.js'
import {type Observation, observe} from '../status/observe.js'

export interface LiveWatchOptions {
  api: ApiClient
  conn: Connection
  namespace: string
  name: string
  /** ms; 0 waits forever. */
  timeoutMs: number
  /** Also wait until no old pod is terminating. */
  settled: boolean
  /** A paused Deployment ends the watch with success. */
  pausedOk: boolean
  /** At most one update this often (ms). */
  minFrameMs?: number
  /** Re-send the last state this often even without a change (the view's countdown); 0: never. */
  tickMs?: number
  /** How often Warning events are listed; 0: never. */
  eventsEveryMs?: number
  /** explain's analysis of each state (the interactive view); a failure leaves it out. */
  analyze?: (
    d: Deployment,
    replicaSets: readonly ReplicaSet[],
    pods: readonly Pod[],
    now: number,
  ) => Promise<WatchAnalysis | undefined>
  warn?: (line: string) => void
  debug?: (line: string) => void
}

export interface LiveEnd {
  outcome: WatchOutcome
  /** 0 complete (or paused with pausedOk), 1 deadline, timeout or deleted, 130 interrupted. */
  code: number
}

/** kubectl's rule for a finished rollout, plus --settled: no old pod still terminating. */
export function endOf(o: Observation, opts: {settled: boolean; pausedOk: boolean}): LiveEnd | undefined {
  const name = o.deployment.name
  if (o.rollout.done) {
    const terminating = o.replicaSets
      .filter((r) => !r.new)
      .reduce((n, r) => n + r.pods.filter((p) => p.state === 'terminating').length, 0)
    if (opts.settled && terminating > 0) return undefined
    return {outcome: {kind: 'complete', message: o.rollout.message}, code: 0}
  }
  if (o.rollout.error !== undefined) {
    return {outcome: {kind: 'deadlineExceeded', message: `error: ${o.rollout.error}`}, code: 1}
  }
  if (o.deployment.paused && opts.pausedOk) {
    return {outcome: {kind: 'paused', message: `deployment "${name}" is paused`}, code: 0}
  }
  return undefined
}

/** `app=web,tier=x` for a selector of matchLabels only; undefined otherwise (watch every object). */
export function labelSelectorOf(d: Deployment): string | undefined {
  const sel = d.spec.selector
  if (!sel || (sel.matchExpressions?.length ?? 0) > 0) return undefined
  const labels = Object.entries(sel.matchLabels ?? {})
  if (labels.length === 0) return undefined
  return labels.map(([k, v]) => `${k}=${v}`).join(',')
}

interface EventObject {
  metadata?: {name?: string; uid?: string}
  involvedObject?: {kind?: string; name?: string}
  reason?: string
  message?: string
  type?: string
  count?: number
  source?: {component?: string}
  reportingComponent?: string
  lastTimestamp?: string
  eventTime?: string
}

const ACTORS = new Set<Actor>([
  'deployment-controller',
  'replicaset-controller',
  'default-scheduler',
  'kubelet',
])

export class LiveWatch {
  private readonly deployments: Informer<Deployment>
  private replicaSets: Informer<ReplicaSet> | undefined
  private pods: Informer<Pod> | undefined
  private readonly start = Date.now()
  private lastEmit = 0
  private pending: NodeJS.Timeout | undefined
  private ticker: NodeJS.Timeout | undefined
  private timeout: NodeJS.Timeout | undefined
  private eventsTimer: NodeJS.Timeout | undefined
  private newEvents: SimEvent[] = []
  private readonly seenEvents = new Map<string, number>()
  private seenDeployment = false
  /** Every informer has synced: before that, a change (the first lists) must not be shown. */
  private synced = false
  private ended = false
  private finish: (end: LiveEnd) => void = () => {}

  constructor(private readonly opts: LiveWatchOptions) {
    this.deployments = this.informer<Deployment>('deployments', undefined)
  }

  private informer<T extends KubeObject>(
    resource: 'deployments' | 'replicasets' | 'pods',
    labelSelector: string | undefined,
  ): Informer<T> {
    const inf = new Informer<T>({
      api: this.opts.api,
      conn: this.opts.conn,
      resource,
      namespace: this.opts.namespace,
      ...(labelSelector ? {labelSelector} : {}),
      ...(this.opts.warn ? {warn: this.opts.warn} : {}),
      ...(this.opts.debug ? {debug: this.opts.debug} : {}),
    })
    const changed = () => this.schedule()
    inf.addEventHandler({add: changed, update: changed, delete: changed})
    return inf
  }

  /**
   * Watches until the rollout ends (or stop()); `onUpdate` gets each update. Rejects only when the
   * first lists fail; the Deployment missing ends with an error outcome.
   */
  async run(onUpdate: (u: WatchUpdate) => void): Promise<LiveEnd> {
    this.onUpdate = onUpdate
    const done = new Promise<LiveEnd>((resolve) => {
      this.finish = resolve
    })
    try {
      await this.deployments.start()
      const d = this.deployments.get(this.key())
      const selector = d ? labelSelectorOf(d) : undefined
      this.replicaSets = this.informer<ReplicaSet>('replicasets', selector)
      this.pods = this.informer<Pod>('pods', selector)
      await Promise.all([this.replicaSets.start(), this.pods.start()])
      this.synced = true
    } catch (err) {
      await this.stopInformers()
      throw err
    }
    if (this.opts.timeoutMs > 0) {
      this.timeout = setTimeout(() => {
        const message = `error: timed out waiting for the condition: deployment "${this.opts.name}" rollout did not finish within ${formatDuration(this.opts.timeoutMs)}`
        void this.end({outcome: {kind: 'timeout', message}, code: 1})
      }, this.opts.timeoutMs)
    }
    const every = this.opts.eventsEveryMs ?? 2000
    if (every > 0) void this.pollEvents(every)
    this.emit()
    return done
  }

  private onUpdate: (u: WatchUpdate) => void = () => {}

  /** Ctrl-C: ends the watch as interrupted. */
  stop(): Promise<void> {
    return this.end({outcome: {kind: 'interrupted', message: 'interrupted'}, code: 130})
  }

  private key(): string {
    return `${this.opts.namespace}/${this.opts.name}`
  }

  private schedule(): void {
    if (this.ended || this.pending) return
    if (this.analyzing) {
      this.again = true
      return
    }
    const wait = Math.max(0, this.lastEmit + (this.opts.minFrameMs ?? 200) - Date.now())
    this.pending = setTimeout(() => {
      this.pending = undefined
      this.emit()
    }, wait)
  }

  private emit(): void {
    if (this.ended || !this.synced || !this.replicaSets || !this.pods) return
    clearTimeout(this.pending)
    this.pending = undefined
    const now = Date.now()
    this.lastEmit = now
    const d = this.deployments.get(this.key())
    if (!d) {
      const message = this.seenDeployment
        ? `error: deployment "${this.opts.name}" was deleted`
        : `Error from server (NotFound): deployments.apps "${this.opts.name}" not found`
      void this.end({outcome: {kind: 'deleted', message}, code: 1})
      return
    }
    this.seenDeployment = true
    const replicaSets = this.replicaSets.list()
    const pods = this.pods.list()
    const observation = observe(d, replicaSets, pods, now)
    const events = this.newEvents
    this.newEvents = []
    const update: WatchUpdate = {time: now, elapsed: now - this.start, observation, events}
    if (this.opts.analyze && !observation.rollout.done) {
      // One analysis at a time; changes meanwhile schedule the next update as usual.
      this.analyzing = true
      this.opts
        .analyze(d, replicaSets, pods, now)
        .catch((err: unknown) => {
          this.opts.debug?.(`analysis failed: ${err instanceof Error ? err.message : String(err)}`)
          return undefined
        })
        .then((analysis) => {
          this.analyzing = false
          if (this.ended) return
          this.deliver(analysis ? {...update, analysis} : update)
          if (this.again) {
            this.again = false
            this.schedule()
          }
        })
      return
    }
    this.deliver(update)
  }

  private analyzing = false
  private again = false

  private deliver(update: WatchUpdate): void {
    const observation = update.observation
    this.onUpdate(update)
    const end = endOf(observation, this.opts)
    if (end) {
      void this.end(end)
      return
    }
    const tick = this.opts.tickMs ?? 0
    if (tick > 0) {
      clearTimeout(this.ticker)
      this.ticker = setTimeout(() => this.schedule(), tick)
    }
  }

  /** The Warning events of the Deployment, its ReplicaSets and pods that were not seen yet. */
  private async pollEvents(every: number): Promise<void> {
    while (!this.ended) {
      try {
        const list = await this.opts.api.request<{items?: EventObject[]}>({
          method: 'GET',
          path: collectionPath('events', this.opts.namespace),
          query: {fieldSelector: 'type=Warning'},
        })
        // The informers' caches are label-selected (or the namespace's): close enough to "ours".
        const names = new Set<string>([this.opts.name])
        for (const o of [...(this.replicaSets?.list() ?? []), ...(this.pods?.list() ?? [])])
          names.add(o.metadata.name ?? '')
        const fresh: SimEvent[] = []
        for (const e of list.items ?? []) {
          const name = e.involvedObject?.name ?? ''
          if (!names.has(name) || e.type !== 'Warning') continue
          const id = e.metadata?.uid ?? e.metadata?.name ?? ''
          const count = e.count ?? 1
          if ((this.seenEvents.get(id) ?? 0) >= count) continue
          this.seenEvents.set(id, count)
          const component = e.source?.component ?? e.reportingComponent ?? ''
          fresh.push({
            type: 'Warning',
            reason: e.reason ?? '',
            object: `${e.involvedObject?.kind ?? 'Object'}/${name}`,
            message: e.message ?? '',
            source: ACTORS.has(component as Actor) ? (component as Actor) : 'kubelet',
          })
        }
        if (fresh.length > 0 && !this.ended) {
          this.newEvents.push(...fresh)
          this.schedule()
        }
      } catch (err) {
        this.opts.debug?.(`listing events failed: ${err instanceof Error ? err.message : String(err)}`)
      }
      if (this.ended) break
      await new Promise<void>((resolve) => {
        this.eventsTimer = setTimeout(resolve, every)
        this.wakeEvents = resolve
      })
    }
  }

  private wakeEvents: () => void = () => {}

  private async end(end: LiveEnd): Promise<void> {
    if (this.ended) return
    this.ended = true
    clearTimeout(this.pending)
    clearTimeout(this.ticker)
    clearTimeout(this.timeout)
    clearTimeout(this.eventsTimer)
    this.wakeEvents()
    await this.stopInformers()
    this.finish(end)
  }

  private async stopInformers(): Promise<void> {
    await Promise.all([this.deployments.stop(), this.replicaSets?.stop(), this.pods?.stop()])
  }
}
