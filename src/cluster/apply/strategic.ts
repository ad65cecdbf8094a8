// Strategic merge patch as apimachinery has it (pkg/util/strategicpatch): creating a two-way or
// three-way patch (what `kubectl apply` sends) and applying one (what the API server does with it).
// Lists are merged by the patch-merge key their field's schema names, maps recursively; the
// directives are `$patch: delete|replace|merge`, `$setElementOrder/<list>`,
// `$deleteFromPrimitiveList/<list>` and `$retainKeys`.

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The patch metadata of one field: its Go tags `patchStrategy` and `patchMergeKey`. */
export interface PatchMeta {
  /** `merge`: a list merged by mergeKey (or a set of scalars); `replace`: a map or list replaced whole. */
  strategy?: 'merge' | 'replace'
  /** `retainKeys`: the fields of the value missing from the patch are cleared. */
  retainKeys?: boolean
  mergeKey?: string
  /** The schema of the value: a map's fields, or a list's elements. */
  schema?: Schema
}

/** A struct's fields; `values` for a map whose every key has the same type. */
export interface Schema {
  fields?: Record<string, PatchMeta>
  values?: PatchMeta
}

/** Fields outside the schema are plain: maps merge recursively, lists are replaced. */
function metaOf(schema: Schema | undefined, key: string): PatchMeta {
  return schema?.fields?.[key] ?? schema?.values ?? {}
}

export class StrategicMergeError extends Error {}

const DIRECTIVE = '$patch'
const RETAIN_KEYS = '$retainKeys'
const DELETE_FROM_PRIMITIVE = '$deleteFromPrimitiveList/'
const SET_ORDER = '$setElementOrder/'

interface DiffOptions {
  setElementOrder?: boolean
  ignoreChangesAndAdditions?: boolean
  ignoreDeletions?: boolean
  buildRetainKeys?: boolean
}

interface MergeOptions {
  /** Apply $deleteFromPrimitiveList and $setElementOrder (server side) rather than carry them (merging two patches). */
  mergeParallelList?: boolean
  ignoreUnmatchedNulls?: boolean
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T)
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
  }
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a)
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]))
  }
  return false
}

/** Go's reflect.TypeOf of a decoded JSON value. */
function kindOf(v: unknown): string {
  if (v === null || v === undefined) return 'nil'
  if (Array.isArray(v)) return 'slice'
  return isObj(v) ? 'map' : typeof v
}

/** fmt.Sprintf("%v") of a scalar, as upstream sorts and compares merge keys. */
function show(v: unknown): string {
  if (v === null || v === undefined) return '<nil>'
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v)
}

const byString = (a: unknown, b: unknown): number => {
  const x = show(a)
  const y = show(b)
  return x < y ? -1 : x > y ? 1 : 0
}

function sortScalars(s: unknown[]): unknown[] {
  return [...s].sort(byString)
}

/** upstream: deduplicateScalars — the last element takes a duplicate's place. */
function deduplicateScalars(list: unknown[]): unknown[] {
  const s = [...list]
  let length = s.length - 1
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (s[i] === s[j]) {
        s[j] = s[length]
        s.length = length
        length--
        j--
      }
    }
  }
  return s
}

function elementKind(...lists: unknown[][]): string | undefined {
  let kind: string | undefined
  for (const l of lists) {
    for (const v of l) {
      const k = kindOf(v)
      if (k === 'slice') throw new StrategicMergeError('lists of lists are not supported')
      if (kind === undefined) kind = k
      else if (kind !== k) throw new StrategicMergeError('list element types are not identical')
    }
  }
  return kind
}

function keyOf(item: unknown, mergeKey: string): unknown {
  if (!isObj(item)) throw new StrategicMergeError(`a merging list element is not a map: ${show(item)}`)
  if (!(mergeKey in item)) {
    throw new StrategicMergeError(
      `map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`,
    )
  }
  return item[mergeKey]
}

// ---------------------------------------------------------------------------------------------
// Creating patches

