// What a recording says about each rollout in it (`explain -f TIMELINE --timeline-summary`, and
// `rollout record` when it stops): when it started and ended and how, how long until the first new
// pod was ready, its longest stall and what blocked it, its peak pod count, when the progress
// deadline fired or would have, and the pods that blocked it longest. Read from the replay's updates
// (./replay.ts): the status model's state at every recorded change, on the recorded clock.

import type {Timeline} from '../cluster/timeline/read.js'
import type {Deployment} from '../controller/api/types.js'
import type {FeatureGates} from '../controller/interfaces.js'
import type {Blocker} from '../status/types.js'
import type {WatchUpdate} from '../status/update.js'
import {type ReplayResult, replayTimelines} from './replay.js'

export type RolloutOutcome = 'Complete' | 'ProgressDeadlineExceeded' | 'Superseded' | 'Unfinished'

/** One rollout of a recording: a pod template from when the recording saw it set until it was done. */
export interface RolloutSummary {
  deployment: {namespace: string; name: string}
  /** The Deployment's revision once the controller numbered it (null before). */
  revision: number | null
  /** RFC 3339: when the template changed, or the recording's start for a rollout already under way. */
  start: string
  /** The rollout was under way when the recording began: its start is earlier than `start`. */
  startedBeforeRecording: boolean
  /** RFC 3339: when it completed, was superseded, or the recording ended. */
  end: string
  seconds: number
  outcome: RolloutOutcome
  /** kubectl rollout status's last line for it. */
  message: string
  /** The first pod of the new ReplicaSet created in the rollout to be ready. */
  firstNewPodReady: {pod: string; time: string; afterSeconds: number} | null
  /** The longest stretch with no progress (updated, new available and old pods all unchanged), of 0.1s or more. */
  longestStall: {
    from: string
    to: string
    seconds: number
    /** What blocked it most of that time (hard blockers first). */
    blocker: {code: string; object: string; message: string} | null
  } | null
  /** Most pods of the Deployment at once, not terminating; and counting terminating ones. */
  peakPods: number
  peakPodsWithTerminating: number
  deadline: {
    /** The controller marked ProgressDeadlineExceeded in the recording. */
    fired: boolean
    /**
     * RFC 3339: the deadline that fired (the Progressing condition's last progress plus
     * progressDeadlineSeconds), or the one of the longest stall: when it would have fired had the
     * stall lasted.
     */
    at: string | null
    /** When the recording saw it marked (fired only). */
    markedAt: string | null
  }
  /** The pods that blocked it longest (0.1s or more), longest first (at most 3). */
  blockedLongest: {pod: string; seconds: number; code: string}[]
}

export interface SummaryOptions {
  timeline: Timeline
  gates: FeatureGates & {values: Record<string, boolean>}
  /** The Deployments to summarize, as namespace/name, in order. */
  deployments: {namespace: string; name: string}[]
}

/** The rollouts of each Deployment, in order: one replay of the recording for all of them. */
export async function summarizeTimeline(opts: SummaryOptions): Promise<RolloutSummary[]> {
  const {timeline, gates, deployments} = opts
  // The summary reads the replay's states only: the writes are not checked against the port's.
  const replays = await replayTimelines({timeline, gates, deployments, divergences: false})
  return deployments.flatMap((key, i) => rolloutsOfReplay(key, replays[i] as ReplayResult, timeline))
}

/** The rollouts of one Deployment's replay. */
export function rolloutsOfReplay(
  key: {namespace: string; name: string},
  replay: ReplayResult,
  timeline: Timeline,
): RolloutSummary[] {
  return rolloutsOf(key, replay.updates, replay.deployments, timeline)
}

const iso = (ms: number) => new Date(ms).toISOString()
const secs = (ms: number) => Math.round(ms / 100) / 10

/** The Deployments a timeline holds (in the namespace, when given), sorted by namespace then name. */
export function timelineDeployments(
  timeline: Timeline,
  namespace?: string,
): {namespace: string; name: string}[] {
  const seen = new Map<string, {namespace: string; name: string}>()
  for (const c of timeline.changes) {
    if (c.kind !== 'Deployment') continue
    const m = c.object.metadata as {namespace?: string; name: string}
    const ns = m.namespace ?? 'default'
    if (namespace !== undefined && ns !== namespace) continue
    seen.set(`${ns}/${m.name}`, {namespace: ns, name: m.name})
  }
  return [...seen.values()].sort((a, b) =>
    a.namespace === b.namespace ? a.name.localeCompare(b.name) : a.namespace.localeCompare(b.namespace),
  )
}

/** Cuts one Deployment's updates into rollouts: each starts where the pod template changes. */
function rolloutsOf(
  key: {namespace: string; name: string},
  updates: readonly WatchUpdate[],
  deployments: readonly Deployment[],
  timeline: Timeline,
): RolloutSummary[] {
  const out: RolloutSummary[] = []
  let from: number | undefined
  let before = false
  let template: string | undefined
  let lastD: Deployment | undefined
  const close = (to: number, superseded: boolean) => {
    if (from === undefined) return
    out.push(summarize(key, updates.slice(from, to + 1), before, superseded, timeline))
    from = undefined
  }
  updates.forEach((u, i) => {
    const d = deployments[i] as Deployment
    if (d !== lastD) {
      const t = JSON.stringify(d.spec.template)
      if (template !== undefined && t !== template) {
        close(i, true)
        from = i
        before = false
      }
      template = t
      lastD = d
    }
    if (i === 0 && !u.state.rolloutStatus.done) {
      from = 0
      before = true
    }
    if (from !== undefined && u.state.rolloutStatus.done) close(i, false)
  })
  if (from !== undefined) out.push(summarize(key, updates.slice(from), before, false, timeline))
  return out
}

