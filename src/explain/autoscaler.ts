// The HorizontalPodAutoscaler that owns a Deployment's spec.replicas, and what it does to a rollout.
//
// What the surge does to it, as upstream's pkg/controller/podautoscaler reads pods (v1.36):
// - replica_calculator.go lists every pod the scale target's selector matches (the Deployment's
//   selector spans its old and new ReplicaSets, surge pods included);
// - groupPods: Pending pods, and for cpu pods not ready yet in their initialization period, are
//   "unready"; GetResourceReplicas then counts them as using 0% on a scale-up (scaleUpWithUnready),
//   and pods without metrics as 0% on a scale-up, 100% on a scale-down;
// - outside the tolerance, the proposal is ceil(usage ratio × ready pods), or ceil(new ratio ×
//   pods with metrics): computed over the pods that exist, not over spec.replicas.
// A change of spec.replicas during a rollout is a scaling event for the Deployment controller
// (proportional scaling of every active ReplicaSet); kubernetes#72775 reports replica counts that
// ratchet up by the surge on every rollout.

import type {ClusterObject} from '../cluster/world.js'
import {deploymentReplicas} from '../controller/util/deployment-util.js'
import type {RolloutContext} from '../status/context.js'
import {isPodReady} from '../status/pods.js'
import {scaledReplicaSets} from '../status/replicasets.js'
import type {DeadEnd} from '../status/types.js'
import type {Fenceposts} from './types.js'

/** The autoscaler of a Deployment, as `explain -o json` prints it. */
export interface AutoscalerInfo {
  name: string
  apiVersion: string
  /** spec.minReplicas (default 1). */
  minReplicas: number
  maxReplicas: number
  /** status.currentReplicas and status.desiredReplicas, as the autoscaler last wrote them. */
  currentReplicas: number | null
  desiredReplicas: number | null
  lastScaleTime: string | null
  /** Each metric: `cpu 85% of requests (target 70%)`. */
  metrics: string[]
  /** Other autoscalers that target the same Deployment. */
  others: string[]
  message: string
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null)
const text = (v: unknown): string | null =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null

/** The autoscalers of the namespace whose scaleTargetRef is this Deployment, by name. */
export function autoscalersOf(ctx: RolloutContext, autoscalers: readonly ClusterObject[]): ClusterObject[] {
  return autoscalers
    .filter((h) => (h.metadata.namespace ?? 'default') === ctx.namespace)
    .filter((h) => {
      const ref = obj(h.spec?.scaleTargetRef)
      const group = typeof ref.apiVersion === 'string' ? ref.apiVersion.split('/')[0] : 'apps'
      return ref.kind === 'Deployment' && ref.name === ctx.name && group === 'apps'
    })
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))
}

/** One metric of autoscaling/v2 (spec target, status current): `cpu 85% of requests (target 70%)`. */
function metricText(spec: Obj, current: Obj | undefined): string {
  const type = String(spec.type ?? '')
  const key = type.charAt(0).toLowerCase() + type.slice(1)
  const source = obj(spec[key])
  const now = obj(current?.[key])
  const name = text(source.name) ?? text(obj(source.metric).name) ?? type
  const container = text(source.container)
  const target = obj(source.target)
  const cur = obj(now.current)
  const what = container ? `${name} of container ${container}` : name
  if (target.type === 'Utilization') {
    const at = num(cur.averageUtilization)
    return `${what} ${at === null ? '<unknown>' : `${at}%`} of requests (target ${text(target.averageUtilization) ?? '<unknown>'}%)`
  }
  const average = target.type === 'AverageValue'
  const want = text(average ? target.averageValue : target.value) ?? '<unknown>'
  const have = text(average ? cur.averageValue : cur.value) ?? '<unknown>'
  return `${type === 'Resource' || type === 'ContainerResource' ? what : `${type.toLowerCase()} metric ${what}`} ${have} (target ${want}${average ? ' per pod' : ''})`
}

function metricsOf(h: ClusterObject): string[] {
  const spec = obj(h.spec)
  const status = obj(h.status)
  if (h.apiVersion === 'autoscaling/v1') {
    const target = num(spec.targetCPUUtilizationPercentage)
    const current = num(status.currentCPUUtilizationPercentage)
    return [`cpu ${current === null ? '<unknown>' : `${current}%`} of requests (target ${target ?? 80}%)`]
  }
  const current = Array.isArray(status.currentMetrics) ? status.currentMetrics.map(obj) : []
  const specs = Array.isArray(spec.metrics) ? spec.metrics.map(obj) : []
  // upstream: with no metrics, the autoscaler targets 80% cpu utilization.
  if (specs.length === 0) return [metricText(defaultMetric(), current[0])]
  return specs.map((m, i) => metricText(m, current.find((c) => c.type === m.type) ?? current[i]))
}

