// `run --leader-elect` as two replicas of the built CLI against the test API server's moving
// cluster, with short lease timings (lease 4s, renew 3s, retry 1s): one leader at a time, the
// metrics and probes of both, failover after kill -9 and after SIGTERM, a leader that loses its
// Lease exits 1 without writing again, and rollouts with the leader killed at seeded random moments
// still converge. The server records who made every write; a replay of those records against the
// Lease's holders proves that no replica wrote while another held the Lease.

import {type ChildProcess, spawn} from 'node:child_process'
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import type {ReplicaSet} from '../../src/controller/api/types.js'
import {Random} from '../../src/sim/random.js'
import {type ApiServer, startApiServer, type WriteRecord} from '../apiserver/index.js'
import {BIN, eventually, KUBECTL, kubectlAsync as kubectl, ROOT, type RunResult} from './helpers.js'

const kubectlIt = KUBECTL ? it : it.skip
const LEASE = {durationMs: 4000, renewMs: 3000, retryMs: 1000}
const TIMINGS = [
  '--leader-elect-lease-duration=4s',
  '--leader-elect-renew-deadline=3s',
  '--leader-elect-retry-period=1s',
]
const LEASE_NAME = 'kubectl-deployctl'
/**
 * The longest a standby can need after the leader dies, by upstream's rules: it last saw the
 * record change up to 2.2 retry periods after the last renewal (its jittered polls), waits a lease
 * duration from then, and tries again up to 2.2 retry periods later. Plus slack for two busy cores.
 */
const TAKEOVER_BOUND_MS = 2.2 * LEASE.retryMs + LEASE.durationMs + 2.2 * LEASE.retryMs + 4000

const servers: ApiServer[] = []
const replicas: Replica[] = []

afterEach(async () => {
  for (const r of replicas.splice(0)) r.kill('SIGKILL')
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function serve(): Promise<ApiServer> {
  const s = await startApiServer({simulate: {podReadyAfterMs: 300, terminateAfterMs: 300}})
  servers.push(s)
  return s
}

function envOf(server: ApiServer): NodeJS.ProcessEnv {
  return {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: mkdtempSync(join(tmpdir(), 'kcache-'))}
}

interface LogLine {
  msg: string
  [k: string]: unknown
}

/** One `run --leader-elect` process, its JSON log read as it comes. */
class Replica {
  private readonly child: ChildProcess
  stderr = ''
  readonly lines: LogLine[] = []
  readonly exited: Promise<RunResult>
  code: number | null = null

  constructor(server: ApiServer, extra: string[] = []) {
    const args = [
      BIN,
      'run',
      '-A',
      '--leader-elect',
      ...TIMINGS,
      '--metrics-bind-address=127.0.0.1:0',
      // The series are read over plain HTTP here; the secure path is run.test.ts's.
      '--metrics-secure=false',
      '--health-probe-bind-address=127.0.0.1:0',
      '--log-format=json',
      '--v=2',
      ...extra,
    ]
    this.child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: {...process.env, ...envOf(server), NO_COLOR: '1', DEBUG: '', NODE_ENV: 'production'},
    })
    this.child.stderr?.setEncoding('utf8').on('data', (c: string) => {
      const start = this.stderr.lastIndexOf('\n') + 1
      this.stderr += c
      const complete = this.stderr.slice(start, this.stderr.lastIndexOf('\n') + 1)
      for (const l of complete.split('\n')) if (l.startsWith('{')) this.lines.push(JSON.parse(l) as LogLine)
    })
    this.exited = new Promise((resolve, reject) => {
      this.child.on('error', reject)
      this.child.on('close', (code) => {
        this.code = code
        resolve({code, stdout: '', stderr: this.stderr})
      })
    })
    replicas.push(this)
  }

  private field(msg: string, key: string): string | undefined {
    const l = this.lines.find((x) => x.msg === msg)
    return l ? String(l[key]) : undefined
  }

  get identity(): string | undefined {
    return this.field('Leader election', 'identity')
  }

  async ready(): Promise<void> {
    await eventually(
      () =>
        this.code !== null
          ? Promise.reject(new Error(this.stderr))
          : this.metricsAddress && this.probesAddress,
      'the replica to serve',
    )
    await eventually(async () => (await this.get('/readyz')).status === 200, 'caches to sync')
  }

  get metricsAddress(): string | undefined {
    return this.field('Serving metrics', 'address')
  }

  get probesAddress(): string | undefined {
    return this.field('Serving health probes', 'address')
  }

  get leading(): boolean {
    return this.lines.some((l) => l.msg === 'Successfully acquired lease')
  }

  async get(path: string): Promise<{status: number; body: string}> {
    const addr = path === '/metrics' ? this.metricsAddress : this.probesAddress
    const res = await fetch(`http://${addr}${path}`)
    return {status: res.status, body: await res.text()}
  }

  /** The value of one series of /metrics, e.g. `leader_election_master_status{name="kubectl-deployctl"}`. */
  async metric(series: string): Promise<number | undefined> {
    const {body} = await this.get('/metrics')
    const line = body.split('\n').find((l) => l.startsWith(`${series} `))
    return line === undefined ? undefined : Number(line.slice(series.length + 1))
  }

  kill(signal: NodeJS.Signals): void {
    if (this.code === null && this.child.exitCode === null) this.child.kill(signal)
  }
}

