// Will the surge fit: the new pods a rollout adds at its peak, placed one by one on the nodes as
// kube-scheduler's filters would pass them (NodeUnschedulable, TaintToleration, NodeAffinity with
// nodeSelector and required node affinity, NodeResourcesFit on every resource the pod requests:
// cpu, memory, ephemeral-storage, extended resources such as nvidia.com/gpu, hugepages; each against
// the node's allocatable minus the requests of the pods bound there, a resource the node does not
// advertise being 0). How many fit, and the scheduler's reasons for the first that does not.

import type {PodTemplateSpec} from '../controller/api/types.js'
import {quantityValue} from '../controller/util/equality.js'
import {amountsOf, isExtendedResourceName, podResourceRequests, type ResourceAmounts} from './requests.js'

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

export interface SurgeFit {
  needed: number
  fit: number
  nodes: number
  /** The scheduler's message for the first pod that does not fit (`0/3 nodes are available: 3 Insufficient cpu.`). */
  reason?: string
  /**
   * Present (true) when no node could take that pod even with every pod gone from it (upstream:
   * every node's status UnschedulableAndUnresolvable, e.g. no node advertises a GPU it requests):
   * old pods leaving does not help.
   */
  unresolvable?: true
}

/**
 * upstream: NodeResourcesFitArgs.IgnoredResources and IgnoredResourceGroups — extended resources a
 * scheduler profile leaves to something else (a scheduler extender, DRA); the default profile ignores
 * none, and the API does not say how a cluster's scheduler is configured.
 */
export interface FitOptions {
  ignoredResources?: readonly string[]
  ignoredResourceGroups?: readonly string[]
}

const UNSCHEDULABLE = 'node.kubernetes.io/unschedulable'

interface Free {
  name: string
  labels: Record<string, string>
  taints: Obj[]
  /** status.allocatable, as amounts (pods apart). */
  allocatable: ResourceAmounts
  /** The requests of the pods bound there. */
  requested: ResourceAmounts
  /** How many more pods the node takes (allocatable pods minus the pods bound there). */
  pods: number
  /** For scoring: the requests bound there with upstream's non-zero defaults. */
  scoredCpu: number
  scoredMemory: number
}

/** upstream: schedutil.DefaultMilliCPURequest and DefaultMemoryRequest (scoring only). */
const NONZERO: ResourceAmounts = {cpu: 100, memory: 200 * 1024 * 1024}

/** upstream: NodeInfo's NonZeroRequested — PodRequests with a container requesting nothing counted as 100m and 200Mi. */
function scoredRequests(spec: unknown): {cpu: number; memory: number} {
  const r = podResourceRequests(spec, NONZERO)
  return {cpu: r.cpu ?? 0, memory: r.memory ?? 0}
}

