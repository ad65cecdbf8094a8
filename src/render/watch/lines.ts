// Line mode: one plain line per change, prefixed with the Deployment name and the (virtual) time, in
// kubectl rollout status's words where it has them. Fed update by update, so a live watch can use it.

import {podCount} from '../../status/pods.js'
import type {WatchOutcome, WatchSummary, WatchUpdate} from '../../status/update.js'
import {humanDuration} from '../../util/duration.js'
import {escapeControl} from '../../util/terminal.js'
import {toolsLine} from './frame.js'

/** `HH:MM:SS` of an epoch ms, in UTC (milliseconds left out). */
export function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19)
}

/** `Pod/web-x` -> `pod/web-x`, as kubectl names objects. */
function kubectlRef(object: string): string {
  const slash = object.indexOf('/')
  return slash < 0 ? object : `${object.slice(0, slash).toLowerCase()}${object.slice(slash)}`
}

/**
 * A live watch's summary, from the updates it saw (the simulation computes its own): how long from
 * the first update, the most pods at once, the fewest available, whether the deadline was exceeded.
 */
export class SummaryTracker {
  private first: number | undefined
  private peakPods = 0
  private minAvailable = Number.POSITIVE_INFINITY
  private deadlineExceeded = false

  push(u: WatchUpdate): void {
    const o = u.observation
    this.first ??= u.elapsed
    this.peakPods = Math.max(
      this.peakPods,
      o.replicaSets.reduce((n, rs) => n + podCount(rs.pods), 0),
    )
    this.minAvailable = Math.min(
      this.minAvailable,
      o.replicaSets.reduce((n, rs) => n + rs.available, 0),
    )
    const progressing = o.deployment.conditions.find((c) => c.type === 'Progressing')
    if (progressing?.reason === 'ProgressDeadlineExceeded') this.deadlineExceeded = true
  }

  /** Up to `end`, in ms since the watch started (an update's `elapsed`); undefined before any update. */
  summary(end: number, outcome: WatchOutcome): WatchSummary | undefined {
    if (this.first === undefined) return undefined
    return {
      duration: Math.max(0, end - this.first),
      peakPods: this.peakPods,
      minAvailable: Number.isFinite(this.minAvailable) ? this.minAvailable : 0,
      deadlineExceeded: this.deadlineExceeded || outcome.kind === 'deadlineExceeded',
    }
  }
}

export class LineWriter {
  private lastStatus: string | undefined
  private lastTime = 0
  private lastElapsed = 0
  private pushed = false
  /** The no-controller warning is printed once. */
  private warned = false
  /** Live: the three tools' answers last printed. */
  private lastTools: string | undefined

  /**
   * Live: the Deployment controller's Normal events are not listed (only Warnings are polled), so its
   * "Scaled up/down replica set" lines are read from the ReplicaSets' spec.replicas as they change,
   * and the closing summary from the updates seen, as the simulation gives them.
   */
  private readonly live: boolean
  /** Live: each ReplicaSet's spec.replicas at the last update (none before the first). */
  private sizes: Map<string, number> | undefined
  private readonly seen = new SummaryTracker()

  constructor(
    private readonly name: string,
    options: {live?: boolean} = {},
  ) {
    this.live = options.live === true
  }

  /**
   * Live: the scalings since the last update, in the words of upstream's ScalingReplicaSet event
   * (`Scaled up replica set %s from %d to %d`, scaleReplicaSet): a ReplicaSet first seen after the
   * first update was created, from 0.
   */
  private scalings(u: WatchUpdate): string[] {
    const now = new Map(u.observation.replicaSets.map((rs) => [rs.name, rs.replicas]))
    const before = this.sizes
    this.sizes = now
    if (before === undefined) return []
    const out: string[] = []
    for (const [name, to] of now) {
      const from = before.get(name) ?? 0
      if (to === from) continue
      out.push(`Scaled ${to > from ? 'up' : 'down'} replica set ${name} from ${from} to ${to}`)
    }
    return out
  }

  /** Live: the summary of what was seen, from the first update to `end` (ms since the watch started). */
  liveSummary(end: number, outcome: WatchOutcome): WatchSummary | undefined {
    return this.live ? this.seen.summary(end, outcome) : undefined
  }

  private prefix(time: number, elapsed: number): string {
    return `${this.name} [${clock(time)} +${humanDuration(elapsed)}]`
  }

