// The option objects of the flag groups (flags.ts), as kubectl's genericclioptions hold theirs:
// ConfigFlags (the connection: --kubeconfig, --context, --server, --token...), PrintFlags (-o,
// --no-headers, the formats a command allows), FileNameFlags (-f, -R, --validate), and the
// selection kubectl's commands keep beside them (-n, -A, -l and the names). Each completes itself
// from the parsed flags and validates itself; a command's options object is composed of the groups
// it has instead of inheriting them. Heavy modules are imported inside complete()/validate().

import type {ConnectionFlags} from '../cluster/live/kubeconfig.js'
import type {Selection} from '../pass/selection.js'
import {type OutputFormat, type OutputKind, parseOutput} from '../render/output.js'
import type {IO} from './base-command.js'
import type {MultiContextFlagValues} from './contexts.js'

/** The values of the flag groups of flags.ts, as oclif parses them. */
export interface InputFlagValues {
  filename?: string[]
  recursive: boolean
  validate: string
}

export interface SelectionFlagValues {
  namespace?: string
  'all-namespaces': boolean
  selector?: string
}

export interface OutputFlagValues {
  output?: string
  'no-headers'?: boolean
}

export type ValidateMode = 'strict' | 'warn' | 'ignore'

/** upstream: genericclioptions.FileNameFlags (-f, -R) with kubectl's --validate. */
export class FileNameOptions {
  files: string[] = []
  recursive = false
  validate: ValidateMode = 'strict'

  complete(flags: InputFlagValues): void {
    this.files = flags.filename ?? []
    this.recursive = flags.recursive
    // kubectl's --validate: true is strict, false is ignore.
    this.validate =
      flags.validate === 'true'
        ? 'strict'
        : flags.validate === 'false'
          ? 'ignore'
          : (flags.validate as ValidateMode)
  }

  /** No -f: the command reads the cluster. */
  get isEmpty(): boolean {
    return this.files.length === 0
  }
}

/** upstream: genericclioptions.PrintFlags: -o among the formats the command allows, --no-headers. */
export class PrintOptions {
  output: OutputFormat
  noHeaders = false

  constructor(
    readonly allowed: readonly OutputKind[] = ['table', 'wide', 'json', 'yaml', 'name', 'jsonpath'],
    readonly defaultKind: OutputKind = 'table',
  ) {
    this.output = {kind: defaultKind} as OutputFormat
  }

  /** Parses -o (an unknown format is a usage error naming the allowed ones). */
  complete(flags: OutputFlagValues): void {
    const given = flags.output === undefined || flags.output === '' ? this.defaultKind : flags.output
    this.output = parseOutput(given, this.allowed)
    this.noHeaders = flags['no-headers'] === true
  }

  /**
   * Prints a command's document (upstream: PrintFlags.ToPrinter, then PrintObj): -o
   * json|yaml|name|jsonpath from the document itself, a table by the command's renderer (nothing
   * for no items: "No resources found" went to stderr).
   */
  async print(
    io: IO,
    doc: {items: unknown[]},
    table: (options: {
      format: OutputFormat
      noHeaders: boolean
      color: boolean
      /** The width to wrap text to: the terminal's, else $COLUMNS; undefined: lines as long as they are. */
      width: number | undefined
    }) => Promise<string>,
  ): Promise<void> {
    const {isStructured, renderStructured} = await import('../render/output.js')
    if (this.output.kind === 'json') {
      // Written a piece at a time: the whole text of a large document is never held at once, nor
      // queued for a pipe (each piece waits until the ones before it are written).
      const {jsonChunks} = await import('../render/document.js')
      for (const chunk of jsonChunks(doc)) {
        io.out(chunk)
        await io.drain?.()
      }
      return
    }
    if (isStructured(this.output)) {
      io.out(await renderStructured(doc, this.output))
      return
    }
    if (doc.items.length === 0) return
    const {wantColor} = await import('../render/style.js')
    const color = wantColor({isTTY: io.stdoutIsTTY}, io.env)
    const {terminalText} = await import('../util/terminal.js')
    io.out(
      terminalText(
        await table({format: this.output, noHeaders: this.noHeaders, color, width: terminalWidth(io)}),
        {color},
      ),
    )
  }
}

/** The terminal's width when stdout is one, else $COLUMNS, else undefined. */
export function terminalWidth(
  io: {stdoutIsTTY: boolean; stdoutColumns?: number; env: NodeJS.ProcessEnv},
  columns = io.stdoutColumns,
): number | undefined {
  if (io.stdoutIsTTY && columns !== undefined && columns > 0) return columns
  const env = Number.parseInt(io.env.COLUMNS ?? '', 10)
  return Number.isFinite(env) && env > 0 ? env : undefined
}

/** upstream: genericclioptions.ConfigFlags: how to reach the cluster (--kubeconfig, --context, ...). */
export class ConfigOptions {
  connectionFlags: ConnectionFlags = {}

  /** Keeps the connection flags given; a bad --request-timeout is refused here. */
  async complete(flags: ConnectionFlags): Promise<void> {
    const {connectionFlagsOf, parseRequestTimeout} = await import('../cluster/live/kubeconfig.js')
    this.connectionFlags = connectionFlagsOf(flags)
    const timeout = this.connectionFlags['request-timeout']
    if (timeout !== undefined) parseRequestTimeout(timeout)
  }
}

/** -n, -A, -l and the Deployments named as arguments. */
export class SelectionOptions {
  selection: Selection = {}
  /** -n was given (without it, files select from every namespace their objects name). */
  namespaceGiven = false

  /** `names`: the arguments that name Deployments (none when the command parses them itself). */
  async complete(flags: SelectionFlagValues, names: readonly string[]): Promise<void> {
    const {parseNames} = await import('../pass/selection.js')
    this.namespaceGiven = flags.namespace !== undefined
    this.selection = {
      names: parseNames(names),
      namespace: flags.namespace,
      allNamespaces: flags['all-namespaces'],
      labelSelector: flags.selector,
    }
  }

  async validate(io: IO): Promise<void> {
    const {validateSelection} = await import('../pass/selection.js')
    validateSelection(this.selection)
    if (this.selection.allNamespaces && this.selection.namespace) {
      // kubectl lets -A win silently; saying so avoids a surprising selection.
      io.err(`Warning: -A/--all-namespaces overrides --namespace ${this.selection.namespace}\n`)
    }
  }
}

/**
 * --context repeated and --all-contexts (flags.ts multiContextFlags): the clusters a command covers
 * one run each (explain --summary, the rollout gate). No kubectl command has it; it sits beside
 * ConfigOptions, whose --context it fills with the first context.
 */
export class ContextsOptions {
  /** The contexts to cover (empty: one cluster, the connection flags' context). */
  contexts: string[] = []
  /** The --context for ConfigOptions: the only one given, or the first of several. */
  first: string | undefined
  allContexts = false

  async complete(flags: MultiContextFlagValues): Promise<void> {
    const {completeContexts} = await import('./contexts.js')
    const {first, many} = await completeContexts(flags)
    this.first = first
    this.contexts = many
    this.allContexts = flags['all-contexts'] === true
  }

  /** Several contexts read clusters: refused with -f. */
  async validate(fileNames: FileNameOptions): Promise<void> {
    const {validateContexts} = await import('./contexts.js')
    validateContexts(this.contexts, fileNames.files, this.allContexts)
  }

  get isMany(): boolean {
    return this.contexts.length > 0
  }
}
