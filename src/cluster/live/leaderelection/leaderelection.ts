// Leader election as client-go's tools/leaderelection does it: candidates race to hold a lock
// (a Lease); the holder renews it every retry period and gives up when it cannot renew within the
// renew deadline; the others take it over once it has not changed for a lease duration.
//
// Expiry is judged only by the local clock, from when this candidate last saw the record change
// (observedTime). The holder's renewTime is never compared with our clock, so clock skew between
// candidates does not matter; only their clocks' rates do.
//
// Beyond upstream, so that no replica writes after another holds the Lease: a leader's writes are
// held from the moment a renewal is answered 404 or 409 (the Lease deleted or changed under it)
// until it has written the Lease again as its holder; a leader that sees another holder stops
// leading at once; and a candidate that finds the Lease deleted while the holder it last saw still
// had time left waits that time out before creating it, as it would for a held Lease.

import {hostname} from 'node:os'
import {isAlreadyExists, isConflict, isNotFound, StatusError} from '../../../controller/api/errors.js'
import {type LoopClock, realClock, type TimerHandle} from '../workqueue/clock.js'
import {type LeaderElectionRecord, microTime, type ResourceLock} from './leaselock.js'

/** upstream: JitterFactor — acquire retries wait between RetryPeriod and 2.2 × RetryPeriod. */
export const JITTER_FACTOR = 1.2

/**
 * Beyond upstream: a Lease's own leaseDurationSeconds is honoured up to this many times this
 * candidate's lease duration. Candidates of one Deployment share the flag, so the cap never bites
 * among them; a forged claim (2147483647 s) no longer blocks a takeover for ever.
 */
export const MAX_LEASE_CLAIM_FACTOR = 10

export interface LeaderCallbacks {
  /** Called (not awaited) once leadership is acquired; the signal aborts when it is lost or given up. */
  onStartedLeading(signal: AbortSignal): void
  /** Called when run() ends, whether or not this candidate ever led. */
  onStoppedLeading(): void
  /** A leader other than the one last reported was observed (this candidate included). */
  onNewLeader?(identity: string): void
}

/** upstream: the leaderelection metrics adapter (leader_election_master_status, slowpath). */
export interface LeaderMetrics {
  on(name: string): void
  off(name: string): void
  slowpathExercised(name: string): void
}

export interface ElectionLog {
  /** verbosity 0 lines */
  info(message: string, kv?: Record<string, unknown>): void
  /** lines shown at --v >= level */
  debug(level: number, message: string, kv?: Record<string, unknown>): void
  error(message: string, kv?: Record<string, unknown>): void
}

export interface LeaderElectionConfig {
  lock: ResourceLock
  leaseDurationMs: number
  renewDeadlineMs: number
  retryPeriodMs: number
  callbacks: LeaderCallbacks
  /** Give the lock up (holder cleared, lease duration 1 s) when run()'s signal aborts. */
  releaseOnCancel: boolean
  /** The lock's name, for metrics and messages. */
  name: string
  clock?: LoopClock
  /** [0, 1), for jitter. */
  random?: () => number
  log?: ElectionLog
  metrics?: LeaderMetrics
  /** The most a Lease may claim (ms); default MAX_LEASE_CLAIM_FACTOR × leaseDurationMs. */
  maxLeaseClaimMs?: number
}

/**
 * upstream: NewLeaderElector's checks, in its order and with its messages. Durations are
 * milliseconds here.
 */
export function validateLeaderElectionConfig(
  c: Pick<LeaderElectionConfig, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>,
): string | undefined {
  if (c.leaseDurationMs <= c.renewDeadlineMs) return 'leaseDuration must be greater than renewDeadline'
  if (c.renewDeadlineMs <= JITTER_FACTOR * c.retryPeriodMs)
    return 'renewDeadline must be greater than retryPeriod*JitterFactor'
  if (c.leaseDurationMs < 1) return 'leaseDuration must be greater than zero'
  if (c.renewDeadlineMs < 1) return 'renewDeadline must be greater than zero'
  if (c.retryPeriodMs < 1) return 'retryPeriod must be greater than zero'
  return undefined
}

/** kube-controller-manager's identity: the host name, an underscore and a fresh UUID. */
export function defaultIdentity(): string {
  return `${hostname()}_${crypto.randomUUID()}`
}