/** upstream: diffMaps — the patch that takes original to modified, within the options. */
function diffMaps(original: Obj, modified: Obj, schema: Schema | undefined, o: DiffOptions): Obj {
  const patch: Obj = {}
  const retain: string[] = []
  for (const [key, mv] of Object.entries(modified)) {
    if (o.buildRetainKeys && mv !== null) retain.push(key)
    if (!(key in original)) {
      if (!o.ignoreChangesAndAdditions) patch[key] = mv
      continue
    }
    const ov = original[key]
    if (key === DIRECTIVE) {
      if (typeof ov !== 'string' || typeof mv !== 'string') {
        throw new StrategicMergeError(`invalid value for special key: ${DIRECTIVE}`)
      }
      if (ov !== mv) patch[key] = mv
      continue
    }
    if (kindOf(ov) !== kindOf(mv)) {
      if (!o.ignoreChangesAndAdditions) patch[key] = mv
      continue
    }
    if (isObj(ov) && isObj(mv)) {
      const meta = metaOf(schema, key)
      if (meta.strategy === 'replace') {
        if (!o.ignoreChangesAndAdditions) patch[key] = mv
      } else {
        const pv = diffMaps(ov, mv, meta.schema, {...o, buildRetainKeys: meta.retainKeys === true})
        if (Object.keys(pv).length > 0) patch[key] = pv
      }
    } else if (Array.isArray(ov) && Array.isArray(mv)) {
      const meta = metaOf(schema, key)
      if (meta.strategy === 'merge') {
        const [add, del, order] = diffLists(ov, mv, meta.schema, meta.mergeKey ?? '', {
          ...o,
          buildRetainKeys: meta.retainKeys === true,
        })
        if (add.length > 0) patch[key] = add
        if (del.length > 0) patch[DELETE_FROM_PRIMITIVE + key] = del
        if (order.length > 0) patch[SET_ORDER + key] = order
      } else if (!o.ignoreChangesAndAdditions && !deepEqual(ov, mv)) {
        patch[key] = mv
      }
    } else if (!o.ignoreChangesAndAdditions && !deepEqual(ov, mv)) {
      patch[key] = mv
    }
  }
  if (!o.ignoreDeletions) {
    for (const key of Object.keys(original)) if (!(key in modified)) patch[key] = null
  }
  const additional = Object.entries(original).some(([k, v]) => v !== null && !(k in modified))
  if (retain.length > 0 && (Object.keys(patch).length > 0 || additional))
    patch[RETAIN_KEYS] = sortScalars(retain)
  return patch
}

/** upstream: diffLists — the additions and changes, the scalars deleted, and the $setElementOrder list. */
function diffLists(
  original: unknown[],
  modified: unknown[],
  schema: Schema | undefined,
  mergeKey: string,
  o: DiffOptions,
): [unknown[], unknown[], unknown[]] {
  if (original.length === 0) {
    if (modified.length === 0 || o.ignoreChangesAndAdditions) return [[], [], []]
    return [modified, [], []]
  }
  const kind = elementKind(original, modified)
  if (kind === 'map') {
    const [changes, deletions] = diffListsOfMaps(original, modified, schema, mergeKey, o)
    const patchList = [...normalizeSliceOrder(changes, modified, mergeKey, kind), ...deletions]
    const orderSame =
      original.length === modified.length &&
      modified.every((m, i) => keyOf(original[i], mergeKey) === keyOf(m, mergeKey))
    let order: unknown[] = []
    if (
      o.setElementOrder &&
      ((!o.ignoreChangesAndAdditions && (patchList.length > 0 || !orderSame)) ||
        (!o.ignoreDeletions && patchList.length > 0))
    ) {
      order = modified.map((m) => ({[mergeKey]: keyOf(m, mergeKey)}))
    }
    return [patchList, [], order]
  }
  const [added, deleted] = diffListsOfScalars(original, modified, o)
  const patchList = normalizeSliceOrder(added, modified, mergeKey, kind ?? 'nil')
  const order =
    o.setElementOrder &&
    ((!o.ignoreDeletions && deleted.length > 0) ||
      (!o.ignoreChangesAndAdditions && !deepEqual(original, modified)))
      ? modified
      : []
  return [patchList, deleted, order]
}

