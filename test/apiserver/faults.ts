// Fault injection: fail, delay, truncate or drop chosen requests; drop watch streams; expire the watch
// window. Rules can be given at start-up (FaultPlan) or added while the server runs.

import {
  ApiError,
  conflict,
  forbidden,
  internalError,
  notFound,
  serviceUnavailable,
  tooManyRequests,
  unauthorized,
} from './errors.js'

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection'

/** What the server knows about a request when it checks the rules. */
export interface RequestInfo {
  method: string
  path: string
  verb?: Verb
  group?: string
  resource?: string
  subresource?: string
  namespace?: string
  name?: string
}

export interface FaultMatch {
  method?: string | string[]
  verb?: Verb | Verb[]
  /** A RegExp (or its source) tested against the path without the query string. */
  path?: RegExp | string
  resource?: string
  subresource?: string
  namespace?: string
  name?: string
}

export interface FaultRule extends FaultMatch {
  /** Hit the Nth matching request (1-based). Default 1. */
  nth?: number
  /** How many consecutive matching requests to hit from the Nth on. Default 1; Infinity for all. */
  times?: number
  /** Answer with this HTTP status (409, 500, 503, 429, 403, 401, 404, 504...) and a realistic Status body. */
  status?: number
  /** Overrides the Status message (for 500/503 and other generic codes). */
  message?: string
  /** For 429: the Retry-After header and details.retryAfterSeconds. Default 1. */
  retryAfterSeconds?: number
  /** For 403: the user named in the RBAC message. */
  user?: string
  /** Delay the response by this many milliseconds (alone or before the failure). */
  delayMs?: number
  /** Send only this many bytes of the response body (a whole number; default half when `true`), then end. */
  truncate?: number | true
  /** Destroy the connection without answering. */
  drop?: boolean
  /** Send the headers at once, then the body one byte every this many milliseconds. */
  trickleMs?: number
  /** Append this many spaces to the body (still valid JSON), sent without a Content-Length. */
  padBytes?: number
  /**
   * On a list: answer with this `continue` token whatever the request said ('fresh': a new token
   * every time), as a server whose pagination never ends.
   */
  continueToken?: string
  /**
   * Answer with this JSON value as the body instead of the real one (the status stays, 200 on
   * success); on a watch, send it as the stream's first line, then the real events.
   */
  body?: unknown
}

export type FaultPlan = FaultRule[]

export interface FaultHandle {
  readonly rule: FaultRule
  /** Matching requests seen so far. */
  readonly seen: number
  /** Requests this rule acted on. */
  readonly hits: number
  remove(): void
}

export interface FaultDecision {
  delayMs: number
  error?: ApiError
  truncate?: number | true
  drop?: boolean
  trickleMs?: number
  padBytes?: number
  continueToken?: string
  body?: unknown
}

interface Entry {
  rule: FaultRule
  seen: number
  hits: number
}

function matchOne<T>(want: T | T[] | undefined, got: T | undefined): boolean {
  if (want === undefined) return true
  return Array.isArray(want) ? got !== undefined && want.includes(got) : want === got
}

export function matches(m: FaultMatch, info: RequestInfo): boolean {
  if (!matchOne(m.method?.toString().toUpperCase().split(','), info.method.toUpperCase())) return false
  if (!matchOne(m.verb, info.verb)) return false
  if (m.path !== undefined) {
    const re = typeof m.path === 'string' ? new RegExp(m.path) : m.path
    if (!re.test(info.path)) return false
  }
  if (m.resource !== undefined && m.resource !== info.resource) return false
  if (m.subresource !== undefined && m.subresource !== info.subresource) return false
  if (m.namespace !== undefined && m.namespace !== info.namespace) return false
  if (m.name !== undefined && m.name !== info.name) return false
  return true
}

const K8S_VERB: Record<string, string> = {
  get: 'get',
  list: 'list',
  watch: 'watch',
  create: 'create',
  update: 'update',
  patch: 'patch',
  delete: 'delete',
  deletecollection: 'deletecollection',
}

