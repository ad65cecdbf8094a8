// Live mode against a misbehaving API server (the test server's fault injection), through the built
// binary. Each case runs in its own namespace of one shared server, so the cases run concurrently and
// the faults of one never touch another. What is asserted: the exit code, the one error line, how
// many times the server saw each request (reads retried where safe, writes never), and which writes
// of the pass the report says were made.

import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {SyncResult} from '../../src/pass/result.js'
import {type ApiServer, type RequestLog, startApiServer} from '../apiserver/index.js'
import {deployment as build} from '../objects.js'
import {cliAsync, limiter, type RunResult} from './helpers.js'

// The machine is shared and loaded (two cores): at most a few CLI processes at a time, so none of
// them starves, and generous test timeouts, which include the wait for a slot.
const SLOW = {timeout: 300_000}

const slot = limiter(3)
const cli = (args: string[], options: {env?: NodeJS.ProcessEnv} = {}) =>
  slot(() => cliAsync(args, {env: options.env}))

function deployment(namespace: string, name = 'web') {
  return build({name, namespace})
}

const NAMESPACES = [
  'f-401',
  'f-403-write',
  'f-404',
  'f-409-1',
  'f-409-2',
  'f-409-3',
  'f-503-read',
  'f-500-read-always',
  'f-500-write',
  'f-503-status',
  'f-429',
  'f-slow-read',
  'f-slow-write',
  'f-cut-read',
  'f-cut-read-always',
  'f-cut-write',
]

let server: ApiServer
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  server = await startApiServer({objects: NAMESPACES.map((ns) => deployment(ns))})
  env = {KUBECONFIG: server.kubeconfigPath}
})

afterAll(async () => {
  await server?.close()
})

const live = (ns: string, ...args: string[]) => cli([...args, '-n', ns], {env})

/** Requests the server saw in a namespace, as `METHOD last-path-segments status`. */
function seen(ns: string, filter: (q: RequestLog) => boolean = () => true): string[] {
  return server.requests
    .filter((q) => q.namespace === ns && filter(q))
    .map(
      (q) =>
        `${q.method} ${q.path.replace(`/namespaces/${ns}/`, ' ').replace(/^\/apis?\/[^ ]* /, '')} ${q.status}`,
    )
}

const writes = (q: RequestLog) => q.method !== 'GET'
const stored = (ns: string, resource: string) =>
  server.store.list(resource, ns) as Array<{metadata: {name: string}}>

/**
 * One line on stderr in kubectl's words, no stack trace: `error: ` + the message, but the server's
 * answers as `Error from server (Reason): ...` and an unreachable server as kubectl says it (both
 * given whole).
 */
function expectError(r: RunResult, message: string | RegExp): void {
  expect(r.stderr).not.toMatch(/^\s+at /m)
  const lines = r.stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  const whole =
    typeof message === 'string' && /^(Error from server|Unable to connect to the server)/.test(message)
  if (typeof message === 'string') expect(lines[0]).toBe(whole ? message : `error: ${message}`)
  else expect(lines[0]).toMatch(message)
  expect(r.code).toBe(1)
}

function kubeconfigFile(server: string, extra = ''): string {
  const file = join(mkdtempSync(join(tmpdir(), 'deployctl-faults-')), 'config')
  writeFileSync(
    file,
    `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}"${extra}}}]
users: [{name: u, user: {token: t0k3n}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: default}}]
current-context: x
`,
  )
  return file
}

describe.concurrent('unreachable servers', SLOW, () => {
  it('a host that does not resolve: the DNS failure, once', async () => {
    const kubeconfig = kubeconfigFile('https://deployctl-test.invalid:6443')
    const r = await cli(['dry-run', 'sync'], {env: {KUBECONFIG: kubeconfig}})
    expectError(r, 'Unable to connect to the server: dial tcp: lookup deployctl-test.invalid: no such host')
  })

  it('a self-signed certificate without --insecure-skip-tls-verify: a tls error; with it: served', async () => {
    const tls = await startApiServer({tls: true, objects: [deployment('default')]})
    try {
      expect(tls.url).toMatch(/^https:/)
      const kubeconfig = kubeconfigFile(tls.url)
      const [refused, skipped] = await Promise.all([
        cli(['dry-run', 'sync'], {env: {KUBECONFIG: kubeconfig}}),
        cli(['dry-run', 'sync', '--insecure-skip-tls-verify', '-o', 'json'], {
          env: {KUBECONFIG: kubeconfig},
        }),
      ])
      expectError(refused, /^Unable to connect to the server: tls: self[- ]signed certificate$/)
      expect(skipped.stderr).toBe('')
      expect(skipped.code).toBe(0)
      expect((JSON.parse(skipped.stdout) as SyncResult).items).toHaveLength(1)
      // The refused run sent nothing the server could read.
      expect(tls.requests.filter((q) => q.resource === 'deployments')).toHaveLength(1)
    } finally {
      await tls.close()
    }
  })
})