function diffListsOfScalars(
  original: unknown[],
  modified: unknown[],
  o: DiffOptions,
): [unknown[], unknown[]] {
  const os = sortScalars(original)
  const ms = sortScalars(modified)
  const added: unknown[] = []
  const deleted: unknown[] = []
  let i = 0
  let j = 0
  while (i < os.length || j < ms.length) {
    const a = i < os.length ? show(os[i]) : undefined
    const b = j < ms.length ? show(ms[j]) : undefined
    if (a !== undefined && b !== undefined && a === b) {
      i++
      j++
    } else if (a === undefined || (b !== undefined && a > b)) {
      if (!o.ignoreChangesAndAdditions) added.push(ms[j])
      j++
    } else {
      if (!o.ignoreDeletions) deleted.push(os[i])
      i++
    }
  }
  return [added, deduplicateScalars(deleted)]
}

function diffListsOfMaps(
  original: unknown[],
  modified: unknown[],
  schema: Schema | undefined,
  mergeKey: string,
  o: DiffOptions,
): [unknown[], unknown[]] {
  const sortByKey = (l: unknown[]) =>
    [...l].sort((x, y) => byString(keyOf(x, mergeKey), keyOf(y, mergeKey))) as Obj[]
  const os = sortByKey(original)
  const ms = sortByKey(modified)
  const patch: unknown[] = []
  const deletions: unknown[] = []
  let i = 0
  let j = 0
  while (i < os.length || j < ms.length) {
    const oe = os[i]
    const me = ms[j]
    const a = oe ? show(oe[mergeKey]) : undefined
    const b = me ? show(me[mergeKey]) : undefined
    if (oe && me && a === b) {
      const pv = diffMaps(oe, me, schema, o)
      if (Object.keys(pv).length > 0) {
        pv[mergeKey] = me[mergeKey]
        patch.push(pv)
      }
      i++
      j++
    } else if (me && (a === undefined || (b !== undefined && a > b))) {
      if (!o.ignoreChangesAndAdditions) patch.push(me)
      j++
    } else if (oe) {
      if (!o.ignoreDeletions) deletions.push({[mergeKey]: oe[mergeKey], [DIRECTIVE]: 'delete'})
      i++
    }
  }
  return [patch, deletions]
}

/** The position of an item in a list: by merge key for maps, by value for scalars. */
function indexIn(list: unknown[], item: unknown, mergeKey: string, kind: string): number {
  const val = (x: unknown) => (kind === 'map' ? (isObj(x) ? x[mergeKey] : undefined) : x)
  const v = val(item)
  return list.findIndex((x) => val(x) === v)
}

/** upstream: normalizeSliceOrder — sorted by their place in `order`, $patch: delete items last. */
function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: string): unknown[] {
  let items = toSort
  let deletes: unknown[] = []
  if (kind === 'map') {
    for (const x of [...toSort, ...order]) keyOf(x, mergeKey)
    items = toSort.filter((x) => !(isObj(x) && x[DIRECTIVE] === 'delete'))
    deletes = toSort.filter((x) => isObj(x) && x[DIRECTIVE] === 'delete')
  }
  const rank = (x: unknown) => {
    const i = indexIn(order, x, mergeKey, kind)
    return i < 0 ? Number.POSITIVE_INFINITY : i
  }
  const sorted = items
    .map((x, i) => ({x, i, r: rank(x)}))
    .sort((p, q) => (p.r === q.r ? p.i - q.i : p.r - q.r))
    .map((p) => p.x)
  return [...sorted, ...deletes]
}

/** upstream: mergeSortedSlice — server-only items inserted among the patch's, each list keeping its order. */
function mergeSortedSlice(
  left: unknown[],
  right: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: string,
) {
  const out: unknown[] = []
  let i = 0
  let j = 0
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++])
    else if (j >= right.length) out.push(left[i++])
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind)
      const ri = indexIn(serverOrder, right[j], mergeKey, kind)
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++])
      else out.push(right[j++])
    }
  }
  return out
}

function normalizeElementOrder(
  patch: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: string,
): unknown[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind)
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind)
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind)
}

