// An in-memory Kubernetes API server on node:http that kubectl 1.32 and @kubernetes/client-node
// accept: discovery, OpenAPI v3 for kubectl's validation, CRUD/patch/watch on the resources in
// resources.ts, status and scale subresources, Table output, and fault injection.

import {execFileSync} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {TLSSocket} from 'node:tls'
import {parse as parseYaml, stringify as stringifyYaml} from 'yaml'
import {ApplyConflictError, serverSideApply, trackUpdate} from '../../src/cluster/apply/managed.js'
import {dropDisabledPodSpecFields} from '../../src/cluster/validation/drop-disabled.js'
import {keepsGatedFields, type ParsedFeatureGates, parseFeatureGates} from '../../src/controller/features.js'
import {resolveKubeVersion} from '../../src/controller/version.js'
import {simulatedNode} from '../../src/sim/nodes.js'
import {
  apiGroupDoc,
  apiGroupList,
  apiResourceList,
  apiVersions,
  openAPIV2Proto,
  openAPIV3Doc,
  openAPIV3Index,
  serverVersion,
} from './discovery.js'
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  expired,
  invalid,
  methodNotAllowed,
  notFound,
  unauthorized,
  unsupportedMediaType,
} from './errors.js'
import {
  FaultController,
  type FaultDecision,
  type FaultMatch,
  type FaultPlan,
  matches,
  type RequestInfo,
  type Verb,
} from './faults.js'
import type {Kinds} from './kinds.js'
import {JsonPatchError, jsonPatch, mergePatch, PATCH_TYPES, strategicMergePatch} from './patch.js'
import {podLog} from './pod-logs.js'
import {decodeKubernetesProtobuf} from './protobuf.js'
import {admitPod} from './quota.js'
import {groupVersion, RESOURCES, type ResourceDef, scaleSelector, validateStatus} from './resources.js'
import {
  type FieldRequirement,
  type LabelSelector,
  labelsOf,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
} from './selectors.js'
import {type ClusterAccess, SimulatedCluster, type SimulateOptions, simulatedNodeNames} from './simulate.js'
import {type Change, defFor, keyFor, resolveResource, Store} from './store.js'
import {
  child,
  clone,
  isObj,
  jsonEqual,
  metaOf,
  num,
  type Obj,
  randomSuffix,
  rfc3339,
  semanticEqual,
  str,
} from './util.js'

export interface RequestLog {
  method: string
  /** Path without the query string. */
  path: string
  query: Record<string, string>
  /** The parsed JSON (or YAML) body, the raw text if it did not parse, undefined when empty. */
  body: unknown
  contentType?: string
  accept?: string
  userAgent?: string
  authorization?: string
  /** The subject CN of the client certificate the connection presented (with clientCA). */
  clientCN?: string
  /** The Impersonate-User, Impersonate-Uid and Impersonate-Group headers, when sent. */
  impersonate?: {user?: string; uid?: string; groups?: string[]}
  verb?: Verb
  resource?: string
  subresource?: string
  namespace?: string
  name?: string
  /** The response status, once sent. */
  status?: number
  time: number
}

/**
 * One change to the store and who made it: the User-Agent of the request that caused it (a
 * cascade, e.g. garbage-collected dependents, counts as the request's), or `simulation` for the
 * moving cluster's components. Lease writes carry the holder they wrote, so a test can replay who
 * held the lease at every write.
 */
export interface WriteRecord {
  rv: number
  type: 'ADDED' | 'MODIFIED' | 'DELETED'
  resource: string
  namespace?: string
  name: string
  writer: string
  /** For leases: spec.holderIdentity after the change ('' when released or deleted). */
  holder?: string
  time: number
}

export interface ApiServerOptions {
  port?: number
  host?: string
  /** Objects stored at start-up (apiVersion/kind decide the resource; namespaces are created as needed). */
  objects?: unknown[]
  faults?: FaultPlan
  /** Serve https with a throwaway self-signed certificate (needs openssl). */
  tls?: boolean
  /**
   * With tls: PEM of a CA whose client certificates the server asks for and verifies (a handshake
   * without one, or with another, fails); the subject CN is logged as clientCN.
   */
  clientCA?: string
  /** When set, requests must carry `Authorization: Bearer <requireToken>`; others get 401. */
  requireToken?: string
  /** The token written into the kubeconfig (default: requireToken, else `test-token`). */
  token?: string
  /**
   * What TokenReview and SubjectAccessReview answer (kube-apiserver's authentication.k8s.io and
   * authorization.k8s.io APIs, which `run --metrics-secure` asks): the tokens the server knows and
   * whose they are, and the non-resource URLs a user or group may use, as RBAC's nonResourceURLs.
   */
  reviews?: {
    tokens: Record<string, {username: string; uid?: string; groups?: string[]}>
    nonResource?: Array<{user?: string; group?: string; paths: string[]; verbs: string[]}>
  }
  /** The release /version reports: "1.35" or a gitVersion such as "v1.35.2" (default v1.36.3). */
  kubeVersion?: string
  /** How many changes the watch window keeps (default 10000). */
  historyLimit?: number
  /** BOOKMARK interval on watches that allow them (default 1000 ms). */
  bookmarkIntervalMs?: number
  /** Print one line per request to stderr. */
  logRequests?: boolean
  /**
   * A moving cluster (simulate.ts): a ReplicaSet controller, a scheduler, a kubelet and the garbage
   * collector's orphan cleanup run in real time; pod DELETEs are graceful; `/openapi/v2` is served
   * (kubectl's client-side validation of a `kind: List` asks for it). Without it the world is frozen.
   */
  simulate?: SimulateOptions | boolean
}

export interface ApiServer {
  url: string
  /** With tls: the server's self-signed certificate (PEM), for a kubeconfig that verifies it. */
  caPem?: string
  port: number
  kubeconfigPath: string
  /** A KUBECACHEDIR for kubectl and the plugin (discovery cache), removed with the server. */
  cacheDir: string
  token: string
  /** Every change to the store since start-up (seeded objects excepted), in resourceVersion order. */
  writes: WriteRecord[]
  requests: RequestLog[]
  store: Store
  faults: FaultController
  /** Sends a BOOKMARK now on every watch that allows bookmarks. */
  sendBookmarks(): void
  /** The moving cluster, with `simulate`. */
  simulation?: SimulatedCluster
  close(): Promise<void>
}

type Want = {as: 'json'} | {as: 'table'; version: string} | {as: 'partial'; version: string}

interface Watcher {
  def: ResourceDef
  namespace?: string
  label: LabelSelector
  field: FieldRequirement[]
  res: ServerResponse
  want: Want
  bookmarks: boolean
  includeObject: string
  closed: boolean
  close(graceful: boolean): void
}

interface Ctx {
  req: IncomingMessage
  res: ServerResponse
  method: string
  path: string
  query: URLSearchParams
  rawBody: string
  rawBuf: Buffer
  log: RequestLog
  decision: FaultDecision
  want: Want
  warnings: string[]
}

interface ResourceRoute {
  def: ResourceDef
  namespace?: string
  name?: string
  subresource?: string
  watchPath: boolean
}

type Route =
  | {
      type:
        | 'version'
        | 'health'
        | 'api'
        | 'apis'
        | 'openapiv2'
        | 'openapiv3'
        | 'notfound'
        | 'tokenreview'
        | 'subjectaccessreview'
    }
  | {type: 'group'; group: string}
  | {type: 'resourceList' | 'openapiv3gv'; group: string; version: string}
  | ({type: 'resource'} & ResourceRoute)

const HEALTH = new Set(['healthz', 'livez', 'readyz'])

