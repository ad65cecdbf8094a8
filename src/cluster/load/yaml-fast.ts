// YAML input, fast path. js-yaml reads the benchmark snapshot (1,000 Deployments, 32 MB of YAML) in
// about 2 s and 200 MB, where the exact reader (./yaml.ts, the `yaml` package's document model)
// takes 25 s and 1.7 GB. The exact reader stays the reference: it words every error, knows every
// node's position and guards aliases. This path answers only where both readers agree, and hands
// the text to the exact reader otherwise: when js-yaml fails (so error messages are the exact
// reader's), when the text may hold what the two read differently (anchors, aliases, tags,
// directives, explicit or collection keys), when a value is one the exact reader refuses or
// merges (.inf, .nan, `<<`, null keys), or when nesting gets deep. Block YAML as kubectl writes it
// is read before js-yaml by a line reader of its own (./yaml-simple.ts; docs/benchmarks.md).

import {type EventType, loadAll, Schema, type State, Type} from 'js-yaml'
import {MAX_DEPTH, type ParsedDoc} from './doc.js'
import type {Path} from './problems.js'
import {readSimpleYaml, type SimpleDoc} from './yaml-simple.js'
import {IMPLICIT_SCALARS} from './yaml11.js'

type ExactReader = typeof import('./yaml.js')

/**
 * The exact reader, loaded on demand: a text the fast path reads never needs it, unless a message
 * needs a field's line. Code that can reach it first awaits loadExactReader(), or catches
 * NeedsExactReader, awaits, and starts over (./index.ts does).
 */
let exactReader: ExactReader | undefined

export class NeedsExactReader extends Error {
  constructor() {
    super('the exact YAML reader is not loaded')
  }
}

/** Whether the exact reader is loaded (tests of the lazy path). */
export function exactReaderLoaded(): boolean {
  return exactReader !== undefined
}

/** For code that imports the exact reader statically anyway (./from-text.ts). */
export function provideExactReader(reader: ExactReader): void {
  exactReader = reader
}

export async function loadExactReader(): Promise<ExactReader> {
  exactReader ??= await import('./yaml.js')
  return exactReader
}

function exact(): ExactReader {
  if (exactReader === undefined) throw new NeedsExactReader()
  return exactReader
}

/**
 * Plain scalars resolve as the exact reader resolves them (./yaml11.ts), tried in its order.
 * Quoted and block scalars are strings in both. The tag names are private, so any tag written in
 * the text (which DECLINE catches anyway) is unknown to js-yaml and fails.
 */
function implicitTypes(): Type[] {
  return IMPLICIT_SCALARS.map(
    (s, i) =>
      new Type(`tag:kubectl-deployctl,2026:implicit-${i}`, {
        kind: 'scalar',
        resolve: (source: string) => s.test.test(source),
        construct: (source: string) => s.resolve(source),
      }),
  )
}

const SCHEMA = new Schema({implicit: implicitTypes()})

/**
 * Text that may hold something js-yaml reads differently from the exact reader, or less safely.
 * Found by comparing the two (test/unit/load-yaml-fast.test.ts); false alarms (the `]:` of
 * `"[::1]:80"`, a `: &` in a comment) only cost time. Each alternative starts at a rare character
 * and looks behind from there, which keeps the scan of a 32 MB file under 0.1 s.
 */
const DECLINE = new RegExp(
  [
    // A node property (`&a`, `!tag`), an alias (`*a`) or an explicit key (`? `) where a node starts.
    String.raw`[&*!](?<=(?:^|[\n\-:?,[{])[ \t]*.)|\?(?!\S)(?<=(?:^|[\n\-:?,[{])[ \t]*\?)`,
    // A directive; `---` or `...` with more on the line (js-yaml takes `----` for `---` and `-`).
    String.raw`(?:^|\n)(?:%|(?:---|\.\.\.)[^ \t\r\n])`,
    // A collection as a key.
    String.raw`[\]}][ \t]*:`,
    // A comment right after a token (the exact reader refuses it).
    String.raw`#(?<=(?:[[\]{},]|[^\s,[{:]["'])#)`,
    // An escaped line break or a \U escape in double quotes (js-yaml folds and bounds them otherwise).
    String.raw`\\(?:U|\r?\n|$)`,
    // A block scalar with an indentation indicator, a line of only blanks (js-yaml keeps some of the
    // spaces, or accepts more-indented leading lines), a tab in indentation.
    String.raw`[|>][-+]?[1-9]|(?:^|\n) +\r?(?:\n|$)|\t(?<=(?:^|\n) *\t)`,
    // A line break other than \n and \r\n.
    String.raw`\r(?!\n)|[\u0085\u2028\u2029]`,
  ].join('|'),
)

/**
 * js-yaml recurses once per node level: deeper input goes to the exact reader, which refuses what
 * is nested deeper than MAX_DEPTH with its own message. (js-yaml 4.3 also stops at 100 levels.)
 */
const FAST_MAX_DEPTH = MAX_DEPTH - 10

/**
 * Node starts are recorded down to this depth: List items sit at depth 2 (top-level sequence) to 4
 * (`items` of a flow mapping), as js-yaml reads a flow collection in block context one level down.
 */
const TRACKED = 4

/**
 * yaml refuses an implicit key whose `:` is more than 1024 characters after the key's start;
 * js-yaml has no such limit. Nodes about that long and followed by a `:` go to the exact reader.
 */
