// The hooks `run` puts on each of its API clients: a write guard (leader election), the client's
// own rate limiter, and the rest_client metrics. Kept apart from the metrics module so that
// nothing here loads prom-client.

import type {RequestHooks} from './api.js'

/** Where request outcomes and rate-limiter waits are counted (ControllerMetrics). */
export interface RequestObserver {
  observeRequest(method: string, url: URL, code: string, seconds: number): void
  observeRateLimiter(method: string, url: URL, seconds: number): void
}

/** A write refused because this replica does not hold the lease (or no longer knows it does). */
export class NotLeaderError extends Error {
  constructor(method: string, url: URL) {
    super(`${method} ${url.pathname} refused: this replica is not the leader (leader election)`)
    this.name = 'NotLeaderError'
  }
}

export interface ClientHooksOptions {
  observer?: RequestObserver
  limiter?: {wait(signal?: AbortSignal): Promise<number>}
  /** Whether a write may be sent now; checked before and after the rate limiter's wait, and as it leaves. */
  mayWrite?: () => boolean
}

export function clientHooks({observer, limiter, mayWrite}: ClientHooksOptions): RequestHooks {
  const guard = (method: string, url: URL) => {
    if (mayWrite && method !== 'GET' && !mayWrite()) throw new NotLeaderError(method, url)
  }
  return {
    async before(method, url, signal) {
      guard(method, url)
      const waited = limiter ? await limiter.wait(signal) : 0
      observer?.observeRateLimiter(method, url, waited / 1000)
      guard(method, url)
    },
    sending: guard,
    after(method, url, code, seconds) {
      observer?.observeRequest(method, url, code, seconds)
    },
  }
}
