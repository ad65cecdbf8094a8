// Shell completion in cobra's protocol, which kubectl (1.26+) speaks with a plugin's
// kubectl_complete-<name> helper and the `completion` scripts speak with `__complete`: the words
// typed so far come in (the last one being completed, maybe empty); out go candidates, one per
// line as `value<TAB>description`, and a last line `:<directive>`. Commands and flags come from the
// oclif manifest, the one list of both; namespaces, Deployments and contexts from the cluster
// (cluster.ts).

import {CONNECTION_FLAG_NAMES, type ConnectionFlags} from '../cluster/live/connection-flags.js'

/** cobra's ShellCompDirective bits. */
export const Directive = {
  Default: 0,
  Error: 1,
  NoSpace: 2,
  NoFileComp: 4,
  FilterFileExt: 8,
  FilterDirs: 16,
  KeepOrder: 32,
} as const

export interface ManifestFlag {
  name: string
  char?: string
  description?: string
  type: 'option' | 'boolean'
  options?: string[]
  /** The value's placeholder in --help; -o lists its formats there (`table|wide|...|jsonpath=TEMPLATE`). */
  helpValue?: string
  multiple?: boolean
  hidden?: boolean
}

export interface ManifestCommand {
  id: string
  summary?: string
  description?: string
  hidden?: boolean
  args?: Record<string, {name: string; description?: string}>
  flags?: Record<string, ManifestFlag>
}

export interface Manifest {
  commands: Record<string, ManifestCommand>
}

/** What the cluster knows, asked only when a candidate needs it. */
export interface Lookup {
  namespaces(conn: ConnectionWords): Promise<string[]>
  deployments(conn: ConnectionWords): Promise<string[]>
  contexts(conn: ConnectionWords): Promise<string[]>
  /** Pods and ReplicaSets of the namespace, for explain's pod/NAME and rs/NAME. */
  pods?(conn: ConnectionWords): Promise<string[]>
  replicaSets?(conn: ConnectionWords): Promise<string[]>
}

/** The connection flags typed so far, which a lookup honours as the command would. */
export type ConnectionWords = Omit<ConnectionFlags, 'as-group'>

export interface Candidate {
  value: string
  description?: string
}

export interface Completion {
  candidates: Candidate[]
  directive: number
}

const CONNECTION_FLAGS = new Set<string>(CONNECTION_FLAG_NAMES.filter((n) => n !== 'as-group'))

/** The resource prefixes a NAME argument accepts (deployment/NAME), as kubectl spells them. */
const RESOURCE_PREFIXES = ['deployment/', 'deployments/', 'deploy/', 'deployments.apps/']

/** explain also starts from a pod or a ReplicaSet (pod/NAME, rs/NAME), as kubectl spells them. */
const POD_PREFIXES = ['pod/', 'pods/', 'po/']
const REPLICASET_PREFIXES = ['rs/', 'replicaset/', 'replicasets/', 'replicasets.apps/', 'replicaset.apps/']
const REF_COMMANDS = new Set(['explain'])

/** The first line of a command's summary or description, as cobra shows its Short. */
function short(text: string | undefined): string | undefined {
  const line = text?.split('\n').find((l) => l.trim() !== '')
  return line?.trim()
}

function visibleCommands(manifest: Manifest): ManifestCommand[] {
  return Object.values(manifest.commands).filter((c) => !c.hidden)
}

