// The virtual-clock simulator: the Deployment controller under test (one syncOne pass at a time,
// over the in-memory store) with the ReplicaSet controller and pod lifecycle models around it.
//
// Each step moves the clock to the next thing due (a pod transition, a pod becoming available, the
// controller's requeue) or stays at the same instant when a write just happened (informers would
// deliver it at once), runs the models, then one controller pass when the Deployment's key is
// queued, and records what changed. Deterministic: no real clock, no I/O, a seeded generator.

import {SYNTHETIC_CREATION_TIMESTAMP} from '../cluster/load/defaults.js'
import {DEFAULT_NAMESPACE, MemoryStore} from '../cluster/memory.js'
import {newestTimestamp, type World} from '../cluster/world.js'
import type {Deployment, IntOrString, Pod} from '../controller/api/types.js'
import {RecreateStrategyType} from '../controller/api/types.js'
import {parseFeatureGates} from '../controller/features.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {ChangeTracker} from '../pass/change.js'
import type {Requeue} from '../pass/result.js'
import {syncOne} from '../pass/run.js'
import {observeRollout, type RolloutState} from '../status/index.js'
import {type Observation, observe, replicaSetsOf} from '../status/observe.js'
import {podCount, podsOwnedBy} from '../status/pods.js'
import type {SimAction, SimEvent} from '../status/update.js'
import {AutoscalerModel} from './autoscaler.js'
import {SimulatedCluster} from './cluster.js'
import {DEFAULT_TIMINGS, type PodTimings} from './pods.js'
import {seedOf} from './random.js'

export interface SimulationOptions {
  namespace?: string
  name: string
  /** The virtual clock's start, epoch ms. */
  start: number
  gates?: FeatureGates & {values: Record<string, boolean>}
  timings?: Partial<PodTimings>
  /** Keep this many pods of the newest ReplicaSet failing: a count, or a percentage of spec.replicas. */
  failNewPods?: IntOrString
  /** Stop after this much virtual time (ms); default 30 minutes. */
  maxTime?: number
  /** A bound on the number of steps, so that a simulation always ends; default 20000. */
  maxSteps?: number
  /** The generator's seed; default: derived from namespace/name. */
  seed?: number
  /** Pods of other namespaces bound to the world's nodes (they take room; see ClusterOptions). */
  occupied?: readonly Pod[]
}

export const DEFAULT_MAX_TIME = 30 * 60_000
export const DEFAULT_MAX_STEPS = 20_000
/**
 * upstream: workqueue.DefaultTypedControllerRateLimiter — the slower of a per-key exponential back-off
 * (5ms doubling up to 1000s, reset by Forget after a sync without error) and a token bucket shared
 * by every key (10 per second, bursts of 100). A stuck rollout whose deadline already passed without
 * timing out (Progressing still NewReplicaSetAvailable) is re-added this way over and over.
 */
export class ControllerRateLimiter {
  private failures = 0
  private tokens = 100
  private last: number | undefined

  /** The delay of AddRateLimited at `now`, in ms. */
  when(now: number): number {
    const backoff = Math.min(5 * 2 ** this.failures, 1_000_000)
    this.failures++
    if (this.last !== undefined) this.tokens = Math.min(100, this.tokens + ((now - this.last) * 10) / 1000)
    this.last = now
    this.tokens -= 1
    const bucket = this.tokens < 0 ? (-this.tokens / 10) * 1000 : 0
    return Math.max(backoff, Math.ceil(bucket))
  }

  forget(): void {
    this.failures = 0
  }
}

export type Outcome = 'complete' | 'deadlineExceeded' | 'maxTime' | 'stalled' | 'stepLimit'

export interface PassRecord {
  requeue: Requeue | null
  error: string | null
  writes: number
}

export interface TimelineEntry {
  step: number
  /** Epoch ms. */
  time: number
  /** ms since the start. */
  elapsed: number
  actions: SimAction[]
  events: SimEvent[]
  /** The Deployment controller's pass of this step, when it ran. */
  pass?: PassRecord
  observation: Observation
  /** Where the rollout stands after this step, as explain would report it at this instant. */
  state: RolloutState
}