const MAX_KEY = 1000

function colonAt(text: string, i: number): boolean {
  while (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x09) i++
  return text.charCodeAt(i) === 0x3a
}

/** Where js-yaml was when it began a node: before the space and comments in front of it. */
interface Open {
  /** 0-based. */
  line: number
  at: number
}

/** 1-based line of the node that begins at or after `o`: spaces, line breaks and comments are skipped. */
function startLine(text: string, o: Open): number {
  let line = o.line + 1
  let i = o.at
  for (;;) {
    const c = text.charCodeAt(i)
    if (c === 0x20 || c === 0x09 || c === 0x0d) i++
    else if (c === 0x0a) {
      line++
      i++
    } else if (c === 0x23 /* # */ && (i === 0 || /\s/.test(text[i - 1]))) {
      i = text.indexOf('\n', i)
      if (i < 0) return line
    } else return line
  }
}

/** False when a value needs the exact reader: a number JSON cannot hold, or a key it reads otherwise. */
function plain(v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v)
  if (typeof v !== 'object' || v === null) return true
  // js-yaml can put the items after an empty one (`- -`) into the wrong sequence.
  if (Array.isArray(v)) return v.every((x) => x !== null && plain(x))
  for (const k in v) {
    // `<<` merges in the exact reader; `null`, `~` and an empty key become "" there.
    if (k === '<<' || k === 'null' || !plain((v as Record<string, unknown>)[k])) return false
  }
  return true
}

/** Start lines of the List items (`items:` of a mapping) or of a top-level sequence's elements. */
function itemLines(text: string, value: unknown, itemOpens: Map<unknown, Open[]>): number[] | undefined {
  const items = Array.isArray(value) ? value : (value as Record<string, unknown>).items
  const opens = Array.isArray(items) ? itemOpens.get(items) : undefined
  // A flow pair (`[a: b]`) opens two nodes for one item: then the lines are left to locate.
  return opens && opens.length === (items as unknown[]).length
    ? opens.map((o) => startLine(text, o))
    : undefined
}

/** The documents as the exact reader would give them, or undefined when it has to decide. */
export function parseYamlFast(file: string, text: string): ParsedDoc[] | undefined {
  if (text.charCodeAt(0) === 0xfeff || DECLINE.test(text)) return undefined
  const simple = readSimpleYaml(text, IMPLICIT_SCALARS, {maxDepth: FAST_MAX_DEPTH, maxKey: MAX_KEY})
  if (simple) return parsedDocs(file, text, simple)
  return parseWithJsYaml(file, text)
}

/** js-yaml, for what ./yaml-simple.ts declines. */
function parseWithJsYaml(file: string, text: string): ParsedDoc[] | undefined {
  let depth = 0
  const roots: Open[] = []
  // kids[d]: where the children of the node now open at depth d began.
  const kids: Open[][] = []
  const itemOpens = new Map<unknown, Open[]>()
  const starts: number[] = []
  const listener = (event: EventType, state: State): void => {
    if (event === 'close') {
      if (state.position - starts[depth] > MAX_KEY && colonAt(state.input, state.position)) {
        throw new RangeError('a key too long for the fast path')
      }
      // The innermost node that has an array as its value is the one that read it.
      const v = state.result
      if (depth < TRACKED && Array.isArray(v) && !itemOpens.has(v)) itemOpens.set(v, kids[depth])
      depth--
      return
    }
    if (++depth > FAST_MAX_DEPTH) throw new RangeError('nested too deep for the fast path')
    starts[depth] = state.position
    if (depth > TRACKED) return
    const open = {line: state.line, at: state.position}
    if (depth === 1) roots.push(open)
    else kids[depth - 1].push(open)
    if (depth < TRACKED) kids[depth] = []
  }
  let values: unknown[]
  try {
    values = loadAll(text, null, {
      schema: SCHEMA,
      listener,
      onWarning: (e) => {
        throw e
      },
    })
  } catch {
    return undefined
  }
  if (roots.length !== values.length) return undefined
  return parsedDocs(
    file,
    text,
    values.map((value, index) =>
      value === null || value === undefined
        ? {value, index, line: 0}
        : {
            value,
            index,
            line: startLine(text, roots[index]),
            itemLines: itemLines(text, value, itemOpens),
          },
    ),
  )
}

/** The documents with their lines, or undefined when a value needs the exact reader. */
function parsedDocs(file: string, text: string, docs: SimpleDoc[]): ParsedDoc[] | undefined {
  let exactDocs: ParsedDoc[] | undefined
  const out: ParsedDoc[] = []
  for (const {value, index, line, itemLines} of docs) {
    if (value === null || value === undefined) continue
    if (!plain(value)) return undefined
    // Field lines are for messages only: the exact reader works them out the first time one is needed.
    const locate = (path: Path): number | undefined => {
      exactDocs ??= exact().parseYamlExact(file, text)
      return exactDocs.find((d) => d.line === line)?.locate?.(path)
    }
    out.push({value, line, index, itemLines, locate})
  }
  return out
}

/** Parses multi-document YAML. Empty documents are left out. Throws InputError with file:line:col. */
export function parseYaml(file: string, text: string): ParsedDoc[] {
  return parseYamlFast(file, text) ?? exact().parseYamlExact(file, text)
}
