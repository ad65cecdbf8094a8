// Which keys of a pod template's JSON a minor's core/v1 types do not declare: the fields an API
// server of that minor does not know (strict decoding refuses them, lax decoding drops them), read
// from the same type tables the pod-template-hash walks.

import type {KubeMinor} from '../version.js'
import type {GoTypeRef, HashTypeData} from './hash-types.js'
import {hashTypeDataFor} from './pod-template-hash.js'

// Types whose JSON is not their Go structure (a string, a number or raw JSON): nothing inside is a field.
const OPAQUE = new Set(['resource.Quantity', 'meta/v1.Time', 'intstr.IntOrString', 'meta/v1.FieldsV1'])

/** Paths (".spec.hostnameOverride", ".spec.containers[0].restartPolicyRules") of unknown keys. */
export function unknownTemplateFields(template: unknown, minor: KubeMinor): string[] {
  return unknownTemplateKeys(template, minor).map((u) => u.path)
}

/** An unknown key: where it is, and the object that holds it. */
export interface UnknownKey {
  path: string
  /** the path as field names and list indexes, for a field error */
  elems: Array<string | number | {key: string}>
  holder: Record<string, unknown>
  key: string
}

/** The unknown keys of a template, with their holders (to remove them, as lax decoding does). */
export function unknownTemplateKeys(template: unknown, minor: KubeMinor): UnknownKey[] {
  const data = hashTypeDataFor(minor)
  const out: UnknownKey[] = []
  walk(data, data.source.root, template, '', [], out)
  return out
}

type Elems = UnknownKey['elems']

function walk(
  data: HashTypeData,
  ref: GoTypeRef,
  v: unknown,
  path: string,
  elems: Elems,
  out: UnknownKey[],
): void {
  if (v === null || v === undefined || OPAQUE.has(ref)) return
  if (ref.startsWith('*')) {
    walk(data, ref.slice(1), v, path, elems, out)
    return
  }
  if (ref.startsWith('[]')) {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) walk(data, ref.slice(2), v[i], `${path}[${i}]`, [...elems, i], out)
    }
    return
  }
  if (ref.startsWith('map[')) {
    if (typeof v !== 'object' || Array.isArray(v)) return
    const value = mapValue(ref)
    for (const [k, x] of Object.entries(v))
      walk(data, value, x, `${path}[${JSON.stringify(k)}]`, [...elems, {key: k}], out)
    return
  }
  const decl = data.types[ref]
  if (!decl) return
  if (!('fields' in decl)) {
    walk(data, decl.type, v, path, elems, out)
    return
  }
  if (typeof v !== 'object' || Array.isArray(v)) return
  const keys = new Map<string, GoTypeRef>()
  collectKeys(data, ref, keys)
  for (const [k, x] of Object.entries(v)) {
    const type = keys.get(k)
    if (type === undefined)
      out.push({path: `${path}.${k}`, elems: [...elems, k], holder: v as Record<string, unknown>, key: k})
    else walk(data, type, x, `${path}.${k}`, [...elems, k], out)
  }
}

/** The JSON keys of a struct, with inline (embedded) structs' keys promoted. */
function collectKeys(data: HashTypeData, ref: GoTypeRef, keys: Map<string, GoTypeRef>): void {
  const decl = data.types[ref]
  if (!decl || !('fields' in decl)) return
  for (const [, json, type] of decl.fields) {
    if (json === '') collectKeys(data, type, keys)
    else if (json !== null) keys.set(json, type)
  }
}

function mapValue(ref: GoTypeRef): GoTypeRef {
  let depth = 0
  for (let i = 3; i < ref.length; i++) {
    if (ref[i] === '[') depth++
    else if (ref[i] === ']' && --depth === 0) return ref.slice(i + 1)
  }
  return ref
}