/** observedRawRecord while the Lease last seen held by another candidate is missing. */
const DELETED_RECORD = '<deleted>'

const EMPTY_RECORD: LeaderElectionRecord = {
  holderIdentity: '',
  leaseDurationSeconds: 0,
  acquireTime: undefined,
  renewTime: undefined,
  leaderTransitions: 0,
  strategy: '',
  preferredHolder: '',
}

export class LeaderElector {
  private readonly clock: LoopClock
  private readonly random: () => number
  private observedRecord: LeaderElectionRecord = EMPTY_RECORD
  private observedRawRecord = ''
  /** When (local clock) this candidate last saw the record change, or wrote it. */
  private observedTime = 0
  private reportedLeader = ''
  /** Between a successful acquire and the end of renewal: the callbacks' notion of leading. */
  private leading = false
  /** When the last successful acquire or renew was started (local clock). */
  private lastRenewStartedAt = Number.NEGATIVE_INFINITY
  /**
   * A renewal was answered 404 or 409: writes are held until this candidate has written the Lease
   * as its holder again. Set synchronously where the answer is handled, so the next write's guard
   * check already sees it.
   */
  private renewalRefused = false
  /**
   * Our create was answered AlreadyExists and no record has been read since: another candidate
   * holds a Lease we never saw, so a deletion must be waited out as for any other holder.
   */
  private lostCreateRace = false
  /** Since when (local clock) the server has refused this candidate's Lease requests (401, 403). */
  private refusedSince: number | undefined
  /** The last such refusal, as a status code and reason (our words, not the server's message). */
  private refusal = ''

  constructor(readonly config: LeaderElectionConfig) {
    const problem = validateLeaderElectionConfig(config)
    if (problem) throw new Error(problem)
    if (config.lock.identity() === '') throw new Error('Lock identity is empty')
    this.clock = config.clock ?? realClock
    this.random = config.random ?? Math.random
    config.metrics?.off(config.name)
  }

  /**
   * upstream: Run — acquire, then start leading and renew until renewal fails or the signal
   * aborts; onStoppedLeading is called on the way out in every case.
   */
  async run(signal: AbortSignal): Promise<void> {
    try {
      if (!(await this.acquire(signal))) return
      const leadership = new AbortController()
      this.leading = true
      try {
        this.config.callbacks.onStartedLeading(leadership.signal)
      } catch (err) {
        this.config.log?.error('OnStartedLeading failed', {err: String(err)})
      }
      await this.renew(signal, leadership)
    } finally {
      this.leading = false
      this.config.callbacks.onStoppedLeading()
    }
  }

  /** upstream: GetLeader — the holder last observed ('' when none). */
  getLeader(): string {
    return this.observedRecord.holderIdentity
  }

  /** upstream: IsLeader — the last observed holder is this candidate. */
  isLeader(): boolean {
    return this.observedRecord.holderIdentity === this.config.lock.identity()
  }

  /**
   * Whether the work the lease guards may write now: this candidate leads, no renewal since its
   * last successful one was answered 404 or 409, and its last successful renewal started less than
   * a lease duration ago. The last two are beyond upstream: a Lease deleted or taken under the
   * leader, and a process that was paused past its lease (a stopped VM, a long GC), must not let a
   * worker write before the renew loop has sorted it out.
   */
  mayWrite(): boolean {
    return (
      this.leading &&
      !this.renewalRefused &&
      this.isLeader() &&
      this.clock.now() - this.lastRenewStartedAt < this.config.leaseDurationMs
    )
  }

  /**
   * upstream: Check (HealthzAdaptor) — an error once this candidate holds the lease but has not
   * renewed it for the lease duration plus maxTolerableExpiredMs; a standby is always healthy.
   */
  check(maxTolerableExpiredMs: number): Error | undefined {
    if (!this.isLeader()) return undefined
    if (this.clock.now() - this.observedTime > this.config.leaseDurationMs + maxTolerableExpiredMs) {
      return new Error(`failed election to renew leadership on lease ${this.config.name}`)
    }
    return undefined
  }

