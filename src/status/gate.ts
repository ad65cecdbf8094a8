// The rollout gate's judgement of one Deployment (`rollout watch` over several Deployments): done by
// kubectl's rule (plus --settled), failed as soon as the status model finds a dead end (fail fast),
// or still under way. One row per Deployment, built by gateRow() for every output (the live view,
// lines, NDJSON, the RolloutGateResult summary, JUnit, GitHub annotations): what other verdicts the
// gate shows are added there.

import type {Deployment} from '../controller/api/types.js'
import {envelope, type ResultEnvelope} from '../pass/result.js'
import {formatTime, humanDuration, parseTime} from '../util/duration.js'
import {eventRow, newestFirst} from './blockers.js'
import type {RolloutState} from './index.js'
import type {DeploymentRef} from './item.js'
import {type ControllerHints, noControllerDueAt} from './no-controller.js'
import type {Observation} from './observe.js'
import type {ToolVerdicts} from './tools.js'
import type {Blocker, EventRow, KubeEvent, Verdict} from './types.js'

/** Where the gate stands on one Deployment. */
export type GatePhase = 'Waiting' | 'Progressing' | 'Done' | 'Failed'

export interface GateOptions {
  /** Fail on the status model's dead ends; false waits for the progress deadline, as kubectl does. */
  failFast: boolean
  /** A crash loop fails the gate once a container restarted this often. */
  maxRestarts: number
  /** Unschedulable new pods fail the gate after this long (the cluster autoscaler may add a node). */
  unschedulableGraceMs: number
  /** Done also needs no old pod still terminating. */
  settled: boolean
  /** A paused Deployment counts as done. */
  pausedOk: boolean
}

export const DEFAULT_GATE_OPTIONS: GateOptions = {
  failFast: true,
  maxRestarts: 2,
  unschedulableGraceMs: 60_000,
  settled: false,
  pausedOk: false,
}

/** The pod and container a failure is about: where its log is. */
export interface FailingPod {
  name: string
  container: string | null
  /** The container crash loops: its previous instance's log tells why. */
  previous: boolean
  /** The container has run, so it has a log (not so when its image never pulled). */
  hasLog: boolean
}

export interface GateJudgement {
  phase: GatePhase
  /** A reason code of docs/explain-reasons.md (the gate's own: NotFound, Timeout). */
  reason: string
  message: string
  pod?: FailingPod
}

const IMAGE_FAILURES = new Set(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'ErrImageNeverPull'])

/** A hard blocker that fails the gate now, or undefined when it may still clear up. */
function failingBlocker(b: Blocker, now: number, opts: GateOptions): boolean {
  if (IMAGE_FAILURES.has(b.code) || b.code === 'CreateContainerConfigError') return true
  if (b.code === 'CrashLoopBackOff') return (b.restarts ?? 0) >= opts.maxRestarts
  if (b.code === 'Unschedulable') {
    const since = parseTime(b.since)
    return since !== undefined && now - since >= opts.unschedulableGraceMs
  }
  // FailedCreate from a quota: the ReplicaSet controller retries, the API server keeps refusing.
  if (b.code === 'ReplicaFailure' || b.code === 'FailedCreate') return /quota/i.test(b.message)
  return false
}

const podOf = (b: Blocker): FailingPod | undefined =>
  b.object.kind === 'Pod'
    ? {
        name: b.object.name,
        container: b.container,
        previous: b.code === 'CrashLoopBackOff',
        hasLog: b.code === 'CrashLoopBackOff' || b.code === 'RunContainerError' || (b.restarts ?? 0) > 0,
      }
    : undefined

/**
 * The gate's judgement of `d` at `now` from the status model's state. `newReplicaSet` is the name of
 * the ReplicaSet running the current template (failures count only on its pods).
 */
