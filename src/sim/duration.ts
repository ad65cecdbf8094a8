// Durations as Go's time.ParseDuration reads them (`10s`, `1m30s`, `500ms`, `2h`), and a short form
// for printing elapsed virtual time.

const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
}

/** Milliseconds of a Go duration string; undefined when it is not one. Negative durations are refused. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim()
  if (s === '0') return 0
  if (s === '' || s.startsWith('-')) return undefined
  const body = s.startsWith('+') ? s.slice(1) : s
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy
  let total = 0
  let consumed = 0
  for (let m = re.exec(body); m !== null; m = re.exec(body)) {
    total += Number(m[1]) * (UNITS[m[2] ?? ''] ?? Number.NaN)
    consumed = re.lastIndex
  }
  if (consumed === 0 || consumed !== body.length || !Number.isFinite(total)) return undefined
  return total
}

/**
 * `0s`, `45s`, `2m05s`, `1h02m03s` (whole seconds, rounded down); under a second in milliseconds,
 * under ten seconds with one decimal when not whole.
 */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? '-' : ''
  const abs = Math.abs(ms)
  if (abs > 0 && abs < 1000) return `${sign}${Math.round(abs)}ms`
  if (abs < 10_000 && abs % 1000 !== 0) return `${sign}${(Math.floor(abs / 100) / 10).toFixed(1)}s`
  const total = Math.floor(abs / 1000)
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const sec = total % 60
  const pad = (n: number) => String(n).padStart(2, '0')
  if (h > 0) return `${sign}${h}h${pad(m)}m${pad(sec)}s`
  if (m > 0) return `${sign}${m}m${pad(sec)}s`
  return `${sign}${sec}s`
}
