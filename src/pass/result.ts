// The result of one controller pass, as `dry-run sync -o json` prints it. This shape is the JSON
// contract documented in the README: add fields, never rename or remove them.

import type {Action, RecordedEvent} from '../cluster/action.js'

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
