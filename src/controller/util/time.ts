// metav1.Time as the API server stores it: RFC 3339 with whole seconds, UTC.
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}
