// What one pod of a template asks the scheduler for: CPU and memory requests as the scheduler sums
// them (the containers' sum, or the largest init container's when that is more).

import type {Container, PodTemplateSpec} from '../controller/api/types.js'
import {quantityValue} from '../controller/util/equality.js'

export interface Requests {
  /** Millicores. */
  cpuMillicores: number
  /** Bytes. */
  memoryBytes: number
}

export const NO_REQUESTS: Requests = {cpuMillicores: 0, memoryBytes: 0}

function containerRequests(c: Container): Requests {
  const requests = (c.resources as {requests?: Record<string, unknown>} | undefined)?.requests ?? {}
  const value = (key: string): number => {
    const v = requests[key]
    const n = typeof v === 'string' ? quantityValue(v) : typeof v === 'number' ? v : undefined
    return n ?? 0
  }
  return {cpuMillicores: Math.round(value('cpu') * 1000), memoryBytes: Math.round(value('memory'))}
}

/** upstream (scheduler): computePodResourceRequest without overhead — max(Σ containers, each init container). */
export function podRequests(template: PodTemplateSpec | undefined): Requests {
  const spec = template?.spec
  const sum = {...NO_REQUESTS}
  for (const c of spec?.containers ?? []) {
    const r = containerRequests(c)
    sum.cpuMillicores += r.cpuMillicores
    sum.memoryBytes += r.memoryBytes
  }
  for (const c of spec?.initContainers ?? []) {
    const r = containerRequests(c)
    sum.cpuMillicores = Math.max(sum.cpuMillicores, r.cpuMillicores)
    sum.memoryBytes = Math.max(sum.memoryBytes, r.memoryBytes)
  }
  return sum
}

export function addRequests(a: Requests, b: Requests, times = 1): Requests {
  return {
    cpuMillicores: a.cpuMillicores + b.cpuMillicores * times,
    memoryBytes: a.memoryBytes + b.memoryBytes * times,
  }
}