describe.concurrent('errors the server answers with', SLOW, () => {
  it('401 on a read: kubectl\'s "You must be logged in", not retried', async () => {
    server.faults.fail({namespace: 'f-401', verb: 'list'}, 401, {times: Number.POSITIVE_INFINITY})
    const r = await live('f-401', 'dry-run', 'sync')
    expectError(r, 'You must be logged in to the server (Unauthorized)')
    expect(seen('f-401').sort()).toEqual(['GET deployments 401', 'GET replicasets 401'])
  })

  it('403 on a write names the verb, the resource and the namespace; the write is not retried', async () => {
    server.faults.fail({namespace: 'f-403-write', verb: 'create', resource: 'replicasets'}, 403, {
      user: 'system:serviceaccount:ci:deployer',
    })
    const r = await live('f-403-write', 'reconcile-once', '--no-record-events')
    const forbidden =
      'replicasets.apps "web-789dc4db69" is forbidden: User "system:serviceaccount:ci:deployer" cannot create resource "replicasets" in API group "apps" in the namespace "f-403-write"'
    // upstream records the failure in the Deployment's Progressing condition: that write is made.
    expectError(
      r,
      `sync of deployment f-403-write/web failed: ${forbidden}; already written: update deployments/status web`,
    )
    expect(seen('f-403-write', writes)).toEqual(['POST replicasets 403', 'PUT deployments/web/status 200'])
  })

  it("a named Deployment that does not exist: 1 and kubectl's NotFound, nothing written", async () => {
    const r = await live('f-404', 'reconcile-once', 'deployment/nope')
    expectError(r, 'Error from server (NotFound): deployments.apps "nope" not found')
    expect(r.stdout).toBe('')
    expect(seen('f-404', writes)).toEqual([])
  })
})

