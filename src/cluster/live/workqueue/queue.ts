// client-go's rate-limiting, delaying work queue (util/workqueue): a FIFO of ready items with a
// dirty set (an item waiting once, however often it was added) and a processing set (an item handed
// to a worker is not handed to another until Done; adds meanwhile requeue it at Done), AddAfter
// for items that become ready later, and AddRateLimited on top of a RateLimiter.
//
// Not in client-go: every add may say why (`cause`), and a worker can ask why the item it holds was
// queued (causesOf). Logs and tests use it to tell a sync an event or a requeue time called for
// from a loop.

import type {LoopClock, TimerHandle} from './clock.js'
import type {RateLimiter} from './rate-limiter.js'

/**
 * upstream: the queue's metrics hooks (util/workqueue metrics.go), called where client-go calls
 * them: add for an add that made the item dirty, get when a worker takes it, done when it is done,
 * retry on every AddAfter.
 */
export interface QueueMetrics<T> {
  add(item: T): void
  get(item: T): void
  done(item: T): void
  retry(): void
}

/** How many reasons an item keeps while it waits. */
const MAX_CAUSES = 16

interface Waiting {
  readyAt: number
  /** Insertion order, to break ties between items ready at the same moment. */
  seq: number
  /** Why the item was added later (the delayed adds it stands for). */
  causes: string[]
}

export class WorkQueue<T> {
  private ready: T[] = []
  private readonly dirty = new Set<T>()
  private readonly processing = new Set<T>()
  private readonly waiting = new Map<T, Waiting>()
  /** The causes of the adds since the item was last handed out. */
  private readonly pendingCauses = new Map<T, string[]>()
  /** The causes of the item a worker holds, until Done. */
  private readonly heldCauses = new Map<T, string[]>()
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
    private readonly metrics?: QueueMetrics<T>,
  ) {}

  /** upstream: Add — marks the item dirty and queues it unless it is already queued or being processed. */
  add(item: T, cause?: string): void {
    if (this.shuttingDown) return
    if (cause !== undefined) this.noteCauses(item, [cause])
    if (this.dirty.has(item)) return
    this.metrics?.add(item)
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
    this.metrics?.done(item)
    this.processing.delete(item)
    this.heldCauses.delete(item)
    if (this.dirty.has(item)) this.push(item)
    if (this.processing.size === 0) {
      const waiters = this.drainWaiters
      this.drainWaiters = []
      for (const w of waiters) w()
    }
  }

  /**
   * upstream: AddAfter — the item is added once ms have passed; an earlier pending time wins (the
   * one delayed add then stands for both, and carries both causes).
   */
  addAfter(item: T, ms: number, cause?: string): void {
    if (this.shuttingDown) return
    this.metrics?.retry()
    if (ms <= 0) {
      this.add(item, cause)
      return
    }
    const readyAt = this.clock.now() + ms
    const current = this.waiting.get(item)
    const causes = [...(current?.causes ?? []), ...(cause !== undefined ? [cause] : [])]
    if (current && current.readyAt <= readyAt) {
      current.causes = causes
      return
    }
    this.waiting.set(item, {readyAt, seq: this.seq++, causes})
    this.arm()
  }

  /** upstream: AddRateLimited — AddAfter with the rate limiter's delay. Returns that delay. */
  addRateLimited(item: T, cause?: string): number {
    const ms = this.limiter.when(item)
    this.addAfter(item, ms, cause)
    return ms
  }

  /** Why the item a worker holds was queued: the causes of every add since it was last handed out. */
  causesOf(item: T): string[] {
    return this.heldCauses.get(item) ?? []
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
      this.handOut(item)
      getter(item)
      return
    }
    this.ready.push(item)
  }

  private take(): T | undefined {
    if (this.ready.length === 0) return undefined
    const item = this.ready.shift() as T
    this.handOut(item)
    return item
  }

  private handOut(item: T): void {
    this.metrics?.get(item)
    this.dirty.delete(item)
    this.processing.add(item)
    this.heldCauses.set(item, this.pendingCauses.get(item) ?? [])
    this.pendingCauses.delete(item)
  }

  private noteCauses(item: T, causes: string[]): void {
    if (causes.length === 0) return
    const list = this.pendingCauses.get(item) ?? []
    // An item queued once stands for any number of adds: keep the first few reasons.
    for (const c of causes) if (list.length < MAX_CAUSES) list.push(c)
    this.pendingCauses.set(item, list)
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
    for (const [item, w] of due) {
      this.waiting.delete(item)
      if (this.shuttingDown) continue
      this.noteCauses(item, w.causes)
      this.add(item)
    }
    this.arm()
  }
}
