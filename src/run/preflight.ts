// Before `run` starts: is another Deployment controller at work? Two controllers would fight over
// the same ReplicaSets. Only evidence that a user of one namespace cannot forge may stop the start:
// a held, freshly renewed kube-controller-manager Lease in kube-system (writable only by the
// control plane and cluster admins). What such a user can write (Events, a Deployment's
// managedFields) is at most a warning, so a forged object can neither stop a first start nor keep a
// restarting pod in a crash loop. Any check that cannot be made is a warning, never a refusal.

import type {ApiClient} from '../cluster/live/api.js'
import {collectionPath} from '../cluster/live/read.js'
import {timeValue} from '../controller/util/equality.js'

/** Writes newer than this count as "recent". */
export const RECENT_WRITES_MS = 5 * 60_000
/** A lease renewed within max(2 × leaseDurationSeconds, this) counts as held. */
export const LEASE_FRESH_MIN_MS = 30_000
/** How many Deployments the managedFields check reads (one page: start-up stays bounded). */
export const MANAGED_FIELDS_SAMPLE = 500
/** The field manager of kube-controller-manager's writes (the first part of its User-Agent). */
export const KCM_MANAGER = 'kube-controller-manager'

export interface PreflightResult {
  /** Unforgeable signs of another active controller, one sentence each: start-up stops on them. */
  signs: string[]
  /** Weak signs, and checks that could not be made (e.g. forbidden by RBAC): logged only. */
  warnings: string[]
}

interface Lease {
  spec?: {holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number}
}

interface ManagedFieldsEntry {
  manager?: string
  operation?: string
  subresource?: string
  time?: string
}

interface DeploymentList {
  items?: Array<{metadata?: {name?: string; namespace?: string; managedFields?: ManagedFieldsEntry[]}}>
}

export async function detectOtherController(
  api: ApiClient,
  namespace: string | undefined,
  now: number,
): Promise<PreflightResult> {
  const signs: string[] = []
  const warnings: string[] = []
  try {
    const sign = await heldControllerManagerLease(api, now)
    if (sign) signs.push(sign)
  } catch (err) {
    const code = (err as {code?: number}).code
    if (code !== 404) warnings.push(`cannot read the kube-controller-manager Lease: ${message(err)}`)
  }
  try {
    const hint = await recentStatusWritesByControllerManager(api, namespace, now)
    if (hint) warnings.push(hint)
  } catch (err) {
    warnings.push(`cannot list Deployments to check for another Deployment controller: ${message(err)}`)
  }
  return {signs, warnings}
}

/** kube-system/kube-controller-manager held and renewed lately: kube-controller-manager runs. */
async function heldControllerManagerLease(api: ApiClient, now: number): Promise<string | undefined> {
  const lease = await api.request<Lease>({
    method: 'GET',
    path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager',
  })
  const holder = lease?.spec?.holderIdentity
  const renewed = timeValue(lease?.spec?.renewTime)
  const fresh = Math.max(2 * (lease?.spec?.leaseDurationSeconds ?? 15) * 1000, LEASE_FRESH_MIN_MS)
  if (!holder || !Number.isFinite(renewed) || now - renewed > fresh) return undefined
  return `the Lease kube-system/kube-controller-manager is held by ${holder} (renewed ${Math.max(0, Math.round((now - renewed) / 1000))}s ago): kube-controller-manager runs, and its Deployment controller with it unless started with --controllers=*,-deployment-controller`
}

/**
 * Deployments whose status kube-controller-manager wrote lately (their managedFields say so).
 * Weak: whoever may update a Deployment may write its managedFields.
 */
async function recentStatusWritesByControllerManager(
  api: ApiClient,
  namespace: string | undefined,
  now: number,
): Promise<string | undefined> {
  const list = await api.request<DeploymentList>({
    method: 'GET',
    path: collectionPath('deployments', namespace),
    query: {limit: MANAGED_FIELDS_SAMPLE},
  })
  const recent: Array<{key: string; at: number}> = []
  for (const d of Array.isArray(list?.items) ? list.items : []) {
    const entries = Array.isArray(d?.metadata?.managedFields) ? d.metadata.managedFields : []
    const times = entries
      .filter((e) => e?.manager === KCM_MANAGER && e.operation === 'Update' && e.subresource === 'status')
      .map((e) => timeValue(e.time))
      .filter((t) => Number.isFinite(t) && now - t <= RECENT_WRITES_MS)
    if (times.length > 0)
      recent.push({key: `${d.metadata?.namespace ?? ''}/${d.metadata?.name ?? ''}`, at: Math.max(...times)})
  }
  if (recent.length === 0) return undefined
  recent.sort((a, b) => b.at - a.at)
  const latest = recent[0] as {key: string; at: number}
  const n = recent.length
  return `${n} Deployment${n === 1 ? "'s status was" : "s' status was"} written by ${KCM_MANAGER} in the last ${RECENT_WRITES_MS / 60_000} minutes (latest ${Math.max(0, Math.round((now - latest.at) / 1000))}s ago: deployment ${latest.key}); if its Deployment controller still runs, the two controllers will fight over the same ReplicaSets (start it with --controllers=*,-deployment-controller)`
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
