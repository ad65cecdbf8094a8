// The HorizontalPodAutoscaler as a model of the simulated cluster: every sync period it runs the
// HPA controller's replica calculation over the Deployment's pods as they stand (old and new
// ReplicaSets alike: the scale target's selector spans them, kubernetes#72775) and, when the
// result differs, writes the Deployment's spec.replicas, which the Deployment controller then
// spreads over its ReplicaSets proportionally.
//
// upstream (pkg/controller/podautoscaler):
// - replica_calculator.go GetResourceReplicas and groupPods: deleted and failed pods ignored;
//   Pending pods unready; for cpu, a pod within its initialization period (5 min from its start)
//   that is not Ready, or whose metric window has not passed since it became Ready, is unready;
//   pods without a sample missing. Outside the 0.1 tolerance and with none unready or missing:
//   ceil(ratio × ready pods). Otherwise, on a scale-up, unready and missing pods count as using 0%,
//   on a scale-down missing ones as 100%, and the ratio is recomputed (no change when it turns
//   direction or falls within the tolerance).
// - horizontal.go computeReplicasForMetrics (the largest over the metrics),
//   normalizeDesiredReplicasWithBehaviors: stabilizeRecommendationWithBehaviors (scale-up
//   stabilization: the lowest recommendation of its window; scale-down: the highest), then
//   convertDesiredReplicasWithBehaviorRate with calculateScaleUpLimitWithScalingRules /
//   calculateScaleDownLimitWithBehaviors (policies per period, selectPolicy), min/max replicas.
//   The default behavior is the API server's (scale-up: 0 s window, max of 4 pods and 100% per
//   15 s; scale-down: 300 s window, 100% per 15 s).
//
// The metrics: each pod that has a sample uses what the HPA's status reports now
// (status.currentMetrics' averageUtilization, or v1's currentCPUUtilizationPercentage): the model
// keeps per-pod utilization as reported, so counting more pods asks for more replicas.

import type {ClusterObject} from '../cluster/world.js'
import type {Deployment, Pod} from '../controller/api/types.js'

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

/** upstream: kube-controller-manager's --horizontal-pod-autoscaler-* defaults. */
export const HPA_SYNC_PERIOD = 15_000
export const HPA_TOLERANCE = 0.1
export const CPU_INITIALIZATION_PERIOD = 5 * 60_000
export const INITIAL_READINESS_DELAY = 30_000
/** metrics-server's default resolution: a pod has a sample one window after it starts. */
export const METRIC_WINDOW = 15_000

export interface ResourceMetric {
  resource: string
  /** Average utilization (percent of requests) the status reports, and the target. */
  current: number
  target: number
}

interface ScalingPolicy {
  type: 'Pods' | 'Percent'
  value: number
  periodSeconds: number
}

interface ScalingRules {
  stabilizationWindowSeconds: number
  selectPolicy: 'Max' | 'Min' | 'Disabled'
  policies: ScalingPolicy[]
}

/** upstream: the API server's defaults of spec.behavior (SetDefaults_HorizontalPodAutoscalerBehavior). */
const DEFAULT_SCALE_UP: ScalingRules = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    {type: 'Pods', value: 4, periodSeconds: 15},
    {type: 'Percent', value: 100, periodSeconds: 15},
  ],
}
const DEFAULT_SCALE_DOWN: ScalingRules = {
  stabilizationWindowSeconds: 300,
  selectPolicy: 'Max',
  policies: [{type: 'Percent', value: 100, periodSeconds: 15}],
}

function rules(v: unknown, defaults: ScalingRules): ScalingRules {
  const o = obj(v)
  const policies = list(o.policies)
    .map(obj)
    .filter((p) => (p.type === 'Pods' || p.type === 'Percent') && num(p.value) !== undefined)
    .map((p) => ({
      type: p.type as 'Pods' | 'Percent',
      value: num(p.value) as number,
      periodSeconds: num(p.periodSeconds) ?? 15,
    }))
  const select = o.selectPolicy
  return {
    stabilizationWindowSeconds: num(o.stabilizationWindowSeconds) ?? defaults.stabilizationWindowSeconds,
    selectPolicy: select === 'Min' || select === 'Disabled' ? select : 'Max',
    policies: policies.length > 0 ? policies : defaults.policies,
  }
}

