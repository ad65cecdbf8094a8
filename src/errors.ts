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

/**
 * An API object that is not there (a named Deployment), worded as kubectl words it: read from a
 * cluster it is the server's NotFound (`Error from server (NotFound): deployments.apps "x" not
 * found`), read from files `error: deployments.apps "x" not found`. `hint` (where else the input
 * holds one) is printed on its own line after it.
 */
export class NotFoundError extends CommandError {
  readonly exitCode = EXIT.failure
  readonly reason = 'NotFound'
  constructor(
    message: string,
    readonly fromServer: boolean,
    readonly hint?: string,
  ) {
    super(message)
    this.name = 'NotFoundError'
  }
}

/** What the API server answered, when the error is its answer (a StatusError, or a NotFound read from it). */
function serverStatus(err: unknown): {reason: string} | undefined {
  if (err instanceof NotFoundError) return err.fromServer ? {reason: err.reason} : undefined
  const e = err as {name?: unknown; reason?: unknown; code?: unknown} | null
  if (e?.name === 'StatusError' && typeof e.reason === 'string' && typeof e.code === 'number')
    return {reason: e.reason === 'Unknown' ? '' : e.reason}
  return undefined
}

/** kubectl prints these as they are, without `error: `. */
const CONNECTION_MESSAGE = /^(Unable to connect to the server\b|The connection to the server )/

/**
 * The text an error is printed as, in kubectl's words: the server's answers as `Error from server
 * (Reason): message` (a 401 as `error: You must be logged in to the server (...)`), an unreachable
 * server as kubectl says it, everything else `error: message`; a hint on the next line. `safe`
 * makes each piece safe for the terminal. upstream: kubectl cmdutil checkErr, StandardErrorMessage.
 */
export function errorText(err: unknown, safe: (text: string) => string = (t) => t): string {
  const message = safe(err instanceof Error ? err.message : String(err))
  const status = serverStatus(err)
  let head: string
  if (status !== undefined) {
    if (status.reason === 'Unauthorized') {
      head = `error: ${message.startsWith('You must be logged in') ? message : `You must be logged in to the server (${message})`}`
    } else
      head = status.reason
        ? `Error from server (${status.reason}): ${message}`
        : `Error from server: ${message}`
  } else if (
    (err as {name?: unknown} | null)?.name === 'ConnectionError' &&
    CONNECTION_MESSAGE.test(message)
  ) {
    head = message
  } else head = message.startsWith('error: ') ? message : `error: ${message}`
  const hint = (err as {hint?: unknown} | null)?.hint
  return typeof hint === 'string' && hint !== '' ? `${head}\n${safe(hint)}\n` : `${head}\n`
}