function route(path: string, kinds: Kinds): Route {
  const seg = path.split('/').filter((s) => s !== '')
  if (seg.length === 1 && seg[0] === 'version') return {type: 'version'}
  if (path === '/apis/authentication.k8s.io/v1/tokenreviews') return {type: 'tokenreview'}
  if (path === '/apis/authorization.k8s.io/v1/subjectaccessreviews') return {type: 'subjectaccessreview'}
  if (seg.length >= 1 && HEALTH.has(seg[0] as string)) return {type: 'health'}
  if (seg[0] === 'openapi') {
    if (seg[1] === 'v2' && seg.length === 2) return {type: 'openapiv2'}
    if (seg[1] === 'v3') {
      if (seg.length === 2) return {type: 'openapiv3'}
      if (seg[2] === 'api' && seg.length === 4)
        return {type: 'openapiv3gv', group: '', version: seg[3] as string}
      if (seg[2] === 'apis' && seg.length === 5) {
        return {type: 'openapiv3gv', group: seg[3] as string, version: seg[4] as string}
      }
    }
    return {type: 'notfound'}
  }
  let group: string
  let version: string
  let rest: string[]
  if (seg[0] === 'api') {
    if (seg.length === 1) return {type: 'api'}
    group = ''
    version = seg[1] as string
    rest = seg.slice(2)
  } else if (seg[0] === 'apis') {
    if (seg.length === 1) return {type: 'apis'}
    if (seg.length === 2) return {type: 'group', group: seg[1] as string}
    group = seg[1] as string
    version = seg[2] as string
    rest = seg.slice(3)
  } else {
    return {type: 'notfound'}
  }
  if (rest.length === 0) return {type: 'resourceList', group, version}
  let watchPath = false
  if (rest[0] === 'watch') {
    watchPath = true
    rest = rest.slice(1)
  }
  let namespace: string | undefined
  const nsSubresource = rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize')
  if (rest[0] === 'namespaces' && rest.length >= 3 && !nsSubresource) {
    namespace = rest[1]
    rest = rest.slice(2)
  }
  if (rest.length > 3) return {type: 'notfound'}
  const def = kinds.byResource(group, version, rest[0] as string)
  if (!def) return {type: 'notfound'}
  const name = rest[1]
  const subresource = rest[2]
  if (!def.namespaced && namespace !== undefined) return {type: 'notfound'}
  if (subresource !== undefined && !def.subresources.some((s) => s.name === subresource))
    return {type: 'notfound'}
  return {type: 'resource', def, namespace, name, subresource, watchPath}
}

function negotiate(accept: string | undefined): Want {
  if (!accept) return {as: 'json'}
  for (const part of accept.split(',')) {
    const [type, ...paramParts] = part.split(';').map((s) => s.trim())
    const params: Record<string, string> = {}
    for (const p of paramParts) {
      const [k, v] = p.split('=')
      if (k && v !== undefined) params[k] = v
    }
    if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue
    if (params.as === undefined) return {as: 'json'}
    if (params.g !== 'meta.k8s.io') continue
    if (params.as === 'Table') return {as: 'table', version: params.v ?? 'v1'}
    if (params.as === 'PartialObjectMetadata' || params.as === 'PartialObjectMetadataList') {
      return {as: 'partial', version: params.v ?? 'v1'}
    }
  }
  return {as: 'json'}
}

function verbFor(method: string, r: ResourceRoute, query: URLSearchParams): Verb | undefined {
  const watch = r.watchPath || query.get('watch') === 'true' || query.get('watch') === '1'
  switch (method) {
    case 'GET':
      if (r.name !== undefined) return watch ? 'watch' : 'get'
      return watch ? 'watch' : 'list'
    case 'POST':
      return r.name === undefined ? 'create' : undefined
    case 'PUT':
      return r.name !== undefined ? 'update' : undefined
    case 'PATCH':
      return r.name !== undefined ? 'patch' : undefined
    case 'DELETE':
      return r.name !== undefined ? 'delete' : 'deletecollection'
  }
  return undefined
}

const TABLE_ONLY_RESOURCE_NOT_FOUND = new ApiError(
  404,
  'NotFound',
  'the server could not find the requested resource',
  {},
)

const TOP_LEVEL_KEYS = ['apiVersion', 'kind', 'metadata', 'spec', 'status']
const METADATA_KEYS = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]

class ApiServerImpl {
  readonly store: Store
  readonly faults: FaultController
  readonly requests: RequestLog[] = []
  readonly writes: WriteRecord[] = []
  /** The User-Agent of the request being dispatched (store writes happen synchronously in it). */
  private writer: string | undefined
  /** Counter of the `continue` tokens made up by a continueToken fault. */
  private freshTokens = 0
  private readonly watchers = new Set<Watcher>()
  private readonly bookmarkIntervalMs: number
  readonly simulation?: SimulatedCluster

