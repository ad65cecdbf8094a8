// A cluster entry without certificate-authority(-data) is verified against the machine's trust
// store, as kubectl does (Go's crypto/x509 reads the system roots). On Linux OpenSSL, and so Node's
// system store, honours SSL_CERT_FILE / SSL_CERT_DIR, which lets a test stand in for the OS store.

import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {deployment} from '../objects.js'
import {cliAsync, selfSignedCert} from './helpers.js'

let server: ApiServer
let dir: string

beforeAll(async () => {
  server = await startApiServer({tls: true, objects: [deployment({namespace: 'ca-demo', defaulted: true})]})
  dir = mkdtempSync(join(tmpdir(), 'deployctl-system-ca-'))
  writeFileSync(join(dir, 'server-ca.pem'), server.caPem ?? '')
  // A CA that did not sign the server's certificate.
  selfSignedCert(dir, {key: 'other.key', cert: 'other-ca.pem', cn: 'someone-else'})
  mkdirSync(join(dir, 'empty'))
  writeFileSync(
    join(dir, 'config'),
    `apiVersion: v1
kind: Config
clusters:
- {name: c, cluster: {server: "${server.url}"}}
users:
- {name: u, user: {token: ${server.token}}}
contexts:
- {name: x, context: {cluster: c, user: u}}
current-context: x
`,
  )
})

afterAll(async () => {
  await server?.close()
  if (dir) rmSync(dir, {recursive: true, force: true})
})

const sync = (caFile: string) =>
  cliAsync(['dry-run', 'sync', '-n', 'ca-demo', '-o', 'name'], {
    env: {
      KUBECONFIG: join(dir, 'config'),
      SSL_CERT_FILE: join(dir, caFile),
      SSL_CERT_DIR: join(dir, 'empty'),
      NODE_EXTRA_CA_CERTS: '',
    },
  })

describe('a kubeconfig cluster without a certificate authority', () => {
  it('trusts a server whose CA is in the system store, as kubectl does', async () => {
    const r = await sync('server-ca.pem')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe('deployment.apps/web')
  })

  it('refuses a server whose CA the system store does not hold', async () => {
    const r = await sync('other-ca.pem')
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^Unable to connect to the server: .*certificate/i)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })
})
