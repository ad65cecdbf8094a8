// What could go wrong with a planned change, each with a stable code (docs/plan.md lists them).

import type {Deployment, ReplicaSet} from '../controller/api/types.js'
import {specReplicas} from '../controller/controller-utils.js'
import {quantityValue} from '../controller/util/equality.js'
import {getScaledValueFromIntOrPercent} from '../controller/util/intstr.js'
import type {Simulation} from '../sim/simulator.js'
import type {PlanItem} from './index.js'
import {formatCpu, formatMemory, isExtendedResourceName} from './requests.js'

export const RISK_CODES = [
  'ProgressDeadline',
  'Paused',
  'AutoscalerReplicas',
  'SelectorChange',
  'QuotaHeadroom',
  'NoSurgeNoUnavailable',
  'MidRollout',
  'ReplicasReset',
  'SurgeUnschedulable',
  'AutoscalerAmplifies',
] as const

export type RiskCode = (typeof RISK_CODES)[number]

export interface Risk {
  code: RiskCode
  message: string
}

/** A HorizontalPodAutoscaler or ResourceQuota of the Deployment's namespace, as the API returns it. */
export type ApiObject = {metadata?: {name?: string; namespace?: string}; spec?: unknown; status?: unknown}

/** What only a cluster (or files that hold them) can say: autoscalers and quotas of the namespace. */
export interface ClusterContext {
  autoscalers?: ApiObject[]
  quotas?: ApiObject[]
  /** The cluster's nodes, and every pod (bound ones take room on their node): the surge fit. */
  nodes?: ApiObject[]
  pods?: unknown[]
  /** Why the nodes are not known (live: the list was refused), said instead of the surge fit. */
  nodesNote?: string
}

export interface RiskInput {
  item: PlanItem
  before: Deployment | undefined
  applied: Deployment
  raw: unknown
  owned: ReplicaSet[]
  currentRS: ReplicaSet | undefined
  /** The simulation with the slow (p90) pods. */
  slow: Simulation
  cluster: ClusterContext | undefined
  resolved: {surge: number | undefined; unavailable: number | undefined}
  replicas: number
  currentDone: boolean
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})

export function planRisks(r: RiskInput): Risk[] {
  const risks: Risk[] = []
  const d = r.applied
  const name = d.metadata.name ?? ''
  const pds = d.spec.progressDeadlineSeconds
  if (r.item.rollout && pds != null && pds < 2147483647) {
    const pod = r.item.estimate?.podSeconds.p90
    // The real cause when the scheduler refuses the new pods: not slowness.
    const refused = r.slow.timeline.flatMap((e) => e.events).find((e) => e.reason === 'FailedScheduling')
    const failed = r.slow.timeline.flatMap((e) => e.events).find((e) => e.reason === 'FailedCreate')
    if (r.slow.summary.deadlineExceeded && refused) {
      risks.push({
        code: 'ProgressDeadline',
        message: `the new pods cannot be scheduled (${refused.message}): they stay Pending and the rollout passes its progress deadline (${pds}s), reported ProgressDeadlineExceeded`,
      })
    } else if (r.slow.summary.deadlineExceeded && failed) {
      // The API server refuses the pods (a ResourceQuota's admission): the ReplicaSet cannot create them.
      risks.push({
        code: 'ProgressDeadline',
        message: `the new pods are refused (${failed.message}): the ReplicaSet cannot create them and the rollout passes its progress deadline (${pds}s), reported ProgressDeadlineExceeded`,
      })
    } else if (r.slow.summary.deadlineExceeded) {
      risks.push({
        code: 'ProgressDeadline',
        message: `with pods as slow as the 90th percentile, the rollout passes its progress deadline (${pds}s) and is reported ProgressDeadlineExceeded`,
      })
    } else if (pod !== undefined && pod >= pds) {
      risks.push({
        code: 'ProgressDeadline',
        message: `a pod takes up to ${pod}s to become available (p90), at least progressDeadlineSeconds (${pds}s): a step can pass the deadline`,
      })
    }
  }
  if (d.spec.paused === true && r.item.rollout) {
    risks.push({
      code: 'Paused',
      message: `spec.paused is true: nothing rolls out until "kubectl rollout resume deployment/${name}"`,
    })
  }
  const rawReplicas = obj(obj(r.raw).spec).replicas
  const writesReplicas = r.raw === undefined ? false : rawReplicas !== undefined
  const here = (o: ApiObject) => (o.metadata?.namespace ?? 'default') === (d.metadata.namespace ?? 'default')
  for (const hpa of (r.cluster?.autoscalers ?? []).filter(here)) {
    const target = obj(obj(hpa.spec).scaleTargetRef)
    if (target.kind !== 'Deployment' || target.name !== name) continue
    const current = obj(hpa.status).desiredReplicas ?? r.before?.spec.replicas
    if (!writesReplicas) {
      const from = r.before?.spec.replicas
      const to = d.spec.replicas
      if (r.before && r.raw !== undefined && from !== to) {
        risks.push({
          code: 'ReplicasReset',
          message: `HorizontalPodAutoscaler ${hpa.metadata?.name ?? ''} scales this Deployment, and the apply sets spec.replicas from ${String(from)} to ${String(to)}: the last-applied configuration has replicas and the change does not, so kubectl apply deletes the field and the API server defaults it; the rollout runs at ${String(to)} until the autoscaler acts again. To leave replicas to the autoscaler, first remove it from the last-applied configuration (kubectl apply edit-last-applied deployment/${name}, or kubectl apply set-last-applied with a file without it), or apply with --server-side`,
        })
      }
      continue
    }
    risks.push({
      code: 'AutoscalerReplicas',
      message: `HorizontalPodAutoscaler ${hpa.metadata?.name ?? ''} scales this Deployment (now ${String(current ?? '?')} replicas) and the change sets spec.replicas to ${String(rawReplicas)}: the apply resets the count until the autoscaler acts again; leave spec.replicas out`,
    })
  }
  if (
    r.before &&
    r.item.otherChanges.some((c) => c.path === 'spec.selector' || c.path.startsWith('spec.selector.'))
  ) {
    risks.push({
      code: 'SelectorChange',
      message:
        'spec.selector changes, and it is immutable in apps/v1: the API server refuses the apply (delete and re-create the Deployment instead)',
    })
  }
  risks.push(...quotaRisks(r))
  const ru = d.spec.strategy?.rollingUpdate
  if (r.resolved.surge === 0 && scaledDown(ru?.maxUnavailable, r.replicas) === 0 && r.replicas > 0) {
    const literal = (v: unknown) => v === 0 || v === '0%'
    risks.push({
      code: 'NoSurgeNoUnavailable',
      message:
        literal(ru?.maxSurge) && literal(ru?.maxUnavailable)
          ? 'maxSurge and maxUnavailable are both 0: the API server refuses this strategy'
          : `maxSurge ${String(ru?.maxSurge ?? 0)} and maxUnavailable ${String(ru?.maxUnavailable ?? 0)} both resolve to 0 for ${r.replicas} replicas: the controller then lets 1 pod be unavailable at a time (upstream ResolveFenceposts)`,
    })
  }
  if (r.before && !r.currentDone) {
    const active = r.owned.filter((rs) => specReplicas(rs) > 0)
    if (r.item.rollout) {
      const inFlight = r.currentRS?.metadata.name
      risks.push({
        code: 'MidRollout',
        message: `a rollout is in progress${inFlight ? ` (ReplicaSet ${inFlight})` : ''}: the change rolls over it, and its pods are scaled down like any old ReplicaSet's`,
      })
    } else if (active.length > 1 && r.item.otherChanges.some((c) => c.path === 'spec.replicas')) {
      risks.push({
        code: 'MidRollout',
        message: `a rollout is in progress over ${active.length} ReplicaSets: the new replica count is spread across them proportionally`,
      })
    }
  }
  return risks
}

