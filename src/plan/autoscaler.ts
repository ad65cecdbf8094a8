// An autoscaler over the rollout: the HorizontalPodAutoscaler's replica calculation (upstream
// replica_calculator GetResourceReplicas, the plain case) run at each point of the simulated
// rollout with the utilization its status reports. It counts every pod of the Deployment, the
// surge's new ones too (kubernetes#72775: 383 -> 664 replicas in one rollout), so an autoscaler near
// its target asks for more replicas while the rollout runs.

import type {PlanPoint} from './index.js'
import type {ApiObject} from './risks.js'

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

/** upstream: the HPA controller's default --horizontal-pod-autoscaler-tolerance. */
export const TOLERANCE = 0.1

export interface AutoscalerForecast {
  name: string
  /** Each resource metric: its current and target average utilization (percent). */
  metrics: Array<{resource: string; current: number; target: number}>
  minReplicas: number
  maxReplicas: number
  /** What it asks for with the Deployment's replicas alone, and at the rollout's most pods. */
  now: number
  peak: {atSeconds: number; pods: number; replicas: number}
  /** Its count at each point of the rollout where it would change. */
  steps: Array<{atSeconds: number; pods: number; replicas: number}>
}

/** The resource metrics with a utilization target and a current value (v2, or v1's CPU fields). */
function utilizations(hpa: ApiObject): Array<{resource: string; current: number; target: number}> {
  const spec = obj(hpa.spec)
  const status = obj(hpa.status)
  const out: Array<{resource: string; current: number; target: number}> = []
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

/** upstream: GetResourceReplicas (every pod ready with metrics) and the tolerance, the largest over metrics, bounded. */
function replicasFor(
  pods: number,
  current: number,
  metrics: Array<{current: number; target: number}>,
  min: number,
  max: number,
): number {
  let want = 0
  for (const m of metrics) {
    const ratio = m.current / m.target
    want = Math.max(want, Math.abs(ratio - 1) <= TOLERANCE ? current : Math.ceil(ratio * pods))
  }
  return Math.min(max, Math.max(min, want))
}

export function forecast(
  hpa: ApiObject,
  replicas: number,
  timeline: PlanPoint[],
): AutoscalerForecast | undefined {
  const metrics = utilizations(hpa)
  if (metrics.length === 0) return undefined
  const spec = obj(hpa.spec)
  const min = num(spec.minReplicas) ?? 1
  const max = num(spec.maxReplicas) ?? Number.POSITIVE_INFINITY
  const now = replicasFor(replicas, replicas, metrics, min, max)
  const steps: AutoscalerForecast['steps'] = []
  let peak = {atSeconds: 0, pods: replicas, replicas: now}
  let last = now
  for (const p of timeline) {
    const pods = p.old + p.new
    const want = replicasFor(pods, replicas, metrics, min, max)
    if (want !== last) steps.push({atSeconds: p.atSeconds, pods, replicas: want})
    last = want
    if (want > peak.replicas) peak = {atSeconds: p.atSeconds, pods, replicas: want}
  }
  return {name: hpa.metadata?.name ?? '', metrics, minReplicas: min, maxReplicas: max, now, peak, steps}
}
