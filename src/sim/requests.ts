// What one pod of a template asks the scheduler for: every resource it requests, summed as the
// scheduler sums them (the containers and sidecars, the largest init container when that is more,
// pod-level requests, the RuntimeClass overhead), in the units NodeResourcesFit compares.

import type {PodTemplateSpec} from '../controller/api/types.js'
import {quantityValue} from '../controller/util/equality.js'

export interface Requests {
  /** Millicores. */
  cpuMillicores: number
  /** Bytes. */
  memoryBytes: number
  /** Every other resource requested (ephemeral-storage, extended resources, hugepages), when any. */
  other?: ResourceAmounts
}

export const NO_REQUESTS: Requests = {cpuMillicores: 0, memoryBytes: 0}

/**
 * Resource name -> amount, as the scheduler's framework.Resource keeps it: cpu in millicores,
 * everything else in whole units (bytes, devices).
 */
export type ResourceAmounts = Record<string, number>

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

/** upstream: v1helper.IsExtendedResourceName — outside kubernetes.io, with a domain, e.g. nvidia.com/gpu. */
export function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.includes('kubernetes.io/') || name.startsWith('requests.')) return false
  // A qualified name once prefixed with "requests." (the form a ResourceQuota uses).
  return /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/.test(name)
}

/**
 * upstream: framework.Resource.Add — the names the scheduler counts: cpu, memory, ephemeral-storage,
 * pods, and the scalar ones (v1helper.IsScalarResourceName: extended resources, hugepages-*,
 * attachable-volumes-*, and names prefixed kubernetes.io/). Any other name is not counted.
 */
export function isCountedResourceName(name: string): boolean {
  return (
    name === 'cpu' ||
    name === 'memory' ||
    name === 'ephemeral-storage' ||
    name === 'pods' ||
    name.startsWith('hugepages-') ||
    name.startsWith('attachable-volumes-') ||
    name.includes('kubernetes.io/') ||
    isExtendedResourceName(name)
  )
}

/** A resource list (requests, allocatable, overhead) as amounts; names the scheduler ignores are dropped. */
export function amountsOf(resources: unknown): ResourceAmounts {
  const out: ResourceAmounts = {}
  for (const [name, v] of Object.entries(obj(resources))) {
    if (!isCountedResourceName(name)) continue
    const n = typeof v === 'number' ? v : typeof v === 'string' ? (quantityValue(v) ?? 0) : 0
    out[name] = name === 'cpu' ? Math.round(n * 1000) : Math.round(n)
  }
  return out
}

function add(into: ResourceAmounts, more: ResourceAmounts): void {
  for (const [k, v] of Object.entries(more)) into[k] = (into[k] ?? 0) + v
}

function maxInto(into: ResourceAmounts, other: ResourceAmounts): void {
  for (const [k, v] of Object.entries(other))
    if (into[k] === undefined || v > (into[k] as number)) into[k] = v
}

/** upstream: resourcehelper.IsSupportedPodLevelResource — cpu, memory and hugepages-*. */
const podLevel = (name: string) => name === 'cpu' || name === 'memory' || name.startsWith('hugepages-')

/**
 * upstream: resourcehelper.PodRequests (with AggregateContainerRequests), as the scheduler's
 * computePodResourceRequest calls it: the containers' requests summed; each restartable init
 * container (a sidecar, restartPolicy Always) added to that sum and to what later init containers
 * run beside; the largest init-container moment wins where it is more; pod-level requests (cpu,
 * memory, hugepages) replace the containers' own; the overhead is added. `nonMissing`: amounts a
 * container that does not request cpu or memory counts (upstream's NonMissingContainerRequests, the
 * scoring's 100m and 200Mi).
 */
export function podResourceRequests(spec: unknown, nonMissing?: ResourceAmounts): ResourceAmounts {
  const s = obj(spec)
  const of = (c: unknown): ResourceAmounts => {
    const r = amountsOf(obj(obj(c).resources).requests)
    if (nonMissing) for (const [k, v] of Object.entries(nonMissing)) if (!(k in r)) r[k] = v
    return r
  }
  const sum: ResourceAmounts = {}
  for (const c of list(s.containers)) add(sum, of(c))
  const sidecars: ResourceAmounts = {}
  const initPeak: ResourceAmounts = {}
  for (const c of list(s.initContainers)) {
    const r = of(c)
    if (obj(c).restartPolicy === 'Always') {
      add(sum, r)
      add(sidecars, r)
      maxInto(initPeak, sidecars)
    } else {
      const moment = {...r}
      add(moment, sidecars)
      maxInto(initPeak, moment)
    }
  }
  maxInto(sum, initPeak)
  const level = Object.entries(amountsOf(obj(s.resources).requests)).filter(([k]) => podLevel(k))
  for (const [k, v] of level) sum[k] = v
  add(sum, amountsOf(s.overhead))
  delete sum.pods
  return sum
}

/** podResourceRequests as plan adds them up: cpu and memory, and the others apart. */
export function podRequests(template: PodTemplateSpec | undefined): Requests {
  const {cpu = 0, memory = 0, ...other} = podResourceRequests(template?.spec)
  return {cpuMillicores: cpu, memoryBytes: memory, ...(Object.keys(other).length > 0 ? {other} : {})}
}

export function addRequests(a: Requests, b: Requests, times = 1): Requests {
  const other: ResourceAmounts = {...a.other}
  for (const [k, v] of Object.entries(b.other ?? {})) other[k] = (other[k] ?? 0) + v * times
  return {
    cpuMillicores: a.cpuMillicores + b.cpuMillicores * times,
    memoryBytes: a.memoryBytes + b.memoryBytes * times,
    ...(Object.keys(other).length > 0 ? {other} : {}),
  }
}
