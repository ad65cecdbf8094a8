// The work queue and rate limiters of `run`, against client-go's behaviour, on a fake clock.

import {describe, expect, it} from 'vitest'
import type {LoopClock, TimerHandle} from '../../src/cluster/live/workqueue/clock.js'
import {WorkQueue} from '../../src/cluster/live/workqueue/queue.js'
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
} from '../../src/cluster/live/workqueue/rate-limiter.js'
import {StatusError} from '../../src/controller/api/errors.js'
import {handleErr, MAX_RETRIES} from '../../src/run/controller.js'

/** A clock that moves only when told to, firing due timers in time order. */
class FakeClock implements LoopClock {
  private timers: Array<{at: number; seq: number; fn: () => void; cancelled: boolean}> = []
  private seq = 0
  constructor(public time = 1_000_000) {}

  now(): number {
    return this.time
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const t = {at: this.time + Math.max(0, ms), seq: this.seq++, fn, cancelled: false}
    this.timers.push(t)
    return {cancel: () => (t.cancelled = true)}
  }

  advance(ms: number): void {
    const target = this.time + ms
    for (;;) {
      const due = this.timers
        .filter((t) => !t.cancelled && t.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0]
      if (!due) break
      this.timers = this.timers.filter((t) => t !== due)
      this.time = due.at
      due.fn()
    }
    this.time = target
  }

  get pending(): number {
    return this.timers.filter((t) => !t.cancelled).length
  }
}

const noLimit: RateLimiter<string> = {when: () => 0, forget: () => {}, numRequeues: () => 0}

/** Everything ready right now, in order, without blocking. */
async function drainReady(q: WorkQueue<string>): Promise<string[]> {
  const out: string[] = []
  while (q.len() > 0) {
    const item = (await q.get()) as string
    out.push(item)
    q.done(item)
  }
  return out
}

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles from 5 ms per item, counts requeues and starts over after forget', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(5, 1000 * 1000)
    expect([1, 2, 3, 4, 5].map(() => l.when('a'))).toEqual([5, 10, 20, 40, 80])
    expect(l.when('b')).toBe(5)
    expect(l.numRequeues('a')).toBe(5)
    l.forget('a')
    expect(l.numRequeues('a')).toBe(0)
    expect(l.when('a')).toBe(5)
  })

  it('caps at 1000 s', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(5, 1000 * 1000)
    const delays = Array.from({length: 30}, () => l.when('a'))
    // 5 ms · 2^17 = 655.36 s is the last step under the cap; 2^18 would be 1310.72 s.
    expect(delays[17]).toBe(655_360)
    expect(delays[18]).toBe(1_000_000)
    expect(delays[29]).toBe(1_000_000)
  })
})

describe('BucketRateLimiter', () => {
  it('lets a burst of 100 through, then spaces items 100 ms apart (10 qps)', () => {
    const clock = new FakeClock()
    const l = new BucketRateLimiter<string>(clock, 10, 100)
    const burst = Array.from({length: 100}, (_, i) => l.when(`k${i}`))
    expect(burst.every((d) => d === 0)).toBe(true)
    expect(l.when('x')).toBeCloseTo(100)
    expect(l.when('y')).toBeCloseTo(200)
    expect(l.numRequeues('x')).toBe(0)
  })

  it('refills at 10 tokens a second, up to the burst', () => {
    const clock = new FakeClock()
    const l = new BucketRateLimiter<string>(clock, 10, 100)
    for (let i = 0; i < 100; i++) l.when('k')
    clock.advance(1000)
    expect(Array.from({length: 10}, () => l.when('k')).every((d) => d === 0)).toBe(true)
    expect(l.when('k')).toBeCloseTo(100)
    clock.advance(3_600_000)
    expect(Array.from({length: 100}, () => l.when('k')).every((d) => d === 0)).toBe(true)
    expect(l.when('k')).toBeCloseTo(100)
  })
})

describe('the default controller rate limiter', () => {
  it('waits the longer of the per-item back-off and the bucket', () => {
    const clock = new FakeClock()
    const l = defaultControllerRateLimiter<string>(clock)
    // The first 100 calls fit the burst: the back-off decides.
    expect(l.when('a')).toBe(5)
    expect(l.when('a')).toBe(10)
    for (let i = 0; i < 98; i++) expect(l.when(`other${i}`)).toBe(5)
    // The bucket is empty now: 100 ms for a fresh item, whose own back-off is only 5 ms.
    expect(l.when('fresh')).toBeCloseTo(100)
    // An item with a long back-off keeps it.
    for (let i = 0; i < 10; i++) l.when('slow')
    expect(l.when('slow')).toBe(5 * 2 ** 10)
    expect(l.numRequeues('slow')).toBe(11)
    l.forget('slow')
    expect(l.numRequeues('slow')).toBe(0)
  })

  it('asks every limiter on each call (MaxOf), so the bucket counts items the back-off allows', () => {
    const calls: string[] = []
    const spy = (name: string, d: number): RateLimiter<string> => ({
      when: () => {
        calls.push(name)
        return d
      },
      forget: () => calls.push(`forget ${name}`),
      numRequeues: () => (name === 'a' ? 3 : 1),
    })
    const l = new MaxOfRateLimiter(spy('a', 7), spy('b', 9))
    expect(l.when('k')).toBe(9)
    expect(l.numRequeues('k')).toBe(3)
    l.forget('k')
    expect(calls).toEqual(['a', 'b', 'forget a', 'forget b'])
  })
})

