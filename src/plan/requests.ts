// What one pod of a template asks the scheduler for (src/sim/requests.ts, shared with the
// simulated scheduler), and kubectl's units for the table.

export {
  addRequests,
  isExtendedResourceName,
  NO_REQUESTS,
  podRequests,
  type Requests,
} from '../sim/requests.js'

/** `250m`, `2` (cores); `128Mi`, `1.5Gi` (bytes): kubectl's units, for the table. */
export function formatCpu(millicores: number): string {
  if (millicores % 1000 === 0) return String(millicores / 1000)
  return `${millicores}m`
}

export function formatMemory(bytes: number): string {
  const units = ['Ki', 'Mi', 'Gi', 'Ti']
  let v = bytes
  let unit = ''
  for (const u of units) {
    if (Math.abs(v) < 1024) break
    v /= 1024
    unit = u
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1)}${unit}`
}
