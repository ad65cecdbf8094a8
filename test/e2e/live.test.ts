// Live mode end to end: the built CLI against the in-memory test API server, and the real kubectl
// where it is installed.

import {execFile} from 'node:child_process'
import {existsSync, mkdtempSync, writeFileSync} from 'node:fs'
import type {AddressInfo} from 'node:net'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import type {SyncResult} from '../../src/pass/result.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {deployment as build} from '../objects.js'
import {cliAsync} from './helpers.js'

const KUBECTL = ['/usr/lib/google-cloud-sdk/bin/kubectl.1.32', '/usr/bin/kubectl'].find(existsSync)

function deployment(name: string, extra: Record<string, unknown> = {}, namespace = 'default') {
  return build({name, namespace, spec: extra})
}

let server: ApiServer
let env: NodeJS.ProcessEnv

async function start(objects: unknown[]) {
  server = await startApiServer({objects})
  env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
}

afterEach(async () => {
  await server?.close()
})

const writesOf = (s: ApiServer) => s.requests.filter((r) => r.method !== 'GET')
const stored = (resource: string) =>
  server.store.list(resource, 'default') as Array<{metadata: {name: string}; spec: {replicas?: number}}>

describe('reading a cluster', () => {
  beforeEach(async () => {
    await start([deployment('web')])
  })

  it('dry-run sync reads with one list per kind and writes nothing', async () => {
    const r = await cliAsync(['dry-run', 'sync', '-o', 'json'], {env})
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const result = JSON.parse(r.stdout) as SyncResult
    expect(result.items.map((x) => x.deployment)).toEqual([{namespace: 'default', name: 'web'}])
    expect(
      result.items[0]!.actions.map((a) => `${a.verb} ${a.resource}${a.subresource ? '/status' : ''}`),
    ).toEqual(['create replicasets', 'update deployments/status', 'update deployments/status'])
    expect(writesOf(server)).toEqual([])
    // /version: the Kubernetes minor to act as (issue 29), as kubectl version asks it.
    expect(server.requests.map((q) => q.path).sort()).toEqual([
      '/apis/apps/v1/namespaces/default/deployments',
      '/apis/apps/v1/namespaces/default/replicasets',
      '/version',
    ])
  })

  it('names a missing Deployment as kubectl does', async () => {
    const r = await cliAsync(['dry-run', 'sync', 'deployment/nope'], {env})
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toBe('Error from server (NotFound): deployments.apps "nope" not found')
  })

  it('says when the server cannot be reached', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer()
    await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok))
    const port = (probe.address() as AddressInfo).port
    await new Promise((ok) => probe.close(ok))
    const dir = mkdtempSync(join(tmpdir(), 'kc-'))
    const kubeconfig = join(dir, 'config')
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]
users: [{name: u, user: {token: secret-token-value}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
    )
    const r = await cliAsync(['dry-run', 'sync'], {env: {...env, KUBECONFIG: kubeconfig}})
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^The connection to the server 127\.0\.0\.1:\d+ was refused/)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).not.toContain('secret-token-value')
  })

  it('reports 403 with the RBAC message of the server', async () => {
    server.faults.fail({verb: 'list', resource: 'replicasets'}, 403, {times: 10})
    const r = await cliAsync(['dry-run', 'sync'], {env})
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      /replicasets.apps is forbidden|forbidden: User .* cannot list resource "replicasets"/,
    )
  })
})

