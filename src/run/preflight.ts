// Before `run` starts: is another Deployment controller at work? Two controllers would fight over
// the same ReplicaSets. Two signs are checked: recent ScalingReplicaSet events from
// deployment-controller that this tool did not post, and a held, freshly renewed
// kube-controller-manager Lease (which may run without its Deployment controller: --force then).

import type {ApiClient} from '../cluster/live/api.js'
import {EVENT_SOURCE, REPORTING_INSTANCE} from '../cluster/live/events.js'
import {listAll} from '../cluster/live/read.js'
import type {KubeObject} from '../controller/api/types.js'
import {timeValue} from '../controller/util/equality.js'

/** Events newer than this count as "recent". */
export const RECENT_EVENTS_MS = 5 * 60_000
/** A lease renewed within max(2 × leaseDurationSeconds, this) counts as held. */
export const LEASE_FRESH_MIN_MS = 30_000

export interface PreflightResult {
  /** Signs of another active controller, one sentence each. */
  signs: string[]
  /** Checks that could not be made (e.g. forbidden by RBAC). */
  warnings: string[]
}

interface CoreEvent {
  metadata: {name?: string; namespace?: string; creationTimestamp?: string}
  involvedObject?: {kind?: string; namespace?: string; name?: string}
  reason?: string
  message?: string
  source?: {component?: string; host?: string}
  reportingComponent?: string
  reportingInstance?: string
  firstTimestamp?: string
  lastTimestamp?: string
  eventTime?: string
  series?: {lastObservedTime?: string}
}

interface Lease {
  spec?: {holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number}
}

/** When an event last happened, as kubectl get events judges it. */
function eventTime(e: CoreEvent): number {
  for (const t of [e.series?.lastObservedTime, e.lastTimestamp, e.eventTime, e.metadata.creationTimestamp]) {
    const v = timeValue(t)
    if (Number.isFinite(v)) return v
  }
  return Number.NaN
}

export async function detectOtherController(
  api: ApiClient,
  namespace: string | undefined,
  now: number,
): Promise<PreflightResult> {
  const signs: string[] = []
  const warnings: string[] = []
  try {
    const {items} = await listAll<KubeObject>(api, 'events', namespace, {
      fieldSelector: `reason=ScalingReplicaSet,source=${EVENT_SOURCE}`,
    })
    const foreign = (items as unknown as CoreEvent[]).filter(
      (e) =>
        e.reason === 'ScalingReplicaSet' &&
        (e.source?.component ?? e.reportingComponent) === EVENT_SOURCE &&
        e.reportingInstance !== REPORTING_INSTANCE &&
        now - eventTime(e) <= RECENT_EVENTS_MS,
    )
    if (foreign.length > 0) {
      foreign.sort((a, b) => eventTime(b) - eventTime(a))
      const e = foreign[0] as CoreEvent
      const what = `${e.involvedObject?.namespace ?? e.metadata.namespace}/${e.involvedObject?.name ?? ''}`
      const ago = Math.max(0, Math.round((now - eventTime(e)) / 1000))
      signs.push(
        `${foreign.length} ScalingReplicaSet event${foreign.length === 1 ? '' : 's'} from ${EVENT_SOURCE} in the last ${RECENT_EVENTS_MS / 60_000} minutes that kubectl-deployctl did not post (latest ${ago}s ago on deployment ${what}: "${e.message ?? ''}")`,
      )
    }
  } catch (err) {
    warnings.push(`cannot list events to check for another Deployment controller: ${message(err)}`)
  }
  try {
    const lease = await api.request<Lease>({
      method: 'GET',
      path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager',
    })
    const holder = lease?.spec?.holderIdentity
    const renewed = timeValue(lease?.spec?.renewTime)
    const fresh = Math.max(2 * (lease?.spec?.leaseDurationSeconds ?? 15) * 1000, LEASE_FRESH_MIN_MS)
    if (holder && Number.isFinite(renewed) && now - renewed <= fresh) {
      signs.push(
        `the Lease kube-system/kube-controller-manager is held by ${holder} (renewed ${Math.max(0, Math.round((now - renewed) / 1000))}s ago): kube-controller-manager runs, and its Deployment controller with it unless started with --controllers=-deployment`,
      )
    }
  } catch (err) {
    const code = (err as {code?: number}).code
    if (code !== 404) warnings.push(`cannot read the kube-controller-manager Lease: ${message(err)}`)
  }
  return {signs, warnings}
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
