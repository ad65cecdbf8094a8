// A small JSON client for the Kubernetes REST API. client-node supplies the connection (agent, TLS,
// auth headers, exec credentials); the requests themselves stay raw JSON so objects round-trip
// untouched (client-node's typed models drop fields they do not know and turn times into Dates).

import type {IncomingMessage, RequestOptions} from 'node:http'
import * as http from 'node:http'
import * as https from 'node:https'
import {StatusError, type StatusReason} from '../../controller/api/errors.js'
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

  constructor(
    private readonly conn: Connection,
    private readonly verbose: (line: string) => void = () => {},
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

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
        if (attempt === attempts || retryAfter === undefined) throw err
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
    const opts: RequestOptions = {
      method: spec.method,
      headers: {
        Accept: 'application/json',
        'User-Agent': 'kubectl-deployctl',
        ...(body
          ? {'Content-Type': spec.contentType ?? 'application/json', 'Content-Length': body.length}
          : {}),
      },
    }
    try {
      await this.conn.kc.applyToHTTPSOptions(opts)
    } catch (err) {
      throw credentialError(this.conn, err)
    }
    const headers = opts.headers as Record<string, string | number | string[]>
    if (this.conn.impersonate?.user) headers['Impersonate-User'] = this.conn.impersonate.user
    if (this.conn.impersonate?.groups.length) headers['Impersonate-Group'] = this.conn.impersonate.groups
    const mod = url.protocol === 'https:' ? https : http
    const started = Date.now()
    const entry: RequestLogEntry = {
      method: spec.method,
      url: url.pathname + url.search,
      status: 'pending',
      ms: 0,
    }
    this.log.push(entry)
    const {status, text, retryAfter} = await new Promise<{status: number; text: string; retryAfter?: string}>(
      (resolve, reject) => {
        const req = mod.request(url, opts, (res: IncomingMessage) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              text: Buffer.concat(chunks).toString('utf8'),
              retryAfter: res.headers['retry-after'] as string | undefined,
            }),
          )
          res.on('error', (e) => reject(connectionError(e, url, this.conn.requestTimeoutMs)))
        })
        if (this.conn.requestTimeoutMs > 0) {
          req.setTimeout(this.conn.requestTimeoutMs, () =>
            req.destroy(Object.assign(new Error('timeout'), {code: 'ETIMEDOUT_REQUEST'})),
          )
        }
        req.on('error', (e) => reject(connectionError(e, url, this.conn.requestTimeoutMs)))
        if (body) req.write(body)
        req.end()
      },
    ).catch((err) => {
      entry.status = 'error'
      entry.ms = Date.now() - started
      throw err
    })
    entry.status = status
    entry.ms = Date.now() - started
    this.verbose(`${spec.method} ${url.pathname}${url.search} ${status} in ${entry.ms} milliseconds`)
    if (status >= 200 && status < 300) {
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
