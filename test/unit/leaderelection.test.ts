// Leader election (client-go tools/leaderelection) on virtual time: LeaseLock over an in-memory
// Lease endpoint with optimistic concurrency, the elector's tryAcquireOrRenew / acquire / renew /
// release, the health check, and two candidates racing.

import {afterEach, describe, expect, it} from 'vitest'
import type {ApiClient, RequestSpec} from '../../src/cluster/live/api.js'
import {HealthzAdaptor} from '../../src/cluster/live/leaderelection/healthz.js'
import {
  JITTER_FACTOR,
  type LeaderElectionConfig,
  LeaderElector,
  validateLeaderElectionConfig,
} from '../../src/cluster/live/leaderelection/leaderelection.js'
import {
  type Lease,
  LeaseLock,
  leaseSpecToRecord,
  microTime,
  rawRecord,
  recordToLeaseSpec,
} from '../../src/cluster/live/leaderelection/leaselock.js'
import {StatusError} from '../../src/controller/api/errors.js'
import {settle, VirtualClock} from './helpers/virtual-clock.js'

const NS = 'kube-system'
const NAME = 'kubectl-deployctl'

interface Call {
  method: string
  by: string
  at: number
  holder?: string
  status: number | 'aborted'
}

/** One Lease behind a PUT-with-resourceVersion API, shared by every candidate. */
class LeaseServer {
  lease: Lease | undefined
  private rv = 100
  readonly calls: Call[] = []
  /** Per candidate: requests fail with this status, or hang (0) until aborted. */
  readonly down = new Map<string, number>()
  /** Per candidate: requests of this method hang until aborted or until `unhang` is called. */
  readonly hangs = new Map<string, {method: string; release?: () => void}>()

  constructor(private readonly clock: VirtualClock) {}

  client(identity: string): ApiClient {
    return {request: (spec: RequestSpec) => this.handle(identity, spec)} as unknown as ApiClient
  }

  /** Someone else writes the lease (kubectl, another tool). */
  poke(spec: Lease['spec']): void {
    this.rv++
    this.lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {name: NAME, namespace: NS, resourceVersion: String(this.rv)},
      spec,
    }
  }

  /** Someone deletes the Lease (kubectl delete lease). */
  remove(): void {
    this.lease = undefined
  }

  /** Lets the hung request of a candidate go on. */
  unhang(by: string): void {
    const h = this.hangs.get(by)
    this.hangs.delete(by)
    h?.release?.()
  }

  writes(): Call[] {
    return this.calls.filter((c) => c.method !== 'GET' && c.status === 200)
  }

  private async handle(by: string, spec: RequestSpec): Promise<unknown> {
    const call: Call = {method: spec.method, by, at: this.clock.now(), status: 200}
    this.calls.push(call)
    const hang = this.hangs.get(by)
    if (hang?.method === spec.method) {
      await new Promise<void>((resolve, reject) => {
        hang.release = resolve
        spec.signal?.addEventListener('abort', () => reject(new Error('The operation was aborted')), {
          once: true,
        })
      })
    }
    const down = this.down.get(by)
    if (down === 0) {
      return new Promise((_resolve, reject) => {
        const fail = () => {
          call.status = 'aborted'
          reject(new Error('The operation was aborted'))
        }
        if (spec.signal?.aborted) fail()
        spec.signal?.addEventListener('abort', fail, {once: true})
      })
    }
    if (down !== undefined) {
      call.status = down
      throw new StatusError(down === 403 ? 'Forbidden' : 'InternalError', down, 'injected')
    }
    const body = spec.body as Lease | undefined
    const fail = (code: number, reason: StatusError['reason'], msg: string) => {
      call.status = code
      throw new StatusError(reason, code, msg)
    }
    switch (spec.method) {
      case 'GET':
        if (!this.lease) fail(404, 'NotFound', `leases.coordination.k8s.io "${NAME}" not found`)
        return structuredClone(this.lease)
      case 'POST':
        if (this.lease) fail(409, 'AlreadyExists', `leases.coordination.k8s.io "${NAME}" already exists`)
        break
      case 'PUT':
        if (!this.lease) fail(404, 'NotFound', 'not found')
        if (body?.metadata.resourceVersion !== this.lease?.metadata.resourceVersion)
          fail(409, 'Conflict', 'the object has been modified')
        break
      default:
        fail(405, 'BadRequest', 'method not allowed')
    }
    this.rv++
    call.holder = body?.spec?.holderIdentity ?? ''
    this.lease = {
      ...structuredClone(body as Lease),
      metadata: {...body?.metadata, resourceVersion: String(this.rv)},
    }
    return structuredClone(this.lease)
  }
}

