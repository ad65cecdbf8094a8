// What a write changes, in words: the CHANGE column of `dry-run sync`. Each write is compared with
// the object as it stood just before it in this pass (at first, the object before the pass), so a
// redundant write reads "no change" instead of repeating the previous write's change.

import type {Action, ActionResource} from '../cluster/action.js'
import {deepEqual, isPlainObject, type JsonObject} from '../cluster/json.js'
import {mergePatch, strategicMergePatch} from '../cluster/memory.js'
import {RevisionAnnotation} from '../controller/util/deployment-util.js'

export interface Change {
  /** One line for the table: `replicas 3 -> 2; Progressing: ReplicaSetUpdated -> NewReplicaSetAvailable`. */
  summary: string
  /** Every changed field, for -o wide: `spec.replicas: 3 -> 2`. */
  details: string[]
}

export type BeforeLookup = (resource: ActionResource, namespace: string, name: string) => unknown

const NONE = '<none>'

/** Follows the writes of a pass in order and describes each against the state before it. */
export class ChangeTracker {
  private readonly state = new Map<string, unknown>()

  constructor(private readonly before: BeforeLookup) {}

  describe(action: Action): Change {
    const key = `${action.resource}/${action.namespace}/${action.name}`
    const prev = this.state.has(key)
      ? this.state.get(key)
      : this.before(action.resource, action.namespace, action.name)
    const {change, next} = describeWrite(action, prev)
    this.state.set(key, next)
    return change
  }
}

function describeWrite(action: Action, prev: unknown): {change: Change; next: unknown} {
  const sent = action.object
  switch (action.verb) {
    case 'create': {
      const what = created(sent)
      return {change: {summary: what, details: [what]}, next: sent}
    }
    case 'delete': {
      const what = prev === undefined ? 'deleted' : `deleted (${counts(prev)})`
      return {change: {summary: 'deleted', details: [what]}, next: undefined}
    }
    case 'patch': {
      const next =
        action.patchType === 'merge'
          ? mergePatch(prev, action.patch)
          : strategicMergePatch(prev, action.patch, [])
      return {change: describePatch(action.patch, prev, next), next}
    }
    case 'update': {
      const p = isPlainObject(prev) ? prev : {}
      const s = isPlainObject(sent) ? sent : {}
      let next: JsonObject
      if (action.subresource === 'status') {
        next = {
          ...p,
          status: s.status,
          metadata: {...obj(p.metadata), annotations: obj(s.metadata).annotations},
        }
      } else {
        next = {...s, status: p.status}
      }
      return {change: diff(p, next), next}
    }
    default:
      return {change: {summary: '', details: []}, next: prev}
  }
}

const obj = (v: unknown): JsonObject => (isPlainObject(v) ? v : {})

function created(o: unknown): string {
  return `created (${counts(o)})`
}

function counts(o: unknown): string {
  const spec = obj(obj(o).spec)
  const annotations = obj(obj(obj(o).metadata).annotations)
  const parts = [`replicas ${fmt(spec.replicas)}`]
  if (annotations[RevisionAnnotation] !== undefined) parts.push(`revision ${annotations[RevisionAnnotation]}`)
  return parts.join(', ')
}

function describePatch(patch: unknown, prev: unknown, next: unknown): Change {
  const refs = obj(obj(patch).metadata).ownerReferences
  if (Array.isArray(refs) && refs.length > 0) {
    const released = refs.some((r) => obj(r).$patch === 'delete')
    const owner = refs.map((r) => {
      const ref = obj(r)
      return ref.kind ? `${ref.kind}/${ref.name}` : `uid ${ref.uid}`
    })
    const summary = released ? 'released' : 'adopted'
    return {summary, details: [`${summary} ${released ? 'from' : 'by'} ${owner.join(', ')}`]}
  }
  return diff(obj(prev), obj(next))
}

const STATUS_COUNTS = [
  'observedGeneration',
  'replicas',
  'updatedReplicas',
  'readyReplicas',
  'availableReplicas',
  'unavailableReplicas',
  'terminatingReplicas',
  'collisionCount',
]
// Pointer fields in the Go types: absent is not zero.
const POINTER_FIELDS = new Set(['terminatingReplicas', 'collisionCount'])