export interface SimulationSummary {
  kind: 'Summary'
  outcome: Outcome
  /** The final line, in kubectl rollout status's words. */
  message: string
  start: number
  end: number
  /** Virtual ms from the start to the end. */
  duration: number
  steps: number
  passes: number
  /** The most pods of the Deployment alive at once, terminating ones included. */
  peakPods: number
  /** The fewest available pods of the Deployment at any step. */
  minAvailable: number
  deadlineExceeded: boolean
  complete: boolean
}

export interface Simulation {
  timeline: TimelineEntry[]
  summary: SimulationSummary
}

export class SimulationError extends Error {}

/**
 * The moment a snapshot was taken, as well as the files tell: the newest timestamp among the
 * namespace's objects (creations, condition updates, container starts and ends), and no earlier
 * than the status it shows: a ReplicaSet that counts N pods available was read at least
 * minReadySeconds after its N-th pod became Ready. Undefined when the files carry no timestamp (the
 * loader's made-up creation time is none). The simulation starts there unless told otherwise, so
 * that the progress deadline in the files means what it meant when they were written.
 */
export function snapshotTime(world: World, namespace: string): number | undefined {
  let newest = newestTimestamp(world, namespace)
  if (newest === undefined || newest === Date.parse(SYNTHETIC_CREATION_TIMESTAMP)) return undefined
  for (const rs of world.replicaSets) {
    if ((rs.metadata.namespace || DEFAULT_NAMESPACE) !== namespace) continue
    const minReady = rs.spec.minReadySeconds ?? 0
    const available = rs.status?.availableReplicas ?? 0
    if (minReady <= 0 || available <= 0) continue
    const ready = podsOwnedBy(rs, world.pods)
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => p.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True'))
      .map((c) => (c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : Number.NaN))
      .filter((t) => Number.isFinite(t))
      .sort((a, b) => a - b)
    const nth = ready[Math.min(available, ready.length) - 1]
    // upstream IsPodAvailable: Ready for minReadySeconds strictly before now; timestamps have whole
    // seconds, so the first whole second after.
    if (nth !== undefined) newest = Math.max(newest, Math.floor((nth + minReady * 1000) / 1000) * 1000 + 1000)
  }
  return newest
}

/** `N` or `P%` (as --fail-new-pods takes it); throws SimulationError otherwise. */
export function parseFailNewPods(v: IntOrString): IntOrString {
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v) && v >= 0) return v
  } else {
    const s = v.trim()
    if (/^\d+$/.test(s)) return Number(s)
    if (/^\d+%$/.test(s)) return s
  }
  throw new SimulationError(
    `invalid fail-new-pods value "${v}": want a count such as 2 or a percentage such as 50%`,
  )
}

/** Runs a whole simulation: the timeline of recorded steps and the summary. */
export async function simulate(world: World, options: SimulationOptions): Promise<Simulation> {
  const sim = new Simulator(world, options)
  const timeline: TimelineEntry[] = []
  for (let entry = await sim.next(); entry !== undefined; entry = await sim.next()) timeline.push(entry)
  return {timeline, summary: sim.summary()}
}

/**
 * A simulation advanced one recorded entry at a time: next() returns the first entry (the input as
 * loaded), then one per step that changed something, then undefined once the simulation ended.
 */
export class Simulator {
  private readonly namespace: string
  private readonly name: string
  private readonly gates: FeatureGates & {values: Record<string, boolean>}
  private readonly timings: PodTimings
  private readonly maxTime: number
  private readonly maxSteps: number
  private readonly start: number
  private readonly cluster: SimulatedCluster

  private t: number
  private step = 0
  private passes = 0
  /** The Deployment's key is in the work queue. */
  private queued = true
  /** The earliest delayed add of the key still waiting (the delaying queue keeps the earliest). */
  private waitingAt: number | undefined
  private readonly limiter = new ControllerRateLimiter()
  private sameInstant = 0
  private started = false
  private finished: {outcome: Outcome; end: number; message: string} | undefined
  private peakPods = 0
  private minAvailable = Number.POSITIVE_INFINITY
  /** The HorizontalPodAutoscalers of the world that target this Deployment (sim/autoscaler.ts). */
  private readonly autoscalers: AutoscalerModel[]

