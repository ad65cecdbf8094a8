// Field ownership as the API server tracks it (`metadata.managedFields`, structured-merge-diff):
// the set of fields each manager owns, server-side apply (a manager's configuration merged into the
// live object, conflicts with the fields other managers own, fields it no longer applies removed
// when nobody else owns them) and the ownership an update moves. apps/v1 Deployment's list types:
// containers, env, volumes... keyed by name, container ports by containerPort AND protocol (their
// listMapKeys, unlike strategic merge patch's containerPort alone), atomic selector.

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** How a field's value is owned: granularly (default), as one leaf, a list map by keys, or a set. */
export interface SsaField {
  type?: 'atomic' | 'map' | 'set'
  keys?: string[]
  schema?: SsaSchema
}
export type SsaSchema = Record<string, SsaField>

const lmap = (keys: string[], schema?: SsaSchema): SsaField => ({
  type: 'map',
  keys,
  ...(schema ? {schema} : {}),
})

const OBJECT_META: SsaSchema = {
  finalizers: {type: 'set'},
  ownerReferences: lmap(['uid']),
  managedFields: {type: 'atomic'},
}
const CONTAINER: SsaSchema = {
  ports: lmap(['containerPort', 'protocol']),
  env: lmap(['name']),
  volumeMounts: lmap(['mountPath']),
  volumeDevices: lmap(['devicePath']),
  resizePolicy: {type: 'atomic'},
}
const POD_SPEC: SsaSchema = {
  volumes: lmap(['name']),
  initContainers: lmap(['name'], CONTAINER),
  containers: lmap(['name'], CONTAINER),
  ephemeralContainers: lmap(['name'], CONTAINER),
  imagePullSecrets: lmap(['name']),
  hostAliases: lmap(['ip']),
  topologySpreadConstraints: lmap(['topologyKey', 'whenUnsatisfiable']),
  schedulingGates: lmap(['name']),
  resourceClaims: lmap(['name']),
}
/** apps/v1 Deployment (and ReplicaSet: the same template and selector). */
export const DEPLOYMENT_SSA: SsaSchema = {
  metadata: {schema: OBJECT_META},
  spec: {
    schema: {
      selector: {type: 'atomic'},
      template: {schema: {metadata: {schema: OBJECT_META}, spec: {schema: POD_SPEC}}},
    },
  },
  status: {schema: {conditions: lmap(['type'])}},
}

// A path is a list of elements: `f:name`, `k:{"name":"app"}` (a list-map item), `v:"x"` (a set item).
type Path = string[]
const SEP = '\u0000'
const join = (p: Path) => p.join(SEP)
const split = (s: string): Path => (s === '' ? [] : s.split(SEP))