  constructor(private readonly opts: ApiServerOptions) {
    this.store = new Store(opts.historyLimit ?? 10_000)
    this.bookmarkIntervalMs = opts.bookmarkIntervalMs ?? 1000
    this.faults = new FaultController(
      {
        dropWatches: (match, graceful) => this.dropWatches(match, graceful),
        expireWatchWindow: () => this.store.compact(),
      },
      opts.faults,
    )
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      this.store.put({apiVersion: 'v1', kind: 'Namespace', metadata: {name: ns}})
    }
    for (const o of opts.objects ?? []) this.seed(o)
    if (opts.simulate) {
      // The kubelets of the simulated nodes register their Node objects (a loaded Node of the same
      // name is kept as given).
      const sim = opts.simulate === true ? {} : opts.simulate
      const gitVersion = serverVersion(opts.kubeVersion).gitVersion
      const gpu = new Set(sim.gpuNodes ?? [])
      for (const [i, name] of simulatedNodeNames(sim).entries()) {
        if (this.store.get('nodes', undefined, name) === undefined)
          this.seed(simulatedNode(name, i, Date.now(), gitVersion, gpu.has(name) ? {gpus: 1} : {}))
      }
    }
    this.store.onChange((c) => {
      for (const w of this.watchers) this.deliver(w, c)
    })
    this.store.onChange((c) => {
      const md = metaOf(c.object)
      const rec: WriteRecord = {
        rv: c.rv,
        type: c.type,
        resource: c.def.resource,
        namespace: str(md.namespace),
        name: str(md.name) ?? '',
        writer: this.writer ?? 'simulation',
        time: Date.now(),
      }
      if (c.def.resource === 'leases') {
        const spec = isObj(c.object.spec) ? c.object.spec : {}
        rec.holder = c.type === 'DELETED' ? '' : (str(spec.holderIdentity) ?? '')
      }
      this.writes.push(rec)
    })
    if (opts.simulate) {
      const sim = new SimulatedCluster(this.clusterAccess(), opts.simulate === true ? {} : opts.simulate)
      this.simulation = sim
      this.store.onChange((c) => sim.observe(c))
      sim.start()
    }
  }

  private seed(o: unknown): void {
    if (!isObj(o)) throw new Error('objects: every entry must be an object')
    if (
      o.kind === 'List' ||
      (typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items))
    ) {
      for (const item of Array.isArray(o.items) ? o.items : []) this.seed(item)
      return
    }
    const def = this.store.defFor(o)
    const copy = clone(o)
    def.default(copy)
    this.store.put(copy)
  }

  // -------------------------------------------------------------------------------------------
  // HTTP entry point

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const rawBuf = Buffer.concat(chunks)
    const rawBody = rawBuf.toString('utf8')
    const url = new URL(req.url ?? '/', 'http://localhost')
    const method = (req.method ?? 'GET').toUpperCase()
    const log: RequestLog = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: parseLoose(rawBuf, req.headers['content-type']),
      contentType: req.headers['content-type'],
      accept: req.headers.accept,
      userAgent: req.headers['user-agent'],
      authorization: req.headers.authorization,
      ...clientCN(req),
      ...impersonation(req),
      time: Date.now(),
    }
    this.requests.push(log)
    res.on('finish', () => {
      log.status = res.statusCode
    })
    res.on('close', () => {
      log.status ??= res.statusCode
    })
    const ctx: Ctx = {
      req,
      res,
      method,
      path: url.pathname,
      query: url.searchParams,
      rawBody,
      rawBuf,
      log,
      decision: {delayMs: 0},
      want: negotiate(req.headers.accept),
      warnings: [],
    }
    if (this.opts.logRequests) {
      process.stderr.write(`${method} ${req.url} ${req.headers['content-type'] ?? ''}\n`)
    }
    try {
      this.authenticate(ctx)
      const r = route(ctx.path, this.store.kinds)
      const info: RequestInfo = {method, path: ctx.path}
      if (r.type === 'resource') {
        info.verb = verbFor(method, r, ctx.query)
        info.group = r.def.group
        info.resource = r.def.resource
        info.subresource = r.subresource
        info.namespace = r.namespace
        info.name = r.name ?? (method === 'POST' ? nameFromBody(log.body) : undefined)
        Object.assign(log, {
          verb: info.verb,
          resource: r.def.resource,
          subresource: r.subresource,
          namespace: r.namespace,
          name: r.name,
        })
      }
      ctx.decision = this.faults.decide(info)
      if (ctx.decision.delayMs > 0) await sleep(ctx.decision.delayMs)
      if (ctx.decision.drop) {
        req.socket.destroy()
        return
      }
      if (ctx.decision.error) throw ctx.decision.error
      // A server whose pagination never ends: it serves the first page again whatever token it gets.
      if (ctx.decision.continueToken !== undefined) ctx.query.delete('continue')
      this.writer = log.userAgent ?? '<no user agent>'
      try {
        this.dispatch(ctx, r)
      } finally {
        this.writer = undefined
      }
    } catch (err) {
      this.sendError(ctx, err)
    }
  }

  private authenticate(ctx: Ctx): void {
    const want = this.opts.requireToken
    if (want === undefined) return
    const auth = ctx.req.headers.authorization
    if (auth === `Bearer ${want}`) return
    const seg = ctx.path.split('/').filter(Boolean)[0] ?? ''
    if (auth === undefined && (seg === 'version' || HEALTH.has(seg))) return
    throw unauthorized()
  }

  /**
   * PrepareForCreate's and PrepareForUpdate's drop of pod-template fields whose gate is off, with
   * the gate defaults of the minor /version reports (src/cluster/validation/drop-disabled.ts, as the
   * file loader drops them). On an update (`old` given: PUT, PATCH, server-side apply) a field the
   * stored object already uses stays, as upstream's dropDisabledFields keeps it.
   */
  private dropDisabledFields(resource: string, o: Obj, old?: Obj): void {
    const podSpecOf = (x: Obj | undefined): unknown => {
      const spec = x?.spec as Obj | undefined
      if (resource === 'pods') return spec
      if (resource === 'deployments' || resource === 'replicasets')
        return (spec?.template as Obj | undefined)?.spec
      return undefined
    }
    const podSpec = podSpecOf(o)
    if (podSpec === undefined) return
    dropDisabledPodSpecFields(podSpec, this.validationOptions().enabled, podSpecOf(old))
  }
  private gates: ParsedFeatureGates | undefined

  /** What validation knows of this server: its minor's feature gates. */
  private validationOptions(): {minor: number; enabled: (gate: string) => boolean} {
    const minor = resolveKubeVersion(serverVersion(this.opts.kubeVersion).gitVersion, '/version').minor
    const gates = (this.gates ??= parseFeatureGates(undefined, minor))
    return {minor, enabled: (gate) => keepsGatedFields(gates, gate, new Set())}
  }

  private dispatch(ctx: Ctx, r: Route) {
    switch (r.type) {
      case 'version':
        return this.send(ctx, 200, serverVersion(this.opts.kubeVersion))
      case 'health':
        ctx.res.writeHead(200, {'Content-Type': 'text/plain; charset=utf-8'})
        ctx.res.end('ok')
        return
      case 'api':
        return this.send(ctx, 200, apiVersions(ctx.req.headers.host ?? '127.0.0.1'))
      case 'apis':
        return this.send(ctx, 200, apiGroupList(this.store.kinds.all()))
      case 'group': {
        const doc = apiGroupDoc(this.store.kinds.all(), r.group)
        if (!doc) throw TABLE_ONLY_RESOURCE_NOT_FOUND
        return this.send(ctx, 200, doc)
      }
      case 'resourceList': {
        const doc = apiResourceList(this.store.kinds.all(), r.group, r.version)
        if (!doc) throw TABLE_ONLY_RESOURCE_NOT_FOUND
        return this.send(ctx, 200, doc)
      }
      case 'openapiv3':
        return this.send(ctx, 200, openAPIV3Index(this.store.kinds.all()))
      case 'openapiv3gv': {
        const doc = openAPIV3Doc(this.store.kinds.all(), r.group, r.version)
        if (!doc) throw TABLE_ONLY_RESOURCE_NOT_FOUND
        return this.send(ctx, 200, doc)
      }
      case 'openapiv2':
        if (this.simulation) {
          const body = openAPIV2Proto()
          ctx.res.writeHead(200, {
            'Content-Type': 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
            'Content-Length': String(body.length),
          })
          ctx.res.end(body)
          return
        }
        ctx.res.writeHead(404, {'Content-Type': 'text/plain; charset=utf-8'})
        ctx.res.end('404 page not found\n')
        return
      case 'notfound':
        ctx.res.writeHead(404, {'Content-Type': 'text/plain; charset=utf-8'})
        ctx.res.end('404 page not found\n')
        return
      case 'resource':
        return this.resource(ctx, r)
      case 'tokenreview':
      case 'subjectaccessreview':
        return this.review(ctx, r.type)
    }
  }

  /** upstream: the TokenReview and SubjectAccessReview create handlers (nothing is stored). */
  private review(ctx: Ctx, type: 'tokenreview' | 'subjectaccessreview') {
    if (ctx.method !== 'POST') throw methodNotAllowed()
    const body = (JSON.parse(ctx.rawBody || '{}') ?? {}) as {spec?: Record<string, unknown>}
    const spec = body.spec ?? {}
    const reviews = this.opts.reviews ?? {tokens: {}}
    if (type === 'tokenreview') {
      const user = typeof spec.token === 'string' ? reviews.tokens[spec.token] : undefined
      return this.send(ctx, 201, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        metadata: {creationTimestamp: null},
        spec,
        status: user ? {authenticated: true, user} : {user: {}},
      })
    }
    const attrs = (spec.nonResourceAttributes ?? {}) as {path?: string; verb?: string}
    const groups = Array.isArray(spec.groups) ? (spec.groups as string[]) : []
    const allowed = (reviews.nonResource ?? []).some(
      (g) =>
        (g.user === undefined || g.user === spec.user) &&
        (g.group === undefined || groups.includes(g.group)) &&
        g.paths.includes(attrs.path ?? '') &&
        (g.verbs.includes(attrs.verb ?? '') || g.verbs.includes('*')),
    )
    return this.send(ctx, 201, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {creationTimestamp: null},
      spec,
      status: allowed
        ? {allowed: true, reason: "allowed by the test server's nonResource grants"}
        : {allowed: false},
    })
  }

  private resource(ctx: Ctx, r: ResourceRoute) {
    const verb = verbFor(ctx.method, r, ctx.query)
    if (!verb) throw methodNotAllowed()
    if (r.def.namespaced && r.namespace === undefined && r.name !== undefined)
      throw TABLE_ONLY_RESOURCE_NOT_FOUND
    if (r.def.namespaced && r.namespace === undefined && verb !== 'list' && verb !== 'watch') {
      throw TABLE_ONLY_RESOURCE_NOT_FOUND
    }
    switch (verb) {
      case 'get':
        return this.get(ctx, r)
      case 'list':
        return this.list(ctx, r)
      case 'watch':
        return this.watch(ctx, r)
      case 'create':
        return this.create(ctx, r)
      case 'update':
        return this.update(ctx, r)
      case 'patch':
        return this.patch(ctx, r)
      case 'delete':
        return this.delete(ctx, r)
      case 'deletecollection':
        return this.deleteCollection(ctx, r)
    }
  }

  // -------------------------------------------------------------------------------------------
  // Responses

  private send(ctx: Ctx, code: number, body: unknown, headers: Record<string, string> = {}): void {
    const d = ctx.decision
    if (d.continueToken !== undefined && isObj(body) && Array.isArray(body.items) && isObj(body.metadata)) {
      const token = d.continueToken === 'fresh' ? `fresh-${++this.freshTokens}` : d.continueToken
      body = {...body, metadata: {...body.metadata, continue: token}}
    }
    if ('body' in d) body = d.body
    let text = JSON.stringify(body)
    const h: Record<string, string | string[]> = {'Content-Type': 'application/json', ...headers}
    if (ctx.warnings.length) h.Warning = ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`)
    if (d.truncate !== undefined) {
      const n = d.truncate === true ? Math.floor(text.length / 2) : d.truncate
      text = text.slice(0, n)
    } else if (d.padBytes === undefined) {
      h['Content-Length'] = String(Buffer.byteLength(text))
    }
    ctx.res.writeHead(code, h)
    if (d.padBytes !== undefined) {
      // Chunked, without a Content-Length: the client can only count as it reads.
      ctx.res.write(text)
      const chunk = ' '.repeat(64 * 1024)
      let left = d.padBytes
      const more = () => {
        while (left > 0 && !ctx.res.destroyed) {
          const n = Math.min(left, chunk.length)
          left -= n
          if (!ctx.res.write(chunk.slice(0, n))) return void ctx.res.once('drain', more)
        }
        ctx.res.end()
      }
      ctx.res.on('close', () => {
        left = 0
      })
      more()
      return
    }
    if (d.trickleMs !== undefined) {
      let i = 0
      const timer = setInterval(() => {
        if (ctx.res.destroyed || i >= text.length) {
          clearInterval(timer)
          ctx.res.end()
          return
        }
        ctx.res.write(text[i++])
      }, d.trickleMs)
      ctx.res.on('close', () => clearInterval(timer))
      return
    }
    ctx.res.end(text)
  }

  private sendError(ctx: Ctx, err: unknown): void {
    if (ctx.res.headersSent) {
      ctx.res.destroy()
      return
    }
    const e =
      err instanceof ApiError
        ? err
        : new ApiError(
            500,
            'InternalError',
            `Internal error occurred: ${err instanceof Error ? err.message : String(err)}`,
          )
    if (!(err instanceof ApiError))
      process.stderr.write(`test apiserver: ${err instanceof Error ? err.stack : String(err)}\n`)
    this.send(ctx, e.code, e.status(), e.headers)
  }

  // -------------------------------------------------------------------------------------------
  // Representations

  private gr(def: ResourceDef): {group: string; resource: string} {
    return {group: def.group, resource: def.resource}
  }

  private tableOf(want: Want, include: string, def: ResourceDef, items: Obj[], listMeta: Obj): Obj {
    const version = want.as === 'table' ? want.version : 'v1'
    const now = Date.now()
    const t = def.table ?? {
      columns: [
        {name: 'Name', type: 'string', format: 'name', description: 'Name of the object', priority: 0},
        {
          name: 'Created At',
          type: 'date',
          format: '',
          description: 'When the object was created',
          priority: 0,
        },
      ],
      cells: (o: Obj) => [str(metaOf(o).name) ?? '', str(metaOf(o).creationTimestamp) ?? ''],
    }
    return {
      kind: 'Table',
      apiVersion: `meta.k8s.io/${version}`,
      metadata: listMeta,
      columnDefinitions: t.columns,
      rows: items.map((o) => {
        const row: Obj = {cells: t.cells(o, now)}
        if (include === 'Object') row.object = withTypeMeta(def, o)
        else if (include !== 'None') {
          row.object = {
            kind: 'PartialObjectMetadata',
            apiVersion: `meta.k8s.io/${version}`,
            metadata: o.metadata,
          }
        }
        return row
      }),
    }
  }

  private represent(ctx: Ctx, def: ResourceDef, o: Obj): Obj {
    if (ctx.want.as === 'table')
      return this.tableOf(ctx.want, includeOf(ctx), def, [o], {resourceVersion: metaOf(o).resourceVersion})
    if (ctx.want.as === 'partial') {
      return {
        kind: 'PartialObjectMetadata',
        apiVersion: `meta.k8s.io/${ctx.want.version}`,
        metadata: o.metadata,
      }
    }
    return withTypeMeta(def, o)
  }

  // -------------------------------------------------------------------------------------------
  // Reads

  private mustGet(def: ResourceDef, ns: string | undefined, name: string): Obj {
    const o = this.store.get(def, ns, name)
    if (!o) throw notFound(this.gr(def), name)
    return o
  }

  private get(ctx: Ctx, r: ResourceRoute) {
    const o = this.mustGet(r.def, r.namespace, r.name as string)
    if (r.subresource === 'scale') return this.send(ctx, 200, scaleOf(o))
    if (r.subresource === 'log') {
      const text = podLog(o, ctx.query)
      ctx.res.writeHead(200, {
        'Content-Type': 'text/plain',
        'Content-Length': String(Buffer.byteLength(text)),
      })
      ctx.res.end(text)
      return
    }
    this.send(ctx, 200, this.represent(ctx, r.def, o))
  }

  private selectors(ctx: Ctx, def: ResourceDef): {label: LabelSelector; field: FieldRequirement[]} {
    const label = parseLabelSelector(ctx.query.get('labelSelector') ?? '')
    const supported = Object.keys(def.selectableFields({metadata: {}}))
    const field = parseFieldSelector(ctx.query.get('fieldSelector') ?? '', supported)
    return {label, field}
  }

  private list(ctx: Ctx, r: ResourceRoute) {
    const {def} = r
    const {label, field} = this.selectors(ctx, def)
    let listRV = this.store.currentRV
    let start = ''
    const cont = ctx.query.get('continue')
    if (cont) {
      const token = decodeContinue(cont)
      if (token.rv < this.store.compactedRV) {
        throw expired(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        )
      }
      listRV = token.rv
      start = token.start
    }
    const rv = ctx.query.get('resourceVersion')
    if (ctx.query.get('resourceVersionMatch') === 'Exact' && rv && Number(rv) < this.store.compactedRV) {
      throw expired(`too old resource version: ${rv} (${this.store.compactedRV + 1})`)
    }
    const limit = Number(ctx.query.get('limit') ?? '0')
    // One page costs its own objects, not the resource's (a real API server's watch cache).
    const {items, more, remaining} = this.store.page(
      def,
      r.namespace,
      start,
      Math.max(limit || 0, 0),
      (o) => matchesLabels(label, labelsOf(o)) && matchesFields(field, def.selectableFields(o)),
    )
    const listMeta: Obj = {resourceVersion: String(listRV)}
    if (more) {
      const last = items[items.length - 1] as Obj
      listMeta.continue = encodeContinue(listRV, `${keyFor(def, last)}\u0000`)
      if (label.length === 0 && field.length === 0) listMeta.remainingItemCount = remaining
    }
    if (ctx.want.as === 'table')
      return this.send(ctx, 200, this.tableOf(ctx.want, includeOf(ctx), def, items, listMeta))
    if (ctx.want.as === 'partial') {
      const version = ctx.want.version
      return this.send(ctx, 200, {
        kind: 'PartialObjectMetadataList',
        apiVersion: `meta.k8s.io/${version}`,
        metadata: listMeta,
        items: items.map((o) => ({
          kind: 'PartialObjectMetadata',
          apiVersion: `meta.k8s.io/${version}`,
          metadata: o.metadata,
        })),
      })
    }
    this.send(ctx, 200, {
      kind: def.listKind,
      apiVersion: groupVersion(def),
      metadata: listMeta,
      items: items.map(stripTypeMeta),
    })
  }

  // -------------------------------------------------------------------------------------------
  // Watch

  private watch(ctx: Ctx, r: ResourceRoute) {
    const {def} = r
    const {label, field} = this.selectors(ctx, def)
    if (r.name !== undefined) field.push({field: 'metadata.name', op: 'eq', value: r.name})
    const rvParam = ctx.query.get('resourceVersion') ?? ''
    const sendInitial = ctx.query.get('sendInitialEvents') === 'true'
    let replay: Change[] | 'expired' | 'initial'
    if (rvParam === '' || rvParam === '0' || sendInitial) {
      replay = 'initial'
    } else {
      const rv = Number(rvParam)
      if (!Number.isInteger(rv)) throw badRequest(`invalid resource version "${rvParam}"`)
      replay = this.store.since(rv)
    }
    const {res} = ctx
    res.writeHead(200, {'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private'})
    res.flushHeaders()
    if (replay === 'expired') {
      const status = expired(`too old resource version: ${rvParam} (${this.store.compactedRV + 1})`).status()
      res.end(`${JSON.stringify({type: 'ERROR', object: status})}\n`)
      return
    }
    const timers: NodeJS.Timeout[] = []
    const w: Watcher = {
      def,
      namespace: r.namespace,
      label,
      field,
      res,
      want: ctx.want,
      bookmarks: ctx.query.get('allowWatchBookmarks') === 'true' && ctx.want.as === 'json',
      includeObject: ctx.query.get('includeObject') ?? 'Metadata',
      closed: false,
      close: (graceful) => {
        if (w.closed) return
        w.closed = true
        for (const t of timers) clearTimeout(t)
        this.watchers.delete(w)
        if (graceful) res.end()
        else res.destroy()
      },
    }
    this.watchers.add(w)
    ctx.req.on('close', () => w.close(true))
    res.on('close', () => w.close(true))
    // A `body` fault on a watch: that value is sent first, as one line of the stream.
    if ('body' in ctx.decision) res.write(`${JSON.stringify(ctx.decision.body)}\n`)
    if (replay === 'initial') {
      for (const o of this.store.list(def, r.namespace)) {
        if (this.selects(w, o)) this.emit(w, 'ADDED', o)
      }
      if (sendInitial) {
        this.emitRaw(w, {
          type: 'BOOKMARK',
          object: {
            kind: def.kind,
            apiVersion: groupVersion(def),
            metadata: {
              resourceVersion: this.store.resourceVersion,
              annotations: {'k8s.io/initial-events-end': 'true'},
            },
          },
        })
      }
    } else {
      for (const c of replay) if (c.def === def) this.deliver(w, c)
    }
    if (w.bookmarks) {
      const tick = (): void => {
        this.bookmark(w)
        timers[0] = setTimeout(tick, this.bookmarkIntervalMs)
      }
      timers[0] = setTimeout(tick, this.bookmarkIntervalMs)
    }
    const timeout = Number(ctx.query.get('timeoutSeconds') ?? '0')
    if (timeout > 0) timers.push(setTimeout(() => w.close(true), timeout * 1000))
  }

  private selects(w: Watcher, o: Obj | undefined): boolean {
    if (!o) return false
    const md = isObj(o.metadata) ? o.metadata : {}
    if (w.namespace !== undefined && md.namespace !== w.namespace) return false
    return matchesLabels(w.label, md.labels) && matchesFields(w.field, w.def.selectableFields(o))
  }

  private deliver(w: Watcher, c: Change): void {
    if (w.closed || c.def !== w.def) return
    const now = this.selects(w, c.object)
    const before = c.type !== 'ADDED' && this.selects(w, c.previous)
    if (c.type === 'DELETED') {
      if (before || now) this.emit(w, 'DELETED', c.object)
    } else if (now && before) {
      this.emit(w, 'MODIFIED', c.object)
    } else if (now) {
      this.emit(w, 'ADDED', c.object)
    } else if (before && c.previous) {
      const gone = clone(c.previous)
      metaOf(gone).resourceVersion = String(c.rv)
      this.emit(w, 'DELETED', gone)
    }
  }

  private emit(w: Watcher, type: string, o: Obj): void {
    let object: Obj
    if (w.want.as === 'table') {
      object = this.tableOf(w.want, w.includeObject, w.def, [o], {resourceVersion: metaOf(o).resourceVersion})
    } else if (w.want.as === 'partial') {
      object = {
        kind: 'PartialObjectMetadata',
        apiVersion: `meta.k8s.io/${w.want.version}`,
        metadata: o.metadata,
      }
    } else {
      object = withTypeMeta(w.def, o)
    }
    this.emitRaw(w, {type, object})
  }

  private emitRaw(w: Watcher, event: Obj): void {
    if (w.closed) return
    w.res.write(`${JSON.stringify(event)}\n`)
  }

  private bookmark(w: Watcher): void {
    if (!w.bookmarks) return
    this.emitRaw(w, {
      type: 'BOOKMARK',
      object: {
        kind: w.def.kind,
        apiVersion: groupVersion(w.def),
        metadata: {resourceVersion: this.store.resourceVersion},
      },
    })
  }

  sendBookmarks(): void {
    for (const w of this.watchers) this.bookmark(w)
  }

  dropWatches(match: FaultMatch | undefined, graceful: boolean): number {
    let n = 0
    for (const w of [...this.watchers]) {
      const info: RequestInfo = {
        method: 'GET',
        path: '',
        verb: 'watch',
        group: w.def.group,
        resource: w.def.resource,
        namespace: w.namespace,
      }
      if (match && !matches({...match, path: undefined}, info)) continue
      w.close(graceful)
      n++
    }
    return n
  }

  closeAll(): void {
    this.simulation?.stop()
    for (const w of [...this.watchers]) w.close(true)
  }

  private writeIfChanged(def: ResourceDef, old: Obj, next: Obj): Obj {
    return jsonEqual(old, next) ? old : this.store.write(def, next)
  }

  // -------------------------------------------------------------------------------------------
  // The simulated cluster's access: writes with the registry's semantics, and the fault rules

  /** A fault rule's error for an in-process request, as a client would have met it. */
  private internalFault(info: RequestInfo): void {
    const d = this.faults.decide(info)
    if (d.error) throw d.error
  }

  private clusterAccess(): ClusterAccess {
    const defOf = (k: {apiVersion: string; kind: string}) => defFor({apiVersion: k.apiVersion, kind: k.kind})
    const pods = defOf({apiVersion: 'v1', kind: 'Pod'})
    const route = (
      def: ResourceDef,
      namespace: string,
      name: string,
      subresource?: string,
    ): ResourceRoute => ({
      def,
      namespace,
      name,
      subresource,
      watchPath: false,
    })
    return {
      list: (resource, namespace) => this.store.list(resource, namespace),
      get: (kind, namespace, name) => {
        try {
          return this.store.get(defOf(kind), namespace, name)
        } catch {
          return undefined
        }
      },
      create: (resource, namespace, obj) => {
        const def = resource === 'pods' ? pods : defOf({apiVersion: 'v1', kind: 'Event'})
        this.internalFault({method: 'POST', path: '', verb: 'create', group: '', resource, namespace})
        const o = clone(obj)
        this.checkTypeMeta(def, o)
        const {obj: created, stored} = this.createObject(def, namespace, o, false)
        return stored ?? created
      },
      updateStatus: (resource, obj) => {
        const def = resolveResource(resource)
        const md = metaOf(obj)
        const namespace = str(md.namespace) ?? ''
        const name = str(md.name) ?? ''
        this.internalFault({
          method: 'PUT',
          path: '',
          verb: 'update',
          group: def.group,
          resource,
          subresource: 'status',
          namespace,
          name,
        })
        const next = clone(obj)
        this.checkTypeMeta(def, next)
        return this.applyUpdate(internalCtx(), route(def, namespace, name, 'status'), next, false).obj
      },
      // Only the kinds whose objects the simulation manages: owners of inert kinds (StatefulSets,
      // Jobs, custom resources) are left alone, as their controllers, which would act on their
      // dependents, do not run here.
      serves: (kind) => RESOURCES.some((d) => groupVersion(d) === kind.apiVersion && d.kind === kind.kind),
      bind: (namespace, name, node, status) => {
        const current = this.store.get(pods, namespace, name)
        if (!current) throw notFound(this.gr(pods), name)
        child(current, 'spec').nodeName = node
        if (isObj(status)) current.status = clone(status)
        this.store.write(pods, current)
      },
      delete: (kind, namespace, name) => {
        const def = defOf(kind)
        this.internalFault({
          method: 'DELETE',
          path: '',
          verb: 'delete',
          group: def.group,
          resource: def.resource,
          namespace,
          name,
        })
        const o = this.store.get(def, namespace, name)
        if (!o) throw notFound(this.gr(def), name)
        if (def.resource === 'pods' && this.simulation) {
          const terminating = this.simulation.terminate(o)
          if (terminating) {
            this.writeIfChanged(def, o, terminating)
            return
          }
        }
        this.removeNow(def, o, def.defaultPropagation === 'Orphan' ? 'Orphan' : 'Background')
      },
      remove: (namespace, name) => {
        this.store.remove(pods, namespace, name)
      },
      setOwnerReferences: (kind, namespace, name, refs) => {
        const def = defOf(kind)
        const o = this.store.get(def, namespace, name)
        if (!o) return
        metaOf(o).ownerReferences = refs
        this.store.write(def, o)
      },
    }
  }

  // -------------------------------------------------------------------------------------------
  // Writes

  private body(ctx: Ctx): Obj {
    const ct = (ctx.req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? ''
    if (ctx.rawBody.trim() === '') throw badRequest('the body of the request was empty')
    if (ct === 'application/vnd.kubernetes.protobuf') return decodeKubernetesProtobuf(ctx.rawBuf)
    let v: unknown
    try {
      v = ct.includes('yaml') ? parseYaml(ctx.rawBody) : JSON.parse(ctx.rawBody)
    } catch (err) {
      throw badRequest(
        `couldn't get version/kind; json parse error: ${err instanceof Error ? err.message : String(err)}`,
      )
    }
    if (!isObj(v) && !Array.isArray(v)) throw badRequest('the body of the request must be an object')
    return v as Obj
  }

  private dryRun(ctx: Ctx, body?: Obj): boolean {
    const values = ctx.query.getAll('dryRun')
    if (body && Array.isArray(body.dryRun)) values.push(...body.dryRun.map(String))
    for (const v of values) {
      if (v !== 'All') throw badRequest(`Invalid dryRun value: ${v}: supported values: "All"`)
    }
    return values.length > 0
  }

  /** fieldValidation: drops unknown fields; Strict fails with 400, Warn (the default) adds Warning headers. */
  private fieldValidation(ctx: WriteCtx, def: ResourceDef, o: Obj): void {
    const mode = ctx.query.get('fieldValidation') ?? 'Warn'
    if (!['Ignore', 'Warn', 'Strict'].includes(mode)) {
      throw badRequest(`fieldValidation parameter unsupported: ${mode}`)
    }
    const unknown: string[] = []
    const prune = (target: Obj, known: string[], prefix: string): void => {
      for (const k of Object.keys(target)) {
        if (!known.includes(k)) {
          unknown.push(`${prefix}${k}`)
          delete target[k]
        }
      }
    }
    if (def.resource !== 'events' && !def.freeForm)
      prune(o, [...TOP_LEVEL_KEYS, ...(def.extraTopLevelKeys ?? [])], '')
    if (isObj(o.metadata)) prune(o.metadata, METADATA_KEYS, 'metadata.')
    if (def.knownSpecKeys && isObj(o.spec)) prune(o.spec, def.knownSpecKeys, 'spec.')
    if (unknown.length === 0) return
    const msgs = unknown.map((f) => `unknown field "${f}"`)
    if (mode === 'Strict') throw badRequest(`strict decoding error: ${msgs.join(', ')}`)
    if (mode === 'Warn') ctx.warnings.push(...msgs)
  }

  private checkTypeMeta(def: ResourceDef, o: Obj): void {
    const gv = groupVersion(def)
    if (o.apiVersion !== undefined && o.apiVersion !== gv) {
      throw badRequest(
        `the API version in the data (${String(o.apiVersion)}) does not match the expected API version (${gv})`,
      )
    }
    if (o.kind !== undefined && o.kind !== def.kind) {
      throw badRequest(
        `the kind in the data (${String(o.kind)}) does not match the expected kind (${def.kind})`,
      )
    }
    o.apiVersion = gv
    o.kind = def.kind
  }

  private create(ctx: Ctx, r: ResourceRoute, apply?: Obj) {
    const {def} = r
    const o = this.body(ctx)
    this.checkTypeMeta(def, o)
    const dryRun = this.dryRun(ctx)
    this.fieldValidation(ctx, def, o)
    const {obj, stored} = this.createObject(def, r.namespace, o, dryRun, {
      manager: managerOf(ctx),
      ...(apply ? {apply} : {}),
    })
    this.send(ctx, 201, withTypeMeta(def, stored ?? obj))
  }

  /** The generic registry's Create after decoding: bookkeeping, the strategy, defaults, validation. */
  private createObject(
    def: ResourceDef,
    namespace: string | undefined,
    o: Obj,
    dryRun: boolean,
    fields?: {manager: string; apply?: Obj},
  ): {obj: Obj; stored?: Obj} {
    const r = {namespace}
    const md = metaOf(o)
    if (def.namespaced) {
      if (md.namespace !== undefined && md.namespace !== '' && md.namespace !== r.namespace) {
        throw badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        )
      }
      md.namespace = r.namespace
      if (!this.store.get(RESOURCES[0] as ResourceDef, undefined, r.namespace as string)) {
        throw notFound({group: '', resource: 'namespaces'}, r.namespace as string)
      }
    } else {
      delete md.namespace
    }
    if ((str(md.name) ?? '') === '' && str(md.generateName)) md.name = `${md.generateName}${randomSuffix()}`
    for (const k of [
      'uid',
      'resourceVersion',
      'generation',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'managedFields',
      'selfLink',
    ]) {
      delete md[k]
    }
    md.creationTimestamp = rfc3339()
    md.uid = randomUUID()
    if (def.generation !== 'none') md.generation = 1
    def.prepareForCreate(o)
    // Field ownership (Deployments): the creator's fields, defaulted ones included, as an update's,
    // or the applied configuration's alone when created by server-side apply.
    if (fields && TRACKED.has(def.resource)) {
      if (fields.apply) {
        const owned = serverSideApply(undefined, fields.apply, {
          manager: fields.manager,
          now: rfc3339(),
        }).result
        md.managedFields = metaOf(owned).managedFields
      }
    }
    def.default(o)
    this.dropDisabledFields(def.resource, o)
    if (fields && !fields.apply && TRACKED.has(def.resource)) {
      trackUpdate(undefined, o, {manager: fields.manager, now: rfc3339()})
    }
    const errs = def.validate(o, undefined, this.validationOptions())
    if (errs.length) throw invalid(def.kind, def.group, str(md.name) ?? '', errs)
    if (this.store.get(def, r.namespace, md.name as string))
      throw alreadyExists(this.gr(def), md.name as string)
    if (def.resource === 'pods') {
      // upstream: the ResourceQuota admission plugin (a validating one: after name generation).
      const quotas = this.store.list('resourcequotas', r.namespace)
      const refused = quotas.length > 0 && admitPod(o, quotas, this.store.list(def, r.namespace), Date.now())
      if (refused) throw refused
    }
    if (dryRun) return {obj: o}
    return {obj: o, stored: this.store.write(def, o)}
  }

  private update(ctx: Ctx, r: ResourceRoute) {
    const o = this.body(ctx)
    if (r.subresource === 'scale') return this.updateScale(ctx, r, o)
    this.checkTypeMeta(r.def, o)
    const md = metaOf(o)
    if (md.name !== undefined && md.name !== r.name) {
      throw badRequest(
        `the name of the object (${String(md.name)}) does not match the name on the URL (${r.name})`,
      )
    }
    if (
      r.def.namespaced &&
      md.namespace !== undefined &&
      md.namespace !== '' &&
      md.namespace !== r.namespace
    ) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      )
    }
    const {obj, code} = this.applyUpdate(ctx, r, o, this.dryRun(ctx))
    this.send(ctx, code, withTypeMeta(r.def, obj))
  }

  /**
   * The generic registry's Update: resourceVersion/uid preconditions, the strategy's
   * PrepareForUpdate (status or main), defaulting, validation, generation, no-op detection.
   */
  private applyUpdate(
    ctx: WriteCtx,
    r: ResourceRoute,
    next: Obj,
    dryRun: boolean,
    applied = false,
  ): {obj: Obj; code: number} {
    const {def} = r
    const name = r.name as string
    const old = this.store.get(def, r.namespace, name)
    if (!old) {
      if (def.resource === 'leases' || def.resource === 'events') {
        this.fieldValidation(ctx, def, next)
        const md = metaOf(next)
        md.name = name
        if (def.namespaced) md.namespace = r.namespace
        md.creationTimestamp = rfc3339()
        md.uid = randomUUID()
        delete md.resourceVersion
        def.default(next)
        const errs = def.validate(next, undefined, this.validationOptions())
        if (errs.length) throw invalid(def.kind, def.group, name, errs)
        return {obj: dryRun ? next : this.store.write(def, next), code: 201}
      }
      throw notFound(this.gr(def), name)
    }
    const om = metaOf(old)
    const md = metaOf(next)
    const rv = str(md.resourceVersion) ?? ''
    if (rv !== '' && rv !== om.resourceVersion) throw conflict(this.gr(def), name)
    const uid = str(md.uid) ?? ''
    if (uid !== '' && uid !== om.uid) {
      throw conflict(
        this.gr(def),
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${String(om.uid)}`,
      )
    }
    this.fieldValidation(ctx, def, next)
    next.apiVersion = groupVersion(def)
    next.kind = def.kind
    md.name = name
    if (def.namespaced) md.namespace = r.namespace
    else delete md.namespace
    for (const k of [
      'uid',
      'creationTimestamp',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'generation',
      'selfLink',
    ]) {
      if (om[k] === undefined) delete md[k]
      else md[k] = om[k]
    }
    const appliedFields = applied ? md.managedFields : undefined
    // upstream: managedFields a request sets replace the stored ones (kubectl's client-side to
    // server-side apply migration writes them so); the update's own changes are tracked on top.
    const given = Array.isArray(md.managedFields) ? normalizeManagedFields(md.managedFields) : undefined
    const givenFields = !applied && given && !jsonEqual(given, om.managedFields ?? []) ? given : undefined
    delete md.managedFields
    md.resourceVersion = om.resourceVersion
    const status = r.subresource === 'status'
    const hasStatus = def.subresources.some((s) => s.name === 'status')
    if (status) {
      def.resetForStatus(next, old)
    } else if (hasStatus) {
      if (old.status === undefined) delete next.status
      else next.status = clone(old.status)
    }
    def.default(next)
    if (!status) this.dropDisabledFields(def.resource, next, old)
    if (TRACKED.has(def.resource)) {
      if (appliedFields !== undefined) md.managedFields = appliedFields
      else
        trackUpdate(givenFields ? {...old, metadata: {...om, managedFields: givenFields}} : old, next, {
          manager: managerOf(ctx),
          now: rfc3339(),
          ...(r.subresource ? {subresource: r.subresource} : {}),
        })
    }
    const errs = status ? validateStatus(def, next, old) : def.validate(next, old, this.validationOptions())
    if (errs.length) throw invalid(def.kind, def.group, name, errs)
    if (!status && def.generation !== 'none') {
      const specChanged = !semanticEqual(next.spec, old.spec)
      const annChanged =
        def.generation === 'spec+annotations' && !semanticEqual(md.annotations, om.annotations)
      if (specChanged || annChanged) md.generation = (num(om.generation) ?? 0) + 1
    }
    if (jsonEqual(next, old)) return {obj: old, code: 200}
    if (dryRun) return {obj: next, code: 200}
    if (om.deletionTimestamp && !(Array.isArray(md.finalizers) && md.finalizers.length > 0)) {
      const removed = this.store.write(def, next)
      this.removeNow(def, removed, 'Background')
      return {obj: removed, code: 200}
    }
    return {obj: this.store.write(def, next), code: 200}
  }

  private patch(ctx: Ctx, r: ResourceRoute) {
    const {def} = r
    const name = r.name as string
    const ct = (ctx.req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? ''
    const types: string[] = Object.values(PATCH_TYPES)
    if (!types.includes(ct)) throw unsupportedMediaType()
    const dryRun = this.dryRun(ctx)
    let patchBody: unknown
    try {
      patchBody = ct === PATCH_TYPES.apply ? parseYaml(ctx.rawBody) : JSON.parse(ctx.rawBody)
    } catch (err) {
      throw badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`)
    }
    if (ct === PATCH_TYPES.apply && TRACKED.has(def.resource) && !ctx.query.get('fieldManager')) {
      throw badRequest('PATCH, application/apply-patch+yaml requires fieldManager to be set')
    }
    const current = this.store.get(def, r.namespace, name)
    if (!current) {
      if (ct === PATCH_TYPES.apply && r.subresource === undefined && isObj(patchBody)) {
        const o = clone(patchBody)
        this.checkTypeMeta(def, o)
        ctx.rawBody = JSON.stringify(o)
        return this.create(ctx, r, o)
      }
      throw notFound(this.gr(def), name)
    }
    if (
      ct === PATCH_TYPES.apply &&
      TRACKED.has(def.resource) &&
      r.subresource === undefined &&
      isObj(patchBody)
    ) {
      // upstream: server-side apply — the configuration merged by field ownership.
      const force = ctx.query.get('force') === 'true'
      let patched: Obj
      try {
        patched = serverSideApply(withTypeMeta(def, current), patchBody, {
          manager: managerOf(ctx),
          force,
          now: rfc3339(),
        }).result
      } catch (err) {
        if (err instanceof ApplyConflictError) {
          throw new ApiError(409, 'Conflict', err.message, {
            causes: err.conflicts.map((c) => ({
              reason: 'FieldManagerConflict',
              message: `conflict with ${JSON.stringify(c.manager)}`,
              field: c.field,
            })),
          })
        }
        throw err
      }
      const {obj} = this.applyUpdate(ctx, r, patched, dryRun, true)
      this.send(ctx, 200, withTypeMeta(def, obj))
      return
    }
    const base = r.subresource === 'scale' ? scaleOf(current) : withTypeMeta(def, current)
    let patched: unknown
    try {
      switch (ct) {
        case PATCH_TYPES.json:
          patched = jsonPatch(base, patchBody)
          break
        case PATCH_TYPES.merge:
          patched = mergePatch(base, patchBody)
          break
        case PATCH_TYPES.strategic:
        case PATCH_TYPES.apply:
          patched = strategicMergePatch(base, patchBody)
          break
      }
    } catch (err) {
      if (err instanceof JsonPatchError) {
        throw new ApiError(422, 'Invalid', `the server rejected our request due to an error in our request`, {
          causes: [{message: err.message}],
        })
      }
      throw err
    }
    if (!isObj(patched)) throw badRequest('the patch produced a non-object')
    if (r.subresource === 'scale') return this.updateScale(ctx, r, patched)
    const {obj} = this.applyUpdate(ctx, r, patched, dryRun)
    this.send(ctx, 200, withTypeMeta(def, obj))
  }

  private updateScale(ctx: Ctx, r: ResourceRoute, scale: Obj) {
    const {def} = r
    const name = r.name as string
    const current = this.mustGet(def, r.namespace, name)
    const sm = isObj(scale.metadata) ? scale.metadata : {}
    const cm = metaOf(current)
    const rv = str(sm.resourceVersion) ?? ''
    if (rv !== '' && rv !== cm.resourceVersion) throw conflict(this.gr(def), name)
    const replicas = isObj(scale.spec) ? scale.spec.replicas : undefined
    if (typeof replicas === 'number' && replicas < 0) {
      throw invalid('Scale', 'autoscaling', name, [
        {
          type: 'FieldValueInvalid',
          field: 'spec.replicas',
          body: `Invalid value: ${replicas}: must be greater than or equal to 0`,
        },
      ])
    }
    const next = clone(current)
    child(next, 'spec').replicas = typeof replicas === 'number' ? replicas : 0
    const {obj} = this.applyUpdate(ctx, {...r, subresource: undefined}, next, this.dryRun(ctx))
    this.send(ctx, 200, scaleOf(obj))
  }

  private deleteOptions(ctx: Ctx): Obj {
    const opts: Obj = {}
    if (ctx.rawBody.trim() !== '') {
      try {
        const b = JSON.parse(ctx.rawBody)
        if (isObj(b)) Object.assign(opts, b)
      } catch {
        throw badRequest('invalid DeleteOptions body')
      }
    }
    const pp = ctx.query.get('propagationPolicy')
    if (pp) opts.propagationPolicy = pp
    if (ctx.query.get('orphanDependents') === 'true') opts.propagationPolicy = 'Orphan'
    if (opts.orphanDependents === true) opts.propagationPolicy = 'Orphan'
    const policy = opts.propagationPolicy
    if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(String(policy))) {
      throw invalid('DeleteOptions', '', '', [
        {
          type: 'FieldValueNotSupported',
          field: 'propagationPolicy',
          body: `Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan", "nil"`,
        },
      ])
    }
    return opts
  }

  private delete(ctx: Ctx, r: ResourceRoute) {
    const {def} = r
    const name = r.name as string
    const opts = this.deleteOptions(ctx)
    const dryRun = this.dryRun(ctx, opts)
    const o = this.mustGet(def, r.namespace, name)
    const md = metaOf(o)
    const pre = isObj(opts.preconditions) ? opts.preconditions : {}
    if (typeof pre.uid === 'string' && pre.uid !== md.uid) {
      throw conflict(
        this.gr(def),
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(md.uid)}`,
      )
    }
    if (typeof pre.resourceVersion === 'string' && pre.resourceVersion !== md.resourceVersion) {
      throw conflict(
        this.gr(def),
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(md.resourceVersion)}`,
      )
    }
    const policy = (str(opts.propagationPolicy) ?? def.defaultPropagation) as
      | 'Orphan'
      | 'Background'
      | 'Foreground'
    const finalizers = Array.isArray(md.finalizers) ? md.finalizers : []
    if (dryRun) return this.send(ctx, 200, this.deleteResponse(def, o))
    if (def.resource === 'pods' && this.simulation) {
      const terminating = this.simulation.terminate(o, num(opts.gracePeriodSeconds))
      if (terminating) return this.send(ctx, 200, withTypeMeta(def, this.writeIfChanged(def, o, terminating)))
    }
    if (finalizers.length > 0) {
      if (!md.deletionTimestamp) {
        md.deletionTimestamp = rfc3339()
        md.deletionGracePeriodSeconds = 0
        const written = this.store.write(def, o)
        return this.send(ctx, 200, withTypeMeta(def, written))
      }
      return this.send(ctx, 200, withTypeMeta(def, o))
    }
    const last = this.removeNow(def, o, policy)
    this.send(ctx, 200, this.deleteResponse(def, last))
  }

  private deleteResponse(def: ResourceDef, o: Obj): Obj {
    if (def.resource === 'pods' || def.resource === 'namespaces') {
      const copy = withTypeMeta(def, o)
      if (def.resource === 'namespaces') {
        metaOf(copy).deletionTimestamp ??= rfc3339()
        copy.status = {phase: 'Terminating'}
      }
      return copy
    }
    const md = metaOf(o)
    const details: Obj = {name: md.name}
    if (def.group) details.group = def.group
    details.kind = def.resource
    details.uid = md.uid
    return {kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details}
  }

  /** Deletes now, then does the garbage collector's part for dependents (synchronously). */
  private removeNow(def: ResourceDef, o: Obj, policy: 'Orphan' | 'Background' | 'Foreground'): Obj {
    const md = metaOf(o)
    const name = str(md.name) as string
    const ns = str(md.namespace)
    if (def.resource === 'namespaces') {
      for (const d of this.store.kinds.all()) {
        if (!d.namespaced) continue
        for (const x of this.store.list(d, name)) this.store.remove(d, name, str(metaOf(x).name) as string)
      }
    }
    const last = this.store.remove(def, ns, name) ?? o
    const uid = md.uid
    for (const d of this.store.kinds.all()) {
      if (!d.namespaced) continue
      for (const dep of this.store.list(d, ns)) {
        const dm = metaOf(dep)
        const refs = Array.isArray(dm.ownerReferences) ? dm.ownerReferences.filter(isObj) : []
        if (!refs.some((ref) => ref.uid === uid)) continue
        const others = refs.filter((ref) => ref.uid !== uid)
        if (policy === 'Orphan' || others.length > 0) {
          if (others.length === 0) delete dm.ownerReferences
          else dm.ownerReferences = others
          this.store.write(d, dep)
        } else if (d.resource === 'pods' && this.simulation) {
          const terminating = this.simulation.terminate(dep)
          if (terminating) this.writeIfChanged(d, dep, terminating)
          else this.removeNow(d, dep, 'Background')
        } else if (!(Array.isArray(dm.finalizers) && dm.finalizers.length > 0)) {
          this.removeNow(d, dep, 'Background')
        } else if (!dm.deletionTimestamp) {
          dm.deletionTimestamp = rfc3339()
          dm.deletionGracePeriodSeconds = 0
          this.store.write(d, dep)
        }
      }
    }
    return last
  }

  private deleteCollection(ctx: Ctx, r: ResourceRoute) {
    const {def} = r
    const {label, field} = this.selectors(ctx, def)
    const opts = this.deleteOptions(ctx)
    const dryRun = this.dryRun(ctx, opts)
    const policy = (str(opts.propagationPolicy) ?? def.defaultPropagation) as
      | 'Orphan'
      | 'Background'
      | 'Foreground'
    const items = this.store
      .list(def, r.namespace)
      .filter((o) => matchesLabels(label, labelsOf(o)) && matchesFields(field, def.selectableFields(o)))
    const deleted = dryRun ? items : items.map((o) => this.removeNow(def, o, policy))
    this.send(ctx, 200, {
      kind: def.listKind,
      apiVersion: groupVersion(def),
      metadata: {resourceVersion: this.store.resourceVersion},
      items: deleted.map(stripTypeMeta),
    })
  }
}