function lease(server: ApiServer): {holderIdentity?: string; leaseTransitions?: number} {
  const l = server.store.get('leases', 'kube-system', LEASE_NAME) as
    | {spec?: {holderIdentity?: string; leaseTransitions?: number}}
    | undefined
  return l?.spec ?? {}
}

function replicaSetsOf(server: ApiServer, namespace: string, deployment: string): ReplicaSet[] {
  return (server.store.list('replicasets', namespace) as unknown as ReplicaSet[]).filter((rs) =>
    rs.metadata.ownerReferences?.some((o) => o.controller && o.name === deployment),
  )
}

/**
 * Replays the server's write records: every write made by a deployment-controller client must
 * come from the identity that held the Lease when the server applied it. With `unheld: 'allowed'`
 * only writes while the Lease named another holder count (issue 28's property for a deleted Lease,
 * which names none: the old leader writes until it notices the deletion).
 */
function writesByNonLeaders(writes: WriteRecord[], unheld: 'refused' | 'allowed' = 'refused'): WriteRecord[] {
  let holder = ''
  const bad: WriteRecord[] = []
  for (const w of writes) {
    if (w.resource === 'leases' && w.name === LEASE_NAME) {
      holder = w.holder ?? ''
      continue
    }
    const m = / deployment-controller (\S+)$/.exec(w.writer)
    if (m && m[1] !== holder && (holder !== '' || unheld === 'refused')) bad.push(w)
  }
  return bad
}

function controllerWrites(writes: WriteRecord[]): WriteRecord[] {
  return writes.filter((w) => / deployment-controller \S+$/.test(w.writer))
}

