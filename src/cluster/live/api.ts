// A small JSON client for the Kubernetes REST API. client-node supplies the connection (agent, TLS,
// auth headers, exec credentials); the requests themselves stay raw JSON so objects round-trip
// untouched (client-node's typed models drop fields they do not know and turn times into Dates).

import type {IncomingMessage, RequestOptions} from 'node:http'
import * as http from 'node:http'
import * as https from 'node:https'
import {StringDecoder} from 'node:string_decoder'
import {StatusError, type StatusReason} from '../../controller/api/errors.js'
import {InputError} from '../../errors.js'
import {type LongTimer, setLongTimeout} from '../../util/timer.js'
import type {Connection} from './kubeconfig.js'

export class ConnectionError extends Error {
  constructor(
    message: string,
    /**
     * The request may have reached the server and been applied (a timeout or a reset after it was
     * sent, a cut response): a write that fails so has an unknown outcome.
     */
    readonly uncertain = false,
  ) {
    super(message)
    this.name = 'ConnectionError'
  }
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  path: string
  query?: Record<string, string | number | boolean | undefined>
  body?: unknown
  contentType?: string
  /** The response is text, not JSON (pods/log): returned as it came. */
  text?: boolean
  /** Aborts the request (and its retries), as a Go context does. */
  signal?: AbortSignal
}

/**
 * What every request passes through besides the network (`run` sets them): client-side rate
 * limiting, request metrics, and a guard that refuses writes (leader election).
 */
export interface RequestHooks {
  /** Before each attempt, retries included: may wait (the rate limiter) or throw (a refused write). */
  before?(method: string, url: URL, signal?: AbortSignal): Promise<void> | void
  /**
   * Synchronously as the request leaves (after the credentials are in place): may throw, so a guard
   * flipped during before()'s or the credentials' waits still stops it.
   */
  sending?(method: string, url: URL): void
  /** After each attempt: the status code ('<error>' when there was no response) and the time it took. */
  after?(method: string, url: URL, code: string, seconds: number): void
}

export interface ApiClientOptions {
  hooks?: RequestHooks
  /** The User-Agent header (default `kubectl-deployctl`). */
  userAgent?: string
  /** Keep every request in `log` (default true); a long-running controller turns it off. */
  keepLog?: boolean
}

export interface RequestLogEntry {
  method: string
  url: string
  status: number | string
  ms: number
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504])
const MAX_READ_ATTEMPTS = 4

export class ApiClient {
  /** Every request made, for -v logging and for tests that count requests. */
  readonly log: RequestLogEntry[] = []
  /** The requests in flight, each with the way to end it now (shutdown). */
  private readonly inFlight = new Set<() => void>()
  /** After shutdown(): when every request ends at the latest (epoch ms). */
  private cutoff: number | undefined

  constructor(
    private readonly conn: Connection,
    private readonly verbose: (line: string) => void = () => {},
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
    private readonly options: ApiClientOptions = {},
  ) {}

  get userAgent(): string {
    return this.options.userAgent ?? 'kubectl-deployctl'
  }

  get hooks(): RequestHooks | undefined {
    return this.options.hooks
  }

  /**
   * The process is stopping (the first SIGINT to `run`): requests in flight, and any made from now
   * on, end within `graceMs` whatever their own timeout, so that a hung request cannot hold the exit.
   */
  shutdown(graceMs: number): void {
    if (this.cutoff !== undefined) return
    this.cutoff = Date.now() + graceMs
    setLongTimeout(() => {
      for (const end of [...this.inFlight]) end()
    }, graceMs).unref()
  }