export async function complete(
  manifest: Manifest,
  topics: Record<string, {description?: string}>,
  words: string[],
  lookup: Lookup,
): Promise<Completion> {
  const typed = words.length === 0 ? [''] : words
  const toComplete = typed.at(-1) ?? ''
  const before = typed.slice(0, -1)
  const commands = visibleCommands(manifest)
  const ids = new Set(commands.map((c) => c.id))

  // Walk the words before the one being completed: the command (its id's parts), flags and their
  // values, and positional arguments.
  const path: string[] = []
  let command: ManifestCommand | undefined
  const given = new Map<string, string | true>()
  const args: string[] = []
  let pending: ManifestFlag | undefined
  for (let i = 0; i < before.length; i++) {
    const w = before[i] ?? ''
    if (pending) {
      given.set(pending.name, w)
      pending = undefined
      continue
    }
    if (w === '--') {
      args.push(...before.slice(i + 1))
      break
    }
    if (w.startsWith('-') && w !== '-') {
      const flag = findFlag(command, commands, w)
      if (!flag) continue
      const eq = w.indexOf('=')
      if (flag.type === 'boolean') given.set(flag.name, true)
      else if (eq > 0) given.set(flag.name, w.slice(eq + 1))
      else if (!w.startsWith('--') && w.length > 2) given.set(flag.name, w.slice(2))
      else pending = flag
      continue
    }
    if (!command) {
      const next = [...path, w].join(':')
      if (ids.has(next)) {
        path.push(w)
        command = manifest.commands[next]
        continue
      }
      if (commands.some((c) => c.id.startsWith(`${next}:`))) {
        path.push(w)
        continue
      }
    }
    args.push(w)
  }
  const conn = connectionWords(given)

  // The value of a flag: the word after it, or after `--flag=`.
  if (pending) return flagValues(pending, toComplete, '', conn, lookup)
  if (toComplete.startsWith('-') && toComplete.includes('=')) {
    const eq = toComplete.indexOf('=')
    const flag = findFlag(command, commands, toComplete.slice(0, eq))
    if (flag && flag.type !== 'boolean')
      return flagValues(flag, toComplete.slice(eq + 1), toComplete.slice(0, eq + 1), conn, lookup)
    return {candidates: [], directive: Directive.NoFileComp}
  }

  if (toComplete.startsWith('-')) {
    const flags = Object.values(command?.flags ?? {}).filter(
      (f) => !f.hidden && (f.multiple || !given.has(f.name)),
    )
    const candidates: Candidate[] = []
    for (const f of flags) {
      const description = short(f.description)
      candidates.push({value: `--${f.name}`, description})
      if (f.char && !toComplete.startsWith('--')) candidates.push({value: `-${f.char}`, description})
    }
    return {candidates: byPrefix(candidates, toComplete), directive: Directive.NoFileComp}
  }

  if (!command) {
    // Subcommands (and topics) under what has been typed of a command's id.
    const prefix = path.length > 0 ? `${path.join(':')}:` : ''
    const seen = new Map<string, Candidate>()
    for (const c of commands) {
      if (!c.id.startsWith(prefix)) continue
      const [word, ...rest] = c.id.slice(prefix.length).split(':')
      if (!word || seen.has(word)) continue
      const topicId = `${prefix}${word}`
      seen.set(word, {
        value: word,
        description:
          rest.length > 0 ? short(topics[topicId]?.description) : short(c.summary ?? c.description),
      })
    }
    const sorted = [...seen.values()].sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    return {candidates: byPrefix(sorted, toComplete), directive: Directive.NoFileComp}
  }

  // `completion SHELL`.
  if (command.id === 'completion') {
    if (args.length > 0) return {candidates: [], directive: Directive.NoFileComp}
    const {SHELLS} = await import('./scripts.js')
    return {
      candidates: byPrefix(
        SHELLS.map((value) => ({value})),
        toComplete,
      ),
      directive: Directive.NoFileComp,
    }
  }

  // Positional arguments: the command's Deployment names.
  const takesNames = Object.keys(command.args ?? {}).length > 0
  if (!takesNames || given.has('all-namespaces')) return {candidates: [], directive: Directive.NoFileComp}
  if (REF_COMMANDS.has(command.id)) {
    // explain pod/NAME and rs/NAME: the namespace's pods and ReplicaSets.
    const pod = POD_PREFIXES.find((p) => toComplete.startsWith(p))
    const rs = REPLICASET_PREFIXES.find((p) => toComplete.startsWith(p))
    const list = pod ? lookup.pods : rs ? lookup.replicaSets : undefined
    if (list) {
      const found = await list.call(lookup, conn).catch(() => [])
      const candidates = found.map((n) => ({value: `${pod ?? rs}${n}`}))
      return {candidates: byPrefix(candidates, toComplete), directive: Directive.NoFileComp}
    }
  }
  const resource = RESOURCE_PREFIXES.find((p) => toComplete.startsWith(p)) ?? ''
  // `deployment NAME` (kubectl's TYPE NAME form): names follow the type word.
  const names = await lookup.deployments(conn).catch(() => [])
  const candidates = names.map((n) => ({value: `${resource}${n}`}))
  return {candidates: byPrefix(candidates, toComplete), directive: Directive.NoFileComp}
}

