// What the commands that run a pass have in common, as kubectl's option structs: complete() turns
// flags into values, validate() checks them, then load() and pass() do the work. Heavy modules
// (the loader, the controller) are imported inside those steps, never at the top.

import type {ApiClient} from '../cluster/live/api.js'
import type {Connection, ConnectionFlags} from '../cluster/live/kubeconfig.js'
import type {World} from '../cluster/world.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {UsageError} from '../errors.js'
import type {PassOutcome} from '../pass/run.js'
import type {Selection} from '../pass/selection.js'
import type {IO} from './base-command.js'

export interface PassFlags {
  filename?: string[]
  recursive: boolean
  namespace?: string
  'all-namespaces': boolean
  selector?: string
  now?: string
  'feature-gates'?: string
  validate: string
  kubeconfig?: string
  context?: string
  cluster?: string
  user?: string
  'request-timeout'?: string
  'insecure-skip-tls-verify'?: boolean
  as?: string
  'as-group'?: string[]
  v?: number
}

/** A connection to a live cluster, kept for commands that write (reconcile-once). */
export interface LiveSession {
  api: ApiClient
  connection: Connection
}

export type ValidateMode = 'strict' | 'warn' | 'ignore'

export class PassOptions {
  files: string[] = []
  recursive = false
  validate: ValidateMode = 'strict'
  selection: Selection = {}
  now = 0
  gates!: FeatureGates & {values: Record<string, boolean>}
  connectionFlags: ConnectionFlags = {}
  verbosity = 0
  /** Set by load() in live mode (no -f). */
  live: LiveSession | undefined
  /** Which pods a live read lists: the pass needs them only for Recreate Deployments. */
  protected livePods: 'always' | 'never' | 'recreate-only' = 'recreate-only'

  constructor(protected readonly io: IO) {}

  async complete(flags: PassFlags, args: readonly string[]): Promise<void> {
    const {parseNames} = await import('../pass/selection.js')
    const {parseFeatureGates} = await import('../controller/features.js')
    this.files = flags.filename ?? []
    this.recursive = flags.recursive
    this.validate =
      flags.validate === 'true'
        ? 'strict'
        : flags.validate === 'false'
          ? 'ignore'
          : (flags.validate as ValidateMode)
    this.selection = {
      names: parseNames(args),
      namespace: flags.namespace,
      allNamespaces: flags['all-namespaces'],
      labelSelector: flags.selector,
    }
    this.now = flags.now === undefined ? Math.floor(Date.now() / 1000) * 1000 : parseRFC3339(flags.now)
    this.gates = parseFeatureGates(flags['feature-gates'])
    this.verbosity = flags.v ?? 0
    const {connectionFlagsOf} = await import('../cluster/live/kubeconfig.js')
    this.connectionFlags = connectionFlagsOf(flags)
    if (this.connectionFlags['request-timeout'] !== undefined) {
      const {parseRequestTimeout} = await import('../cluster/live/kubeconfig.js')
      parseRequestTimeout(this.connectionFlags['request-timeout'])
    }
  }

  async validateOptions(): Promise<void> {
    const {validateSelection} = await import('../pass/selection.js')
    validateSelection(this.selection)
    if (this.selection.allNamespaces && this.selection.namespace) {
      // kubectl lets -A win silently; saying so avoids a surprising selection.
      this.io.err(`Warning: -A/--all-namespaces overrides --namespace ${this.selection.namespace}\n`)
    }
  }

  get isLive(): boolean {
    return this.files.length === 0
  }

  async load(): Promise<World> {
    if (this.isLive) return this.loadLive()
    const {loadWorld} = await import('../cluster/load/index.js')
    return loadWorld(this.files, {
      recursive: this.recursive,
      validate: this.validate,
      // The loader's lines carry their own `warning:` / `note:` prefix.
      warn: (line: string) => this.io.err(`${line}\n`),
    })
  }

  /** Reads the cluster: one list per kind for the namespace (or for all of them with -A). */
  protected async loadLive(): Promise<World> {
    const {connect} = await import('../cluster/live/kubeconfig.js')
    const {ApiClient} = await import('../cluster/live/api.js')
    const {readWorld} = await import('../cluster/live/read.js')
    const connection = await connect(this.connectionFlags)
    const verbose = this.verbosity >= 6 ? (line: string) => this.io.err(`I ${line}\n`) : undefined
    const api = new ApiClient(connection, verbose)
    this.live = {api, connection}
    if (!this.selection.allNamespaces) this.selection = {...this.selection, namespace: connection.namespace}
    return readWorld(api, {
      namespace: this.selection.allNamespaces ? undefined : connection.namespace,
      pods: this.livePods,
    })
  }

  async pass(world: World): Promise<PassOutcome> {
    const {runPasses} = await import('../pass/run.js')
    const outcome = await runPasses(world, this.selection, {now: this.now, gates: this.gates})
    if (outcome.result.items.length === 0) this.io.err(`${await this.nothingSelected(world)}\n`)
    return outcome
  }

  /** kubectl's "No resources found", with a hint when the files hold Deployments elsewhere. */
  private async nothingSelected(world: World): Promise<string> {
    const {noResourcesMessage} = await import('../pass/selection.js')
    const {namespaceOf} = await import('../cluster/memory.js')
    const message = noResourcesMessage(this.selection)
    if (this.selection.allNamespaces || this.selection.labelSelector) return message
    const elsewhere = [...new Set(world.deployments.map(namespaceOf))].sort()
    if (elsewhere.length === 0) return message
    return `${message}\nThe files hold Deployments in namespace ${elsewhere.join(', ')}: use -n ${elsewhere[0]} or -A.`
  }
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/

/** Parses an RFC 3339 timestamp (as Go's time.RFC3339 does) into epoch milliseconds. */
export function parseRFC3339(text: string): number {
  const m = RFC3339.exec(text.trim())
  const bad = () =>
    new UsageError(`invalid --now "${text}": want an RFC 3339 time such as 2026-11-29T10:05:00Z`)
  if (!m) throw bad()
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0
  const local = Date.UTC(y, mo - 1, d, h, mi, s, fraction)
  const check = new Date(local)
  if (
    check.getUTCFullYear() !== y ||
    check.getUTCMonth() !== mo - 1 ||
    check.getUTCDate() !== d ||
    check.getUTCHours() !== h ||
    check.getUTCMinutes() !== mi ||
    check.getUTCSeconds() !== s ||
    Number(m[11] ?? 0) > 59 ||
    Number(m[10] ?? 0) > 23
  ) {
    throw bad()
  }
  const offset = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) * 60_000 : 0
  return local - offset
}
