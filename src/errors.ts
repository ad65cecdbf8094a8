// The errors a command ends with, and the exit code each carries: the one place that maps a failure
// to a number (docs/output.md, Exit codes). Every layer may throw these; only src/cli turns them into
// `error: <message>` and process.exitCode.

/** Exit codes, as kubectl and oclif use them. */
export const EXIT = {
  ok: 0,
  /** Bad input, a failed sync, an unreachable cluster; with --exit-code: something would change. */
  failure: 1,
  /** Wrong flags or arguments; with --exit-code: any error. */
  usage: 2,
  /** Interrupted (Ctrl-C), as a shell reports SIGINT. */
  interrupted: 130,
} as const

/** An error that knows its exit code. */
export abstract class CommandError extends Error {
  abstract readonly exitCode: number
}

/** A problem with the user's input: printed as one line, exit code 1, no stack trace. */
export class InputError extends CommandError {
  readonly exitCode = EXIT.failure
  constructor(message: string) {
    super(message)
    this.name = 'InputError'
  }
}

/** Wrong flags or arguments: exit code 2, as kubectl and oclif do for usage errors. */
export class UsageError extends CommandError {
  readonly exitCode = EXIT.usage
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/**
 * An error the user caused and can read as it is (no stack trace): ours, or one that carries an
 * exit code of its own (the controller's FeatureGateError has `exitCode` 2 without importing this).
 */
export function isExpected(err: unknown): boolean {
  return err instanceof CommandError || typeof exitCodeOf(err) === 'number'
}

function exitCodeOf(err: unknown): number | undefined {
  const code = (err as {exitCode?: unknown} | null)?.exitCode
  return typeof code === 'number' ? code : undefined
}

/**
 * The exit code of an error: its own when it carries one (usage 2, input 1), oclif's parse errors
 * their `oclif.exit` (2), anything unexpected 1.
 */
export function exitCodeFor(err: unknown): number {
  const own = exitCodeOf(err)
  if (own !== undefined) return own
  const oclif = (err as {oclif?: {exit?: unknown}} | null)?.oclif
  if (oclif && typeof oclif === 'object') return typeof oclif.exit === 'number' ? oclif.exit : EXIT.usage
  return EXIT.failure
}
