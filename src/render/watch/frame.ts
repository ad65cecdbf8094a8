// The view model of `rollout watch`: one WatchFrame per update, whatever produced the update (the
// simulator's timeline, or a live watch building the same Observation from informer caches). Pure:
// no ink here, so line mode and JSON never load React.

import type {SimAction, SimEvent} from '../../sim/types.js'
import type {ConditionSummary, Observation, ReplicaSetSummary} from '../../status/observe.js'

/** What a source hands the view at each change. The simulator's TimelineEntry is one. */
export interface WatchUpdate {
  /** Epoch ms. */
  time: number
  /** ms since the watch started. */
  elapsed: number
  observation: Observation
  events: SimEvent[]
  actions?: SimAction[]
  /** explain's analysis of this state (live view); without it the frame's own blockers are used. */
  analysis?: WatchAnalysis
}

/** What `explain` says of a state: its verdict code, blockers and the controller's next pass. */
export interface WatchAnalysis {
  /** `CODE/reason`, as explain prints them. */
  verdict: string
  blockers: string[]
  /** The next pass's writes (or its requeue), in words. */
  next: string[]
}

/** How the watch ended. */
export interface WatchOutcome {
  kind:
    | 'complete'
    | 'deadlineExceeded'
    | 'maxTime'
    | 'stalled'
    | 'stepLimit'
    | 'interrupted'
    // A live watch: --timeout passed, paused with --paused-ok, the Deployment is gone.
    | 'timeout'
    | 'paused'
    | 'deleted'
  /** The last line: kubectl's success or error message. */
  message: string
  /** When the watch ended (epoch ms), if later than the last update (--max-time). */
  end?: number
  summary?: WatchSummary
}

export interface WatchSummary {
  /** ms. */
  duration: number
  peakPods: number
  minAvailable: number
  deadlineExceeded: boolean
}

/** A short code for where the rollout stands, and how it reads. */
export interface Verdict {
  code:
    | 'Complete'
    | 'ProgressDeadlineExceeded'
    | 'Paused'
    | 'NotObserved'
    | 'UpdatingReplicas'
    | 'OldReplicasPending'
    | 'WaitingForAvailable'
  tone: 'good' | 'bad' | 'busy'
}

export interface TimedEvent extends SimEvent {
  time: number
}

export interface WatchFrame {
  name: string
  namespace: string
  strategy: string
  maxSurge: number
  maxUnavailable: number
  revision: number
  replicas: number
  verdict: Verdict
  /** kubectl rollout status's line. */
  status: string
  time: number
  elapsed: number
  /** The progress deadline while it runs: when it falls and how long is left (negative once past). */
  deadline?: {at: number; remaining: number}
  /** Estimated ms until every new pod is available, from the rate new pods became available so far. */
  eta?: number
  replicaSets: ReplicaSetSummary[]
  /** What holds the rollout back, in words. */
  blockers: string[]
  /** The latest events, oldest first. */
  events: TimedEvent[]
  /** explain's verdict code and what the controller's next pass would do (live view). */
  explain?: {verdict: string; next: string[]}
  outcome?: WatchOutcome
}

export function verdictOf(o: Observation): Verdict {
  const d = o.deployment
  if (o.rollout.done) return {code: 'Complete', tone: 'good'}
  if (o.rollout.error !== undefined) return {code: 'ProgressDeadlineExceeded', tone: 'bad'}
  if (d.paused) return {code: 'Paused', tone: 'busy'}
  if (d.generation > d.observedGeneration) return {code: 'NotObserved', tone: 'busy'}
  if (d.updated < d.replicas) return {code: 'UpdatingReplicas', tone: 'busy'}
  if (d.current > d.updated) return {code: 'OldReplicasPending', tone: 'busy'}
  return {code: 'WaitingForAvailable', tone: 'busy'}
}

const RUNNING_DEADLINE_REASONS = new Set([
  'ReplicaSetUpdated',
  'NewReplicaSetCreated',
  'FoundNewReplicaSet',
  'ReplicaSetScaled',
])

function progressing(o: Observation): ConditionSummary | undefined {
  return o.deployment.conditions.find((c) => c.type === 'Progressing')
}

