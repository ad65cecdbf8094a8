// kubectl's flag grammar for boolean flags (spf13/pflag), which oclif's parser lacks: oclif reads
// `--x=false` as `--x` followed by the argument `false`. Every command line goes through
// pflagBooleans before oclif parses it (BaseCommand.parse): the boolean flags are taken out and
// their values set after oclif's parse, so that each command gets pflag's answer without knowing.
// Kept free of dependencies: it runs on every call, --help included.

import {UsageError} from '../errors.js'

/** What this grammar needs to know of a flag: oclif's flag definition has these fields. */
export interface FlagSpec {
  type: 'boolean' | 'option'
  char?: string
  aliases?: readonly string[]
  charAliases?: readonly string[]
  /** oclif's `--no-NAME`, kept for the flags that offered it (`--no-record-events`). */
  allowNo?: boolean
}

/** upstream: strconv.ParseBool, the spellings pflag's bool flags accept. */
export function parseBool(text: string): boolean | undefined {
  switch (text) {
    case '1':
    case 't':
    case 'T':
    case 'TRUE':
    case 'true':
    case 'True':
      return true
    case '0':
    case 'f':
    case 'F':
    case 'FALSE':
    case 'false':
    case 'False':
      return false
    default:
      return undefined
  }
}

/** The name pflag's errors give a flag: `-A, --all-namespaces`, or `--exit-code`. */
function displayName(name: string, spec: FlagSpec): string {
  return spec.char ? `-${spec.char}, --${name}` : `--${name}`
}

/** upstream: pflag InvalidValueError wrapping strconv.ParseBool's error, as kubectl prints it. */
function boolValue(text: string, name: string, spec: FlagSpec): boolean {
  const value = parseBool(text)
  if (value === undefined) {
    throw new UsageError(
      `invalid argument ${JSON.stringify(text)} for "${displayName(name, spec)}" flag: strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`,
    )
  }
  return value
}

export interface PflagResult {
  /** The command line without its boolean flags, for oclif. */
  argv: string[]
  /** The boolean flags given, by name: the last occurrence wins, as in pflag. */
  booleans: Record<string, boolean>
}

/**
 * Takes the boolean flags out of a command line, in pflag's grammar: `--x`, `--x=VALUE` with any
 * spelling strconv.ParseBool accepts, `-A`, `-A=false`, grouped shorthands (`-AR`); a boolean never
 * takes the next word as its value (`--x false` leaves `false` an argument). Everything else is left
 * in place for oclif, and so is a value an option flag takes from the next word (`-n -A` stays as
 * oclif reads it). upstream: pflag FlagSet.parseArgs, parseLongArg, parseSingleShortArg.
 */
export function pflagBooleans(argv: readonly string[], flags: Record<string, FlagSpec>): PflagResult {
  const long = new Map<string, string>()
  const short = new Map<string, string>()
  for (const [name, spec] of Object.entries(flags)) {
    long.set(name, name)
    for (const a of spec.aliases ?? []) long.set(a, name)
    if (spec.char) short.set(spec.char, name)
    for (const c of spec.charAliases ?? []) short.set(c, name)
  }
  /** oclif's findFlag: whether a word names a flag, so that an option flag will not take it as a value. */
  const namesFlag = (word: string | undefined): boolean => {
    if (word === undefined || !word.startsWith('-') || word === '-') return false
    if (word.startsWith('--')) {
      const name = word.slice(2)
      return long.has(name) || negated(name) !== undefined
    }
    return short.has(word[1] ?? '')
  }
  /** `no-NAME` of a boolean flag that offers it (and is not itself a flag's name). */
  const negated = (name: string): string | undefined => {
    if (!name.startsWith('no-') || long.has(name)) return undefined
    const target = long.get(name.slice(3))
    return target !== undefined && flags[target]?.type === 'boolean' && flags[target]?.allowNo
      ? target
      : undefined
  }

  const out: string[] = []
  const booleans: Record<string, boolean> = {}
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string
    if (word === '--') {
      out.push(...argv.slice(i))
      break
    }
    if (word.startsWith('--') && word.length > 2) {
      const eq = word.indexOf('=')
      const given = eq < 0 ? word.slice(2) : word.slice(2, eq)
      const value = eq < 0 ? undefined : word.slice(eq + 1)
      const name = long.get(given)
      const spec = name === undefined ? undefined : flags[name]
      if (name !== undefined && spec?.type === 'boolean') {
        booleans[name] = value === undefined ? true : boolValue(value, name, spec)
        continue
      }
      const target = name === undefined ? negated(given) : undefined
      if (target !== undefined) {
        const targetSpec = flags[target] as FlagSpec
        booleans[target] = value === undefined ? false : !boolValue(value, target, targetSpec)
        continue
      }
      out.push(word)
      if (spec?.type === 'option' && value === undefined && i + 1 < argv.length && !namesFlag(argv[i + 1])) {
        out.push(argv[++i] as string)
      }
      continue
    }
    if (word.startsWith('-') && word.length > 1) {
      // A group of shorthands: booleans until one takes a value (the rest of the word, or the next).
      const letters = word.slice(1)
      for (let j = 0; j < letters.length; j++) {
        const name = short.get(letters[j] as string)
        const spec = name === undefined ? undefined : flags[name]
        if (name !== undefined && spec?.type === 'boolean') {
          if (letters[j + 1] === '=') {
            booleans[name] = boolValue(letters.slice(j + 2), name, spec)
            break
          }
          booleans[name] = true
          continue
        }
        out.push(`-${letters.slice(j)}`)
        const takesNext = spec?.type === 'option' && j === letters.length - 1
        if (takesNext && i + 1 < argv.length && !namesFlag(argv[i + 1])) out.push(argv[++i] as string)
        break
      }
      continue
    }
    out.push(word)
  }
  return {argv: out, booleans}
}
