// The result of one controller pass, as `dry-run sync -o json` prints it. This shape is the JSON
// contract documented in docs/output.md: add fields, never rename or remove them.

import type {Action, RecordedEvent} from '../cluster/action.js'
import {KUBERNETES_VERSION} from '../controller/features.js'
import type {Fact} from '../controller/trace.js'
import {formatTime} from '../util/duration.js'

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
  facts?: Fact[]
}

/**
 * The one envelope of every JSON/YAML document a command prints (docs/output.md): the
 * pass's clock, the controller release, the gates, and one item per Deployment.
 */
export interface ResultEnvelope<Kind extends string, Item> {
  kind: Kind
  apiVersion: typeof API_VERSION
  /** The pass's clock, RFC 3339. */
  now: string
  kubernetesVersion: string
  featureGates: Record<string, boolean>
  items: Item[]
}

/** v1alpha2: the list key is `items` in every document (v1alpha1 said `results` and `explanations`). */
export const API_VERSION = 'deployctl.kubectl.io/v1alpha2'

export type SyncResult = ResultEnvelope<'SyncResult', DeploymentResult>

export function envelope<Kind extends string, Item>(
  kind: Kind,
  now: number,
  gates: {values: Record<string, boolean>},
  items: Item[],
): ResultEnvelope<Kind, Item> {
  return {
    kind,
    apiVersion: API_VERSION,
    now: formatTime(now),
    kubernetesVersion: KUBERNETES_VERSION,
    featureGates: {...gates.values},
    items,
  }
}