interface Candidate {
  id: string
  elector: LeaderElector
  stop: AbortController
  done: Promise<void>
  events: string[]
  leading: boolean
  stoppedLeading: number
  leaderStatus: number | undefined
  newLeaders: string[]
}

const running: Candidate[] = []

afterEach(async () => {
  for (const c of running.splice(0)) c.stop.abort()
})

function elector(
  server: LeaseServer,
  clock: VirtualClock,
  id: string,
  overrides: Partial<LeaderElectionConfig> = {},
): Candidate {
  const c = {id, events: [], leading: false, stoppedLeading: 0, newLeaders: []} as unknown as Candidate
  const lock = new LeaseLock(server.client(id), NS, NAME, id, undefined, (_lease, message) =>
    c.events.push(message),
  )
  c.elector = new LeaderElector({
    lock,
    leaseDurationMs: 4000,
    renewDeadlineMs: 3000,
    retryPeriodMs: 1000,
    releaseOnCancel: true,
    name: NAME,
    clock,
    random: () => 0.5,
    callbacks: {
      onStartedLeading: (signal) => {
        c.leading = true
        signal.addEventListener('abort', () => {
          c.leading = false
        })
      },
      onStoppedLeading: () => {
        c.stoppedLeading++
      },
      onNewLeader: (leader) => c.newLeaders.push(leader),
    },
    metrics: {
      on: () => {
        c.leaderStatus = 1
      },
      off: () => {
        c.leaderStatus = 0
      },
      slowpathExercised: () => {},
    },
    ...overrides,
  })
  return c
}

function start(c: Candidate): Candidate {
  c.stop = new AbortController()
  c.done = c.elector.run(c.stop.signal)
  running.push(c)
  return c
}

function setup() {
  const clock = new VirtualClock()
  const server = new LeaseServer(clock)
  return {clock, server}
}

describe('LeaderElectionRecord <-> LeaseSpec', () => {
  // upstream: TestLeaseSpecToLeaderElectionRecordRoundTrip
  it('round-trips every field', () => {
    const record = {
      holderIdentity: 'foo',
      leaseDurationSeconds: 10,
      acquireTime: '2026-12-02T10:00:00.123456Z',
      renewTime: '2026-12-02T10:00:05.000000Z',
      leaderTransitions: 3,
      strategy: 'OldestEmulationVersion',
      preferredHolder: 'bar',
    }
    expect(leaseSpecToRecord(recordToLeaseSpec(record))).toEqual(record)
    expect(rawRecord(leaseSpecToRecord(recordToLeaseSpec(record)))).toBe(rawRecord(record))
  })

  it('writes MicroTime with six fractional digits, and only the optional fields that are set', () => {
    expect(microTime(Date.parse('2026-12-02T10:00:00.123Z'))).toBe('2026-12-02T10:00:00.123000Z')
    const spec = recordToLeaseSpec(leaseSpecToRecord({holderIdentity: 'a'}))
    expect(spec).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 0,
      acquireTime: null,
      renewTime: null,
      leaseTransitions: 0,
    })
  })
})