/** The items of `list` present in `by` (by merge key, or value), and the others. */
function partition(list: unknown[], by: unknown[], mergeKey: string, kind: string): [unknown[], unknown[]] {
  const inPatch: unknown[] = []
  const serverOnly: unknown[] = []
  for (const x of list) {
    if (kind === 'map') keyOf(x, mergeKey)
    ;(indexIn(by, x, mergeKey, kind) >= 0 ? inPatch : serverOnly).push(x)
  }
  return [inPatch, serverOnly]
}

// ---------------------------------------------------------------------------------------------
// Merging a patch into an object (or into another patch)

function applyRetainKeys(original: Obj, patch: Obj, o: MergeOptions): void {
  if (!(RETAIN_KEYS in patch)) return
  const retain = patch[RETAIN_KEYS]
  delete patch[RETAIN_KEYS]
  if (!o.mergeParallelList) {
    if (RETAIN_KEYS in original) {
      if (!deepEqual(original[RETAIN_KEYS], retain)) {
        throw new StrategicMergeError('the $retainKeys directives of the two patches differ')
      }
    } else {
      original[RETAIN_KEYS] = retain
    }
    return
  }
  if (!Array.isArray(retain)) throw new StrategicMergeError('invalid patch: $retainKeys must be a list')
  const keep = new Set(retain)
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE) || k.startsWith(SET_ORDER)) continue
    if (!keep.has(k)) throw new StrategicMergeError(`invalid patch: ${k} is missing from $retainKeys`)
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k]
}

/** upstream: mergePatchIntoOriginal — each $setElementOrder list with the list it orders. */
function mergeOrderedLists(original: Obj, patch: Obj, schema: Schema | undefined, o: MergeOptions): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ORDER)) continue
    const order = patch[key]
    if (!o.mergeParallelList) {
      if (key in original) {
        if (!deepEqual(original[key], order)) {
          throw new StrategicMergeError('the $setElementOrder lists of the two patches differ')
        }
      } else {
        original[key] = order
      }
    }
    delete patch[key]
    if (!Array.isArray(order)) throw new StrategicMergeError(`invalid patch: ${key} must be a list`)
    const field = key.slice(SET_ORDER.length)
    const meta = metaOf(schema, field)
    const inOriginal = Array.isArray(original[field]) ? (original[field] as unknown[]) : undefined
    const inPatch = Array.isArray(patch[field]) ? (patch[field] as unknown[]) : undefined
    let merged: unknown[]
    if (inOriginal && !inPatch) merged = inOriginal
    else if (!inOriginal && inPatch) merged = inPatch
    else if (inOriginal && inPatch) {
      merged =
        meta.strategy === 'merge'
          ? mergeSlice(inOriginal, inPatch, meta.schema, meta.mergeKey ?? '', o, false)
          : inPatch
    } else continue
    const kind = elementKind(inOriginal ?? [], inPatch ?? []) ?? 'nil'
    const mergeKey = kind === 'map' ? (meta.mergeKey ?? '') : ''
    const [patchItems, serverOnly] = partition(merged, order, mergeKey, kind)
    original[field] = normalizeElementOrder(patchItems, serverOnly, order, inOriginal ?? [], mergeKey, kind)
    delete patch[field]
  }
}

function mergeMap(original: Obj, patch: Obj, schema: Schema | undefined, o: MergeOptions): Obj {
  if (DIRECTIVE in patch) {
    const directive = patch[DIRECTIVE]
    if (directive === 'replace') {
      delete patch[DIRECTIVE]
      return patch
    }
    if (directive === 'delete') return {}
    throw new StrategicMergeError(`Unknown patch type: ${show(directive)} in map: ${JSON.stringify(patch)}`)
  }
  applyRetainKeys(original, patch, o)
  mergeOrderedLists(original, patch, schema, o)
  for (const [pk, pv] of Object.entries(patch)) {
    let k = pk
    let deleteList = false
    if (pk.startsWith(DELETE_FROM_PRIMITIVE)) {
      if (!o.mergeParallelList) {
        original[pk] = pv
        continue
      }
      k = pk.slice(DELETE_FROM_PRIMITIVE.length)
      deleteList = true
    }
    if (pv === null) {
      delete original[k]
      if (o.ignoreUnmatchedNulls) continue
    }
    if (!(k in original)) {
      if (!deleteList) original[k] = pv
      continue
    }
    const ov = original[k]
    if (kindOf(ov) !== kindOf(pv)) {
      original[k] = pv
      continue
    }
    const meta = metaOf(schema, k)
    if (isObj(ov) && isObj(pv)) {
      original[k] = meta.strategy === 'replace' ? pv : mergeMap(ov, pv, meta.schema, o)
    } else if (Array.isArray(ov) && Array.isArray(pv)) {
      original[k] =
        meta.strategy === 'merge' ? mergeSlice(ov, pv, meta.schema, meta.mergeKey ?? '', o, deleteList) : pv
    } else {
      original[k] = pv
    }
  }
  return original
}

