// runManager in-process against the test API server: the write guard at the moment the Lease is
// lost (a sync in flight must not write again), the metric definitions as kube-controller-manager
// exposes them, the probes, and the bind-address and flag checks.

import {EventEmitter} from 'node:events'
import {afterEach, describe, expect, it} from 'vitest'
import {controllerProcessOptions} from '../../src/cli/controller-flags.js'
import {connect} from '../../src/cluster/live/kubeconfig.js'
import {
  ControllerMetrics,
  REST_LATENCY_BUCKETS,
  WORKQUEUE_BUCKETS,
} from '../../src/cluster/live/metrics/index.js'
import {clientRateLimiter, TokenBucket} from '../../src/cluster/live/ratelimit/token-bucket.js'
import {clientHooks, NotLeaderError} from '../../src/cluster/live/request-hooks.js'
import {realClock} from '../../src/cluster/live/workqueue/clock.js'
import {WorkQueue} from '../../src/cluster/live/workqueue/queue.js'
import {defaultControllerRateLimiter} from '../../src/cluster/live/workqueue/rate-limiter.js'
import {createLogger} from '../../src/run/log.js'
import {type ManagerOptions, runManager} from '../../src/run/manager.js'
import {parseBindAddress} from '../../src/run/serve.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {VirtualClock} from './helpers/virtual-clock.js'

const servers: ApiServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function eventually<T>(probe: () => T | undefined | false, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = probe()
    if (v !== undefined && v !== false) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

async function eventuallyAsync<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await probe()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

function deployment(name: string, image: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name, namespace: 'default'},
    spec: {
      replicas: 2,
      selector: {matchLabels: {app: name}},
      template: {metadata: {labels: {app: name}}, spec: {containers: [{name: 'c', image}]}},
    },
  }
}