  /**
   * Beyond upstream (which has no readiness for leader election): an error while this candidate
   * cannot take part in the election (its Lease requests refused for authorization for longer than
   * toleranceMs), or while, as a standby, it has seen the Lease unrenewed for longer than its own
   * lease duration plus toleranceMs (a dead holder nobody takes over, or a claim beyond the cap).
   */
  readiness(toleranceMs: number): Error | undefined {
    const now = this.clock.now()
    const lock = this.config.lock.describe()
    if (this.refusedSince !== undefined && now - this.refusedSince > toleranceMs) {
      return new Error(
        `the API server has refused this replica's requests for the Lease ${lock} for ${seconds(now - this.refusedSince)} (${this.refusal}): check its RBAC for leases`,
      )
    }
    const holder = this.observedRecord.holderIdentity
    const unrenewed = now - this.observedTime
    if (holder !== '' && !this.isLeader() && unrenewed > this.config.leaseDurationMs + toleranceMs) {
      return new Error(
        `the Lease ${lock} is held by ${holder}, who has not renewed it for ${seconds(unrenewed)} (it claims ${this.observedRecord.leaseDurationSeconds}s; at most ${seconds(this.maxClaimMs())} are honoured)`,
      )
    }
    return undefined
  }

  // upstream: acquire — tryAcquireOrRenew every RetryPeriod with jitter (JitterUntil, sliding)
  // until it succeeds; false when the signal aborts first.
  private async acquire(signal: AbortSignal): Promise<boolean> {
    const desc = this.config.lock.describe()
    this.config.log?.info('Attempting to acquire leader lease...', {lock: desc})
    while (!signal.aborted) {
      const succeeded = await this.tryAcquireOrRenew(signal)
      this.maybeReportTransition()
      if (succeeded && !signal.aborted) {
        this.config.lock.recordEvent?.('became leader')
        this.config.metrics?.on(this.config.name)
        this.config.log?.info('Successfully acquired lease', {lock: desc})
        return true
      }
      if (!succeeded) this.config.log?.debug(4, 'Failed to acquire lease', {lock: desc})
      const wait = this.config.retryPeriodMs * (1 + this.random() * JITTER_FACTOR)
      await sleep(this.clock, wait, signal)
    }
    return false
  }

  // upstream: renew — every RetryPeriod (Until, no jitter), a poll of tryAcquireOrRenew every
  // RetryPeriod that must succeed within RenewDeadline; when it does not, leadership ends.
  private async renew(signal: AbortSignal, leadership: AbortController): Promise<void> {
    const desc = this.config.lock.describe()
    try {
      while (!signal.aborted) {
        const renewed = await this.pollRenew(signal)
        this.maybeReportTransition()
        if (renewed) {
          this.config.log?.debug(5, 'Successfully renewed lease', {lock: desc})
          await sleep(this.clock, this.config.retryPeriodMs, signal)
          continue
        }
        this.leading = false
        this.config.metrics?.off(this.config.name)
        this.config.log?.info('Failed to renew lease', {
          lock: desc,
          err: signal.aborted ? 'context canceled' : 'timed out waiting for the condition',
        })
        break
      }
    } finally {
      this.leading = false
      this.config.metrics?.off(this.config.name)
      leadership.abort()
      this.config.lock.recordEvent?.('stopped leading')
    }
    if (this.config.releaseOnCancel) await this.release()
  }

  /**
   * upstream: PollUntilContextTimeout(RetryPeriod, RenewDeadline, immediate) over
   * tryAcquireOrRenew — tries at once, then on a RetryPeriod ticker, until one succeeds or the
   * deadline passes (which also aborts a request in flight).
   */
  private async pollRenew(signal: AbortSignal): Promise<boolean> {
    const deadline = new AbortController()
    const onAbort = () => deadline.abort()
    signal.addEventListener('abort', onAbort, {once: true})
    const timer = this.clock.setTimer(this.config.renewDeadlineMs, () => deadline.abort())
    try {
      for (;;) {
        if (deadline.signal.aborted) return false
        const tick = this.clock.now() + this.config.retryPeriodMs
        if (await this.tryAcquireOrRenew(deadline.signal)) return !deadline.signal.aborted
        // Beyond upstream (which polls on until the deadline): another holder is final.
        if (!this.isLeader()) return false
        const rest = tick - this.clock.now()
        if (rest > 0) await sleep(this.clock, rest, deadline.signal)
      }
    } finally {
      timer.cancel()
      signal.removeEventListener('abort', onAbort)
    }
  }