describe('WorkQueue', () => {
  it('hands out items in order, once however often they were added', async () => {
    const q = new WorkQueue<string>(new FakeClock(), noLimit)
    for (const k of ['a', 'b', 'a', 'c', 'b']) q.add(k)
    expect(q.len()).toBe(3)
    expect(await drainReady(q)).toEqual(['a', 'b', 'c'])
  })

  it('never hands one item to two workers: an add during processing waits for Done', async () => {
    const q = new WorkQueue<string>(new FakeClock(), noLimit)
    q.add('a')
    const first = await q.get()
    expect(first).toBe('a')
    q.add('a')
    q.add('b')
    // 'a' is being processed: only 'b' is ready.
    expect(q.len()).toBe(1)
    expect(await q.get()).toBe('b')
    expect(q.len()).toBe(0)
    q.done('a')
    expect(q.len()).toBe(1)
    expect(await q.get()).toBe('a')
  })

  it('keeps concurrent workers off each other’s keys', async () => {
    const q = new WorkQueue<string>(new FakeClock(), noLimit)
    const active = new Set<string>()
    const overlaps: string[] = []
    let processed = 0
    const worker = async () => {
      for (;;) {
        const key = await q.get()
        if (key === undefined) return
        if (active.has(key)) overlaps.push(key)
        active.add(key)
        // While one worker holds the key, events keep adding it.
        q.add(key)
        await new Promise((r) => setImmediate(r))
        active.delete(key)
        processed++
        q.done(key)
        if (processed >= 200) q.shutDown()
      }
    }
    for (let i = 0; i < 20; i++) q.add(`k${i % 3}`)
    await Promise.all(Array.from({length: 5}, worker))
    expect(overlaps).toEqual([])
    expect(processed).toBeGreaterThanOrEqual(200)
  })

  it('wakes a waiting worker when an item arrives', async () => {
    const q = new WorkQueue<string>(new FakeClock(), noLimit)
    const got = q.get()
    q.add('x')
    expect(await got).toBe('x')
    expect(q.isProcessing('x')).toBe(true)
  })

  it('AddAfter: items become ready in the order of their times, the earliest request winning', async () => {
    const clock = new FakeClock()
    const q = new WorkQueue<string>(clock, noLimit)
    q.addAfter('c', 30)
    q.addAfter('a', 10)
    q.addAfter('b', 20)
    q.addAfter('a', 50) // later than the pending 10 ms: ignored
    q.addAfter('d', 25)
    q.addAfter('d', 5) // earlier than the pending 25 ms: wins
    expect(q.waitingCount()).toBe(4)
    expect(q.len()).toBe(0)
    clock.advance(4)
    expect(q.len()).toBe(0)
    clock.advance(1)
    expect(await drainReady(q)).toEqual(['d'])
    clock.advance(15)
    expect(await drainReady(q)).toEqual(['a', 'b'])
    clock.advance(100)
    expect(await drainReady(q)).toEqual(['c'])
    expect(q.waitingCount()).toBe(0)
    expect(clock.pending).toBe(0)
  })

  it('AddAfter: items due at the same moment keep the order they were added in', async () => {
    const clock = new FakeClock()
    const q = new WorkQueue<string>(clock, noLimit)
    q.addAfter('y', 10)
    q.addAfter('x', 10)
    q.addAfter('z', 10)
    clock.advance(10)
    expect(await drainReady(q)).toEqual(['y', 'x', 'z'])
  })

  it('AddAfter with no delay adds at once; a delayed item already queued is not queued twice', async () => {
    const clock = new FakeClock()
    const q = new WorkQueue<string>(clock, noLimit)
    q.addAfter('a', 0)
    expect(q.len()).toBe(1)
    q.addAfter('a', 10)
    clock.advance(10)
    expect(q.len()).toBe(1)
    expect(await drainReady(q)).toEqual(['a'])
  })

  it('AddRateLimited: back-off doubles per item until Forget', async () => {
    const clock = new FakeClock()
    const q = new WorkQueue<string>(clock, defaultControllerRateLimiter<string>(clock))
    const readyAfter: number[] = []
    for (let i = 0; i < 5; i++) {
      const start = clock.now()
      q.addRateLimited('k')
      while (q.len() === 0) clock.advance(1)
      readyAfter.push(clock.now() - start)
      await drainReady(q)
    }
    expect(readyAfter).toEqual([5, 10, 20, 40, 80])
    expect(q.numRequeues('k')).toBe(5)
    q.forget('k')
    expect(q.numRequeues('k')).toBe(0)
    expect(q.addRateLimited('k')).toBe(5)
  })

  it('ShutDown: waiting workers get nothing, delayed items are dropped, adds are ignored', async () => {
    const clock = new FakeClock()
    const q = new WorkQueue<string>(clock, noLimit)
    const waiting = q.get()
    q.addAfter('later', 10)
    q.shutDown()
    expect(await waiting).toBeUndefined()
    q.add('x')
    clock.advance(100)
    expect(q.len()).toBe(0)
    expect(await q.get()).toBeUndefined()
  })

  it('ShutDownWithDrain waits for the items being processed', async () => {
    const q = new WorkQueue<string>(new FakeClock(), noLimit)
    q.add('a')
    await q.get()
    let drained = false
    const p = q.shutDownWithDrain().then(() => {
      drained = true
    })
    await new Promise((r) => setImmediate(r))
    expect(drained).toBe(false)
    q.done('a')
    await p
    expect(drained).toBe(true)
  })
})