function mergeSlice(
  original: unknown[],
  patch: unknown[],
  schema: Schema | undefined,
  mergeKey: string,
  o: MergeOptions,
  deleteList: boolean,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original
  const kind = elementKind(original, patch) ?? 'nil'
  let merged: unknown[]
  let base = original
  let items = patch
  if (kind !== 'map') {
    if (o.mergeParallelList && deleteList) return original.filter((x) => !patch.includes(x))
    merged = deduplicateScalars([...original, ...patch])
  } else {
    if (mergeKey === '') throw new StrategicMergeError('cannot merge lists without merge key')
    // upstream: mergeSliceWithSpecialElements
    const plain: unknown[] = []
    let replace = false
    for (const v of patch) {
      const item = v as Obj
      if (!(DIRECTIVE in item)) {
        plain.push(v)
        continue
      }
      const directive = item[DIRECTIVE]
      if (directive === 'delete') {
        const value = keyOf(item, mergeKey)
        base = base.filter((x) => !(isObj(x) && mergeKey in x && x[mergeKey] === value))
      } else if (directive === 'replace') {
        replace = true
      } else if (directive === 'merge') {
        throw new StrategicMergeError('merging lists cannot yet be specified in the patch')
      } else {
        throw new StrategicMergeError(
          `Unknown patch type: ${show(directive)} in map: ${JSON.stringify(item)}`,
        )
      }
    }
    if (replace) {
      base = plain
      items = []
    } else {
      items = plain
    }
    merged = [...base]
    for (const v of items) {
      const value = keyOf(v, mergeKey)
      const at = merged.findIndex((x) => isObj(x) && mergeKey in x && x[mergeKey] === value)
      if (at >= 0) merged[at] = mergeMap(merged[at] as Obj, v as Obj, schema, o)
      else merged.push(v)
    }
    original = base
  }
  const [patchItems, serverOnly] = partition(merged, items, mergeKey, kind)
  return normalizeElementOrder(patchItems, serverOnly, items, original, mergeKey, kind)
}

// ---------------------------------------------------------------------------------------------
// The API

/** upstream: CreateTwoWayMergeMapPatch — the patch that takes original to modified. */
export function createTwoWayMergePatch(original: unknown, modified: unknown, schema: Schema): Obj {
  return diffMaps(asMap(original), asMap(modified), schema, {setElementOrder: true})
}

/**
 * upstream: CreateThreeWayMergePatch (overwrite) — the patch `kubectl apply` sends: what changed from
 * current (the live object) to modified (the new configuration) without deletions, plus what was
 * deleted from original (the last applied configuration) to modified.
 */
export function createThreeWayMergePatch(
  original: unknown,
  modified: unknown,
  current: unknown,
  schema: Schema,
): Obj {
  const m = asMap(modified)
  const delta = diffMaps(asMap(current), m, schema, {ignoreDeletions: true, setElementOrder: true})
  const deletions = diffMaps(asMap(original), m, schema, {
    setElementOrder: true,
    ignoreChangesAndAdditions: true,
  })
  return mergeMap(deletions, delta, schema, {})
}

/** upstream: StrategicMergeMapPatch — the object after the API server applies the patch. */
export function strategicMergePatch(original: unknown, patch: unknown, schema: Schema): Obj {
  if (!isObj(patch)) throw new StrategicMergeError('a strategic merge patch must be a JSON object')
  return mergeMap(asMap(original), clone(patch), schema, {
    mergeParallelList: true,
    ignoreUnmatchedNulls: true,
  })
}

function asMap(v: unknown): Obj {
  return isObj(v) ? clone(v) : {}
}