describe('validateLeaderElectionConfig', () => {
  // upstream: TestLeaderElectionConfigValidation (NewLeaderElector's checks and messages)
  it.each([
    [{leaseDurationMs: 15000, renewDeadlineMs: 10000, retryPeriodMs: 2000}, undefined],
    [
      {leaseDurationMs: 10000, renewDeadlineMs: 10000, retryPeriodMs: 2000},
      'leaseDuration must be greater than renewDeadline',
    ],
    [
      {leaseDurationMs: 15000, renewDeadlineMs: 2400, retryPeriodMs: 2000},
      'renewDeadline must be greater than retryPeriod*JitterFactor',
    ],
    [{leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 1000}, undefined],
    [
      {leaseDurationMs: 15000, renewDeadlineMs: 10000, retryPeriodMs: 0},
      'retryPeriod must be greater than zero',
    ],
  ])('%o -> %s', (config, want) => {
    expect(validateLeaderElectionConfig(config)).toBe(want)
  })
})

describe('tryAcquireOrRenew (upstream: TestTryAcquireOrRenewLeases)', () => {
  it('acquire from no object: creates the Lease, holder us, no transition', async () => {
    const {clock, server} = setup()
    const c = start(elector(server, clock, 'baz'))
    await settle()
    // As upstream, renew() tries at once after acquiring (UntilWithContext, immediate poll): the fast path.
    expect(server.calls.map((x) => `${x.method} ${x.status}`)).toEqual(['GET 404', 'POST 200', 'PUT 200'])
    expect(server.lease?.spec).toMatchObject({
      holderIdentity: 'baz',
      leaseDurationSeconds: 4,
      leaseTransitions: 0,
    })
    expect(server.lease?.spec?.acquireTime).toBe(microTime(clock.now()))
    expect(c.leading).toBe(true)
    expect(c.leaderStatus).toBe(1)
    expect(c.events).toEqual(['baz became leader'])
    expect(c.newLeaders).toEqual(['baz'])
  })

  it('acquire from object without a spec, and from an unled object: a transition is counted', async () => {
    for (const spec of [undefined, {holderIdentity: ''}]) {
      const {clock, server} = setup()
      server.poke(spec)
      const c = start(elector(server, clock, 'baz'))
      await settle()
      expect(server.lease?.spec).toMatchObject({holderIdentity: 'baz', leaseTransitions: 1})
      expect(c.leading).toBe(true)
      c.stop.abort()
    }
  })

  it("don't acquire from a led, acked object; acquire once it has not changed for its lease duration", async () => {
    const {clock, server} = setup()
    server.poke({holderIdentity: 'bing', leaseDurationSeconds: 3, leaseTransitions: 2})
    const c = start(elector(server, clock, 'baz'))
    await settle()
    expect(c.leading).toBe(false)
    expect(server.writes()).toEqual([])
    expect(c.newLeaders).toEqual(['bing'])
    // The record's own lease duration (3 s) counts, from when we first saw it, by our clock.
    const took = await clock.advanceUntil(() => c.leading, 20_000)
    expect(took).toBeGreaterThanOrEqual(3000)
    expect(took).toBeLessThanOrEqual(3000 + 1000 * (1 + JITTER_FACTOR))
    expect(server.lease?.spec).toMatchObject({holderIdentity: 'baz', leaseTransitions: 3})
  })

  it('never judges expiry by the holder renewTime: a holder whose clock is an hour behind keeps the lease', async () => {
    const {clock, server} = setup()
    const skewed = (t: number) => microTime(t - 3_600_000)
    server.poke({holderIdentity: 'bing', leaseDurationSeconds: 4, renewTime: skewed(clock.now())})
    const c = start(elector(server, clock, 'baz'))
    for (let i = 0; i < 30; i++) {
      await clock.advance(1000)
      // bing renews every second, with its own (wrong) clock.
      server.poke({holderIdentity: 'bing', leaseDurationSeconds: 4, renewTime: skewed(clock.now())})
    }
    expect(c.leading).toBe(false)
    expect(server.lease?.spec?.holderIdentity).toBe('bing')
  })

  it('a holder whose clock is ahead but that stopped renewing is taken over after the lease duration', async () => {
    const {clock, server} = setup()
    server.poke({
      holderIdentity: 'bing',
      leaseDurationSeconds: 4,
      renewTime: microTime(clock.now() + 3_600_000),
    })
    const c = start(elector(server, clock, 'baz'))
    const took = await clock.advanceUntil(() => c.leading, 20_000)
    expect(took).toBeGreaterThanOrEqual(4000)
    expect(took).toBeLessThanOrEqual(4000 + 1000 * (1 + JITTER_FACTOR))
  })

  it('renew already acquired object: renewTime moves, acquireTime and transitions stay (fast path: PUT only)', async () => {
    const {clock, server} = setup()
    server.poke({holderIdentity: 'old', leaseTransitions: 4})
    const c = start(elector(server, clock, 'baz'))
    await settle()
    const acquired = server.lease?.spec?.acquireTime
    expect(server.lease?.spec?.leaseTransitions).toBe(5)
    const before = server.calls.length
    await clock.advance(1000)
    expect(server.calls.slice(before).map((x) => x.method)).toEqual(['PUT'])
    await clock.advance(5000)
    expect(server.lease?.spec).toMatchObject({
      holderIdentity: 'baz',
      leaseTransitions: 5,
      acquireTime: acquired,
    })
    expect(server.lease?.spec?.renewTime).toBe(microTime(clock.now()))
    expect(c.leading).toBe(true)
  })
})

