// `run` end to end: the built CLI as the Deployment controller of the in-memory test API server,
// whose simulated cluster (a ReplicaSet controller, a scheduler and a kubelet on src/sim's models)
// moves the pods.

import {execFile} from 'node:child_process'
import type {AddressInfo} from 'node:net'
import {createServer} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Deployment, Pod, ReplicaSet} from '../../src/controller/api/types.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {RunProcess, waitFor} from './helpers.js'

/** An image on a `.invalid` registry: the simulated kubelet never pulls it, so its pods never become ready. */
const NEVER_READY = 'registry.example.invalid/app'

/**
 * What `run` sees of the rest of the cluster, the test API server's simulated one (a ReplicaSet
 * controller, a scheduler, a kubelet), observed: the most live pods at once and whether pods of two
 * ReplicaSets of one Deployment ever ran together, per namespace.
 */
class PodWatch {
  private unsubscribe: () => void = () => {}
  /** Most pods alive at once (not terminating), per namespace. */
  readonly peakPods = new Map<string, number>()
  /** Namespaces where pods of two ReplicaSets, terminating ones included, existed at once. */
  readonly mixed = new Set<string>()

  constructor(private readonly server: ApiServer) {}

  start(): void {
    this.unsubscribe = this.server.store.onChange((c) => {
      if (c.def.resource === 'pods') this.observe(c.object.metadata as {namespace?: string})
    })
  }

  stop(): void {
    this.unsubscribe()
  }

  private observe(md: {namespace?: string}): void {
    const ns = md.namespace ?? ''
    const pods = this.server.store.list('pods', ns) as unknown as Pod[]
    const live = pods.filter((p) => p.metadata.deletionTimestamp == null)
    this.peakPods.set(ns, Math.max(this.peakPods.get(ns) ?? 0, live.length))
    const owners = new Set(pods.map((p) => p.metadata.ownerReferences?.[0]?.uid))
    if (owners.size > 1) this.mixed.add(ns)
  }
}

