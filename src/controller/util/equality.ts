// Equality as upstream's Go code sees it. Objects here are JSON, upstream's are typed structs: a
// field absent from JSON is the zero value of its Go type, nil and empty maps/slices are equal under
// apiequality.Semantic, and quantities compare by value. Comparing JSON shapes instead would make
// the port write where upstream writes nothing.

import type {DeploymentCondition, DeploymentStatus} from '../api/types.js'

/**
 * A deep copy of a JSON value (upstream's DeepCopy). Objects here are plain JSON, so a recursive
 * copy is exact, and several times faster than structuredClone, which must handle every type.
 */
export function deepCopy<T>(v: T): T {
  return copyJson(v) as T
}

function copyJson(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v
  if (Array.isArray(v)) {
    const out = new Array(v.length)
    for (let i = 0; i < v.length; i++) out[i] = copyJson(v[i])
    return out
  }
  const out: Record<string, unknown> = {}
  for (const k in v) {
    if (Object.hasOwn(v, k)) out[k] = copyJson((v as Record<string, unknown>)[k])
  }
  return out
}

type Json = null | boolean | number | string | Json[] | {[k: string]: Json}

function isZero(v: unknown): boolean {
  if (v == null || v === '' || v === 0 || v === false) return true
  if (Array.isArray(v)) return v.length === 0
  if (typeof v === 'object') return !hasOwnKeys(v as object)
  return false
}

/** Whether `o` has an own enumerable key (Object.keys(o).length > 0 without the array). */
function hasOwnKeys(o: object): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return true
  return false
}

const QUANTITY_PARENTS = new Set(['limits', 'requests', 'overhead', 'sizeLimit', 'capacity'])

/**
 * upstream: apiequality.Semantic.DeepEqual on pod templates. Absent fields equal their zero value
 * (the Go struct has no "absent"); a pointer to an empty struct equals nil here, a deliberate
 * approximation because JSON cannot tell the two apart once defaults are applied.
 */
export function semanticEqual(a: unknown, b: unknown, parentKey = ''): boolean {
  if (a === b) return true
  if (isZero(a) && isZero(b)) return true
  // An absent struct is the zero struct, so one whose fields are all zero values equals it at any
  // depth: {metadata: {labels: {}}} equals a template without metadata.
  if (isPlainObject(a) && b == null) return semanticEqual(a, {}, parentKey)
  if (a == null && isPlainObject(b)) return semanticEqual({}, b, parentKey)
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!semanticEqual(a[i], b[i], parentKey)) return false
    return true
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const quantities = QUANTITY_PARENTS.has(parentKey)
    // for-in over own keys, not Object.keys: this runs for every ReplicaSet template on every pass,
    // and the key arrays were most of what a pass allocated.
    for (const k in a) {
      if (!Object.hasOwn(a, k)) continue
      const bv = b[k]
      if (quantities && typeof a[k] === 'string' && typeof bv === 'string') {
        if (!quantityEqual(a[k] as string, bv)) return false
        continue
      }
      if (!semanticEqual(a[k], bv, k)) return false
    }
    for (const k in b) {
      if (Object.hasOwn(b, k) && !(k in a) && !semanticEqual(undefined, b[k], k)) return false
    }
    return true
  }
  if (typeof a === 'string' && typeof b === 'string' && parentKey === 'sizeLimit') return quantityEqual(a, b)
  return false
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

const SUFFIX: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
}

/** resource.Quantity equality by value ("1000m" equals "1"); unparsable strings compare as text. */
export function quantityEqual(a: string, b: string): boolean {
  if (a === b) return true
  const qa = quantityValue(a)
  const qb = quantityValue(b)
  return qa !== undefined && qb !== undefined && Math.abs(qa - qb) <= Math.abs(qa) * 1e-12
}

/** A quantity string as a number of units ("250m" is 0.25, "1Ki" 1024); undefined when it does not parse. */
export function quantityValue(s: string): number | undefined {
  const m = /^([+-]?[0-9.]+)(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(s)
  if (!m) return undefined
  const base = Number(m[1])
  if (Number.isNaN(base)) return undefined
  if (m[2]) return base * 10 ** Number(m[2].slice(1))
  return base * (SUFFIX[m[3] ?? ''] ?? 1)
}

/** Instant of a metav1.Time string; absent is Go's zero time. */
export function timeValue(t: string | undefined): number {
  if (t == null || t === '') return Number.NEGATIVE_INFINITY
  const v = Date.parse(t)
  return Number.isNaN(v) ? Number.NEGATIVE_INFINITY : v
}

function conditionEqual(a: DeploymentCondition, b: DeploymentCondition): boolean {
  return (
    (a.type ?? '') === (b.type ?? '') &&
    (a.status ?? '') === (b.status ?? '') &&
    (a.reason ?? '') === (b.reason ?? '') &&
    (a.message ?? '') === (b.message ?? '') &&
    timeValue(a.lastUpdateTime) === timeValue(b.lastUpdateTime) &&
    timeValue(a.lastTransitionTime) === timeValue(b.lastTransitionTime)
  )
}

const INT_FIELDS = [
  'observedGeneration',
  'replicas',
  'updatedReplicas',
  'readyReplicas',
  'availableReplicas',
  'unavailableReplicas',
] as const

/** upstream: reflect.DeepEqual(d.Status, newStatus) on apps/v1 DeploymentStatus. */
export function deploymentStatusEqual(
  a: DeploymentStatus | undefined,
  b: DeploymentStatus | undefined,
): boolean {
  const x = a ?? {}
  const y = b ?? {}
  for (const f of INT_FIELDS) if ((x[f] ?? 0) !== (y[f] ?? 0)) return false
  // Pointer fields: nil is not zero.
  if ((x.collisionCount ?? null) !== (y.collisionCount ?? null)) return false
  if ((x.terminatingReplicas ?? null) !== (y.terminatingReplicas ?? null)) return false
  const cx = x.conditions ?? []
  const cy = y.conditions ?? []
  // reflect.DeepEqual tells a nil slice from an empty one.
  if ((x.conditions == null) !== (y.conditions == null) && cx.length === 0 && cy.length === 0) return false
  if (cx.length !== cy.length) return false
  for (let i = 0; i < cx.length; i++) if (!conditionEqual(cx[i]!, cy[i]!)) return false
  return true
}

export type {Json}
