// What differs between two versions of a Deployment's spec, field by field: the pod template's
// changes (what makes the controller create or reuse a ReplicaSet) and the other fields (replicas,
// strategy, deadlines...), which change without a rollout. Read by `plan` (current → proposed) and
// `explain` (previous revision → new ReplicaSet).
//
// Equality is the controller's: absent equals the zero value and quantities compare by value
// (semanticEqual, the comparison behind upstream's EqualIgnoreHash), and the pod-template-hash
// label is not part of a template. Lists whose items have a key are matched by it, so paths read
// `spec.template.spec.containers[name=app].image` rather than an index that shifts.

import {DefaultDeploymentUniqueLabelKey, type PodTemplateSpec} from '../controller/api/types.js'
import {semanticEqual} from '../controller/util/equality.js'

export interface FieldChange {
  /** `spec.template.spec.containers[name=app].image`, `spec.replicas`. */
  path: string
  /** The value before, null when absent. */
  from: unknown
  /** The value after, null when absent. */
  to: unknown
  /** Set when the new value is there only because the API server defaults it (the input did not write it). */
  defaulted?: true
}

/** The keys lists are matched by, first match wins; a list whose items lack every key is compared by index. */
const LIST_KEYS: Record<string, readonly string[]> = {
  containers: ['name'],
  initContainers: ['name'],
  ephemeralContainers: ['name'],
  env: ['name'],
  ports: ['name', 'containerPort'],
  volumes: ['name'],
  volumeMounts: ['mountPath'],
  volumeDevices: ['devicePath'],
  imagePullSecrets: ['name'],
  envFrom: ['prefix'],
  hostAliases: ['ip'],
  resourceClaims: ['name'],
  readinessGates: ['conditionType'],
  topologySpreadConstraints: ['topologyKey'],
}

/** A raw (undefaulted) value to tell defaulted changes apart; NO_RAW when none was given. */
const NO_RAW = Symbol('no raw input')
type Raw = unknown | typeof NO_RAW

type Obj = Record<string, unknown>

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function withoutHash(t: PodTemplateSpec | undefined): Obj {
  if (!t) return {}
  const labels = t.metadata?.labels
  if (!labels || !Object.hasOwn(labels, DefaultDeploymentUniqueLabelKey)) return t as Obj
  const {[DefaultDeploymentUniqueLabelKey]: _hash, ...rest} = labels
  return {...t, metadata: {...t.metadata, labels: rest}}
}

/**
 * The changed paths of a pod template, `spec.template.…`, from `from` to `to`. With `raw` (the
 * template as written, before defaulting), a change whose new value the input did not write is
 * marked `defaulted`.
 */
export function templateChanges(
  from: PodTemplateSpec | undefined,
  to: PodTemplateSpec | undefined,
  options: {raw?: unknown} = {},
): FieldChange[] {
  const out: FieldChange[] = []
  const raw = 'raw' in options ? options.raw : NO_RAW
  walk(withoutHash(from), withoutHash(to), raw, 'spec.template', '', out)
  return out
}

/**
 * The changed fields of a Deployment's spec other than its template: `spec.replicas`,
 * `spec.strategy.rollingUpdate.maxSurge`, `spec.selector…`, `spec.paused`...
 */
export function specChanges(from: unknown, to: unknown, options: {raw?: unknown} = {}): FieldChange[] {
  const strip = (s: unknown): Obj => {
    if (!isObject(s)) return {}
    const {template: _t, ...rest} = s
    return rest
  }
  const out: FieldChange[] = []
  walk(strip(from), strip(to), 'raw' in options ? strip(options.raw) : NO_RAW, 'spec', '', out)
  return out
}

function child(raw: Raw, key: string): Raw {
  if (raw === NO_RAW) return NO_RAW
  return isObject(raw) ? raw[key] : undefined
}

function record(a: unknown, b: unknown, raw: Raw, path: string, out: FieldChange[]): void {
  const change: FieldChange = {path, from: a ?? null, to: b ?? null}
  if (raw !== NO_RAW && raw === undefined && b !== undefined) change.defaulted = true
  out.push(change)
}

function walk(a: unknown, b: unknown, raw: Raw, path: string, key: string, out: FieldChange[]): void {
  if (semanticEqual(a, b, key)) return
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      walk(a[k], b[k], child(raw, k), `${path}.${k}`, k, out)
    }
    return
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const listKey = keyOf(key, a, b)
    if (listKey !== undefined) {
      const index = (items: unknown[]) => new Map(items.map((item) => [String((item as Obj)[listKey]), item]))
      const x = index(a)
      const y = index(b)
      const r = raw === NO_RAW ? undefined : Array.isArray(raw) ? index(raw.filter(isObject)) : new Map()
      for (const k of new Set([...x.keys(), ...y.keys()])) {
        walk(x.get(k), y.get(k), r ? r.get(k) : NO_RAW, `${path}[${listKey}=${k}]`, '', out)
      }
      return
    }
    if (a.length === b.length) {
      a.forEach((item, i) => {
        walk(
          item,
          b[i],
          raw === NO_RAW ? NO_RAW : Array.isArray(raw) ? raw[i] : undefined,
          `${path}[${i}]`,
          key,
          out,
        )
      })
      return
    }
  }
  record(a, b, raw, path, out)
}

/** The key both lists' items are matched by: the first of the field's keys every item has, unique. */
function keyOf(field: string, a: unknown[], b: unknown[]): string | undefined {
  for (const k of LIST_KEYS[field] ?? []) {
    const ok = [a, b].every((items) => {
      const seen = new Set<string>()
      for (const item of items) {
        const v = isObject(item) ? item[k] : undefined
        if (typeof v !== 'string' && typeof v !== 'number') return false
        if (seen.has(String(v))) return false
        seen.add(String(v))
      }
      return true
    })
    if (ok) return k
  }
  return undefined
}
