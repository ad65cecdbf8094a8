// Concurrent writers on one Deployment: two reconcile-once processes at once, and reconcile-once
// racing `kubectl scale`. The races are made certain, not left to timing: the CLI talks to the test
// API server through a small proxy that holds chosen requests until the test releases them (both
// passes have read before either writes; the scale lands between a pass's read and its writes).
// Afterwards: no write is lost, exactly one ReplicaSet exists, a loser exits 1 with a conflict
// message or converges with --retries 2, and further passes converge (dry-run sync --exit-code 0).

import {execFile} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer, type IncomingMessage, request, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {SyncResult} from '../../src/pass/result.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {deployment as build} from '../objects.js'
import {cliAsync, type RunResult} from './helpers.js'

const KUBECTL = ['/usr/lib/google-cloud-sdk/bin/kubectl.1.32', '/usr/bin/kubectl'].find(existsSync)
const SLOW = {timeout: 300_000}
const cli = (args: string[], env: NodeJS.ProcessEnv) => cliAsync(args, {env})
const HASH = '789dc4db69' // pod-template-hash of the template below

function deployment(namespace: string) {
  return build({namespace})
}

interface Held {
  method: string
  path: string
  release: () => void
}

/**
 * An HTTP proxy in front of the test server. `gate` is asked about every request; when it returns
 * true the request is held (the test sees it in `held` and releases it when it wants).
 */
async function startGate(target: string, gate: (method: string, path: string) => boolean) {
  const held: Held[] = []
  const arrived: Array<() => void> = []
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const path = (req.url ?? '').split('?')[0]!
      if (gate(req.method ?? '', path)) {
        await new Promise<void>((release) => {
          held.push({method: req.method ?? '', path, release})
          for (const notify of arrived.splice(0)) notify()
        })
      }
      const up = request(`${target}${req.url}`, {method: req.method, headers: req.headers}, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      })
      up.on('error', () => res.destroy())
      up.end(Buffer.concat(chunks))
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    held,
    /** Resolves at the next request the gate holds. */
    next: () => new Promise<void>((ok) => arrived.push(ok)),
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}

let server: ApiServer
let gate: Awaited<ReturnType<typeof startGate>>
let viaGate: NodeJS.ProcessEnv
let direct: NodeJS.ProcessEnv
/** Namespaces whose ReplicaSet creations the gate holds. */
const gated = new Set<string>()

beforeAll(async () => {
  server = await startApiServer({
    objects: ['race-plain', 'race-retries', 'race-scale', 'race-scale-retries'].map(deployment),
  })
  gate = await startGate(server.url, (method, path) => {
    const m = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/replicasets$/.exec(path)
    return method === 'POST' && m !== null && gated.has(m[1]!)
  })
  const kubeconfig = join(mkdtempSync(join(tmpdir(), 'deployctl-race-')), 'config')
  writeFileSync(kubeconfig, readFileSync(server.kubeconfigPath, 'utf8').replace(server.url, gate.url))
  viaGate = {KUBECONFIG: kubeconfig}
  direct = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
})

afterAll(async () => {
  await gate?.close()
  await server?.close()
})

interface Stored {
  metadata: {name: string; annotations?: Record<string, string>; ownerReferences?: Array<{uid: string}>}
  spec: {replicas?: number}
  status?: {observedGeneration?: number}
}
const replicaSets = (ns: string) => server.store.list('replicasets', ns) as unknown as Stored[]
const web = (ns: string) => (server.store.list('deployments', ns) as unknown as Stored[])[0]!

/** Runs reconcile-once passes until one changes nothing, then checks dry-run sync agrees. */
async function converge(ns: string): Promise<void> {
  for (let pass = 0; pass < 3; pass++) {
    const r = await cli(['reconcile-once', '-n', ns, '-o', 'json', '--no-record-events'], direct)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    if ((JSON.parse(r.stdout) as SyncResult).items[0]!.actions.length === 0) break
  }
  const settled = await cli(['dry-run', 'sync', '-n', ns, '--exit-code'], direct)
  expect(settled.stderr).toBe('')
  expect(settled.code).toBe(0)
}