export function judgeGate(
  d: Deployment,
  state: RolloutState,
  newReplicaSet: string | undefined,
  now: number,
  opts: GateOptions,
): GateJudgement {
  const kubectl = state.rolloutStatus
  const verdict = state.verdict
  if (kubectl.done) {
    if (opts.settled && !state.settled) {
      return {phase: 'Progressing', reason: 'OldPodsTerminating', message: 'Old pods are still terminating.'}
    }
    return {phase: 'Done', reason: 'RolloutComplete', message: kubectl.message}
  }
  const hard = state.blockers.filter(
    (b) => b.hard && newReplicaSet !== undefined && b.replicaSet === newReplicaSet,
  )
  if (kubectl.error) {
    const cause = hard[0]
    const pod = cause ? podOf(cause) : undefined
    return {
      phase: 'Failed',
      reason: 'ProgressDeadlineExceeded',
      message: verdict.message,
      ...(pod ? {pod} : {}),
    }
  }
  if (d.spec.paused) {
    if (opts.pausedOk) return {phase: 'Done', reason: verdict.reason, message: verdict.message}
    if (opts.failFast) return {phase: 'Failed', reason: verdict.reason, message: verdict.message}
    return {phase: 'Progressing', reason: verdict.reason, message: verdict.message}
  }
  if (opts.failFast) {
    if (verdict.code === 'Invalid') return {phase: 'Failed', reason: verdict.reason, message: verdict.message}
    const failing = hard.find((b) => failingBlocker(b, now, opts))
    if (failing) {
      const pod = podOf(failing)
      return {
        phase: 'Failed',
        reason: failing.code,
        message: verdict.code === 'Stalled' ? verdict.message : `${failing.object.name}: ${failing.message}.`,
        ...(pod ? {pod} : {}),
      }
    }
    if (state.noController) {
      return {phase: 'Failed', reason: state.noController.code, message: state.noController.message}
    }
  }
  return {phase: 'Progressing', reason: verdict.reason, message: verdict.message}
}

/**
 * The next instant time alone may change the judgement of `d` (epoch ms), or undefined: the
 * progress deadline, an Unschedulable pod's grace, the no-controller grace. Watchers judge it again
 * then (a second later: upstream's comparisons are strict and timestamps have whole seconds) rather
 * than at every tick; a change to its objects is judged at once anyway.
 */
export function nextJudgementAt(
  d: Deployment,
  state: RolloutState,
  now: number,
  opts: GateOptions,
  hints: ControllerHints = {},
): number | undefined {
  const at: number[] = []
  const deadline = parseTime(state.progress.deadline)
  if (deadline !== undefined) at.push(deadline)
  for (const b of state.blockers) {
    if (b.code !== 'Unschedulable') continue
    const since = parseTime(b.since)
    if (since !== undefined) at.push(since + opts.unschedulableGraceMs)
  }
  const lag = noControllerDueAt(d, hints)
  if (lag !== undefined) at.push(lag)
  const next = Math.min(...at.filter((t) => t > now - 1000))
  return Number.isFinite(next) ? Math.max(next + 1000, now) : undefined
}

/** The Warning events about `objects` (Kind/name), newest first, as explain lists them. */
export function warningRows(events: readonly KubeEvent[], objects: ReadonlySet<string>): EventRow[] {
  const rows = events
    .filter((e) => (e.type ?? 'Normal') === 'Warning')
    .map(eventRow)
    .filter((r) => objects.has(`${r.object.kind}/${r.object.name}`))
  return newestFirst(rows)
}

/** What a failed Deployment's report adds: its events and its failing container's last log lines. */
export interface GateFailureDetails {
  pod?: FailingPod
  /** Every Warning event of the Deployment, its ReplicaSets and pods (the text groups them). */
  events: EventRow[]
  /** The last lines of the failing container's log (previous instance for a crash loop). */
  log?: {lines: string[]; previous: boolean; container: string}
  /** Why the log could not be read (RBAC: pods/log get), when it could not. */
  logError?: string
}

/** The counts a row shows: desired, updated, ready, available (status as the controller wrote it). */
export interface GateCounts {
  desired: number
  updated: number
  ready: number
  available: number
}

/** One Deployment's row: the item of the RolloutGateResult, and what each output prints. */
export interface GateRow {
  /** The kubeconfig context, when the gate covers several (--context repeated, --all-contexts). */
  context?: string
  deployment: DeploymentRef
  verdict: Verdict
  phase: GatePhase
  reason: string
  message: string
  /** What `kubectl rollout status` says of it now. */
  rolloutStatus: string
  /** What kubectl rollout status, kstatus and Argo CD answer now, side by side; absent while it does not exist. */
  tools?: ToolVerdicts
  replicas: GateCounts
  /** ms until done, estimated from the pace so far (undefined: unknown). */
  eta?: number
  /** When the gate decided it (RFC 3339): done or failed. */
  decidedAt?: string
  failure?: GateFailureDetails
}

