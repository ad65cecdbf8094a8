// "Did you mean" for a mistyped command or flag, as cobra (kubectl's command library) suggests
// commands: a candidate within Levenshtein distance 2 of what was typed (ignoring case), or one that
// starts with it. Kept free of dependencies: the entry point loads it on the error path only.

/** cobra's SuggestionsMinimumDistance default. */
const MAX_DISTANCE = 2

/** The edit distance of two strings (insertions, deletions, substitutions), ignoring case. */
export function levenshtein(a: string, b: string): number {
  const s = a.toLowerCase()
  const t = b.toLowerCase()
  let prev = Array.from({length: t.length + 1}, (_, j) => j)
  for (let i = 1; i <= s.length; i++) {
    const row = [i]
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1
      row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost)
    }
    prev = row
  }
  return prev[t.length] ?? 0
}

/**
 * The candidates close to `typed`, closest first (ties in the candidates' order). upstream (cobra):
 * SuggestionsFor; a word of two or three letters may differ in one only (cobra's two would make
 * `--nw` suggest `--as`).
 */
export function suggestionsFor(typed: string, candidates: readonly string[]): string[] {
  const lower = typed.toLowerCase()
  const letters = lower.replace(/^-+/, '')
  if (letters === '') return []
  const max = Math.min(MAX_DISTANCE, Math.floor(letters.length / 2))
  const scored: Array<{name: string; distance: number}> = []
  for (const name of new Set(candidates)) {
    const distance = levenshtein(typed, name)
    if (distance <= max || name.toLowerCase().startsWith(lower)) scored.push({name, distance})
  }
  return scored.sort((a, b) => a.distance - b.distance).map((s) => s.name)
}

/** Commands and topics as oclif lists them: ids with `:` between the words (`dry-run:sync`). */
export interface CommandTree {
  commandIDs: readonly string[]
  topics: readonly string[]
}

/**
 * Where the words of a command line stop naming a command: the first word that is neither a command
 * nor a topic under the words before it. Undefined when the words name a command or a topic (or
 * there are none).
 */
export function unknownCommand(
  argv: readonly string[],
  tree: CommandTree,
): {word: string; parent: string[]; suggestions: string[]} | undefined {
  const known = new Set([...tree.commandIDs, ...tree.topics])
  const parent: string[] = []
  for (const word of argv) {
    if (word === '--') return undefined
    const id = [...parent, word].join(':')
    if (tree.commandIDs.includes(id)) return undefined
    if (!known.has(id) || word.startsWith('-')) {
      return {word, parent: [...parent], suggestions: commandSuggestions(word, parent, tree)}
    }
    parent.push(word)
  }
  return undefined
}

/** The commands and topics next to `parent` close to `word`; at the root also a nested command's full name. */
function commandSuggestions(word: string, parent: readonly string[], tree: CommandTree): string[] {
  const prefix = parent.length === 0 ? '' : `${parent.join(':')}:`
  const ids = [...tree.commandIDs, ...tree.topics]
  const children = ids
    .filter((id) => id.startsWith(prefix) && !id.slice(prefix.length).includes(':'))
    .map((id) => id.slice(prefix.length))
  const near = suggestionsFor(word, children)
  if (parent.length > 0) return near
  // `sync` at the root: the command is `dry-run sync`.
  const nested = tree.commandIDs
    .filter((id) => id.includes(':') && levenshtein(word, id.split(':').at(-1) ?? '') <= 1)
    .map((id) => id.replaceAll(':', ' '))
  return [...near, ...nested]
}

/**
 * The message for an unknown command, as cobra words it:
 * `unknown command "explian" for "kubectl deployctl"`, then `Did you mean this?` and one
 * suggestion a line.
 */
export function unknownCommandMessage(
  bin: string,
  found: {word: string; parent: readonly string[]; suggestions: readonly string[]},
): string {
  const where = [bin, ...found.parent].join(' ')
  if (found.word.startsWith('-')) {
    return `unknown flag: ${found.word} for "${where}" (flags go after the command: ${where} COMMAND [flags]; see --help)`
  }
  const head = `unknown command "${found.word}" for "${where}"`
  if (found.suggestions.length === 0) return `${head} (see '${where} --help')`
  return `${head}\n\nDid you mean this?\n${found.suggestions.map((s) => `\t${s}\n`).join('')}`
}

/**
 * An unknown flag's message, kubectl's `unknown flag: --namspace` with the flags the command has
 * that are close to it: `unknown flag: --namspace (did you mean --namespace?)`.
 */
export function unknownFlagMessage(
  typed: readonly string[],
  flags: Readonly<Record<string, {char?: string}>>,
): string {
  const long = Object.keys(flags).map((name) => `--${name}`)
  const parts = typed.map((t) => {
    const flag = t.replace(/=.*$/s, '')
    if (!flag.startsWith('--')) return {flag, near: []}
    return {flag, near: suggestionsFor(flag, long).slice(0, 3)}
  })
  const names = parts.map((p) => p.flag).join(', ')
  const near = [...new Set(parts.flatMap((p) => p.near))]
  const hint = near.length === 0 ? 'see --help' : `did you mean ${orList(near)}?`
  return `unknown flag${parts.length === 1 ? '' : 's'}: ${names} (${hint})`
}

function orList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`
}
