// Posting the pass's events as core/v1 Events on the Deployment, as the controller's event
// recorder would (source component deployment-controller), so `kubectl describe` shows them.

import {randomBytes} from 'node:crypto'
import type {Deployment} from '../../controller/api/types.js'
import type {RecordedEvent} from '../action.js'
import type {ApiClient} from './api.js'
import {collectionPath} from './read.js'

export const EVENT_SOURCE = 'deployment-controller'
export const REPORTING_INSTANCE = 'kubectl-deployctl'

/** The core/v1 Event the recorder would create for one recorded event. */
export function eventObject(
  e: RecordedEvent,
  d: Deployment | undefined,
  nowIso: string,
): Record<string, unknown> {
  const suffix = randomBytes(8).toString('hex')
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {name: `${e.object.name}.${suffix}`, namespace: e.object.namespace},
    involvedObject: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: e.object.namespace,
      name: e.object.name,
      uid: d?.metadata.uid,
      resourceVersion: d?.metadata.resourceVersion,
    },
    reason: e.reason,
    message: e.message,
    type: e.type,
    source: {component: EVENT_SOURCE},
    reportingComponent: EVENT_SOURCE,
    reportingInstance: REPORTING_INSTANCE,
    firstTimestamp: nowIso,
    lastTimestamp: nowIso,
    count: 1,
  }
}

/**
 * Posts the events; a failure is returned, not thrown: the recorder is fire-and-forget upstream
 * too, and a pass whose writes succeeded must not be reported as failed because of an event.
 */
export async function postEvents(
  api: ApiClient,
  events: RecordedEvent[],
  d: Deployment | undefined,
  nowIso: string,
  serverDryRun: boolean,
): Promise<string[]> {
  const problems: string[] = []
  for (const e of events) {
    try {
      await api.request({
        method: 'POST',
        path: collectionPath('events', e.object.namespace),
        body: eventObject(e, d, nowIso),
        query: serverDryRun ? {dryRun: 'All'} : undefined,
      })
    } catch (err) {
      problems.push(`event ${e.reason} not recorded: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  return problems
}
