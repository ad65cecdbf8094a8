// The object store: one global resourceVersion counter, objects by resource and namespace/name, and a
// bounded history of changes for watch replay (older versions get 410 Gone, as after etcd compaction).

import {randomUUID} from 'node:crypto'
import {BUILT_IN_KINDS, byObjectIn, Kinds, resolveIn} from './kinds.js'
import {groupVersion, RESOURCES, type ResourceDef} from './resources.js'
import {child, clone, isObj, metaOf, type Obj, rfc3339, str} from './util.js'

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED'

export interface Change {
  rv: number
  type: ChangeType
  def: ResourceDef
  /** The object after the change (for DELETED: its last state, carrying the deletion's resourceVersion). */
  object: Obj
  /** The object before the change, for MODIFIED and DELETED. */
  previous?: Obj
}

export function keyOf(def: ResourceDef): string {
  return `${def.group}/${def.resource}`
}

export function objectKey(ns: string | undefined, name: string): string {
  return ns ? `${ns}/${name}` : name
}

/** A built-in resource by `deployments`, `deploy`, `Deployment`, `deployments.apps` or `apps/v1/deployments`. */
export function resolveResource(name: string): ResourceDef {
  const found = resolveIn(BUILT_IN_KINDS, name)
  if (!found) throw new Error(`unknown resource ${name}`)
  return found
}

export class Store {
  private rv: number
  private readonly data = new Map<string, Map<string, Obj>>()
  /** Each bucket's keys in order, made when a list pages through it; dropped when a key comes or goes. */
  private readonly sortedKeys = new Map<string, string[]>()
  private history: Change[] = []
  /** Changes with rv <= compactedRV are no longer retained; watching from before it gets 410. */
  compactedRV: number
  private readonly listeners = new Set<(c: Change) => void>()
  /** What this store holds: the built-in kinds and those its CRDs define. */
  readonly kinds = new Kinds()

  constructor(
    readonly historyLimit = 10_000,
    startRV = 1000,
  ) {
    this.rv = startRV
    this.compactedRV = startRV
  }

  /** The current (latest) resourceVersion as a string, as list metadata carries it. */
  get resourceVersion(): string {
    return String(this.rv)
  }

  get currentRV(): number {
    return this.rv
  }