describe('fast path (upstream: TestFastPathLeaderElection)', () => {
  it('falls back to the slow path (GET, then PUT) when the optimistic update conflicts', async () => {
    const {clock, server} = setup()
    const c = start(elector(server, clock, 'baz'))
    await settle()
    // Someone touches the lease (a label, say): our cached resourceVersion is stale.
    const spec = server.lease?.spec
    server.poke(spec)
    const before = server.calls.length
    await clock.advance(1000)
    expect(server.calls.slice(before).map((x) => `${x.method} ${x.status}`)).toEqual([
      'PUT 409',
      'GET 200',
      'PUT 200',
    ])
    expect(c.leading).toBe(true)
  })
})

describe('renew deadline', () => {
  it('renewal failing for RenewDeadline ends leadership: callbacks, metric off, no writes after', async () => {
    const {clock, server} = setup()
    const c = start(elector(server, clock, 'baz'))
    await settle()
    expect(c.elector.mayWrite()).toBe(true)
    server.down.set('baz', 500)
    const lostAt = clock.now()
    await clock.advanceUntil(() => !c.leading, 10_000)
    // The poll starts a retry period after the last renewal and gives up after the renew deadline.
    expect(clock.now() - lostAt).toBeLessThanOrEqual(1000 + 3000 + 10)
    expect(c.elector.mayWrite()).toBe(false)
    expect(c.leaderStatus).toBe(0)
    await c.done
    expect(c.stoppedLeading).toBe(1)
    expect(c.events).toEqual(['baz became leader', 'baz stopped leading'])
    const after = server.calls.length
    await clock.advance(30_000)
    expect(server.calls.length).toBe(after)
  })

  it('a renewal that hangs is aborted at the deadline', async () => {
    const {clock, server} = setup()
    const c = start(elector(server, clock, 'baz'))
    await settle()
    server.down.set('baz', 0)
    await clock.advanceUntil(() => !c.leading, 10_000)
    expect(server.calls.filter((x) => x.status === 'aborted').length).toBeGreaterThan(0)
    // release() then gives up too, at its own deadline.
    await clock.advance(5000)
    await c.done
    expect(c.stoppedLeading).toBe(1)
  })

  it('a process paused past its lease may not write when it resumes, before the renew loop notices', async () => {
    const {clock, server} = setup()
    const c = start(elector(server, clock, 'baz'))
    await settle()
    expect(c.elector.mayWrite()).toBe(true)
    clock.jump(4000)
    expect(c.elector.isLeader()).toBe(true)
    expect(c.elector.mayWrite()).toBe(false)
  })
})

