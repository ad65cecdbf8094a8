// JSON merge patch (RFC 7386), JSON patch (RFC 6902) and the subset of strategic merge patch that
// kubectl and the Deployment controller send for apps/v1 and core/v1 objects.

import {ApiError, badRequest} from './errors.js'
import {clone, isObj, jsonEqual, type Obj} from './util.js'

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return clone(patch)
  const out: Obj = isObj(target) ? clone(target) : {}
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k]
    else out[k] = mergePatch(out[k], v)
  }
  return out
}

function unescapePointer(seg: string): string {
  return seg.replace(/~1/g, '/').replace(/~0/g, '~')
}

function parsePointer(path: string): string[] {
  if (path === '') return []
  if (!path.startsWith('/')) throw new JsonPatchError(`invalid JSON pointer "${path}"`)
  return path.slice(1).split('/').map(unescapePointer)
}

export class JsonPatchError extends Error {}

type Container = Obj | unknown[]

function resolveParent(doc: unknown, tokens: string[], path: string): {parent: Container; key: string} {
  let cur: unknown = doc
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) {
      const i = Number(t)
      if (!Number.isInteger(i) || i < 0 || i >= cur.length) {
        throw new JsonPatchError(`doc is missing path: "${path}": missing value`)
      }
      cur = cur[i]
    } else if (isObj(cur)) {
      if (!(t in cur)) throw new JsonPatchError(`doc is missing path: "${path}": missing value`)
      cur = cur[t]
    } else {
      throw new JsonPatchError(`doc is missing path: "${path}": missing value`)
    }
  }
  if (!Array.isArray(cur) && !isObj(cur))
    throw new JsonPatchError(`doc is missing path: "${path}": missing value`)
  return {parent: cur, key: tokens[tokens.length - 1] as string}
}

function getAt(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path)
  if (tokens.length === 0) return doc
  const {parent, key} = resolveParent(doc, tokens, path)
  if (Array.isArray(parent)) {
    const i = Number(key)
    if (!Number.isInteger(i) || i < 0 || i >= parent.length) {
      throw new JsonPatchError(`doc is missing path: "${path}": missing value`)
    }
    return parent[i]
  }
  if (!(key in parent)) throw new JsonPatchError(`doc is missing path: "${path}": missing value`)
  return parent[key]
}

function removeAt(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path)
  const {parent, key} = resolveParent(doc, tokens, path)
  if (Array.isArray(parent)) {
    const i = Number(key)
    if (!Number.isInteger(i) || i < 0 || i >= parent.length) {
      throw new JsonPatchError(`unable to remove nonexistent key: ${key}: missing value`)
    }
    return parent.splice(i, 1)[0]
  }
  if (!(key in parent)) throw new JsonPatchError(`unable to remove nonexistent key: ${key}: missing value`)
  const v = parent[key]
  delete parent[key]
  return v
}

function addAt(doc: unknown, path: string, value: unknown, replace: boolean): unknown {
  const tokens = parsePointer(path)
  if (tokens.length === 0) return clone(value)
  const {parent, key} = resolveParent(doc, tokens, path)
  if (Array.isArray(parent)) {
    if (key === '-' && !replace) {
      parent.push(clone(value))
      return doc
    }
    const i = Number(key)
    const max = replace ? parent.length - 1 : parent.length
    if (!Number.isInteger(i) || i < 0 || i > max) {
      throw new JsonPatchError(
        `unable to ${replace ? 'replace' : 'add'} element ${key} of array: index out of range`,
      )
    }
    if (replace) parent[i] = clone(value)
    else parent.splice(i, 0, clone(value))
    return doc
  }
  if (replace && !(key in parent)) {
    throw new JsonPatchError(`replace operation does not apply: doc is missing key: ${path}: missing value`)
  }
  parent[key] = clone(value)
  return doc
}

export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops))
    throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch')
  let doc = clone(target)
  for (const op of ops) {
    if (!isObj(op) || typeof op.op !== 'string') throw badRequest('invalid JSON patch operation')
    const path = typeof op.path === 'string' ? op.path : ''
    switch (op.op) {
      case 'add':
        doc = addAt(doc, path, op.value, false)
        break
      case 'replace':
        doc = addAt(doc, path, op.value, true)
        break
      case 'remove':
        removeAt(doc, path)
        break
      case 'move': {
        const v = removeAt(doc, String(op.from ?? ''))
        doc = addAt(doc, path, v, false)
        break
      }
      case 'copy':
        doc = addAt(doc, path, getAt(doc, String(op.from ?? '')), false)
        break
      case 'test':
        if (!jsonEqual(getAt(doc, path), op.value)) {
          throw new JsonPatchError(`testing value ${path} failed: test failed`)
        }
        break
      default:
        throw badRequest(`Unexpected kind: ${op.op}`)
    }
  }
  return doc
}

// ---------------------------------------------------------------------------------------------
// Strategic merge patch

interface ListStrategy {
  mergeKey?: string
  /** A list of scalars merged as a set (metadata.finalizers). */
  primitiveMerge?: boolean
}

