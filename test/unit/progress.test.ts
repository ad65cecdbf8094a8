import {describe, expect, it} from 'vitest'
import {Progress, progressWanted, withProgress} from '../../src/cli/progress.js'

/** A stream that records what is written, and timers that fire only when told. */
function fixture(isTTY = true, columns = 40) {
  const written: string[] = []
  const timers = new Map<number, {f: () => void; repeat: boolean}>()
  let next = 0
  const add = (repeat: boolean) => (f: () => void) => {
    timers.set(++next, {f, repeat})
    return next
  }
  const clear = (t: unknown) => {
    timers.delete(t as number)
  }
  return {
    written,
    stream: {isTTY, columns, write: (t: string) => written.push(t)},
    options: {setTimeout: add(false), setInterval: add(true), clearTimeout: clear, clearInterval: clear},
    /** Fires every pending timer once (a timeout is then gone). */
    tick() {
      for (const [id, t] of [...timers]) {
        if (!t.repeat) timers.delete(id)
        t.f()
      }
    },
    pending: () => timers.size,
  }
}

describe('progress line', () => {
  it('is wanted only on a terminal that is not dumb', () => {
    expect(progressWanted({isTTY: true, write() {}}, {})).toBe(true)
    expect(progressWanted({isTTY: false, write() {}}, {})).toBe(false)
    expect(progressWanted({write() {}}, {})).toBe(false)
    expect(progressWanted({isTTY: true, write() {}}, {TERM: 'dumb'})).toBe(false)
  })

  it('writes nothing when not wanted, even for long work or showNow', () => {
    const f = fixture(false)
    const p = new Progress(f.stream, false, f.options)
    p.set('reading big.yaml')
    p.showNow()
    f.tick()
    p.stop()
    expect(f.written).toEqual([])
    expect(f.pending()).toBe(0)
  })

  it('appears only once the delay is over, spins, and is erased at the end', () => {
    const f = fixture()
    const p = new Progress(f.stream, true, f.options)
    p.set('listing the cluster')
    expect(f.written).toEqual([])
    f.tick() // the delay
    expect(f.written).toEqual(['\r| listing the cluster'])
    f.tick() // the spinner
    expect(f.written.at(-1)).toBe('\r/ listing the cluster')
    p.stop()
    expect(f.written.at(-1)).toBe(`\r${' '.repeat(21)}\r`)
    expect(f.pending()).toBe(0)
  })

  it('work that ends before the delay leaves no trace', async () => {
    const f = fixture()
    const p = new Progress(f.stream, true, f.options)
    expect(await withProgress(p, async () => 42)).toBe(42)
    expect(f.written).toEqual([])
    expect(f.pending()).toBe(0)
  })

  it('showNow draws at once; a longer label is cut to the width, a shorter one blanks the rest', () => {
    const f = fixture(true, 20)
    const p = new Progress(f.stream, true, f.options)
    p.set('reading a-file-with-a-long-name.yaml (30 MB)')
    p.showNow()
    expect(f.written).toEqual(['\r| reading a-file-w…']) // 19 columns: never the last one
    p.set('done?')
    expect(f.written.at(-1)).toBe(`\r/ done?${' '.repeat(12)}`)
  })

  it('erases itself for a warning and comes back after it', () => {
    const f = fixture()
    const p = new Progress(f.stream, true, f.options)
    p.set('x')
    p.showNow()
    p.print(() => f.written.push('warning: w\n'))
    expect(f.written).toEqual(['\r| x', '\r   \r', 'warning: w\n', '\r/ x'])
  })

  it('is erased when the work fails, and the error passes through', async () => {
    const f = fixture()
    const p = new Progress(f.stream, true, f.options)
    p.showNow()
    await expect(withProgress(p, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(f.written.at(-1)).toMatch(/^\r +\r$/)
  })
})

describe('progress line width', () => {
  it('a terminal of unknown size (0 columns) counts as 80', () => {
    const written: string[] = []
    const p = new Progress({isTTY: true, columns: 0, write: (t) => written.push(t)}, true, {
      setInterval: () => 1,
      clearInterval: () => {},
      setTimeout: () => 2,
      clearTimeout: () => {},
    })
    p.set('x'.repeat(100))
    p.showNow()
    expect(written[0]).toBe(`\r| ${'x'.repeat(76)}…`)
  })
})
