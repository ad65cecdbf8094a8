// --metrics-secure: /metrics over HTTPS, each scrape authenticated by a TokenReview and authorized
// by a SubjectAccessReview (`get` on the non-resource URL /metrics), as controller-runtime's
// filters.WithAuthenticationAndAuthorization (the kubebuilder scaffold's default) and
// kube-controller-manager's secure port do. The certificate is mounted (--metrics-cert-path, with
// tls.crt and tls.key, as kubebuilder names them) or made at start-up, self-signed, as
// controller-runtime's metrics server makes one when given no certificate directory.

import {createPrivateKey, generateKeyPairSync, randomBytes, sign} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {ApiClient} from '../cluster/live/api.js'
import {InputError} from '../errors.js'
import type {Handler} from './serve.js'

export interface TlsMaterial {
  key: string
  cert: string
}

/** tls.crt and tls.key of `dir` (kubebuilder's --metrics-cert-path, --metrics-cert-name, --metrics-cert-key). */
export function readCertificate(dir: string): TlsMaterial {
  const read = (name: string) => {
    try {
      return readFileSync(join(dir, name), 'utf8')
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      throw new InputError(
        `--metrics-cert-path ${dir}: cannot read ${name}${code === 'ENOENT' ? ': no such file' : code ? ` (${code})` : ''}`,
      )
    }
  }
  const material = {cert: read('tls.crt'), key: read('tls.key')}
  try {
    createPrivateKey(material.key)
  } catch {
    throw new InputError(`--metrics-cert-path ${dir}: tls.key holds no PEM private key`)
  }
  if (!material.cert.includes('-----BEGIN CERTIFICATE-----')) {
    throw new InputError(`--metrics-cert-path ${dir}: tls.crt holds no PEM certificate`)
  }
  return material
}

// --- a self-signed certificate (X.509 v3, ECDSA P-256), DER by hand: Node creates keys, not certificates

function der(tag: number, body: Buffer): Buffer {
  const n = body.length
  const len =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff])
  return Buffer.concat([Buffer.from([tag]), len, body])
}
const seq = (...parts: Buffer[]) => der(0x30, Buffer.concat(parts))
const set = (...parts: Buffer[]) => der(0x31, Buffer.concat(parts))

function oid(text: string): Buffer {
  const [a = 0, b = 0, ...rest] = text.split('.').map(Number)
  const bytes = [40 * a + b]
  for (const v of rest) {
    const chunk = [v & 0x7f]
    for (let x = v >>> 7; x > 0; x >>>= 7) chunk.unshift((x & 0x7f) | 0x80)
    bytes.push(...chunk)
  }
  return der(0x06, Buffer.from(bytes))
}

function utcTime(ms: number): Buffer {
  const iso = new Date(ms).toISOString() // 2026-12-05T12:00:00.000Z
  const s = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`
  return der(0x17, Buffer.from(s, 'ascii'))
}

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'))

/**
 * A self-signed serving certificate for `host` (a DNS name and, for localhost, 127.0.0.1 and ::1),
 * valid from an hour ago for a year. upstream: client-go's certutil.GenerateSelfSignedCertKey.
 */
export function selfSignedCertificate(host: string, now = Date.now()): TlsMaterial {
  const {privateKey, publicKey} = generateKeyPairSync('ec', {namedCurve: 'prime256v1'})
  const name = seq(set(seq(oid('2.5.4.3'), der(0x0c, Buffer.from(`${host}@${Math.floor(now / 1000)}`)))))
  const serial = randomBytes(16)
  serial[0] = (serial[0] ?? 0) & 0x7f
  const names = [der(0x82, Buffer.from(host, 'ascii'))]
  if (host === 'localhost') {
    names.push(der(0x87, Buffer.from([127, 0, 0, 1])))
    names.push(der(0x87, Buffer.concat([Buffer.alloc(15), Buffer.from([1])])))
  }
  const extensions = der(
    0xa3,
    seq(
      // keyUsage (critical): digitalSignature, keyEncipherment
      seq(oid('2.5.29.15'), der(0x01, Buffer.from([0xff])), der(0x04, der(0x03, Buffer.from([0x05, 0xa0])))),
      // extKeyUsage: serverAuth
      seq(oid('2.5.29.37'), der(0x04, seq(oid('1.3.6.1.5.5.7.3.1')))),
      // basicConstraints (critical): not a CA
      seq(oid('2.5.29.19'), der(0x01, Buffer.from([0xff])), der(0x04, seq())),
      // subjectAltName
      seq(oid('2.5.29.17'), der(0x04, seq(...names))),
    ),
  )
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serial),
    ECDSA_SHA256,
    name,
    seq(utcTime(now - 3_600_000), utcTime(now + 365 * 86_400_000)),
    name,
    publicKey.export({type: 'spki', format: 'der'}),
    extensions,
  )
  const signature = sign('sha256', tbs, privateKey)
  const cert = seq(tbs, ECDSA_SHA256, der(0x03, Buffer.concat([Buffer.from([0]), signature])))
  const b64 = cert.toString('base64').replace(/.{1,64}/g, '$&\n')
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${b64}-----END CERTIFICATE-----\n`,
    key: privateKey.export({type: 'pkcs8', format: 'pem'}).toString(),
  }
}

