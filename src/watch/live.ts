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
import type {FeatureGates} from '../controller/interfaces.js'
import {type GateOptions, judgeGate} from '../status/gate.js'
import type {RolloutState} from '../status/index.js'
import {type Observation, observe} from '../status/observe.js'
import type {Actor, SimEvent, WatchOutcome, WatchUpdate} from '../status/update.js'
import {goDuration} from '../util/duration.js'
import {type LongTimer, setLongTimeout} from '../util/timer.js'

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
  /** The controller's feature gates, for the pass the status model runs. */
  gates: FeatureGates & {values: Record<string, boolean>}
  /**
   * --now: the watch's clock reads this instant at the first update and runs on in real time from
   * there, so that its first state is the one explain reports at the same --now.
   */
  now?: number
  /** Fail fast on the status model's dead ends, as the gate does (absent: wait as kubectl does). */
  judge?: GateOptions
  /** Also describe the next pass's writes in words (the interactive view shows them). */
  describeNext?: boolean
  warn?: (line: string) => void
  debug?: (line: string) => void
}

export interface LiveEnd {
  outcome: WatchOutcome
  /** 0 complete (or paused with pausedOk), 1 deadline, timeout or deleted, 130 interrupted. */
  code: number
}

/** kubectl's rule for a finished rollout, plus --settled: no old pod still terminating. */
export function endOf(
  o: Observation,
  state: RolloutState,
  opts: {settled: boolean; pausedOk: boolean},
): LiveEnd | undefined {
  const name = o.deployment.name
  const kubectl = state.rolloutStatus
  if (kubectl.done) {
    if (opts.settled && !state.settled) return undefined
    return {outcome: {kind: 'complete', message: kubectl.message}, code: 0}
  }
  if (kubectl.error) return {outcome: {kind: 'deadlineExceeded', message: kubectl.message}, code: 1}
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
  private timeout: LongTimer | undefined
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
      // Chunked: --timeout 600h is past setTimeout's 24.8 days.
      this.timeout = setLongTimeout(() => {
        const message = `error: timed out waiting for the condition: deployment "${this.opts.name}" rollout did not finish within ${goDuration(this.opts.timeoutMs)}`
        void this.end({outcome: {kind: 'timeout', message}, code: 1})
      }, this.opts.timeoutMs)
    }
    const every = this.opts.eventsEveryMs ?? 2000
    if (every > 0) void this.pollEvents(every)
    this.emit()
    const end = await done
    if (this.failure !== undefined) throw this.failure
    return end
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
    if (this.observing) {
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
    this.lastEmit = Date.now()
    const now = this.now()
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
    // One state at a time (it runs a pass); changes meanwhile schedule the next update as usual.
    this.observing = true
    this.stateOf(d, replicaSets, pods, now)
      .then(({state, next}) => {
        this.observing = false
        if (this.ended) return
        const update: WatchUpdate = {time: now, elapsed: now - this.start, observation, events, state}
        if (next) update.next = next
        this.deliver(update)
        if (this.again) {
          this.again = false
          this.schedule()
        }
      })
      .catch((err: unknown) => {
        this.observing = false
        void this.fail(err)
      })
  }

  /** The watch's clock: real time, or --now at the first update and real time from there. */
  private now(): number {
    if (this.opts.now === undefined) return Date.now()
    this.clockStart ??= Date.now()
    return this.opts.now + (Date.now() - this.clockStart)
  }

  private clockStart: number | undefined
  /** The generation seen unobserved, and since when: no controller acts when it lasts. */
  private unobserved: {generation: number; since: number} | undefined

  private async stateOf(
    d: Deployment,
    replicaSets: ReplicaSet[],
    pods: Pod[],
    now: number,
  ): Promise<{state: RolloutState; next?: string[]}> {
    const generation = d.metadata.generation ?? 0
    if (generation > (d.status?.observedGeneration ?? 0)) {
      if (this.unobserved?.generation !== generation) this.unobserved = {generation, since: now}
    } else this.unobserved = undefined
    // The pass loads the controller: only once the first update is due.
    const {observeRollout} = await import('../status/index.js')
    const {state, context} = await observeRollout(
      {
        deployment: d,
        replicaSets,
        pods,
        others: this.deployments.list().filter((o) => o.metadata.name !== d.metadata.name),
      },
      {
        now,
        gates: this.opts.gates,
        hints: this.unobserved ? {generationUnobservedSince: this.unobserved.since} : {},
      },
    )
    if (!this.opts.describeNext || state.rolloutStatus.done) return {state}
    const {nextInWords} = await import('../explain/next.js')
    return {state, next: nextInWords(context, state.progress.state)}
  }

  private observing = false
  private again = false

  private deliver(update: WatchUpdate): void {
    this.onUpdate(update)
    const end = endOf(update.observation, update.state, this.opts) ?? this.failedFast(update)
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

  /** A dead end the gate fails on (ImagePullBackOff, a crash loop, ...): the watch ends with it. */
  private failedFast(update: WatchUpdate): LiveEnd | undefined {
    const judge = this.opts.judge
    const d = this.deployments.get(this.key())
    if (!judge?.failFast || !d) return undefined
    const newRS = update.observation.replicaSets.find((r) => r.new)?.name
    const j = judgeGate(d, update.state, newRS, update.time, judge)
    if (j.phase !== 'Failed') return undefined
    const message = `error: deployment "${this.opts.name}" failed: ${j.reason}: ${j.message}`
    return {outcome: {kind: 'stalled', message}, code: 1}
  }

  /** The state could not be read (a bug, not the cluster): end the watch with the error. */
  private async fail(err: unknown): Promise<void> {
    this.failure = err
    await this.end({outcome: {kind: 'interrupted', message: 'interrupted'}, code: 1})
  }

  /** Set when the watch ended on an error of its own; run() rejects with it. */
  private failure: unknown

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
    this.timeout?.cancel()
    clearTimeout(this.eventsTimer)
    this.wakeEvents()
    await this.stopInformers()
    this.finish(end)
  }

  private async stopInformers(): Promise<void> {
    await Promise.all([this.deployments.stop(), this.replicaSets?.stop(), this.pods?.stop()])
  }
}
