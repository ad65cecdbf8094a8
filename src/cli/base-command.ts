// The shared base of every command: where it writes, and error handling in one place (the flags
// are composed from the groups of flags.ts).
// Kept light (only @oclif/core and local modules without dependencies) so that `--help` is fast.

import {Command} from '@oclif/core/command'
import * as Errors from '@oclif/core/errors'
import type {Input, ParserOutput} from '@oclif/core/interfaces'
import {errorText, exitCodeFor, isExpected} from '../errors.js'
import {createLogger} from '../run/log.js'
import {escapeControl, terminalText} from '../util/terminal.js'
import {type FlagSpec, pflagBooleans} from './pflag.js'
import {unknownFlagMessage} from './suggest.js'

/** Where a command writes; commands never touch process.stdout directly, so they can be driven in tests. */
export interface IO {
  out(text: string): void
  /**
   * Resolves once stdout has written out what it holds, if it holds more than its buffer: Node
   * writes to a pipe asynchronously, so a pipe to a slower reader would otherwise queue the whole
   * of a large output in memory. Absent: nothing to wait for.
   */
  drain?(): Promise<void>
  err(text: string): void
  stdoutIsTTY: boolean
  /** The terminal's width when stdout is one. */
  stdoutColumns?: number
  env: NodeJS.ProcessEnv
  /**
   * stderr as a terminal, for a progress line (cli/progress.ts); absent: never one. `write` sends
   * our own cursor control (\r) unescaped, which err() would escape; what it carries from a file
   * or a cluster is escaped by the caller.
   */
  stderrTerminal?: {isTTY?: boolean; columns?: number; write?(text: string): void}
}

export const processIO: IO = {
  out: (text) => {
    process.stdout.write(text)
  },
  drain: () => {
    const out = process.stdout
    if (!out.writableNeedDrain || out.destroyed) return Promise.resolve()
    return new Promise((resolve) => {
      const done = () => {
        out.off('drain', done)
        out.off('error', done)
        out.off('close', done)
        resolve()
      }
      out.on('drain', done)
      out.on('error', done)
      out.on('close', done)
    })
  },
  // stderr carries no colour of ours: only layout passes, any other control character is escaped.
  err: (text) => {
    process.stderr.write(terminalText(text))
  },
  // Read when asked, not when this module loads: the single executable loads it while its start-up
  // snapshot is made, where stdout is no terminal.
  get stdoutIsTTY() {
    return process.stdout.isTTY === true
  },
  get stdoutColumns() {
    return process.stdout.columns
  },
  env: process.env,
  get stderrTerminal() {
    return {
      isTTY: process.stderr.isTTY === true,
      columns: process.stderr.columns,
      write: (text: string) => {
        process.stderr.write(text)
      },
    }
  },
}

/** What a command's options object does, in kubectl's order: Complete, Validate, Run. */
export interface CommandOptions<F> {
  complete(flags: F, args: readonly string[]): Promise<void>
  validateOptions(): Promise<void>
  /** The exit code. */
  run(): Promise<number>
  /** Errors about part of the request (a missing name among several), printed after the output. */
  partialErrors?(): ReadonlyArray<string | Error>
}

// biome-ignore lint/suspicious/noExplicitAny: oclif's own bound of parsed flags and args (FlagOutput)
type OclifOutput = Record<string, any>

export abstract class BaseCommand extends Command {
  /**
   * oclif's parse, with kubectl's grammar for boolean flags (cli/pflag.ts): they are taken out of
   * the command line first and their values set over oclif's, so `--x=false` is false on every
   * command. At -v 1 and above every flag's value is logged, as kube-controller-manager logs its
   * flags (component-base cliflag.PrintFlags).
   */
  protected override async parse<F extends OclifOutput, B extends OclifOutput, A extends OclifOutput>(
    options?: Input<F, B, A>,
    argv: string[] = this.argv,
  ): Promise<ParserOutput<F, B, A>> {
    const input = options ?? (this.ctor as unknown as Input<F, B, A>)
    const specs = (input.flags ?? {}) as unknown as Record<string, FlagSpec>
    let stripped: ReturnType<typeof pflagBooleans>
    try {
      stripped = pflagBooleans(argv, specs)
    } catch (err) {
      // A bad boolean value is a parse error like oclif's: the command did parse.
      this.parsed = true
      throw err
    }
    const out = await super.parse(options, stripped.argv)
    Object.assign(out.flags as Record<string, unknown>, stripped.booleans)
    const flags = out.flags as Record<string, unknown>
    if (typeof flags.v === 'number' && flags.v >= 1) logFlags(flags, specs, flags['log-format'] === 'json')
    return out
  }