/** patchMergeKey/patchStrategy tags of the fields that matter, keyed by JSON field name. */
const LIST_STRATEGIES: Record<string, ListStrategy> = {
  containers: {mergeKey: 'name'},
  initContainers: {mergeKey: 'name'},
  ephemeralContainers: {mergeKey: 'name'},
  env: {mergeKey: 'name'},
  ports: {mergeKey: 'containerPort'},
  volumeMounts: {mergeKey: 'mountPath'},
  volumeDevices: {mergeKey: 'devicePath'},
  volumes: {mergeKey: 'name'},
  imagePullSecrets: {mergeKey: 'name'},
  ownerReferences: {mergeKey: 'uid'},
  conditions: {mergeKey: 'type'},
  hostAliases: {mergeKey: 'ip'},
  resourceClaims: {mergeKey: 'name'},
  schedulingGates: {mergeKey: 'name'},
  topologySpreadConstraints: {mergeKey: 'topologyKey'},
  resizePolicy: {mergeKey: 'resourceName'},
  finalizers: {primitiveMerge: true},
}

const SET_ORDER = '$setElementOrder/'
const DELETE_FROM_PRIMITIVE = '$deleteFromPrimitiveList/'

export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) throw badRequest('strategic merge patch must be a JSON object')
  const out = mergeMap(isObj(target) ? clone(target) : {}, patch)
  return out ?? {}
}

function mergeMap(original: Obj, patch: Obj): Obj | undefined {
  const directive = patch.$patch
  if (directive === 'delete') return undefined
  if (directive === 'replace') {
    const copy = clone(patch)
    delete copy.$patch
    return stripDirectives(copy) as Obj
  }
  if (directive !== undefined && directive !== 'merge') {
    throw badRequest(`Unknown patch type: ${String(directive)}`)
  }
  const out = original
  const orders: [string, unknown[]][] = []
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys') continue
    if (k.startsWith(SET_ORDER)) {
      if (Array.isArray(v)) orders.push([k.slice(SET_ORDER.length), v])
      continue
    }
    if (k.startsWith(DELETE_FROM_PRIMITIVE)) {
      const field = k.slice(DELETE_FROM_PRIMITIVE.length)
      const cur = out[field]
      if (Array.isArray(cur) && Array.isArray(v)) {
        out[field] = cur.filter((x) => !v.some((d) => jsonEqual(d, x)))
      }
      continue
    }
    if (v === null) {
      delete out[k]
      continue
    }
    const cur = out[k]
    if (isObj(v)) {
      if (v.$patch === 'delete') {
        delete out[k]
        continue
      }
      const merged = mergeMap(isObj(cur) ? cur : {}, v)
      if (merged === undefined) delete out[k]
      else out[k] = merged
      continue
    }
    if (Array.isArray(v)) {
      const strategy = LIST_STRATEGIES[k]
      if (strategy && Array.isArray(cur)) {
        out[k] = mergeList(cur, v, strategy)
      } else if (strategy?.primitiveMerge) {
        out[k] = mergeList([], v, strategy)
      } else if (strategy?.mergeKey) {
        out[k] = mergeList([], v, strategy)
      } else {
        out[k] = stripDirectives(clone(v))
      }
      continue
    }
    out[k] = v
  }
  for (const [field, order] of orders) {
    const cur = out[field]
    if (Array.isArray(cur)) out[field] = applyOrder(cur, order, LIST_STRATEGIES[field])
  }
  const retain = patch.$retainKeys
  if (Array.isArray(retain)) {
    for (const k of Object.keys(out)) {
      if (!retain.includes(k) && !(k in patch)) delete out[k]
    }
  }
  return out
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => !(isObj(x) && x.$patch !== undefined)).map(stripDirectives)
  if (isObj(v)) {
    const out: Obj = {}
    for (const [k, x] of Object.entries(v)) {
      if (k.startsWith('$')) continue
      out[k] = stripDirectives(x)
    }
    return out
  }
  return v
}

function mergeList(original: unknown[], patch: unknown[], strategy: ListStrategy): unknown[] {
  if (patch.some((x) => isObj(x) && x.$patch === 'replace')) {
    return stripDirectives(patch.filter((x) => !(isObj(x) && x.$patch === 'replace'))) as unknown[]
  }
  if (strategy.primitiveMerge || !strategy.mergeKey) {
    const out = [...original]
    for (const x of patch) if (!out.some((y) => jsonEqual(x, y))) out.push(x)
    return out
  }
  const key = strategy.mergeKey
  const out = [...original]
  for (const item of patch) {
    if (!isObj(item)) {
      out.push(item)
      continue
    }
    const idx = out.findIndex((o) => isObj(o) && jsonEqual(o[key], item[key]))
    if (item.$patch === 'delete') {
      for (let i = out.length - 1; i >= 0; i--) {
        const o = out[i]
        if (isObj(o) && jsonEqual(o[key], item[key])) out.splice(i, 1)
      }
      continue
    }
    if (idx >= 0) {
      const merged = mergeMap(clone(out[idx] as Obj), item)
      if (merged === undefined) out.splice(idx, 1)
      else out[idx] = merged
    } else {
      out.push(stripDirectives(clone(item)))
    }
  }
  return out
}

/** $setElementOrder: listed elements first, in the given order; the rest keep their relative order. */
function applyOrder(list: unknown[], order: unknown[], strategy: ListStrategy | undefined): unknown[] {
  const key = strategy?.mergeKey
  const identity = (x: unknown): unknown => (key && isObj(x) ? x[key] : x)
  const orderIds = order.map(identity)
  const indexOf = (x: unknown): number => orderIds.findIndex((id) => jsonEqual(id, identity(x)))
  const listed = list.filter((x) => indexOf(x) >= 0).sort((a, b) => indexOf(a) - indexOf(b))
  const rest = list.filter((x) => indexOf(x) < 0)
  return [...listed, ...rest]
}

export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const

export function patchError(err: unknown): ApiError {
  if (err instanceof ApiError) return err
  const message = err instanceof Error ? err.message : String(err)
  return new ApiError(422, 'Invalid', message)
}
