// Delta lines: a change written as a JSON merge patch (RFC 7386) against the previous version of the
// same object, instead of the whole object again. Most changes of a pod, a ReplicaSet or a Deployment
// touch a few fields (resourceVersion, a condition, a count), so the recording holds those fields
// and not the object around them.
//
//   {"time":"...","type":"MODIFIED","kind":"Pod","uid":"6f1c...","patch":{"metadata":{...},"status":{...}}}
//
// A delta is written only when applying it to the previous version gives back, serialized, exactly
// the object a full line would have held (the same keys in the same order, the same nulls): a reader
// ends up with the objects of the full lines, byte for byte. When it would not (a key that appears
// in the middle of an object, a value that becomes null, a new array element with nulls...) the line
// is written whole. The first line of an object is whole, and so is a line after compaction dropped
// its predecessor, so a delta always follows a line of the same object in the same file.

import {type ChangeType, changeLine, deltaLine} from './format.js'

type Json = unknown
type JsonObject = Record<string, Json>

function isObject(v: Json): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * upstream (RFC 7386 MergePatch): `target` with `patch` applied. Untouched parts are shared with
 * `target` (never changed); keys keep their place, new ones come last, null removes a key.
 */
export function applyMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch
  const base: JsonObject = isObject(target) ? target : {}
  const out: JsonObject = {}
  for (const key of Object.keys(base)) {
    if (!Object.hasOwn(patch, key)) out[key] = base[key]
    else if (patch[key] !== null) out[key] = applyMergePatch(base[key], patch[key])
  }
  for (const key of Object.keys(patch)) {
    if (Object.hasOwn(base, key) || patch[key] === null) continue
    out[key] = applyMergePatch(undefined, patch[key])
  }
  return out
}

/** Deep equality of JSON values, key order included (what JSON.stringify would tell). */
function sameJson(a: Json, b: Json): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const bs = b as Json[]
    return a.length === bs.length && a.every((x, i) => sameJson(x, bs[i]))
  }
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  const ao = a as JsonObject
  const bo = b as JsonObject
  return ka.every((k, i) => k === kb[i] && sameJson(ao[k], bo[k]))
}

/** The merge patch from `from` to `to` (both objects); keys of `to` that `from` lacks come as in `to`. */
function diff(from: JsonObject, to: JsonObject): JsonObject {
  const patch: JsonObject = {}
  for (const key of Object.keys(from)) if (!Object.hasOwn(to, key)) patch[key] = null
  for (const key of Object.keys(to)) {
    const a = from[key]
    const b = to[key]
    if (!Object.hasOwn(from, key)) patch[key] = b
    else if (sameJson(a, b)) continue
    else if (isObject(a) && isObject(b)) patch[key] = diff(a, b)
    else patch[key] = b
  }
  return patch
}

/**
 * The merge patch that turns `from` into `to`, or undefined when applying one cannot give back `to`
 * exactly (key order, nulls): such a change is written whole.
 */
export function mergePatchBetween(from: Json, to: Json): JsonObject | undefined {
  if (!isObject(from) || !isObject(to)) return undefined
  const patch = diff(from, to)
  return sameJson(applyMergePatch(from, patch), to) ? patch : undefined
}

/**
 * The lines of a recording: each change whole the first time an object is seen, then as a delta
 * against its previous line when that is exact and shorter. Keeps the latest version of every object
 * not deleted (by uid).
 */
export class DeltaEncoder {
  private readonly last = new Map<string, unknown>()

  constructor(private readonly deltas = true) {}

  line(ms: number, type: ChangeType, object: unknown): {line: string; delta: boolean} {
    const meta = isObject(object) && isObject(object.metadata) ? object.metadata : undefined
    const uid = typeof meta?.uid === 'string' && meta.uid !== '' ? meta.uid : undefined
    const full = changeLine(ms, type, object)
    let out = {line: full, delta: false}
    const before = uid === undefined ? undefined : this.last.get(uid)
    if (this.deltas && uid !== undefined && before !== undefined && type !== 'ADDED') {
      const d = deltaOf(ms, type, before, object)
      if (d !== undefined && d.length < full.length) out = {line: d, delta: true}
    }
    if (uid !== undefined) {
      if (type === 'DELETED') this.last.delete(uid)
      else this.last.set(uid, object)
    }
    return out
  }
}

/** The delta line from `before` to `object` (the same uid), or undefined when no patch is exact. */
export function deltaOf(
  ms: number,
  type: 'MODIFIED' | 'DELETED',
  before: unknown,
  object: unknown,
): string | undefined {
  const o = object as {kind?: unknown; metadata?: {uid?: unknown}}
  if (typeof o.kind !== 'string' || typeof o.metadata?.uid !== 'string') return undefined
  const patch = mergePatchBetween(before, object)
  return patch === undefined ? undefined : deltaLine(ms, type, o.kind, o.metadata.uid, patch)
}