  /** Completes, validates and runs the options; the exit code becomes the process's. */
  protected async runOptions<F>(
    options: CommandOptions<F>,
    flags: F,
    argv: readonly unknown[],
  ): Promise<void> {
    // --exit-code (flags.ts exitCodeFlag): 1 means "something changes", so an error is 2 or more.
    if ((flags as {'exit-code'?: boolean})['exit-code'] === true) this.errorExitFloor = 2
    await options.complete(flags, argv as string[])
    await options.validateOptions()
    const code = await options.run()
    const partial = options.partialErrors?.() ?? []
    for (const e of partial) processIO.err(errorText(e, escapeControl))
    process.exitCode = partial.length > 0 ? Math.max(code, this.errorExitFloor) : code
  }

  /**
   * The lowest exit code an error may have: 2 under `--exit-code`, where 1 means "would change"
   * (as with `kubectl diff`).
   */
  protected errorExitFloor = 1

  /**
   * The one place errors become a message and an exit code, in kubectl's words (errors.ts
   * errorText: `error: <message>`, the server's answers as `Error from server (Reason): ...`), no
   * stack trace.
   */
  protected override async catch(err: Error): Promise<void> {
    if (err instanceof Errors.ExitError) throw err
    const expected = isExpected(err)
    const parseError = err instanceof Errors.CLIError
    // The command did call parse(); without this, oclif warns "did not parse its arguments" on
    // stderr after a flag error whenever NODE_ENV is development or test.
    if (parseError) this.parsed = true
    processIO.err(
      parseError ? `error: ${escapeControl(this.parseErrorMessage(err))}\n` : errorText(err, escapeControl),
    )
    if (!expected && !parseError && (process.env.DEBUG || verbosity(this.argv) >= 6) && err.stack) {
      processIO.err(`${err.stack}\n`)
    }
    process.exitCode = Math.max(exitCodeFor(err), this.errorExitFloor)
  }

  /** A parse error in one line; an unknown flag as kubectl words it, with the flags close to it. */
  private parseErrorMessage(err: Error): string {
    const typed = (err as {flags?: unknown}).flags
    if (/^Nonexistent flags?:/.test(err.message) && Array.isArray(typed)) {
      return unknownFlagMessage(typed.map(String), this.ctor.flags ?? {})
    }
    return oneLine(err.message)
  }
}

/**
 * oclif's parse errors span lines (`Parsing --v \n\tExpected an integer...\nSee more help with
 * --help`); errors here are one line, so scripts can read them.
 */
export function oneLine(message: string): string {
  const text = message
    .replace(/\s*See more help with --help\s*$/, '')
    .replace(/^Parsing (--\S+)\s*\n\s*/, '$1: ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ')
  return `${text} (see --help)`
}

/** Flags whose values are never printed, not even in the -v 1 flag log. */
const SECRET_FLAGS = new Set(['token', 'password'])

/**
 * One line per flag on stderr, sorted by name: `FLAG: --name="value"`, in run's log format (klog's
 * text, or JSON with --log-format json). upstream: component-base cliflag.PrintFlags.
 */
function logFlags(values: Record<string, unknown>, specs: Record<string, FlagSpec>, json: boolean): void {
  const logger = createLogger({
    format: json ? 'json' : 'text',
    verbosity: 1,
    write: (line) => processIO.err(`${line}\n`),
  })
  for (const name of Object.keys(specs).sort()) {
    const raw = values[name]
    const text =
      raw === undefined
        ? ''
        : SECRET_FLAGS.has(name)
          ? '<redacted>'
          : Array.isArray(raw)
            ? `[${raw.join(',')}]`
            : String(raw)
    logger.debug(1, `FLAG: --${name}=${JSON.stringify(text)}`)
  }
}

/** The -v level from raw arguments (errors can happen before flags are parsed). */
function verbosity(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const m = /^--?v(?:=?(\d+))?$/.exec(argv[i] ?? '')
    if (!m) continue
    const value = m[1] ?? argv[i + 1]
    if (value && /^\d+$/.test(value)) return Number(value)
  }
  return 0
}