function findFlag(
  command: ManifestCommand | undefined,
  commands: ManifestCommand[],
  word: string,
): ManifestFlag | undefined {
  const pools = command ? [command] : commands
  for (const c of pools) {
    for (const f of Object.values(c.flags ?? {})) {
      if (word.startsWith('--')) {
        const name = word.slice(2).split('=')[0]
        if (f.name === name) return f
      } else if (f.char && word[1] === f.char) {
        return f
      }
    }
  }
  return undefined
}

function connectionWords(given: Map<string, string | true>): ConnectionWords {
  const conn: ConnectionWords = {}
  for (const [name, value] of given) {
    if (!CONNECTION_FLAGS.has(name)) continue
    if (name === 'insecure-skip-tls-verify') conn[name] = value === true || value === 'true'
    else if (typeof value === 'string') (conn as Record<string, string>)[name] = value
  }
  return conn
}

async function flagValues(
  flag: ManifestFlag,
  toComplete: string,
  prefix: string,
  conn: ConnectionWords,
  lookup: Lookup,
): Promise<Completion> {
  const none = {candidates: [], directive: Directive.NoFileComp}
  const of = (values: string[]): Completion => ({
    candidates: byPrefix(
      values.map((v) => ({value: `${prefix}${v}`})),
      `${prefix}${toComplete}`,
    ),
    directive: Directive.NoFileComp,
  })
  if (flag.options) return of(flag.options)
  // A comma-separated list of fixed values (--fail-on stuck,deadline,...), listed in helpValue:
  // the values not given yet, after those typed.
  if (flag.helpValue && /^[a-z]+(,[a-z]+)+$/.test(flag.helpValue)) {
    const comma = toComplete.lastIndexOf(',')
    const done = toComplete.slice(0, comma + 1)
    const taken = new Set(done.split(',').filter((v) => v !== ''))
    const rest = flag.helpValue.split(',').filter((v) => !taken.has(v))
    return of(rest.map((v) => `${done}${v}`))
  }
  // -o takes jsonpath=TEMPLATE, which oclif's `options` cannot list: its formats are in helpValue.
  if (flag.name === 'output' && flag.helpValue?.includes('|')) {
    return of(flag.helpValue.split('|').map((v) => v.replace(/=TEMPLATE$/, '=')))
  }
  switch (flag.name) {
    case 'filename':
      // kubectl's -f: files with these extensions (and directories), as cobra's FilterFileExt.
      return {
        candidates: ['json', 'yaml', 'yml'].map((value) => ({value})),
        directive: Directive.FilterFileExt,
      }
    case 'kubeconfig':
      return {candidates: [], directive: Directive.Default}
    case 'namespace':
      return of(await lookup.namespaces(conn).catch(() => []))
    case 'context':
      return of(await lookup.contexts(conn).catch(() => []))
    default:
      return none
  }
}

function byPrefix(candidates: Candidate[], prefix: string): Candidate[] {
  return candidates.filter((c) => c.value.startsWith(prefix))
}

/** cobra's output: one `value<TAB>description` per line, then `:<directive>`. */
export function formatCompletion(c: Completion): string {
  const lines = c.candidates.map((x) =>
    x.description ? `${x.value}\t${x.description.replace(/[\t\n]/g, ' ')}` : x.value,
  )
  return `${[...lines, `:${c.directive}`].join('\n')}\n`
}