  constructor(world: World, options: SimulationOptions) {
    this.namespace = options.namespace ?? DEFAULT_NAMESPACE
    this.name = options.name
    this.gates = options.gates ?? parseFeatureGates(undefined)
    this.timings = {...DEFAULT_TIMINGS, ...options.timings}
    this.maxTime = options.maxTime ?? DEFAULT_MAX_TIME
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS
    this.start = options.start
    this.t = options.start
    this.cluster = new SimulatedCluster(world, {
      namespace: this.namespace,
      start: this.start,
      gates: this.gates,
      timings: this.timings,
      failingDeployment: this.name,
      seed: options.seed ?? seedOf(`${this.namespace}/${this.name}`),
      ...(options.failNewPods !== undefined ? {failNewPods: parseFailNewPods(options.failNewPods)} : {}),
      ...(options.occupied ? {occupied: options.occupied} : {}),
    })
    const d = this.deployment()
    if (!d) {
      throw new SimulationError(`deployments.apps "${this.name}" not found in namespace "${this.namespace}"`)
    }
    this.autoscalers = (world.autoscalers ?? [])
      .filter((h) => (h.metadata.namespace ?? DEFAULT_NAMESPACE) === this.namespace)
      .filter((h) => {
        const ref = (h.spec?.scaleTargetRef ?? {}) as {kind?: string; name?: string}
        return ref.kind === 'Deployment' && ref.name === this.name
      })
      .map((h) => new AutoscalerModel(h, this.start, d.spec.replicas ?? 1))
      .filter((a) => a.active)
  }

  /** The next recorded entry, or undefined when the simulation is over. */
  async next(): Promise<TimelineEntry | undefined> {
    if (!this.started) {
      this.started = true
      return await this.record([], [], undefined)
    }
    while (!this.finished) {
      if (!this.advanceClock()) break
      const entry = await this.runStep()
      if (entry) return entry
    }
    return undefined
  }

  summary(): SimulationSummary {
    const f = this.finished ?? {outcome: 'stepLimit' as const, end: this.t, message: ''}
    return {
      kind: 'Summary',
      outcome: f.outcome,
      message: f.message,
      start: this.start,
      end: f.end,
      duration: f.end - this.start,
      steps: this.step,
      passes: this.passes,
      peakPods: this.peakPods,
      minAvailable: Number.isFinite(this.minAvailable) ? this.minAvailable : 0,
      deadlineExceeded: f.outcome === 'deadlineExceeded',
      complete: f.outcome === 'complete',
    }
  }

  /** The world as it stands (for tests and a live source). */
  world(): World {
    return this.cluster.world()
  }

  // --- the clock ----------------------------------------------------------------------------------

  /** Moves the clock to the next step's time; false (and finished) when there is none. */
  private advanceClock(): boolean {
    if (this.step >= this.maxSteps)
      return this.finish('stepLimit', this.t, `error: the simulation stopped after ${this.maxSteps} steps`)
    if (this.step === 0) return true
    const next = this.queued ? this.t : this.nextEventAt()
    if (next === undefined) {
      const d = this.deployment()
      const why = d?.spec.paused ? 'the Deployment is paused' : 'nothing else will happen'
      return this.finish(
        'stalled',
        this.t,
        `error: deployment "${this.name}" rollout cannot progress: ${why}`,
      )
    }
    if (next > this.start + this.maxTime) {
      return this.finish('maxTime', this.start + this.maxTime, 'error: timed out waiting for the condition')
    }
    if (next <= this.t) {
      if (++this.sameInstant > 1000) {
        return this.finish(
          'stepLimit',
          this.t,
          'error: the simulation does not settle: over 1000 steps at one instant',
        )
      }
      return true
    }
    this.sameInstant = 0
    this.t = next
    return true
  }

