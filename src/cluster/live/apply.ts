// A server-side dry-run apply: the object as the API server would store it after `kubectl apply`
// (defaulting, admission and the merge with the live object counted), with nothing written.

import type {ApiClient} from './api.js'
import {objectPath} from './read.js'

export interface DryRunApplyOptions {
  namespace: string
  name: string
  /** The applier's field manager (kubectl's client-side apply: `kubectl-client-side-apply`). */
  fieldManager: string
}

/** PATCH application/apply-patch+yaml with dryRun=All (JSON is YAML); force, as a plan reports the result, not the conflicts. */
export async function dryRunApply(api: ApiClient, object: unknown, o: DryRunApplyOptions): Promise<unknown> {
  const written = object as {metadata?: Record<string, unknown>}
  const body = {
    ...written,
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {...written.metadata, name: o.name, namespace: o.namespace},
  }
  return api.request({
    method: 'PATCH',
    path: objectPath('deployments', o.namespace, o.name),
    query: {dryRun: 'All', fieldManager: o.fieldManager, force: true},
    body,
    contentType: 'application/apply-patch+yaml',
  })
}
