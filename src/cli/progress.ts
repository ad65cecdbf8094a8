// A progress line on stderr for work that takes a while (reading large files, listing a cluster):
// only when stderr is a terminal (never in a pipe, a file or a test), after about a second, on one
// line that is erased when the work ends, so that nothing of it stays on the screen or reaches
// stdout. Work that blocks the event loop (parsing one large file) cannot be timed while it runs:
// the caller shows the line before it starts (showNow) when the size says it will take long.

/** Where the line goes: process.stderr, or a stand-in in tests. */
export interface ProgressStream {
  isTTY?: boolean
  columns?: number
  write(text: string): unknown
}

export interface ProgressOptions {
  /** Show the line only after this long (default 1 s). */
  delayMs?: number
  /** Redraw (the spinner) this often (default 120 ms). */
  intervalMs?: number
  setTimeout?: (f: () => void, ms: number) => unknown
  clearTimeout?: (t: unknown) => void
  setInterval?: (f: () => void, ms: number) => unknown
  clearInterval?: (t: unknown) => void
}

const FRAMES = ['|', '/', '-', '\\']

/** A progress line is for a person at a terminal: stderr a TTY, and a terminal that can go back a column. */
export function progressWanted(stream: ProgressStream, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && env.TERM !== 'dumb'
}

export class Progress {
  private label = ''
  private frame = 0
  private shown = 0
  private delay: unknown
  private ticker: unknown
  private done = false
  private readonly o: Required<ProgressOptions>

  constructor(
    private readonly stream: ProgressStream,
    private readonly enabled: boolean,
    options: ProgressOptions = {},
  ) {
    this.o = {
      delayMs: options.delayMs ?? 1000,
      intervalMs: options.intervalMs ?? 120,
      setTimeout: options.setTimeout ?? ((f, ms) => setTimeout(f, ms).unref()),
      clearTimeout: options.clearTimeout ?? ((t) => clearTimeout(t as NodeJS.Timeout)),
      setInterval: options.setInterval ?? ((f, ms) => setInterval(f, ms).unref()),
      clearInterval: options.clearInterval ?? ((t) => clearInterval(t as NodeJS.Timeout)),
    }
    if (enabled) this.delay = this.o.setTimeout(() => this.showNow(), this.o.delayMs)
  }

  /** What is being done now (`reading big.yaml (120 MB)`); redrawn when the line is shown. */
  set(label: string): void {
    this.label = label
    if (this.ticker !== undefined) this.draw()
  }

  /** Shows the line at once: before work that blocks the event loop for long. */
  showNow(): void {
    if (!this.enabled || this.done || this.ticker !== undefined) return
    if (this.delay !== undefined) this.o.clearTimeout(this.delay)
    this.delay = undefined
    this.ticker = this.o.setInterval(() => this.draw(), this.o.intervalMs)
    this.draw()
  }

  /** Writes something else to the stream (a warning): the line is erased first and drawn again after. */
  print(write: () => void): void {
    if (this.shown > 0) {
      this.stream.write(`\r${' '.repeat(this.shown)}\r`)
      this.shown = 0
    }
    write()
    if (this.ticker !== undefined && !this.done) this.draw()
  }

  /** Erases the line (when it was shown) and stops. */
  stop(): void {
    if (this.done) return
    this.done = true
    if (this.delay !== undefined) this.o.clearTimeout(this.delay)
    if (this.ticker !== undefined) this.o.clearInterval(this.ticker)
    if (this.shown > 0) this.stream.write(`\r${' '.repeat(this.shown)}\r`)
  }

  private draw(): void {
    // A terminal of unknown size (0 columns, as a pty nobody sized) counts as 80 wide.
    const columns = this.stream.columns !== undefined && this.stream.columns > 0 ? this.stream.columns : 80
    const width = Math.max(10, columns - 1)
    let text = `${FRAMES[this.frame++ % FRAMES.length]} ${this.label}`
    if ([...text].length > width) text = `${[...text].slice(0, width - 1).join('')}…`
    const length = [...text].length
    // Blanks over what a longer line before left; the line never wraps, so \r reaches its start.
    this.stream.write(`\r${text}${' '.repeat(Math.max(0, this.shown - length))}`)
    this.shown = Math.max(length, this.shown)
  }
}

/** Runs `work` with a progress line; the line is erased before the result (or error) returns. */
export async function withProgress<T>(progress: Progress, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } finally {
    progress.stop()
  }
}