  /** GETs are retried with backoff on 429/5xx and dropped connections; writes are never retried. */
  async request<T>(spec: RequestSpec): Promise<T> {
    const attempts = spec.method === 'GET' ? MAX_READ_ATTEMPTS : 1
    let lastErr: unknown
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        return await this.once<T>(spec)
      } catch (err) {
        lastErr = err
        const retryAfter = retryDelay(err, attempt)
        if (attempt === attempts || retryAfter === undefined || spec.signal?.aborted) throw err
        this.verbose(
          `retrying ${spec.method} ${spec.path} in ${retryAfter} ms: ${err instanceof Error ? err.message : err}`,
        )
        await this.sleep(retryAfter)
      }
    }
    throw lastErr
  }

  private async once<T>(spec: RequestSpec): Promise<T> {
    const url = new URL(this.conn.server + spec.path)
    for (const [k, v] of Object.entries(spec.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v))
    const body = spec.body === undefined ? undefined : Buffer.from(JSON.stringify(spec.body))
    const hooks = this.options.hooks
    await hooks?.before?.(spec.method, url, spec.signal)
    const opts: RequestOptions = {
      method: spec.method,
      signal: spec.signal,
      headers: {
        Accept: spec.text ? '*/*' : 'application/json',
        'User-Agent': this.userAgent,
        ...(body
          ? {'Content-Type': spec.contentType ?? 'application/json', 'Content-Length': body.length}
          : {}),
      },
    }
    await applyConnection(this.conn, opts, url)
    hooks?.sending?.(spec.method, url)
    const mod = url.protocol === 'https:' ? https : http
    const started = Date.now()
    const entry: RequestLogEntry = {
      method: spec.method,
      url: url.pathname + url.search,
      status: 'pending',
      ms: 0,
    }
    if (this.options.keepLog !== false) this.log.push(entry)
    const timeoutMs = this.conn.requestTimeoutMs
    const limit = maxResponseBytes()
    const {status, text, retryAfter} = await new Promise<{status: number; text: string; retryAfter?: string}>(
      (resolve, reject) => {
        // The first outcome wins; the request is torn down with it.
        let settled = false
        let deadline: LongTimer | undefined
        const settle = (outcome: () => void) => {
          if (settled) return
          settled = true
          deadline?.cancel()
          this.inFlight.delete(interrupt)
          outcome()
        }
        const fail = (e: unknown) => settle(() => reject(e))
        const interrupt = () => {
          fail(
            new ConnectionError(
              `${spec.method} ${url.pathname} was interrupted: the process is stopping`,
              spec.method !== 'GET',
            ),
          )
          req.destroy()
        }
        const req = mod.request(url, opts, (res: IncomingMessage) => {
          // Decoded as it streams: no second copy of a large list's bytes (Buffer.concat) beside its text.
          const decoder = new StringDecoder('utf8')
          let text = ''
          let size = 0
          const tooBig = (bytes: number) => {
            fail(responseTooLarge(spec.method, url, bytes, limit))
            req.destroy()
          }
          const declared = Number(res.headers['content-length'])
          if (declared > limit) return tooBig(declared)
          // Counted as it streams: nothing past the limit is kept.
          res.on('data', (c: Buffer) => {
            size += c.length
            if (size > limit) tooBig(size)
            else text += decoder.write(c)
          })
          res.on('end', () =>
            settle(() =>
              resolve({
                status: res.statusCode ?? 0,
                text: text + decoder.end(),
                retryAfter: res.headers['retry-after'] as string | undefined,
              }),
            ),
          )
          res.on('error', (e) => fail(connectionError(e, url, timeoutMs)))
        })
        // kubectl's --request-timeout bounds the whole request, headers and body (an idle timeout
        // lets a server that sends a byte now and then hold it for ever).
        if (timeoutMs > 0) {
          deadline = setLongTimeout(() => {
            fail(connectionError({code: 'ETIMEDOUT_REQUEST'}, url, timeoutMs))
            req.destroy()
          }, timeoutMs)
        }
        req.on('error', (e) => fail(connectionError(e, url, timeoutMs)))
        this.inFlight.add(interrupt)
        if (this.cutoff !== undefined && Date.now() >= this.cutoff) interrupt()
        if (body) req.write(body)
        req.end()
      },
    ).catch((err) => {
      entry.status = 'error'
      entry.ms = Date.now() - started
      hooks?.after?.(spec.method, url, '<error>', entry.ms / 1000)
      throw err
    })
    entry.status = status
    entry.ms = Date.now() - started
    hooks?.after?.(spec.method, url, String(status), entry.ms / 1000)
    this.verbose(`${spec.method} ${url.pathname}${url.search} ${status} in ${entry.ms} milliseconds`)
    if (status >= 200 && status < 300) {
      if (spec.text) return text as T
      if (text === '') return undefined as T
      try {
        return JSON.parse(text) as T
      } catch {
        throw new ConnectionError(
          `the server sent a truncated or invalid response to ${spec.method} ${url.pathname} (${status})`,
          true,
        )
      }
    }
    throw statusError(status, text, retryAfter)
  }
}

interface StatusBody {
  kind?: string
  message?: string
  reason?: string
  code?: number
  details?: {causes?: Array<{type?: string; message?: string; field?: string}>; retryAfterSeconds?: number}
}

const REASON_BY_CODE: Record<number, StatusReason> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
}

