// client-go's workqueue rate limiters (util/workqueue/default_rate_limiters.go): how long
// AddRateLimited waits before an item is ready again. The controller uses the default one, the
// slower of a per-item exponential back-off and an overall token bucket.

import type {LoopClock} from './clock.js'

export interface RateLimiter<T> {
  /** How long to wait (ms) before the item may be processed again; counts as one requeue. */
  when(item: T): number
  /** Stop tracking the item: its back-off starts over. */
  forget(item: T): void
  /** How many times the item has been requeued since it was last forgotten. */
  numRequeues(item: T): number
}

/** upstream: ItemExponentialFailureRateLimiter — base·2^failures, capped at max. */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>()

  constructor(
    readonly baseDelayMs: number,
    readonly maxDelayMs: number,
  ) {}

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0
    this.failures.set(item, exp + 1)
    const backoff = this.baseDelayMs * 2 ** exp
    return Math.min(backoff, this.maxDelayMs)
  }

  forget(item: T): void {
    this.failures.delete(item)
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0
  }
}

/**
 * upstream: BucketRateLimiter over golang.org/x/time/rate — a bucket of `burst` tokens refilled at
 * `qps` per second, shared by every item. Each call takes a token, going into debt when none is
 * left; the wait is the time the debt takes to refill.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private tokens: number
  private last: number | undefined

  constructor(
    private readonly clock: LoopClock,
    readonly qps: number,
    readonly burst: number,
  ) {
    this.tokens = burst
  }

  when(_item: T): number {
    const now = this.clock.now()
    // rate.Limiter.advance: a clock that went backwards counts as no time elapsed.
    const last = this.last === undefined ? now : Math.min(this.last, now)
    this.tokens = Math.min(this.burst, this.tokens + ((now - last) * this.qps) / 1000)
    this.last = now
    this.tokens -= 1
    return this.tokens < 0 ? (-this.tokens * 1000) / this.qps : 0
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0
  }
}

/** upstream: MaxOfRateLimiter — asks every limiter (each one counts the call) and waits the longest. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: RateLimiter<T>[]

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters
  }

  when(item: T): number {
    let max = 0
    for (const l of this.limiters) max = Math.max(max, l.when(item))
    return max
  }

  forget(item: T): void {
    for (const l of this.limiters) l.forget(item)
  }

  numRequeues(item: T): number {
    let max = 0
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(item))
    return max
  }
}

/** upstream: DefaultTypedControllerRateLimiter — 5 ms doubling up to 1000 s, and 10 qps with bursts of 100. */
export function defaultControllerRateLimiter<T>(clock: LoopClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1000 * 1000),
    new BucketRateLimiter<T>(clock, 10, 100),
  )
}