  onChange(fn: (c: Change) => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  private bucket(def: ResourceDef): Map<string, Obj> {
    const k = keyOf(def)
    let b = this.data.get(k)
    if (!b) {
      b = new Map()
      this.data.set(k, b)
    }
    return b
  }

  /** The stored object (a copy), by definition or resource name. */
  get(resource: ResourceDef | string, namespace: string | undefined, name: string): Obj | undefined {
    const def = typeof resource === 'string' ? this.resolve(resource) : resource
    const o = this.bucket(def).get(objectKey(def.namespaced ? namespace : undefined, name))
    return o ? clone(o) : undefined
  }

  /** Stored objects (copies) in key order, optionally in one namespace. */
  list(resource: ResourceDef | string, namespace?: string): Obj[] {
    const def = typeof resource === 'string' ? this.resolve(resource) : resource
    const out: Obj[] = []
    for (const [k, o] of this.bucket(def)) {
      if (namespace && def.namespaced && !k.startsWith(`${namespace}/`)) continue
      out.push(clone(o))
    }
    return out.sort((a, b) => cmp(keyFor(def, a), keyFor(def, b)))
  }

  /**
   * One page of a list, as an API server serving from its watch cache reads it: the stored objects
   * themselves (to be serialised, never changed) from key `start` on, `limit` of those `keep` takes
   * (0: all), without copying or walking the rest of the resource. `more`: another object follows;
   * `remaining`: how many objects follow (only meaningful when `keep` takes every object).
   */
  page(
    def: ResourceDef,
    namespace: string | undefined,
    start: string,
    limit: number,
    keep: (o: Obj) => boolean,
  ): {items: Obj[]; more: boolean; remaining: number} {
    const k = keyOf(def)
    const bucket = this.bucket(def)
    let keys = this.sortedKeys.get(k)
    if (!keys) {
      keys = [...bucket.keys()].sort()
      this.sortedKeys.set(k, keys)
    }
    const prefix = namespace && def.namespaced ? `${namespace}/` : ''
    // '0' follows '/': every key of the namespace sorts before `${namespace}0`.
    const end = prefix ? lowerBound(keys, `${namespace}0`) : keys.length
    let i = lowerBound(keys, start > prefix ? start : prefix)
    const items: Obj[] = []
    let more = false
    for (; i < end; i++) {
      const o = bucket.get(keys[i] as string) as Obj
      if (!keep(o)) continue
      if (limit > 0 && items.length === limit) {
        more = true
        break
      }
      items.push(o)
    }
    return {items, more, remaining: end - i}
  }

  /** A resource this store serves, by any of the names resolveResource takes. */
  resolve(name: string): ResourceDef {
    const found = this.kinds.resolve(name)
    if (!found) throw new Error(`unknown resource ${name}`)
    return found
  }

  /** The resource of an object's apiVersion and kind, custom ones included. */
  defFor(obj: Obj): ResourceDef {
    const def = this.kinds.byObject(obj)
    if (!def) throw new Error(`unsupported object ${String(obj.apiVersion)} ${String(obj.kind)}`)
    return def
  }

  /** Writes an object as is (no validation, no defaulting) with a new resourceVersion. */
  write(def: ResourceDef, obj: Obj): Obj {
    const md = metaOf(obj)
    const key = keyFor(def, obj)
    const bucket = this.bucket(def)
    const previous = bucket.get(key)
    this.rv++
    md.resourceVersion = String(this.rv)
    obj.apiVersion = groupVersion(def)
    obj.kind = def.kind
    const stored = clone(obj)
    if (!previous) this.sortedKeys.delete(keyOf(def))
    bucket.set(key, stored)
    if (def.kind === 'CustomResourceDefinition' && def.group === 'apiextensions.k8s.io')
      this.kinds.define(stored)
    this.record({rv: this.rv, type: previous ? 'MODIFIED' : 'ADDED', def, object: clone(stored), previous})
    return clone(stored)
  }

  /** Removes an object; the DELETED change carries a new resourceVersion. */
  remove(def: ResourceDef, namespace: string | undefined, name: string): Obj | undefined {
    const key = objectKey(def.namespaced ? namespace : undefined, name)
    const bucket = this.bucket(def)
    const previous = bucket.get(key)
    if (!previous) return undefined
    if (def.kind === 'CustomResourceDefinition' && def.group === 'apiextensions.k8s.io') {
      // upstream: the CRD's cleanup finalizer deletes every custom resource of it first.
      for (const d of this.kinds.undefine(name)) {
        for (const o of this.list(d)) this.remove(d, str(metaOf(o).namespace), str(metaOf(o).name) ?? '')
      }
    }
    bucket.delete(key)
    this.sortedKeys.delete(keyOf(def))
    this.rv++
    const last = clone(previous)
    metaOf(last).resourceVersion = String(this.rv)
    this.record({rv: this.rv, type: 'DELETED', def, object: clone(last), previous})
    return last
  }

  private record(c: Change): void {
    this.history.push(c)
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit)
      this.compactedRV = (dropped[dropped.length - 1] as Change).rv
    }
    for (const l of this.listeners) l(c)
  }

  /** Changes after `rv`, or 'expired' when some of them are no longer retained. */
  since(rv: number): Change[] | 'expired' {
    if (rv < this.compactedRV) return 'expired'
    return this.history.filter((c) => c.rv > rv)
  }

  /** Forgets all history: any watch or continue token from before now gets 410 Gone. */
  compact(): void {
    this.history = []
    this.compactedRV = this.rv
  }

  /**
   * Creates or replaces an object with server bookkeeping (uid, creationTimestamp, generation,
   * resourceVersion) but without validation or defaulting. For seeding tests.
   */
  put(input: unknown): Obj {
    if (!isObj(input)) throw new Error('put: object expected')
    const obj = clone(input)
    const def = this.defFor(obj)
    const md = metaOf(obj)
    if (def.namespaced) md.namespace ??= 'default'
    else delete md.namespace
    const existing = this.get(def, str(md.namespace), str(md.name) ?? '')
    md.uid ??= existing && isObj(existing.metadata) ? existing.metadata.uid : randomUUID()
    md.creationTimestamp ??= rfc3339()
    if (def.generation !== 'none') md.generation ??= 1
    if (def.namespaced && !this.get(RESOURCES[0] as ResourceDef, undefined, str(md.namespace) as string)) {
      this.put({apiVersion: 'v1', kind: 'Namespace', metadata: {name: md.namespace}})
    }
    if (def.kind === 'Namespace') {
      child(md, 'labels')['kubernetes.io/metadata.name'] = str(md.name) ?? ''
      if (!isObj(obj.status)) obj.status = {phase: 'Active'}
      if (!isObj(obj.spec)) obj.spec = {finalizers: ['kubernetes']}
    }
    return this.write(def, obj)
  }
}

/** The built-in resource of an object's apiVersion and kind. */
export function defFor(obj: Obj): ResourceDef {
  const def = byObjectIn(BUILT_IN_KINDS, obj)
  if (!def) throw new Error(`unsupported object ${String(obj.apiVersion)} ${String(obj.kind)}`)
  return def
}

export function keyFor(def: ResourceDef, o: Obj): string {
  const md = isObj(o.metadata) ? o.metadata : {}
  return objectKey(def.namespaced ? str(md.namespace) : undefined, str(md.name) ?? '')
}

/** The first index of the sorted `keys` whose key is not below `key`. */
function lowerBound(keys: string[], key: string): number {
  let lo = 0
  let hi = keys.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((keys[mid] as string) < key) lo = mid + 1
    else hi = mid
  }
  return lo
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
