// Durations and times, the one module for them: Go's time.ParseDuration for every duration flag,
// apimachinery's duration.HumanDuration for every duration a screen shows (the AGE column of
// `kubectl get`; explain, rollout watch's view, lines and summary alike), the relative phrases
// ("in 9m47s", "2m ago"), RFC 3339 times, and Go's Duration.String for klog lines.

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

// upstream: k8s.io/apimachinery/pkg/util/duration.HumanDuration — about 2-3 significant figures.
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND)
  // A deviation of under 2 seconds counts as "now" (clock skew between machines).
  if (seconds < -1) return '<invalid>'
  if (seconds < 0) return '0s'
  if (seconds < 60 * 2) return `${seconds}s`
  const minutes = Math.trunc(ms / MINUTE)
  if (minutes < 10) {
    const s = seconds % 60
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`
  }
  if (minutes < 60 * 3) return `${minutes}m`
  const hours = Math.trunc(ms / HOUR)
  if (hours < 8) {
    const m = minutes % 60
    return m === 0 ? `${hours}h` : `${hours}h${m}m`
  }
  if (hours < 48) return `${hours}h`
  if (hours < 24 * 8) {
    const h = hours % 24
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365
    const y = Math.trunc(hours / 24 / 365)
    return dy === 0 ? `${y}y` : `${y}y${dy}d`
  }
  return `${Math.trunc(hours / 24 / 365)}y`
}

/** kubectl's AGE of an object created at `timestamp`: `<unknown>` when absent or unparsable. */
export function age(timestamp: string | undefined | null, nowMs: number): string {
  const t = parseTime(timestamp)
  return t === undefined ? '<unknown>' : humanDuration(nowMs - t)
}

/** "in 9m47s", "2m ago" or "now": a moment relative to --now. */
export function relative(ms: number, nowMs: number): string {
  const d = ms - nowMs
  if (Math.abs(d) < SECOND) return 'now'
  return d > 0 ? `in ${humanDuration(d)}` : `${humanDuration(-d)} ago`
}

/** A duration in seconds as people write it: 600 → "10m", 45 → "45s", 5400 → "1h30m". */
export function seconds(s: number): string {
  if (!Number.isFinite(s)) return String(s)
  const whole = Math.round(s)
  if (whole < 60) return `${whole}s`
  const h = Math.floor(whole / 3600)
  const m = Math.floor((whole % 3600) / 60)
  const r = whole % 60
  return `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${r > 0 ? `${r}s` : ''}`
}

/** Epoch milliseconds of an RFC 3339 time, or undefined. */
export function parseTime(t: string | undefined | null): number | undefined {
  if (t == null || t === '') return undefined
  const ms = Date.parse(t)
  return Number.isNaN(ms) ? undefined : ms
}

/** RFC 3339 with whole seconds, UTC, as metav1.Time prints. */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}

const GO_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
}

/**
 * upstream: time.ParseDuration — milliseconds of `10s`, `1m30s`, `500ms`, `1.5h`; undefined when the
 * text is not one. Negative durations are refused. `bareSeconds`: a plain number is seconds, as
 * kubectl's --request-timeout reads it.
 */
export function parseDuration(text: string, options: {bareSeconds?: boolean} = {}): number | undefined {
  const s = text.trim()
  if (s === '0') return 0
  if (options.bareSeconds && /^\d+$/.test(s)) return inGoRange(Number(s) * 1000)
  if (s === '' || s.startsWith('-')) return undefined
  const body = s.startsWith('+') ? s.slice(1) : s
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy
  let total = 0
  let consumed = 0
  for (let m = re.exec(body); m !== null; m = re.exec(body)) {
    total += Number(m[1]) * (GO_UNITS[m[2] ?? ''] ?? Number.NaN)
    consumed = re.lastIndex
  }
  if (consumed === 0 || consumed !== body.length) return undefined
  return inGoRange(total)
}

/** The longest time.Duration, 2^63-1 ns (about 292 years), in milliseconds. */
export const MAX_DURATION_MS = 9_223_372_036_854.775

/** Go refuses a duration that overflows int64 nanoseconds ("time: invalid duration"). */
function inGoRange(ms: number): number | undefined {
  return Number.isFinite(ms) && ms <= MAX_DURATION_MS ? ms : undefined
}

/** upstream: time.Duration.String, as klog lines print durations: `5ms`, `1.5s`, `2m3s` (hours and minutes past an hour). */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1).replace(/\.?0+$/, '')}s`
  const s = Math.round(ms / 1000)
  return s < 3600
    ? `${Math.floor(s / 60)}m${s % 60}s`
    : `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/

/** upstream: time.Parse(time.RFC3339, ...) — epoch milliseconds, or undefined when it is not one. */
export function parseRFC3339(text: string): number | undefined {
  const m = RFC3339.exec(text.trim())
  if (!m) return undefined
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0
  const local = Date.UTC(y, mo - 1, d, h, mi, s, fraction)
  const check = new Date(local)
  if (
    check.getUTCFullYear() !== y ||
    check.getUTCMonth() !== mo - 1 ||
    check.getUTCDate() !== d ||
    check.getUTCHours() !== h ||
    check.getUTCMinutes() !== mi ||
    check.getUTCSeconds() !== s ||
    Number(m[11] ?? 0) > 59 ||
    Number(m[10] ?? 0) > 23
  ) {
    return undefined
  }
  const offset = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) * 60_000 : 0
  return local - offset
}
