// A clock for async code on virtual time: timers fire in time order when the test advances the
// clock, and the promise jobs each timer starts run before the next timer fires.

import type {LoopClock, TimerHandle} from '../../../src/cluster/live/workqueue/clock.js'

interface Timer {
  at: number
  seq: number
  fn: () => void
  cancelled: boolean
}

/** Lets pending promise jobs (and the ones they start) run. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r))
}

export class VirtualClock implements LoopClock {
  private timers: Timer[] = []
  private seq = 0

  constructor(public time = Date.parse('2026-12-02T10:00:00Z')) {}

  now(): number {
    return this.time
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const t: Timer = {at: this.time + Math.max(0, ms), seq: this.seq++, fn, cancelled: false}
    this.timers.push(t)
    return {cancel: () => (t.cancelled = true)}
  }

  /** Moves time forward by ms, firing every timer due on the way. */
  async advance(ms: number): Promise<void> {
    await settle()
    const target = this.time + ms
    for (;;) {
      const due = this.timers
        .filter((t) => !t.cancelled && t.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0]
      if (!due) break
      this.timers = this.timers.filter((t) => t !== due)
      this.time = due.at
      due.fn()
      await settle()
    }
    this.time = target
    await settle()
  }

  /** Advances in steps of stepMs until cond() holds or maxMs passed; returns the time taken. */
  async advanceUntil(cond: () => boolean, maxMs: number, stepMs = 10): Promise<number> {
    const start = this.time
    while (!cond()) {
      if (this.time - start >= maxMs) throw new Error(`condition not met within ${maxMs} ms of virtual time`)
      await this.advance(stepMs)
    }
    return this.time - start
  }

  /** Time jumps without firing timers, as for a process that was paused. */
  jump(ms: number): void {
    this.time += ms
  }

  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length
  }
}
