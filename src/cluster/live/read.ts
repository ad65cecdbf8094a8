// Reading a cluster: one list call per kind per namespace (paginated), never one per Deployment.

import type {Deployment, KubeObject, Pod, ReplicaSet} from '../../controller/api/types.js'
import {emptyWorld, type World} from '../world.js'
import type {ApiClient} from './api.js'

export type ListedResource =
  | 'deployments'
  | 'replicasets'
  | 'pods'
  | 'events'
  | 'horizontalpodautoscalers'
  | 'resourcequotas'

const GROUP_PATH: Record<ListedResource, {prefix: string; apiVersion: string; kind: string}> = {
  deployments: {prefix: '/apis/apps/v1', apiVersion: 'apps/v1', kind: 'Deployment'},
  replicasets: {prefix: '/apis/apps/v1', apiVersion: 'apps/v1', kind: 'ReplicaSet'},
  pods: {prefix: '/api/v1', apiVersion: 'v1', kind: 'Pod'},
  events: {prefix: '/api/v1', apiVersion: 'v1', kind: 'Event'},
  horizontalpodautoscalers: {
    prefix: '/apis/autoscaling/v2',
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
  },
  resourcequotas: {prefix: '/api/v1', apiVersion: 'v1', kind: 'ResourceQuota'},
}

export function collectionPath(resource: ListedResource, namespace: string | undefined): string {
  const {prefix} = GROUP_PATH[resource]
  return namespace === undefined
    ? `${prefix}/${resource}`
    : `${prefix}/namespaces/${encodeURIComponent(namespace)}/${resource}`
}

export function objectPath(
  resource: ListedResource,
  namespace: string,
  name: string,
  subresource?: string,
): string {
  return `${collectionPath(resource, namespace)}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`
}

interface ListBody<T> {
  items?: T[]
  metadata?: {continue?: string; resourceVersion?: string}
}

export const PAGE_SIZE = 500

/** Every object of a kind, following `continue` tokens; items get the apiVersion/kind lists omit. */
export async function listAll<T extends KubeObject>(
  api: ApiClient,
  resource: ListedResource,
  namespace: string | undefined,
  query: Record<string, string> = {},
): Promise<{items: T[]; resourceVersion: string}> {
  const {apiVersion, kind} = GROUP_PATH[resource]
  const items: T[] = []
  let token: string | undefined
  let resourceVersion = ''
  do {
    const page = await api.request<ListBody<T>>({
      method: 'GET',
      path: collectionPath(resource, namespace),
      query: {...query, limit: PAGE_SIZE, continue: token},
    })
    for (const item of page.items ?? []) items.push({apiVersion, kind, ...item})
    token = page.metadata?.continue || undefined
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion
  } while (token)
  return {items, resourceVersion}
}

/** Which pods a read lists: the pass needs them only for Recreate Deployments, explain always. */
export type PodsToRead = 'always' | 'never' | 'recreate-only'

export interface LiveReadOptions {
  /** undefined: every namespace (-A). */
  namespace: string | undefined
  /** Pods are listed only where a pass or an explanation needs them. */
  pods: PodsToRead
}

/** The world of a namespace (or of all namespaces) as the controller's informers would see it. */
export async function readWorld(api: ApiClient, opts: LiveReadOptions): Promise<World> {
  const world = emptyWorld()
  const [deployments, replicaSets] = await Promise.all([
    listAll<Deployment>(api, 'deployments', opts.namespace),
    listAll<ReplicaSet>(api, 'replicasets', opts.namespace),
  ])
  world.deployments = deployments.items
  world.replicaSets = replicaSets.items
  const wantPods =
    opts.pods === 'always' ||
    (opts.pods === 'recreate-only' && world.deployments.some((d) => d.spec?.strategy?.type === 'Recreate'))
  if (wantPods) world.pods = (await listAll<Pod>(api, 'pods', opts.namespace)).items
  return world
}
