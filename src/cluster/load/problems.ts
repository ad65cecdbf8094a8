// Field errors shaped like apimachinery's field.Error, so a message reads like the API server's
// (`spec.replicas: Invalid value: -1: must be greater than or equal to 0`).

/** A step in a field path: a field name, a list index, or a map key (printed as `[key]`). */
export type PathElem = string | number | {key: string}

export type Path = readonly PathElem[]

export interface FieldError {
  path: Path
  /** `Invalid value: ...`, `Required value`, ...: everything after the path. */
  detail: string
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

const MAX_VALUE_CHARS = 80

/** Values as field.Error prints them: strings quoted, composites as (shortened) JSON. */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  let s: string
  try {
    s = JSON.stringify(v) ?? String(v)
  } catch {
    s = String(v)
  }
  return s.length > MAX_VALUE_CHARS ? `${s.slice(0, MAX_VALUE_CHARS - 3)}...` : s
}

export function invalid(path: Path, value: unknown, msg: string): FieldError {
  return {path, detail: `Invalid value: ${formatValue(value)}: ${msg}`}
}

export function required(path: Path, msg = ''): FieldError {
  return {path, detail: msg === '' ? 'Required value' : `Required value: ${msg}`}
}

export function forbidden(path: Path, msg: string): FieldError {
  return {path, detail: `Forbidden: ${msg}`}
}

export function notSupported(path: Path, value: unknown, supported: readonly string[]): FieldError {
  const list = supported.map((s) => JSON.stringify(s)).join(', ')
  return {path, detail: `Unsupported value: ${formatValue(value)}: supported values: ${list}`}
}

export function duplicate(path: Path, value: unknown): FieldError {
  return {path, detail: `Duplicate value: ${formatValue(value)}`}
}

export function typeError(path: Path, value: unknown, expected: string): FieldError {
  return {path, detail: `Invalid value: ${formatValue(value)}: expected ${expected}`, decode: true}
}

export function unknownField(path: Path): FieldError {
  return {path, detail: 'unknown field', text: `unknown field ${JSON.stringify(formatPath(path))}`}
}

export function fieldErrorText(e: FieldError): string {
  if (e.text !== undefined) return e.text
  const p = formatPath(e.path)
  return p === '' ? e.detail : `${p}: ${e.detail}`
}
