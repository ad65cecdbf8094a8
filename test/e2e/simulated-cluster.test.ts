// Issue 14 on the test API server's moving cluster (`simulate`): every example loads with plain
// `kubectl apply`; `run --once-synced` exits on every example; `run` makes no sync beyond what an
// informer event or a requeue time calls for; and the walkthrough through the real kubectl.
// Timings are short and every wait is for an eventual state with a generous deadline.

import {type ChildProcess, spawn} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {parseAllDocuments} from 'yaml'
import {ApiClient} from '../../src/cluster/live/api.js'
import {connect} from '../../src/cluster/live/kubeconfig.js'
import type {Deployment} from '../../src/controller/api/types.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import {ControllerLoop, type SyncRecord} from '../../src/run/controller.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {BIN, cliAsync, eventually, KUBECTL, kubectlAsync as kubectl, limiter, ROOT} from './helpers.js'

const kubectlIt = KUBECTL ? it : it.skip
const EXAMPLES = readdirSync(join(ROOT, 'examples'))
  .filter((f) => f.endsWith('.yaml'))
  .sort()
const FAST = {podReadyAfterMs: 300, terminateAfterMs: 300}

const servers: ApiServer[] = []
const children: ChildProcess[] = []

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL')
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function serve(options: Parameters<typeof startApiServer>[0]): Promise<ApiServer> {
  const s = await startApiServer(options)
  servers.push(s)
  return s
}

function envOf(server: ApiServer): NodeJS.ProcessEnv {
  return {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: mkdtempSync(join(tmpdir(), 'kcache-'))}
}

function loadExample(file: string): unknown[] {
  const text = readFileSync(join(ROOT, 'examples', file), 'utf8')
  return parseAllDocuments(text, {version: '1.1'})
    .map((d) => d.toJS() as unknown)
    .filter((v) => v !== null && v !== undefined)
}

describe('kubectl apply of every example on a simulated cluster', () => {
  kubectlIt(
    'loads each file with plain kubectl apply (a kind: List is validated client-side through /openapi/v2)',
    async () => {
      for (const file of EXAMPLES) {
        // The examples' namespaces exist from the start (two kubectl processes fewer per file).
        const namespaces = ['demo', 'shop'].map((name) => ({
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: {name},
        }))
        const server = await serve({simulate: FAST, objects: namespaces})
        const env = envOf(server)
        const r = await kubectl(env, 'apply', '-f', join(ROOT, 'examples', file))
        expect({file, code: r.code, stderr: r.stderr}).toEqual({file, code: 0, stderr: ''})
        const names = loadExample(file)
          .flatMap((o) =>
            (o as {kind?: string; items?: unknown[]}).kind === 'List'
              ? ((o as {items: unknown[]}).items ?? [])
              : [o],
          )
          .filter((o) => (o as {kind?: string}).kind === 'Deployment')
          .map((o) => (o as Deployment).metadata.name)
        for (const name of names) expect(r.stdout).toContain(`deployment.apps/${name} created`)
        await server.close()
      }
    },
    180_000,
  )
})

describe('run --once-synced exits on every example loaded into the server', () => {
  // The frozen world (no simulate): a Deployment past its progress deadline that is neither complete
  // nor timed out is re-checked rate-limited after every sync (upstream's requeueStuckDeployment);
  // --once-synced reports that requeue and exits instead of waiting for a change that never comes.
  it('exits 0 for each file, within a deadline', async () => {
    const two = limiter(2)
    const results = await Promise.all(
      EXAMPLES.map((file) =>
        two(async () => {
          const server = await serve({objects: loadExample(file)})
          const started = Date.now()
          const r = await cliAsync(['run', '-A', '--once-synced', '--v', '2'], {env: envOf(server)})
          await server.close()
          return {
            file,
            code: r.code,
            seconds: (Date.now() - started) / 1000,
            last: r.stderr.trim().split('\n').at(-1),
          }
        }),
      ),
    )
    for (const r of results) {
      expect({file: r.file, code: r.code, last: r.last}).toMatchObject({
        file: r.file,
        code: 0,
        last: expect.stringMatching(/once-synced: \d+ deployments? synced, 0 failed$/),
      })
      // cliAsync kills a process after 60 s; a hang would show as a null code above.
      expect(r.seconds).toBeLessThan(60)
    }
  }, 240_000)
})