/** The progress deadline, while the controller is measuring one. */
export function deadlineOf(o: Observation): {at: number; remaining: number} | undefined {
  const pds = o.deployment.progressDeadlineSeconds
  const c = progressing(o)
  if (pds === undefined || !c || c.status !== 'True' || !RUNNING_DEADLINE_REASONS.has(c.reason ?? ''))
    return undefined
  if (o.rollout.done) return undefined
  const last = Date.parse(c.lastUpdateTime ?? '')
  if (!Number.isFinite(last)) return undefined
  const at = last + pds * 1000
  return {at, remaining: at - o.time}
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

function countBy(items: string[]): string {
  const counts = new Map<string, number>()
  for (const i of items) counts.set(i, (counts.get(i) ?? 0) + 1)
  return [...counts].map(([k, n]) => (n === 1 ? k : `${k} ×${n}`)).join(', ')
}

/** What holds the rollout back: pods not available, old pods still there, the controller's limits. */
export function blockersOf(o: Observation): string[] {
  if (o.rollout.done) return []
  const d = o.deployment
  const out: string[] = []
  if (d.paused) out.push('the Deployment is paused: the controller only scales, it does not roll out')
  if (d.generation > d.observedGeneration)
    out.push(`the controller has not seen generation ${d.generation} yet`)
  const newRS = o.replicaSets.find((r) => r.new)
  const old = o.replicaSets.filter((r) => !r.new)
  if (newRS) {
    const waiting = newRS.pods.filter((p) => !p.available && p.state !== 'terminating')
    if (waiting.length > 0) {
      out.push(
        `${plural(waiting.length, 'new pod')} not available: ${countBy(waiting.map((p) => (p.restarts > 0 ? `${p.reason} (${plural(p.restarts, 'restart')})` : p.reason === 'Running' ? 'not ready' : p.reason)))}`,
      )
    }
  }
  const specTotal = o.replicaSets.reduce((n, r) => n + r.replicas, 0)
  if (
    newRS &&
    newRS.replicas < d.replicas &&
    d.strategy === 'RollingUpdate' &&
    specTotal >= d.replicas + d.maxSurge
  ) {
    out.push(`scale-up waits: ${specTotal} pods asked for, the surge limit is ${d.replicas + d.maxSurge}`)
  }
  const oldReplicas = old.reduce((n, r) => n + r.replicas, 0)
  const available = o.replicaSets.reduce((n, r) => n + r.available, 0)
  const minAvailable = d.replicas - d.maxUnavailable
  if (oldReplicas > 0 && d.strategy === 'RollingUpdate' && available <= minAvailable) {
    out.push(`scale-down waits: ${available} available, at least ${minAvailable} must stay available`)
  }
  const terminating = old.reduce((n, r) => n + r.pods.filter((p) => p.state === 'terminating').length, 0)
  if (terminating > 0) {
    out.push(
      `${plural(terminating, 'old pod')} terminating${d.strategy === 'Recreate' ? ' (Recreate waits for every old pod to be gone)' : ''}`,
    )
  }
  return out
}

/** Builds frames from successive updates, keeping the event history and the ETA samples. */
export class FrameBuilder {
  private readonly events: TimedEvent[] = []
  private first?: {time: number; available: number}
  private last?: WatchFrame

  constructor(private readonly eventLimit = 5) {}

  push(u: WatchUpdate): WatchFrame {
    for (const e of u.events) this.events.push({...e, time: u.time})
    if (this.events.length > this.eventLimit) this.events.splice(0, this.events.length - this.eventLimit)
    const o = u.observation
    const d = o.deployment
    const newAvailable = o.replicaSets.find((r) => r.new)?.available ?? 0
    this.first ??= {time: u.time, available: newAvailable}
    const frame: WatchFrame = {
      name: d.name,
      namespace: d.namespace,
      strategy: d.strategy,
      maxSurge: d.maxSurge,
      maxUnavailable: d.maxUnavailable,
      revision: d.revision,
      replicas: d.replicas,
      verdict: verdictOf(o),
      status: o.rollout.message,
      time: u.time,
      elapsed: u.elapsed,
      replicaSets: o.replicaSets,
      blockers: u.analysis && !o.rollout.done ? u.analysis.blockers : blockersOf(o),
      events: [...this.events],
    }
    if (u.analysis && !o.rollout.done) frame.explain = {verdict: u.analysis.verdict, next: u.analysis.next}
    const deadline = deadlineOf(o)
    if (deadline) frame.deadline = deadline
    const eta = this.eta(u.time, newAvailable, d.replicas, o)
    if (eta !== undefined) frame.eta = eta
    this.last = frame
    return frame
  }

  /** The last frame again, with how the watch ended. */
  finish(outcome: WatchOutcome): WatchFrame | undefined {
    if (!this.last) return undefined
    this.last = {...this.last, outcome, blockers: outcome.kind === 'complete' ? [] : this.last.blockers}
    if (outcome.kind === 'complete') delete this.last.explain
    return this.last
  }

  private eta(time: number, available: number, replicas: number, o: Observation): number | undefined {
    if (o.rollout.done) return 0
    if (!this.first || o.rollout.error !== undefined) return undefined
    const gained = available - this.first.available
    const spent = time - this.first.time
    if (gained <= 0 || spent <= 0) return undefined
    return Math.max(0, ((replicas - available) * spent) / gained)
  }
}