/** What fieldValidation and applyUpdate read of a request. */
type WriteCtx = Pick<Ctx, 'query' | 'warnings'> & {req?: IncomingMessage}

/** managedFields as the API server decodes them: metav1.Time at second precision. */
function normalizeManagedFields(list: unknown[]): unknown[] {
  return list.map((e) => {
    if (!isObj(e) || typeof e.time !== 'string') return e
    const t = Date.parse(e.time)
    return Number.isFinite(t) ? {...e, time: rfc3339(new Date(t))} : e
  })
}

/** The kinds whose field ownership (metadata.managedFields) is tracked. */
const TRACKED = new Set(['deployments'])

/** upstream: the request's fieldManager, else the user agent's product (`kubectl/v1.32 ...` -> `kubectl`). */
function managerOf(ctx: WriteCtx): string {
  const named = ctx.query.get('fieldManager')
  if (named) return named
  const ua = ctx.req?.headers['user-agent'] ?? ''
  return ua.split('/')[0] || 'unknown'
}

/** A write made by a simulated component (never pruned: it writes only fields it knows). */
function internalCtx(): WriteCtx {
  return {query: new URLSearchParams({fieldValidation: 'Ignore'}), warnings: []}
}

function includeOf(ctx: Ctx): string {
  return ctx.query.get('includeObject') ?? 'Metadata'
}