describe('paging and request counts', () => {
  it('lists 200 Deployments with one request per kind, and pages past 500', async () => {
    const many = Array.from({length: 600}, (_, i) => deployment(`app-${String(i).padStart(3, '0')}`))
    await start(many)
    const r = await cliAsync(['dry-run', 'sync', '-o', 'json'], {env})
    expect(r.code).toBe(0)
    expect((JSON.parse(r.stdout) as SyncResult).items).toHaveLength(600)
    const lists = server.requests.filter((q) => q.method === 'GET')
    expect(lists.filter((q) => q.path.endsWith('/deployments'))).toHaveLength(2)
    expect(lists.filter((q) => q.path.endsWith('/replicasets'))).toHaveLength(1)
    expect(lists.filter((q) => q.path.endsWith('/pods'))).toHaveLength(0)
    expect(lists.filter((q) => q.path === '/version')).toHaveLength(1)
    expect(lists.length).toBe(4)
  })

  it('lists pods only when a Recreate Deployment needs them', async () => {
    await start(Array.from({length: 200}, (_, i) => deployment(`r-${i}`, {strategy: {type: 'Recreate'}})))
    const r = await cliAsync(['dry-run', 'sync', '-o', 'json'], {env})
    expect(r.code).toBe(0)
    const gets = server.requests.filter((q) => q.method === 'GET').map((q) => q.path)
    expect(gets.sort()).toEqual([
      '/api/v1/namespaces/default/pods',
      '/apis/apps/v1/namespaces/default/deployments',
      '/apis/apps/v1/namespaces/default/replicasets',
      '/version',
    ])
  })
})

