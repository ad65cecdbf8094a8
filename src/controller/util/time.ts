// metav1.Time as the API server stores it: RFC 3339 with whole seconds, UTC.
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}

/**
 * How Go's %v prints a metav1.Time (time.Time.String) in a controller running in UTC:
 * "2006-01-02 15:04:05.999999999 +0000 UTC", trailing fractional zeros dropped. Unparsable input is
 * returned as it is.
 */
export function goTimeString(t: string): string {
  const ms = Date.parse(t)
  if (Number.isNaN(ms)) return t
  const [date, rest] = new Date(ms).toISOString().split('T') as [string, string]
  const [clock, frac] = rest.replace('Z', '').split('.') as [string, string]
  const fraction = frac.replace(/0+$/, '')
  return `${date} ${clock}${fraction ? `.${fraction}` : ''} +0000 UTC`
}