async function request(
  server: ApiServer,
  method: string,
  path: string,
  body?: unknown,
  type = 'application/json',
) {
  const res = await fetch(server.url + path, {
    method,
    headers: {Authorization: `Bearer ${server.token}`, 'Content-Type': type},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
}

/** runManager in this process with leader election (lease 4s, renew 3s, retry 1s); its log as JSON. */
async function startManager(server: ApiServer, overrides: Partial<ManagerOptions> = {}) {
  const conn = await connect({kubeconfig: server.kubeconfigPath})
  const lines: Record<string, unknown>[] = []
  const exits: number[] = []
  const signals = new EventEmitter()
  const identity = 'test-host_1'
  const done = runManager({
    conn,
    loop: {
      namespace: undefined,
      workers: 2,
      serverDryRun: false,
      gates: {values: {}} as never,
      verbosity: 2,
      onceSynced: false,
      resyncMs: 0,
    },
    logger: createLogger({format: 'json', verbosity: 2, write: (l) => lines.push(JSON.parse(l))}),
    leaderElection: {
      leaseDurationMs: 4000,
      renewDeadlineMs: 3000,
      retryPeriodMs: 1000,
      resourceName: 'kubectl-deployctl',
      resourceNamespace: 'kube-system',
      identity,
    },
    qps: 20,
    burst: 30,
    userAgent: 'kubectl-deployctl/test (test)',
    force: true,
    signals: signals as unknown as ManagerOptions['signals'],
    exit: (code) => exits.push(code),
    ...overrides,
  })
  return {done, lines, exits, identity, stop: () => signals.emit('SIGTERM')}
}

describe('runManager with leader election', () => {
  it('a sync in flight when the Lease is lost sends no further write; the process exits 1', async () => {
    const server = await startApiServer({simulate: {podReadyAfterMs: 100, terminateAfterMs: 100}})
    servers.push(server)
    const {done, lines, exits, identity} = await startManager(server)
    await eventually(() => lines.some((l) => l.msg === 'leading: starting 2 workers'), 'leadership')
    await request(
      server,
      'POST',
      '/apis/apps/v1/namespaces/default/deployments',
      deployment('web', 'nginx:1'),
    )
    await eventually(() => server.store.list('replicasets', 'default').length === 1, 'the first ReplicaSet')

    // The next ReplicaSet create takes 6 s at the server; meanwhile every Lease update fails.
    server.faults.delay(6000, {verb: 'create', resource: 'replicasets'})
    await request(
      server,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web',
      {spec: {template: {spec: {containers: [{name: 'c', image: 'nginx:2'}]}}}},
      'application/merge-patch+json',
    )
    await eventually(
      () =>
        server.requests.some(
          (q) => q.method === 'POST' && q.resource === 'replicasets' && q.status === undefined,
        ),
      'the ReplicaSet create in flight',
    )
    server.faults.add({verb: 'update', resource: 'leases', status: 500, times: Number.POSITIVE_INFINITY})
    const code = await done
    expect(code).toBe(1)
    expect(exits).toEqual([1])
    const lostAt = Number(lines.find((l) => l.msg === 'Failed to renew lease')?.ts)
    expect(lostAt).toBeGreaterThan(0)
    // The create sent before the loss landed; nothing was sent by the controller after it.
    const controller = server.requests.filter((q) =>
      q.userAgent?.includes(` deployment-controller ${identity}`),
    )
    const late = controller.filter((q) => q.method !== 'GET' && q.time > lostAt)
    expect(late.map((q) => `${q.method} ${q.path}`)).toEqual([])
    const refused = lines.filter((l) => String(l.msg).includes('refused: this replica is not the leader'))
    expect(refused.length, JSON.stringify(lines.slice(-8))).toBeGreaterThan(0)
  }, 40_000)
})

describe('/readyz and leader election (issue 28)', () => {
  it('is not ready, and says why, while the Lease requests keep being refused for authorization', async () => {
    const server = await startApiServer({})
    servers.push(server)
    const refused = server.faults.fail({resource: 'leases'}, 403, {times: Number.POSITIVE_INFINITY})
    let probes = ''
    const m = await startManager(server, {
      probesBind: {host: '127.0.0.1', port: 0},
      leaderReadyToleranceMs: 1500,
      onStarted: ({servers: s}) => {
        probes = s[0]?.address ?? ''
      },
    })
    const readyz = async () => {
      const res = await fetch(`http://${probes}/readyz`)
      return {status: res.status, body: await res.text()}
    }
    await eventually(() => probes !== '', 'the probes to listen')
    // Refused for longer than the tolerance: not ready, with the reason, and healthz stays ok.
    const r = await eventuallyAsync(async () => {
      const x = await readyz()
      // Under load the caches may still be syncing: wait for the state this test is about.
      const about = x.body.includes('[+]informer-sync ok') && x.body.includes('[-]leaderElection failed')
      return x.status === 500 && about ? x : undefined
    }, 'readyz to fail for leader election alone')
    expect(r.body).toMatch(
      /^\[\+\]ping ok\n\[\+\]informer-sync ok\n\[-\]leaderElection failed: the API server has refused this replica's requests for the Lease kube-system\/kubectl-deployctl for \ds \(403 Forbidden\): check its RBAC for leases\nreadyz check failed\n$/,
    )
    expect((await fetch(`http://${probes}/healthz`)).status).toBe(200)
    refused.remove()
    await eventuallyAsync(async () => (await readyz()).status === 200 || undefined, 'ready again')
    m.stop()
    expect(await m.done).toBe(0)
  }, 40_000)
})

describe('client hooks', () => {
  it('refuse a write when this replica may not write, before and after waiting for a token', async () => {
    let may = true
    const limiter = {
      wait: async () => {
        may = false // leadership lost while the request waited for its token
        return 5
      },
    }
    const hooks = clientHooks({mayWrite: () => may, limiter})
    const url = new URL('http://h:1/apis/apps/v1/namespaces/d/replicasets')
    await expect(hooks.before?.('POST', url)).rejects.toBeInstanceOf(NotLeaderError)
    may = false
    await expect(hooks.before?.('GET', url)).resolves.toBeUndefined()
  })

  it('a guard that closes while the credentials are applied still stops the write as it leaves', async () => {
    const server = await startApiServer()
    servers.push(server)
    const conn = await connect({kubeconfig: server.kubeconfigPath})
    let may = true
    const apply = conn.kc.applyToHTTPSOptions.bind(conn.kc)
    conn.kc.applyToHTTPSOptions = async (opts) => {
      await apply(opts)
      may = false // the renewal's 404 arrives while a token is read or an exec plugin runs
    }
    const {ApiClient} = await import('../../src/cluster/live/api.js')
    const api = new ApiClient(conn, undefined, undefined, {hooks: clientHooks({mayWrite: () => may})})
    const write = api.request({
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      body: {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'x'}},
    })
    await expect(write).rejects.toBeInstanceOf(NotLeaderError)
    expect(server.requests.filter((q) => q.method === 'POST')).toEqual([])
  })

  it('token bucket (rate.Limiter): burst at once, then one per 1/qps, debts add up', async () => {
    const clock = new VirtualClock()
    const b = new TokenBucket(20, 30, clock)
    const waits: number[] = []
    for (let i = 0; i < 32; i++) waits.push(b.reserve())
    expect(waits.slice(0, 30)).toEqual(Array(30).fill(0))
    expect(waits[30]).toBeCloseTo(50)
    expect(waits[31]).toBeCloseTo(100)
    await clock.advance(1000)
    expect(b.reserve()).toBeCloseTo(0)
    expect(clientRateLimiter(-1, 0)).toBeUndefined()
    expect(clientRateLimiter(0, 0)?.qps).toBe(5)
  })

  it('an aborted wait gives its token back', async () => {
    const clock = new VirtualClock()
    const b = new TokenBucket(1, 1, clock)
    expect(await b.wait()).toBe(0)
    const abort = new AbortController()
    const waiting = b.wait(abort.signal)
    abort.abort()
    await expect(waiting).rejects.toBeDefined()
    expect(b.reserve()).toBeCloseTo(1000)
  })
})

describe('metrics (component-base names, help, buckets)', () => {
  it('exposes the workqueue series with upstream help and buckets, and counts as client-go does', async () => {
    const m = new ControllerMetrics({processMetrics: false})
    const clock = new VirtualClock()
    const q = new WorkQueue<string>(clock, defaultControllerRateLimiter(clock), m.queue('deployment', clock))
    q.add('a')
    q.add('a') // already queued: not an add upstream either
    q.add('b')
    await clock.advance(2)
    const item = await q.get()
    await clock.advance(3)
    q.done(item as string)
    q.addRateLimited('c')
    q.addAfter('d', 1000)
    const text = (await m.expose()).body
    expect(text).toContain('# HELP workqueue_adds_total [BETA] Total number of adds handled by workqueue')
    expect(text).toContain('workqueue_adds_total{name="deployment"} 2')
    expect(text).toContain('workqueue_depth{name="deployment"} 1')
    expect(text).toContain('workqueue_retries_total{name="deployment"} 2')
    expect(text).toContain('workqueue_queue_duration_seconds_bucket{le="0.01",name="deployment"} 1')
    expect(text).toContain('workqueue_work_duration_seconds_sum{name="deployment"} 0.003')
    // ExponentialBuckets(10e-9, 10, 10) multiplies as Go does, float artefacts included:
    // kube-controller-manager exposes le="9.999999999999999e-06" too.
    expect(WORKQUEUE_BUCKETS).toEqual([
      1e-8, 1e-7, 1e-6, 9.999999999999999e-6, 9.999999999999999e-5, 0.001, 0.01, 0.1, 1, 10,
    ])
    expect(REST_LATENCY_BUCKETS).toHaveLength(12)
    expect(text).toContain(
      '# HELP leader_election_master_status [ALPHA] Gauge of if the reporting system is master of the relevant lease',
    )
  })

  it('unfinished work and the longest running processor are computed when scraped', async () => {
    const m = new ControllerMetrics({processMetrics: false})
    const clock = new VirtualClock()
    const q = new WorkQueue<string>(clock, defaultControllerRateLimiter(clock), m.queue('deployment', clock))
    q.add('a')
    q.add('b')
    await q.get()
    await clock.advance(1000)
    await q.get()
    await clock.advance(500)
    const text = (await m.expose()).body
    expect(text).toContain('workqueue_unfinished_work_seconds{name="deployment"} 2')
    expect(text).toContain('workqueue_longest_running_processor_seconds{name="deployment"} 1.5')
  })

  it('rest_client series carry code, method and host', async () => {
    const m = new ControllerMetrics({processMetrics: false})
    const hooks = clientHooks({observer: m, limiter: new TokenBucket(1000, 10, realClock)})
    const url = new URL('https://10.0.0.1:6443/api/v1/pods')
    await hooks.before?.('GET', url)
    hooks.after?.('GET', url, '200', 0.01)
    hooks.after?.('GET', url, '<error>', 0.5)
    const text = (await m.expose()).body
    expect(text).toContain('rest_client_requests_total{code="200",method="GET",host="10.0.0.1:6443"} 1')
    expect(text).toContain('rest_client_requests_total{code="<error>",method="GET",host="10.0.0.1:6443"} 1')
    expect(text).toContain('rest_client_request_duration_seconds_count{verb="GET",host="10.0.0.1:6443"} 2')
    expect(text).toContain(
      'rest_client_rate_limiter_duration_seconds_count{verb="GET",host="10.0.0.1:6443"} 1',
    )
  })
})

describe('flags', () => {
  const base = {
    'leader-elect': true,
    'leader-elect-lease-duration': '15s',
    'leader-elect-renew-deadline': '10s',
    'leader-elect-retry-period': '2s',
    'leader-elect-resource-name': 'kubectl-deployctl',
    'metrics-bind-address': '0',
    'health-probe-bind-address': ':8081',
    'kube-api-qps': '20',
    'kube-api-burst': 30,
    'log-format': 'text',
  }

  it('complete kube-controller-manager defaults', async () => {
    const o = await controllerProcessOptions(base)
    expect(o.leaderElection).toEqual({
      leaseDurationMs: 15000,
      renewDeadlineMs: 10000,
      retryPeriodMs: 2000,
      resourceName: 'kubectl-deployctl',
      resourceNamespace: undefined,
    })
    expect([o.qps, o.burst]).toEqual([20, 30])
  })

  it.each([
    [{'leader-elect-renew-deadline': '15s'}, 'leaseDuration must be greater than renewDeadline'],
    [{'leader-elect-retry-period': '9s'}, 'renewDeadline must be greater than retryPeriod*JitterFactor'],
    [{'leader-elect-lease-duration': '15.5s'}, 'the Lease holds whole seconds'],
    [{'leader-elect-retry-period': 'soon'}, 'invalid --leader-elect-retry-period "soon"'],
    [{'metrics-bind-address': '8080'}, 'invalid --metrics-bind-address "8080": want HOST:PORT'],
    [{'kube-api-qps': 'fast'}, 'invalid --kube-api-qps "fast"'],
  ])('%o is refused: %s', async (flags, message) => {
    await expect(controllerProcessOptions({...base, ...flags})).rejects.toThrow(message)
  })

  it('bind addresses: :PORT, HOST:PORT, [IPv6]:PORT, 0 off', () => {
    expect(parseBindAddress(':8080', 'x')).toEqual({host: '0.0.0.0', port: 8080})
    expect(parseBindAddress('127.0.0.1:0', 'x')).toEqual({host: '127.0.0.1', port: 0})
    expect(parseBindAddress('[::1]:9090', 'x')).toEqual({host: '::1', port: 9090})
    expect(parseBindAddress('0', 'x')).toBeUndefined()
    expect(parseBindAddress('localhost:8080', 'x')).toEqual({host: 'localhost', port: 8080})
  })

  it.each([
    ['999.1.1.1:8080', '999.1.1.1 is not an IPv4 address'],
    ['1.2.3:8080', '1.2.3 is not an IPv4 address'],
    ['[fe80::zz]:8080', 'fe80::zz is not an IPv6 address'],
    ['bad_host:8080', '"bad_host" is neither an IP address nor a host name'],
    ['-x:8080', '"-x" is neither an IP address nor a host name'],
  ])('bind address %s is a usage error: %s (issue 28)', (text, message) => {
    expect(() => parseBindAddress(text, '--metrics-bind-address')).toThrow(
      `invalid --metrics-bind-address "${text}": ${message}`,
    )
  })
})