const NOT_FOUND_VERDICT = (ref: DeploymentRef): Verdict => ({
  code: 'Progressing',
  reason: 'NotFound',
  message: `deployment "${ref.name}" does not exist (yet) in namespace ${ref.namespace}.`,
})

export interface GateRowInput {
  ref: DeploymentRef
  /** Absent: the Deployment does not exist (yet). */
  observation?: Observation
  state?: RolloutState
  judgement: GateJudgement
  eta?: number
  decidedAt?: number
  failure?: GateFailureDetails
}

/** The row of one Deployment: the single place a gate row is built (outputs only read it). */
export function gateRow(input: GateRowInput): GateRow {
  const d = input.observation?.deployment
  const row: GateRow = {
    deployment: {namespace: input.ref.namespace, name: input.ref.name},
    verdict: input.state?.verdict ?? NOT_FOUND_VERDICT(input.ref),
    phase: input.judgement.phase,
    reason: input.judgement.reason,
    message: input.judgement.message,
    rolloutStatus:
      input.state?.rolloutStatus.message ??
      `Error from server (NotFound): deployments.apps "${input.ref.name}" not found`,
    replicas: {
      desired: d?.replicas ?? 0,
      updated: d?.updated ?? 0,
      ready: d?.ready ?? 0,
      available: d?.available ?? 0,
    },
  }
  if (input.state) row.tools = input.state.tools
  if (input.eta !== undefined) row.eta = input.eta
  if (input.decidedAt !== undefined) row.decidedAt = formatTime(input.decidedAt)
  if (input.failure) row.failure = input.failure
  return row
}

/** How outputs name a row's Deployment: `ns/name`, `context:ns/name` when the gate covers several contexts. */
export function gateRef(r: GateRow): string {
  return `${r.context ? `${r.context}:` : ''}${r.deployment.namespace}/${r.deployment.name}`
}

/** Rows as the outputs list them: failures first, then the ones still under way, then done; by name. */
export function sortRows(rows: readonly GateRow[]): GateRow[] {
  const rank: Record<GatePhase, number> = {Failed: 0, Waiting: 1, Progressing: 1, Done: 2}
  return [...rows].sort(
    (a, b) =>
      rank[a.phase] - rank[b.phase] ||
      (a.context ?? '').localeCompare(b.context ?? '') ||
      a.deployment.namespace.localeCompare(b.deployment.namespace) ||
      a.deployment.name.localeCompare(b.deployment.name),
  )
}

/** How the gate ended. */
export type GateResultKind = 'Succeeded' | 'Failed' | 'TimedOut' | 'Interrupted'

export interface GateSummary extends ResultEnvelope<'RolloutGateResult', GateRow> {
  result: GateResultKind
  /** One sentence: how many are done, which failed and why, or what the timeout left. */
  message: string
  /** ms from the gate's start to its end. */
  elapsed: number
  counts: {total: number; done: number; failed: number; pending: number}
}

/** The summary of the rows at the end (`timedOut`: --timeout passed with some not done). */
export function gateSummary(
  rows: readonly GateRow[],
  end: {timedOut?: number; interrupted?: boolean; elapsed: number; now: number},
  gates: {values: Record<string, boolean>},
): GateSummary {
  const sorted = sortRows(rows)
  const done = rows.filter((r) => r.phase === 'Done').length
  const failed = rows.filter((r) => r.phase === 'Failed')
  const pending = rows.length - done - failed.length
  const names = (list: readonly GateRow[]) => list.map((r) => `${gateRef(r)} (${r.reason})`).join(', ')
  let result: GateResultKind
  let message: string
  const n = rows.length
  const of = `${done} of ${n} Deployment${n === 1 ? '' : 's'} rolled out`
  if (end.interrupted) {
    result = 'Interrupted'
    message = `interrupted: ${of}.`
  } else if (failed.length > 0) {
    result = 'Failed'
    message = `${of}; ${failed.length} failed: ${names(failed)}.`
  } else if (pending > 0 && end.timedOut !== undefined) {
    result = 'TimedOut'
    message = `timed out after ${humanDuration(end.timedOut)}: ${of}; still waiting for ${names(sorted.filter((r) => r.phase !== 'Done'))}.`
  } else {
    result = 'Succeeded'
    message = `${of}.`
  }
  const {items, ...head} = envelope('RolloutGateResult', end.now, gates, sorted)
  return {
    ...head,
    result,
    message,
    elapsed: end.elapsed,
    counts: {total: n, done, failed: failed.length, pending},
    items,
  }
}