function withTypeMeta(def: ResourceDef, o: Obj): Obj {
  const {apiVersion: _a, kind: _k, ...rest} = o
  return {apiVersion: groupVersion(def), kind: def.kind, ...rest}
}

function stripTypeMeta(o: Obj): Obj {
  const {apiVersion: _a, kind: _k, ...rest} = o
  return rest
}

function scaleOf(o: Obj): Obj {
  const md = metaOf(o)
  const spec = isObj(o.spec) ? o.spec : {}
  const status = isObj(o.status) ? o.status : {}
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: md.name,
      namespace: md.namespace,
      uid: md.uid,
      resourceVersion: md.resourceVersion,
      creationTimestamp: md.creationTimestamp,
    },
    spec: {replicas: num(spec.replicas) ?? 0},
    status: {replicas: num(status.replicas) ?? 0, selector: scaleSelector(o)},
  }
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({v: 'meta.k8s.io/v1', rv, start})).toString('base64')
}

function decodeContinue(token: string): {rv: number; start: string} {
  try {
    const v: unknown = JSON.parse(Buffer.from(token, 'base64').toString('utf8'))
    if (isObj(v) && typeof v.rv === 'number' && typeof v.start === 'string') return {rv: v.rv, start: v.start}
  } catch {
    // fall through
  }
  throw badRequest(
    'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  )
}

function parseLoose(buf: Buffer, contentType: string | undefined): unknown {
  if (buf.length === 0) return undefined
  if (contentType?.includes('protobuf')) {
    try {
      return decodeKubernetesProtobuf(buf)
    } catch {
      return buf
    }
  }
  const raw = buf.toString('utf8')
  try {
    return JSON.parse(raw)
  } catch {
    try {
      return parseYaml(raw)
    } catch {
      return raw
    }
  }
}

function nameFromBody(body: unknown): string | undefined {
  return isObj(body) && isObj(body.metadata) ? str(body.metadata.name) : undefined
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function selfSignedCert(dir: string): {key: Buffer; cert: Buffer} {
  const keyPath = join(dir, 'tls.key')
  const certPath = join(dir, 'tls.crt')
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=deployctl-test-apiserver',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        keyPath,
        '-out',
        certPath,
      ],
      {stdio: 'ignore'},
    )
  } catch (err) {
    throw new Error(
      `tls: true needs openssl to make a throwaway certificate: ${err instanceof Error ? err.message : String(err)}`,
    )
  }
  return {key: readFileSync(keyPath), cert: readFileSync(certPath)}
}