function defaultMetric(): Obj {
  return {type: 'Resource', resource: {name: 'cpu', target: {type: 'Utilization', averageUtilization: 80}}}
}

/** The autoscaler that owns the Deployment's replica count, or null when none targets it. */
export function explainAutoscaler(
  ctx: RolloutContext,
  autoscalers: readonly ClusterObject[] | undefined,
): AutoscalerInfo | null {
  const [h, ...rest] = autoscalersOf(ctx, autoscalers ?? [])
  if (!h) return null
  const spec = obj(h.spec)
  const status = obj(h.status)
  const info = {
    name: h.metadata.name ?? '',
    apiVersion: h.apiVersion ?? 'autoscaling/v2',
    minReplicas: num(spec.minReplicas) ?? 1,
    maxReplicas: num(spec.maxReplicas) ?? 0,
    currentReplicas: num(status.currentReplicas),
    desiredReplicas: num(status.desiredReplicas),
    lastScaleTime: text(status.lastScaleTime),
    metrics: metricsOf(h),
    others: rest.map((o) => o.metadata.name ?? ''),
  }
  const replicas = deploymentReplicas(ctx.d)
  const parts = [
    `HorizontalPodAutoscaler ${info.name} owns spec.replicas (${replicas}): min ${info.minReplicas}, max ${info.maxReplicas}, current ${info.currentReplicas ?? '<unknown>'}, desired ${info.desiredReplicas ?? '<unknown>'}${info.lastScaleTime ? `, last scaled at ${info.lastScaleTime}` : ''}; ${info.metrics.join(', ')}.`,
  ]
  if (info.desiredReplicas !== null && info.desiredReplicas !== replicas) {
    parts.push(
      `Its next sync sets spec.replicas to ${info.desiredReplicas}: a scaling event${rolloutUnderWay(ctx) ? ' in the middle of the rollout, which resizes the old and new ReplicaSets in proportion' : ''}.`,
    )
  }
  parts.push('A kubectl apply that sets spec.replicas resets the count until the autoscaler acts again.')
  if (rest.length > 0)
    parts.push(
      `${rest.length === 1 ? 'Another autoscaler targets' : 'Other autoscalers target'} it too: ${info.others.join(', ')}.`,
    )
  return {...info, message: parts.join(' ')}
}

/** A rollout under way: the Deployment still counts pods that do not run the current template. */
function rolloutUnderWay(ctx: RolloutContext): boolean {
  const status = ctx.d.status ?? {}
  return (
    (status.updatedReplicas ?? 0) < (status.replicas ?? 0) ||
    ctx.view.oldRSs.some((rs) => (rs.spec.replicas ?? 0) > 0)
  )
}

/**
 * AutoscalerFightsRollout: an autoscaler owns spec.replicas while a RollingUpdate surges, so the
 * pods it averages over and counts include the surge (see the top of this file).
 */
export function autoscalerDeadEnd(
  ctx: RolloutContext,
  autoscaler: AutoscalerInfo | null,
  fenceposts: Fenceposts | null,
): DeadEnd | null {
  if (!autoscaler || !fenceposts || fenceposts.maxSurge.resolved === 0 || !rolloutUnderWay(ctx)) return null
  const pods = ctx.d.status?.replicas ?? 0
  const newPods = ctx.view.all.find((i) => i.role === 'new')?.pods ?? []
  const unready = newPods.filter((p) => p.metadata.deletionTimestamp == null && !isPodReady(p)).length
  const scaled = ctx.facts.branch() === 'scalingEvent' ? scaledReplicaSets(ctx) : []
  const now =
    scaled.length > 0 ? ` (this pass: ${scaled.map((s) => `${s.name} ${s.from} → ${s.to}`).join(', ')})` : ''
  return {
    code: 'AutoscalerFightsRollout',
    message: `HorizontalPodAutoscaler ${autoscaler.name} averages over every pod the Deployment's selector matches, old and new, surge included (${pods} now, maxSurge ${fenceposts.maxSurge.resolved}${unready > 0 ? `; ${unready} of the new ReplicaSet's not ready` : ''}): on a scale-up it counts Pending and unready pods as using 0%, and its proposal is ceil(usage ratio × pods) over the pods that exist. Each change it makes to spec.replicas mid-rollout is a scaling event that resizes the old and new ReplicaSets in proportion${now}, and replica counts can ratchet up by the surge on every rollout (kubernetes#72775). A spec.behavior.scaleUp.stabilizationWindowSeconds longer than a rollout, or a smaller maxSurge, keeps the surge out of its decisions.`,
    objects: [`HorizontalPodAutoscaler/${autoscaler.name}`, `Deployment/${ctx.name}`],
  }
}