/** A metav1.Status body becomes a StatusError carrying the server's own message. */
export function statusError(code: number, text: string, retryAfter?: string): StatusError {
  let body: StatusBody | undefined
  try {
    body = JSON.parse(text) as StatusBody
  } catch {
    body = undefined
  }
  const reason = (body?.reason as StatusReason | undefined) ?? REASON_BY_CODE[code] ?? 'Unknown'
  let message =
    body?.message ??
    (code === 401
      ? 'Unauthorized'
      : `the server responded with ${code}${text ? `: ${text.slice(0, 200)}` : ''}`)
  // kubectl's wording (StandardErrorMessage): a bare "Unauthorized" does not say what to do.
  if (code === 401) message = `You must be logged in to the server (${message})`
  const causes = (body?.details?.causes ?? []).map((c) => ({
    type: c.type ?? '',
    message: c.message,
    field: c.field,
  }))
  const err = new StatusError(reason, code, message, causes)
  const seconds =
    body?.details?.retryAfterSeconds ??
    (retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined)
  if (seconds !== undefined) Object.assign(err, {retryAfterSeconds: seconds})
  return err
}

/** How many bytes a response body may hold (DEPLOYCTL_MAX_RESPONSE_BYTES); 256 MiB by default. */
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024

export function maxResponseBytes(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.DEPLOYCTL_MAX_RESPONSE_BYTES
  if (text === undefined || text === '') return DEFAULT_MAX_RESPONSE_BYTES
  const n = Number(text)
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new InputError(
      `invalid DEPLOYCTL_MAX_RESPONSE_BYTES "${text}": want a whole number of bytes, e.g. ${DEFAULT_MAX_RESPONSE_BYTES}`,
    )
  }
  return n
}

function responseTooLarge(method: string, url: URL, bytes: number, limit: number): ConnectionError {
  // A write's answer cut short leaves its outcome unknown; a read's is simply refused.
  return new ConnectionError(
    `the server's answer to ${method} ${url.pathname} is larger than ${limit} bytes (${bytes} so far): raise DEPLOYCTL_MAX_RESPONSE_BYTES, or narrow the request with -n or -l`,
    method !== 'GET',
  )
}

function retryDelay(err: unknown, attempt: number): number | undefined {
  const backoff = Math.min(200 * 2 ** (attempt - 1), 2000)
  if (err instanceof StatusError) {
    if (!RETRYABLE_STATUS.has(err.code)) return undefined
    const after = (err as StatusError & {retryAfterSeconds?: number}).retryAfterSeconds
    return after !== undefined ? Math.min(after * 1000, 10_000) : backoff
  }
  if (err instanceof ConnectionError && /reset|truncated/.test(err.message)) return backoff
  return undefined
}

function connectionError(err: unknown, url: URL, timeoutMs: number): ConnectionError {
  const code = (err as {code?: string}).code ?? ''
  const host = url.host
  switch (code) {
    case 'ECONNREFUSED':
      return new ConnectionError(
        `The connection to the server ${host} was refused - did you specify the right host or port?`,
      )
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConnectionError(
        `Unable to connect to the server: dial tcp: lookup ${url.hostname}: no such host`,
      )
    case 'ETIMEDOUT_REQUEST':
      return new ConnectionError(
        `Unable to connect to the server: the server at ${host} did not answer within the request timeout (${timeoutMs / 1000}s)`,
        true,
      )
    case 'ECONNRESET':
    case 'EPIPE':
      return new ConnectionError(`the connection to the server ${host} was reset`, true)
    default: {
      // Node 24 appends advice about its own flags to certificate errors ("; if the root CA is
      // installed locally, try running Node.js with --use-system-ca"): kubectl's wording stays.
      const message = (err instanceof Error ? err.message : String(err)).replace(
        /; if the root CA is .*$/,
        '',
      )
      if (
        /certificate|self[- ]signed|SSL|TLS/i.test(message) ||
        code.startsWith('ERR_TLS') ||
        code.includes('CERT')
      ) {
        return new ConnectionError(`Unable to connect to the server: tls: ${message}`)
      }
      return new ConnectionError(`Unable to connect to the server ${host}: ${message}`)
    }
  }
}

/**
 * What every request to the cluster carries: TLS and credentials from the kubeconfig (client-node),
 * and the impersonation headers. The TLS material is checked once per connection, so that a bad
 * key or certificate is named by its kubeconfig field rather than by OpenSSL's error code.
 */
