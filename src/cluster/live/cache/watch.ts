// One watch request as client-go's reflector makes it: `?watch=1&resourceVersion=RV&
// allowWatchBookmarks=true&timeoutSeconds=N`, over the connection src/cluster/live/api.ts uses
// (client-node supplies TLS and auth), read as newline-delimited JSON events.

import type {ClientRequest, IncomingMessage, RequestOptions} from 'node:http'
import * as http from 'node:http'
import * as https from 'node:https'
import {applyConnection, type RequestHooks, statusError} from '../api.js'
import type {Connection} from '../kubeconfig.js'

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'

export interface WatchEvent {
  type: WatchEventType
  object: Record<string, unknown>
}

/** How a watch ended: the server closed it, its resourceVersion is too old (410), or it failed. */
export type WatchEnd = {kind: 'closed'} | {kind: 'expired'} | {kind: 'error'; error: Error}

export interface WatchHandle {
  /** Resolves when the stream ends, however it ends; never rejects. */
  ended: Promise<WatchEnd>
  stop(): void
}

export interface WatchRequest {
  path: string
  resourceVersion: string
  timeoutSeconds: number
  labelSelector?: string
  /** The API client's hooks: a watch waits for the rate limiter and is counted like any request. */
  hooks?: RequestHooks
  userAgent?: string
}

export function openWatch(
  conn: Connection,
  spec: WatchRequest,
  onEvent: (e: WatchEvent) => void,
): WatchHandle {
  let req: ClientRequest | undefined
  let stopped = false
  let finish: (end: WatchEnd) => void = () => {}
  const ended = new Promise<WatchEnd>((resolve) => {
    let done = false
    finish = (end) => {
      if (done) return
      done = true
      resolve(end)
    }
  })
  const start = async () => {
    const url = new URL(conn.server + spec.path)
    url.searchParams.set('watch', '1')
    url.searchParams.set('resourceVersion', spec.resourceVersion)
    url.searchParams.set('allowWatchBookmarks', 'true')
    url.searchParams.set('timeoutSeconds', String(spec.timeoutSeconds))
    if (spec.labelSelector) url.searchParams.set('labelSelector', spec.labelSelector)
    await spec.hooks?.before?.('GET', url)
    const opts: RequestOptions = {
      method: 'GET',
      headers: {Accept: 'application/json', 'User-Agent': spec.userAgent ?? 'kubectl-deployctl'},
    }
    const sent = Date.now()
    let answered = false
    const observe = (code: string) => {
      if (answered) return
      answered = true
      spec.hooks?.after?.('GET', url, code, (Date.now() - sent) / 1000)
    }
    await applyConnection(conn, opts, url)
    const mod = url.protocol === 'https:' ? https : http
    if (stopped) {
      finish({kind: 'closed'})
      return
    }
    req = mod.request(url, opts, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0
      observe(String(status))
      if (status !== 200) {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          if (status === 410) finish({kind: 'expired'})
          else finish({kind: 'error', error: statusError(status, Buffer.concat(chunks).toString('utf8'))})
        })
        res.on('error', (e) => finish({kind: 'error', error: e}))
        return
      }
      res.setEncoding('utf8')
      let buffer = ''
      res.on('data', (chunk: string) => {
        buffer += chunk
        let nl = buffer.indexOf('\n')
        while (nl >= 0) {
          const line = buffer.slice(0, nl).trim()
          buffer = buffer.slice(nl + 1)
          nl = buffer.indexOf('\n')
          if (line === '' || stopped) continue
          let event: WatchEvent
          try {
            event = JSON.parse(line) as WatchEvent
          } catch {
            finish({kind: 'error', error: new Error(`invalid watch event from ${url.pathname}`)})
            req?.destroy()
            return
          }
          if (event.type === 'ERROR' && isExpired(event.object)) {
            finish({kind: 'expired'})
            req?.destroy()
            return
          }
          onEvent(event)
        }
      })
      res.on('end', () => finish({kind: 'closed'}))
      res.on('close', () => finish({kind: 'closed'}))
      res.on('error', (e) => finish(stopped ? {kind: 'closed'} : {kind: 'error', error: e}))
    })
    // The server ends the watch after timeoutSeconds; a connection that went silent for longer
    // than that (plus slack) is dead.
    req.setTimeout((spec.timeoutSeconds + 30) * 1000, () => req?.destroy(new Error('watch timed out')))
    req.on('error', (e) => {
      observe('<error>')
      finish(stopped ? {kind: 'closed'} : {kind: 'error', error: e})
    })
    req.end()
  }
  start().catch((e: unknown) => finish({kind: 'error', error: e instanceof Error ? e : new Error(String(e))}))
  return {
    ended,
    stop() {
      stopped = true
      req?.destroy()
      finish({kind: 'closed'})
    },
  }
}

/** A watch ERROR event carrying a Status of 410 Gone / reason Expired. */
function isExpired(object: Record<string, unknown>): boolean {
  return object.code === 410 || object.reason === 'Expired' || object.reason === 'Gone'
}
