// The shared base of every command: the flags defined once, and error handling in one place.
// Kept light (only @oclif/core and local modules without dependencies) so that `--help` is fast.

import {Command} from '@oclif/core/command'
import * as Errors from '@oclif/core/errors'
import * as Flags from '@oclif/core/flags'
import {exitCodeFor, isExpected} from '../errors.js'

/** Selection, input and pass flags shared by the commands that run a pass. */
export const passFlags = {
  filename: Flags.string({
    char: 'f',
    multiple: true,
    delimiter: ',',
    helpValue: 'FILE',
    description: 'Files or directories with Deployments, ReplicaSets and Pods (YAML or JSON; - for stdin).',
  }),
  recursive: Flags.boolean({
    char: 'R',
    default: false,
    description: 'Process the directories given with -f recursively.',
  }),
  namespace: Flags.string({
    char: 'n',
    helpValue: 'NS',
    description: 'Namespace of the Deployments to sync (default "default").',
  }),
  'all-namespaces': Flags.boolean({
    char: 'A',
    default: false,
    description: 'Sync the Deployments of every namespace.',
  }),
  selector: Flags.string({
    char: 'l',
    helpValue: 'SELECTOR',
    description: "Label selector (kubectl syntax: 'a=b,c!=d,e in (x,y),!f').",
  }),
  now: Flags.string({
    helpValue: 'RFC3339',
    description: "The controller's clock, e.g. 2026-11-29T10:05:00Z (default: the current time).",
  }),
  'feature-gates': Flags.string({
    helpValue: 'NAME=BOOL,...',
    description:
      'kube-controller-manager feature gates: DeploymentReplicaSetTerminatingReplicas (default true), DeploymentPodReplacementPolicy (default false).',
  }),
  validate: Flags.string({
    options: ['strict', 'warn', 'ignore', 'true', 'false'],
    default: 'strict',
    description: 'What to do with objects the API server would reject: fail, warn, or ignore.',
  }),
  kubeconfig: Flags.string({helpGroup: 'CLUSTER', description: 'Path to the kubeconfig file (live mode).'}),
  context: Flags.string({helpGroup: 'CLUSTER', description: 'The kubeconfig context to use (live mode).'}),
  cluster: Flags.string({helpGroup: 'CLUSTER', description: 'The kubeconfig cluster to use (live mode).'}),
  user: Flags.string({helpGroup: 'CLUSTER', description: 'The kubeconfig user to use (live mode).'}),
  'request-timeout': Flags.string({
    helpGroup: 'CLUSTER',
    helpValue: 'DURATION',
    description: 'Timeout of a single request to the server, e.g. 30s; 0 waits forever (live mode).',
  }),
  'insecure-skip-tls-verify': Flags.boolean({
    helpGroup: 'CLUSTER',
    default: false,
    description: "Do not check the server's certificate (live mode).",
  }),
  as: Flags.string({helpGroup: 'CLUSTER', description: 'User to impersonate (live mode).'}),
  'as-group': Flags.string({
    helpGroup: 'CLUSTER',
    multiple: true,
    description: 'Group to impersonate; repeat for several (live mode).',
  }),
  v: Flags.integer({
    char: 'v',
    min: 0,
    default: 0,
    helpGroup: 'GLOBAL',
    description: 'Log level; 6 or more prints stack traces of unexpected errors.',
  }),
}

/** The -o flag, with the formats a command prints. */
export function outputFlag<T extends string>(formats: readonly T[], defaultFormat: T) {
  return Flags.string({
    char: 'o',
    options: [...formats],
    default: defaultFormat,
    description: 'Output format.',
  })
}

/** Where a command writes; commands never touch process.stdout directly, so they can be driven in tests. */
export interface IO {
  out(text: string): void
  err(text: string): void
  stdoutIsTTY: boolean
  env: NodeJS.ProcessEnv
}

export const processIO: IO = {
  out: (text) => {
    process.stdout.write(text)
  },
  err: (text) => {
    process.stderr.write(text)
  },
  stdoutIsTTY: process.stdout.isTTY === true,
  env: process.env,
}

export abstract class BaseCommand extends Command {
  /**
   * The lowest exit code an error may have: 2 under `--exit-code`, where 1 means "would change"
   * (as with `kubectl diff`).
   */
  protected errorExitFloor = 1

  /** The one place errors become a message and an exit code: `error: <message>`, no stack trace. */
  protected override async catch(err: Error): Promise<void> {
    if (err instanceof Errors.ExitError) throw err
    const expected = isExpected(err)
    const parseError = err instanceof Errors.CLIError
    // The command did call parse(); without this, oclif warns "did not parse its arguments" on
    // stderr after a flag error whenever NODE_ENV is development or test.
    if (parseError) this.parsed = true
    processIO.err(`error: ${parseError ? oneLine(err.message) : err.message}\n`)
    if (!expected && !parseError && (process.env.DEBUG || verbosity(this.argv) >= 6) && err.stack) {
      processIO.err(`${err.stack}\n`)
    }
    process.exitCode = Math.max(exitCodeFor(err), this.errorExitFloor)
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