/** maxUnavailable as written, resolved against the replicas (rounding down, as upstream). */
function scaledDown(v: unknown, replicas: number): number | undefined {
  try {
    return getScaledValueFromIntOrPercent((v as number | string | undefined) ?? 0, replicas, false)
  } catch {
    return undefined
  }
}

function quotaRisks(r: RiskInput): Risk[] {
  const risks: Risk[] = []
  const extra = r.item.extraAtPeak
  if (extra.pods === 0) return risks
  const namespace = r.applied.metadata.namespace ?? 'default'
  for (const q of (r.cluster?.quotas ?? []).filter(
    (o) => (o.metadata?.namespace ?? 'default') === namespace,
  )) {
    const hard = obj(obj(q.status).hard)
    const used = obj(obj(q.status).used)
    const checks: Array<{keys: string[]; need: number; unit: (n: number) => string; scale: number}> = [
      {keys: ['requests.cpu', 'cpu'], need: extra.cpuMillicores, unit: formatCpu, scale: 1000},
      {keys: ['requests.memory', 'memory'], need: extra.memoryBytes, unit: formatMemory, scale: 1},
      {keys: ['pods', 'count/pods'], need: extra.pods, unit: String, scale: 1},
      // upstream podComputeUsageHelper: ephemeral-storage and hugepages bare and requests.*, an
      // extended resource (nvidia.com/gpu) as requests.<name> only.
      ...Object.entries(extra.resources ?? {}).map(([name, need]) => ({
        keys: isExtendedResourceName(name) ? [`requests.${name}`] : [`requests.${name}`, name],
        need,
        unit: name === 'ephemeral-storage' || name.startsWith('hugepages-') ? formatMemory : String,
        scale: 1,
      })),
    ]
    for (const c of checks) {
      for (const key of c.keys) {
        const h = hard[key] ?? obj(obj(q.spec).hard)[key]
        if (h === undefined || c.need === 0) continue
        const hv = quantityValue(String(h))
        const uv = quantityValue(String(used[key] ?? '0')) ?? 0
        if (hv === undefined) continue
        const headroom = Math.round((hv - uv) * c.scale)
        if (headroom < c.need) {
          risks.push({
            code: 'QuotaHeadroom',
            message: `ResourceQuota ${q.metadata?.name ?? ''} leaves ${c.unit(Math.max(0, headroom))} of ${key} and the peak needs ${c.unit(c.need)} more: pods beyond the quota are refused and the rollout stalls`,
          })
        }
      }
    }
  }
  return risks
}
