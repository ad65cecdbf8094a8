// The time source of the controller loop: the work queue's delays, the rate limiter's token bucket
// and the informers' timers all read it, so unit tests can drive them with a fake clock.

import {setLongTimeout} from '../../../util/timer.js'

export interface TimerHandle {
  cancel(): void
}

export interface LoopClock {
  /** Milliseconds since the epoch. */
  now(): number
  /** Calls fn once, ms from now. */
  setTimer(ms: number, fn: () => void): TimerHandle
}

export const realClock: LoopClock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => setLongTimeout(fn, ms),
}

/** Resolves after ms on the given clock. */
export function sleep(clock: LoopClock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(ms, resolve))
}