/** Go's json.Marshal of a key's fields, in the key's order. */
function keyElement(item: Obj, keys: string[]): string {
  const parts = keys
    .filter((k) => item[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(item[k])}`)
  return `k:{${parts.join(',')}}`
}

/** The fields an object sets (upstream: typed.ToFieldSet): leaves, and the list-map items themselves. */
export function fieldSet(value: unknown, schema: SsaSchema = DEPLOYMENT_SSA, prefix: Path = []): Set<string> {
  const out = new Set<string>()
  const walk = (v: unknown, s: SsaSchema | undefined, path: Path) => {
    if (!isObj(v)) return
    for (const [k, x] of Object.entries(v)) {
      const f = s?.[k]
      const p = [...path, `f:${k}`]
      if (f?.type === 'atomic' || x === null || (!isObj(x) && !Array.isArray(x))) {
        out.add(join(p))
      } else if (Array.isArray(x)) {
        if (f?.type === 'map' && f.keys) {
          if (x.length === 0) out.add(join(p))
          for (const item of x) {
            if (!isObj(item)) continue
            const ip = [...p, keyElement(item, f.keys)]
            out.add(join(ip))
            walk(item, f.schema, ip)
          }
        } else if (f?.type === 'set') {
          if (x.length === 0) out.add(join(p))
          for (const item of x) out.add(join([...p, `v:${JSON.stringify(item)}`]))
        } else {
          out.add(join(p))
        }
      } else if (Object.keys(x).length === 0) {
        out.add(join(p))
      } else {
        walk(x, f?.schema, p)
      }
    }
  }
  walk(value, schema, prefix)
  return out
}

/** The value at a path; `undefined` when absent. */
function valueAt(obj: unknown, path: Path): unknown {
  let cur: unknown = obj
  for (const el of path) {
    if (el.startsWith('f:')) {
      if (!isObj(cur)) return undefined
      cur = cur[el.slice(2)]
    } else if (el.startsWith('k:')) {
      if (!Array.isArray(cur)) return undefined
      const key = JSON.parse(el.slice(2)) as Obj
      cur = cur.find(
        (x) => isObj(x) && Object.entries(key).every(([k, v]) => JSON.stringify(x[k]) === JSON.stringify(v)),
      )
    } else if (el.startsWith('v:')) {
      if (!Array.isArray(cur)) return undefined
      const v = el.slice(2)
      cur = cur.find((x) => JSON.stringify(x) === v)
    }
    if (cur === undefined) return undefined
  }
  return cur
}

function removeAt(obj: unknown, path: Path): void {
  const parent = valueAt(obj, path.slice(0, -1))
  const el = path[path.length - 1] ?? ''
  if (el.startsWith('f:') && isObj(parent)) delete parent[el.slice(2)]
  else if (Array.isArray(parent)) {
    const target = valueAt(obj, path)
    const i = parent.indexOf(target)
    if (i >= 0) parent.splice(i, 1)
  }
}

// --- fieldsV1 --------------------------------------------------------------------------------------

/** A field set as `fieldsV1` writes it: nested elements, `.` marking a node that is itself a member. */
export function toFieldsV1(set: Set<string>): Obj {
  const root: Obj = {}
  for (const s of [...set].sort()) {
    let node = root
    for (const el of split(s)) {
      if (!isObj(node[el])) node[el] = {}
      node = node[el] as Obj
    }
    node['.'] = {}
  }
  // A member with no children is written `{}`.
  const tidy = (n: Obj) => {
    for (const [k, v] of Object.entries(n)) {
      if (k === '.' || !isObj(v)) continue
      if (Object.keys(v).length === 1 && '.' in v) n[k] = {}
      else tidy(v)
    }
  }
  tidy(root)
  return root
}

export function fromFieldsV1(tree: unknown): Set<string> {
  const out = new Set<string>()
  const walk = (n: unknown, path: Path) => {
    if (!isObj(n)) return
    const children = Object.keys(n).filter((k) => k !== '.')
    if (path.length > 0 && ('.' in n || children.length === 0)) out.add(join(path))
    for (const k of children) walk(n[k], [...path, k])
  }
  walk(tree, [])
  return out
}

// --- managers --------------------------------------------------------------------------------------

export interface ManagedFieldsEntry {
  manager: string
  operation: 'Apply' | 'Update'
  apiVersion: string
  time?: string
  fieldsType: 'FieldsV1'
  fieldsV1: Obj
  subresource?: string
}

interface Manager {
  entry: ManagedFieldsEntry
  set: Set<string>
}

function managersOf(obj: unknown): Manager[] {
  const md = isObj(obj) && isObj(obj.metadata) ? obj.metadata : {}
  const list = Array.isArray(md.managedFields) ? md.managedFields : []
  return list.filter(isObj).map((e) => ({
    entry: e as unknown as ManagedFieldsEntry,
    set: fromFieldsV1(e.fieldsV1),
  }))
}

function sameManager(
  e: ManagedFieldsEntry,
  manager: string,
  operation: string,
  subresource?: string,
): boolean {
  return e.manager === manager && e.operation === operation && (e.subresource ?? '') === (subresource ?? '')
}

function writeManagers(obj: Obj, managers: Manager[]): void {
  const md = (isObj(obj.metadata) ? obj.metadata : (obj.metadata = {})) as Obj
  const entries = managers
    .filter((m) => m.set.size > 0)
    .map((m) => ({...m.entry, fieldsType: 'FieldsV1' as const, fieldsV1: toFieldsV1(m.set)}))
  if (entries.length === 0) delete md.managedFields
  else md.managedFields = entries
}

/** upstream: printManager — `"kubectl"`, or `"kubectl-client-side-apply" using apps/v1` for an update. */
function printManager(e: ManagedFieldsEntry): string {
  let s = JSON.stringify(e.manager)
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`
  return e.operation === 'Update' ? `${s} using ${e.apiVersion}` : s
}

/** A path as structured-merge-diff prints it: `.spec.template.spec.containers[name="app"].image`. */
export function printPath(s: string): string {
  return split(s)
    .map((el) => {
      if (el.startsWith('f:')) return `.${el.slice(2)}`
      if (el.startsWith('k:')) {
        const key = JSON.parse(el.slice(2)) as Obj
        return `[${Object.entries(key)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(',')}]`
      }
      return `[=${el.slice(2)}]`
    })
    .join('')
}

export class ApplyConflictError extends Error {
  constructor(
    message: string,
    readonly conflicts: Array<{manager: string; field: string}>,
  ) {
    super(message)
  }
}

/** upstream: internal.NewConflictError's message. */
function conflictMessage(conflicts: Array<{entry: ManagedFieldsEntry; path: string}>): string {
  if (conflicts.length === 1) {
    const c = conflicts[0] as {entry: ManagedFieldsEntry; path: string}
    return `Apply failed with 1 conflict: conflict with ${printManager(c.entry)}: ${printPath(c.path)}`
  }
  const by = new Map<string, string[]>()
  for (const c of conflicts) {
    const m = printManager(c.entry)
    by.set(m, [...(by.get(m) ?? []), printPath(c.path)])
  }
  const lines: string[] = []
  for (const m of [...by.keys()].sort()) {
    lines.push(`conflicts with ${m}:`)
    for (const p of by.get(m) ?? []) lines.push(`- ${p}`)
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** Merges `config` into `live` (upstream: merge.Updater.Apply's merge): maps by key, list maps by keys, the rest replaced. */
function mergeInto(live: unknown, config: unknown, schema: SsaSchema | undefined): unknown {
  if (!isObj(config) || !isObj(live)) return structuredClone(config)
  const out: Obj = {...live}
  for (const [k, v] of Object.entries(config)) {
    const f = schema?.[k]
    const cur = out[k]
    if (f?.type === 'atomic') out[k] = structuredClone(v)
    else if (Array.isArray(v) && Array.isArray(cur) && f?.type === 'map' && f.keys) {
      const keys = f.keys
      const merged = v.map((item) => {
        const match = cur.find((c) => isObj(c) && isObj(item) && keys.every((key) => same(c[key], item[key])))
        return match === undefined ? structuredClone(item) : mergeInto(match, item, f.schema)
      })
      for (const c of cur) {
        if (!merged.some((m) => isObj(m) && isObj(c) && keys.every((key) => same(m[key], c[key]))))
          merged.push(c)
      }
      out[k] = merged
    } else if (Array.isArray(v) && Array.isArray(cur) && f?.type === 'set') {
      out[k] = [...v, ...cur.filter((c) => !v.some((x) => same(x, c)))]
    } else if (isObj(v) && isObj(cur)) out[k] = mergeInto(cur, v, f?.schema)
    else out[k] = structuredClone(v)
  }
  return out
}

export interface ServerSideApply {
  /** The live object with the configuration merged in (before the API server's defaulting). */
  result: Obj
}

/**
 * upstream: FieldManager.Apply — `config` applied by `manager` to `live` (undefined: created). A field
 * of the configuration that another manager owns with a different value is a conflict (409) unless
 * `force`, which takes it from them; a field this manager applied before and applies no longer is
 * removed unless another manager owns it. The managedFields of the result say who owns what.
 */
export function serverSideApply(
  live: unknown,
  config: unknown,
  o: {manager: string; force?: boolean; apiVersion?: string; now?: string; schema?: SsaSchema},
): ServerSideApply {
  const schema = o.schema ?? DEPLOYMENT_SSA
  const cfg = structuredClone(isObj(config) ? config : {}) as Obj
  if (isObj(cfg.metadata)) delete cfg.metadata.managedFields
  // The main resource's apply leaves status alone (upstream: ResetFieldsFor).
  delete cfg.status
  const applied = new Set(
    [...fieldSet(cfg, schema)].filter((p) => !p.startsWith(`f:apiVersion`) && !p.startsWith('f:kind')),
  )
  const managers = managersOf(live)
  const mine = managers.find((m) => sameManager(m.entry, o.manager, 'Apply'))
  const conflicts: Array<{entry: ManagedFieldsEntry; path: string; manager: Manager}> = []
  for (const m of managers) {
    if (m === mine) continue
    for (const p of m.set) {
      if (!applied.has(p)) continue
      const path = split(p)
      const want = valueAt(cfg, path)
      if (isObj(want) || Array.isArray(want)) continue
      if (!same(valueAt(live, path), want)) conflicts.push({entry: m.entry, path: p, manager: m})
    }
  }
  if (conflicts.length > 0 && !o.force) {
    throw new ApplyConflictError(
      conflictMessage(conflicts),
      conflicts.map((c) => ({manager: c.entry.manager, field: printPath(c.path)})),
    )
  }
  for (const c of conflicts) c.manager.set.delete(c.path)
  const result = mergeInto(structuredClone(isObj(live) ? live : {}), cfg, schema) as Obj
  // What this manager applied before and no longer does, when nobody else owns it (or below it).
  const others = managers.filter((m) => m !== mine)
  const ownedElsewhere = (p: string) =>
    others.some((m) => [...m.set].some((q) => q === p || q.startsWith(p + SEP)))
  const dropped = [...(mine?.set ?? [])].filter((p) => !applied.has(p) && !ownedElsewhere(p))
  for (const p of dropped.sort((a, b) => b.length - a.length)) removeAt(result, split(p))
  const unchanged =
    mine !== undefined && mine.set.size === applied.size && [...applied].every((p) => mine.set.has(p))
  const time = unchanged ? mine.entry.time : o.now
  const entry: ManagedFieldsEntry = {
    manager: o.manager,
    operation: 'Apply',
    apiVersion: o.apiVersion ?? 'apps/v1',
    ...(time ? {time} : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: {},
  }
  const next = mine
    ? managers.map((m) => (m === mine ? {entry, set: applied} : m))
    : [...managers, {entry, set: applied}]
  writeManagers(result, next)
  return {result}
}

/**
 * upstream: FieldManager.Update — the fields an update added or changed become `manager`'s (an
 * Update entry), and no one else's; the fields it removed are no one's. Unchanged: managedFields as
 * they were (no new time). `next` is modified in place.
 */
export function trackUpdate(
  old: unknown,
  next: Obj,
  o: {manager: string; apiVersion?: string; now?: string; subresource?: string; schema?: SsaSchema},
): void {
  const schema = o.schema ?? DEPLOYMENT_SSA
  const strip = (v: unknown) => {
    const c = structuredClone(isObj(v) ? v : {}) as Obj
    if (isObj(c.metadata)) delete c.metadata.managedFields
    for (const k of ['apiVersion', 'kind']) delete c[k]
    if (isObj(c.metadata))
      for (const k of ['resourceVersion', 'generation', 'uid', 'creationTimestamp', 'selfLink'])
        delete c.metadata[k]
    return c
  }
  // The main resource's updates leave status alone and the status subresource's touch only status
  // (upstream: the strategies' ResetFieldsFor).
  const scope = (v: Obj): Obj => {
    if (o.subresource === 'status') return {status: v.status}
    const {status: _status, ...rest} = v
    return rest
  }
  const before = scope(strip(old))
  const after = scope(strip(next))
  const oldSet = old === undefined ? new Set<string>() : fieldSet(before, schema)
  const newSet = fieldSet(after, schema)
  const changed = [...newSet].filter(
    (p) => !oldSet.has(p) || !same(valueAt(before, split(p)), valueAt(after, split(p))),
  )
  const removed = [...oldSet].filter((p) => !newSet.has(p))
  const managers = old === undefined ? [] : managersOf(old)
  if (changed.length === 0 && removed.length === 0) {
    writeManagers(next, managers)
    return
  }
  for (const m of managers) {
    for (const p of [...changed, ...removed]) m.set.delete(p)
  }
  const mine = managers.find((m) => sameManager(m.entry, o.manager, 'Update', o.subresource))
  const entry: ManagedFieldsEntry = {
    manager: o.manager,
    operation: 'Update',
    apiVersion: o.apiVersion ?? 'apps/v1',
    ...(o.now ? {time: o.now} : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: {},
    ...(o.subresource ? {subresource: o.subresource} : {}),
  }
  const set = new Set([...(mine?.set ?? []), ...changed])
  const list = mine ? managers.map((m) => (m === mine ? {entry, set} : m)) : [...managers, {entry, set}]
  writeManagers(next, list)
}
