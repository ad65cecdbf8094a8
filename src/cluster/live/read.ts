// Reading a cluster: one list call per kind per namespace (paginated), never one per Deployment.

import type {Deployment, KubeObject, Pod, ReplicaSet} from '../../controller/api/types.js'
import {type FieldError, fieldErrorText, required, typeError} from '../load/problems.js'
import {decodeCheck, type KeptKind} from '../load/schema.js'
import {validateServedCounts} from '../validation/index.js'
import {emptyWorld, type World} from '../world.js'
import {type ApiClient, ConnectionError} from './api.js'

export type ListedResource =
  | 'deployments'
  | 'replicasets'
  | 'pods'
  | 'events'
  | 'horizontalpodautoscalers'
  | 'resourcequotas'
  | 'nodes'

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
  nodes: {prefix: '/api/v1', apiVersion: 'v1', kind: 'Node'},
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
/** Pages of a list followed at most (a million objects). */
export const MAX_LIST_PAGES = 2000

/**
 * Every object of a kind, following `continue` tokens; items get the apiVersion/kind lists omit.
 * `transform` turns each item into what the caller keeps as its page arrives (an informer's trim),
 * so that a cold list never holds every page's full objects at once.
 */
export async function listAll<T extends KubeObject>(
  api: ApiClient,
  resource: ListedResource,
  namespace: string | undefined,
  query: Record<string, string> = {},
  transform?: (item: T) => T,
): Promise<{items: T[]; resourceVersion: string}> {
  const {apiVersion, kind} = GROUP_PATH[resource]
  const items: T[] = []
  let token: string | undefined
  let resourceVersion = ''
  // A server whose `continue` token comes back, or never ends, would be followed for ever.
  const tokens = new Set<string>()
  const listed = new Set<string>()
  const path = collectionPath(resource, namespace)
  do {
    const page = await api.request<ListBody<T>>({
      method: 'GET',
      path,
      query: {...query, limit: PAGE_SIZE, continue: token},
    })
    if (
      page === null ||
      typeof page !== 'object' ||
      Array.isArray(page) ||
      !Array.isArray(page.items ?? [])
    ) {
      throw new ConnectionError(`the server's answer to GET ${path} is not a list of ${resource}`)
    }
    // upstream: client-go decodes a list into the list type it asked for, and fails on another kind.
    const listKind = (page as {kind?: unknown}).kind
    const listVersion = (page as {apiVersion?: unknown}).apiVersion
    if (
      (listKind !== undefined && listKind !== `${kind}List`) ||
      (listVersion !== undefined && listVersion !== apiVersion)
    ) {
      throw new ConnectionError(
        `the server's answer to GET ${path} is not a list of ${resource}: it is a ${String(listKind)} of ${String(listVersion)}, not a ${kind}List of ${apiVersion}`,
      )
    }
    const before = items.length
    for (const [i, item] of (page.items ?? []).entries()) {
      const bad = malformed(item, resource)
      if (bad) {
        const who = identity(item, resource)
        throw new ConnectionError(
          who
            ? `the server's answer to GET ${path} holds ${who}, which no API server stores: ${fieldErrorText(bad)}`
            : `the server's answer to GET ${path} is not a list of ${resource}: ${fieldErrorText({...bad, path: ['items', i, ...bad.path]})}`,
        )
      }
      const typed = {apiVersion, kind, ...item}
      items.push(transform ? transform(typed) : typed)
    }
    token = page.metadata?.continue || undefined
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion
    if (token !== undefined) {
      if (tokens.has(token)) {
        throw new ConnectionError(
          `the server's list of ${resource} does not end: it answered the same continue token twice`,
        )
      }
      if (tokens.size + 1 >= MAX_LIST_PAGES) {
        throw new ConnectionError(
          `the server's list of ${resource} does not end: more than ${MAX_LIST_PAGES} pages of ${PAGE_SIZE}`,
        )
      }
      tokens.add(token)
    }
    if (repeated(listed, items, before)) {
      throw new ConnectionError(
        `the server's list of ${resource} does not end: a page after a continue token repeats objects it already listed`,
      )
    }
  } while (token)
  return {items, resourceVersion}
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * What an object the API server could not have sent lacks: the fields every reader of it takes as
 * given (an API server always sends them), so that a hostile answer is an error here rather than a
 * JavaScript one later.
 */
export function malformed(item: unknown, resource: ListedResource): FieldError | undefined {
  if (!isObject(item)) return typeError([], item, 'an object')
  const meta = item.metadata
  if (!isObject(meta))
    return meta == null ? required(['metadata']) : typeError(['metadata'], meta, 'an object')
  // Nodes are cluster-scoped: they have no namespace.
  for (const field of resource === 'nodes' ? (['name'] as const) : (['name', 'namespace'] as const)) {
    const v = meta[field]
    if (typeof v !== 'string' || v === '') {
      return v == null || v === ''
        ? required(['metadata', field])
        : typeError(['metadata', field], v, 'a string')
    }
  }
  const objects: string[][] =
    resource === 'deployments' || resource === 'replicasets'
      ? [['spec'], ['spec', 'selector'], ['spec', 'template']]
      : resource === 'pods'
        ? [['spec']]
        : []
  for (const path of objects) {
    let v: unknown = item
    for (const p of path) v = (v as Record<string, unknown>)[p]
    if (!isObject(v)) return v == null ? required(path) : typeError(path, v, 'an object')
  }
  if (item.status != null && !isObject(item.status)) return typeError(['status'], item.status, 'an object')
  if (item.kind !== undefined && item.kind !== GROUP_PATH[resource].kind) {
    return typeError(['kind'], item.kind, JSON.stringify(GROUP_PATH[resource].kind))
  }
  // Decoded strictly as client-go decodes (types, int32 ranges), and the counts validation keeps
  // non-negative: `replicas: "three"` or `-4` is an error, not a 0 the controller acts on.
  const kept = KEPT[resource]
  if (kept === undefined) return undefined
  const wrong = decodeCheck(item, kept, false)
  if (wrong) return wrong
  return kept === 'Pod' ? undefined : validateServedCounts(kept, item)[0]
}

const KEPT: Partial<Record<ListedResource, KeptKind>> = {
  deployments: 'Deployment',
  replicasets: 'ReplicaSet',
  pods: 'Pod',
}

const GROUP: Record<ListedResource, string> = {
  deployments: '.apps',
  replicasets: '.apps',
  pods: '',
  events: '',
  horizontalpodautoscalers: '.autoscaling',
  resourcequotas: '',
  nodes: '',
}

/** `deployments.apps "web" in namespace "demo"`, when the item names itself; else undefined. */
export function identity(item: unknown, resource: ListedResource): string | undefined {
  const meta = isObject(item) && isObject(item.metadata) ? item.metadata : undefined
  const name = meta?.name
  const namespace = meta?.namespace
  if (typeof name !== 'string' || name === '' || typeof namespace !== 'string' || namespace === '')
    return undefined
  return `${resource}${GROUP[resource]} ${JSON.stringify(name)} in namespace ${JSON.stringify(namespace)}`
}

/**
 * Whether the objects from `from` on name one listed before them (a consistent list never does);
 * `listed` keeps the names seen so far across pages.
 */
function repeated(listed: Set<string>, items: readonly KubeObject[], from: number): boolean {
  let again = false
  for (let i = from; i < items.length; i++) {
    const o = items[i]!
    const key = `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`
    if (from > 0 && listed.has(key)) again = true
    listed.add(key)
  }
  return again
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
