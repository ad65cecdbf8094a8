// The result of one controller pass, as `dry-run sync -o json` prints it. This shape is the JSON
// contract documented in the README: add fields, never rename or remove them.

import type {EventType} from '../controller/interfaces.js'

export type ActionVerb = 'get' | 'create' | 'update' | 'patch' | 'delete'
export type ActionResource = 'replicasets' | 'deployments' | 'pods'

export interface Action {
  verb: ActionVerb
  resource: ActionResource
  subresource?: 'status'
  namespace: string
  name: string
  /** create/update: the object as the controller sent it. */
  object?: unknown
  /** patch: the patch body. */
  patch?: unknown
  patchType?: string
  /** Live mode: what became of the write (skipped: not sent because the pass had stopped). */
  outcome?: 'succeeded' | 'failed' | 'skipped'
  /** Live mode: the server's error for a failed write. */
  error?: string
}

export interface RecordedEvent {
  type: EventType
  reason: string
  message: string
  object: {kind: 'Deployment'; namespace: string; name: string}
}

export interface Requeue {
  /** after: AddAfter with a delay; rateLimited: AddRateLimited (error or a deadline under 1s away). */
  kind: 'after' | 'rateLimited'
  seconds?: number
}

export interface DeploymentResult {
  deployment: {namespace: string; name: string}
  path: string[]
  actions: Action[]
  events: RecordedEvent[]
  /** The delay the controller would requeue this key with; null when it would not requeue it. */
  requeueAfterSeconds: number | null
  requeue: Requeue | null
  error: string | null
  /** Facts the pass recorded on its way (numbers behind each decision), for `explain`. */
  facts?: Array<{fn: string; name: string; value: unknown}>
}

export interface SyncResult {
  kind: 'SyncResult'
  apiVersion: 'deployctl.kubectl.io/v1alpha1'
  now: string
  kubernetesVersion: string
  featureGates: Record<string, boolean>
  results: DeploymentResult[]
}

/** Writes only; `get` (the uncached re-read before adoption) is a read and is left out. */
export function isWrite(a: Action): boolean {
  return a.verb !== 'get'
}