describe('run --leader-elect: two replicas', () => {
  kubectlIt(
    'one leader; metrics and probes on both; after kill -9 the standby leads, reconciles, and nobody but the leader wrote',
    async () => {
      const server = await serve()
      const env = envOf(server)
      const a = new Replica(server)
      await a.ready()
      await eventually(() => a.leading, 'a to lead')
      const b = new Replica(server)
      await b.ready()
      expect(lease(server).holderIdentity).toBe(a.identity)

      // Exactly one reports itself master; both are healthy.
      const status = 'leader_election_master_status{name="kubectl-deployctl"}'
      expect(await a.metric(status)).toBe(1)
      expect(await b.metric(status)).toBe(0)
      expect((await a.get('/healthz')).status).toBe(200)
      expect((await b.get('/healthz')).status).toBe(200)
      expect((await b.get('/healthz?verbose')).body).toContain('[+]leaderElection ok')

      expect(
        (await kubectl(env, 'create', 'deployment', 'before', '--image=nginx:1.27', '--replicas=3')).code,
      ).toBe(0)
      const rolled = await kubectl(env, 'rollout', 'status', 'deployment/before', '--timeout=60s')
      expect(rolled.code, rolled.stderr).toBe(0)
      expect(await a.metric('workqueue_adds_total{name="deployment"}')).toBeGreaterThan(0)
      const metrics = (await a.get('/metrics')).body
      expect(metrics).toMatch(
        /^rest_client_requests_total\{code="201",method="POST",host="127\.0\.0\.1:\d+"\} \d+$/m,
      )
      expect(metrics).toMatch(/^workqueue_work_duration_seconds_bucket\{le="1e-8",name="deployment"\} \d+$/m)
      expect(metrics).toMatch(/^process_resident_memory_bytes \d+/m)
      // The standby's caches are warm, its workers idle: it has written nothing.
      expect(controllerWrites(server.writes).filter((w) => w.writer.endsWith(b.identity as string))).toEqual(
        [],
      )

      a.kill('SIGKILL')
      const killedAt = Date.now()
      await eventually(() => lease(server).holderIdentity === b.identity, 'b to take the Lease', 30_000)
      const took = Date.now() - killedAt
      process.stderr.write(`failover after kill -9: ${took} ms\n`)
      expect(took).toBeLessThan(TAKEOVER_BOUND_MS)
      expect(lease(server).leaseTransitions).toBeGreaterThanOrEqual(1)
      await eventually(async () => (await b.metric(status)) === 1, 'b to report master')

      expect(
        (await kubectl(env, 'create', 'deployment', 'after', '--image=nginx:1.27', '--replicas=2')).code,
      ).toBe(0)
      const after = await kubectl(env, 'rollout', 'status', 'deployment/after', '--timeout=60s')
      expect(after.code, after.stderr).toBe(0)
      expect(replicaSetsOf(server, 'default', 'before')).toHaveLength(1)
      expect(replicaSetsOf(server, 'default', 'after')).toHaveLength(1)
      expect(writesByNonLeaders(server.writes)).toEqual([])
      const writers = new Set(controllerWrites(server.writes).map((w) => w.writer.split(' ').pop()))
      expect(writers).toEqual(new Set([a.identity, b.identity]))
    },
    120_000,
  )

  kubectlIt(
    'SIGTERM: the leader finishes, releases the Lease and exits 0; the standby takes over within about a retry period',
    async () => {
      const server = await serve()
      const env = envOf(server)
      const a = new Replica(server)
      await a.ready()
      await eventually(() => a.leading, 'a to lead')
      const b = new Replica(server)
      await b.ready()
      expect(
        (await kubectl(env, 'create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2')).code,
      ).toBe(0)
      expect((await kubectl(env, 'rollout', 'status', 'deployment/web', '--timeout=60s')).code).toBe(0)

      a.kill('SIGTERM')
      const stoppedAt = Date.now()
      expect((await a.exited).code).toBe(0)
      const released = server.writes.find(
        (w) => w.resource === 'leases' && w.holder === '' && w.writer.endsWith(a.identity as string),
      )
      expect(released, 'a released the Lease').toBeDefined()
      await eventually(() => lease(server).holderIdentity === b.identity, 'b to take the Lease', 30_000)
      const took = Date.now() - stoppedAt
      process.stderr.write(`failover after SIGTERM: ${took} ms\n`)
      // A released Lease is taken at the standby's next try: at most 2.2 retry periods, plus slack.
      expect(took).toBeLessThan(2.2 * LEASE.retryMs + 3000)
      const order = a.lines.map((l) => l.msg)
      const i = (m: string) => order.indexOf(m)
      expect(i('deployment controller stopped')).toBeGreaterThan(
        i('SIGTERM received: finishing the syncs in progress, then exiting'),
      )
      expect(i('Released lease')).toBeGreaterThan(i('deployment controller stopped'))

      expect((await kubectl(env, 'set', 'image', 'deployment/web', 'nginx=nginx:1.28')).code).toBe(0)
      expect((await kubectl(env, 'rollout', 'status', 'deployment/web', '--timeout=60s')).code).toBe(0)
      expect(replicaSetsOf(server, 'default', 'web')).toHaveLength(2)
      expect(writesByNonLeaders(server.writes)).toEqual([])
    },
    120_000,
  )

  kubectlIt(
    'a leader that cannot renew within the renew deadline stops writing and exits 1',
    async () => {
      const server = await serve()
      const env = envOf(server)
      const a = new Replica(server)
      await a.ready()
      await eventually(() => a.leading, 'a to lead')
      expect(
        (await kubectl(env, 'create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2')).code,
      ).toBe(0)
      expect((await kubectl(env, 'rollout', 'status', 'deployment/web', '--timeout=60s')).code).toBe(0)
      // Every Lease update fails from now on: renewal keeps failing.
      const failing = server.faults.add({
        verb: 'update',
        resource: 'leases',
        status: 500,
        times: Number.POSITIVE_INFINITY,
      })
      const cutAt = Date.now()
      const exited = await a.exited
      expect(exited.code).toBe(1)
      const lostLine = a.lines.find((l) => l.msg === 'leaderelection lost')
      expect(lostLine).toBeDefined()
      // It gave up within retry period + renew deadline of its last renewal (plus slack).
      expect(Date.now() - cutAt).toBeLessThan(LEASE.retryMs + LEASE.renewMs + 3000)
      const lostAt = Number((a.lines.find((l) => l.msg === 'Failed to renew lease') as LogLine).ts)
      expect(controllerWrites(server.writes).filter((w) => w.time > lostAt)).toEqual([])
      failing.remove()
    },
    60_000,
  )
})