describe('reconcile-once -A with a worker pool', () => {
  it('syncs every Deployment of every namespace, N at a time, and reports them in order', async () => {
    const names = Array.from({length: 12}, (_, i) => `app-${String(i).padStart(2, '0')}`)
    await start(names.map((n, i) => deployment(n, {}, i % 2 === 0 ? 'default' : 'other')))
    const r = await cliAsync(['reconcile-once', '-A', '--concurrent-deployment-syncs', '4', '-o', 'json'], {
      env,
    })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const result = JSON.parse(r.stdout) as SyncResult
    const keys = result.items.map((x) => `${x.deployment.namespace}/${x.deployment.name}`)
    expect(keys).toEqual([...keys].sort())
    expect(keys).toHaveLength(12)
    for (const x of result.items)
      expect(x.actions.map((a) => a.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded'])
    const created = server.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/replicasets'))
    expect(created).toHaveLength(12)
  })
})

describe('reconcile-once against a cluster', () => {
  beforeEach(async () => {
    await start([deployment('web')])
  })

  it('creates the ReplicaSet, writes status through the subresource and posts the event', async () => {
    const r = await cliAsync(['reconcile-once', '-o', 'json'], {env})
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const result = JSON.parse(r.stdout) as SyncResult
    expect(result.items[0]!.actions.map((a) => a.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded'])
    const rs = stored('replicasets')
    expect(rs).toHaveLength(1)
    expect(rs[0]!.spec.replicas).toBe(3)
    expect(writesOf(server).map((q) => `${q.method} ${q.path}`)).toEqual([
      'POST /apis/apps/v1/namespaces/default/replicasets',
      'PUT /apis/apps/v1/namespaces/default/deployments/web/status',
      'PUT /apis/apps/v1/namespaces/default/deployments/web/status',
      'POST /api/v1/namespaces/default/events',
    ])
    const event = writesOf(server).at(-1)!.body as Record<string, unknown>
    expect(event).toMatchObject({
      reason: 'ScalingReplicaSet',
      type: 'Normal',
      source: {component: 'deployment-controller'},
      reportingInstance: 'kubectl-deployctl',
      involvedObject: {kind: 'Deployment', name: 'web'},
    })
    // The second status write carried the version the first returned: no conflict with itself.
    const [first, second] = writesOf(server).filter((q) => q.path.endsWith('/status'))
    const rv1 = (first!.body as {metadata: {resourceVersion: string}}).metadata.resourceVersion
    const rv2 = (second!.body as {metadata: {resourceVersion: string}}).metadata.resourceVersion
    expect(Number(rv2)).toBeGreaterThan(Number(rv1))

    const again = await cliAsync(['reconcile-once', '-o', 'json'], {env})
    expect(again.code).toBe(0)
    expect((JSON.parse(again.stdout) as SyncResult).items[0]!.actions).toEqual([])
  })

  it('stops at a conflict, names what was written, and converges with --retries', async () => {
    // Someone else's change: the first status write meets a 409.
    server.faults.fail({method: 'PUT', path: /\/deployments\/web\/status$/}, 409)
    const r = await cliAsync(['reconcile-once'], {env})
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/error: sync of deployment default\/web failed: .*modified/)
    expect(r.stderr).toContain('already written: create replicasets web-')
    // Nothing was sent after the failing write (the event of the ReplicaSet it did create is posted).
    expect(writesOf(server).map((q) => `${q.method} ${q.path.split('/').at(-1)}`)).toEqual([
      'POST replicasets',
      'PUT status',
      'POST events',
    ])

    server.faults.fail({method: 'PUT', path: /\/deployments\/web\/status$/}, 409)
    const retried = await cliAsync(['reconcile-once', '--retries', '1', '-o', 'json'], {env})
    expect(retried.code).toBe(0)
    expect(retried.stderr).toMatch(/re-reading and retrying \(1\/1\)/)
  })

  it('--dry-run=server sends every write with dryRun=All and stores nothing', async () => {
    const r = await cliAsync(['reconcile-once', '--dry-run=server', '-o', 'json'], {env})
    expect(r.code).toBe(0)
    const writes = writesOf(server)
    expect(writes.length).toBeGreaterThan(0)
    for (const w of writes) expect(w.query.dryRun).toBe('All')
    expect(stored('replicasets')).toEqual([])
  })

  it('--dry-run=server: the table says each write was a server dry run, as kubectl does', async () => {
    const r = await cliAsync(['reconcile-once', '--dry-run=server'], {env})
    expect(r.code).toBe(0)
    const rows = r.stdout.split('\n').filter((l) => /^(create|update|patch|delete) /.test(l))
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) expect(row).toMatch(/ succeeded \(server dry run\)$/)
  })

  it('--record-events=false posts no event', async () => {
    const r = await cliAsync(['reconcile-once', '--no-record-events'], {env})
    expect(r.code).toBe(0)
    expect(writesOf(server).some((q) => q.path.endsWith('/events'))).toBe(false)
  })
})

const kubectlIt = KUBECTL ? it : it.skip

describe('with the real kubectl', () => {
  beforeEach(async () => {
    await start([])
  })

  kubectlIt('a rollout driven by kubectl and reconcile-once agrees with kubectl rollout status', async () => {
    const kubectl = async (...args: string[]) =>
      (await promisify(execFile)(KUBECTL!, args, {env: {...process.env, ...env}})).stdout
    const file = join(mkdtempSync(join(tmpdir(), 'live-')), 'web.json')
    writeFileSync(file, JSON.stringify(deployment('web')))
    await kubectl('create', '-f', file)
    expect((await cliAsync(['reconcile-once'], {env})).code).toBe(0)
    expect(await kubectl('get', 'rs', '-o', 'name')).toMatch(/^replicaset.apps\/web-[a-z0-9]+\n$/)
    const status = await kubectl('rollout', 'status', 'deployment/web', '--watch=false')
    expect(status).toContain(
      'Waiting for deployment "web" rollout to finish: 0 out of 3 new replicas have been updated...',
    )

    // A new template: the next pass creates revision 2 and kubectl's history shows both.
    await kubectl('set', 'image', 'deployment/web', 'app=nginx:1.28')
    expect((await cliAsync(['reconcile-once'], {env})).code).toBe(0)
    const history = await kubectl('rollout', 'history', 'deployment/web')
    expect(history).toMatch(/^1\s/m)
    expect(history).toMatch(/^2\s/m)
  })
})

describe('a rollout driven with kubectl, step by step', () => {
  beforeEach(async () => {
    await start([])
  })

  /** The ReplicaSet controller and kubelets, done at once: every ReplicaSet's pods ready and available. */
  async function settlePods(): Promise<void> {
    const auth = {Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json'}
    const base = `${server.url}/apis/apps/v1/namespaces/default/replicasets`
    const list = (await (await fetch(base, {headers: auth})).json()) as {
      items: Array<{metadata: {name: string; generation?: number}; spec: {replicas?: number}}>
    }
    for (const rs of list.items) {
      const n = rs.spec.replicas ?? 0
      const status = {
        replicas: n,
        fullyLabeledReplicas: n,
        readyReplicas: n,
        availableReplicas: n,
        observedGeneration: rs.metadata.generation ?? 1,
        terminatingReplicas: 0,
      }
      const res = await fetch(`${base}/${rs.metadata.name}/status`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify({...rs, status}),
      })
      expect(res.status).toBe(200)
    }
  }

  const kubectl = async (...args: string[]) =>
    (await promisify(execFile)(KUBECTL!, args, {env: {...process.env, ...env}})).stdout

  /** kubectl rollout status and explain's mapping of the same object must say the same thing. */
  async function expectStatusAgrees(): Promise<string> {
    const fromKubectl = (
      await kubectl('rollout', 'status', 'deployment/web', '--watch=false').catch((e) => e.stderr)
    )
      .trim()
      .replace(/^error: /, '')
    const r = await cliAsync(['explain', 'web', '-o', 'json'], {env})
    expect(r.code).toBe(0)
    const explained = JSON.parse(r.stdout) as {items: Array<{rolloutStatus: {message: string}}>}
    expect(explained.items[0]!.rolloutStatus.message.trim()).toBe(fromKubectl)
    return fromKubectl
  }

  /** Passes of reconcile-once, with pods settling in between, until a pass changes nothing. */
  async function reconcileUntilQuiet(): Promise<void> {
    for (let i = 0; i < 10; i++) {
      await settlePods()
      const r = await cliAsync(['reconcile-once', '-o', 'json'], {env})
      expect(r.code).toBe(0)
      const writes = (JSON.parse(r.stdout) as SyncResult).items.flatMap((x) => x.actions)
      if (writes.length === 0) return
    }
    throw new Error('reconcile-once did not converge in 10 passes')
  }

  kubectlIt(
    'kubectl create, set image, pause/resume and undo leave what the controller would',
    async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'live-')), 'web.json')
      writeFileSync(file, JSON.stringify(deployment('web')))
      await kubectl('create', '-f', file)
      expect(await expectStatusAgrees()).toBe('Waiting for deployment spec update to be observed...')
      await reconcileUntilQuiet()
      expect(await expectStatusAgrees()).toBe('deployment "web" successfully rolled out')

      await kubectl('set', 'image', 'deployment/web', 'app=nginx:1.28')
      // One pass: the new ReplicaSet surges by maxSurge (25% of 3, rounded up: 1) and the
      // Deployment's status says so; kubectl and explain still agree mid-rollout.
      expect((await cliAsync(['reconcile-once'], {env})).code).toBe(0)
      await settlePods()
      expect((await cliAsync(['reconcile-once'], {env})).code).toBe(0)
      expect(await expectStatusAgrees()).toMatch(/^Waiting for deployment "web" rollout to finish: /)
      await reconcileUntilQuiet()
      expect(await expectStatusAgrees()).toBe('deployment "web" successfully rolled out')
      const sizes = async () =>
        (await kubectl('get', 'rs', '-o', 'jsonpath={range .items[*]}{.spec.replicas}{" "}{end}'))
          .trim()
          .split(' ')
          .map(Number)
      expect((await sizes()).sort()).toEqual([0, 3])

      await kubectl('rollout', 'pause', 'deployment/web')
      await kubectl('set', 'image', 'deployment/web', 'app=nginx:1.29')
      await reconcileUntilQuiet()
      expect(await sizes()).toHaveLength(2) // paused: no new ReplicaSet
      await kubectl('rollout', 'resume', 'deployment/web')
      await reconcileUntilQuiet()
      expect(await expectStatusAgrees()).toBe('deployment "web" successfully rolled out')

      await kubectl('rollout', 'undo', 'deployment/web')
      await reconcileUntilQuiet()
      expect(await expectStatusAgrees()).toBe('deployment "web" successfully rolled out')

      // Revisions 1 (1.27), 2 (1.28), 3 (1.29); undo brings 2's template back as revision 4.
      const history = await kubectl('rollout', 'history', 'deployment/web')
      const revisions = [...history.matchAll(/^(\d+)\s/gm)].map((m) => Number(m[1]))
      expect(revisions).toEqual([1, 3, 4])
      const image = await kubectl(
        'get',
        'deployment/web',
        '-o',
        'jsonpath={.spec.template.spec.containers[0].image}',
      )
      expect(image).toBe('nginx:1.28')
      expect((await sizes()).filter((n) => n > 0)).toEqual([3])
    },
    300_000,
  )
})
