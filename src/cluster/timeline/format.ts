// The timeline format: what `rollout record` writes and what `-f` reads back. NDJSON: a header line
// (`kind: Timeline`), then one watch event per line with the time it was received,
//
//   {"time":"2026-12-04T10:00:01.25Z","type":"MODIFIED","object":{...}}
//
// which is what `kubectl get -w --output-watch-events -o json` prints, plus the time. A change of an
// object already in the file may instead be a delta line, `patch` (a JSON merge patch against that
// object's previous line, found by `uid`) in place of `object` (./delta.ts). One more line type says
// where a watch had to list again (after 410 Gone): the changes between its last event and that list
// were not seen.

/** The group of the project's own documents (docs/output.md); the timeline is its first v1alpha1 kind. */
export const TIMELINE_API_VERSION = 'deployctl.kubectl.io/v1alpha1' as const
export const TIMELINE_KIND = 'Timeline' as const

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED'
export const CHANGE_TYPES: readonly string[] = ['ADDED', 'MODIFIED', 'DELETED']

/** The kinds a recording watches, one informer each. */
export type RecordedKind = 'Deployment' | 'ReplicaSet' | 'Pod' | 'Event' | 'HorizontalPodAutoscaler'
export const RECORDED_KINDS: readonly RecordedKind[] = [
  'Deployment',
  'ReplicaSet',
  'Pod',
  'Event',
  'HorizontalPodAutoscaler',
]
/** Without these a pass or the status model answers for another cluster. */
export const REQUIRED_KINDS: readonly RecordedKind[] = ['Deployment', 'ReplicaSet', 'Pod']

/** The API resource of each recorded kind (what the informers list and watch). */
export const RESOURCE_OF: Record<RecordedKind, string> = {
  Deployment: 'deployments',
  ReplicaSet: 'replicasets',
  Pod: 'pods',
  Event: 'events',
  HorizontalPodAutoscaler: 'horizontalpodautoscalers',
}

/** What was recorded: `-n NS` (null: every namespace), and NAMEs or `-l` within it. */
export interface TimelineSelection {
  namespace: string | null
  names?: string[]
  labelSelector?: string
}

export interface TimelineHeader {
  apiVersion: typeof TIMELINE_API_VERSION
  kind: typeof TIMELINE_KIND
  /** The kubeconfig's cluster and context names, and the server's address. */
  cluster?: string
  context?: string
  server?: string
  /** GET /version's gitVersion, e.g. v1.36.2. */
  serverVersion?: string
  selection: TimelineSelection
  /** When every informer had listed: the recording is complete from here. */
  start: string
  /** The kinds recorded (a kind the server refused to list is left out, and said so). */
  kinds: RecordedKind[]
  /** Secret-like values were replaced by REDACTED (--no-redact: false). */
  redacted: boolean
  /** How objects were trimmed before they were written. */
  trimmed: string
  /** --max-size: the intermediate updates dropped to stay under it, oldest pods first. */
  compacted?: {podUpdates: number; eventUpdates: number; through: string}
  /** The program that wrote it. */
  recorder?: string
}

/** A watch that expired (410 Gone) and listed again: its kind's changes in between are unknown. */
export interface RelistLine {
  time: string
  type: 'RELIST'
  kind: RecordedKind
  /** When the last event of that kind before the list arrived. */
  since: string
}

/**
 * RFC 3339 with the fraction Go's RFC3339Nano prints (trailing zeros dropped), from epoch ms. Only
 * milliseconds are known here; receive times are not more precise than that anyway.
 */
export function nanoTime(ms: number): string {
  const iso = new Date(ms).toISOString()
  return iso.replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`))
}

export function headerLine(h: TimelineHeader): string {
  return `${JSON.stringify(h)}\n`
}

export function changeLine(ms: number, type: ChangeType, object: unknown): string {
  return `${JSON.stringify({time: nanoTime(ms), type, object})}\n`
}

/**
 * A delta line (./delta.ts): the change as a JSON merge patch against the previous line of the
 * object with this uid, in place of `object`.
 */
export interface DeltaLine {
  time: string
  type: 'MODIFIED' | 'DELETED'
  kind: string
  uid: string
  patch: Record<string, unknown>
}

export function deltaLine(
  ms: number,
  type: 'MODIFIED' | 'DELETED',
  kind: string,
  uid: string,
  patch: Record<string, unknown>,
): string {
  const line: DeltaLine = {time: nanoTime(ms), type, kind, uid, patch}
  return `${JSON.stringify(line)}\n`
}

export function relistLine(ms: number, kind: RecordedKind, since: number): string {
  const line: RelistLine = {time: nanoTime(ms), type: 'RELIST', kind, since: nanoTime(since)}
  return `${JSON.stringify(line)}\n`
}

/** `Kind/namespace/name`: one object across its changes. */
export function objectKeyOf(kind: string, object: {metadata?: {namespace?: string; name?: string}}): string {
  return `${kind}/${object.metadata?.namespace || 'default'}/${object.metadata?.name ?? ''}`
}