function kubeconfig(url: string, token: string): string {
  return stringifyYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{name: 'test', cluster: {server: url, 'insecure-skip-tls-verify': true}}],
    users: [{name: 'test', user: {token}}],
    contexts: [{name: 'test', context: {cluster: 'test', user: 'test', namespace: 'default'}}],
    'current-context': 'test',
    preferences: {},
  })
}

function impersonation(req: IncomingMessage): Pick<RequestLog, 'impersonate'> {
  const h = req.headersDistinct
  const user = h['impersonate-user']?.[0]
  const uid = h['impersonate-uid']?.[0]
  const groups = h['impersonate-group']
  if (user === undefined && uid === undefined && groups === undefined) return {}
  return {impersonate: {user, uid, groups}}
}

function clientCN(req: IncomingMessage): {clientCN?: string} {
  const socket = req.socket as TLSSocket
  if (typeof socket.getPeerCertificate !== 'function') return {}
  const cn = socket.getPeerCertificate()?.subject?.CN
  return typeof cn === 'string' ? {clientCN: cn} : {}
}

/** Starts the server on 127.0.0.1 (port 0 picks a free one) and writes a kubeconfig for it. */
export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const impl = new ApiServerImpl(opts)
  const dir = mkdtempSync(join(tmpdir(), 'deployctl-apiserver-'))
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    impl.handle(req, res).catch((err: unknown) => {
      process.stderr.write(`test apiserver: ${err instanceof Error ? err.stack : String(err)}\n`)
      res.destroy()
    })
  }
  const cert = opts.tls ? selfSignedCert(dir) : undefined
  const server: Server = cert
    ? createHttpsServer(
        opts.clientCA ? {...cert, ca: opts.clientCA, requestCert: true, rejectUnauthorized: true} : cert,
        handler,
      )
    : createHttpServer(handler)
  server.keepAliveTimeout = 60_000
  const host = opts.host ?? '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  const urlHost = host.includes(':') ? `[${host}]` : host
  const url = `${opts.tls ? 'https' : 'http'}://${urlHost}:${port}`
  const token = opts.token ?? opts.requireToken ?? 'test-token'
  const kubeconfigPath = join(dir, 'kubeconfig')
  writeFileSync(kubeconfigPath, kubeconfig(url, token))
  let closed = false
  return {
    url,
    ...(cert ? {caPem: cert.cert.toString('utf8')} : {}),
    port,
    kubeconfigPath,
    cacheDir: join(dir, 'kubecache'),
    token,
    requests: impl.requests,
    writes: impl.writes,
    store: impl.store,
    faults: impl.faults,
    ...(impl.simulation ? {simulation: impl.simulation} : {}),
    sendBookmarks: () => impl.sendBookmarks(),
    close: async () => {
      if (closed) return
      closed = true
      impl.closeAll()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      rmSync(dir, {recursive: true, force: true})
    },
  }
}