describe.concurrent(
  '409 at each write of a pass: the report lists exactly the writes before it',
  SLOW,
  () => {
    // A new Deployment's pass writes: create the ReplicaSet, then two status writes.
    const cases = [
      {nth: 1, already: 'nothing was written', outcomes: ['failed', 'skipped'], sent: 1},
      {
        nth: 2,
        already: 'already written: create replicasets web-789dc4db69',
        outcomes: ['succeeded', 'failed'],
        sent: 2,
      },
      {
        nth: 3,
        already: 'already written: create replicasets web-789dc4db69, update deployments/status web',
        outcomes: ['succeeded', 'succeeded', 'failed'],
        sent: 3,
      },
    ]
    it.each(cases)('conflict on write $nth', async ({nth, already, outcomes, sent}) => {
      const ns = `f-409-${nth}`
      server.faults.fail({namespace: ns, method: ['POST', 'PUT'], path: /^\/apis\/apps\//}, 409, {nth})
      const r = await live(ns, 'reconcile-once', '--no-record-events', '-o', 'json')
      const resource = nth === 1 ? 'replicasets.apps "web-789dc4db69"' : 'deployments.apps "web"'
      expectError(
        r,
        `sync of deployment ${ns}/web failed: Operation cannot be fulfilled on ${resource}: the object has been modified; please apply your changes to the latest version and try again; ${already}`,
      )
      const [result] = (JSON.parse(r.stdout) as SyncResult).items
      expect(result!.actions.map((a) => a.outcome)).toEqual(outcomes)
      // Nothing was sent after the conflicting write, and what the report says was written is stored.
      expect(seen(ns, writes)).toHaveLength(sent)
      expect(seen(ns, writes).at(-1)).toMatch(/ 409$/)
      expect(stored(ns, 'replicasets')).toHaveLength(nth === 1 ? 0 : 1)
    })
  },
)

describe.concurrent('5xx and 429: reads retried with backoff, writes sent once', SLOW, () => {
  it('503 twice on a read: retried, then the pass runs', async () => {
    server.faults.fail({namespace: 'f-503-read', verb: 'list', resource: 'deployments'}, 503, {times: 2})
    const r = await live('f-503-read', 'dry-run', 'sync', '-v', '6')
    expect(r.stderr).not.toMatch(/^error:/m)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('deployment f-503-read/web')
    expect(
      r.stderr.match(/^I retrying GET \/apis\/apps\/v1\/namespaces\/f-503-read\/deployments in \d+ ms: /gm),
    ).toHaveLength(2)
    expect(seen('f-503-read', (q) => q.resource === 'deployments')).toEqual([
      'GET deployments 503',
      'GET deployments 503',
      'GET deployments 200',
    ])
  })

  it("500 on every read: four attempts, then the server's message", async () => {
    server.faults.fail({namespace: 'f-500-read-always', verb: 'list', resource: 'deployments'}, 500, {
      times: Number.POSITIVE_INFINITY,
      message: 'etcdserver: leader changed',
    })
    const r = await live('f-500-read-always', 'dry-run', 'sync')
    expectError(r, 'Error from server (InternalError): Internal error occurred: etcdserver: leader changed')
    expect(seen('f-500-read-always', (q) => q.resource === 'deployments')).toEqual(
      Array(4).fill('GET deployments 500'),
    )
  })

  it('500 on a write: sent once, never retried', async () => {
    server.faults.fail({namespace: 'f-500-write', verb: 'create', resource: 'replicasets'}, 500)
    const r = await live('f-500-write', 'reconcile-once', '--no-record-events')
    expectError(
      r,
      'sync of deployment f-500-write/web failed: Internal error occurred: injected fault; already written: update deployments/status web',
    )
    expect(seen('f-500-write', writes)).toEqual(['POST replicasets 500', 'PUT deployments/web/status 200'])
    expect(stored('f-500-write', 'replicasets')).toEqual([])
  })

  it('503 on a status write: sent once, the writes before it reported', async () => {
    server.faults.fail({namespace: 'f-503-status', verb: 'update', subresource: 'status'}, 503)
    const r = await live('f-503-status', 'reconcile-once', '--no-record-events')
    expectError(
      r,
      'sync of deployment f-503-status/web failed: the server is currently unable to handle the request; already written: create replicasets web-789dc4db69',
    )
    expect(seen('f-503-status', writes)).toEqual(['POST replicasets 201', 'PUT deployments/web/status 503'])
  })

  it('429 with Retry-After on a read: retried no sooner than the server asked', async () => {
    server.faults.fail({namespace: 'f-429', verb: 'list', resource: 'replicasets'}, 429, {
      retryAfterSeconds: 2,
    })
    const r = await live('f-429', 'dry-run', 'sync', '-v', '6')
    expect(r.stderr).not.toMatch(/^error:/m)
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/^I retrying GET \/apis\/apps\/v1\/namespaces\/f-429\/replicasets in 2000 ms: /m)
    const lists = server.requests.filter((q) => q.namespace === 'f-429' && q.resource === 'replicasets')
    expect(lists.map((q) => q.status)).toEqual([429, 200])
    expect(lists[1]!.time - lists[0]!.time).toBeGreaterThanOrEqual(1900)
  })
})

describe.concurrent('slow and cut responses', SLOW, () => {
  it('a read slower than --request-timeout 1s: a clear message, exit 1', async () => {
    server.faults.delay(3000, {namespace: 'f-slow-read', verb: 'list'}, 2)
    const r = await live('f-slow-read', 'dry-run', 'sync', '--request-timeout', '1s')
    expectError(
      r,
      /^Unable to connect to the server: the server at 127\.0\.0\.1:\d+ did not answer within the request timeout \(1s\)$/,
    )
  })

  it('a write slower than --request-timeout: reported as maybe applied, and the pass stops there', async ({
    expect,
  }) => {
    server.faults.delay(3000, {namespace: 'f-slow-write', verb: 'create'}, 1)
    const r = await live('f-slow-write', 'reconcile-once', '--request-timeout', '1s', '--no-record-events')
    expectError(
      r,
      /^error: sync of deployment f-slow-write\/web failed: Unable to connect to the server: the server at 127\.0\.0\.1:\d+ did not answer within the request timeout \(1s\); not confirmed, may have been applied: create replicasets web-789dc4db69$/,
    )
    // It was applied (the server answered late), and nothing was written after it.
    await expect.poll(() => stored('f-slow-write', 'replicasets').length, {timeout: 10_000}).toBe(1)
    // (The status the server logs for an answer nobody waited for is not asserted.)
    expect(seen('f-slow-write', writes)).toEqual([expect.stringMatching(/^POST replicasets /)])
    // The next pass reads what is there and finishes the job.
    const again = await live('f-slow-write', 'reconcile-once', '--no-record-events', '-o', 'json')
    expect(again.stderr).toBe('')
    expect(again.code).toBe(0)
    expect(stored('f-slow-write', 'replicasets')).toHaveLength(1)
  })

  it('a cut response body on a read: retried, then the pass runs', async () => {
    server.faults.truncate({namespace: 'f-cut-read', verb: 'list', resource: 'deployments'})
    const r = await live('f-cut-read', 'dry-run', 'sync')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(seen('f-cut-read', (q) => q.resource === 'deployments')).toEqual([
      'GET deployments 200',
      'GET deployments 200',
    ])
  })

  it('cut response bodies on every read: a clear message after the retries', async () => {
    server.faults.add({
      namespace: 'f-cut-read-always',
      verb: 'list',
      resource: 'deployments',
      truncate: 40,
      times: 10,
    })
    const r = await live('f-cut-read-always', 'dry-run', 'sync')
    expectError(
      r,
      'the server sent a truncated or invalid response to GET /apis/apps/v1/namespaces/f-cut-read-always/deployments (200)',
    )
    expect(seen('f-cut-read-always', (q) => q.resource === 'deployments')).toHaveLength(4)
  })

  it('a cut response to a write: applied but unconfirmed, so reported as such and the pass stops', async () => {
    server.faults.truncate({namespace: 'f-cut-write', verb: 'create', resource: 'replicasets'})
    const r = await live('f-cut-write', 'reconcile-once', '--no-record-events')
    expectError(
      r,
      'sync of deployment f-cut-write/web failed: the server sent a truncated or invalid response to POST /apis/apps/v1/namespaces/f-cut-write/replicasets (201); not confirmed, may have been applied: create replicasets web-789dc4db69',
    )
    expect(seen('f-cut-write', writes)).toEqual(['POST replicasets 201'])
    expect(stored('f-cut-write', 'replicasets')).toHaveLength(1)
  })
})