describe('WorkQueue causes (why a key was queued)', () => {
  it('hands a worker the causes of every add since the key was last handed out', async () => {
    const clock = new FakeClock()
    const q = new WorkQueue<string>(clock, noLimit)
    q.add('ns/d', 'deployment updated')
    q.add('ns/d', 'replicaset ns/d-1 updated')
    const item = (await q.get()) as string
    expect(q.causesOf(item)).toEqual(['deployment updated', 'replicaset ns/d-1 updated'])
    // An add while the worker holds the key belongs to the next sync.
    q.add('ns/d', 'pod ns/p deleted, no pods left')
    expect(q.causesOf(item)).toEqual(['deployment updated', 'replicaset ns/d-1 updated'])
    q.done(item)
    expect(q.causesOf(item)).toEqual([])
    const again = (await q.get()) as string
    expect(q.causesOf(again)).toEqual(['pod ns/p deleted, no pods left'])
    q.done(again)
  })

  it('gives a delayed add its cause when it fires; one wake-up for two delayed adds carries both', async () => {
    const clock = new FakeClock()
    const q = new WorkQueue<string>(clock, noLimit)
    q.addAfter('ns/d', 5_000, 'progress check after 5s')
    q.addAfter('ns/d', 1_000, 'progress check after 1s')
    clock.advance(999)
    expect(q.len()).toBe(0)
    clock.advance(1)
    const item = (await q.get()) as string
    expect(q.causesOf(item)).toEqual(['progress check after 5s', 'progress check after 1s'])
    q.done(item)
    clock.advance(10_000)
    expect(q.len()).toBe(0)
  })

  it('keeps the reasons of an item queued once however often it is added', async () => {
    const clock = new FakeClock()
    const q = new WorkQueue<string>(clock, noLimit)
    for (let i = 0; i < 100; i++) q.add('ns/d', `event ${i}`)
    expect(q.len()).toBe(1)
    const item = (await q.get()) as string
    expect(q.causesOf(item)).toHaveLength(16)
    expect(q.causesOf(item)[0]).toBe('event 0')
  })
})

describe('handleErr', () => {
  it('forgets the back-off after a success', () => {
    const clock = new FakeClock()
    const q = new WorkQueue<string>(clock, defaultControllerRateLimiter<string>(clock))
    q.addRateLimited('ns/d')
    q.addRateLimited('ns/d')
    expect(handleErr(q, 'ns/d', undefined)).toEqual({action: 'forget'})
    expect(q.numRequeues('ns/d')).toBe(0)
  })

  it('requeues an error rate-limited up to 15 times, then drops the key', () => {
    const clock = new FakeClock()
    const q = new WorkQueue<string>(clock, defaultControllerRateLimiter<string>(clock))
    const err = new StatusError('Conflict', 409, 'conflict')
    const delays: number[] = []
    for (let i = 0; i < MAX_RETRIES; i++) {
      const d = handleErr(q, 'ns/d', err)
      expect(d.action).toBe('requeue')
      if (d.action === 'requeue') delays.push(d.delayMs)
    }
    expect(delays.slice(0, 4)).toEqual([5, 10, 20, 40])
    expect(delays[14]).toBe(5 * 2 ** 14)
    expect(handleErr(q, 'ns/d', err)).toEqual({action: 'drop'})
    expect(q.numRequeues('ns/d')).toBe(0)
  })

  it('forgets a key whose namespace is terminating', () => {
    const clock = new FakeClock()
    const q = new WorkQueue<string>(clock, defaultControllerRateLimiter<string>(clock))
    const err = new StatusError('Forbidden', 403, 'namespace x is being terminated', [
      {type: 'NamespaceTerminating'},
    ])
    expect(handleErr(q, 'x/d', err)).toEqual({action: 'forget'})
    expect(q.waitingCount()).toBe(0)
  })
})
