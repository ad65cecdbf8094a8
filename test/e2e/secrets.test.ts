// Credentials never show: a kubeconfig holding known secret strings (a bearer token, a client key, a
// basic-auth password, an exec plugin's token, a password in a server URL) is used against the test
// API server, normally and with faults (401, 403, 500, connection refused), at -v 6 and -v 9 and
// with DEBUG=1; no secret may appear on stdout or stderr. The server's request log shows each
// credential was really sent, so the absence is not for want of using them.

import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {deployment as build} from '../objects.js'
import {cliAsync, limiter, type RunResult, selfSignedCert} from './helpers.js'

const SLOW = {timeout: 300_000}

const TOKEN = 'sekret-bearer-token-5f0c2a91d4'
const PASSWORD = 'sekret-basic-password-77ab31'
const EXEC_TOKEN = 'sekret-exec-token-c3e8f6021b'
const URL_PASSWORD = 'sekret-url-password-a4d2'

const slot = limiter(3)

function deployment(namespace: string) {
  return build({namespace, replicas: 2})
}

let server: ApiServer
let dir: string
let kubeconfig: string
/** Every string that must never be printed. */
let secrets: string[]

async function closedPort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok))
  const {port} = probe.address() as {port: number}
  await new Promise((ok) => probe.close(ok))
  return port
}

function execPlugin(name: string, body: string): string {
  const file = join(dir, name)
  writeFileSync(file, body)
  return file
}