/** The one ReplicaSet a correct history holds: revision 1, controlled by web, `replicas` wide. */
function expectOneReplicaSet(ns: string, replicas: number): void {
  const rss = replicaSets(ns)
  expect(rss.map((rs) => rs.metadata.name)).toEqual([`web-${HASH}`])
  const [rs] = rss
  expect(rs!.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('1')
  expect(rs!.metadata.ownerReferences?.map((o) => o.uid)).toEqual([
    (server.store.list('deployments', ns)[0] as {metadata: {uid: string}}).metadata.uid,
  ])
  expect(rs!.spec.replicas).toBe(replicas)
}

const creates = (ns: string) =>
  server.requests.filter((q) => q.namespace === ns && q.method === 'POST' && q.resource === 'replicasets')

/** The requests of a namespace the gate holds, once there are `n` of them. */
async function heldIn(ns: string, n: number): Promise<Held[]> {
  for (;;) {
    const mine = gate.held.filter((h) => h.path.includes(`/namespaces/${ns}/`))
    if (mine.length >= n) return mine
    await gate.next()
  }
}

/** Releases the held creations of a namespace once `n` have arrived. */
async function releaseWhenHeld(ns: string, n: number): Promise<void> {
  for (const h of await heldIn(ns, n)) h.release()
}

describe.concurrent('two reconcile-once passes on one Deployment at once', SLOW, () => {
  it('without retries: one creates the ReplicaSet, the other stops with a conflict', async () => {
    const ns = 'race-plain'
    gated.add(ns)
    const pass = () => cli(['reconcile-once', '-n', ns, '--no-record-events'], viaGate)
    // Both passes have read (no ReplicaSet yet) before either create reaches the server.
    const [a, b] = await Promise.all([pass(), pass(), releaseWhenHeld(ns, 2)])
    const [winner, loser] = a.code === 0 ? [a, b] : [b, a]
    expect(winner.stderr).toBe('')
    expect(winner.code).toBe(0)
    expect(loser.stderr).toBe(
      `error: sync of deployment ${ns}/web failed: replicasets.apps "web-${HASH}" already exists (someone else wrote it during the pass); nothing was written\n`,
    )
    expect(loser.code).toBe(1)
    expect(creates(ns).map((q) => q.status)).toEqual([201, 409])
    // The winner's writes stand: its ReplicaSet and both status writes.
    expectOneReplicaSet(ns, 3)
    expect(web(ns).metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('1')
    expect(web(ns).status?.observedGeneration).toBe(1)
    gated.delete(ns)
    await converge(ns)
    expectOneReplicaSet(ns, 3)
  })

  it('with --retries 4: the loser re-reads, adopts nothing new and both succeed', async () => {
    const ns = 'race-retries'
    gated.add(ns)
    // Room for the interleavings a loaded machine produces: each conflict one side meets is a write
    // the other made in between, and after the create each pass still writes the Deployment's
    // status up to twice (upstream's getNewReplicaSet, then syncRolloutStatus). With --retries 2 a
    // full suite run once saw the loser meet a third conflict and give up (session 40).
    const pass = () => cli(['reconcile-once', '-n', ns, '--retries', '4', '--no-record-events'], viaGate)
    const [a, b] = await Promise.all([pass(), pass(), releaseWhenHeld(ns, 2)])
    gated.delete(ns)
    expect(a.code, a.stderr).toBe(0)
    expect(b.code, b.stderr).toBe(0)
    // The loser met the winner's ReplicaSet once and retries. Its second pass and the winner's last
    // status write then race: either may meet the other's and retry in turn (which one depends on
    // timing, so the order of the lines is not asserted).
    const lines = `${a.stderr}${b.stderr}`.split('\n').filter((l) => l !== '')
    const retried = (what: string) =>
      new RegExp(`^deployment ${ns}/web: ${what}; re-reading and retrying \\([1-4]/4\\)$`)
    expect(
      lines.filter((l) => retried(`replicasets\\.apps "web-${HASH}" already exists`).test(l)),
    ).toHaveLength(1)
    for (const l of lines) {
      expect(l).toMatch(
        retried(
          `(replicasets\\.apps "web-${HASH}" already exists|Operation cannot be fulfilled on deployments\\.apps "web": .*)`,
        ),
      )
    }
    expect(creates(ns).map((q) => q.status)).toEqual([201, 409])
    expectOneReplicaSet(ns, 3)
    await converge(ns)
  })
})

/** `kubectl scale` when kubectl is installed, else the same write straight to the API. */
async function scale(ns: string, replicas: number): Promise<void> {
  if (KUBECTL) {
    await promisify(execFile)(KUBECTL, ['scale', 'deployment/web', `--replicas=${replicas}`, '-n', ns], {
      env: {...process.env, ...direct},
    })
    return
  }
  const url = `${server.url}/apis/apps/v1/namespaces/${ns}/deployments/web/scale`
  const res = await fetch(url, {
    method: 'PATCH',
    headers: {Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/merge-patch+json'},
    body: JSON.stringify({spec: {replicas}}),
  })
  expect(res.status).toBe(200)
}

describe.concurrent(`reconcile-once racing ${KUBECTL ? 'kubectl scale' : 'a scale write'}`, SLOW, () => {
  /** The pass reads replicas 3; the scale to 5 lands before its first write. */
  async function race(ns: string, ...flags: string[]): Promise<RunResult> {
    gated.add(ns)
    const pass = cli(['reconcile-once', '-n', ns, '--no-record-events', ...flags], viaGate)
    const [create] = await heldIn(ns, 1)
    await scale(ns, 5)
    gated.delete(ns)
    create!.release()
    return pass
  }

  it('without retries: the pass stops at the conflict and names what it wrote; the scale is kept', async () => {
    const ns = 'race-scale'
    const r = await race(ns)
    expect(r.stderr).toBe(
      `error: sync of deployment ${ns}/web failed: Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again; already written: create replicasets web-${HASH}\n`,
    )
    expect(r.code).toBe(1)
    expect(web(ns).spec.replicas).toBe(5)
    // The pass's ReplicaSet was sized for the spec it read; the next passes scale it to the new spec.
    expectOneReplicaSet(ns, 3)
    await converge(ns)
    expect(web(ns).spec.replicas).toBe(5)
    expectOneReplicaSet(ns, 5)
  })

  it('with --retries 2: the pass re-reads and scales its ReplicaSet to the new replicas', async () => {
    const ns = 'race-scale-retries'
    const r = await race(ns, '--retries', '2')
    expect(r.stderr).toMatch(
      new RegExp(
        `^deployment ${ns}/web: Operation cannot be fulfilled on deployments\\.apps "web": the object has been modified; .*; re-reading and retrying \\(1/2\\)\\n$`,
      ),
    )
    expect(r.code).toBe(0)
    expect(web(ns).spec.replicas).toBe(5)
    expectOneReplicaSet(ns, 5)
    await converge(ns)
  })
})
