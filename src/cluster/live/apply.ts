// Dry runs of the three ways kubectl applies a Deployment: the object as the API server would
// store it (defaulting, admission and the merge with the live object counted), with nothing written.
//   client  - `kubectl apply`: GET, the three-way strategic merge patch kubectl computes, PATCH
//             (POST when the object does not exist yet), under `kubectl-client-side-apply`.
//   server  - `kubectl apply --server-side`: PATCH application/apply-patch+yaml under a field
//             manager; a field another manager owns is a 409 Conflict unless forced.
//   replace - `kubectl replace`: PUT of the object as written.

import {StatusError} from '../../controller/api/errors.js'
import {clientSideApply} from '../apply/client.js'
import type {ApiClient} from './api.js'
import {collectionPath, objectPath} from './read.js'

export type ApplyMode = 'client' | 'server' | 'replace'

export interface DryRunApplyOptions {
  namespace: string
  name: string
  /** The applier's field manager (`kubectl-client-side-apply` client-side, `kubectl` server-side). */
  fieldManager: string
  /** Server-side: take fields another manager owns instead of failing with a conflict. */
  force?: boolean
  mode?: ApplyMode
}

type Obj = Record<string, unknown>

function asWritten(object: unknown, o: DryRunApplyOptions): Obj {
  const written = object as {metadata?: Record<string, unknown>}
  return {
    ...written,
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {...written.metadata, name: o.name, namespace: o.namespace},
  }
}

const isNotFound = (err: unknown) => err instanceof StatusError && err.code === 404

/** The Deployment as the apply would leave it (dryRun=All). */
export async function dryRunApply(api: ApiClient, object: unknown, o: DryRunApplyOptions): Promise<unknown> {
  const body = asWritten(object, o)
  const path = objectPath('deployments', o.namespace, o.name)
  const query = {dryRun: 'All', fieldManager: o.fieldManager}
  switch (o.mode ?? 'server') {
    case 'server':
      // PATCH application/apply-patch+yaml (JSON is YAML).
      return api.request({
        method: 'PATCH',
        path,
        query: {...query, ...(o.force ? {force: true} : {})},
        body,
        contentType: 'application/apply-patch+yaml',
      })
    case 'replace':
      return api.request({method: 'PUT', path, query, body})
    case 'client': {
      // upstream: kubectl apply's RunApply — get, then create or patch.
      let live: unknown
      try {
        live = await api.request({method: 'GET', path})
      } catch (err) {
        if (!isNotFound(err)) throw err
        const {modified} = clientSideApply(body, undefined)
        return api.request({
          method: 'POST',
          path: collectionPath('deployments', o.namespace),
          query,
          body: modified,
        })
      }
      const {patch} = clientSideApply(body, live)
      if (Object.keys(patch).length === 0) return live
      return api.request({
        method: 'PATCH',
        path,
        query,
        body: patch,
        contentType: 'application/strategic-merge-patch+json',
      })
    }
  }
}
