// What `run`'s pod cache keeps of a pod (issue 30 item 1). Pods are the bulk of a controller's
// caches, and the Deployment controller reads little of them: upstream's pod informer serves
// getPodMapForDeployment (pods grouped by their ReplicaSet's UID; Recreate's oldPodsRunning reads
// their phase) and deletePod (the pod's controllerRef). client-go lets an informer trim what it
// caches with a TransformFunc (SharedInformer.SetTransform); controller-runtime ships
// cache.TransformStripManagedFields for the same purpose. This is ours, decided here and only here:
// test/unit/cache-trim.test.ts runs the controller over every example with pods that throw when a
// field outside POD_FIELDS_FOR_CONTROLLER is read.

import type {Pod} from '../../../controller/api/types.js'

/** A shape: `true` keeps a field whole; an object keeps the listed fields of it (of each element, for arrays). */
export type FieldShape = {readonly [field: string]: true | FieldShape}

export const POD_FIELDS_FOR_CONTROLLER: FieldShape = {
  apiVersion: true,
  kind: true,
  metadata: {
    name: true,
    namespace: true,
    uid: true,
    resourceVersion: true,
    creationTimestamp: true,
    deletionTimestamp: true,
    ownerReferences: {apiVersion: true, kind: true, name: true, uid: true, controller: true},
  },
  status: {phase: true},
}

/** `value` with only the fields `shape` lists (absent ones stay absent). */
export function keepFields(value: unknown, shape: FieldShape): unknown {
  if (Array.isArray(value)) return value.map((v) => keepFields(v, shape))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [field, sub] of Object.entries(shape)) {
    if (!Object.hasOwn(value, field)) continue
    const v = (value as Record<string, unknown>)[field]
    out[field] = sub === true ? v : keepFields(v, sub)
  }
  return out
}

/** The informer transform of `run`'s pod cache. */
export function trimPodForController(pod: Pod): Pod {
  return keepFields(pod, POD_FIELDS_FOR_CONTROLLER) as Pod
}

/**
 * Shares equal parts between cached objects (hash-consing): the pods of one ReplicaSet carry the same
 * containers, probes, resources and owner references; a Deployment's ReplicaSets repeat most of its
 * pod template. Each object or array below an object's top level is replaced by an equal one already
 * kept, if there is one, so that a cache holds each distinct part once. What readers see is
 * unchanged (equal values, same key order); only identity is shared, so the objects must not be
 * changed in place afterwards (an informer's are not: an event replaces an object whole). Keeping less
 * is what keeps a cold list from growing V8's young generation: every byte a list keeps survives
 * its scavenges. Strings are kept as they come (V8 already shares the keys).
 */
export class SharedParts {
  /** The first part kept with each hash; further parts with the same hash in `more`. */
  private readonly byHash = new Map<number, unknown>()
  private readonly more = new Map<number, unknown[]>()
  /** The last hash computed by share() (module-free, allocation-free return of a second value). */
  private hash = 0

  /** `obj` with its nested objects and arrays replaced by equal ones kept before. */
  share<T>(obj: T): T {
    if (obj === null || typeof obj !== 'object') return obj
    if (Array.isArray(obj)) {
      for (let i = 0; i < obj.length; i++) {
        const s = this.part(obj[i])
        if (s !== obj[i]) obj[i] = s
      }
    } else {
      const o = obj as Record<string, unknown>
      for (const k in o) {
        if (!Object.hasOwn(o, k)) continue
        const s = this.part(o[k])
        if (s !== o[k]) o[k] = s
      }
    }
    return obj
  }

  /** How many distinct parts are kept. */
  get size(): number {
    let n = this.byHash.size
    for (const bucket of this.more.values()) n += bucket.length
    return n
  }

  /** Forget the kept parts (the objects that share them keep them). */
  clear(): void {
    this.byHash.clear()
    this.more.clear()
  }

  /** The kept part equal to `v` (after sharing its own parts), or `v`, now kept; sets this.hash. */
  private part(v: unknown): unknown {
    if (v === null || typeof v !== 'object') {
      this.hash = scalarHash(v)
      return v
    }
    let h: number
    if (Array.isArray(v)) {
      h = 0x9e3779b1
      for (let i = 0; i < v.length; i++) {
        const s = this.part(v[i])
        if (s !== v[i]) v[i] = s
        h = Math.imul(h ^ this.hash, 0x01000193)
      }
    } else {
      const o = v as Record<string, unknown>
      h = 0x811c9dc5
      for (const k in o) {
        if (!Object.hasOwn(o, k)) continue
        const s = this.part(o[k])
        if (s !== o[k]) o[k] = s
        h = Math.imul(h ^ stringHash(k), 0x01000193)
        h = Math.imul(h ^ this.hash, 0x01000193)
      }
    }
    // A small integer (a V8 Smi): a Map key that needs no heap number of its own.
    h &= 0x3fffffff
    this.hash = h
    const first = this.byHash.get(h)
    if (first === undefined) {
      this.byHash.set(h, v)
      return v
    }
    if (sameParts(first, v)) return first
    const bucket = this.more.get(h)
    for (const kept of bucket ?? []) if (sameParts(kept, v)) return kept
    if (bucket) bucket.push(v)
    else this.more.set(h, [v])
    return v
  }
}

/** Equal when both hold the same keys in the same order with identical (already shared) values. */
function sameParts(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const x = a as Record<string, unknown>
  const y = b as Record<string, unknown>
  if (Object.getPrototypeOf(x) !== Object.getPrototypeOf(y)) return false
  const keysY: string[] = []
  for (const k in y) if (Object.hasOwn(y, k)) keysY.push(k)
  let i = 0
  for (const k in x) {
    if (!Object.hasOwn(x, k)) continue
    if (keysY[i] !== k || !Object.is(x[k], y[k])) return false
    i++
  }
  return i === keysY.length
}

function stringHash(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h
}

function scalarHash(v: unknown): number {
  switch (typeof v) {
    case 'string':
      return stringHash(v)
    case 'number':
      return stringHash(String(v)) ^ 0x5bd1e995
    case 'boolean':
      return v ? 0x27d4eb2f : 0x165667b1
    default:
      return v === null ? 0x7f4a7c15 : 0x3c6ef372
  }
}