/** The resource metrics with a utilization target and a current value (v2, or v1's CPU fields). */
export function resourceMetrics(hpa: ClusterObject | {spec?: unknown; status?: unknown}): ResourceMetric[] {
  const spec = obj(hpa.spec)
  const status = obj(hpa.status)
  const out: ResourceMetric[] = []
  for (const m of list(spec.metrics).map(obj)) {
    if (m.type !== 'Resource') continue
    const res = obj(m.resource)
    const target = num(obj(res.target).averageUtilization)
    const current = list(status.currentMetrics)
      .map(obj)
      .find((c) => c.type === 'Resource' && obj(c.resource).name === res.name)
    const value = num(obj(obj(current?.resource).current).averageUtilization)
    if (target !== undefined && target > 0 && value !== undefined) {
      out.push({resource: String(res.name ?? ''), current: value, target})
    }
  }
  const v1Target = num(spec.targetCPUUtilizationPercentage)
  const v1Current = num(status.currentCPUUtilizationPercentage)
  if (out.length === 0 && v1Target !== undefined && v1Target > 0 && v1Current !== undefined) {
    out.push({resource: 'cpu', current: v1Current, target: v1Target})
  }
  return out
}

/** How the HPA sees one pod at `now` (upstream groupPods). */
export type PodGroup = 'ready' | 'unready' | 'missing' | 'ignored'

const time = (v: unknown): number | undefined => {
  const t = typeof v === 'string' ? Date.parse(v) : Number.NaN
  return Number.isFinite(t) ? t : undefined
}

/** upstream: groupPods, for one pod and one resource. */
export function groupPod(pod: Pod, resource: string, now: number): PodGroup {
  if (pod.metadata.deletionTimestamp != null || pod.status?.phase === 'Failed') return 'ignored'
  if (pod.status?.phase === 'Pending' || pod.status?.phase === undefined) return 'unready'
  const start = time(pod.status?.startTime) ?? time(pod.metadata.creationTimestamp)
  // No sample before one metric window of running.
  if (start === undefined || now < start + METRIC_WINDOW) return 'missing'
  if (resource !== 'cpu') return 'ready'
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready')
  if (!ready) return 'unready'
  const transition = time(ready.lastTransitionTime) ?? start
  if (start + CPU_INITIALIZATION_PERIOD > now) {
    // Still initializing: unready, or a sample that began before it became Ready.
    return ready.status !== 'True' || now < transition + METRIC_WINDOW ? 'unready' : 'ready'
  }
  // Past it: unready only if it never became Ready.
  return ready.status === 'False' && start + INITIAL_READINESS_DELAY > transition ? 'unready' : 'ready'
}

/** upstream: GetResourceReplicas over the pods' groups, every sampled pod at `m.current` percent. */
export function resourceReplicas(
  current: number,
  m: {current: number; target: number},
  groups: {ready: number; unready: number; missing: number},
): number {
  if (groups.ready === 0) return current
  const ratio = m.current / m.target
  const rebalance = groups.unready > 0 && ratio > 1
  if (!rebalance && groups.missing === 0) {
    if (Math.abs(1 - ratio) <= HPA_TOLERANCE) return current
    return Math.ceil(ratio * groups.ready)
  }
  // Missing pods use 0% on a scale-up and 100% of their request on a scale-down; unready ones 0%.
  let usage = m.current * groups.ready
  let counted = groups.ready
  // (at a ratio of exactly 1 they get no sample: upstream fills them only below or above it).
  if (groups.missing > 0 && ratio !== 1) {
    if (ratio < 1) usage += 100 * groups.missing
    counted += groups.missing
  }
  if (rebalance) counted += groups.unready
  const newRatio = usage / counted / m.target
  if (Math.abs(1 - newRatio) <= HPA_TOLERANCE || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1)) {
    return current
  }
  const replicas = Math.ceil(newRatio * counted)
  if ((newRatio < 1 && replicas > current) || (newRatio > 1 && replicas < current)) return current
  return replicas
}

export interface AutoscalerSync {
  /** What the calculation asked for (before behavior and bounds), and what the HPA writes. */
  desired: number
  replicas: number
  /** The pods it counted as ready (with a sample), of the Deployment's pods. */
  ready: number
  pods: number
  reason: string
}

/** One HorizontalPodAutoscaler over one Deployment, synced every HPA_SYNC_PERIOD of virtual time. */
export class AutoscalerModel {
  readonly name: string
  readonly metrics: ResourceMetric[]
  readonly minReplicas: number
  readonly maxReplicas: number
  private readonly up: ScalingRules
  private readonly down: ScalingRules
  /** upstream: the controller's recommendations and scale events, per HPA. */
  private readonly recommendations: Array<{at: number; replicas: number}> = []
  private readonly events: Array<{at: number; change: number}> = []
  private next: number

  constructor(hpa: ClusterObject, start: number, replicas: number) {
    this.name = hpa.metadata.name ?? ''
    this.metrics = resourceMetrics(hpa)
    const spec = obj(hpa.spec)
    this.minReplicas = num(spec.minReplicas) ?? 1
    this.maxReplicas = num(spec.maxReplicas) ?? Number.MAX_SAFE_INTEGER
    const behavior = obj(spec.behavior)
    this.up = rules(behavior.scaleUp, DEFAULT_SCALE_UP)
    this.down = rules(behavior.scaleDown, DEFAULT_SCALE_DOWN)
    // Up to the clock's start the autoscaler was settled: it recommended the replicas it has.
    this.recommendations.push({at: start, replicas})
    this.next = start + HPA_SYNC_PERIOD
  }

