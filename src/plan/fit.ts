// Will the surge fit: the new pods a rollout adds at its peak, placed one by one on the nodes as
// kube-scheduler's filters would pass them (NodeUnschedulable, TaintToleration, NodeAffinity with
// nodeSelector and required node affinity, NodeResourcesFit on cpu, memory and pods: allocatable
// minus the requests of the pods bound there). How many fit, and the scheduler's reasons for the
// first that does not.

import type {PodTemplateSpec} from '../controller/api/types.js'
import {quantityValue} from '../controller/util/equality.js'
import {podRequests} from './requests.js'

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

export interface SurgeFit {
  needed: number
  fit: number
  nodes: number
  /** The scheduler's message for the first pod that does not fit (`0/3 nodes are available: 3 Insufficient cpu.`). */
  reason?: string
}

const UNSCHEDULABLE = 'node.kubernetes.io/unschedulable'

interface Free {
  name: string
  labels: Record<string, string>
  taints: Obj[]
  cpu: number
  memory: number
  pods: number
}

function quantity(v: unknown): number {
  return typeof v === 'number' ? v : typeof v === 'string' ? (quantityValue(v) ?? 0) : 0
}

/** upstream: v1helper.TolerationsTolerateTaint. */
function tolerates(tolerations: Obj[], taint: Obj): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false
    if (t.operator === 'Exists') return !t.key || t.key === taint.key
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '')
  })
}

/** upstream: nodeaffinity's required terms (matchExpressions and matchFields, ORed terms). */
function matchesTerm(node: Free, term: Obj): boolean {
  const exprs = list(term.matchExpressions).map(obj)
  const fields = list(term.matchFields).map(obj)
  if (exprs.length === 0 && fields.length === 0) return false
  const test = (value: string | undefined, e: Obj): boolean => {
    const values = list(e.values).map(String)
    switch (e.operator) {
      case 'In':
        return value !== undefined && values.includes(value)
      case 'NotIn':
        return value === undefined || !values.includes(value)
      case 'Exists':
        return value !== undefined
      case 'DoesNotExist':
        return value === undefined
      case 'Gt':
        return value !== undefined && Number(value) > Number(values[0])
      case 'Lt':
        return value !== undefined && Number(value) < Number(values[0])
      default:
        return false
    }
  }
  return (
    exprs.every((e) => test(node.labels[String(e.key)], e)) &&
    fields.every((e) => test(e.key === 'metadata.name' ? node.name : undefined, e))
  )
}

/** Why the node refuses the pod (the scheduler's reason), or undefined when it fits. */
function refusal(node: Free, spec: Obj, need: {cpu: number; memory: number}): string | undefined {
  const tolerations = list(spec.tolerations).map(obj)
  const taint = node.taints.find(
    (t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerates(tolerations, t),
  )
  // upstream: the NodeUnschedulable filter's own reason.
  if (taint?.key === UNSCHEDULABLE && taint.synthetic) return 'node(s) were unschedulable'
  if (taint) return `node(s) had untolerated taint {${String(taint.key)}: ${String(taint.value ?? '')}}`
  const selector = Object.entries(obj(spec.nodeSelector))
  const terms = list(
    obj(obj(obj(spec.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution)
      .nodeSelectorTerms,
  ).map(obj)
  if (
    !selector.every(([k, v]) => node.labels[k] === v) ||
    (terms.length > 0 && !terms.some((t) => matchesTerm(node, t)))
  ) {
    return "node(s) didn't match Pod's node affinity/selector"
  }
  if (node.pods < 1) return 'Too many pods'
  if (need.cpu > node.cpu) return 'Insufficient cpu'
  if (need.memory > node.memory) return 'Insufficient memory'
  return undefined
}

/**
 * `needed` pods of `template` placed on `nodes`, after the `pods` bound to them; the node with the
 * most free CPU first (NodeResourcesFit's LeastAllocated, roughly).
 */
export function surgeFit(
  template: PodTemplateSpec,
  needed: number,
  nodes: unknown[],
  pods: unknown[],
): SurgeFit {
  const free: Free[] = nodes.map((n) => {
    const o = obj(n)
    const md = obj(o.metadata)
    const spec = obj(o.spec)
    const alloc = obj(obj(o.status).allocatable)
    const taints = list(spec.taints).map(obj)
    // upstream: the NodeUnschedulable filter, as the taint node.kubernetes.io/unschedulable.
    if (spec.unschedulable === true) taints.push({key: UNSCHEDULABLE, effect: 'NoSchedule', synthetic: true})
    return {
      name: String(md.name ?? ''),
      labels: obj(md.labels) as Record<string, string>,
      taints,
      cpu: Math.round(quantity(alloc.cpu) * 1000),
      memory: quantity(alloc.memory),
      pods: alloc.pods === undefined ? 110 : quantity(alloc.pods),
    }
  })
  for (const p of pods) {
    const o = obj(p)
    const spec = obj(o.spec)
    const phase = obj(o.status).phase
    if (phase === 'Succeeded' || phase === 'Failed') continue
    const node = free.find((f) => f.name === spec.nodeName)
    if (!node) continue
    const r = podRequests({spec} as unknown as PodTemplateSpec)
    node.cpu -= r.cpuMillicores
    node.memory -= r.memoryBytes
    node.pods -= 1
  }
  const spec = obj(template.spec)
  const r = podRequests(template)
  const need = {cpu: r.cpuMillicores, memory: r.memoryBytes}
  let fit = 0
  let reason: string | undefined
  for (let i = 0; i < needed; i++) {
    const reasons = free.map((n) => refusal(n, spec, need))
    const candidates = free.filter((_, j) => reasons[j] === undefined).sort((a, b) => b.cpu - a.cpu)
    const chosen = candidates[0]
    if (!chosen) {
      // upstream: FitError.Error() — the sorted "<count> <reason>" histogram.
      const counts = new Map<string, number>()
      for (const x of reasons) if (x) counts.set(x, (counts.get(x) ?? 0) + 1)
      const parts = [...counts.entries()].map(([k, v]) => `${v} ${k}`).sort()
      reason = `0/${free.length} nodes are available: ${parts.join(', ')}.`
      break
    }
    chosen.cpu -= need.cpu
    chosen.memory -= need.memory
    chosen.pods -= 1
    fit++
  }
  return {needed, fit, nodes: free.length, ...(reason ? {reason} : {})}
}
