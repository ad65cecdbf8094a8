// YAML input, read the way kubectl reads it (YAML 1.1 scalars: `on` is true, `0644` is 420), with
// the guards that hostile input needs: nesting is bounded while parsing (the composer recurses),
// aliases are bounded before and during expansion, unknown tags are refused. This is the exact
// reader: it words every error and knows every node's position, but builds a full document model,
// which is slow on big files; ./yaml-fast.ts reads the common case faster and leaves the rest here.

import {
  Composer,
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  type Node,
  Parser,
  type ScalarTag,
  type Tags,
  type YAMLMap,
} from 'yaml'
import {InputError} from '../../errors.js'
import {MAX_DEPTH, type ParsedDoc, tooDeep} from './doc.js'
import {formatPath, type Path} from './problems.js'
import {GO_INT, goInt} from './yaml11.js'

const DROPPED_TAGS = new Set([
  // kubectl's YAML reader has no timestamps (they stay strings) and no sexagesimal numbers.
  'tag:yaml.org,2002:timestamp',
  // These produce values JSON has no form for (bytes, Set, Map); dropping them makes `!!set` and
  // friends an unresolved tag, which is refused like any custom tag.
  'tag:yaml.org,2002:binary',
  'tag:yaml.org,2002:set',
  'tag:yaml.org,2002:omap',
  'tag:yaml.org,2002:pairs',
])

// YAML 1.1's float forms match `.`, `-.`, `._` and `e5`, which have no digit before the exponent;
// kubectl's reader (go-yaml v2 resolve: yamlStyleFloat, strconv.ParseFloat) keeps those strings
// (`args: [ls, .]`). These are the float forms with a digit required in the mantissa.
const FLOAT_EXP = /^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$/
const FLOAT = /^[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)$/
const FLOAT_TESTS: Record<string, RegExp> = {
  '^[-+]?(?:[0-9][0-9_]*)?(?:\\.[0-9_]*)?[eE][-+]?[0-9]+$': FLOAT_EXP,
  '^[-+]?(?:[0-9][0-9_]*)?\\.[0-9_]*$': FLOAT,
}

// Go's integer prefixes that YAML 1.1 lacks (./yaml11.ts GO_INT): `0o644`, `0X1F`, `0B11`.
const goIntTag: ScalarTag = {
  identify: () => false,
  default: true,
  tag: 'tag:yaml.org,2002:int',
  test: GO_INT,
  resolve: goInt,
}

const k8sTags = (tags: Tags): Tags =>
  [...tags, goIntTag]
    .filter((t) => !(typeof t === 'object' && (t.format === 'TIME' || DROPPED_TAGS.has(t.tag))))
    .map((t) => {
      if (typeof t !== 'object' || t.collection || !(t.test instanceof RegExp)) return t
      const test = FLOAT_TESTS[t.test.source]
      return test ? ({...t, test} as ScalarTag) : t
    })

/** The exact reader's options; the fast path resolves plain scalars with this schema's tags. */
export const YAML_OPTIONS = {version: '1.1', customTags: k8sTags, uniqueKeys: true} as const

/** yaml's expansion limit: an anchor's uses times the aliases inside it may not exceed this. */
const MAX_ALIAS_COUNT = 100
/** Resolving an alias in yaml scans the document's anchors: bound the total to keep that linear. */
const MAX_ALIASES_PER_FILE = 10_000

/** The same error YAML tooling reports, with the file and 1-based position in front. */
function at(file: string, lc: LineCounter, offset: number, msg: string): InputError {
  const {line, col} = lc.linePos(offset)
  return new InputError(`${file}:${line}:${col}: ${msg}`)
}

function* guardedTokens(file: string, text: string, lc: LineCounter, parser: Parser) {
  lc.addNewLine(0)
  let aliases = 0
  for (const lexeme of new Lexer().lex(text)) {
    if (lexeme.charCodeAt(0) === 0x2a /* * */ && ++aliases > MAX_ALIASES_PER_FILE) {
      throw at(
        file,
        lc,
        parser.offset,
        `too many YAML aliases (more than ${MAX_ALIASES_PER_FILE} in one file)`,
      )
    }
    yield* parser.next(lexeme)
    // The parser's stack holds one entry per open collection (plus the document and stream).
    if (parser.stack.length > MAX_DEPTH + 2) {
      const {line, col} = lc.linePos(parser.offset)
      throw tooDeep(file, line, col)
    }
  }
  yield* parser.end()
}

// The key at an offset: quoted, or plain up to the `:` that ends it.
const KEY_AT = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|[^\n]*?(?=[ \t]*:(?:[ \t]|$))/my

function keyAt(text: string, offset: number): string {
  KEY_AT.lastIndex = offset
  const m = KEY_AT.exec(text)
  if (m && m[0] !== '') return m[0]
  const eol = text.indexOf('\n', offset)
  return text.slice(offset, eol < 0 ? text.length : eol)
}

function messageOf(code: string, msg: string, source: string): string {
  const first = msg.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')
  switch (code) {
    case 'DUPLICATE_KEY':
      return `duplicate key ${source} (keys in a mapping must be unique)`
    case 'TAG_RESOLVE_FAILED':
      return `unknown YAML tag ${source.split(/\s/)[0]}: custom tags are not supported`
    default:
      return first
  }
}

function lineOf(
  lc: LineCounter,
  node: {range?: readonly number[] | null} | null | undefined,
): number | undefined {
  const r = node?.range
  return r ? lc.linePos(r[0]).line : undefined
}