describe('the write guard: a Lease deleted or taken under the leader (issue 28)', () => {
  const posts = (server: LeaseServer, by: string) =>
    server.calls.filter((c) => c.by === by && c.method === 'POST').length

  it('a renewal answered 404 closes the guard before the elector does anything else; recreating the Lease reopens it', async () => {
    const {clock, server} = setup()
    const a = start(elector(server, clock, 'a'))
    await settle()
    expect(a.elector.mayWrite()).toBe(true)
    server.remove()
    server.hangs.set('a', {method: 'POST'})
    // a's next renewal: PUT 404, GET 404, then the POST that recreates the Lease hangs.
    await clock.advanceUntil(() => posts(server, 'a') === 2, 2000)
    expect(
      server.calls
        .filter((c) => c.by === 'a')
        .map((c) => `${c.method} ${c.status}`)
        .slice(-3),
    ).toEqual(['PUT 404', 'GET 404', 'POST 200'])
    expect(a.elector.mayWrite()).toBe(false)
    expect(a.leading).toBe(true)
    server.unhang('a')
    await settle()
    expect(server.lease?.spec?.holderIdentity).toBe('a')
    expect(a.elector.mayWrite()).toBe(true)
  })

  it('a renewal answered 409 closes the guard until the re-read Lease is renewed', async () => {
    const {clock, server} = setup()
    const a = start(elector(server, clock, 'a'))
    await settle()
    server.poke(server.lease?.spec)
    server.hangs.set('a', {method: 'GET'})
    await clock.advanceUntil(() => server.calls.at(-1)?.method === 'GET', 2000)
    expect(server.calls.at(-2)).toMatchObject({method: 'PUT', status: 409})
    expect(a.elector.mayWrite()).toBe(false)
    server.unhang('a')
    await settle()
    expect(server.calls.at(-1)).toMatchObject({method: 'PUT', status: 200})
    expect(a.elector.mayWrite()).toBe(true)
  })

  it('a Lease another holder took ends leadership at the renewal that sees it, not at the renew deadline', async () => {
    const {clock, server} = setup()
    const a = start(elector(server, clock, 'a'))
    await settle()
    server.poke({holderIdentity: 'x', leaseDurationSeconds: 4, leaseTransitions: 1})
    const took = await clock.advanceUntil(() => !a.leading, 10_000)
    expect(took).toBeLessThanOrEqual(1000 + 10)
    expect(a.elector.mayWrite()).toBe(false)
    await a.done
    expect(a.stoppedLeading).toBe(1)
    expect(server.lease?.spec?.holderIdentity).toBe('x')
  })

  it('deleted at any moment of the renew cycle: the standby never holds the Lease while the old leader may write', async () => {
    for (let offset = 0; offset < 3200; offset += 200) {
      const {clock, server} = setup()
      const a = start(elector(server, clock, 'a'))
      await settle()
      const b = start(elector(server, clock, 'b'))
      await clock.advance(3000 + offset)
      server.remove()
      for (let t = 0; t < 6000; t += 10) {
        await clock.advance(10)
        const overlap = server.lease?.spec?.holderIdentity === 'b' && a.elector.mayWrite()
        expect(overlap, `deleted ${offset} ms into the cycle, ${t} ms later`).toBe(false)
        expect(a.elector.mayWrite() && b.elector.mayWrite()).toBe(false)
      }
      // a was alive and renewing: it recreated the Lease and still leads.
      expect(server.lease?.spec?.holderIdentity).toBe('a')
      a.stop.abort()
      b.stop.abort()
    }
  })

  it('a candidate that lost the create race and never read the Lease still waits out a lease when it is deleted', async () => {
    // Both start on an empty server: a's POST wins, b's is answered AlreadyExists, so b has seen
    // no holder. The Lease is then deleted before b reads it; b must not take a Lease that a,
    // still alive, recreates and writes under.
    for (let offset = 0; offset < 1600; offset += 100) {
      const {clock, server} = setup()
      const a = start(elector(server, clock, 'a'))
      const b = start(elector(server, clock, 'b'))
      await settle()
      expect(server.calls.filter((c) => c.by === 'b' && c.method === 'POST').map((c) => c.status)).toEqual([
        409,
      ])
      await clock.advance(offset)
      server.remove()
      for (let t = 0; t < 6000; t += 10) {
        await clock.advance(10)
        const overlap = server.lease?.spec?.holderIdentity === 'b' && a.elector.mayWrite()
        expect(overlap, `deleted ${offset} ms after the race, ${t} ms later`).toBe(false)
        expect(a.elector.mayWrite() && b.elector.mayWrite()).toBe(false)
      }
      expect(server.lease?.spec?.holderIdentity).toBe('a')
      a.stop.abort()
      b.stop.abort()
    }
  })

  it('a deleted Lease whose leader has stopped answering is taken over once the lease the standby last saw has run out', async () => {
    const {clock, server} = setup()
    const a = start(elector(server, clock, 'a'))
    await settle()
    const b = start(elector(server, clock, 'b'))
    await clock.advance(3000)
    server.down.set('a', 0)
    server.remove()
    const removedAt = clock.now()
    let overlap = false
    await clock.advanceUntil(() => {
      overlap ||= server.lease?.spec?.holderIdentity === 'b' && a.elector.mayWrite()
      return b.leading
    }, 20_000)
    expect(overlap).toBe(false)
    // b last saw a's record change at most one poll (1.6 s) before the deletion; it waits out 4 s from then.
    expect(clock.now() - removedAt).toBeGreaterThanOrEqual(4000 - 1600)
    expect(clock.now() - removedAt).toBeLessThanOrEqual(4000 + 1600 + 10)
  })
})