function kubeEnv(server: ApiServer): NodeJS.ProcessEnv {
  return {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
}

/** A request to the test API server as a client would make it (defaulting and validation apply). */
async function api(server: ApiServer, method: string, path: string, body?: unknown, contentType?: string) {
  const res = await fetch(server.url + path, {
    method,
    headers: {
      Authorization: `Bearer ${server.token}`,
      'Content-Type': contentType ?? 'application/json',
      Accept: 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return JSON.parse(text) as Record<string, unknown>
}

async function createNamespace(server: ApiServer, name: string) {
  await api(server, 'POST', '/api/v1/namespaces', {apiVersion: 'v1', kind: 'Namespace', metadata: {name}})
}

function deploymentObject(
  name: string,
  namespace: string,
  image: string,
  spec: Record<string, unknown> = {},
) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name, namespace, labels: {app: name}},
    spec: {
      replicas: 2,
      selector: {matchLabels: {app: name}},
      template: {metadata: {labels: {app: name}}, spec: {containers: [{name: 'app', image}]}},
      ...spec,
    },
  }
}

async function createDeployment(
  server: ApiServer,
  namespace: string,
  name: string,
  image: string,
  spec: Record<string, unknown> = {},
) {
  await api(
    server,
    'POST',
    `/apis/apps/v1/namespaces/${namespace}/deployments`,
    deploymentObject(name, namespace, image, spec),
  )
}

async function patchDeployment(server: ApiServer, namespace: string, name: string, patch: unknown) {
  await api(
    server,
    'PATCH',
    `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`,
    patch,
    'application/strategic-merge-patch+json',
  )
}

const setImage = (image: string) => ({spec: {template: {spec: {containers: [{name: 'app', image}]}}}})

function getDeployment(server: ApiServer, namespace: string, name: string): Deployment {
  return server.store.get('deployments', namespace, name) as unknown as Deployment
}

function replicaSetsOf(server: ApiServer, namespace: string): ReplicaSet[] {
  return server.store.list('replicasets', namespace) as unknown as ReplicaSet[]
}

const imageOf = (rs: ReplicaSet) => rs.spec.template?.spec?.containers?.[0]?.image

/** kubectl rollout status's "successfully rolled out", plus the controller's own verdict. */
function complete(d: Deployment | undefined): boolean {
  if (!d?.status) return false
  const s = d.status
  const want = d.spec.replicas ?? 1
  const progressing = s.conditions?.find((c) => c.type === 'Progressing')
  return (
    (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
    (s.updatedReplicas ?? 0) === want &&
    (s.replicas ?? 0) === want &&
    (s.availableReplicas ?? 0) === want &&
    progressing?.reason === 'NewReplicaSetAvailable'
  )
}

async function waitComplete(server: ApiServer, namespace: string, name: string, timeoutMs = 20_000) {
  return waitFor(
    () => {
      const d = getDeployment(server, namespace, name)
      return complete(d) ? d : undefined
    },
    timeoutMs,
    `deployment ${namespace}/${name} to complete`,
  )
}

const rfc3339Now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z')

/** What kube-controller-manager running its Deployment controller leaves behind. */
function otherControllerSigns() {
  return [
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {name: 'web.1', namespace: 'default'},
      involvedObject: {kind: 'Deployment', namespace: 'default', name: 'web', apiVersion: 'apps/v1'},
      reason: 'ScalingReplicaSet',
      message: 'Scaled up replica set web-5d4f6b7c9 from 0 to 2',
      source: {component: 'deployment-controller'},
      reportingComponent: 'deployment-controller',
      reportingInstance: '',
      type: 'Normal',
      firstTimestamp: rfc3339Now(),
      lastTimestamp: rfc3339Now(),
      count: 1,
    },
    kcmLease(),
  ]
}

function kcmLease() {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {name: 'kube-controller-manager', namespace: 'kube-system'},
    spec: {holderIdentity: 'cp-1_4b0c', leaseDurationSeconds: 15, renewTime: new Date().toISOString()},
  }
}

