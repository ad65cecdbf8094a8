// `-o json`: one JSON object per line (NDJSON) for scripts: a Step object per timeline entry, then
// one Summary object. This shape is a contract: add fields, never rename or remove them.

import type {SimulationSummary, TimelineEntry} from '../../sim/simulator.js'
import type {WatchOutcome, WatchSummary, WatchUpdate} from '../../status/update.js'

/** RFC 3339 in UTC, with milliseconds only when the instant has some. */
export function timestamp(ms: number): string {
  const iso = new Date(ms).toISOString()
  return ms % 1000 === 0 ? iso.replace(/\.\d{3}Z$/, 'Z') : iso
}

export function stepJson(e: TimelineEntry): Record<string, unknown> {
  const o = e.observation
  const d = o.deployment
  return {
    kind: 'Step',
    step: e.step,
    t: e.elapsed / 1000,
    time: timestamp(e.time),
    status: o.rollout.message,
    verdict: e.state.verdict,
    progress: {
      state: e.state.progress.state,
      deadline: e.state.progress.deadline,
      secondsLeft: e.state.progress.secondsLeft,
      message: e.state.progress.message,
    },
    settled: e.state.settled,
    noController: e.state.noController,
    actions: e.actions,
    events: e.events,
    deployment: {
      name: d.name,
      namespace: d.namespace,
      generation: d.generation,
      observedGeneration: d.observedGeneration,
      revision: d.revision,
      replicas: d.replicas,
      updated: d.updated,
      current: d.current,
      ready: d.ready,
      available: d.available,
      unavailable: d.unavailable,
      ...(d.terminating !== undefined ? {terminating: d.terminating} : {}),
    },
    replicaSets: o.replicaSets.map((r) => ({
      name: r.name,
      revision: r.revision,
      new: r.new,
      replicas: r.replicas,
      current: r.current,
      ready: r.ready,
      available: r.available,
      terminating: r.terminating,
      pods: r.pods.map((p) => ({
        name: p.name,
        state: p.state,
        reason: p.reason,
        ready: p.ready,
        restarts: p.restarts,
        ...(p.node ? {node: p.node} : {}),
        ...(p.count !== undefined ? {count: p.count} : {}),
      })),
    })),
    conditions: d.conditions,
    ...(e.pass
      ? {
          pass: {
            writes: e.pass.writes,
            requeueAfterSeconds:
              e.pass.requeue === null
                ? null
                : e.pass.requeue.kind === 'after'
                  ? (e.pass.requeue.seconds ?? 0)
                  : 0,
            error: e.pass.error,
          },
        }
      : {}),
  }
}

/** A live watch's update as a Step object (no pass, no actions: the cluster's controller made them). */
export function updateJson(u: WatchUpdate, step: number): Record<string, unknown> {
  const step_ = stepJson({
    step,
    time: u.time,
    elapsed: u.elapsed,
    actions: u.actions ?? [],
    events: u.events,
    observation: u.observation,
    state: u.state,
  })
  // A replayed recording: where its ReplicaSet writes differ from the port's (docs/replay.md).
  if (u.divergences && u.divergences.length > 0) {
    step_.divergences = u.divergences.map((d) => ({...d, time: timestamp(d.time)}))
  }
  return step_
}

/**
 * How a live watch ended: the last object of its NDJSON, with the summary of what it saw (the
 * simulated Summary's duration, peakPods, minAvailable, deadlineExceeded) when it saw an update.
 */
export function endJson(
  outcome: WatchOutcome,
  time: number,
  elapsed: number,
  summary?: WatchSummary,
): Record<string, unknown> {
  return {
    kind: 'End',
    outcome: outcome.kind,
    message: outcome.message,
    time: timestamp(time),
    t: elapsed / 1000,
    complete: outcome.kind === 'complete',
    ...(summary
      ? {
          duration: summary.duration / 1000,
          peakPods: summary.peakPods,
          minAvailable: summary.minAvailable,
          deadlineExceeded: summary.deadlineExceeded,
        }
      : {}),
  }
}

export function summaryJson(s: SimulationSummary, kubernetesVersion?: string): Record<string, unknown> {
  return {
    kind: 'Summary',
    outcome: s.outcome,
    message: s.message,
    start: timestamp(s.start),
    end: timestamp(s.end),
    duration: s.duration / 1000,
    steps: s.steps,
    passes: s.passes,
    peakPods: s.peakPods,
    minAvailable: s.minAvailable,
    deadlineExceeded: s.deadlineExceeded,
    complete: s.complete,
    ...(kubernetesVersion ? {kubernetesVersion} : {}),
  }
}

export function ndjsonLine(value: Record<string, unknown>): string {
  return `${JSON.stringify(value)}\n`
}