describe('release (upstream: TestReleaseLeaseLeases, TestReleaseOnCancellation_Leases)', () => {
  it('on cancel the holder is cleared with lease duration 1 s and the transitions kept; a standby takes over at its next try', async () => {
    const {clock, server} = setup()
    const a = start(elector(server, clock, 'a'))
    await settle()
    const b = start(elector(server, clock, 'b'))
    await clock.advance(3000)
    expect(a.leading).toBe(true)
    expect(b.leading).toBe(false)
    a.stop.abort()
    await a.done
    expect(server.lease?.spec).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      leaseTransitions: 0,
    })
    expect(a.stoppedLeading).toBe(1)
    const took = await clock.advanceUntil(() => b.leading, 10_000)
    expect(took).toBeLessThanOrEqual(1000 * (1 + JITTER_FACTOR))
    expect(server.lease?.spec).toMatchObject({holderIdentity: 'b', leaseTransitions: 1})
  })

  it('retries on conflict (upstream: TestReleaseRetriesOnConflict)', async () => {
    const {clock, server} = setup()
    const a = start(elector(server, clock, 'a'))
    await settle()
    const real = server.client('a').request
    let conflicts = 1
    ;(a.elector.config.lock as unknown as {api: {request: typeof real}}).api.request = async (spec) => {
      if (spec.method === 'PUT' && conflicts-- > 0) throw new StatusError('Conflict', 409, 'modified')
      return real(spec)
    }
    expect(await a.elector.release()).toBe(true)
    expect(server.lease?.spec?.holderIdentity).toBe('')
  })

  it('does not blank a lease that another candidate holds', async () => {
    const {clock, server} = setup()
    const a = start(elector(server, clock, 'a'))
    await settle()
    server.poke({holderIdentity: 'b', leaseDurationSeconds: 4, leaseTransitions: 1})
    expect(await a.elector.release()).toBe(true)
    expect(server.lease?.spec?.holderIdentity).toBe('b')
  })

  it('a standby that is cancelled does not write', async () => {
    const {clock, server} = setup()
    start(elector(server, clock, 'a'))
    await settle()
    const b = start(elector(server, clock, 'b'))
    await clock.advance(2000)
    b.stop.abort()
    await b.done
    expect(b.stoppedLeading).toBe(1)
    expect(server.writes().filter((w) => w.by === 'b')).toEqual([])
  })
})