  /** Whether it can act at all: resource metrics with a target and a reported value. */
  get active(): boolean {
    return this.metrics.length > 0
  }

  nextSyncAt(): number {
    return this.next
  }

  /** upstream: reconcileAutoscaler at `now`, over the Deployment's pods; the replicas to write. */
  sync(
    now: number,
    d: Deployment,
    pods: readonly Pod[],
    weight: (p: Pod) => number,
  ): AutoscalerSync | undefined {
    this.next = now + HPA_SYNC_PERIOD
    const current = d.spec.replicas ?? 1
    // upstream: a target scaled to 0 by hand disables autoscaling.
    if (current === 0 && this.minReplicas !== 0) return undefined
    let desired = 0
    let ready = 0
    let total = 0
    let reason = ''
    for (const m of this.metrics) {
      const groups = {ready: 0, unready: 0, missing: 0}
      total = 0
      for (const p of pods) {
        if (p.status?.phase === 'Succeeded') continue
        const g = groupPod(p, m.resource, now)
        if (g === 'ignored') continue
        total += weight(p)
        groups[g] += weight(p)
      }
      const want = resourceReplicas(current, m, groups)
      if (want > desired) {
        desired = want
        ready = groups.ready
        reason = `${m.resource} resource utilization (percentage of request) ${m.current > m.target ? 'above' : 'below'} target`
      }
    }
    const replicas = this.normalize(now, current, desired)
    return {desired, replicas, ready, pods: total, reason}
  }

  /** Records the write of `replicas` (a scale event the rate limits remember). */
  scaled(now: number, from: number, to: number): void {
    this.events.push({at: now, change: to - from})
  }

  /** upstream: normalizeDesiredReplicasWithBehaviors. */
  private normalize(now: number, current: number, desired: number): number {
    // stabilizeRecommendationWithBehaviors
    const upCutoff = now - this.up.stabilizationWindowSeconds * 1000
    const downCutoff = now - this.down.stabilizationWindowSeconds * 1000
    let upRec = desired
    let downRec = desired
    for (const r of this.recommendations) {
      if (r.at >= upCutoff) upRec = Math.min(upRec, r.replicas)
      if (r.at >= downCutoff) downRec = Math.max(downRec, r.replicas)
    }
    this.recommendations.push({at: now, replicas: desired})
    let stabilized = current
    if (stabilized < upRec) stabilized = upRec
    if (stabilized > downRec) stabilized = downRec
    // convertDesiredReplicasWithBehaviorRate
    if (stabilized > current) {
      const limit = Math.min(this.scaleUpLimit(now, current), this.maxReplicas)
      return Math.max(this.minReplicas, Math.min(stabilized, limit))
    }
    if (stabilized < current) {
      const limit = Math.max(this.scaleDownLimit(now, current), this.minReplicas)
      return Math.min(this.maxReplicas, Math.max(stabilized, limit))
    }
    return Math.min(this.maxReplicas, Math.max(this.minReplicas, stabilized))
  }

  /** upstream: calculateScaleUpLimitWithScalingRules. */
  private scaleUpLimit(now: number, current: number): number {
    if (this.up.selectPolicy === 'Disabled') return current
    let result = this.up.selectPolicy === 'Min' ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER
    for (const p of this.up.policies) {
      const added = this.events
        .filter((e) => e.change > 0 && e.at > now - p.periodSeconds * 1000)
        .reduce((n, e) => n + e.change, 0)
      const periodStart = current - added
      const proposed =
        p.type === 'Pods' ? periodStart + p.value : Math.ceil(periodStart * (1 + p.value / 100))
      result = this.up.selectPolicy === 'Min' ? Math.min(result, proposed) : Math.max(result, proposed)
    }
    return result
  }

  /** upstream: calculateScaleDownLimitWithBehaviors. */
  private scaleDownLimit(now: number, current: number): number {
    if (this.down.selectPolicy === 'Disabled') return current
    let result = this.down.selectPolicy === 'Min' ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER
    for (const p of this.down.policies) {
      const removed = this.events
        .filter((e) => e.change < 0 && e.at > now - p.periodSeconds * 1000)
        .reduce((n, e) => n - e.change, 0)
      const periodStart = current + removed
      const proposed =
        p.type === 'Pods' ? periodStart - p.value : Math.ceil(periodStart * (1 - p.value / 100))
      result = this.down.selectPolicy === 'Min' ? Math.max(result, proposed) : Math.min(result, proposed)
    }
    return result
  }
}