beforeAll(async () => {
  server = await startApiServer({
    tls: true,
    objects: ['s-ok', 's-401', 's-403', 's-500', 's-write'].map(deployment),
  })
  server.faults.fail({namespace: 's-401', verb: 'list'}, 401, {times: Number.POSITIVE_INFINITY})
  server.faults.fail({namespace: 's-403', verb: 'create'}, 403)
  server.faults.fail({namespace: 's-500', verb: 'list'}, 500, {times: Number.POSITIVE_INFINITY})

  dir = mkdtempSync(join(tmpdir(), 'deployctl-secrets-'))
  selfSignedCert(dir, {key: 'client.key', cert: 'client.crt', cn: 'deployctl-secrets'})
  const keyPem = readFileSync(join(dir, 'client.key'), 'utf8')
  const keyData = Buffer.from(keyPem).toString('base64')
  const certData = readFileSync(join(dir, 'client.crt')).toString('base64')
  const keyLines = keyPem.split('\n').filter((l) => l !== '' && !l.startsWith('-----'))

  const goodPlugin = execPlugin(
    'good-plugin.mjs',
    `process.stdout.write(JSON.stringify({apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: {token: ${JSON.stringify(EXEC_TOKEN)}}}))\n`,
  )
  // A plugin that prints the bare token instead of an ExecCredential.
  const rawPlugin = execPlugin(
    'raw-plugin.mjs',
    `process.stdout.write(${JSON.stringify(`${EXEC_TOKEN}\n`)})\n`,
  )
  // A plugin that fails and, carelessly, puts the token in its message.
  const failingPlugin = execPlugin(
    'failing-plugin.mjs',
    `process.stderr.write(${JSON.stringify(`refreshing ${EXEC_TOKEN} failed\n`)}); process.exit(3)\n`,
  )
  const exec = (plugin: string) =>
    `{exec: {apiVersion: client.authentication.k8s.io/v1, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(plugin)}], interactiveMode: Never}}`

  const refused = `http://admin:${URL_PASSWORD}@127.0.0.1:${await closedPort()}`
  const users: Record<string, string> = {
    token: `{token: ${TOKEN}}`,
    cert: `{client-certificate-data: ${certData}, client-key-data: ${keyData}}`,
    basic: `{username: admin, password: ${PASSWORD}}`,
    exec: exec(goodPlugin),
    'exec-raw': exec(rawPlugin),
    'exec-failing': exec(failingPlugin),
  }
  kubeconfig = join(dir, 'config')
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters:
- {name: secure, cluster: {server: "${server.url}", insecure-skip-tls-verify: true}}
- {name: refused, cluster: {server: "${refused}"}}
users:
${Object.entries(users)
  .map(([name, user]) => `- {name: ${name}, user: ${user}}`)
  .join('\n')}
contexts:
${Object.keys(users)
  .flatMap((name) => [
    `- {name: ${name}, context: {cluster: secure, user: ${name}}}`,
    `- {name: ${name}-refused, context: {cluster: refused, user: ${name}}}`,
  ])
  .join('\n')}
current-context: token
`,
  )
  secrets = [
    TOKEN,
    PASSWORD,
    EXEC_TOKEN,
    URL_PASSWORD,
    Buffer.from(`admin:${PASSWORD}`).toString('base64'),
    Buffer.from(`admin:${URL_PASSWORD}`).toString('base64'),
    keyData,
    ...keyLines,
  ]
})

afterAll(async () => {
  await server?.close()
})

const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  slot(() => cliAsync(args, {env: {KUBECONFIG: kubeconfig, ...env}}))

function expectNoSecret(r: RunResult): void {
  const printed = `${r.stdout}\n${r.stderr}`
  for (const s of secrets) expect(printed).not.toContain(s)
  expect(printed).not.toMatch(/Bearer |Basic [A-Za-z0-9+/=]{8}/)
}

const authorizations = (ns: string) =>
  new Set(server.requests.filter((q) => q.namespace === ns).map((q) => q.authorization ?? '(none)'))

/** The Authorization header each user's requests carry (the certificate user's key goes into TLS). */
const sent: Record<string, () => string> = {
  token: () => `Bearer ${TOKEN}`,
  cert: () => '(none)',
  basic: () => `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`,
  exec: () => `Bearer ${EXEC_TOKEN}`,
}

describe.concurrent.each(['token', 'cert', 'basic', 'exec'])('user %s', SLOW, (user) => {
  it('a normal run at -v 9: the requests are logged, the credential is not', async () => {
    const ns = 's-ok'
    const r = await run(['dry-run', 'sync', '--context', user, '-n', ns, '-v', '9'])
    expectNoSecret(r)
    expect(r.stderr).toMatch(
      /^I GET \/apis\/apps\/v1\/namespaces\/s-ok\/deployments\?limit=500 200 in \d+ milliseconds$/m,
    )
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('deployment s-ok/web')
    // The credential was really used.
    expect(authorizations(ns)).toContain(sent[user]!())
  })

  it('401 at -v 9', async () => {
    const r = await run(['dry-run', 'sync', '--context', user, '-n', 's-401', '-v', '9'])
    expectNoSecret(r)
    expect(r.stderr).toMatch(/^error: You must be logged in to the server \(Unauthorized\)$/m)
    expect(r.code).toBe(1)
  })

  it('connection refused, with DEBUG=1 and -v 9 (a stack trace may print; no secret in it)', async () => {
    const r = await run(['dry-run', 'sync', '--context', `${user}-refused`, '-v', '9'], {DEBUG: '1'})
    expectNoSecret(r)
    expect(r.stderr).toMatch(/^The connection to the server 127\.0\.0\.1:\d+ was refused/m)
    expect(r.code).toBe(1)
  })
})

describe.concurrent('the token user, more faults and a write', SLOW, () => {
  it('a plain run prints nothing but the result', async () => {
    const r = await run(['dry-run', 'sync', '-n', 's-ok', '-o', 'json'])
    expectNoSecret(r)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
  })

  it('403 on a write at -v 6', async () => {
    const r = await run(['reconcile-once', '-n', 's-403', '-v', '6', '--no-record-events'])
    expectNoSecret(r)
    expect(r.stderr).toMatch(
      /^error: sync of deployment s-403\/web failed: replicasets\.apps .* is forbidden: /m,
    )
    expect(r.code).toBe(1)
  })

  it('500 on every read at -v 9, retried', async () => {
    const r = await run(['dry-run', 'sync', '-n', 's-500', '-v', '9'])
    expectNoSecret(r)
    // Both lists, three retries each.
    expect(r.stderr.match(/^I retrying GET /gm)).toHaveLength(6)
    expect(r.stderr).toMatch(
      /^Error from server \(InternalError\): Internal error occurred: injected fault$/m,
    )
    expect(r.code).toBe(1)
  })

  it('a reconcile-once that writes, at -v 9, printing the objects it wrote', async () => {
    const r = await run(['reconcile-once', '-n', 's-write', '-v', '9', '-o', 'yaml'])
    expectNoSecret(r)
    expect(r.stderr).toMatch(/^I POST \/apis\/apps\/v1\/namespaces\/s-write\/replicasets 201 /m)
    expect(r.code).toBe(0)
  })
})

describe.concurrent('credentials that fail', SLOW, () => {
  it('an exec plugin that prints the bare token instead of an ExecCredential', async () => {
    const r = await run(['dry-run', 'sync', '--context', 'exec-raw', '-n', 's-ok', '-v', '9'], {DEBUG: '1'})
    expectNoSecret(r)
    expect(r.stderr).toMatch(
      /^error: getting credentials: exec plugin ".*" did not print an ExecCredential \(its output is not JSON\)$/m,
    )
    expect(r.code).toBe(1)
  })

  it('an exec plugin that fails with the token in its message', async () => {
    const r = await run(['dry-run', 'sync', '--context', 'exec-failing', '-n', 's-ok'])
    expectNoSecret(r)
    expect(r.stderr).toMatch(
      /^error: getting credentials: exec plugin ".*" failed \(its output is not shown: it may hold credentials\)\n$/,
    )
    expect(r.code).toBe(1)
  })

  it('a kubeconfig that does not parse, next to the token', async () => {
    const broken = join(dir, 'broken-config')
    writeFileSync(
      broken,
      `apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: ${TOKEN}\n   password: ${PASSWORD}\n`,
    )
    const r = await run(['dry-run', 'sync', '-v', '9'], {KUBECONFIG: broken, DEBUG: '1'})
    expectNoSecret(r)
    // -v 1 and more log every flag first (klog's FLAG: lines); the error is the one line after them.
    expect(r.stderr.replace(/^[IWE]\d{4} \S+ FLAG: .*\n/gm, '')).toBe(
      `error: error loading config file "${broken}": bad indentation of a mapping entry (7:4)\n`,
    )
    expect(r.code).toBe(1)
  })
})