/** The changes between two versions of an object, as a summary line and a detailed list. */
export function diff(a: JsonObject, b: JsonObject): Change {
  const details: string[] = []
  leafDiff(a, b, '', details)
  const summary: string[] = []
  const meta = (o: JsonObject) => obj(o.metadata)
  for (const field of ['annotations', 'labels'] as const) {
    const x = obj(meta(a)[field])
    const y = obj(meta(b)[field])
    for (const k of unionKeys(x, y)) {
      if (x[k] !== y[k]) summary.push(`${field} ${k} ${fmt(x[k])} -> ${fmt(y[k])}`)
    }
  }
  const sa = obj(a.spec)
  const sb = obj(b.spec)
  for (const k of unionKeys(sa, sb)) {
    if (deepEqual(sa[k], sb[k])) continue
    if (isPlainObject(sa[k]) || isPlainObject(sb[k]) || Array.isArray(sa[k]) || Array.isArray(sb[k])) {
      summary.push(`${k} changed`)
    } else {
      summary.push(`${k} ${fmt(sa[k])} -> ${fmt(sb[k])}`)
    }
  }
  const ta = obj(a.status)
  const tb = obj(b.status)
  for (const k of STATUS_COUNTS) {
    const zero = POINTER_FIELDS.has(k) ? undefined : 0
    const x = ta[k] ?? zero
    const y = tb[k] ?? zero
    // status.replicas is spelled out: plain "replicas" is the spec's in this column.
    if (x !== y) summary.push(`${k === 'replicas' ? 'status.replicas' : k} ${fmt(x)} -> ${fmt(y)}`)
  }
  summary.push(...conditionChanges(ta.conditions, tb.conditions))
  return {
    summary: summary.length > 0 ? summary.join('; ') : details.length > 0 ? 'changed' : 'no change',
    details,
  }
}

function conditionChanges(a: unknown, b: unknown): string[] {
  const byType = (v: unknown) =>
    new Map((Array.isArray(v) ? v : []).map((c) => [String(obj(c).type), obj(c)] as [string, JsonObject]))
  const x = byType(a)
  const y = byType(b)
  const out: string[] = []
  for (const type of new Set([...x.keys(), ...y.keys()])) {
    const c = x.get(type)
    const d = y.get(type)
    if (deepEqual(c, d)) continue
    if (!c || !d) {
      out.push(`${type}: ${c ? fmt(c.reason) : NONE} -> ${d ? fmt(d.reason) : NONE}`)
    } else if (c.status !== d.status) {
      out.push(`${type}: ${c.status} (${fmt(c.reason)}) -> ${d.status} (${fmt(d.reason)})`)
    } else if (c.reason !== d.reason) {
      out.push(`${type}: ${fmt(c.reason)} -> ${fmt(d.reason)}`)
    } else {
      out.push(`${type}: ${fmt(d.reason)} (updated)`)
    }
  }
  return out
}

function unionKeys(a: JsonObject, b: JsonObject): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
}

/** Lists of these keys are matched item by item (conditions by type, containers by name, ...). */
const LIST_KEYS = ['type', 'name', 'uid']

function leafDiff(a: unknown, b: unknown, path: string, out: string[]): void {
  if (deepEqual(a, b)) return
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const k of unionKeys(a, b)) leafDiff(a[k], b[k], path ? `${path}.${k}` : k, out)
    return
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const key = LIST_KEYS.find((k) =>
      [...a, ...b].every((item) => isPlainObject(item) && typeof item[k] === 'string'),
    )
    if (key) {
      const x = new Map(a.map((item) => [obj(item)[key] as string, item]))
      const y = new Map(b.map((item) => [obj(item)[key] as string, item]))
      for (const k of new Set([...x.keys(), ...y.keys()])) leafDiff(x.get(k), y.get(k), `${path}[${k}]`, out)
      return
    }
    if (a.length === b.length) {
      for (const [i, item] of a.entries()) leafDiff(item, b[i], `${path}[${i}]`, out)
      return
    }
  }
  out.push(`${path}: ${fmt(a)} -> ${fmt(b)}`)
}

function fmt(v: unknown): string {
  if (v === undefined || v === null) return NONE
  if (typeof v === 'string') return v === '' ? '""' : v
  const s = JSON.stringify(v)
  return s.length > 80 ? `${s.slice(0, 77)}...` : s
}