describe('the Lease deleted under the leader (issue 28)', () => {
  // Each trial deletes the Lease during a rollout just after the leader renewed, and holds the
  // leader's next renewal at the server for a chosen time: the standby's polls then find the Lease
  // missing before the leader does. `npm run bench -- lease-deleted` runs 20 trials.
  const DELAYS_MS = [0, 1500, 2500]
  kubectlIt(
    `${DELAYS_MS.length} trials: no replica writes after another holds the Lease; the rollouts converge`,
    async () => {
      const server = await serve()
      const env = envOf(server)
      const replicas = [new Replica(server), new Replica(server)]
      await Promise.all(replicas.map((r) => r.ready()))
      expect(
        (await kubectl(env, 'create', 'deployment', 'web', '--image=nginx:1.0', '--replicas=4')).code,
      ).toBe(0)
      expect((await kubectl(env, 'rollout', 'status', 'deployment/web', '--timeout=60s')).code).toBe(0)
      for (const [i, delayMs] of DELAYS_MS.entries()) {
        const holder = await eventually(() => lease(server).holderIdentity, 'a holder')
        expect((await kubectl(env, 'set', 'image', 'deployment/web', `nginx=nginx:1.${i + 1}`)).code).toBe(0)
        const seen = server.requests.length
        await eventually(
          () =>
            server.requests
              .slice(seen)
              .some((q) => q.method === 'PUT' && q.resource === 'leases' && q.userAgent?.endsWith(holder)),
          "the leader's next renewal",
        )
        if (delayMs > 0) server.faults.add({verb: 'update', resource: 'leases', delayMs})
        const deleted = await kubectl(env, 'delete', 'lease', '-n', 'kube-system', LEASE_NAME)
        expect(deleted.code, deleted.stderr).toBe(0)
        const status = await kubectl(env, 'rollout', 'status', 'deployment/web', '--timeout=90s')
        expect(status.code, `trial ${i}: ${status.stderr}`).toBe(0)
        await eventually(() => lease(server).holderIdentity, 'a holder again')
        expect(writesByNonLeaders(server.writes, 'allowed'), `trial ${i}`).toEqual([])
      }
      const sets = replicaSetsOf(server, 'default', 'web')
      expect(new Set(sets.map((rs) => rs.metadata.labels?.['pod-template-hash'])).size).toBe(sets.length)
      for (const r of replicas) expect(r.code === null || r.code === 1).toBe(true)
    },
    180_000,
  )
})