  /**
   * upstream: tryAcquireOrRenew — acquire the lock when it is free or expired, renew it when held.
   * Returns true on success.
   */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const {lock, log} = this.config
    const started = this.clock.now()
    const now = microTime(started)
    const record: LeaderElectionRecord = {
      holderIdentity: lock.identity(),
      leaseDurationSeconds: Math.floor(this.config.leaseDurationMs / 1000),
      renewTime: now,
      acquireTime: now,
      leaderTransitions: 0,
      strategy: '',
      preferredHolder: '',
    }

    // 1. The leader's fast path: update optimistically, assuming the record observed last is current.
    if (this.isLeader() && this.isLeaseValid(started)) {
      const old = this.observedRecord
      record.acquireTime = old.acquireTime
      record.leaderTransitions = old.leaderTransitions
      try {
        await lock.update(record, signal)
        this.renewed(record, started)
        return true
      } catch (err) {
        this.holdWritesIfRefused(err)
        this.noteRefusal(err)
        if (signal.aborted) return false
        log?.debug(2, 'Failed to update lease optimistically, falling back to slow path', {
          lock: lock.describe(),
          err: message(err),
        })
      }
    }

    // 2. Obtain the record, or create it.
    let observed: Awaited<ReturnType<ResourceLock['get']>>
    try {
      observed = await lock.get(signal)
    } catch (err) {
      this.holdWritesIfRefused(err)
      this.noteRefusal(err)
      if (!isNotFound(err)) {
        if (!signal.aborted)
          log?.error('Error retrieving lease lock', {lock: lock.describe(), err: message(err)})
        return false
      }
      // Beyond upstream: the Lease is gone, but the holder last seen may still act (it may have
      // renewed after our last look, just before the deletion): its lease counts from when we
      // first saw the Lease missing, by our clock, as for any change of the record.
      const otherHolder =
        (this.observedRecord.holderIdentity !== '' || this.lostCreateRace) && !this.isLeader()
      if (otherHolder) {
        if (this.observedRawRecord !== DELETED_RECORD) {
          this.observedRawRecord = DELETED_RECORD
          this.observedTime = started
          // Never read, so no duration was claimed: wait out one of our own.
          if (this.observedRecord.holderIdentity === '')
            this.observedRecord = {
              ...this.observedRecord,
              leaseDurationSeconds: Math.floor(this.config.leaseDurationMs / 1000),
            }
        }
      }
      if (this.observedRawRecord === DELETED_RECORD && this.isLeaseValid(started)) {
        log?.debug(4, 'Lease was deleted; waiting out the lease of its last holder', {
          lock: lock.describe(),
          holder: this.observedRecord.holderIdentity,
        })
        return false
      }
      try {
        await lock.create(record, signal)
      } catch (createErr) {
        this.holdWritesIfRefused(createErr)
        this.noteRefusal(createErr)
        if (isAlreadyExists(createErr) && !this.isLeader()) this.lostCreateRace = true
        if (!signal.aborted)
          log?.error('Error initially creating lease lock', {lock: lock.describe(), err: message(createErr)})
        return false
      }
      this.renewed(record, started)
      return true
    }

    // 3. The record changed since last seen: restart the expiry clock from now.
    this.lostCreateRace = false
    if (this.observedRawRecord !== observed.raw) {
      this.setObservedRecord(observed.record)
      this.observedRawRecord = observed.raw
    }
    if (observed.record.holderIdentity !== '' && this.isLeaseValid(started) && !this.isLeader()) {
      // Waiting for a held Lease is taking part: nothing refused this candidate.
      this.refusedSince = undefined
      log?.debug(4, 'Lease is held by and has not yet expired', {
        lock: lock.describe(),
        holder: observed.record.holderIdentity,
      })
      return false
    }