describe('run as the cluster’s Deployment controller', () => {
  let server: ApiServer
  let model: PodWatch
  let run: RunProcess

  beforeAll(async () => {
    // Signs of another Deployment controller: --force starts anyway (the refusal is tested below).
    server = await startApiServer({
      objects: otherControllerSigns(),
      simulate: {podReadyAfterMs: 300, terminateAfterMs: 200},
    })
    model = new PodWatch(server)
    model.start()
    run = new RunProcess(['-A', '--force', '--v', '4'], kubeEnv(server))
    await run.started()
  }, 40_000)

  afterAll(async () => {
    const result = await run?.stop('SIGTERM')
    model?.stop()
    await server?.close()
    // SIGTERM drains the workers and exits 0.
    expect(result?.stderr).toContain('SIGTERM received')
    expect(result?.stderr).toContain('deployment controller stopped')
    expect(result?.code).toBe(0)
  }, 30_000)

  it('refuses to start without --force while kube-controller-manager holds its Lease', async () => {
    // kube-controller-manager keeps renewing its Lease.
    server.store.put(kcmLease())
    const refused = await new RunProcess(['--once-synced'], kubeEnv(server)).exited
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      /^error: another Deployment controller is active: the Lease kube-system\/kube-controller-manager is held by cp-1_4b0c \(renewed \d+s ago\)/m,
    )
    expect(refused.stderr).not.toContain('ScalingReplicaSet')
    expect(refused.stderr).toContain('pass --force to start anyway')
    expect(refused.stderr).not.toContain('caches synced')
  }, 40_000)

  it('rolls out a RollingUpdate Deployment, then a new image, within maxSurge', async () => {
    await createNamespace(server, 'rolling')
    await createDeployment(server, 'rolling', 'web', 'nginx:1', {replicas: 3})
    await waitComplete(server, 'rolling', 'web')
    expect(replicaSetsOf(server, 'rolling')).toHaveLength(1)
    await patchDeployment(server, 'rolling', 'web', setImage('nginx:2'))
    const d = await waitFor(
      () => {
        const d = getDeployment(server, 'rolling', 'web')
        return complete(d) &&
          replicaSetsOf(server, 'rolling').every((rs) => imageOf(rs) === 'nginx:2' || rs.spec.replicas === 0)
          ? d
          : undefined
      },
      20_000,
      'the new image to roll out',
    )
    const rss = replicaSetsOf(server, 'rolling')
    expect(rss.map((rs) => [imageOf(rs), rs.spec.replicas]).sort()).toEqual([
      ['nginx:1', 0],
      ['nginx:2', 3],
    ])
    expect(d.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2')
    // 25% of 3 rounds up to 1 surge pod: never more than 4 pods.
    expect(model.peakPods.get('rolling')).toBeLessThanOrEqual(4)
    // The Deployment's events are run's (the simulated ReplicaSet controller and kubelet post theirs).
    const events = (
      server.store.list('events', 'rolling') as Array<{
        reason?: string
        reportingInstance?: string
        involvedObject?: {kind?: string}
      }>
    ).filter((e) => e.involvedObject?.kind === 'Deployment')
    expect(events.filter((e) => e.reason === 'ScalingReplicaSet').length).toBeGreaterThanOrEqual(3)
    expect(events.every((e) => e.reportingInstance === 'kubectl-deployctl')).toBe(true)
    expect(run.stderr).toMatch(/synced deployment rolling\/web in \d+ms: ok/)
  }, 60_000)

  it('rolls out a Recreate Deployment: old pods go first, and the last one wakes it', async () => {
    await createNamespace(server, 'recreate')
    await createDeployment(server, 'recreate', 'db', 'postgres:1', {strategy: {type: 'Recreate'}})
    await waitComplete(server, 'recreate', 'db')
    await patchDeployment(server, 'recreate', 'db', setImage('postgres:2'))
    await waitFor(
      () => {
        const d = getDeployment(server, 'recreate', 'db')
        return complete(d) && replicaSetsOf(server, 'recreate').some((rs) => imageOf(rs) === 'postgres:2')
      },
      20_000,
      'the Recreate rollout',
    )
    expect(
      replicaSetsOf(server, 'recreate')
        .map((rs) => [imageOf(rs), rs.spec.replicas])
        .sort(),
    ).toEqual([
      ['postgres:1', 0],
      ['postgres:2', 2],
    ])
    expect(model.mixed.has('recreate')).toBe(false)
    expect(run.stderr).toContain('recreate deployment recreate/db has no pods left')
  }, 60_000)

  it('scales proportionally mid-rollout, and a new template mid-rollout makes a new ReplicaSet', async () => {
    const ns = 'proportional'
    await createNamespace(server, ns)
    await createDeployment(server, ns, 'api', 'app:1', {
      replicas: 4,
      strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: 1, maxUnavailable: 1}},
    })
    await waitComplete(server, ns, 'api')
    // The new pods never become ready: the rollout stops at 3 old + 2 new (4 + 1 surge, 4 - 1 available).
    await patchDeployment(server, ns, 'api', setImage(`${NEVER_READY}:2`))
    const sizes = () =>
      Object.fromEntries(replicaSetsOf(server, ns).map((rs) => [imageOf(rs) ?? '', rs.spec.replicas ?? 0]))
    await waitFor(
      () => {
        const s = sizes()
        return s['app:1'] === 3 && s[`${NEVER_READY}:2`] === 2
      },
      20_000,
      'the rollout to get stuck at 3 + 2',
    )
    // Scaling to 8 (9 with the surge) adds 4 replicas in proportion: 3·9/5 → 5 and 2·9/5 → 4.
    await patchDeployment(server, ns, 'api', {spec: {replicas: 8}})
    await waitFor(
      () => {
        const s = sizes()
        return s['app:1'] === 5 && s[`${NEVER_READY}:2`] === 4
      },
      20_000,
      `proportional scaling to 5 + 4 (now ${JSON.stringify(sizes())})`,
    )
    // A third template before the second finished: a third ReplicaSet takes over from both.
    await patchDeployment(server, ns, 'api', setImage('app:3'))
    await waitFor(
      () => complete(getDeployment(server, ns, 'api')) && sizes()['app:3'] === 8,
      30_000,
      `the third template to roll out (now ${JSON.stringify(sizes())})`,
    )
    expect(sizes()).toEqual({'app:1': 0, [`${NEVER_READY}:2`]: 0, 'app:3': 8})
    expect(getDeployment(server, ns, 'api').metadata.annotations?.['deployment.kubernetes.io/revision']).toBe(
      '3',
    )
  }, 90_000)

  it('reports ProgressDeadlineExceeded when the deadline passes, with nothing else happening', async () => {
    const ns = 'deadline'
    await createNamespace(server, ns)
    const started = Date.now()
    await createDeployment(server, ns, 'stuck', `${NEVER_READY}:1`, {
      replicas: 1,
      progressDeadlineSeconds: 5,
    })
    const d = await waitFor(
      () => {
        const d = getDeployment(server, ns, 'stuck')
        const c = d?.status?.conditions?.find((x) => x.type === 'Progressing')
        return c?.reason === 'ProgressDeadlineExceeded' ? d : undefined
      },
      20_000,
      'ProgressDeadlineExceeded',
    )
    const elapsed = Date.now() - started
    // The condition's times have whole seconds and the requeue comes a second after the deadline.
    expect(elapsed).toBeGreaterThanOrEqual(4000)
    expect(elapsed).toBeLessThan(10_000)
    const c = d.status?.conditions?.find((x) => x.type === 'Progressing')
    expect(c?.status).toBe('False')
    expect(c?.message).toMatch(/has timed out progressing/)
    // requeueStuckDeployment waits for what is left of the deadline plus a second: at most 6s
    // here, less when the sync ran a while after the condition's (whole-second) lastUpdateTime.
    const requeue = run.stderr.match(
      /synced deployment deadline\/stuck in \d+ms: ok \(\d+ writes?, requeue after (\d+(?:\.\d+)?)s/,
    )
    expect(requeue, 'a progress-check requeue in the log').not.toBeNull()
    const seconds = Number(requeue?.[1])
    expect(seconds).toBeGreaterThan(1)
    expect(seconds).toBeLessThanOrEqual(6)
  }, 30_000)

  it('adopts an orphaned ReplicaSet that its selector matches, and scales it down as an old one', async () => {
    const ns = 'orphans'
    await createNamespace(server, ns)
    await createDeployment(server, ns, 'web', 'web:2', {replicas: 1})
    const d = await waitComplete(server, ns, 'web')
    await api(server, 'POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {name: 'web-legacy', namespace: ns, labels: {app: 'web'}},
      spec: {
        replicas: 1,
        selector: {matchLabels: {app: 'web'}},
        template: {metadata: {labels: {app: 'web'}}, spec: {containers: [{name: 'app', image: 'web:1'}]}},
      },
    })
    const adopted = await waitFor(
      () => {
        const rs = server.store.get('replicasets', ns, 'web-legacy') as unknown as ReplicaSet | undefined
        return rs?.metadata.ownerReferences?.some((r) => r.controller && r.uid === d.metadata.uid) &&
          rs.spec.replicas === 0
          ? rs
          : undefined
      },
      20_000,
      'the orphan to be adopted and scaled down',
    )
    expect(adopted.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Deployment',
      name: 'web',
      controller: true,
    })
    await waitComplete(server, ns, 'web')
  }, 40_000)

  it('keeps controlling after its watches drop and after their history expires', async () => {
    const ns = 'reconnect'
    await createNamespace(server, ns)
    expect(server.faults.dropWatches()).toBe(3)
    await createDeployment(server, ns, 'one', 'one:1', {replicas: 1})
    await waitComplete(server, ns, 'one')
    server.faults.dropWatches(undefined, {graceful: true})
    server.store.compact()
    await createDeployment(server, ns, 'two', 'two:1', {replicas: 1})
    await waitComplete(server, ns, 'two')
    expect(run.stderr).toMatch(/too old; listing again/)
  }, 40_000)

  it('retries a sync that met a 409 Conflict, with back-off, and finishes the rollout', async () => {
    const ns = 'conflict'
    await createNamespace(server, ns)
    const fault = server.faults.fail(
      {verb: 'update', resource: 'deployments', subresource: 'status', namespace: ns},
      409,
    )
    await createDeployment(server, ns, 'web', 'web:1', {replicas: 2})
    await waitComplete(server, ns, 'web')
    expect(fault.hits).toBe(1)
    expect(run.stderr).toMatch(
      /error syncing deployment conflict\/web: .*(modified|Conflict|conflict).*; retry 1 in 5ms/,
    )
  }, 40_000)
})