/** upstream: NodeResourcesFit's LeastAllocated score, cpu and memory weighted alike. */
function leastAllocated(n: Free): number {
  const part = (alloc: number, used: number) => (alloc <= 0 ? 0 : Math.max(0, ((alloc - used) * 100) / alloc))
  return (part(n.allocatable.cpu ?? 0, n.scoredCpu) + part(n.allocatable.memory ?? 0, n.scoredMemory)) / 2
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

/**
 * The filter a pod failed on a node: its reasons (NodeResourcesFit gives one per insufficient
 * resource), and whether preemption could help (upstream's Unschedulable vs UnschedulableAndUnresolvable).
 */
interface Refusal {
  reasons: string[]
  resolvable: boolean
}

/** The resources NodeResourcesFit compares first, in its order; the scalar ones follow by name. */
const FIRST = ['cpu', 'memory', 'ephemeral-storage']

/**
 * upstream: NodeResourcesFit's fitsRequest — "Too many pods" when the node takes no more pods; then,
 * for every resource the pod requests (a zero request is not checked), "Insufficient <name>" when
 * it is more than the node's allocatable minus what the pods bound there request. A resource the
 * node does not advertise is allocatable 0. Insufficient because the pod asks for more than the
 * whole node has: preemption cannot help (UnschedulableAndUnresolvable).
 */
export function insufficientResources(
  need: ResourceAmounts,
  node: {allocatable: ResourceAmounts; requested: ResourceAmounts; pods: number},
  count = 1,
  options: FitOptions = {},
): Refusal | undefined {
  const reasons: string[] = []
  let resolvable = true
  if (node.pods < count) reasons.push('Too many pods')
  const ignored = new Set(options.ignoredResources ?? [])
  const groups = new Set(options.ignoredResourceGroups ?? [])
  const names = Object.keys(need).sort(
    (a, b) =>
      (FIRST.includes(a) ? FIRST.indexOf(a) : FIRST.length) -
        (FIRST.includes(b) ? FIRST.indexOf(b) : FIRST.length) || (a < b ? -1 : a > b ? 1 : 0),
  )
  for (const name of names) {
    const one = need[name] ?? 0
    if (one <= 0) continue
    if (isExtendedResourceName(name) && (ignored.has(name) || groups.has(name.split('/')[0] ?? ''))) continue
    const allocatable = node.allocatable[name] ?? 0
    if (one * count > allocatable - (node.requested[name] ?? 0)) {
      reasons.push(`Insufficient ${name}`)
      if (one > allocatable) resolvable = false
    }
  }
  return reasons.length === 0 ? undefined : {reasons, resolvable}
}

/** Why the node refuses `count` pods of this spec (the scheduler's reasons), or undefined when they fit. */
function refusal(
  node: Free,
  spec: Obj,
  need: ResourceAmounts,
  count: number,
  options: FitOptions,
): Refusal | undefined {
  const tolerations = list(spec.tolerations).map(obj)
  const taint = node.taints.find(
    (t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerates(tolerations, t),
  )
  // upstream: the NodeUnschedulable filter's own reason.
  if (taint?.key === UNSCHEDULABLE && taint.synthetic)
    return {reasons: ['node(s) were unschedulable'], resolvable: false}
  if (taint)
    return {
      reasons: [`node(s) had untolerated taint {${String(taint.key)}: ${String(taint.value ?? '')}}`],
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
    return {reasons: ["node(s) didn't match Pod's node affinity/selector"], resolvable: false}
  }
  return insufficientResources(need, node, count, options)
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

/** The nodes as the scheduler's cache has them: allocatable, and nothing bound yet. */
function roomOn(nodes: readonly unknown[]): Free[] {
  return nodes.map((n) => {
    const o = obj(n)
    const md = obj(o.metadata)
    const spec = obj(o.spec)
    const alloc = obj(obj(o.status).allocatable)
    const taints = list(spec.taints).map(obj)
    // upstream: the NodeUnschedulable filter, as the taint node.kubernetes.io/unschedulable.
    if (spec.unschedulable === true) taints.push({key: UNSCHEDULABLE, effect: 'NoSchedule', synthetic: true})
    const allocatable = amountsOf(alloc)
    delete allocatable.pods
    return {
      name: String(md.name ?? ''),
      labels: obj(md.labels) as Record<string, string>,
      taints,
      allocatable,
      requested: {},
      pods: alloc.pods === undefined ? 110 : quantity(alloc.pods),
      scoredCpu: 0,
      scoredMemory: 0,
    }
  })
}

/** Binds `count` pods of this spec to the node: their requests are the node's from now on. */
function bind(node: Free, spec: unknown, need: ResourceAmounts, count: number): void {
  for (const [k, v] of Object.entries(need)) node.requested[k] = (node.requested[k] ?? 0) + v * count
  node.pods -= count
  const scored = scoredRequests(spec)
  node.scoredCpu += scored.cpu * count
  node.scoredMemory += scored.memory * count
}

/** Takes the room of a pod bound to one of the nodes (`count` such pods); terminal pods take none. */
function occupy(free: Free[], pod: unknown, count = 1): void {
  const o = obj(pod)
  const spec = obj(o.spec)
  const phase = obj(o.status).phase
  if (phase === 'Succeeded' || phase === 'Failed') return
  const node = free.find((f) => f.name === spec.nodeName)
  if (node) bind(node, spec, podResourceRequests(spec), count)
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
    private readonly options: FitOptions = {},
  ) {
    this.free = roomOn(nodes)
    for (const p of pods) occupy(this.free, p, weight(p))
  }

  get names(): string[] {
    return this.free.map((f) => f.name)
  }

  /**
   * Binds `count` pods of this spec (a cohort) to one node, or says why not: `refusal` is the
   * scheduler's whole message, `reasons` its filters' part (`0/3 nodes are available: 3 Insufficient cpu.`),
   * `unresolvable` whether no node could take it even empty.
   */
  place(
    pod: {spec?: unknown},
    count = 1,
  ): {node: string} | {refusal: string; reasons: string; unresolvable: boolean} {
    const spec = obj(pod.spec)
    const need = podResourceRequests(spec)
    const refusals = this.free.map((n) => refusal(n, spec, need, count, this.options))
    // The feasible node with the best score (upstream breaks ties at random; here, by name).
    const chosen = this.free
      .filter((_, j) => refusals[j] === undefined)
      .sort((a, b) => leastAllocated(b) - leastAllocated(a) || (a.name < b.name ? -1 : 1))[0]
    if (chosen) {
      bind(chosen, spec, need, count)
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
    const reasons = `0/${n} nodes are available: ${histogram(all.flatMap((x) => x.reasons))}.`
    return {
      reasons,
      refusal: `${reasons} preemption: 0/${n} nodes are available: ${preemption}.`,
      unresolvable: all.every((x) => !x.resolvable),
    }
  }
}

/**
 * `needed` pods of `template` placed one by one on `nodes`, after the `pods` bound to them, as the
 * scheduler would (NodeFit); the reason is the scheduler's for the first pod that does not fit.
 */
export function surgeFit(
  template: PodTemplateSpec,
  needed: number,
  nodes: unknown[],
  pods: unknown[],
  options: FitOptions = {},
): SurgeFit {
  const fitter = new NodeFit(nodes, pods, () => 1, options)
  let fit = 0
  for (let i = 0; i < needed; i++) {
    const placed = fitter.place({spec: template.spec})
    if ('reasons' in placed) {
      return {
        needed,
        fit,
        nodes: nodes.length,
        reason: placed.reasons,
        ...(placed.unresolvable ? {unresolvable: true as const} : {}),
      }
    }
    fit++
  }
  return {needed, fit, nodes: nodes.length}
}
