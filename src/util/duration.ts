// Durations as kubectl prints them: apimachinery's duration.HumanDuration (the AGE column of
// `kubectl get`), plus the relative phrases explain uses ("in 9m47s", "2m ago").

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
