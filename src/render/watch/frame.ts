// The view model of `rollout watch`: one WatchFrame per update, whatever produced the update (the
// simulator's timeline, or a live watch building the same Observation from informer caches), read
// from the status model's state (verdict, deadline, blockers). Pure: no ink here, so line mode and
// JSON never load React.

import type {RolloutState} from '../../status/index.js'
import type {ReplicaSetSummary} from '../../status/observe.js'
import type {ToolOutcome, ToolVerdicts} from '../../status/tools.js'
import type {VerdictCode} from '../../status/types.js'
import type {Divergence, SimEvent, WatchOutcome, WatchUpdate} from '../../status/update.js'

/** The status model's verdict, and how it reads on screen. */
export interface FrameVerdict {
  code: VerdictCode
  reason: string
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
  verdict: FrameVerdict
  /** kubectl rollout status's line. */
  status: string
  /** What kubectl rollout status, kstatus and Argo CD answer (the status model's; live watch). */
  tools?: ToolVerdicts
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
  /** What the controller's next pass would do (live view). */
  next?: string[]
  /** A replayed recording: the latest divergences of its writes from the port's, oldest first. */
  divergences?: Divergence[]
  outcome?: WatchOutcome
}

const BAD: ReadonlySet<VerdictCode> = new Set(['DeadlineExceeded', 'Stalled', 'Invalid'])

export function verdictOf(state: RolloutState): FrameVerdict {
  const {code, reason} = state.verdict
  return {code, reason, tone: code === 'Complete' ? 'good' : BAD.has(code) ? 'bad' : 'busy'}
}

/** The progress deadline while the clock runs (or has just run out), as explain reports it. */
export function deadlineOf(state: RolloutState, time: number): {at: number; remaining: number} | undefined {
  const p = state.progress
  if (p.state !== 'Running' && p.state !== 'Passed' && p.state !== 'FiresThisPass') return undefined
  const at = p.deadline === null ? Number.NaN : Date.parse(p.deadline)
  if (!Number.isFinite(at)) return undefined
  return {at, remaining: p.secondsLeft !== null ? p.secondsLeft * 1000 : at - time}
}

/** What holds the rollout back, in words: an absent controller first, then each blocker once. */
export function blockersOf(state: RolloutState): string[] {
  if (state.rolloutStatus.done) return []
  const byMessage = new Map<string, string[]>()
  for (const b of state.blockers) {
    const names = byMessage.get(b.message) ?? []
    if (!names.includes(b.object.name)) names.push(b.object.name)
    byMessage.set(b.message, names)
  }
  const out = [...byMessage].map(([message, names]) =>
    names.length === 1 ? `${names[0]}: ${message}` : `${names.length} pods: ${message}`,
  )
  if (state.noController) out.unshift(state.noController.message)
  return out
}

/**
 * The three tools' answers, as the gate's summary words them: `kubectl Waiting, kstatus InProgress,
 * Argo CD Progressing`. `narrow` leaves kubectl's out (its own line says it), so that the longest
 * pair (`kstatus Terminating, Argo CD Progressing`) fits 40 columns.
 */
export function toolParts(
  t: ToolVerdicts,
  narrow = false,
): Array<{tool: string; status: string; outcome: ToolOutcome}> {
  return [
    ...(narrow ? [] : [{tool: 'kubectl', ...t.kubectl}]),
    {tool: 'kstatus', ...t.kstatus},
    {tool: 'Argo CD', ...t.argocd},
  ].map(({tool, status, outcome}) => ({tool, status, outcome}))
}

export function toolsLine(t: ToolVerdicts, narrow = false): string {
  return toolParts(t, narrow)
    .map((p) => `${p.tool} ${p.status}`)
    .join(', ')
}

/** Builds frames from successive updates, keeping the event history and the ETA samples. */
export class FrameBuilder {
  private readonly events: TimedEvent[] = []
  private readonly divergences: Divergence[] = []
  private first?: {time: number; available: number}
  private last?: WatchFrame

  /** `tools`: frames carry the three tools' answers (the live watch shows them). */
  constructor(
    private readonly eventLimit = 5,
    private readonly options: {tools?: boolean} = {},
  ) {}

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
      verdict: verdictOf(u.state),
      status: u.state.rolloutStatus.message,
      time: u.time,
      elapsed: u.elapsed,
      replicaSets: o.replicaSets,
      blockers: blockersOf(u.state),
      events: [...this.events],
    }
    if (this.options.tools) frame.tools = u.state.tools
    if (u.divergences) this.divergences.push(...u.divergences)
    if (this.divergences.length > 0) frame.divergences = this.divergences.slice(-3)
    if (u.next && u.next.length > 0 && !u.state.rolloutStatus.done) frame.next = u.next
    const deadline = deadlineOf(u.state, u.time)
    if (deadline) frame.deadline = deadline
    const eta = this.eta(u.time, newAvailable, d.replicas, u.state)
    if (eta !== undefined) frame.eta = eta
    this.last = frame
    return frame
  }

  /** The last frame again, with how the watch ended. */
  finish(outcome: WatchOutcome): WatchFrame | undefined {
    if (!this.last) return undefined
    this.last = {...this.last, outcome, blockers: outcome.kind === 'complete' ? [] : this.last.blockers}
    if (outcome.kind === 'complete') delete this.last.next
    return this.last
  }

  private eta(time: number, available: number, replicas: number, state: RolloutState): number | undefined {
    if (state.rolloutStatus.done) return 0
    if (!this.first || state.rolloutStatus.error) return undefined
    const gained = available - this.first.available
    const spent = time - this.first.time
    if (gained <= 0 || spent <= 0) return undefined
    return Math.max(0, ((replicas - available) * spent) / gained)
  }
}