export function faultError(rule: FaultRule, info: RequestInfo): ApiError {
  const gr = {group: info.group ?? '', resource: info.resource ?? ''}
  const name = info.name ?? ''
  switch (rule.status) {
    case 409:
      return conflict(gr, name)
    case 500:
      return internalError(rule.message ?? 'injected fault')
    case 503:
      return serviceUnavailable(rule.message)
    case 429:
      return tooManyRequests(rule.retryAfterSeconds ?? 1)
    case 403:
      return forbidden({
        user: rule.user ?? 'system:serviceaccount:default:x',
        verb: K8S_VERB[info.verb ?? 'get'] ?? 'get',
        group: gr.group,
        resource: gr.resource,
        subresource: info.subresource,
        name: info.name,
        namespace: info.namespace,
      })
    case 401:
      return unauthorized()
    case 404:
      return notFound(gr, name)
    case 504:
      return new ApiError(
        504,
        'Timeout',
        rule.message ??
          'the server was unable to return a response in the time allotted, but may still be processing the request',
      )
    default:
      return new ApiError(rule.status ?? 500, 'InternalError', rule.message ?? 'injected fault')
  }
}

export interface FaultHooks {
  dropWatches(match: FaultMatch | undefined, graceful: boolean): number
  expireWatchWindow(): void
}

export class FaultController {
  private entries: Entry[] = []

  constructor(
    private readonly hooks: FaultHooks,
    plan: FaultPlan = [],
  ) {
    for (const r of plan) this.add(r)
  }

  /** Adds a rule; the handle reports how often it matched and acted, and removes it. */
  add(rule: FaultRule): FaultHandle {
    const entry: Entry = {rule, seen: 0, hits: 0}
    this.entries.push(entry)
    return {
      rule,
      get seen() {
        return entry.seen
      },
      get hits() {
        return entry.hits
      },
      remove: () => {
        this.entries = this.entries.filter((e) => e !== entry)
      },
    }
  }

  /** Fail the `nth` (default 1st) request matching `match` with `status`. */
  fail(
    match: FaultMatch,
    status: number,
    opts: Omit<FaultRule, keyof FaultMatch | 'status'> = {},
  ): FaultHandle {
    return this.add({...match, ...opts, status})
  }

  /** Delay every matching request (every request without a match) by `ms`. */
  delay(ms: number, match: FaultMatch = {}, times = Number.POSITIVE_INFINITY): FaultHandle {
    return this.add({...match, delayMs: ms, times})
  }

  /** Truncate the body of the next matching response. */
  truncate(match: FaultMatch, bytes: number | true = true): FaultHandle {
    return this.add({...match, truncate: bytes})
  }

  /** Close open watch streams (abruptly by default, or by ending the response). Returns how many. */
  dropWatches(match?: FaultMatch, opts: {graceful?: boolean} = {}): number {
    return this.hooks.dropWatches(match, opts.graceful ?? false)
  }

  /** Forget the watch history: the next watch from an older resourceVersion gets 410 Expired. */
  expireWatchWindow(): void {
    this.hooks.expireWatchWindow()
  }

  clear(): void {
    this.entries = []
  }

  get rules(): FaultRule[] {
    return this.entries.map((e) => e.rule)
  }

  /** Consulted once per request. */
  decide(info: RequestInfo): FaultDecision {
    const d: FaultDecision = {delayMs: 0}
    for (const e of this.entries) {
      if (!matches(e.rule, info)) continue
      e.seen++
      const nth = e.rule.nth ?? 1
      const times = e.rule.times ?? 1
      if (e.seen < nth || e.seen >= nth + times) continue
      e.hits++
      d.delayMs += e.rule.delayMs ?? 0
      if (e.rule.drop) d.drop = true
      if (e.rule.truncate !== undefined) d.truncate = e.rule.truncate
      if (e.rule.trickleMs !== undefined) d.trickleMs = e.rule.trickleMs
      if (e.rule.padBytes !== undefined) d.padBytes = e.rule.padBytes
      if (e.rule.continueToken !== undefined) d.continueToken = e.rule.continueToken
      if ('body' in e.rule) d.body = e.rule.body
      if (e.rule.status !== undefined && !d.error) d.error = faultError(e.rule, info)
    }
    return d
  }
}
