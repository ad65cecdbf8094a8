// The controller's HTTP endpoints, as kube-controller-manager and controller-runtime serve them:
// /metrics (Prometheus text) on --metrics-bind-address, /healthz and /readyz on
// --health-probe-bind-address ("0" turns either off; one address may serve both).
// Health checks answer like the API server's healthz package: "ok", or per-check lines and
// "healthz check failed" with a 500; ?verbose lists every check; /healthz/<name> runs one.

import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {isIPv4, isIPv6} from 'node:net'
import {InputError, UsageError} from '../errors.js'

export interface BindAddress {
  host: string
  port: number
}

/**
 * HOST:PORT, :PORT (every interface) or [IPv6]:PORT; "0" (or "") turns the endpoint off, as in
 * controller-runtime. Port 0 picks a free port (the log says which). HOST is an IP address or a
 * host name, checked here: a dotted quad that is no IPv4 address (999.1.1.1) would otherwise reach
 * the resolver and come back as getaddrinfo's ENOTFOUND.
 */
export function parseBindAddress(text: string, flag: string): BindAddress | undefined {
  const t = text.trim()
  if (t === '0' || t === '') return undefined
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*)):(\d{1,5})$/.exec(t)
  const port = m ? Number(m[3]) : Number.NaN
  if (!m || port > 65535) {
    throw new UsageError(
      `invalid ${flag} "${text}": want HOST:PORT (e.g. :8080 or 127.0.0.1:8081), or 0 to turn it off`,
    )
  }
  const bad = (why: string) => new UsageError(`invalid ${flag} "${text}": ${why}`)
  if (m[1] !== undefined) {
    if (!isIPv6(m[1])) throw bad(`${m[1]} is not an IPv6 address`)
    return {host: m[1], port}
  }
  const host = m[2] || '0.0.0.0'
  if (/^[\d.]+$/.test(host)) {
    if (!isIPv4(host)) throw bad(`${host} is not an IPv4 address (four numbers from 0 to 255)`)
  } else if (host.length > 253 || !HOST_NAME.test(host)) {
    throw bad(`${JSON.stringify(host)} is neither an IP address nor a host name`)
  }
  return {host, port}
}

/** A DNS name: dot-separated labels of letters, digits and inner hyphens (RFC 1123). */
const HOST_NAME =
  /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/

/** Why listening on `where` failed, in our words (Node's are `listen EADDRNOTAVAIL ...`). */
export function listenFailure(err: NodeJS.ErrnoException, where: string, flag?: string): InputError {
  const on = `cannot listen on ${where}${flag ? ` (${flag})` : ''}`
  switch (err.code) {
    case 'EADDRINUSE':
      return new InputError(`${on}: the address is already in use`)
    case 'EADDRNOTAVAIL':
      return new InputError(`${on}: the address is not one of this machine's`)
    case 'EACCES':
    case 'EPERM':
      return new InputError(`${on}: permission denied (ports below 1024 need privileges)`)
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return new InputError(`${on}: the host name does not resolve`)
    case 'EAFNOSUPPORT':
      return new InputError(`${on}: this machine does not support the address family`)
    default:
      return new InputError(`${on}: ${err.code ?? err.message}`)
  }
}

export interface HealthCheck {
  name: string
  /** undefined when healthy. */
  check(): Error | undefined
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>

/** upstream: healthz.InstallHandler / InstallReadyzHandler — "ping" and the given checks. */
export function checksHandler(path: '/healthz' | '/readyz', checks: HealthCheck[]): Handler {
  const all: HealthCheck[] = [{name: 'ping', check: () => undefined}, ...checks]
  const kind = path.slice(1)
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (url.pathname !== path && !url.pathname.startsWith(`${path}/`)) return false
    const only = url.pathname.slice(path.length + 1)
    const run = only ? all.filter((c) => c.name === only) : all
    if (run.length === 0) {
      text(res, 404, '404 page not found\n')
      return true
    }
    const results = run.map((c) => ({name: c.name, error: safeCheck(c)}))
    const failed = results.filter((r) => r.error)
    const verbose = url.searchParams.has('verbose')
    // Upstream withholds the reason; ours are our own words (no server text, which goes to the
    // log), and a failing probe should say why to whoever curls it.
    const lines = results.map((r) =>
      r.error ? `[-]${r.name} failed: ${r.error.message}` : `[+]${r.name} ok`,
    )
    if (failed.length > 0) {
      text(res, 500, `${lines.join('\n')}\n${kind} check failed\n`)
    } else if (verbose) {
      text(res, 200, `${lines.join('\n')}\n${kind} check passed\n`)
    } else {
      text(res, 200, 'ok')
    }
    return true
  }
}

export function metricsHandler(expose: () => Promise<{contentType: string; body: string}>): Handler {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (url.pathname !== '/metrics') return false
    try {
      const {contentType, body} = await expose()
      res.writeHead(200, {'Content-Type': contentType})
      res.end(body)
    } catch (err) {
      text(res, 500, `${err instanceof Error ? err.message : String(err)}\n`)
    }
    return true
  }
}

export interface RunningServer {
  /** host:port actually bound. */
  address: string
  close(): Promise<void>
}

/** Listens on the address and answers with the first handler that takes the request. */
export async function serve(
  bind: BindAddress,
  handlers: Handler[],
  flag?: string,
  tls?: {key: string; cert: string},
): Promise<RunningServer> {
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      for (const h of handlers) if (await h(req, res)) return
      text(res, 404, '404 page not found\n')
    })().catch(() => {
      if (!res.headersSent) text(res, 500, 'internal error\n')
    })
  }
  const server: Server = tls
    ? (await import('node:https')).createServer({key: tls.key, cert: tls.cert, minVersion: 'TLSv1.2'}, answer)
    : createServer(answer)
  // Probes and scrapes are short; do not let an idle keep-alive connection hold the close.
  server.keepAliveTimeout = 5000
  await new Promise<void>((resolve, reject) => {
    const where = bind.host.includes(':') ? `[${bind.host}]:${bind.port}` : `${bind.host}:${bind.port}`
    server.once('error', (err: NodeJS.ErrnoException) => reject(listenFailure(err, where, flag)))
    server.listen(bind.port, bind.host, () => resolve())
  })
  const addr = server.address() as AddressInfo
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address
  return {
    address: `${host}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

function safeCheck(c: HealthCheck): Error | undefined {
  try {
    return c.check()
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  }
}

function text(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
  })
  res.end(body)
}