describe('no sync beyond what an informer event or a requeue time calls for', () => {
  /** A Deployment as kubectl create would send it. */
  function deployment(name: string, image: string, spec: Record<string, unknown> = {}) {
    return {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {name, namespace: 'default', labels: {app: name}},
      spec: {
        replicas: 2,
        selector: {matchLabels: {app: name}},
        template: {metadata: {labels: {app: name}}, spec: {containers: [{name: 'app', image}]}},
        ...spec,
      },
    }
  }

  it('counts syncs by cause: a steady simulated cluster gets none in a quiet period', async () => {
    const server = await serve({simulate: {podReadyAfterMs: 200, terminateAfterMs: 200}})
    const api = async (method: string, path: string, body: unknown, type = 'application/json') => {
      const res = await fetch(server.url + path, {
        method,
        headers: {Authorization: `Bearer ${server.token}`, 'Content-Type': type},
        body: JSON.stringify(body),
      })
      expect(res.status).toBeLessThan(300)
    }
    const deployments = '/apis/apps/v1/namespaces/default/deployments'
    await api('POST', deployments, deployment('web', 'nginx:1.27'))
    await api('POST', deployments, deployment('db', 'postgres:17', {strategy: {type: 'Recreate'}}))
    await api('POST', deployments, deployment('slow', 'nginx:1.27', {minReadySeconds: 1}))
    await api('POST', deployments, deployment('held', 'nginx:1.27', {paused: true}))
    await api('POST', deployments, deployment('zero', 'nginx:1.27', {replicas: 0}))
    // Stuck, but its deadline is 10 minutes away: its only requeue is an AddAfter that far.
    await api('POST', deployments, deployment('stuck', 'registry.example.invalid/app:1'))

    const syncs: SyncRecord[] = []
    const conn = await connect({kubeconfig: server.kubeconfigPath})
    const loop = new ControllerLoop({
      api: new ApiClient(conn),
      conn,
      namespace: 'default',
      workers: 2,
      serverDryRun: false,
      gates: parseFeatureGates(undefined),
      verbosity: 0,
      onceSynced: false,
      log: () => {},
      resyncMs: 0,
      onSync: (s) => syncs.push(s),
    })
    const running = loop.run()
    try {
      const status = (name: string) =>
        (server.store.get('deployments', 'default', name) as unknown as Deployment).status ?? {}
      const complete = (name: string) => {
        const s = status(name)
        return s.updatedReplicas === 2 && s.availableReplicas === 2 && s.replicas === 2
      }
      await eventually(() => complete('web') && complete('db') && complete('slow'), 'the first rollouts')
      // Roll both strategies forward once: a RollingUpdate and a Recreate that waits for its old pods.
      await api(
        'PATCH',
        `${deployments}/web`,
        {spec: {template: {spec: {containers: [{name: 'app', image: 'nginx:1.28'}]}}}},
        'application/strategic-merge-patch+json',
      )
      await api(
        'PATCH',
        `${deployments}/db`,
        {spec: {template: {spec: {containers: [{name: 'app', image: 'postgres:18'}]}}}},
        'application/strategic-merge-patch+json',
      )
      const revision = (name: string) =>
        (server.store.get('deployments', 'default', name) as unknown as Deployment).metadata.annotations?.[
          'deployment.kubernetes.io/revision'
        ]
      await eventually(
        () => revision('web') === '2' && revision('db') === '2' && complete('web') && complete('db'),
        'the second rollouts',
      )
      // Steady: the models have nothing due, the queue is idle, the stuck pod sits in ImagePullBackOff.
      await eventually(
        () =>
          server.simulation?.nextDueAt() === undefined &&
          loop.queue.len() === 0 &&
          loop.queue.processingCount() === 0 &&
          status('web').observedGeneration === 2,
        'a steady cluster',
      )
      await new Promise((r) => setTimeout(r, 300))
      const before = syncs.length
      const changes = loop.deployments.changes + loop.replicaSets.changes + loop.pods.changes
      await new Promise((r) => setTimeout(r, 2_000))
      const quiet = syncs.slice(before)
      const events = loop.deployments.changes + loop.replicaSets.changes + loop.pods.changes - changes
      expect({events, syncs: quiet.map((s) => `${s.key}: ${s.causes.join('; ')}`)}).toEqual({
        events: 0,
        syncs: [],
      })
      // Every sync had a reason: an informer event, a progress check or an error retry.
      expect(syncs.filter((s) => s.causes.length === 0)).toEqual([])
      const reasons = [
        /^deployment (added|updated|deleted)$/,
        /^(orphan )?replicaset \S+ (added|updated|deleted|released)$/,
        /^pod \S+ deleted, no pods left$/,
        /^progress check (after \S+|now \(rate-limited\))$/,
        /^retry after an error$/,
      ]
      const unexplained = syncs.flatMap((s) => s.causes).filter((c) => !reasons.some((r) => r.test(c)))
      expect(unexplained).toEqual([])
      // The stuck rollout is requeued for its deadline, not polled.
      const stuck = syncs.filter((s) => s.key === 'default/stuck')
      expect(stuck.at(-1)?.requeues.some((r) => /^requeue after (9m|10m)/.test(r))).toBe(true)
    } finally {
      loop.stop()
      await running
    }
  }, 120_000)
})

