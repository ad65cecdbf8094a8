// Field errors shaped like apimachinery's field.Error (pkg/util/validation/field), so that a message
// reads as the API server's (`spec.replicas: Invalid value: -1: must be greater than or equal to 0`)
// and the test API server can hand the same error back as a metav1.Status cause.

/** A step in a field path: a field name, a list index, or a map key (printed as `[key]`). */
export type PathElem = string | number | {key: string}

export type Path = readonly PathElem[]

/** field.ErrorType: what a Status cause carries as its `reason`. */
export type ErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueForbidden'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueNotFound'

export interface FieldError {
  path: Path
  /** `Invalid value: ...`, `Required value`, ...: everything after the path (field.Error.ErrorBody). */
  detail: string
  /** The error's field.ErrorType; absent for the loader's own decoding errors. */
  type?: ErrorType
  /** True when the API server could not even decode the object (wrong JSON type). */
  decode?: boolean
  /** The whole text, for errors not worded as `path: detail` (strict decoding's unknown fields). */
  text?: string
}

export function formatPath(path: Path): string {
  let out = ''
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`
    else if (typeof p === 'string') out += out === '' ? p : `.${p}`
    else out += `[${p.key}]`
  }
  return out
}

/** Go's json.Marshal escapes these even inside strings (HTML safety). */
const GO_JSON_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
}

const STRUCT = Symbol('go struct')

/**
 * Marks an object as a Go struct's JSON: encoding/json writes a struct's fields in declaration
 * order (the order the object was built in) and a map's keys sorted.
 */
export function goStruct<T extends object>(o: T): T {
  Object.defineProperty(o, STRUCT, {value: true, enumerable: false})
  return o
}

/** The JSON Go's encoding/json writes for a value decoded from JSON: map keys sorted, HTML escaped. */
export function goJson(v: unknown): string {
  const sorted = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sorted)
    if (typeof x === 'object' && x !== null) {
      const keys = Object.keys(x)
      if (!(STRUCT in x)) keys.sort()
      const out: Record<string, unknown> = {}
      for (const k of keys) out[k] = sorted((x as Record<string, unknown>)[k])
      return out
    }
    return x
  }
  let s: string
  try {
    s = JSON.stringify(sorted(v)) ?? String(v)
  } catch {
    s = String(v)
  }
  return s.replace(/[<>&\u2028\u2029]/g, (c) => GO_JSON_ESCAPES[c] ?? c)
}

/**
 * A bad value as field.Error's ErrorBody prints it: numbers and booleans plainly, strings quoted
 * (%q), anything else as its JSON. Struct-valued errors print their fields in declaration order,
 * which the callers keep by building the value in that order; maps print with sorted keys.
 */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (typeof v === 'string') return goQuote(v)
  return goJson(v)
}

/** Go's %q of a string (strconv.Quote), for the characters a manifest can hold. */
export function goQuote(s: string): string {
  let out = '"'
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0
    if (ch === '"' || ch === '\\') out += `\\${ch}`
    else if (ch === '\n') out += '\\n'
    else if (ch === '\t') out += '\\t'
    else if (ch === '\r') out += '\\r'
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`
    else out += ch
  }
  return `${out}"`
}

export function invalid(path: Path, value: unknown, msg: string): FieldError {
  return {path, type: 'FieldValueInvalid', detail: `Invalid value: ${formatValue(value)}: ${msg}`}
}

export function required(path: Path, msg = ''): FieldError {
  return {path, type: 'FieldValueRequired', detail: msg === '' ? 'Required value' : `Required value: ${msg}`}
}

export function forbidden(path: Path, msg: string): FieldError {
  return {path, type: 'FieldValueForbidden', detail: `Forbidden: ${msg}`}
}

export function notSupported(path: Path, value: unknown, supported: readonly string[]): FieldError {
  const list = supported.map((s) => goQuote(s)).join(', ')
  const detail = supported.length > 0 ? `: supported values: ${list}` : ''
  return {path, type: 'FieldValueNotSupported', detail: `Unsupported value: ${formatValue(value)}${detail}`}
}

export function duplicate(path: Path, value: unknown): FieldError {
  return {path, type: 'FieldValueDuplicate', detail: `Duplicate value: ${formatValue(value)}`}
}

export function notFound(path: Path, value: unknown): FieldError {
  return {path, type: 'FieldValueNotFound', detail: `Not found: ${formatValue(value)}`}
}

/** field.TooLong: the value is never printed. */
export function tooLong(path: Path, max: number, unit: 'bytes' | 'characters' = 'bytes'): FieldError {
  const what = max === 1 ? unit.slice(0, -1) : unit
  return {path, type: 'FieldValueTooLong', detail: `Too long: may not be more than ${max} ${what}`}
}

export function tooMany(path: Path, actual: number, max: number): FieldError {
  return {
    path,
    type: 'FieldValueTooMany',
    detail: `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`,
  }
}

const MAX_WRITTEN_CHARS = 80

/** A value as the input wrote it (decoding errors are the loader's own words), shortened. */
export function formatWritten(v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  let s: string
  try {
    s = JSON.stringify(v) ?? String(v)
  } catch {
    s = String(v)
  }
  return s.length > MAX_WRITTEN_CHARS ? `${s.slice(0, MAX_WRITTEN_CHARS - 3)}...` : s
}

/** A value of the wrong JSON type: the API server could not decode the object at all. */
export function typeError(path: Path, value: unknown, expected: string): FieldError {
  return {path, detail: `Invalid value: ${formatWritten(value)}: expected ${expected}`, decode: true}
}

export function unknownField(path: Path): FieldError {
  return {path, detail: 'unknown field', text: `unknown field ${JSON.stringify(formatPath(path))}`}
}

export function fieldErrorText(e: FieldError): string {
  if (e.text !== undefined) return e.text
  const p = formatPath(e.path)
  return p === '' ? e.detail : `${p}: ${e.detail}`
}