  private nextEventAt(): number | undefined {
    const models = this.cluster.nextEventAt(this.t)
    const next =
      models === undefined
        ? this.waitingAt
        : this.waitingAt === undefined
          ? models
          : Math.min(models, this.waitingAt)
    // An autoscaler syncs while something else is still to happen (alone, it would keep the clock
    // going to maxTime over a world that no longer moves).
    if (next === undefined) return undefined
    return Math.min(next, ...this.autoscalers.map((a) => a.nextSyncAt()))
  }

  private finish(outcome: Outcome, end: number, message: string): false {
    this.finished = {outcome, end, message}
    return false
  }

  // --- one step -----------------------------------------------------------------------------------

  private async runStep(): Promise<TimelineEntry | undefined> {
    this.step++
    const t = this.t
    const {actions, events, replicaSetsChanged, podsGone} = this.cluster.advance(t)
    if (this.runAutoscalers(t, actions, events)) this.queued = true
    if (replicaSetsChanged) this.queued = true
    if (podsGone && this.recreateHasNoPods()) this.queued = true
    if (this.waitingAt !== undefined && this.waitingAt <= t) {
      this.waitingAt = undefined
      this.queued = true
    }
    let pass: PassRecord | undefined
    if (this.queued) {
      this.queued = false
      pass = await this.runPass(t, actions, events)
    }
    const entry =
      actions.length > 0 || events.length > 0 ? await this.record(actions, events, pass) : undefined
    const observation = entry?.observation ?? this.observation()
    if (!entry) this.track(observation)
    // Judged once the controller has caught up with this instant (its key is no longer queued): the
    // input alone can read "successfully rolled out" before the controller has seen a new template.
    if (!this.queued) this.checkEnd(observation)
    return entry
  }

  private async record(
    actions: SimAction[],
    events: SimEvent[],
    pass: PassRecord | undefined,
  ): Promise<TimelineEntry> {
    const observation = this.observation()
    this.track(observation)
    return {
      step: this.step,
      time: this.t,
      elapsed: this.t - this.start,
      actions,
      events,
      ...(pass ? {pass} : {}),
      observation,
      state: await this.state(),
    }
  }

  /** The status model's reading of the world now: one pass over a copy, as explain runs it. */
  private async state(): Promise<RolloutState> {
    const d = this.deployment()
    if (!d) throw new SimulationError(`deployments.apps "${this.name}" was deleted during the simulation`)
    const {state} = await observeRollout(
      {
        deployment: d,
        replicaSets: this.cluster.replicaSets,
        pods: this.cluster.pods,
        others: this.cluster.deployments.filter((o) => o !== d),
        immutable: true,
      },
      {now: this.t, gates: this.gates},
    )
    return state
  }

  private track(o: Observation): void {
    const pods = o.replicaSets.reduce((n, rs) => n + podCount(rs.pods), 0)
    const available = o.replicaSets.reduce((n, rs) => n + rs.available, 0)
    this.peakPods = Math.max(this.peakPods, pods)
    // The input as loaded is no moment of the rollout: its statuses are the files', not yet what the
    // controllers make of them at the clock's start.
    if (this.step > 0) this.minAvailable = Math.min(this.minAvailable, available)
  }

  private checkEnd(o: Observation): void {
    if (o.rollout.done) this.finish('complete', this.t, o.rollout.message)
    else if (o.rollout.error) this.finish('deadlineExceeded', this.t, o.rollout.message)
  }

  private observation(): Observation {
    const d = this.deployment()
    if (!d) throw new SimulationError(`deployments.apps "${this.name}" was deleted during the simulation`)
    const o = observe(d, this.cluster.replicaSets, this.cluster.pods, this.t)
    if (this.cluster.cohort === 1) return o
    for (const rs of o.replicaSets) {
      rs.pods = rs.pods.map((p) => {
        const count = this.cluster.weightOf(p.name)
        return count === 1 ? p : {...p, count}
      })
    }
    return o
  }

  private deployment(): Deployment | undefined {
    return this.cluster.deployments.find((d) => d.metadata.name === this.name)
  }

  // --- the Deployment controller ------------------------------------------------------------------

