// The result of one controller pass, as `dry-run sync -o json` prints it. This shape is the JSON
// contract documented in docs/output.md: add fields, never rename or remove them.

import {type Action, isWrite, type RecordedEvent} from '../cluster/action.js'
import type {Fact} from '../controller/trace.js'
import {type KubeMinor, kubeVersionString, NEWEST_MINOR} from '../controller/version.js'
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
  /** Live mode: how many times the pass ran (more than 1 after --retries re-read and ran it anew). */
  attempts?: number
  /** Facts the pass recorded on its way (numbers behind each decision), for `explain`. */
  facts?: Fact[]
}

/**
 * The writes the server refused in the pass's final attempt. The controller may go on after one
 * (upstream's reconcileOldReplicaSets swallows a failed scale-down and returns false, nil), so
 * `error` can be null with a failed write: the exit code and stderr must still say so. Earlier
 * attempts (--retries) are what the retry answered, so only the last counts.
 */
export function failedWrites(r: DeploymentResult): Action[] {
  const last = r.attempts ?? r.actions.reduce((n, a) => Math.max(n, a.attempt ?? 0), 0)
  return r.actions.filter((a) => a.outcome === 'failed' && (a.attempt ?? last) === last)
}

/** Whether a Deployment's pass failed: the sync returned an error, or a write of it was refused. */
export function passFailed(r: DeploymentResult): boolean {
  return r.error !== null || failedWrites(r).length > 0
}

/**
 * Whether a pass changed anything: a write it made, or in `dry-run sync` would make (no outcome);
 * a refused or skipped write changed nothing. The `get` before an adoption is a read.
 */
export function passWrote(r: DeploymentResult): boolean {
  return r.actions.some((a) => isWrite(a) && (a.outcome === undefined || a.outcome === 'succeeded'))
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

/**
 * v1alpha3: one item shape (status/item.ts), `deployment` and `verdict` first in every item, and
 * reconcile-once prints its SyncResult on files too; v1alpha2 made the list key `items` everywhere.
 */
export const API_VERSION = 'deployctl.kubectl.io/v1alpha3'

export type SyncResult = ResultEnvelope<'SyncResult', DeploymentResult>

export function envelope<Kind extends string, Item>(
  kind: Kind,
  now: number,
  gates: {values: Record<string, boolean>; kubeVersion?: KubeMinor},
  items: Item[],
): ResultEnvelope<Kind, Item> {
  return {
    kind,
    apiVersion: API_VERSION,
    now: formatTime(now),
    kubernetesVersion: kubeVersionString(gates.kubeVersion ?? NEWEST_MINOR),
    featureGates: {...gates.values},
    items,
  }
}