export async function applyConnection(conn: Connection, opts: RequestOptions, url: URL): Promise<void> {
  try {
    await conn.kc.applyToHTTPSOptions(opts)
  } catch (err) {
    throw credentialError(conn, err)
  }
  if (url.protocol === 'https:' && !tlsChecked.has(conn)) {
    checkTlsMaterial(conn, opts as https.RequestOptions)
    tlsChecked.add(conn)
  }
  const headers = opts.headers as Record<string, string | number | string[]>
  if (conn.impersonate?.user) headers['Impersonate-User'] = conn.impersonate.user
  if (conn.impersonate?.uid) headers['Impersonate-Uid'] = conn.impersonate.uid
  if (conn.impersonate?.groups.length) headers['Impersonate-Group'] = conn.impersonate.groups
}

const tlsChecked = new WeakSet<Connection>()

type FlagFiles = NonNullable<Connection['flagFiles']>

/** Refuses a key, certificate or CA that TLS cannot use, naming the kubeconfig field it came from. */
function checkTlsMaterial(conn: Connection, opts: https.RequestOptions): void {
  const tls = process.getBuiltinModule('node:tls') as typeof import('node:tls')
  const usable = (o: import('node:tls').SecureContextOptions): boolean => {
    try {
      tls.createSecureContext(o)
      return true
    } catch {
      return false
    }
  }
  const {key, cert, ca} = opts
  // OpenSSL skips what is not PEM in a CA bundle; Go (kubectl) refuses a bundle with no certificate.
  const caIsPem =
    ca === undefined || [ca].flat().every((c) => String(c).includes('-----BEGIN CERTIFICATE-----'))
  if (caIsPem && usable({key, cert, ca})) return
  const user = conn.kc.getCurrentUser()
  const cluster = conn.kc.getCurrentCluster()
  const field = (data: string | undefined, file: string | undefined, name: keyof FlagFiles) =>
    data ? `${name}-data` : `${name}${file ? ` (${file})` : ''}`
  // A file a flag gave is named by its flag: the kubeconfig did not say it.
  const byFlag = (file: string | undefined, name: keyof FlagFiles) =>
    file !== undefined && conn.flagFiles?.[name] === file ? `--${name} ${file}` : undefined
  const keyFlag = byFlag(user?.keyFile, 'client-key')
  const certFlag = byFlag(user?.certFile, 'client-certificate')
  const caFlag = byFlag(cluster?.caFile, 'certificate-authority')
  const keyField = keyFlag ?? field(user?.keyData, user?.keyFile, 'client-key')
  const certField = certFlag ?? field(user?.certData, user?.certFile, 'client-certificate')
  const ofUser = `the kubeconfig's user ${JSON.stringify(user?.name ?? '')}: `
  if (key !== undefined && !usable({key})) {
    throw new InputError(
      `${keyFlag ?? ofUser + keyField} is not a PEM-encoded private key (tls: failed to find any PEM data in key input)`,
    )
  }
  if (cert !== undefined && !usable({cert})) {
    throw new InputError(
      `${certFlag ?? ofUser + certField} is not a PEM-encoded certificate (tls: failed to find any PEM data in certificate input)`,
    )
  }
  if (!caIsPem || (ca !== undefined && !usable({ca}))) {
    const where =
      caFlag ??
      `the kubeconfig's cluster ${JSON.stringify(cluster?.name ?? '')}: ${field(cluster?.caData, cluster?.caFile, 'certificate-authority')}`
    throw new InputError(`${where} holds no PEM-encoded certificate (unable to load root certificates)`)
  }
  throw new InputError(
    `${keyFlag || certFlag ? '' : ofUser}${keyField} is not the private key of ${certField} (tls: private key does not match public key)`,
  )
}

/**
 * A failure to get credentials, worded without what the credential source printed: client-node
 * puts an exec plugin's stderr, or a slice of its stdout (JSON.parse's excerpt), in its errors, and
 * those can hold the very token the plugin was asked for.
 */
function credentialError(conn: Connection, err: unknown): ConnectionError {
  const user = conn.kc.getCurrentUser()
  const code = (err as {code?: string}).code
  if (user?.exec) {
    const command = JSON.stringify(user.exec.command)
    if (code === 'ENOENT')
      return new ConnectionError(`getting credentials: exec: executable ${command} not found`)
    if (err instanceof SyntaxError) {
      return new ConnectionError(
        `getting credentials: exec plugin ${command} did not print an ExecCredential (its output is not JSON)`,
      )
    }
    return new ConnectionError(
      `getting credentials: exec plugin ${command} failed (its output is not shown: it may hold credentials)`,
    )
  }
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0]
  return new ConnectionError(`getting credentials for user ${JSON.stringify(user?.name ?? '')}: ${message}`)
}