    // 4. Take over or renew: a takeover counts a transition, a renewal keeps acquireTime.
    if (this.isLeader()) {
      record.acquireTime = observed.record.acquireTime
      record.leaderTransitions = observed.record.leaderTransitions
      this.config.metrics?.slowpathExercised(this.config.name)
    } else {
      record.leaderTransitions = observed.record.leaderTransitions + 1
    }
    try {
      await lock.update(record, signal)
    } catch (err) {
      this.holdWritesIfRefused(err)
      this.noteRefusal(err)
      if (!signal.aborted) log?.error('Failed to update lease', {lock: lock.describe(), err: message(err)})
      return false
    }
    this.renewed(record, started)
    return true
  }

  /** This candidate wrote the Lease as its holder: the record is current, writes may go on. */
  private renewed(record: LeaderElectionRecord, started: number): void {
    this.setObservedRecord(record)
    this.lastRenewStartedAt = started
    this.renewalRefused = false
    this.lostCreateRace = false
    this.refusedSince = undefined
  }

  /** A Lease request refused for authorization starts (or continues) the readiness clock. */
  private noteRefusal(err: unknown): void {
    if (!(err instanceof StatusError) || (err.code !== 401 && err.code !== 403)) return
    this.refusedSince ??= this.clock.now()
    this.refusal = `${err.code} ${err.reason}`
  }

  private maxClaimMs(): number {
    return this.config.maxLeaseClaimMs ?? MAX_LEASE_CLAIM_FACTOR * this.config.leaseDurationMs
  }

  /** A leader's renewal answered 404 (Lease deleted) or 409 (changed, or created by another). */
  private holdWritesIfRefused(err: unknown): void {
    if (!this.leading || this.renewalRefused) return
    if (!isNotFound(err) && !isConflict(err) && !isAlreadyExists(err)) return
    this.renewalRefused = true
    this.config.log?.info('Lease renewal refused: holding writes until the Lease is ours again', {
      lock: this.config.lock.describe(),
      err: message(err),
    })
  }

  /**
   * upstream: release / tryRelease — clear the holder (lease duration 1 s, transitions kept) so a
   * standby takes over at its next try; conflicts are retried, for at most RenewDeadline.
   * Beyond upstream: the lease is left alone when the record just read names another holder.
   */
  async release(): Promise<boolean> {
    const deadline = new AbortController()
    const timer = this.clock.setTimer(this.config.renewDeadlineMs, () => deadline.abort())
    try {
      for (;;) {
        if (deadline.signal.aborted) return false
        const {lock, log} = this.config
        let old: Awaited<ReturnType<ResourceLock['get']>>
        try {
          old = await lock.get(deadline.signal)
        } catch (err) {
          if (isNotFound(err)) log?.info('lease lock not found', {lock: lock.describe()})
          else log?.error('error retrieving resource lock', {lock: lock.describe(), err: message(err)})
          return false
        }
        if (!this.isLeader()) return true
        if (old.record.holderIdentity !== lock.identity()) return true
        const now = microTime(this.clock.now())
        const released: LeaderElectionRecord = {
          ...EMPTY_RECORD,
          leaderTransitions: old.record.leaderTransitions,
          leaseDurationSeconds: 1,
          renewTime: now,
          acquireTime: now,
        }
        try {
          await lock.update(released, deadline.signal)
        } catch (err) {
          if (isConflict(err)) {
            log?.debug(4, 'Conflict when releasing lease, retrying', {lock: lock.describe()})
            continue
          }
          log?.error('Failed to release lease', {lock: lock.describe(), err: message(err)})
          return false
        }
        this.setObservedRecord(released)
        log?.info('Released lease', {lock: lock.describe()})
        return true
      }
    } finally {
      timer.cancel()
    }
  }

  // upstream: maybeReportTransition
  private maybeReportTransition(): void {
    if (this.observedRecord.holderIdentity === this.reportedLeader) return
    this.reportedLeader = this.observedRecord.holderIdentity
    const cb = this.config.callbacks.onNewLeader
    if (cb) queueMicrotask(() => cb(this.reportedLeader))
  }

  // upstream: isLeaseValid — observedTime plus the observed record's lease duration is ahead of now
  // (the duration capped, beyond upstream, at maxClaimMs).
  private isLeaseValid(now: number): boolean {
    const claimed = Math.min(this.observedRecord.leaseDurationSeconds * 1000, this.maxClaimMs())
    return this.observedTime + claimed > now
  }

  // upstream: setObservedRecord — the record, and now as the time it was observed.
  private setObservedRecord(record: LeaderElectionRecord): void {
    this.observedRecord = {...record}
    this.observedTime = this.clock.now()
  }
}

/** Resolves after ms on the clock, or as soon as the signal aborts. */
function sleep(clock: LoopClock, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    let handle: TimerHandle | undefined
    const done = () => {
      handle?.cancel()
      signal.removeEventListener('abort', done)
      resolve()
    }
    handle = clock.setTimer(ms, done)
    signal.addEventListener('abort', done, {once: true})
  })
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)}s`
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
