// The cluster's side of completion: namespaces, Deployment names and contexts, read with the
// connection flags typed so far (--kubeconfig, --context, -n...) as the command itself would, and
// given up after a short time, since a shell waits for the answer.

import type {ConnectionWords, Lookup} from './complete.js'

/** How long a completion waits for the API server, unless --request-timeout was typed. */
export const COMPLETION_TIMEOUT_MS = 3000

/** At most this many names are listed (one page): enough to choose from while typing. */
const LIMIT = 500

interface NamedList {
  items?: Array<{metadata?: {name?: string}}>
}

async function connection(conn: ConnectionWords) {
  const {connect} = await import('../cluster/live/kubeconfig.js')
  return connect({...conn, 'request-timeout': conn['request-timeout'] ?? `${COMPLETION_TIMEOUT_MS}ms`})
}

async function names(conn: ConnectionWords, path: (namespace: string) => string): Promise<string[]> {
  const c = await connection(conn)
  const {ApiClient} = await import('../cluster/live/api.js')
  const list = await withDeadline(
    new ApiClient(c).request<NamedList>({method: 'GET', path: path(c.namespace), query: {limit: LIMIT}}),
    c.requestTimeoutMs || COMPLETION_TIMEOUT_MS,
  )
  return (list.items ?? []).flatMap((i) => (i.metadata?.name ? [i.metadata.name] : [])).sort()
}

/** Retries of a read (after a 5xx, say) do not stretch the wait past the deadline. */
function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('completion: the API server did not answer in time')), ms)
  })
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer))
}

export const clusterLookup: Lookup = {
  namespaces: (conn) => names(conn, () => '/api/v1/namespaces'),
  deployments: (conn) =>
    names(conn, (ns) => `/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/deployments`),
  pods: (conn) => names(conn, (ns) => `/api/v1/namespaces/${encodeURIComponent(ns)}/pods`),
  replicaSets: (conn) =>
    names(conn, (ns) => `/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/replicasets`),
  async contexts(conn) {
    const c = await connection({kubeconfig: conn.kubeconfig})
    return c.kc.getContexts().map((x) => x.name)
  },
}