describe('acquire retries', () => {
  it('wait RetryPeriod × (1 + r × 1.2) between tries (wait.JitterUntil, sliding)', async () => {
    const {clock, server} = setup()
    server.poke({holderIdentity: 'bing', leaseDurationSeconds: 100})
    let r = 0
    const rs = [0, 1, 0.5]
    start(elector(server, clock, 'baz', {random: () => rs[r++ % rs.length] as number}))
    await clock.advance(10_000)
    const gets = server.calls.filter((x) => x.by === 'baz').map((x) => x.at)
    const gaps = gets.slice(1).map((t, i) => t - (gets[i] as number))
    expect(gaps.slice(0, 3)).toEqual([1000, 2200, 1600])
  })
})

describe('HealthzAdaptor (upstream: TestLeaderElectionHealthChecker)', () => {
  it('healthy before an elector is set, while standby, and while renewing; failing once renewals stop past lease duration + timeout', async () => {
    const {clock, server} = setup()
    const adaptor = new HealthzAdaptor(20_000)
    expect(adaptor.check()).toBeUndefined()
    const c = start(elector(server, clock, 'baz'))
    adaptor.setLeaderElection(c.elector)
    await clock.advance(30_000)
    expect(adaptor.check()).toBeUndefined()
    // Deadlocked: the renew loop does not run, time passes.
    clock.jump(4000 + 19_000)
    expect(adaptor.check()).toBeUndefined()
    clock.jump(2000)
    expect(adaptor.check()?.message).toBe(`failed election to renew leadership on lease ${NAME}`)
  })

  it('a standby is healthy whatever the lease does', async () => {
    const {clock, server} = setup()
    server.poke({holderIdentity: 'bing', leaseDurationSeconds: 100})
    const adaptor = new HealthzAdaptor(20_000)
    const c = start(elector(server, clock, 'baz'))
    adaptor.setLeaderElection(c.elector)
    await settle()
    clock.jump(1_000_000)
    expect(adaptor.check()).toBeUndefined()
  })
})

describe('readiness (beyond upstream, issue 28)', () => {
  it('fails once every Lease request has been refused for authorization for longer than the tolerance, and says so', async () => {
    const {clock, server} = setup()
    server.down.set('a', 403)
    const a = start(elector(server, clock, 'a'))
    await settle()
    expect(a.elector.readiness(5000)).toBeUndefined()
    await clock.advance(5000)
    expect(a.elector.readiness(5000)).toBeUndefined()
    await clock.advance(1000 * (1 + JITTER_FACTOR))
    expect(a.elector.readiness(5000)?.message).toMatch(
      /^the API server has refused this replica's requests for the Lease kube-system\/kubectl-deployctl for [67]s \(403 Forbidden\): check its RBAC for leases$/,
    )
    // Allowed again: the next try acquires, and it is ready.
    server.down.delete('a')
    await clock.advanceUntil(() => a.leading, 5000)
    expect(a.elector.readiness(5000)).toBeUndefined()
  })

  it('a standby is ready while the holder renews, and while waiting out a Lease that just stopped', async () => {
    const {clock, server} = setup()
    start(elector(server, clock, 'a'))
    await settle()
    const b = start(elector(server, clock, 'b'))
    await clock.advance(30_000)
    expect(b.elector.readiness(5000)).toBeUndefined()
    server.down.set('a', 0)
    await clock.advanceUntil(() => b.leading, 20_000)
    expect(b.elector.readiness(5000)).toBeUndefined()
  })

  it('a forged Lease claiming 2147483647 s: the standby is not ready once it has not moved for its lease duration plus the tolerance, and takes it over at the cap', async () => {
    const {clock, server} = setup()
    server.poke({
      holderIdentity: 'forged',
      leaseDurationSeconds: 2_147_483_647,
      renewTime: microTime(clock.now()),
    })
    const b = start(elector(server, clock, 'b'))
    await clock.advance(4000 + 5000)
    expect(b.elector.readiness(5000)).toBeUndefined()
    await clock.advance(100)
    expect(b.elector.readiness(5000)?.message).toBe(
      'the Lease kube-system/kubectl-deployctl is held by forged, who has not renewed it for 9s (it claims 2147483647s; at most 40s are honoured)',
    )
    expect(b.leading).toBe(false)
    // The claim is honoured for at most 10 × our own lease duration (4 s).
    const took = await clock.advanceUntil(() => b.leading, 60_000)
    expect(9100 + took).toBeGreaterThanOrEqual(40_000)
    expect(9100 + took).toBeLessThanOrEqual(40_000 + 1000 * (1 + JITTER_FACTOR) + 10)
    expect(b.elector.readiness(5000)).toBeUndefined()
  })
})

