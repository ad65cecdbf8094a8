// `run`'s logs on stderr, in kube-controller-manager's two formats (--log-format):
// - text, klog's header and structured pairs: I1202 10:00:00.123456] "Successfully acquired lease" lock="kube-system/x"
// - json, component-base's JSON logger: {"ts":1764669600123.456,"v":0,"msg":"...","lock":"..."},
//   errors carrying "err".

export type LogFormat = 'text' | 'json'
export type Severity = 'I' | 'W' | 'E'

export interface Logger {
  /** One message at a severity, with key/value pairs; verbosity says at which --v it shows. */
  log(severity: Severity, message: string, kv?: Record<string, unknown>, verbosity?: number): void
  info(message: string, kv?: Record<string, unknown>): void
  error(message: string, kv?: Record<string, unknown>): void
  /** Shown at --v level and above. */
  debug(level: number, message: string, kv?: Record<string, unknown>): void
  readonly verbosity: number
}

export interface LoggerOptions {
  format: LogFormat
  verbosity: number
  /** One line, without its newline. */
  write: (line: string) => void
  now?: () => number
}

export function createLogger({format, verbosity, write, now = Date.now}: LoggerOptions): Logger {
  const emit = (severity: Severity, message: string, kv: Record<string, unknown> = {}, v = 0) => {
    if (v > verbosity) return
    const t = now()
    write(format === 'json' ? jsonLine(t, severity, message, kv, v) : textLine(t, severity, message, kv))
  }
  return {
    verbosity,
    log: emit,
    info: (m, kv) => emit('I', m, kv),
    error: (m, kv) => emit('E', m, kv),
    debug: (level, m, kv) => emit('I', m, kv, level),
  }
}

function textLine(t: number, severity: Severity, message: string, kv: Record<string, unknown>): string {
  const pairs = Object.entries(kv).filter(([, v]) => v !== undefined)
  const head = `${severity}${klogTime(new Date(t))}`
  // klog quotes the message of a structured call; plain lines stay as they are.
  if (pairs.length === 0) return `${head} ${message}`
  return `${head} ${JSON.stringify(message)} ${pairs.map(([k, v]) => `${k}=${klogValue(v)}`).join(' ')}`
}

function jsonLine(
  t: number,
  severity: Severity,
  message: string,
  kv: Record<string, unknown>,
  v: number,
): string {
  // component-base's encoder: ts in epoch milliseconds, "v" on info lines, errors without it.
  const head: Record<string, unknown> = {ts: t, ...(severity === 'E' ? {} : {v}), msg: message}
  return JSON.stringify({...head, ...kv})
}

function klogValue(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (v instanceof Error) return JSON.stringify(v.message)
  return JSON.stringify(typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)))
}

/** klog's header time: MMDD hh:mm:ss.uuuuuu (local time). */
export function klogTime(t: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${p(t.getMonth() + 1)}${p(t.getDate())} ${p(t.getHours())}:${p(t.getMinutes())}:${p(t.getSeconds())}.${p(t.getMilliseconds() * 1000, 6)}`
}
