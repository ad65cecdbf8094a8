// ResourceQuota admission of pods, as the API server's ResourceQuota plugin does it (upstream:
// plugin/pkg/admission/resourcequota/controller.go checkRequest, with the pod evaluator of
// pkg/quota/v1/evaluator/core/pods.go), reduced to what a rollout meets: object counts (pods,
// count/pods) and compute (cpu, memory, ephemeral-storage, their requests.* and limits.*,
// hugepages-* and requests.hugepages-*, requests.<extended resource> such as requests.nvidia.com/gpu);
// quotas with scopes are not modeled.
// One difference: upstream adds the pod's usage to status.used, which the quota controller keeps;
// nothing simulated keeps it, so the usage is recomputed from the namespace's pods at each admission
// (the quota controller's recalculation taken as instant). Pure: the simulators (the file one and
// the test API server's) call it with the time.

import type {ClusterObject} from '../cluster/world.js'
import type {Pod} from '../controller/api/types.js'
import {quantityValue} from '../controller/util/equality.js'
import {isExtendedResourceName, podResourceRequests, type ResourceAmounts} from './requests.js'

type Obj = Record<string, unknown>
type Usage = Map<string, number>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

type Native = 'cpu' | 'memory' | 'ephemeral-storage'
const NATIVE: readonly string[] = ['cpu', 'memory', 'ephemeral-storage']

/**
 * upstream: podComputeUsageHelper — which quota resource names a pod's usage has, and from what:
 * the requests of cpu, memory and ephemeral-storage (bare and requests.*), their limits (limits.*),
 * hugepages-* (bare and requests.*), an extended resource as requests.<name> only. Undefined: a
 * name the pod evaluator does not count.
 */
function computeResource(name: string): {field: 'requests' | 'limits'; resource: string} | undefined {
  if (NATIVE.includes(name) || name.startsWith('hugepages-')) return {field: 'requests', resource: name}
  const [prefix, rest = ''] = name.startsWith('requests.')
    ? ['requests', name.slice('requests.'.length)]
    : name.startsWith('limits.')
      ? ['limits', name.slice('limits.'.length)]
      : ['', '']
  if (prefix === 'limits') return NATIVE.includes(rest) ? {field: 'limits', resource: rest} : undefined
  if (
    prefix === 'requests' &&
    (NATIVE.includes(rest) || rest.startsWith('hugepages-') || isExtendedResourceName(rest))
  )
    return {field: 'requests', resource: rest}
  return undefined
}

/** upstream: QuotaV1Pod — terminal pods, and pods past their deletion grace period, are not charged. */
function charged(pod: Pod, now: number): boolean {
  const phase = pod.status?.phase
  if (phase === 'Succeeded' || phase === 'Failed') return false
  const deletion = pod.metadata.deletionTimestamp
  const grace = pod.metadata.deletionGracePeriodSeconds
  if (typeof deletion === 'string' && typeof grace === 'number')
    return now <= Date.parse(deletion) + grace * 1000
  return true
}

/** A limit: Σ containers, or the largest init container's when more (cpu in cores). */
function limit(pod: Pod, resource: Native): number {
  const field = 'limits'
  const of = (c: Obj) => {
    const res = isObj(c.resources) && isObj(c.resources[field]) ? c.resources[field] : {}
    const v = res[resource]
    return typeof v === 'string' ? (quantityValue(v) ?? 0) : typeof v === 'number' ? v : 0
  }
  const sum = (pod.spec?.containers ?? []).reduce((n, c) => n + of(c), 0)
  return Math.max(sum, ...(pod.spec?.initContainers ?? []).map(of))
}

/**
 * upstream: PodUsageFunc, for the resources a quota tracks: requests as resourcehelper.PodRequests
 * sums them (sidecars, init containers, pod-level requests, overhead); cpu in cores, as the quota's
 * quantities parse.
 */
function podUsage(pod: Pod, tracked: string[]): Usage {
  const usage: Usage = new Map()
  let requests: ResourceAmounts | undefined
  for (const name of tracked) {
    if (name === 'pods' || name === 'count/pods') usage.set(name, 1)
    const c = computeResource(name)
    if (!c) continue
    if (c.field === 'limits') {
      usage.set(name, limit(pod, c.resource as Native))
      continue
    }
    requests ??= podResourceRequests(pod.spec)
    const v = requests[c.resource] ?? 0
    usage.set(name, c.resource === 'cpu' ? v / 1000 : v)
  }
  return usage
}

/** A quantity as Quantity.String() prints it: `500m`, `2` (cpu); memory with a binary suffix when exact. */
function quantityText(name: string, v: number): string {
  if (name.endsWith('cpu')) {
    const milli = Math.round(v * 1000)
    return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`
  }
  if (!/(memory|ephemeral-storage|hugepages-.*)$/.test(name)) return String(v)
  for (const [suffix, size] of [
    ['Gi', 2 ** 30],
    ['Mi', 2 ** 20],
    ['Ki', 2 ** 10],
  ] as const) {
    if (v >= size && v % size === 0) return `${v / size}${suffix}`
  }
  return String(v)
}

/** upstream: prettyPrint — `name=value` sorted by name, joined with commas. */
function prettyPrint(names: string[], value: (name: string) => string): string {
  return [...names]
    .sort()
    .map((n) => `${n}=${value(n)}`)
    .join(',')
}

/**
 * Why one of `quotas` refuses `pod`, given the namespace's `pods`: `exceeded quota: compute,
 * requested: cpu=500m, used: cpu=2, limited: cpu=2`; undefined when every quota admits it.
 */
export function quotaRefusal(
  pod: Pod,
  quotas: readonly ClusterObject[],
  pods: readonly Pod[],
  now: number,
): string | undefined {
  for (const q of quotas) {
    const spec = q.spec ?? {}
    if (spec.scopes !== undefined || spec.scopeSelector !== undefined) continue
    const hard = isObj(spec.hard) ? spec.hard : {}
    const tracked = Object.keys(hard).filter(
      (n) => n === 'pods' || n === 'count/pods' || computeResource(n) !== undefined,
    )
    if (tracked.length === 0) continue
    const requested = podUsage(pod, tracked)
    const used: Usage = new Map(tracked.map((n) => [n, 0]))
    for (const p of pods) {
      if (!charged(p, now)) continue
      for (const [n, v] of podUsage(p, tracked)) used.set(n, (used.get(n) ?? 0) + v)
    }
    // upstream: only the resources the request uses count (quota.RemoveZeros of the delta).
    const exceeded = tracked.filter((n) => {
      const want = requested.get(n) ?? 0
      const limit = quantityValue(String(hard[n])) ?? 0
      return want > 0 && (used.get(n) ?? 0) + want > limit + 1e-9
    })
    if (exceeded.length === 0) continue
    return `exceeded quota: ${q.metadata.name ?? ''}, requested: ${prettyPrint(exceeded, (n) => quantityText(n, requested.get(n) ?? 0))}, used: ${prettyPrint(exceeded, (n) => quantityText(n, used.get(n) ?? 0))}, limited: ${prettyPrint(exceeded, (n) => String(hard[n]))}`
  }
  return undefined
}
