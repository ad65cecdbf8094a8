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
  /** For scoring: allocatable, and the requests bound there with upstream's non-zero defaults. */
  allocCpu: number
  allocMemory: number
  scoredCpu: number
  scoredMemory: number
}

/** upstream: schedutil.DefaultMilliCPURequest and DefaultMemoryRequest (scoring only). */
const NONZERO_CPU = 100
const NONZERO_MEMORY = 200 * 1024 * 1024

/** upstream: schedutil.GetNonzeroRequests over the containers — a container requesting nothing counts as 100m and 200Mi. */
function scoredRequests(spec: Obj): {cpu: number; memory: number} {
  let cpu = 0
  let memory = 0
  for (const c of list(spec.containers).map(obj)) {
    const r = podRequests({spec: {containers: [c]}} as unknown as PodTemplateSpec)
    cpu += r.cpuMillicores || NONZERO_CPU
    memory += r.memoryBytes || NONZERO_MEMORY
  }
  return {cpu, memory}
}

/** upstream: NodeResourcesFit's LeastAllocated score, cpu and memory weighted alike. */
function leastAllocated(n: Free): number {
  const part = (alloc: number, used: number) => (alloc <= 0 ? 0 : Math.max(0, ((alloc - used) * 100) / alloc))
  return (part(n.allocCpu, n.scoredCpu) + part(n.allocMemory, n.scoredMemory)) / 2
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

/** The filters a pod failed on a node: its reason, and whether preemption could help (upstream's Unschedulable vs UnschedulableAndUnresolvable). */
interface Refusal {
  reason: string
  resolvable: boolean
}

/** Why the node refuses the pod (the scheduler's reason), or undefined when it fits. */
function refusal(node: Free, spec: Obj, need: {cpu: number; memory: number}): Refusal | undefined {
  const tolerations = list(spec.tolerations).map(obj)
  const taint = node.taints.find(
    (t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerates(tolerations, t),
  )
  // upstream: the NodeUnschedulable filter's own reason.
  if (taint?.key === UNSCHEDULABLE && taint.synthetic)
    return {reason: 'node(s) were unschedulable', resolvable: false}
  if (taint)
    return {
      reason: `node(s) had untolerated taint {${String(taint.key)}: ${String(taint.value ?? '')}}`,
      resolvable: false,
    }
  const selector = Object.entries(obj(spec.nodeSelector))
  const terms = list(
    obj(obj(obj(spec.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution)
      .nodeSelectorTerms,
  ).map(obj)
  if (
    !selector.every(([k, v]) => node.labels[k] === v) ||
    (terms.length > 0 && !terms.some((t) => matchesTerm(node, t)))
  ) {
    return {reason: "node(s) didn't match Pod's node affinity/selector", resolvable: false}
  }
  // upstream: NodeResourcesFit's insufficient resources (Unschedulable: preemption may free them).
  if (node.pods < 1) return {reason: 'Too many pods', resolvable: true}
  if (need.cpu > node.cpu) return {reason: 'Insufficient cpu', resolvable: true}
  if (need.memory > node.memory) return {reason: 'Insufficient memory', resolvable: true}
  return undefined
}

/** upstream: FitError.Error() — "0/N nodes are available: " and the sorted "<count> <reason>" histogram. */
function histogram(reasons: readonly string[]): string {
  const counts = new Map<string, number>()
  for (const x of reasons) counts.set(x, (counts.get(x) ?? 0) + 1)
  return [...counts.entries()]
    .map(([k, v]) => `${v} ${k}`)
    .sort()
    .join(', ')
}

/** The nodes as the scheduler's cache has them: allocatable minus the requests of the pods bound there. */
function roomOn(nodes: readonly unknown[]): Free[] {
  return nodes.map((n) => {
    const o = obj(n)
    const md = obj(o.metadata)
    const spec = obj(o.spec)
    const alloc = obj(obj(o.status).allocatable)
    const taints = list(spec.taints).map(obj)
    // upstream: the NodeUnschedulable filter, as the taint node.kubernetes.io/unschedulable.
    if (spec.unschedulable === true) taints.push({key: UNSCHEDULABLE, effect: 'NoSchedule', synthetic: true})
    const cpu = Math.round(quantity(alloc.cpu) * 1000)
    const memory = quantity(alloc.memory)
    return {
      name: String(md.name ?? ''),
      labels: obj(md.labels) as Record<string, string>,
      taints,
      cpu,
      memory,
      pods: alloc.pods === undefined ? 110 : quantity(alloc.pods),
      allocCpu: cpu,
      allocMemory: memory,
      scoredCpu: 0,
      scoredMemory: 0,
    }
  })
}

/** Takes the room of a pod bound to one of the nodes (`count` such pods); terminal pods take none. */
function occupy(free: Free[], pod: unknown, count = 1): void {
  const o = obj(pod)
  const spec = obj(o.spec)
  const phase = obj(o.status).phase
  if (phase === 'Succeeded' || phase === 'Failed') return
  const node = free.find((f) => f.name === spec.nodeName)
  if (!node) return
  const r = podRequests({spec} as unknown as PodTemplateSpec)
  node.cpu -= r.cpuMillicores * count
  node.memory -= r.memoryBytes * count
  node.pods -= count
  const scored = scoredRequests(spec)
  node.scoredCpu += scored.cpu * count
  node.scoredMemory += scored.memory * count
}

/**
 * The simulated scheduler's view of real nodes (Node objects): each pod is placed as kube-scheduler's
 * filters pass it, on the feasible node LeastAllocated scores best, and the room it takes is kept as
 * pods are bound; a pod that fits nowhere gets the scheduler's FitError message, with the
 * PostFilter's (DefaultPreemption) part: every pod here has the same priority, so preemption never
 * finds a victim.
 */
export class NodeFit {
  private readonly free: Free[]

  /** `pods`: every pod bound to the nodes (any namespace); `weight`: how many pods each stands for. */
  constructor(
    nodes: readonly unknown[],
    pods: Iterable<unknown>,
    weight: (pod: unknown) => number = () => 1,
  ) {
    this.free = roomOn(nodes)
    for (const p of pods) occupy(this.free, p, weight(p))
  }

  get names(): string[] {
    return this.free.map((f) => f.name)
  }

  /** Binds `count` pods of this spec (a cohort) to one node, or says why not. */
  place(pod: {spec?: unknown}, count = 1): {node: string} | {refusal: string} {
    const spec = obj(pod.spec)
    const r = podRequests({spec} as unknown as PodTemplateSpec)
    const need = {cpu: r.cpuMillicores * count, memory: r.memoryBytes * count}
    const refusals = this.free.map((n) =>
      count > n.pods ? {reason: 'Too many pods', resolvable: true} : refusal(n, spec, need),
    )
    // The feasible node with the best score (upstream breaks ties at random; here, by name).
    const chosen = this.free
      .filter((_, j) => refusals[j] === undefined)
      .sort((a, b) => leastAllocated(b) - leastAllocated(a) || (a.name < b.name ? -1 : 1))[0]
    if (chosen) {
      const scored = scoredRequests(spec)
      chosen.cpu -= need.cpu
      chosen.memory -= need.memory
      chosen.pods -= count
      chosen.scoredCpu += scored.cpu * count
      chosen.scoredMemory += scored.memory * count
      return {node: chosen.name}
    }
    const n = this.free.length
    const all = refusals.filter((x): x is Refusal => x !== undefined)
    const preemption = histogram(
      all.map((x) =>
        x.resolvable
          ? 'No preemption victims found for incoming pod'
          : 'Preemption is not helpful for scheduling',
      ),
    )
    return {
      refusal: `0/${n} nodes are available: ${histogram(all.map((x) => x.reason))}. preemption: 0/${n} nodes are available: ${preemption}.`,
    }
  }
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
  const free = roomOn(nodes)
  for (const p of pods) occupy(free, p)
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
      reason = `0/${free.length} nodes are available: ${histogram(reasons.map((x) => x?.reason ?? ''))}.`
      break
    }
    chosen.cpu -= need.cpu
    chosen.memory -= need.memory
    chosen.pods -= 1
    fit++
  }
  return {needed, fit, nodes: free.length, ...(reason ? {reason} : {})}
}