  /**
   * The lines of one update: the Deployment controller's events, warnings from the pods, and the
   * rollout status when it changed. The final verdict is left to finish().
   */
  push(u: WatchUpdate): string[] {
    this.pushed = true
    this.lastTime = u.time
    this.lastElapsed = u.elapsed
    const p = this.prefix(u.time, u.elapsed)
    const out: string[] = []
    if (this.live) {
      this.seen.push(u)
      for (const line of this.scalings(u)) out.push(`${p} ${line}`)
    }
    for (const e of u.events) {
      if (e.source === 'deployment-controller') out.push(`${p} ${e.message}`)
      else if (e.source === 'horizontal-pod-autoscaler')
        out.push(`${p} ${kubectlRef(e.object)}: ${e.message}`)
      else if (e.type === 'Warning') out.push(`${p} ${kubectlRef(e.object)}: ${e.reason}: ${e.message}`)
    }
    const stuck = u.state.noController
    if (stuck && !this.warned) {
      this.warned = true
      out.push(`${p} warning: ${stuck.message}`)
    }
    for (const d of u.divergences ?? []) {
      const at = this.prefix(d.time, Math.max(0, u.elapsed + d.time - u.time))
      out.push(`${at} divergence ${d.code}: ${d.message}`)
    }
    const r = u.state.rolloutStatus
    if (!r.done && !r.error && r.message !== this.lastStatus) {
      this.lastStatus = r.message
      out.push(`${p} ${r.message}`)
    }
    // Live: what kubectl rollout status, kstatus and Argo CD answer, each time one of the answers (or
    // kstatus's reason) changes; their messages follow the counts, which the lines above give.
    if (this.live) {
      const t = u.state.tools
      const answers = toolsLine(t)
      const key = `${answers} ${t.kstatus.reason ?? ''}`
      if (key !== this.lastTools) {
        this.lastTools = key
        out.push(`${p} ${answers}${t.disagreement ? `: they disagree: ${t.disagreement}` : ''}`)
      }
    }
    // One line each: a newline or an escape sequence inside an event's text is shown, not run.
    return out.map(escapeControl)
  }

  /** One line of the caller's at an update's time. */
  note(u: {time: number; elapsed: number}, text: string): string {
    return escapeControl(`${this.prefix(u.time, u.elapsed)} ${text}`)
  }

  /** A replay's count of divergences, by code, at the last update's time. */
  replaySummary(divergences: readonly {code: string}[]): string {
    const p = this.prefix(this.lastTime, this.lastElapsed)
    const n = divergences.length
    const byCode = new Map<string, number>()
    for (const d of divergences) byCode.set(d.code, (byCode.get(d.code) ?? 0) + 1)
    const codes = [...byCode].map(([code, k]) => `${k} ${code}`).join(', ')
    return `${p} replay: ${n === 0 ? 'no divergence' : `${n} divergence${n === 1 ? '' : 's'}`} between the recorded ReplicaSet writes and the port's${n === 0 ? '' : ` (${codes})`}`
  }

  /** The closing lines: the summary, then the verdict (kubectl's success or error line). */
  finish(outcome: WatchOutcome): string[] {
    // Without an update before it (a Deployment never found), the end is at +0s, not the time since 1970.
    if (!this.pushed) return this.finishAt(outcome, outcome.end ?? 0, 0)
    const late = outcome.end !== undefined && outcome.end > this.lastTime ? outcome.end - this.lastTime : 0
    const summary = outcome.summary ?? this.liveSummary(this.lastElapsed + late, outcome)
    return this.finishAt(
      summary ? {...outcome, summary} : outcome,
      this.lastTime + late,
      this.lastElapsed + late,
    )
  }

  private finishAt(outcome: WatchOutcome, time: number, elapsed: number): string[] {
    const p = this.prefix(time, elapsed)
    const out: string[] = []
    const summary = outcome.summary
    if (summary) {
      out.push(
        `${p} summary: took ${humanDuration(summary.duration)}, at most ${summary.peakPods} pod${summary.peakPods === 1 ? '' : 's'}, at least ${summary.minAvailable} available, progress deadline ${summary.deadlineExceeded ? 'exceeded' : 'not exceeded'}${summary.kubernetesVersion ? `, as kube-controller-manager ${summary.kubernetesVersion}` : ''}`,
      )
    }
    out.push(`${p} ${outcome.message}`)
    return out.map(escapeControl)
  }
}
