// --metrics-secure's pieces (issue 28): the self-signed certificate, the mounted one, and the
// filter's answers and caches, as controller-runtime's filters.WithAuthenticationAndAuthorization.

import {X509Certificate} from 'node:crypto'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import type {IncomingMessage, ServerResponse} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {ApiClient, RequestSpec} from '../../src/cluster/live/api.js'
import {
  ALLOW_CACHE_TTL_MS,
  AUTHN_CACHE_TTL_MS,
  authenticatedHandler,
  DENY_CACHE_TTL_MS,
  readCertificate,
  selfSignedCertificate,
} from '../../src/run/metrics-auth.js'

describe('the self-signed certificate', () => {
  it('is a v3 serving certificate for localhost, 127.0.0.1 and ::1, signed by its own key, valid a year', () => {
    const now = Date.parse('2026-12-05T12:00:00Z')
    const {cert, key} = selfSignedCertificate('localhost', now)
    const x = new X509Certificate(cert)
    expect(x.verify(x.publicKey)).toBe(true)
    expect(x.ca).toBe(false)
    expect(x.subject).toBe(`CN=localhost@${now / 1000}`)
    expect(x.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1')
    expect(x.checkHost('localhost')).toBe('localhost')
    expect(Date.parse(x.validFrom)).toBe(now - 3_600_000)
    expect(Date.parse(x.validTo)).toBe(now + 365 * 86_400_000)
    expect(x.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1'])
    expect(key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/)
  })
})

describe('--metrics-cert-path', () => {
  it('reads tls.crt and tls.key, and names what is missing or not PEM', () => {
    const dir = mkdtempSync(join(tmpdir(), 'deployctl-cert-'))
    try {
      expect(() => readCertificate(dir)).toThrow(
        `--metrics-cert-path ${dir}: cannot read tls.crt: no such file`,
      )
      const made = selfSignedCertificate('localhost')
      writeFileSync(join(dir, 'tls.crt'), made.cert)
      writeFileSync(join(dir, 'tls.key'), 'not a key')
      expect(() => readCertificate(dir)).toThrow(
        `--metrics-cert-path ${dir}: tls.key holds no PEM private key`,
      )
      writeFileSync(join(dir, 'tls.key'), made.key)
      expect(readCertificate(dir)).toEqual(made)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})

/** A fake API client answering the reviews; `fail` makes a kind of review throw. */
function reviewer(fail: {authn?: boolean; authz?: boolean} = {}) {
  const asked: RequestSpec[] = []
  const api = {
    request: async (spec: RequestSpec) => {
      asked.push(spec)
      const body = spec.body as {spec: {token?: string; user?: string}}
      if (spec.path.endsWith('/tokenreviews')) {
        if (fail.authn) throw new Error('tokenreviews.authentication.k8s.io is forbidden')
        const users: Record<string, string> = {good: 'scraper', bad: 'nobody'}
        const name = users[body.spec.token ?? '']
        return {status: name ? {authenticated: true, user: {username: name}} : {}}
      }
      if (fail.authz) throw new Error('subjectaccessreviews.authorization.k8s.io is forbidden')
      return {status: {allowed: body.spec.user === 'scraper'}}
    },
  }
  return {api: api as unknown as ApiClient, asked}
}

async function call(
  handler: ReturnType<typeof authenticatedHandler>,
  token?: string,
): Promise<{code: number; body: string} | 'passed'> {
  const req = {
    url: '/metrics',
    method: 'GET',
    headers: token ? {authorization: `Bearer ${token}`} : {},
  } as unknown as IncomingMessage
  let code = 0
  let body = ''
  const res = {
    writeHead: (c: number) => {
      code = c
    },
    end: (b: string) => {
      body = b
    },
  } as unknown as ServerResponse
  const taken = await handler(req, res)
  if (!taken) return 'passed'
  return code === 0 ? 'passed' : {code, body}
}

describe('the filter', () => {
  const inner = async () => true

  it('401 without or with an unknown token, 403 for a user denied, the metrics for one allowed', async () => {
    const {api} = reviewer()
    const h = authenticatedHandler(api, inner, () => {})
    expect(await call(h)).toEqual({code: 401, body: 'Unauthorized\n'})
    expect(await call(h, 'unknown')).toEqual({code: 401, body: 'Unauthorized\n'})
    expect(await call(h, 'bad')).toEqual({code: 403, body: 'Authorization denied for user nobody\n'})
    expect(await call(h, 'good')).toBe('passed')
    // Other paths are not its business.
    expect(await h({url: '/healthz', headers: {}} as unknown as IncomingMessage, {} as ServerResponse)).toBe(
      false,
    )
  })

  it('500 when a review fails, naming the step as upstream does', async () => {
    const logged: string[] = []
    const authn = authenticatedHandler(reviewer({authn: true}).api, inner, (m) => logged.push(m))
    expect(await call(authn, 'good')).toEqual({code: 500, body: 'Authentication failed\n'})
    const authz = authenticatedHandler(reviewer({authz: true}).api, inner, (m) => logged.push(m))
    expect(await call(authz, 'good')).toEqual({code: 500, body: 'Authorization for user scraper failed\n'})
    expect(logged).toEqual(['Authentication failed', 'Authorization for user scraper failed'])
  })

  it('caches a token 1 minute, an allowed user 5 minutes, a denied one 30 seconds', async () => {
    let now = 0
    const {api, asked} = reviewer()
    const h = authenticatedHandler(
      api,
      inner,
      () => {},
      () => now,
    )
    const kinds = () => asked.map((a) => (a.path.endsWith('/tokenreviews') ? 'authn' : 'authz'))
    await call(h, 'good')
    await call(h, 'good')
    expect(kinds()).toEqual(['authn', 'authz'])
    now += AUTHN_CACHE_TTL_MS + 1
    await call(h, 'good')
    expect(kinds()).toEqual(['authn', 'authz', 'authn'])
    now += ALLOW_CACHE_TTL_MS
    await call(h, 'good')
    expect(kinds()).toEqual(['authn', 'authz', 'authn', 'authn', 'authz'])
    asked.length = 0
    await call(h, 'bad')
    now += DENY_CACHE_TTL_MS - 1
    await call(h, 'bad')
    expect(kinds()).toEqual(['authn', 'authz'])
    now += 2
    await call(h, 'bad')
    expect(kinds()).toEqual(['authn', 'authz', 'authz'])
  })
})