describe('rollouts with the leader killed at random moments', () => {
  // The issue asks for 20; 8 keep this test near a minute on two cores (each kill -9 costs a
  // lease duration of failover). `npm run bench` runs 20.
  const ROLLOUTS = 8
  kubectlIt(
    `${ROLLOUTS} image changes, the leader killed (kill -9 and SIGTERM in turn) at seeded random moments: every rollout converges, no duplicate ReplicaSet`,
    async () => {
      const server = await serve()
      const env = envOf(server)
      const random = new Random(17)
      let live = [new Replica(server), new Replica(server)]
      await Promise.all(live.map((r) => r.ready()))
      expect(
        (await kubectl(env, 'create', 'deployment', 'web', '--image=nginx:1.0', '--replicas=4')).code,
      ).toBe(0)
      expect((await kubectl(env, 'rollout', 'status', 'deployment/web', '--timeout=60s')).code).toBe(0)
      for (let i = 1; i <= ROLLOUTS; i++) {
        const leader = await eventually(
          () => live.find((r) => r.identity !== undefined && lease(server).holderIdentity === r.identity),
          'a leader',
        )
        expect((await kubectl(env, 'set', 'image', 'deployment/web', `nginx=nginx:1.${i}`)).code).toBe(0)
        await new Promise((r) => setTimeout(r, random.int(1500)))
        leader.kill(i % 2 === 1 ? 'SIGKILL' : 'SIGTERM')
        await leader.exited
        live = [...live.filter((r) => r !== leader), new Replica(server)]
        const status = await kubectl(env, 'rollout', 'status', 'deployment/web', '--timeout=90s')
        expect(status.code, `rollout ${i}: ${status.stderr}`).toBe(0)
      }
      const sets = replicaSetsOf(server, 'default', 'web')
      const hashes = sets.map((rs) => rs.metadata.labels?.['pod-template-hash'])
      expect(new Set(hashes).size).toBe(sets.length)
      expect(sets.filter((rs) => (rs.spec?.replicas ?? 0) > 0)).toHaveLength(1)
      expect(writesByNonLeaders(server.writes)).toEqual([])
    },
    300_000,
  )
})

