// Small JSON helpers shared by the in-memory API server.

export type Obj = Record<string, unknown>

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

export function clone<T>(v: T): T {
  return structuredClone(v)
}

/** Returns o[key] as an object, creating it (or replacing a non-object) when missing. */
export function child(o: Obj, key: string): Obj {
  const v = o[key]
  if (isObj(v)) return v
  const created: Obj = {}
  o[key] = created
  return created
}

export function getIn(o: unknown, path: readonly string[]): unknown {
  let cur: unknown = o
  for (const p of path) {
    if (Array.isArray(cur)) {
      cur = cur[Number(p)]
    } else if (isObj(cur)) {
      cur = cur[p]
    } else {
      return undefined
    }
  }
  return cur
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

export function metaOf(o: Obj): Obj {
  return child(o, 'metadata')
}

export function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  if (!isObj(v)) return out
  for (const [k, val] of Object.entries(v)) if (typeof val === 'string') out[k] = val
  return out
}

/** True for the values Go's omitempty drops and apimachinery's semantic equality treats as absent. */
function isEmptyValue(v: unknown): boolean {
  return (
    v === undefined ||
    v === null ||
    v === false ||
    v === 0 ||
    v === '' ||
    (Array.isArray(v) && v.length === 0) ||
    (isObj(v) && Object.values(v).every(isEmptyValue))
  )
}

/**
 * Deep equality in the spirit of apimachinery's Semantic.DeepEqual on decoded Go structs: a missing
 * field, null, and the zero value ({} [] "" 0 false) compare equal.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmptyValue(a) && isEmptyValue(b)) return true
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]))
  }
  if (isObj(a) && isObj(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)])
    for (const k of keys) if (!semanticEqual(a[k], b[k])) return false
    return true
  }
  return a === b
}

/** Strict JSON deep equality (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]))
  }
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined)
    const kb = Object.keys(b).filter((k) => b[k] !== undefined)
    if (ka.length !== kb.length) return false
    return ka.every((k) => jsonEqual(a[k], b[k]))
  }
  return a === b
}

/** metav1.Time as the API server serializes it: RFC 3339, second precision, UTC. */
export function rfc3339(d: Date = new Date()): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789'

/** apiserver's SimpleNameGenerator: 5 random characters from an alphabet without vowels. */
export function randomSuffix(n = 5): string {
  let s = ''
  for (let i = 0; i < n; i++) s += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)]
  return s
}

/** k8s.io/apimachinery/pkg/util/duration.HumanDuration, used for the AGE column. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000)
  if (seconds < -1) return '<invalid>'
  if (seconds < 0) return '0s'
  if (seconds < 60 * 2) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 10) {
    const s = seconds % 60
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`
  }
  if (minutes < 60 * 3) return `${minutes}m`
  const hours = Math.floor(minutes / 60)
  if (hours < 8) {
    const m = minutes % 60
    return m === 0 ? `${hours}h` : `${hours}h${m}m`
  }
  if (hours < 48) return `${hours}h`
  if (hours < 24 * 8) {
    const h = hours % 24
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365
    return dy === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${dy}d`
  }
  return `${Math.floor(hours / 24 / 365)}y`
}