describe('run --once-synced', () => {
  let server: ApiServer

  afterAll(async () => {
    await server?.close()
  })

  it('syncs everything once (after a server-side dry run that stores nothing), retries a conflict, and exits 0', async () => {
    server = await startApiServer({})
    await createNamespace(server, 'apps')
    await createDeployment(server, 'apps', 'a', 'a:1')
    await createDeployment(server, 'apps', 'b', 'b:1', {replicas: 0})
    const env = kubeEnv(server)
    // --dry-run=server: every write is sent with dryRun=All and nothing is stored.
    server.requests.length = 0
    const dry = await new RunProcess(['-n', 'apps', '--once-synced', '--dry-run=server'], env).exited
    expect(dry.code).toBe(0)
    const dryWrites = server.requests.filter((r) => r.method !== 'GET')
    expect(dryWrites.length).toBeGreaterThan(0)
    expect(dryWrites.every((r) => r.query.dryRun === 'All')).toBe(true)
    expect(replicaSetsOf(server, 'apps')).toEqual([])
    server.requests.length = 0
    // The conflict is for the real run (set before the dry run, the dry run's status write took it).
    const fault = server.faults.fail({verb: 'update', resource: 'deployments', subresource: 'status'}, 409)
    const first = await new RunProcess(['-n', 'apps', '--once-synced', '--v', '2'], env).exited
    expect(first.stderr).toContain('once-synced: 2 deployments synced, 0 failed')
    expect(first.code).toBe(0)
    expect(fault.hits).toBe(1)
    expect(first.stderr).toMatch(/error syncing deployment apps\/\w: .*; retry 1 in 5ms/)
    const names = replicaSetsOf(server, 'apps')
      .map((rs) => rs.metadata.ownerReferences?.[0]?.name)
      .sort()
    expect(names).toEqual(['a', 'b'])
    expect(getDeployment(server, 'apps', 'a').status?.observedGeneration).toBe(1)
  }, 60_000)

  it('--dry-run=client sends no write: the objects stay as they were and each write it would have sent is logged (issue 25)', async () => {
    server = await startApiServer({})
    await createNamespace(server, 'apps')
    await createDeployment(server, 'apps', 'web', 'web:1', {replicas: 3})
    const env = kubeEnv(server)
    const stored = () =>
      JSON.stringify(
        ['deployments', 'replicasets', 'pods', 'events'].map((r) => server.store.list(r, 'apps')),
      )
    const before = stored()
    server.requests.length = 0
    const dry = await new RunProcess(['-n', 'apps', '--once-synced', '--dry-run=client'], env).exited
    expect(dry.code).toBe(0)
    expect(server.requests.filter((r) => r.method !== 'GET')).toEqual([])
    expect(stored()).toBe(before)
    expect(dry.stderr).toContain('(client dry run: nothing is sent)')
    expect(dry.stderr).toMatch(
      /dry run: would create replicasets apps\/web-[a-z0-9]+: created \(replicas 3, revision 1\) \(not sent\)/,
    )
    expect(dry.stderr).toMatch(/dry run: would update deployments\/status apps\/web: .*(not sent)/)
    expect(dry.stderr).toMatch(
      /dry run: would record event Normal ScalingReplicaSet on deployment apps\/web: Scaled up replica set web-[a-z0-9]+ from 0 to 3 \(not sent\)/,
    )
    expect(dry.stderr).toContain('once-synced: 1 deployment synced, 0 failed')
    // A client dry run takes no Lease either: that is a write.
    const le = await new RunProcess(['-n', 'apps', '--dry-run=client', '--leader-elect'], env).exited
    expect(le.code).toBe(2)
    expect(le.stderr).toBe(
      'error: --leader-elect cannot be used with --dry-run=client (the Lease is a write)\n',
    )
  }, 60_000)

  it('--dry-run=client meets a taken ReplicaSet name as the real run does: AlreadyExists and a collisionCount bump (issue 30)', async () => {
    server = await startApiServer({})
    await createNamespace(server, 'apps')
    await createDeployment(server, 'apps', 'web', 'web:1')
    await createDeployment(server, 'apps', 'api', 'api:1')
    const env = kubeEnv(server)
    const args = ['-n', 'apps', '--once-synced', '--dry-run=client']
    const first = await new RunProcess(args, env).exited
    const taken = /would create replicasets apps\/(web-[a-z0-9]+):/.exec(first.stderr)?.[1]
    expect(taken, first.stderr).toBeDefined()
    // Someone else's ReplicaSet has the name web's new ReplicaSet would get: the claim ignores it
    // (not web's, not selected), so only the create meets it.
    await api(server, 'POST', '/apis/apps/v1/namespaces/apps/replicasets', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {name: taken, namespace: 'apps', labels: {app: 'squatter'}},
      spec: {
        replicas: 0,
        selector: {matchLabels: {app: 'squatter'}},
        template: {metadata: {labels: {app: 'squatter'}}, spec: {containers: [{name: 'app', image: 's:1'}]}},
      },
    })
    const before = JSON.stringify(replicaSetsOf(server, 'apps'))
    server.requests.length = 0
    const dry = await new RunProcess([...args, '--v', '2'], env).exited
    expect(server.requests.filter((r) => r.method !== 'GET')).toEqual([])
    expect(JSON.stringify(replicaSetsOf(server, 'apps'))).toBe(before)
    expect(dry.stderr).toContain(`dry run: would create replicasets apps/${taken}: created`)
    expect(dry.stderr).toMatch(
      /dry run: would update deployments\/status apps\/web: .*collisionCount.*\(not sent\)/,
    )
    expect(dry.stderr).toContain(
      `error syncing deployment apps/web: replicasets.apps "${taken}" already exists`,
    )
    // The real run: the same create fails, collisionCount goes to 1, the retry takes another name.
    const real = await new RunProcess(['-n', 'apps', '--once-synced', '--v', '2'], env).exited
    expect(real.stderr).toContain(
      `error syncing deployment apps/web: replicasets.apps "${taken}" already exists`,
    )
    expect(real.code, real.stderr).toBe(0)
    expect(getDeployment(server, 'apps', 'web').status?.collisionCount).toBe(1)
    const web = replicaSetsOf(server, 'apps').filter((rs) => rs.metadata.ownerReferences?.[0]?.name === 'web')
    expect(web.map((rs) => rs.metadata.name)).not.toContain(taken)
    expect(web).toHaveLength(1)
  }, 60_000)

  it('a forged ScalingReplicaSet Event in another namespace does not keep run -A from starting (issue 28)', async () => {
    const forged = otherControllerSigns().filter((o) => o.kind === 'Event')
    const [event] = forged as Array<{metadata: {namespace: string}; involvedObject: {namespace: string}}>
    if (event) {
      event.metadata.namespace = 'tenant'
      event.involvedObject.namespace = 'tenant'
    }
    server = await startApiServer({
      objects: [{apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'tenant'}}, ...forged],
    })
    await createNamespace(server, 'apps')
    await createDeployment(server, 'apps', 'a', 'a:1')
    const r = await new RunProcess(['-A', '--once-synced'], kubeEnv(server)).exited
    expect(r.stderr).not.toContain('another Deployment controller')
    expect(r.code, r.stderr).toBe(0)
    expect(replicaSetsOf(server, 'apps')).toHaveLength(1)
  }, 40_000)

  it('bind addresses: a bad one is a usage error before any request, a listen failure exit 1, both in our words (issue 28)', async () => {
    server = await startApiServer({})
    const bad = await new RunProcess(
      ['--once-synced', '--metrics-bind-address', '999.1.1.1:8080'],
      kubeEnv(server),
    ).exited
    expect(bad.stderr).toBe(
      'error: invalid --metrics-bind-address "999.1.1.1:8080": 999.1.1.1 is not an IPv4 address (four numbers from 0 to 255)\n',
    )
    expect(bad.code).toBe(2)
    expect(server.requests).toHaveLength(0)
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    try {
      const port = (taken.address() as AddressInfo).port
      const [absent, inUse] = await Promise.all([
        new RunProcess(['--once-synced', '--metrics-bind-address', '10.255.255.1:8080'], kubeEnv(server))
          .exited,
        new RunProcess(['--once-synced', '--health-probe-bind-address', `127.0.0.1:${port}`], kubeEnv(server))
          .exited,
      ])
      expect(absent.stderr).toMatch(
        /^error: cannot listen on 10\.255\.255\.1:8080 \(--metrics-bind-address\): the address is not one of this machine's$/m,
      )
      expect(absent.code).toBe(1)
      expect(inUse.stderr).toMatch(
        new RegExp(
          `^error: cannot listen on 127\\.0\\.0\\.1:${port} \\(--health-probe-bind-address\\): the address is already in use$`,
          'm',
        ),
      )
      expect(inUse.code).toBe(1)
      for (const r of [absent, inUse]) expect(r.stderr).not.toMatch(/EADDR|listen E|\n\s+at /)
    } finally {
      taken.close()
    }
  }, 40_000)

  it('exits 1 naming the Deployment whose sync kept failing', async () => {
    server = await startApiServer({})
    await createNamespace(server, 'apps')
    await createDeployment(server, 'apps', 'a', 'a:1')
    server.faults.fail({verb: 'create', resource: 'replicasets'}, 403, {times: Number.POSITIVE_INFINITY})
    const r = await new RunProcess(['-n', 'apps', '--once-synced'], kubeEnv(server)).exited
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/sync of deployment apps\/a failed: .*forbidden/)
    expect(r.stderr).toContain('once-synced: 1 deployment synced, 1 failed')
  }, 40_000)
})