describe('deploy/', () => {
  kubectlIt(
    'applies with kubectl (server dry run, then for real), and its RBAC allows every request run made',
    async () => {
      const server = await serve()
      const env = envOf(server)
      const dir = join(ROOT, 'deploy')
      // The namespace first: a server-side dry run of objects in a namespace that does not exist
      // yet fails on any API server.
      expect((await kubectl(env, 'apply', '-f', join(dir, '00-namespace.yaml'))).code).toBe(0)
      const dry = await kubectl(env, 'apply', '--dry-run=server', '-f', dir)
      expect(dry.code, dry.stderr).toBe(0)
      expect(dry.stdout).toContain('deployment.apps/kubectl-deployctl created (server dry run)')
      expect(server.store.list('deployments', 'deployctl-system')).toEqual([])
      const real = await kubectl(env, 'apply', '-f', dir)
      expect(real.code, real.stderr).toBe(0)
      for (const what of [
        'serviceaccount/kubectl-deployctl created',
        'clusterrole.rbac.authorization.k8s.io/kubectl-deployctl created',
        'clusterrolebinding.rbac.authorization.k8s.io/kubectl-deployctl created',
        'role.rbac.authorization.k8s.io/kubectl-deployctl-leader-election created',
        'role.rbac.authorization.k8s.io/kubectl-deployctl-kcm-lease created',
        'clusterrole.rbac.authorization.k8s.io/kubectl-deployctl-metrics-reader created',
        'networkpolicy.networking.k8s.io/kubectl-deployctl created',
        'deployment.apps/kubectl-deployctl created',
      ]) {
        expect(real.stdout).toContain(what)
      }

      // The Deployment's own arguments (ports made free) run a leader that rolls the Deployment out.
      const manifest = readFileSync(join(dir, '20-deployment.yaml'), 'utf8')
      const args = [...manifest.matchAll(/^ {8}- (--?[a-z-]+(?:=\S+)?|run)$/gm)].map((m) => m[1] as string)
      expect(args).toEqual([
        'run',
        '--all-namespaces',
        '--leader-elect',
        '--metrics-bind-address=:8080',
        '--metrics-secure',
        '--health-probe-bind-address=:8081',
        '--log-format=json',
        '--v=2',
      ])
      const r = new Replica(server, ['--leader-elect-resource-namespace=deployctl-system'])
      await r.ready()
      const status = await kubectl(
        env,
        'rollout',
        'status',
        '-n',
        'deployctl-system',
        'deployment/kubectl-deployctl',
        '--timeout=60s',
      )
      expect(status.code, status.stderr).toBe(0)
      r.kill('SIGTERM')
      await r.exited

      // Every request of both clients is allowed by deploy/'s rules.
      const rules = rbacRules(readFileSync(join(dir, '10-rbac.yaml'), 'utf8'))
      const made = server.requests.filter((q) => q.userAgent?.startsWith('kubectl-deployctl/') && q.resource)
      expect(made.length).toBeGreaterThan(0)
      const denied = made.filter(
        (q) =>
          !rules.some(
            (rule) =>
              rule.groups.includes(groupOf(q.resource as string)) &&
              rule.resources.includes(
                q.subresource ? `${q.resource}/${q.subresource}` : (q.resource as string),
              ) &&
              rule.verbs.includes(q.verb as string) &&
              (rule.names.length === 0 || rule.names.includes(q.name ?? '')) &&
              (rule.namespace === undefined || rule.namespace === q.namespace),
          ),
      )
      expect(denied.map((q) => `${q.verb} ${q.resource} ${q.namespace ?? ''}/${q.name ?? ''}`)).toEqual([])
    },
    120_000,
  )
})

interface Rule {
  groups: string[]
  resources: string[]
  verbs: string[]
  names: string[]
  namespace?: string
}

function groupOf(resource: string): string {
  if (['deployments', 'replicasets'].includes(resource)) return 'apps'
  if (resource === 'leases') return 'coordination.k8s.io'
  return ''
}

/** The rules of deploy/10-rbac.yaml (Roles keep their namespace). */
function rbacRules(text: string): Rule[] {
  const out: Rule[] = []
  for (const doc of text.split(/^---$/m)) {
    const kind = /^kind: (\w+)$/m.exec(doc)?.[1]
    if (kind !== 'ClusterRole' && kind !== 'Role') continue
    const namespace = kind === 'Role' ? /^ {2}namespace: (\S+)$/m.exec(doc)?.[1] : undefined
    for (const block of doc.split(/^- apiGroups:/m).slice(1)) {
      const list = (key: string) => {
        const m = new RegExp(`${key}: \\[([^\\]]*)\\]`).exec(`apiGroups:${block}`)
        return m ? [...(m[1] as string).matchAll(/"([^"]*)"/g)].map((x) => x[1] as string) : []
      }
      out.push({
        groups: list('apiGroups'),
        resources: list('resources'),
        verbs: list('verbs'),
        names: list('resourceNames'),
        namespace,
      })
    }
  }
  return out
}