describe('two candidates', () => {
  it('one leader at a time; a crashed leader is replaced within lease duration + retry period × 2.2', async () => {
    const {clock, server} = setup()
    const a = start(elector(server, clock, 'a'))
    await settle()
    const b = start(elector(server, clock, 'b'))
    for (let i = 0; i < 100; i++) {
      await clock.advance(100)
      expect(a.leading && b.leading).toBe(false)
    }
    expect(a.leading).toBe(true)
    // a crashes: it sends nothing more (its requests hang), and b only sees the record stop changing.
    server.down.set('a', 0)
    const crashedAt = clock.now()
    let both = false
    await clock.advanceUntil(() => {
      both ||= a.leading && b.leading && a.elector.mayWrite() && b.elector.mayWrite()
      return b.leading
    }, 20_000)
    expect(both).toBe(false)
    expect(clock.now() - crashedAt).toBeLessThanOrEqual(4000 + 1000 * (1 + JITTER_FACTOR) + 1000)
    expect(server.lease?.spec).toMatchObject({holderIdentity: 'b', leaseTransitions: 1})
    expect(a.elector.mayWrite()).toBe(false)
  })
})

describe('LeaseLock on the test API server (optimistic concurrency)', () => {
  it('creates, reads and updates the Lease; a stale resourceVersion is a 409, a second create AlreadyExists', async () => {
    const {startApiServer} = await import('../apiserver/index.js')
    const {connect} = await import('../../src/cluster/live/kubeconfig.js')
    const {ApiClient} = await import('../../src/cluster/live/api.js')
    const server = await startApiServer()
    try {
      const api = new ApiClient(await connect({kubeconfig: server.kubeconfigPath}))
      const a = new LeaseLock(api, NS, NAME, 'a')
      const b = new LeaseLock(api, NS, NAME, 'b')
      const record = {
        ...leaseSpecToRecord({holderIdentity: 'a', leaseDurationSeconds: 4}),
        renewTime: microTime(0),
      }
      await expect(a.get()).rejects.toMatchObject({code: 404})
      await a.create(record)
      await expect(b.create({...record, holderIdentity: 'b'})).rejects.toMatchObject({
        reason: 'AlreadyExists',
      })
      const seen = await b.get()
      expect(seen.record).toMatchObject({
        holderIdentity: 'a',
        leaseDurationSeconds: 4,
        renewTime: '1970-01-01T00:00:00.000000Z',
      })
      await a.update({...record, renewTime: microTime(1000)})
      // b's copy is now stale: its PUT carries the old resourceVersion.
      await expect(b.update({...seen.record, holderIdentity: 'b'})).rejects.toMatchObject({
        code: 409,
        reason: 'Conflict',
      })
      expect((await b.get()).record.renewTime).toBe('1970-01-01T00:00:01.000000Z')
      await b.update({...seen.record, holderIdentity: 'b', leaderTransitions: 1})
      expect((await a.get()).record).toMatchObject({holderIdentity: 'b', leaderTransitions: 1})
    } finally {
      await server.close()
    }
  })
})