// --- authentication and authorization -----------------------------------------------------------

interface UserInfo {
  username?: string
  uid?: string
  groups?: string[]
  extra?: Record<string, string[]>
}

/** A value kept for `ttl` ms (the delegating authenticator's and authorizer's caches). */
class TtlCache<V> {
  private readonly entries = new Map<string, {value: V; until: number}>()
  constructor(private readonly now: () => number) {}
  get(key: string): V | undefined {
    const e = this.entries.get(key)
    if (!e) return undefined
    if (e.until > this.now()) return e.value
    this.entries.delete(key)
    return undefined
  }
  set(key: string, value: V, ttl: number): void {
    // A bound, so that a stream of distinct bad tokens cannot grow it without end.
    if (this.entries.size >= 4096) this.entries.clear()
    this.entries.set(key, {value, until: this.now() + ttl})
  }
}

/** upstream: controller-runtime's filter — authentication 1 min, allowed 5 min, denied 30 s. */
export const AUTHN_CACHE_TTL_MS = 60_000
export const ALLOW_CACHE_TTL_MS = 5 * 60_000
export const DENY_CACHE_TTL_MS = 30_000

/** The bearer token of a request, as the apiserver's bearertoken authenticator reads it. */
function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')
  return m?.[1]
}

/**
 * upstream: filters.WithAuthenticationAndAuthorization — wraps `inner` (the /metrics handler): no
 * or an unknown token 401 "Unauthorized", a user the SubjectAccessReview denies 403 "Authorization
 * denied for user NAME", a review that fails 500.
 */
export function authenticatedHandler(
  api: ApiClient,
  inner: Handler,
  log: (msg: string, err?: unknown) => void,
  now: () => number = Date.now,
): Handler {
  const users = new TtlCache<UserInfo | null>(now)
  const decisions = new TtlCache<boolean>(now)
  const plain = (res: Parameters<Handler>[1], code: number, body: string) => {
    res.writeHead(code, {'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff'})
    res.end(`${body}\n`)
  }
  return async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    if (path !== '/metrics') return false
    const token = bearerToken(req.headers.authorization)
    let user: UserInfo | null | undefined = token === undefined ? null : users.get(token)
    if (user === undefined && token !== undefined) {
      try {
        const review = await api.request<{status?: {authenticated?: boolean; user?: UserInfo}}>({
          method: 'POST',
          path: '/apis/authentication.k8s.io/v1/tokenreviews',
          body: {apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: {token}},
        })
        user = review?.status?.authenticated === true ? (review.status.user ?? {}) : null
        users.set(token, user, AUTHN_CACHE_TTL_MS)
      } catch (err) {
        log('Authentication failed', err)
        plain(res, 500, 'Authentication failed')
        return true
      }
    }
    if (!user) {
      plain(res, 401, 'Unauthorized')
      return true
    }
    const name = user.username ?? ''
    const verb = (req.method ?? 'GET').toLowerCase()
    const key = JSON.stringify([name, user.uid ?? '', user.groups ?? [], user.extra ?? {}, verb, path])
    let allowed = decisions.get(key)
    if (allowed === undefined) {
      try {
        const review = await api.request<{status?: {allowed?: boolean}}>({
          method: 'POST',
          path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: {
              user: name,
              ...(user.uid ? {uid: user.uid} : {}),
              ...(user.groups ? {groups: user.groups} : {}),
              ...(user.extra ? {extra: user.extra} : {}),
              nonResourceAttributes: {path, verb},
            },
          },
        })
        allowed = review?.status?.allowed === true
        decisions.set(key, allowed, allowed ? ALLOW_CACHE_TTL_MS : DENY_CACHE_TTL_MS)
      } catch (err) {
        const msg = `Authorization for user ${name} failed`
        log(msg, err)
        plain(res, 500, msg)
        return true
      }
    }
    if (!allowed) {
      plain(res, 403, `Authorization denied for user ${name}`)
      return true
    }
    return inner(req, res)
  }
}