function makeLocator(lc: LineCounter, root: Node | null): (path: Path) => number | undefined {
  return (path) => {
    let node: unknown = root
    let line = lineOf(lc, root)
    for (const step of path) {
      const key = typeof step === 'object' ? step.key : step
      if (isMap(node)) {
        const pair = (node as YAMLMap).items.find(
          (p) => isPair(p) && isScalar(p.key) && String(p.key.value ?? '') === String(key),
        )
        if (!pair) break
        line = lineOf(lc, pair.key as Node) ?? line
        node = pair.value
      } else if (isSeq(node) && typeof key === 'number') {
        const item = node.items[key]
        if (item === undefined) break
        line = lineOf(lc, item as Node) ?? line
        node = item
      } else break
    }
    return line
  }
}

/** Start lines of the List items (`items:` of a mapping) or of a top-level sequence's elements. */
function itemLines(lc: LineCounter, root: Node | null): number[] | undefined {
  let seq: unknown = root
  if (isMap(root)) {
    const pair = root.items.find((p) => isScalar(p.key) && p.key.value === 'items')
    seq = pair?.value
  }
  if (!isSeq(seq)) return undefined
  return seq.items.map((it) => lineOf(lc, it as Node) ?? 0)
}

type Walked = {ok: true} | {ok: false; path: Path; msg: string}

/**
 * Checks what JSON cannot express and yaml can produce (.inf, .nan, cycles through aliases), and
 * un-shares values that aliases made shared: the controller mutates objects, and a change to one
 * field must not show up in another.
 */
function walk(
  holder: Record<string, unknown> | unknown[],
  key: string | number,
  depth: number,
  seen: Set<object> | undefined,
  path: (string | number)[],
): Walked {
  let v = (holder as Record<string | number, unknown>)[key]
  if (typeof v === 'number') {
    if (!Number.isFinite(v))
      return {ok: false, path: [...path, key], msg: `${v} is not a number JSON can represent`}
    return {ok: true}
  }
  if (typeof v !== 'object' || v === null) return {ok: true}
  if (depth >= MAX_DEPTH) {
    // Parsing bounds written nesting, so only aliases get here, usually one that contains itself.
    return {ok: false, path: path.slice(0, 3), msg: `nested deeper than ${MAX_DEPTH} levels through aliases`}
  }
  if (seen) {
    if (seen.has(v)) {
      v = structuredClone(v)
      ;(holder as Record<string | number, unknown>)[key] = v
    } else seen.add(v as object)
  }
  if (Array.isArray(v)) {
    path.push(key)
    for (let i = 0; i < v.length; i++) {
      const r = walk(v, i, depth + 1, seen, path)
      if (!r.ok) return r
    }
    path.pop()
    return {ok: true}
  }
  const proto = Object.getPrototypeOf(v)
  if (proto !== Object.prototype && proto !== null) {
    return {ok: false, path: [...path, key], msg: 'a value JSON cannot represent'}
  }
  path.push(key)
  for (const k of Object.keys(v as object)) {
    const r = walk(v as Record<string, unknown>, k, depth + 1, seen, path)
    if (!r.ok) return r
  }
  path.pop()
  return {ok: true}
}

/** Parses multi-document YAML. Empty documents are left out. Throws InputError with file:line:col. */
export function parseYamlExact(file: string, text: string): ParsedDoc[] {
  const lc = new LineCounter()
  const parser = new Parser(lc.addNewLine)
  const composer = new Composer(YAML_OPTIONS)
  const docs: Document.Parsed[] = []
  try {
    for (const doc of composer.compose(guardedTokens(file, text, lc, parser))) docs.push(doc)
  } catch (err) {
    if (err instanceof InputError) throw err
    // Not expected from the guarded parser; still one line, with the file, rather than a crash.
    throw new InputError(`${file}: cannot parse YAML: ${err instanceof Error ? err.message : String(err)}`)
  }
  const hasAliases = text.includes('*')
  const out: ParsedDoc[] = []
  docs.forEach((doc, index) => {
    const err = doc.errors[0]
    if (err) {
      const source =
        err.code === 'DUPLICATE_KEY' ? keyAt(text, err.pos[0]) : text.slice(err.pos[0], err.pos[1])
      throw at(file, lc, err.pos[0], messageOf(err.code, err.message, source))
    }
    const tagWarning = doc.warnings.find((w) => w.code === 'TAG_RESOLVE_FAILED')
    if (tagWarning) {
      throw at(
        file,
        lc,
        tagWarning.pos[0],
        messageOf(tagWarning.code, tagWarning.message, text.slice(tagWarning.pos[0], tagWarning.pos[1])),
      )
    }
    const root = doc.contents as Node | null
    const line = lineOf(lc, root) ?? lc.linePos(doc.range[0]).line
    let value: unknown
    try {
      value = doc.toJS({maxAliasCount: MAX_ALIAS_COUNT})
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e)
      if (msg.startsWith('Excessive alias count')) {
        throw new InputError(
          `${file}:${line}: YAML aliases expand too much (refusing a possible "billion laughs" document)`,
        )
      }
      throw new InputError(`${file}:${line}: ${msg}`)
    }
    if (value === null || value === undefined) return
    const box = {value}
    const r = walk(box as Record<string, unknown>, 'value', 0, hasAliases ? new Set() : undefined, [])
    if (!r.ok) {
      const rel = r.path.slice(1)
      const locate = makeLocator(lc, root)
      const where = locate(rel) ?? line
      throw new InputError(`${file}:${where}: ${formatPath(rel)}: ${r.msg}`)
    }
    out.push({value: box.value, line, index, itemLines: itemLines(lc, root), locate: makeLocator(lc, root)})
  })
  return out
}