describe('run --metrics-secure (the default): /metrics over HTTPS behind TokenReview and SubjectAccessReview (issue 28)', () => {
  let server: ApiServer
  let run: RunProcess

  afterAll(async () => {
    await run?.stop('SIGTERM')
    await server?.close()
  }, 30_000)

  /** curl as a scraper would call it: -k (the certificate is self-signed), the status and the body. */
  function curl(url: string, token?: string): Promise<{code: string; body: string}> {
    const args = [
      '-sk',
      '-o',
      '-',
      '-w',
      '\n%{http_code}',
      ...(token ? ['-H', `Authorization: Bearer ${token}`] : []),
      url,
    ]
    return new Promise((resolve) => {
      execFile('curl', args, {timeout: 20_000}, (_err, stdout) => {
        const at = stdout.lastIndexOf('\n')
        resolve({body: stdout.slice(0, Math.max(0, at)), code: stdout.slice(at + 1)})
      })
    })
  }

  it('401 without a token, 403 for a token lacking get on /metrics, 200 with it; the probes stay plain HTTP', async () => {
    const scraper = 'system:serviceaccount:monitoring:prometheus'
    server = await startApiServer({
      reviews: {
        tokens: {
          'scraper-token': {username: scraper, groups: ['system:serviceaccounts']},
          'nobody-token': {username: 'nobody', groups: ['system:authenticated']},
        },
        nonResource: [{user: scraper, paths: ['/metrics'], verbs: ['get']}],
      },
    })
    run = new RunProcess(
      [
        '-A',
        '--metrics-bind-address=127.0.0.1:0',
        '--health-probe-bind-address=127.0.0.1:0',
        '--log-format=json',
      ],
      kubeEnv(server),
    )
    await run.started()
    const logged = (msg: string) =>
      run.stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === msg)
    const metrics = logged('Serving metrics')
    expect(metrics).toMatchObject({secure: true, certificate: 'self-signed'})
    const probes = String(logged('Serving health probes')?.address)
    const url = `https://${String(metrics?.address)}/metrics`

    expect(await curl(url)).toEqual({code: '401', body: 'Unauthorized\n'})
    expect(await curl(url, 'not-a-known-token')).toEqual({code: '401', body: 'Unauthorized\n'})
    expect(await curl(url, 'nobody-token')).toEqual({
      code: '403',
      body: 'Authorization denied for user nobody\n',
    })
    const ok = await curl(url, 'scraper-token')
    expect(ok.code).toBe('200')
    expect(ok.body).toMatch(/^workqueue_adds_total\{name="deployment"\} \d+$/m)
    // The answers are cached as controller-runtime's filter caches them: one review of each kind.
    await curl(url, 'scraper-token')
    const reviews = (path: string) =>
      server.requests.filter(
        (q) => q.path === path && (q.body as {spec?: {token?: string; user?: string}})?.spec,
      )
    expect(
      reviews('/apis/authentication.k8s.io/v1/tokenreviews').filter(
        (q) => (q.body as {spec: {token?: string}}).spec.token === 'scraper-token',
      ),
    ).toHaveLength(1)
    const sar = reviews('/apis/authorization.k8s.io/v1/subjectaccessreviews').filter(
      (q) => (q.body as {spec: {user?: string}}).spec.user === scraper,
    )
    expect(sar).toHaveLength(1)
    expect((sar[0]?.body as {spec?: unknown} | undefined)?.spec).toEqual({
      user: scraper,
      groups: ['system:serviceaccounts'],
      nonResourceAttributes: {path: '/metrics', verb: 'get'},
    })
    // Plain HTTP gets no metrics; the probes are plain HTTP for the kubelet.
    expect((await curl(`http://${String(metrics?.address)}/metrics`)).code).not.toBe('200')
    expect(await curl(`http://${probes}/healthz`)).toEqual({code: '200', body: 'ok'})
  }, 60_000)

  it('--metrics-secure with one address for metrics and probes, or --metrics-cert-path without it: usage errors', async () => {
    const same = await new RunProcess(
      [
        '--once-synced',
        '--metrics-bind-address=127.0.0.1:18080',
        '--health-probe-bind-address=127.0.0.1:18080',
      ],
      {KUBECONFIG: '/nonexistent'},
    ).exited
    expect(same.stderr).toMatch(
      /^error: --metrics-bind-address and --health-probe-bind-address name one address, but \/metrics is served over HTTPS/,
    )
    expect(same.code).toBe(2)
    const cert = await new RunProcess(['--metrics-secure=false', '--metrics-cert-path=/tmp'], {
      KUBECONFIG: '/nonexistent',
    }).exited
    expect(cert.stderr).toBe('error: --metrics-cert-path needs --metrics-secure (the default)\n')
    expect(cert.code).toBe(2)
  }, 30_000)
})
