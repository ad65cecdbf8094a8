// kubectl's credential and connection flags (issue 20, finding 9), through the built binary against
// the test API server over TLS: --token, --server, --certificate-authority, --tls-server-name,
// --insecure-skip-tls-verify, --username/--password, --client-certificate/--client-key, --as,
// --as-group, --as-uid and --cluster/--user/--context are applied over the kubeconfig as kubectl
// applies them (clientcmd's overrides), and no credential given on the command line is ever printed.

import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {deployment} from '../objects.js'
import {cliAsync, limiter, type RunResult, selfSignedCert} from './helpers.js'

const SLOW = {timeout: 300_000}
const slot = limiter(3)

const TOKEN = 'flag-token-9d1e44c2b7'
const WRONG_TOKEN = 'wrong-flag-token-0aa3f1'
const PASSWORD = 'flag-password-5b8e2c'
const NO_KUBECONFIG = {KUBECONFIG: '/nonexistent/kubeconfig'}

let server: ApiServer
let certServer: ApiServer
let plainServer: ApiServer
let dir: string
let ca: string
/** A kubeconfig whose user holds a stale token, with a second context and user. */
let kubeconfig: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'deployctl-credflags-'))
  selfSignedCert(dir, {key: 'client.key', cert: 'client.crt', cn: 'flag-user'})
  ;[server, certServer, plainServer] = await Promise.all([
    startApiServer({
      tls: true,
      requireToken: TOKEN,
      token: 'stale-kubeconfig-token',
      objects: [deployment({namespace: 'default'})],
    }),
    startApiServer({
      tls: true,
      clientCA: readFileSync(join(dir, 'client.crt'), 'utf8'),
      objects: [deployment({namespace: 'default'})],
    }),
    startApiServer({objects: [deployment({namespace: 'default'})]}),
  ])
  ca = join(dir, 'ca.pem')
  writeFileSync(ca, server.caPem ?? '')
  // An exec plugin that leaves a mark when it runs, and gives a token the server refuses.
  const plugin = join(dir, 'plugin.mjs')
  writeFileSync(
    plugin,
    `import {writeFileSync} from 'node:fs'\nwriteFileSync(${JSON.stringify(join(dir, 'plugin-ran'))}, '')\nprocess.stdout.write(JSON.stringify({apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: {token: 'plugin-token'}}))\n`,
  )
  kubeconfig = join(dir, 'config')
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters:
- {name: main, cluster: {server: "${server.url}", insecure-skip-tls-verify: true}}
- {name: elsewhere, cluster: {server: "https://127.0.0.1:9", insecure-skip-tls-verify: true}}
users:
- {name: stale, user: {token: stale-kubeconfig-token}}
- {name: good, user: {token: ${TOKEN}}}
- {name: exec, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(plugin)}], interactiveMode: Never}}}
contexts:
- {name: stale, context: {cluster: main, user: stale}}
- {name: away, context: {cluster: elsewhere, user: good}}
current-context: stale
`,
  )
}, 120_000)

afterAll(async () => {
  await Promise.all([server?.close(), certServer?.close(), plainServer?.close()])
  if (dir) rmSync(dir, {recursive: true, force: true})
})

const run = (args: string[], env: NodeJS.ProcessEnv = {KUBECONFIG: kubeconfig}) =>
  slot(() => cliAsync(args, {env}))

const sync = (...flags: string[]) => ['dry-run', 'sync', '-o', 'name', ...flags]

function expectSynced(r: RunResult): void {
  expect(r.stderr).toBe('')
  expect(r.stdout).toBe('deployment.apps/web\n')
  expect(r.code).toBe(0)
}

function expectNoCredential(r: RunResult): void {
  for (const s of [TOKEN, WRONG_TOKEN, PASSWORD]) expect(`${r.stdout}${r.stderr}`).not.toContain(s)
}

describe.concurrent('credential flags over the kubeconfig', SLOW, () => {
  it('--token replaces the kubeconfig user token, and the server that requires it answers', async () => {
    expect((await run(sync())).stderr).toBe('error: You must be logged in to the server (Unauthorized)\n')
    const r = await run(sync(`--token=${TOKEN}`, '-v', '9'))
    expect(r.stdout).toBe('deployment.apps/web\n')
    expect(r.code).toBe(0)
    expectNoCredential(r)
    const wrong = await run(sync('--token', WRONG_TOKEN, '-v', '9'))
    expect(wrong.stderr).toMatch(/^error: You must be logged in to the server \(Unauthorized\)$/m)
    expect(wrong.code).toBe(1)
    expectNoCredential(wrong)
    expect(server.requests.some((q) => q.authorization === `Bearer ${WRONG_TOKEN}`)).toBe(true)
  })

  it("--token over a user with an exec plugin: the plugin does not run, as client-go's does not", async () => {
    expectSynced(await run(sync('--user', 'exec', `--token=${TOKEN}`)))
    expect(existsSync(join(dir, 'plugin-ran'))).toBe(false)
    const viaPlugin = await run(sync('--user', 'exec'))
    expect(viaPlugin.stderr).toBe('error: You must be logged in to the server (Unauthorized)\n')
    expect(existsSync(join(dir, 'plugin-ran'))).toBe(true)
  })

  it('over plain http (kubectl proxy) no credential is sent, as kubectl sends none, and that is said once (issue 28)', async () => {
    const r = await run(sync('-s', plainServer.url, `--token=${TOKEN}`, '--as', 'jane'), NO_KUBECONFIG)
    expect(r.stderr).toBe(
      `Warning: --token was not sent: the server ${plainServer.url.replace(/\/$/, '')} is plain HTTP, and credentials go only over HTTPS (as kubectl does)\n`,
    )
    expect(r.stdout).toBe('deployment.apps/web\n')
    expect(r.code).toBe(0)
    expectNoCredential(r)
    const sent = plainServer.requests.filter((q) => q.impersonate?.user === 'jane')
    expect(sent.length).toBeGreaterThan(0)
    expect(sent.map((q) => q.authorization)).toEqual(sent.map(() => undefined))
  })

  it('--server host:port without a scheme is http, as kubectl reads it; a server that is no URL is said so', async () => {
    const hostPort = plainServer.url.replace(/^http:\/\//, '')
    expectSynced(await run(sync('-s', hostPort), NO_KUBECONFIG))
    expectSynced(await run(sync('-s', hostPort, '--insecure-skip-tls-verify'), NO_KUBECONFIG))
    const bad = await run(sync('-s', 'a b:1'), NO_KUBECONFIG)
    expect(bad.stderr).toBe('error: invalid configuration: host must be a URL or a host:port pair: "a b:1"\n')
    expect(bad.code).toBe(1)
  })

  it("TLS files a flag gave that hold no PEM are named by their flag, not as the kubeconfig's", async () => {
    const notPem = join(dir, 'not-pem.txt')
    writeFileSync(notPem, 'not a certificate\n')
    const ca = await run(
      sync('-s', server.url, '--certificate-authority', notPem, `--token=${TOKEN}`),
      NO_KUBECONFIG,
    )
    expect(ca.stderr).toBe(
      `error: --certificate-authority ${notPem} holds no PEM-encoded certificate (unable to load root certificates)\n`,
    )
    expect(ca.code).toBe(1)
    const key = await run(sync('--client-certificate', join(dir, 'client.crt'), '--client-key', notPem))
    expect(key.stderr).toBe(
      `error: --client-key ${notPem} is not a PEM-encoded private key (tls: failed to find any PEM data in key input)\n`,
    )
    expect(key.code).toBe(1)
  })

  it('--server with --certificate-authority and --token needs no kubeconfig', async () => {
    expectSynced(
      await run(
        sync('--server', server.url, '--certificate-authority', ca, `--token=${TOKEN}`),
        NO_KUBECONFIG,
      ),
    )
    expectSynced(
      await run(sync('-s', server.url, '--insecure-skip-tls-verify', `--token=${TOKEN}`), NO_KUBECONFIG),
    )
    const unverified = await run(sync('-s', server.url, `--token=${TOKEN}`), NO_KUBECONFIG)
    expect(unverified.stderr).toBe('Unable to connect to the server: tls: self-signed certificate\n')
    expect(unverified.code).toBe(1)
  })

  it('--tls-server-name is the name the certificate is checked against', async () => {
    const flags = ['-s', server.url, '--certificate-authority', ca, `--token=${TOKEN}`]
    expectSynced(await run(sync(...flags, '--tls-server-name', 'localhost'), NO_KUBECONFIG))
    const other = await run(sync(...flags, '--tls-server-name', 'other.example'), NO_KUBECONFIG)
    expect(other.stderr).toMatch(/^Unable to connect to the server: tls: .*other\.example/)
    expect(other.code).toBe(1)
  })

  it('--certificate-authority drops the kubeconfig insecure-skip-tls-verify; a missing file is named', async () => {
    expectSynced(await run(sync('--certificate-authority', ca, `--token=${TOKEN}`)))
    const missing = await run(sync('--certificate-authority', join(dir, 'nope.pem'), `--token=${TOKEN}`))
    expect(missing.stderr).toBe(
      `error: invalid configuration: unable to read certificate-authority ${join(dir, 'nope.pem')} for main: no such file\n`,
    )
    expect(missing.code).toBe(1)
    const both = await run(
      sync('--certificate-authority', ca, '--insecure-skip-tls-verify', `--token=${TOKEN}`),
    )
    expect(both.stderr).toBe(
      'error: invalid configuration: specifying a root certificates file with the insecure flag is not allowed\n',
    )
  })

  it('--username/--password next to a token: one authentication method only, nothing echoed', async () => {
    const r = await run(sync(`--token=${TOKEN}`, '--username', 'admin', `--password=${PASSWORD}`))
    expect(r.stderr).toBe(
      'error: invalid configuration: more than one authentication method found for stale; found [token basicAuth], only one is allowed\n',
    )
    expect(r.code).toBe(1)
    expectNoCredential(r)
  })

  it('--client-certificate and --client-key authenticate over TLS; a certificate needs its key', async () => {
    const flags = ['-s', certServer.url, '--insecure-skip-tls-verify']
    const cert = join(dir, 'client.crt')
    expectSynced(
      await run(
        sync(...flags, '--client-certificate', cert, '--client-key', join(dir, 'client.key')),
        NO_KUBECONFIG,
      ),
    )
    expect(certServer.requests.some((q) => q.clientCN === 'flag-user')).toBe(true)
    const noKey = await run(sync(...flags, '--client-certificate', cert), NO_KUBECONFIG)
    expect(noKey.stderr).toBe(
      'error: invalid configuration: client-key-data or client-key must be specified for (the user of the command line) to use the clientCert authentication method\n',
    )
  })

  it('--as, --as-group and --as-uid reach the server; groups without --as are refused', async () => {
    const r = await run(
      sync(
        `--token=${TOKEN}`,
        '-n',
        'default',
        '--as',
        'jane',
        '--as-group',
        'g1',
        '--as-group',
        'g2',
        '--as-uid',
        'u-1',
      ),
    )
    expectSynced(r)
    expect(server.requests.map((q) => q.impersonate)).toContainEqual({
      user: 'jane',
      uid: 'u-1',
      groups: ['g1', 'g2'],
    })
    const groupsOnly = await run(sync(`--token=${TOKEN}`, '--as-group', 'g1'))
    expect(groupsOnly.stderr).toBe(
      'error: requesting uid or groups without impersonating a user: add --as USER\n',
    )
    expect(groupsOnly.code).toBe(1)
  })

  it('--user, --cluster and --context pick from the kubeconfig, and name what does not exist', async () => {
    expectSynced(await run(sync('--user', 'good')))
    expectSynced(await run(sync('--context', 'away', '--cluster', 'main')))
    expect((await run(sync('--context', 'away'))).stderr).toMatch(
      /^The connection to the server 127\.0\.0\.1:9 was refused/,
    )
    for (const [flag, message] of [
      ['--user', 'user "nope" does not exist'],
      ['--cluster', 'cluster "nope" does not exist'],
      ['--context', 'context "nope" does not exist'],
    ]) {
      const r = await run(sync(flag!, 'nope'))
      expect(r.stderr).toBe(`error: ${message}\n`)
      expect(r.code).toBe(1)
    }
  })

  it('a mistyped or repeated credential flag: the usage error never repeats the value', async () => {
    for (const args of [
      sync(`--tokn=${WRONG_TOKEN}`),
      sync(`--passwrd=${PASSWORD}`),
      sync('--token'),
      sync(`--token=${WRONG_TOKEN}`, `--token=${TOKEN}`),
    ]) {
      const r = await run(args)
      expect(r.stderr).toMatch(/^error: /)
      expect(r.code).toBe(2)
      expectNoCredential(r)
    }
  })

  it('every command that talks to a cluster takes them', async () => {
    for (const command of [
      ['dry-run', 'sync'],
      ['reconcile-once'],
      ['explain'],
      ['rollout', 'watch'],
      ['run'],
      ['plan'],
    ]) {
      const help = await run([...command, '--help'])
      for (const flag of [
        '--token',
        '--server',
        '--certificate-authority',
        '--client-key',
        '--as-uid',
        '--password',
      ]) {
        expect(help.stdout, `${command.join(' ')} ${flag}`).toContain(flag)
      }
    }
  })
})