  private async runPass(t: number, actions: SimAction[], events: SimEvent[]): Promise<PassRecord> {
    this.passes++
    const store = new MemoryStore(this.cluster.world(), {now: () => t})
    const result = await syncOne(
      store,
      {namespace: this.namespace, name: this.name},
      {now: t, gates: this.gates},
    )
    this.cluster.update(store.after().world)
    const tracker = new ChangeTracker((resource, namespace, name) => store.initial(resource, namespace, name))
    for (const a of result.actions) {
      actions.push({
        actor: 'deployment-controller',
        verb: a.verb,
        resource: a.resource,
        ...(a.subresource ? {subresource: a.subresource} : {}),
        name: a.name,
        summary: tracker.describe(a).summary,
      })
    }
    for (const e of result.events) {
      events.push({
        type: e.type,
        reason: e.reason,
        object: `Deployment/${this.name}`,
        message: e.message,
        source: 'deployment-controller',
      })
    }
    if (result.actions.length > 0) this.queued = true
    this.schedule(t, result.requeue, result.error !== null)
    return {requeue: result.requeue, error: result.error, writes: result.actions.length}
  }

  /** The work queue around a sync: the sync's own AddAfter / AddRateLimited, then handleErr. */
  private schedule(t: number, requeue: Requeue | null, failed: boolean): void {
    if (requeue !== null) {
      const at = requeue.kind === 'after' ? t + (requeue.seconds ?? 0) * 1000 : t + this.limiter.when(t)
      this.waitingAt = this.waitingAt === undefined ? at : Math.min(this.waitingAt, at)
    }
    if (!failed) this.limiter.forget()
  }

  /**
   * The autoscalers due at t: each computes the replicas over the Deployment's pods and writes
   * spec.replicas through the scale subresource when they differ; true when one wrote.
   */
  private runAutoscalers(t: number, actions: SimAction[], events: SimEvent[]): boolean {
    let wrote = false
    for (const a of this.autoscalers) {
      if (a.nextSyncAt() > t) continue
      const d = this.deployment()
      if (!d) continue
      const pods = replicaSetsOf(d, this.cluster.replicaSets).flatMap((rs) =>
        podsOwnedBy(rs, this.cluster.pods),
      )
      const r = a.sync(t, d, pods, (p) => this.cluster.weightOf(p.metadata.name ?? ''))
      const from = d.spec.replicas ?? 1
      if (!r || r.replicas === from) continue
      a.scaled(t, from, r.replicas)
      const scaled: Deployment = {
        ...d,
        metadata: {...d.metadata, generation: (d.metadata.generation ?? 0) + 1},
        spec: {...d.spec, replicas: r.replicas},
      }
      this.cluster.update({
        deployments: this.cluster.deployments.map((x) => (x === d ? scaled : x)),
        replicaSets: this.cluster.replicaSets,
        pods: this.cluster.pods,
      })
      actions.push({
        actor: 'horizontal-pod-autoscaler',
        verb: 'update',
        resource: 'deployments',
        subresource: 'scale',
        name: this.name,
        summary: `replicas ${from} -> ${r.replicas} (HorizontalPodAutoscaler ${a.name}: ${r.ready} of ${r.pods} pods counted, ${r.reason})`,
      })
      // upstream: the HPA controller's SuccessfulRescale event.
      events.push({
        type: 'Normal',
        reason: 'SuccessfulRescale',
        object: `HorizontalPodAutoscaler/${a.name}`,
        message: `New size: ${r.replicas}; reason: ${r.reason}`,
        source: 'horizontal-pod-autoscaler',
      })
      wrote = true
    }
    return wrote
  }

  /** upstream: deletePod — a Recreate Deployment is synced when its last pod is gone. */
  private recreateHasNoPods(): boolean {
    const d = this.deployment()
    if (!d || d.spec.strategy?.type !== RecreateStrategyType) return false
    const owned = replicaSetsOf(d, this.cluster.replicaSets)
    return owned.every((rs) => podsOwnedBy(rs, this.cluster.pods).length === 0)
  }
}
