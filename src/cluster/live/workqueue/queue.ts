// client-go's rate-limiting, delaying work queue (util/workqueue): a FIFO of ready items with a
// dirty set (an item waiting once, however often it was added) and a processing set (an item handed
// to a worker is not handed to another until Done; adds meanwhile requeue it at Done), AddAfter
// for items that become ready later, and AddRateLimited on top of a RateLimiter.

import type {LoopClock, TimerHandle} from './clock.js'
import type {RateLimiter} from './rate-limiter.js'

interface Waiting {
  readyAt: number
  /** Insertion order, to break ties between items ready at the same moment. */
  seq: number
}

export class WorkQueue<T> {
  private ready: T[] = []
  private readonly dirty = new Set<T>()
  private readonly processing = new Set<T>()
  private readonly waiting = new Map<T, Waiting>()
  private seq = 0
  private timer: {handle: TimerHandle; at: number} | undefined
  private getters: Array<(item: T | undefined) => void> = []
  private drainWaiters: Array<() => void> = []
  private shuttingDown = false
  /** Called on every add that made an item ready (for idle detection). */
  onReady: ((item: T) => void) | undefined

  constructor(
    private readonly clock: LoopClock,
    private readonly limiter: RateLimiter<T>,
  ) {}

  /** upstream: Add — marks the item dirty and queues it unless it is already queued or being processed. */
  add(item: T): void {
    if (this.shuttingDown) return
    if (this.dirty.has(item)) return
    this.dirty.add(item)
    this.onReady?.(item)
    if (this.processing.has(item)) return
    this.push(item)
  }

  /**
   * upstream: Get — the next ready item, marked processing; waits while none is ready. Resolves
   * undefined once the queue is shut down and empty.
   */
  get(): Promise<T | undefined> {
    const item = this.take()
    if (item !== undefined || this.shuttingDown) return Promise.resolve(item)
    return new Promise((resolve) => this.getters.push(resolve))
  }

  /** upstream: Done — the worker finished the item; if it was added meanwhile it is queued again. */
  done(item: T): void {
    this.processing.delete(item)
    if (this.dirty.has(item)) this.push(item)
    if (this.processing.size === 0) {
      const waiters = this.drainWaiters
      this.drainWaiters = []
      for (const w of waiters) w()
    }
  }

  /** upstream: AddAfter — the item is added once ms have passed; an earlier pending time wins. */
  addAfter(item: T, ms: number): void {
    if (this.shuttingDown) return
    if (ms <= 0) {
      this.add(item)
      return
    }
    const readyAt = this.clock.now() + ms
    const current = this.waiting.get(item)
    if (current && current.readyAt <= readyAt) return
    this.waiting.set(item, {readyAt, seq: this.seq++})
    this.arm()
  }

  /** upstream: AddRateLimited — AddAfter with the rate limiter's delay. Returns that delay. */
  addRateLimited(item: T): number {
    const ms = this.limiter.when(item)
    this.addAfter(item, ms)
    return ms
  }

  forget(item: T): void {
    this.limiter.forget(item)
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item)
  }

  /** Items ready to be handed out. */
  len(): number {
    return this.ready.length
  }

  /** Items handed to workers and not yet done. */
  processingCount(): number {
    return this.processing.size
  }

  /** When the item becomes ready through AddAfter, if it waits for that. */
  waitingUntil(item: T): number | undefined {
    return this.waiting.get(item)?.readyAt
  }

  /** Items waiting for their AddAfter time. */
  waitingCount(): number {
    return this.waiting.size
  }

  isProcessing(item: T): boolean {
    return this.processing.has(item)
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown
  }

  /**
   * upstream: ShutDown — no more adds; waiting getters get undefined; delayed items are dropped.
   * Items already queued can still be taken with get().
   */
  shutDown(): void {
    this.shuttingDown = true
    this.timer?.handle.cancel()
    this.timer = undefined
    this.waiting.clear()
    const getters = this.getters
    this.getters = []
    for (const g of getters) g(this.take())
  }

  /** upstream: ShutDownWithDrain — shuts down, then waits until every item being processed is done. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown()
    if (this.processing.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.drainWaiters.push(resolve))
  }

  private push(item: T): void {
    const getter = this.getters.shift()
    if (getter) {
      this.dirty.delete(item)
      this.processing.add(item)
      getter(item)
      return
    }
    this.ready.push(item)
  }

  private take(): T | undefined {
    if (this.ready.length === 0) return undefined
    const item = this.ready.shift() as T
    this.dirty.delete(item)
    this.processing.add(item)
    return item
  }

  /** One timer, for the earliest waiting item. */
  private arm(): void {
    let earliest = Number.POSITIVE_INFINITY
    for (const w of this.waiting.values()) earliest = Math.min(earliest, w.readyAt)
    if (!Number.isFinite(earliest)) {
      this.timer?.handle.cancel()
      this.timer = undefined
      return
    }
    if (this.timer && this.timer.at <= earliest) return
    this.timer?.handle.cancel()
    const handle = this.clock.setTimer(earliest - this.clock.now(), () => {
      this.timer = undefined
      this.fire()
    })
    this.timer = {handle, at: earliest}
  }

  private fire(): void {
    const now = this.clock.now()
    const due = [...this.waiting.entries()]
      .filter(([, w]) => w.readyAt <= now)
      .sort(([, a], [, b]) => a.readyAt - b.readyAt || a.seq - b.seq)
    for (const [item] of due) {
      this.waiting.delete(item)
      this.add(item)
    }
    this.arm()
  }
}
