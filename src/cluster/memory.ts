// An in-memory API server for one pass, in the spirit of client-go's fake clientset: an object store
// built from a World, listers over an immutable snapshot of the initial world (upstream's informer
// caches do not see the pass's own writes), and a Client that records every call as an Action.
//
// Everything is indexed once so that a pass over thousands of Deployments stays linear: ReplicaSets
// by namespace in input order, pods by controllerRef UID, every object by namespace/name.

import {
  newAlreadyExists,
  newConflict,
  newNotFound,
  type StatusCause,
  StatusError,
} from '../controller/api/errors.js'
import type {
  Deployment,
  KubeObject,
  LabelSelector,
  ObjectMeta,
  OwnerReference,
  Pod,
  ReplicaSet,
} from '../controller/api/types.js'
import type {Client, Listers, PatchType} from '../controller/interfaces.js'
import {formatTime} from '../util/duration.js'
import type {Action, ActionResource} from './action.js'
import {hexDigest} from './digest.js'
import {deepCopy, deepEqual, deepFreeze, isPlainObject, type JsonObject} from './json.js'
import {LabelIndex, mergeByPosition} from './label-index.js'
import type {SourceRef, World} from './world.js'

export type Resource = ActionResource

/** The API group-qualified resource names used in API error messages. */
export const QUALIFIED: Record<Resource, string> = {
  deployments: 'deployments.apps',
  replicasets: 'replicasets.apps',
  pods: 'pods',
}

export const KIND: Record<Resource, {apiVersion: string; kind: string}> = {
  deployments: {apiVersion: 'apps/v1', kind: 'Deployment'},
  replicasets: {apiVersion: 'apps/v1', kind: 'ReplicaSet'},
  pods: {apiVersion: 'v1', kind: 'Pod'},
}

const RESOURCES: readonly Resource[] = ['deployments', 'replicasets', 'pods']

export const DEFAULT_NAMESPACE = 'default'

