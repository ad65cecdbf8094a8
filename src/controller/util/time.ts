// Go time formatting the controller's messages carry (metav1.Time as %v prints it). RFC 3339 is
// src/util/duration.ts's formatTime, the one time format.

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
