// The entry bin/run.cjs loads: oclif's runtime, bundled with the commands so that there is one copy.
// Subpath imports (here and in the commands) skip @oclif/core's index, which loads every part of
// oclif and checks the engine version with semver on each start.
//
// oclif runs the command line; this adds kubectl's habits around it: `help COMMAND...` (and -h,
// package.json's additionalHelpFlags), and one error style: what a command does not catch itself
// (an unknown command, a help subject that does not exist) is printed as `error: ...` with cobra's
// "Did you mean this?", never as oclif's ` ›   Error:`.

import {Config} from '@oclif/core/config'
import * as Errors from '@oclif/core/errors'
import {flush} from '@oclif/core/flush'
import type {LoadOptions} from '@oclif/core/interfaces'
import {run} from '@oclif/core/run'
import {oneLine} from './cli/base-command.js'
import {unknownCommand, unknownCommandMessage} from './cli/suggest.js'
import {exitCodeFor} from './errors.js'

export interface ExecuteOptions {
  /** The package's directory (bin/run.cjs). */
  dir?: string
  /** The arguments (default: process.argv after the script). */
  args?: string[]
  /** oclif's load options (the single executable's virtual root and package.json). */
  loadOptions?: LoadOptions & {root: string}
}

/** The name errors give the command line, as help shows it and kubectl's plugin users type it. */
const BIN = 'kubectl deployctl'

export async function execute(options: ExecuteOptions): Promise<void> {
  const load = options.loadOptions ?? options.dir
  if (load === undefined) throw new Error('execute: dir or loadOptions is required')
  const argv = helpArgs(options.args ?? process.argv.slice(2))
  try {
    await run(argv, load)
    await flush()
  } catch (err) {
    await report(err, argv, load)
  }
}

/**
 * kubectl's `help [COMMAND...]`: the help of the command (or topic) named, the root's without one.
 * oclif has no help command unless its help plugin is installed; `--help` after the words does it.
 */
export function helpArgs(argv: readonly string[]): string[] {
  if (argv[0] !== 'help') return [...argv]
  const words = argv.slice(1).filter((a) => !a.startsWith('-'))
  return [...words, '--help']
}

/** An error that reached the top: one `error: ...` line (cobra's suggestions for an unknown command). */
async function report(err: unknown, argv: readonly string[], load: string | LoadOptions): Promise<void> {
  if (err instanceof Errors.ExitError) {
    process.exitCode = err.oclif.exit ?? 0
    return
  }
  const message = err instanceof Error ? err.message : String(err)
  let text: string | undefined
  // oclif's words for a command line that names no command: `command explian:api not found`
  // (running it) or `Command explian not found.` (its help).
  if (/^command \S+ not found\.?$/i.test(message)) text = await notFound(argv, load)
  if (text === undefined) text = err instanceof Errors.CLIError ? oneLine(message) : message
  process.stderr.write(`error: ${text.endsWith('\n') ? text : `${text}\n`}`)
  process.exitCode = exitCodeFor(err)
}

/** cobra's message for the first word that names no command, with the commands close to it. */
async function notFound(argv: readonly string[], load: string | LoadOptions): Promise<string | undefined> {
  const config = await Config.load(load)
  const words = argv.filter((a) => a !== '--help' && a !== '-h')
  const found = unknownCommand(words, {
    commandIDs: config.commandIDs.filter((id) => !config.findCommand(id)?.hidden),
    topics: config.topics.filter((t) => !t.hidden).map((t) => t.name),
  })
  return found ? unknownCommandMessage(BIN, found) : undefined
}
