// Client-side rate limiting as client-go's REST client does it (util/flowcontrol
// NewTokenBucketRateLimiter over golang.org/x/time/rate): a bucket of `burst` tokens refilled at
// `qps` per second; each request reserves a token, going into debt when none is left, and waits
// until its token would have been refilled. kube-controller-manager: --kube-api-qps 20,
// --kube-api-burst 30.

import {type LoopClock, realClock} from '../workqueue/clock.js'

/** upstream: rest.DefaultQPS / DefaultBurst, used when a config leaves them 0. */
export const DEFAULT_QPS = 5
export const DEFAULT_BURST = 10

export class TokenBucket {
  private tokens: number
  private last: number

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: LoopClock = realClock,
  ) {
    this.tokens = burst
    this.last = clock.now()
  }

  /**
   * upstream: rate.Limiter.Wait — reserves one token and waits for it. Resolves with the
   * milliseconds waited; an aborted wait gives its token back and rejects.
   */
  wait(signal?: AbortSignal): Promise<number> {
    const delay = this.reserve()
    if (delay <= 0) return Promise.resolve(0)
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        timer.cancel()
        this.tokens = Math.min(this.burst, this.tokens + 1)
        reject(signal?.reason ?? new Error('rate limiter wait aborted'))
      }
      const timer = this.clock.setTimer(delay, () => {
        signal?.removeEventListener('abort', onAbort)
        resolve(delay)
      })
      signal?.addEventListener('abort', onAbort, {once: true})
    })
  }

  /** How long the next token takes (ms), taking it. */
  reserve(): number {
    const now = this.clock.now()
    // rate.Limiter.advance: refill for the time elapsed, never beyond the burst; a clock that went
    // backwards counts as no time.
    const elapsed = Math.max(0, now - this.last)
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000)
    this.last = Math.max(this.last, now)
    this.tokens -= 1
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps
  }
}

/**
 * upstream: rest.RESTClientFor's limiter choice — QPS 0 means the default 5 (burst 10 when 0),
 * a negative QPS means no client-side limit (undefined).
 */
export function clientRateLimiter(qps: number, burst: number, clock?: LoopClock): TokenBucket | undefined {
  const q = qps === 0 ? DEFAULT_QPS : qps
  const b = burst === 0 ? DEFAULT_BURST : burst
  return q > 0 ? new TokenBucket(q, b, clock) : undefined
}