export const namespaceOf = (o: KubeObject): string => o.metadata.namespace ?? DEFAULT_NAMESPACE
const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`
const objKey = (o: KubeObject): string => keyOf(namespaceOf(o), o.metadata.name ?? '')

export function controllerRefOf(o: KubeObject): OwnerReference | undefined {
  return o.metadata.ownerReferences?.find((r) => r.controller === true)
}

/** A UID derived from the object's identity, so that reruns of a pass print the same output. */
export function deterministicUid(resource: Resource, namespace: string, name: string): string {
  const h = hexDigest('sha256', `${resource}/${namespace}/${name}`)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

/** RFC 3339 with whole seconds, as metav1.Time serializes. */

export interface StoreOptions {
  /** The pass's clock: creationTimestamp of created objects. */
  now: () => number
  /**
   * Enforce optimistic concurrency like a real API server: writes bump metadata.resourceVersion and
   * an update whose resourceVersion is stale fails with Conflict. Off by default, as upstream's fake
   * clientset does not check it (and the controller's redundant status writes rely on that).
   */
  checkResourceVersion?: boolean
  /**
   * Objects that exist but were not given: a by-name read or write of a name the store does not
   * hold (and did not delete) looks here once and takes the object in, as if it had been given.
   * It makes a store built from part of a namespace answer every by-name call as one built from
   * all of it; its listers, objects() and world() hold only what was given.
   */
  lookup?: Partial<Record<Resource, (namespace: string, name: string) => KubeObject | undefined>>
}

function pushTo<K, T>(map: Map<K, T[]>, key: K, value: T): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

/** Read-only views of the world as it was before the pass (informer caches). */
export class SnapshotListers implements Listers {
  private readonly deployments = new Map<string, Deployment>()
  private readonly rsByNamespace = new Map<string, ReplicaSet[]>()
  private readonly rsByKey = new Map<string, ReplicaSet>()
  private readonly podsByOwner = new Map<string, Pod[]>()
  // For claimableReplicaSets: input positions, ReplicaSets by namespace and controller UID, and
  // each namespace's orphans by label.
  private readonly rsPosition = new Map<ReplicaSet, number>()
  private readonly rsByController = new Map<string, ReplicaSet[]>()
  private readonly orphansByNamespace = new Map<string, LabelIndex<ReplicaSet>>()

  constructor(deployments: readonly Deployment[], replicaSets: readonly ReplicaSet[], pods: readonly Pod[]) {
    for (const d of deployments) this.deployments.set(objKey(d), d)
    for (const [i, rs] of replicaSets.entries()) {
      const namespace = namespaceOf(rs)
      this.rsByKey.set(objKey(rs), rs)
      pushTo(this.rsByNamespace, namespace, rs)
      this.rsPosition.set(rs, i)
      const ref = controllerRefOf(rs)
      if (ref) pushTo(this.rsByController, keyOf(namespace, ref.uid ?? ''), rs)
      else {
        let orphans = this.orphansByNamespace.get(namespace)
        if (!orphans) this.orphansByNamespace.set(namespace, (orphans = new LabelIndex()))
        orphans.add(rs)
      }
    }
    for (const pod of pods) {
      const uid = controllerRefOf(pod)?.uid
      if (!uid) continue
      pushTo(this.podsByOwner, uid, pod)
    }
  }

  getDeployment(namespace: string, name: string): Deployment | undefined {
    return this.deployments.get(keyOf(namespace, name))
  }

  // Fresh arrays each time: upstream's lister List returns a new slice that callers sort in place.
  listReplicaSets(namespace: string): ReplicaSet[] {
    return [...(this.rsByNamespace.get(namespace) ?? [])]
  }

  /** The namespace's ReplicaSets without a copy, the same array on every call: for readers that never change it. */
  replicaSetsIn(namespace: string): readonly ReplicaSet[] {
    let list = this.rsByNamespace.get(namespace)
    if (!list) {
      list = []
      this.rsByNamespace.set(namespace, list)
    }
    return list
  }

  claimableReplicaSets(
    namespace: string,
    ownerUid: string,
    selector: LabelSelector | undefined,
  ): ReplicaSet[] {
    return mergeByPosition(
      [
        this.rsByController.get(keyOf(namespace, ownerUid)) ?? [],
        this.orphansByNamespace.get(namespace)?.candidates(selector) ?? [],
      ],
      (rs) => this.rsPosition.get(rs) ?? 0,
    )
  }

  getReplicaSet(namespace: string, name: string): ReplicaSet | undefined {
    return this.rsByKey.get(keyOf(namespace, name))
  }

  podsByControllerUID(uid: string): Pod[] {
    return [...(this.podsByOwner.get(uid) ?? [])]
  }
}

/**
 * The snapshot is frozen under the test runner, so a controller bug that mutates a lister's object
 * throws there instead of silently corrupting the "before" of every diff. The CLI skips it: freezing
 * every object of a large snapshot costs more than the pass itself.
 */
const FREEZE_SNAPSHOT = process.env.VITEST !== undefined || process.env.DEPLOYCTL_FREEZE === '1'
function freezeInTests<T>(obj: T): T {
  return FREEZE_SNAPSHOT ? deepFreeze(obj) : obj
}

/** Any stored object, seen without its kind's spec and status types. */
type Loose = {metadata: ObjectMeta; spec?: unknown; status?: unknown}

interface Slot {
  resource: Resource
  key: string
}

interface InputEntry extends Slot {
  obj: KubeObject
  src: SourceRef | undefined
}

/**
 * The objects of one pass. The snapshot (the World's objects, frozen: the store takes them over)
 * backs the listers and is the "before" of every diff; writes replace entries with fresh copies and
 * never mutate a stored object, so the snapshot and the current state share unchanged objects.
 */
export class MemoryStore {
  readonly listers: SnapshotListers
  private readonly initialObjects: Record<Resource, Map<string, KubeObject>>
  private readonly current: Record<Resource, Map<string, KubeObject>>
  /** Every input object, as the per-kind lists hold them: ordered across kinds only when asked. */
  private readonly inputs: InputEntry[]
  /** Every input object in input order (across kinds and files), and their sources: by after() only. */
  private inputOrder: {order: Slot[]; sources: Map<string, SourceRef>} | undefined
  private readonly created: Slot[] = []
  private readonly createdIds = new Set<string>()
  /** `resource:namespace/name` of the names options.lookup was asked about. */
  private readonly lookedUp = new Set<string>()
  private resourceVersion = 0

  constructor(
    world: World,
    private readonly options: StoreOptions,
  ) {
    // The world's objects are taken over and frozen in place, not copied: copying a snapshot of
    // thousands of Deployments cost more than the pass itself.
    const originals: Record<Resource, readonly KubeObject[]> = {
      deployments: world.deployments,
      replicasets: world.replicaSets,
      pods: world.pods,
    }
    const entries: InputEntry[] = []
    const stored: Record<Resource, KubeObject[]> = {deployments: [], replicasets: [], pods: []}
    this.initialObjects = {deployments: new Map(), replicasets: new Map(), pods: new Map()}
    for (const resource of RESOURCES) {
      for (const original of originals[resource]) {
        const obj = freezeInTests(
          original.metadata.namespace === undefined
            ? {...original, metadata: {...original.metadata, namespace: DEFAULT_NAMESPACE}}
            : original,
        )
        const key = objKey(obj)
        this.initialObjects[resource].set(key, obj)
        stored[resource].push(obj)
        entries.push({resource, key, obj, src: world.sources.get(original)})
        const rv = Number.parseInt(obj.metadata.resourceVersion ?? '', 10)
        if (Number.isSafeInteger(rv) && rv > this.resourceVersion) this.resourceVersion = rv
      }
    }
    this.listers = new SnapshotListers(
      stored.deployments as Deployment[],
      stored.replicasets as ReplicaSet[],
      stored.pods as Pod[],
    )
    this.current = {
      deployments: new Map(this.initialObjects.deployments),
      replicasets: new Map(this.initialObjects.replicasets),
      pods: new Map(this.initialObjects.pods),
    }
    // The order across kinds (a sort of every object by its source) is only for after(): a command
    // that prints the pass's result, not the world after it, never needs it.
    this.inputs = entries
  }

  /** The input order across kinds and the input objects' sources, computed on first use. */
  private input(): {order: Slot[]; sources: Map<string, SourceRef>} {
    if (this.inputOrder) return this.inputOrder
    const sources = new Map<string, SourceRef>()
    for (const e of this.inputs) if (e.src) sources.set(`${e.resource}:${e.key}`, e.src)
    this.inputOrder = {order: inputOrder(this.inputs), sources}
    return this.inputOrder
  }

  /** The object as it was before the pass (frozen; do not mutate). */
  initial(resource: Resource, namespace: string, name: string): KubeObject | undefined {
    this.lookUp(resource, namespace, name)
    return this.initialObjects[resource].get(keyOf(namespace, name))
  }

  /** The stored object now (frozen or owned by the store; do not mutate). */
  peek(resource: Resource, namespace: string, name: string): KubeObject | undefined {
    this.lookUp(resource, namespace, name)
    return this.current[resource].get(keyOf(namespace, name))
  }

  /**
   * options.lookup, once per name the store was not given: what it finds becomes part of the
   * initial objects (so a later delete is not undone by looking again).
   */
  private lookUp(resource: Resource, namespace: string, name: string): void {
    const lookup = this.options.lookup?.[resource]
    if (!lookup) return
    const key = keyOf(namespace, name)
    if (this.initialObjects[resource].has(key)) return
    const id = `${resource}:${key}`
    if (this.lookedUp.has(id)) return
    this.lookedUp.add(id)
    const found = lookup(namespace, name)
    if (!found || this.current[resource].has(key)) return
    const obj = freezeInTests(
      found.metadata.namespace === undefined
        ? {...found, metadata: {...found.metadata, namespace: DEFAULT_NAMESPACE}}
        : found,
    )
    this.initialObjects[resource].set(key, obj)
    this.current[resource].set(key, obj)
  }

  get(resource: Resource, namespace: string, name: string): KubeObject {
    return deepCopy(this.mustGet(resource, namespace, name))
  }

  create(resource: Resource, sent: KubeObject): KubeObject {
    const obj = deepCopy(sent)
    const namespace = namespaceOf(obj)
    const name = obj.metadata.name ?? ''
    const key = keyOf(namespace, name)
    this.lookUp(resource, namespace, name)
    if (this.current[resource].has(key)) throw newAlreadyExists(QUALIFIED[resource], name)
    obj.metadata.namespace = namespace
    obj.metadata.uid ||= deterministicUid(resource, namespace, name)
    obj.metadata.creationTimestamp ||= formatTime(this.options.now())
    if (resource !== 'pods') obj.metadata.generation = 1
    this.bumpResourceVersion(obj)
    this.current[resource].set(key, obj)
    if (!this.initialObjects[resource].has(key) && !this.createdIds.has(`${resource}:${key}`)) {
      this.createdIds.add(`${resource}:${key}`)
      this.created.push({resource, key})
    }
    return deepCopy(obj)
  }

  /**
   * Update of the main resource, with the API server's strategy: status stays as stored and
   * metadata.generation is bumped when the spec changed (for Deployments also when the annotations
   * changed: apps/v1's strategy counts them, because the rollback annotation lives there).
   */
  update(resource: Resource, sent: KubeObject): KubeObject {
    const old = this.mustGet(resource, namespaceOf(sent), sent.metadata.name ?? '')
    this.checkPreconditions(resource, old, sent)
    const obj = deepCopy(sent) as Loose
    obj.metadata.namespace = namespaceOf(old)
    obj.metadata.uid = old.metadata.uid
    obj.metadata.creationTimestamp = old.metadata.creationTimestamp
    const oldStatus = (old as Loose).status
    if (oldStatus === undefined) delete obj.status
    else obj.status = deepCopy(oldStatus)
    if (resource !== 'pods') {
      const specChanged = !deepEqual((old as Loose).spec, obj.spec)
      const annotationsChanged =
        resource === 'deployments' &&
        !deepEqual(old.metadata.annotations ?? {}, obj.metadata.annotations ?? {})
      obj.metadata.generation = (old.metadata.generation ?? 0) + (specChanged || annotationsChanged ? 1 : 0)
    }
    return this.replace(resource, obj as KubeObject)
  }

  /**
   * Update of the status subresource. Stores the sent status and metadata.annotations (the apps/v1
   * status strategy keeps annotation changes: the controller writes the revision annotation here).
   */
  updateStatus(resource: Resource, sent: KubeObject): KubeObject {
    const old = this.mustGet(resource, namespaceOf(sent), sent.metadata.name ?? '')
    this.checkPreconditions(resource, old, sent)
    const obj = deepCopy(old) as Loose
    const status = (sent as Loose).status
    if (status === undefined) delete obj.status
    else obj.status = deepCopy(status)
    if (sent.metadata.annotations === undefined) delete obj.metadata.annotations
    else obj.metadata.annotations = deepCopy(sent.metadata.annotations)
    return this.replace(resource, obj as KubeObject)
  }

  patch(resource: Resource, namespace: string, name: string, type: PatchType, patch: unknown): KubeObject {
    const old = this.mustGet(resource, namespace, name)
    if (!isPlainObject(patch)) {
      throw new StatusError('BadRequest', 400, `invalid patch body for ${QUALIFIED[resource]} "${name}"`)
    }
    const meta = isPlainObject(patch.metadata) ? patch.metadata : undefined
    if (meta && typeof meta.uid === 'string' && meta.uid !== old.metadata.uid) {
      throw invalid(resource, old, 'metadata.uid', meta.uid, 'field is immutable')
    }
    if (
      this.options.checkResourceVersion &&
      meta &&
      typeof meta.resourceVersion === 'string' &&
      meta.resourceVersion !== old.metadata.resourceVersion
    ) {
      throw modified(resource, name)
    }
    const merged = (type === 'merge' ? mergePatch(old, patch) : strategicMergePatch(old, patch, [])) as Loose
    merged.metadata.uid = old.metadata.uid
    merged.metadata.name = old.metadata.name
    merged.metadata.namespace = namespaceOf(old)
    const controllers = (merged.metadata.ownerReferences ?? []).filter((r) => r.controller === true)
    if (controllers.length > 1) {
      const refs = controllers.map((r) => `${r.kind}/${r.name}`).join(', ')
      throw invalid(
        resource,
        old,
        'metadata.ownerReferences',
        refs,
        `Only one reference can have Controller set to true. Found "true" in references for ${refs}`,
      )
    }
    if (resource !== 'pods' && !deepEqual((old as Loose).spec, merged.spec)) {
      merged.metadata.generation = (old.metadata.generation ?? 0) + 1
    }
    return this.replace(resource, merged as KubeObject)
  }

  delete(resource: Resource, namespace: string, name: string): void {
    this.mustGet(resource, namespace, name)
    this.current[resource].delete(keyOf(namespace, name))
  }

  /**
   * The world after the pass, as one list: every input object in input order, written ones
   * replaced, deleted ones removed, and created ones placed after the last ReplicaSet (or else the
   * Deployment itself) of their owner Deployment; objects with no such owner come last.
   */
  objects(): KubeObject[] {
    return this.after().objects
  }

  /** The world after the pass (same order as objects()), keeping the input objects' sources. */
  world(): World {
    return this.after().world
  }

  /** Both views of the world after the pass, ordered once. */
  after(): {world: World; objects: KubeObject[]} {
    const world: World = {deployments: [], replicaSets: [], pods: [], sources: new WeakMap()}
    const objects: KubeObject[] = []
    const {sources} = this.input()
    for (const {resource, obj} of this.ordered()) {
      if (resource === 'deployments') world.deployments.push(obj as Deployment)
      else if (resource === 'replicasets') world.replicaSets.push(obj as ReplicaSet)
      else world.pods.push(obj as Pod)
      const src = sources.get(`${resource}:${objKey(obj)}`)
      if (src) world.sources.set(obj, src)
      objects.push(obj.apiVersion && obj.kind ? obj : ({...KIND[resource], ...obj} as KubeObject))
    }
    return {world, objects}
  }

  private ordered(): Array<{resource: Resource; obj: KubeObject}> {
    type Entry = {resource: Resource; obj: KubeObject}
    const out: Entry[] = []
    const anchorByOwner = new Map<string, number>()
    for (const {resource, key} of this.input().order) {
      const obj = this.current[resource].get(key)
      if (!obj) continue
      out.push({resource, obj})
      if (resource === 'deployments' && obj.metadata.uid) anchorByOwner.set(obj.metadata.uid, out.length - 1)
      const ref = resource === 'replicasets' ? controllerRefOf(obj) : undefined
      if (ref?.kind === 'Deployment' && anchorByOwner.has(ref.uid)) anchorByOwner.set(ref.uid, out.length - 1)
    }
    const after = new Map<number, Entry[]>()
    const trailing: Entry[] = []
    for (const {resource, key} of this.created) {
      const obj = this.current[resource].get(key)
      if (!obj) continue
      const ref = controllerRefOf(obj)
      const anchor = ref?.kind === 'Deployment' ? anchorByOwner.get(ref.uid) : undefined
      if (anchor === undefined) trailing.push({resource, obj})
      else pushTo(after, anchor, {resource, obj})
    }
    if (after.size === 0) return trailing.length === 0 ? out : [...out, ...trailing]
    const merged: Entry[] = []
    for (let i = 0; i < out.length; i++) {
      merged.push(out[i] as Entry)
      const extra = after.get(i)
      if (extra) merged.push(...extra)
    }
    merged.push(...trailing)
    return merged
  }

  private mustGet(resource: Resource, namespace: string, name: string): KubeObject {
    this.lookUp(resource, namespace, name)
    const obj = this.current[resource].get(keyOf(namespace, name))
    if (!obj) throw newNotFound(QUALIFIED[resource], name)
    return obj
  }

  private checkPreconditions(resource: Resource, old: KubeObject, sent: KubeObject): void {
    const name = old.metadata.name ?? ''
    if (sent.metadata.uid && sent.metadata.uid !== old.metadata.uid) {
      throw newConflict(
        QUALIFIED[resource],
        name,
        `Precondition failed: UID in precondition: ${sent.metadata.uid}, UID in object meta: ${old.metadata.uid ?? ''}`,
      )
    }
    if (
      this.options.checkResourceVersion &&
      sent.metadata.resourceVersion &&
      sent.metadata.resourceVersion !== old.metadata.resourceVersion
    ) {
      throw modified(resource, name)
    }
  }

  private bumpResourceVersion(obj: KubeObject): void {
    if (this.options.checkResourceVersion) obj.metadata.resourceVersion = String(++this.resourceVersion)
  }

  private replace(resource: Resource, obj: KubeObject): KubeObject {
    this.bumpResourceVersion(obj)
    this.current[resource].set(objKey(obj), obj)
    return deepCopy(obj)
  }
}

function modified(resource: Resource, name: string): StatusError {
  return newConflict(
    QUALIFIED[resource],
    name,
    'the object has been modified; please apply your changes to the latest version and try again',
  )
}

function invalid(resource: Resource, obj: KubeObject, field: string, value: string, detail: string) {
  const kind = `${KIND[resource].kind}${resource === 'pods' ? '' : '.apps'}`
  const message = `${field}: Invalid value: "${value}": ${detail}`
  const cause: StatusCause = {type: 'FieldValueInvalid', field, message}
  return new StatusError('Invalid', 422, `${kind} "${obj.metadata.name ?? ''}" is invalid: ${message}`, [
    cause,
  ])
}

/**
 * Lists whose items strategic merge matches by a key instead of replacing the whole list (the
 * patchMergeKey tags of the API types). Only what the controller patches is needed today.
 */
const MERGE_KEYS: Record<string, string> = {
  'metadata.ownerReferences': 'uid',
  'metadata.finalizers': '',
}

/**
 * Strategic merge patch (the subset the API server applies to the controller's patches): maps merge
 * recursively, null deletes a key, lists with a merge key merge item by item (`$patch: delete`
 * removes the item with that key), other lists are replaced.
 */
export function strategicMergePatch(target: unknown, patch: unknown, path: string[]): unknown {
  if (!isPlainObject(patch)) return deepCopy(patch)
  if (patch.$patch === 'replace') {
    const {$patch: _, ...rest} = patch
    return deepCopy(rest)
  }
  if (patch.$patch === 'delete') return undefined
  const out: JsonObject = isPlainObject(target) ? {...target} : {}
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$')) continue // $setElementOrder/... and other directives: order only
    const here = [...path, k]
    if (v === null) {
      delete out[k]
      continue
    }
    const mergeKey = MERGE_KEYS[here.join('.')]
    if (Array.isArray(v) && mergeKey !== undefined) {
      out[k] = mergeList(Array.isArray(out[k]) ? (out[k] as unknown[]) : [], v, mergeKey)
    } else if (isPlainObject(v)) {
      const merged = strategicMergePatch(out[k], v, here)
      if (merged === undefined) delete out[k]
      else out[k] = merged
    } else {
      out[k] = deepCopy(v)
    }
  }
  return out
}

function mergeList(current: unknown[], patch: unknown[], mergeKey: string): unknown[] {
  if (mergeKey === '') {
    // A set of primitives: union, in order.
    const out = [...current]
    for (const v of patch) if (!out.some((x) => deepEqual(x, v))) out.push(deepCopy(v))
    return out
  }
  let out = current.map((x) => deepCopy(x))
  for (const item of patch) {
    if (!isPlainObject(item)) continue
    const key = item[mergeKey]
    const i = out.findIndex((x) => isPlainObject(x) && x[mergeKey] === key)
    if (item.$patch === 'delete') {
      out = out.filter((x) => !(isPlainObject(x) && x[mergeKey] === key))
    } else if (i >= 0) {
      out[i] = strategicMergePatch(out[i], item, [])
    } else {
      const {$patch: _, ...rest} = item
      out.push(deepCopy(rest))
    }
  }
  return out
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return deepCopy(patch)
  const out: JsonObject = isPlainObject(target) ? {...target} : {}
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k]
    else out[k] = mergePatch(out[k], v)
  }
  return out
}

/**
 * Input order across kinds. The World keeps one list per kind, each in input order; the sources
 * (file, line, document index) interleave them again. Files are ordered by the order the per-kind
 * lists meet them in (a topological merge); objects without a source keep their kind's order.
 */
function inputOrder(entries: readonly InputEntry[]): Slot[] {
  const fileRank = rankFiles(
    RESOURCES.map((r) => entries.filter((e) => e.resource === r).map((e) => e.src?.file)),
  )
  const last = Number.MAX_SAFE_INTEGER
  const ranked = entries.map((e, i) => ({
    e,
    i,
    file: e.src ? (fileRank.get(e.src.file) ?? last) : last,
    line: e.src?.line ?? 0,
    index: e.src?.index ?? 0,
  }))
  ranked.sort((a, b) => a.file - b.file || a.line - b.line || a.index - b.index || a.i - b.i)
  const seen = new Set<string>()
  const order: Slot[] = []
  for (const {e} of ranked) {
    const id = `${e.resource}:${e.key}`
    if (seen.has(id)) continue
    seen.add(id)
    order.push({resource: e.resource, key: e.key})
  }
  return order
}

/** Orders files so that each per-kind sequence of files stays in order (Kahn's algorithm). */
function rankFiles(sequences: Array<Array<string | undefined>>): Map<string, number> {
  const firstSeen: string[] = []
  const edges = new Map<string, Set<string>>()
  const indegree = new Map<string, number>()
  for (const seq of sequences) {
    let prev: string | undefined
    for (const f of seq) {
      if (f === undefined || f === prev) continue
      if (!indegree.has(f)) {
        indegree.set(f, 0)
        edges.set(f, new Set())
        firstSeen.push(f)
      }
      if (prev !== undefined && !edges.get(prev)?.has(f)) {
        edges.get(prev)?.add(f)
        indegree.set(f, (indegree.get(f) ?? 0) + 1)
      }
      prev = f
    }
  }
  const rank = new Map<string, number>()
  const pending = [...firstSeen]
  while (pending.length > 0) {
    // The first file (in first-seen order) with no unranked predecessor; on a cycle, the first one.
    const i = Math.max(
      0,
      pending.findIndex((f) => (indegree.get(f) ?? 0) === 0),
    )
    const [f] = pending.splice(i, 1) as [string]
    rank.set(f, rank.size)
    for (const next of edges.get(f) ?? []) indegree.set(next, (indegree.get(next) ?? 0) - 1)
  }
  return rank
}

/**
 * The Client of a pass: each call is recorded as an Action (in order, reads included) and then
 * applied to the shared store. Like the fake clientset, the call is recorded even when it fails.
 */
export class RecordingClient implements Client {
  readonly actions: Action[] = []

  constructor(private readonly store: MemoryStore) {}

  async getDeployment(namespace: string, name: string): Promise<Deployment> {
    this.actions.push({verb: 'get', resource: 'deployments', namespace, name})
    return this.store.get('deployments', namespace, name) as Deployment
  }

  async updateDeployment(d: Deployment): Promise<Deployment> {
    this.record('update', 'deployments', d)
    return this.store.update('deployments', d) as Deployment
  }

  async updateDeploymentStatus(d: Deployment): Promise<Deployment> {
    this.record('update', 'deployments', d, 'status')
    return this.store.updateStatus('deployments', d) as Deployment
  }

  async createReplicaSet(rs: ReplicaSet): Promise<ReplicaSet> {
    this.record('create', 'replicasets', rs)
    return this.store.create('replicasets', rs) as ReplicaSet
  }

  async updateReplicaSet(rs: ReplicaSet): Promise<ReplicaSet> {
    this.record('update', 'replicasets', rs)
    return this.store.update('replicasets', rs) as ReplicaSet
  }

  async patchReplicaSet(
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
  ): Promise<ReplicaSet> {
    this.actions.push({
      verb: 'patch',
      resource: 'replicasets',
      namespace,
      name,
      patch: deepCopy(patch),
      patchType: type,
    })
    return this.store.patch('replicasets', namespace, name, type, patch) as ReplicaSet
  }

  async deleteReplicaSet(rs: ReplicaSet): Promise<void> {
    const namespace = namespaceOf(rs)
    const name = rs.metadata.name ?? ''
    this.actions.push({verb: 'delete', resource: 'replicasets', namespace, name})
    this.store.delete('replicasets', namespace, name)
  }

  private record(verb: 'create' | 'update', resource: Resource, obj: KubeObject, subresource?: 'status') {
    this.actions.push({
      verb,
      resource,
      ...(subresource ? {subresource} : {}),
      namespace: namespaceOf(obj),
      name: obj.metadata.name ?? '',
      object: deepCopy(obj),
    })
  }
}