function progressKey(u: WatchUpdate): string {
  const o = u.observation
  const newRS = o.replicaSets.find((r) => r.new)
  const old = o.replicaSets.filter((r) => !r.new).reduce((n, r) => n + r.current + r.replicas, 0)
  return `${o.deployment.updated}/${newRS?.available ?? 0}/${newRS?.replicas ?? 0}/${old}`
}

const blockerRank = (b: Blocker) => (b.hard ? 0 : 1)

function summarize(
  key: {namespace: string; name: string},
  us: readonly WatchUpdate[],
  startedBefore: boolean,
  superseded: boolean,
  timeline: Timeline,
): RolloutSummary {
  const first = us[0] as WatchUpdate
  const last = us.at(-1) as WatchUpdate
  const done = last.state.rolloutStatus.done && !superseded
  // A superseded rollout ends where the next begins: that update belongs to the next one.
  const endTime = superseded || done ? last.time : timeline.end
  const body = superseded ? us.slice(0, -1) : us
  const at = (i: number) => (i + 1 < us.length ? (us[i + 1] as WatchUpdate).time : endTime)

  // The first new pod ready: a pod of the new ReplicaSet that was not there when the rollout began.
  const existing = new Set(first.observation.replicaSets.flatMap((r) => r.pods.map((p) => p.name)))
  let firstReady: RolloutSummary['firstNewPodReady'] = null
  for (const u of body) {
    const pod = u.observation.replicaSets
      .find((r) => r.new)
      ?.pods.find((p) => p.ready && !existing.has(p.name))
    if (pod) {
      firstReady = {pod: pod.name, time: iso(u.time), afterSeconds: secs(u.time - first.time)}
      break
    }
  }

  // Stalls: stretches of one progress key; blockers weighed by how long they held in the stretch.
  let stall: {from: number; to: number; blockers: Map<string, {b: Blocker; ms: number}>} | undefined
  let longest: typeof stall
  const blockedMs = new Map<string, {ms: number; code: string}>()
  let peak = 0
  let peakAll = 0
  let fired: number | undefined
  let deadlineAt: string | null = null
  /** The deadline as the last update before it fired had it. */
  let deadlineBefore: string | null = null
  body.forEach((u, i) => {
    const until = at(i)
    const k = progressKey(u)
    if (!stall || progressKey(body[i - 1] as WatchUpdate) !== k) {
      stall = {from: u.time, to: until, blockers: new Map()}
    } else stall.to = until
    for (const b of u.state.blockers) {
      const id = `${b.code}\u0000${b.object.kind}/${b.object.name}`
      const had = stall.blockers.get(id)
      stall.blockers.set(id, {b, ms: (had?.ms ?? 0) + (until - u.time)})
      if (b.object.kind === 'Pod') {
        const was = blockedMs.get(b.object.name)
        blockedMs.set(b.object.name, {
          ms: (was?.ms ?? 0) + (until - u.time),
          code: was && blockerRank(b) > 0 ? was.code : b.code,
        })
      }
    }
    if (!longest || stall.to - stall.from > longest.to - longest.from) {
      longest = stall
      deadlineAt = u.state.progress.deadline
    }
    let live = 0
    let all = 0
    for (const r of u.observation.replicaSets) {
      for (const p of r.pods) {
        all++
        if (p.state !== 'terminating') live++
      }
    }
    peak = Math.max(peak, live)
    peakAll = Math.max(peakAll, all)
    if (fired === undefined && u.state.rolloutStatus.error) fired = u.time
    if (fired === undefined && u.state.progress.deadline) deadlineBefore = u.state.progress.deadline
  })
  const blocker = longest
    ? [...longest.blockers.values()].sort((a, b) => blockerRank(a.b) - blockerRank(b.b) || b.ms - a.ms)[0]
    : undefined
  const outcome: RolloutOutcome = done
    ? 'Complete'
    : fired !== undefined
      ? 'ProgressDeadlineExceeded'
      : superseded
        ? 'Superseded'
        : 'Unfinished'
  const message = superseded
    ? `superseded by a new template at ${iso(last.time)}`
    : (body.at(-1) ?? last).state.rolloutStatus.message
  return {
    deployment: key,
    revision: (body.at(-1) ?? last).observation.deployment.revision || null,
    start: iso(first.time),
    startedBeforeRecording: startedBefore,
    end: iso(endTime),
    seconds: secs(endTime - first.time),
    outcome,
    message,
    firstNewPodReady: firstReady,
    longestStall:
      longest && longest.to - longest.from >= 100
        ? {
            from: iso(longest.from),
            to: iso(longest.to),
            seconds: secs(longest.to - longest.from),
            blocker: blocker
              ? {
                  code: blocker.b.code,
                  object: `${blocker.b.object.kind.toLowerCase()}/${blocker.b.object.name}`,
                  message: blocker.b.message,
                }
              : null,
          }
        : null,
    peakPods: peak,
    peakPodsWithTerminating: peakAll,
    deadline: {
      fired: fired !== undefined,
      at:
        fired !== undefined
          ? (deadlineBefore ?? iso(fired))
          : longest && longest.to - longest.from >= 100
            ? deadlineAt
            : null,
      markedAt: fired === undefined ? null : iso(fired),
    },
    blockedLongest: [...blockedMs.entries()]
      .filter(([, v]) => v.ms >= 100)
      .sort((a, b) => b[1].ms - a[1].ms || a[0].localeCompare(b[0]))
      .slice(0, 3)
      .map(([pod, v]) => ({pod, seconds: secs(v.ms), code: v.code})),
  }
}