describe('issue 14: a Deployment through create, update, history, undo and a progress deadline', () => {
  /** The built CLI's `run` in the background. */
  function run(env: NodeJS.ProcessEnv): {child: ChildProcess; stderr: () => string} {
    const child = spawn(process.execPath, [BIN, 'run', '-n', 'default', '--v', '2'], {
      cwd: ROOT,
      env: {...process.env, NO_COLOR: '1', DEBUG: '', ...env},
    })
    children.push(child)
    let err = ''
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c
    })
    return {child, stderr: () => err}
  }

  kubectlIt(
    'completes rollouts, numbers revisions, undoes, and exceeds the progress deadline on an image that never pulls',
    async () => {
      const server = await serve({simulate: FAST})
      const env = envOf(server)
      const controller = run(env)
      await eventually(() => controller.stderr().includes('caches synced'), 'run to start')
      const k = (...args: string[]) => kubectl(env, ...args)
      const ok = async (...args: string[]) => {
        const r = await k(...args)
        expect({args, code: r.code, stderr: r.stderr}).toEqual({args, code: 0, stderr: ''})
        return r.stdout
      }

      await ok('create', 'deployment', 'web', '--image', 'nginx:1.27', '--replicas', '3')
      expect(await ok('rollout', 'status', 'deployment/web', '--timeout', '60s')).toContain(
        'deployment "web" successfully rolled out',
      )
      await ok('set', 'image', 'deployment/web', 'nginx=nginx:1.28')
      expect(await ok('rollout', 'status', 'deployment/web', '--timeout', '60s')).toContain(
        'deployment "web" successfully rolled out',
      )
      const history = await ok('rollout', 'history', 'deployment/web')
      expect(history.match(/^\d+(?=\s)/gm)).toEqual(['1', '2'])

      expect(await ok('rollout', 'undo', 'deployment/web')).toContain('deployment.apps/web rolled back')
      expect(await ok('rollout', 'status', 'deployment/web', '--timeout', '60s')).toContain(
        'deployment "web" successfully rolled out',
      )
      expect((await ok('rollout', 'history', 'deployment/web')).match(/^\d+(?=\s)/gm)).toEqual(['2', '3'])
      const d = JSON.parse(await ok('get', 'deployment', 'web', '-o', 'json')) as Deployment
      expect(d.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('3')
      expect(d.spec.template?.spec?.containers?.[0]?.image).toBe('nginx:1.27')
      expect((await ok('get', 'replicasets', '-o', 'name')).trim().split('\n')).toHaveLength(2)
      // The replaced pods terminate for terminate-after, then 3 live pods of the first image remain.
      await eventually(async () => {
        const pods = JSON.parse((await k('get', 'pods', '-o', 'json')).stdout) as {
          items: Array<{metadata: {deletionTimestamp?: string}; spec: {containers: Array<{image: string}>}}>
        }
        return (
          pods.items.length === 3 &&
          pods.items.every(
            (p) => !p.metadata.deletionTimestamp && p.spec.containers[0]?.image === 'nginx:1.27',
          )
        )
      }, '3 live pods of nginx:1.27')

      await ok('patch', 'deployment/web', '-p', '{"spec":{"progressDeadlineSeconds":5}}')
      await ok('set', 'image', 'deployment/web', 'nginx=registry.example.invalid/nginx:1.29')
      const failed = await k('rollout', 'status', 'deployment/web', '--timeout', '90s')
      expect(failed.code).not.toBe(0)
      expect(failed.stderr).toContain('error: deployment "web" exceeded its progress deadline')

      const explained = await cliAsync(['explain', 'web', '-o', 'json'], {env})
      expect(explained.code).toBe(0)
      expect(explained.stdout).toContain('ImagePullBackOff')
      expect(explained.stdout).toContain('ProgressDeadlineExceeded')
      const text = await cliAsync(['explain', 'web'], {env})
      expect(text.stdout).toMatch(/DeadlineExceeded \(ImagePullBackOff\)/)
      expect(text.stdout).toContain('ProgressDeadlineExceeded')

      controller.child.kill('SIGTERM')
      await new Promise((r) => controller.child.once('close', r))
      expect(controller.child.exitCode).toBe(0)
    },
    240_000,
  )
})
