// An autoscaler over the rollout, read from the simulation: the simulated cluster runs the
// HorizontalPodAutoscaler (src/sim/autoscaler.ts: upstream's replica calculation, behavior and
// bounds, every sync period) over the Deployment's pods, old and new alike (kubernetes#72775: 383 ->
// 664 replicas in one rollout), and writes the Deployment's spec.replicas; the Deployment
// controller scales its ReplicaSets proportionally. This says what it asked for and when.

import type {ClusterObject} from '../cluster/world.js'
import {HPA_TOLERANCE, type ResourceMetric, resourceMetrics} from '../sim/autoscaler.js'
import type {PlanPoint, PlanStep} from './index.js'
import type {ApiObject} from './risks.js'

/** upstream: the HPA controller's default --horizontal-pod-autoscaler-tolerance. */
export const TOLERANCE = HPA_TOLERANCE

export interface AutoscalerForecast {
  name: string
  /** Each resource metric: its current and target average utilization (percent). */
  metrics: ResourceMetric[]
  minReplicas: number
  maxReplicas: number
  /** What it asks for over the Deployment's replicas alone (no surge), and its most during the rollout. */
  now: number
  peak: {atSeconds: number; pods: number; replicas: number}
  /** Each write of the Deployment's spec.replicas in the simulation, with the pods it then counted. */
  steps: Array<{atSeconds: number; pods: number; replicas: number}>
}

/** The forecast of `hpa` from the simulated steps (role `autoscaler`) and timeline; undefined when it cannot act. */
export function forecast(
  hpa: ApiObject,
  replicas: number,
  steps: readonly PlanStep[],
  timeline: readonly PlanPoint[],
): AutoscalerForecast | undefined {
  const metrics = resourceMetrics(hpa as ClusterObject)
  if (metrics.length === 0) return undefined
  const spec = (hpa.spec ?? {}) as {minReplicas?: number; maxReplicas?: number}
  const min = spec.minReplicas ?? 1
  const max = spec.maxReplicas ?? Number.POSITIVE_INFINITY
  const name = hpa.metadata?.name ?? ''
  // upstream GetResourceReplicas with every pod ready and sampled: what it asks for before the surge.
  let want = 0
  for (const m of metrics) {
    const ratio = m.current / m.target
    want = Math.max(want, Math.abs(ratio - 1) <= TOLERANCE ? replicas : Math.ceil(ratio * replicas))
  }
  const now = Math.min(max, Math.max(min, want))
  const pods = (at: number) => {
    const p = [...timeline].reverse().find((x) => x.atSeconds <= at)
    return p ? p.old + p.new : replicas
  }
  const own = steps
    .filter((s) => s.role === 'autoscaler' && s.replicaSet === `hpa/${name}`)
    .map((s) => ({atSeconds: s.atSeconds, pods: pods(s.atSeconds), replicas: s.to}))
  let peak = {atSeconds: 0, pods: replicas, replicas: Math.max(now, replicas)}
  for (const s of own) if (s.replicas > peak.replicas) peak = s
  return {name, metrics, minReplicas: min, maxReplicas: max, now, peak, steps: own}
}
