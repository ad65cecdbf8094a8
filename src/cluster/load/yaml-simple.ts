// YAML input, fastest path: a line reader for block YAML shaped as kubectl and editors write it
// (block mappings and sequences, compact sequences under keys, plain, quoted and literal scalars,
// `[]` and `{}`, comments, `---`). It declines anything else, and the js-yaml path (./yaml-fast.ts)
// takes the text; the exact reader stays the reference for both (test/unit/load-yaml-fast.test.ts
// holds them to it). Why a reader of our own: a small file is read once per call, with its code
// still interpreted, and js-yaml's general scanner took ~9 ms of a ~60 ms single-executable call on
// examples/rolling-update.yaml (23 KB); a JSON file of the same objects took none of it.

import type {ImplicitScalar} from './yaml11.js'

/** One document as ./yaml-fast.ts builds ParsedDoc from it. */
export interface SimpleDoc {
  value: unknown
  /** 0-based index of the document, empty ones included. */
  index: number
  /** 1-based line where the value starts; 0 for an empty document. */
  line: number
  /** 1-based start lines of the root sequence's elements, or of the root mapping's `items`. */
  itemLines?: number[]
}

/** Thrown (one preallocated object, no stack) when the text needs the general path. */
const DECLINE = Object.freeze({declined: true})

function decline(): never {
  throw DECLINE
}

/** Keys the exact reader reads as more than a plain string key (merge, null). */
const SPECIAL_KEYS = new Set(['<<', '__proto__'])

const SPACE = 0x20
const HASH = 0x23
const DASH = 0x2d
const COLON = 0x3a

/** Characters that cannot start a plain scalar here (or start something only the other paths read). */
function badPlainStart(c: number): boolean {
  // & * ! | > % @ ` , [ ] { } ? ' " #
  return (
    c === 0x26 ||
    c === 0x2a ||
    c === 0x21 ||
    c === 0x7c ||
    c === 0x3e ||
    c === 0x25 ||
    c === 0x40 ||
    c === 0x60 ||
    c === 0x2c ||
    c === 0x5b ||
    c === 0x5d ||
    c === 0x7b ||
    c === 0x7d ||
    c === 0x3f ||
    c === 0x27 ||
    c === 0x22 ||
    c === HASH
  )
}

class Reader {
  private readonly lines: string[]
  /** Column where each line's content starts (moved right for the content after a `- `). */
  private readonly starts: Int32Array
  private li = 0
  private depth = 0
  /** Item lines of the sequences at depth 1 and 2 (the root and the root mapping's values). */
  readonly itemLines = new Map<unknown[], number[]>()

  constructor(
    text: string,
    private readonly implicit: readonly ImplicitScalar[],
    private readonly maxDepth: number,
    private readonly maxKey: number,
  ) {
    const lines = text.split('\n')
    // The break that ends the last line does not start another one.
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop()
    this.lines = lines
    this.starts = new Int32Array(lines.length).fill(-1)
  }

  private start(li: number): number {
    let s = this.starts[li]
    if (s < 0) {
      const line = this.lines[li]
      s = 0
      while (line.charCodeAt(s) === SPACE) s++
      this.starts[li] = s
    }
    return s
  }

  /** Blank or comment-only. */
  private empty(li: number): boolean {
    const line = this.lines[li]
    const s = this.start(li)
    return s >= line.length || line.charCodeAt(s) === HASH
  }

  /** A `---` line (a comment may follow); `...` and `--- x` are declined earlier or here. */
  private separator(li: number): boolean {
    const line = this.lines[li]
    if (this.starts[li] > 0 || !line.startsWith('---')) return false
    if (line.length === 3) return true
    const c = line.charCodeAt(3)
    if (c === SPACE) {
      if (onlyComment(line, 3)) return true
    }
    return decline()
  }

  private documentEnd(li: number): boolean {
    const line = this.lines[li]
    if (line.startsWith('...') && this.start(li) === 0) decline()
    return false
  }

  /** Moves past blank and comment lines; false at the end of the text or of the document. */
  private skipEmpty(): boolean {
    while (this.li < this.lines.length) {
      if (this.start(this.li) === 0 && (this.separator(this.li) || this.documentEnd(this.li))) return false
      if (!this.empty(this.li)) return true
      this.li++
    }
    return false
  }

  documents(): SimpleDoc[] {
    const docs: SimpleDoc[] = []
    let index = 0
    // Before the first `---`: a document only if it has content (comments alone make none here;
    // a text of comments alone is left to the other paths).
    if (this.skipEmpty()) {
      docs.push(this.document(index++))
    } else if (this.li >= this.lines.length) {
      return decline()
    }
    while (this.li < this.lines.length) {
      // At a `---`: it starts a document, empty or not.
      this.li++
      if (this.skipEmpty()) docs.push(this.document(index++))
      else docs.push({value: null, index: index++, line: 0})
    }
    return docs
  }

  private document(index: number): SimpleDoc {
    const line = this.li + 1
    const value = this.node(-1)
    if (this.skipEmpty()) decline() // content after the root node ends: a less-indented line
    let items: unknown
    if (Array.isArray(value)) items = value
    else if (value !== null && typeof value === 'object') items = (value as Record<string, unknown>).items
    const itemLines = Array.isArray(items) ? this.itemLines.get(items) : undefined
    this.itemLines.clear()
    return {value, index, line, itemLines}
  }

  /** A block node on the current (non-empty) line, indented more than `parent`. */
  private node(parent: number): unknown {
    const s = this.start(this.li)
    if (s <= parent) decline()
    if (++this.depth > this.maxDepth) decline()
    const line = this.lines[this.li]
    const v = isItem(line, s) ? this.sequence(s) : this.mapping(s)
    this.depth--
    return v
  }

  private sequence(ind: number): unknown[] {
    const out: unknown[] = []
    const lines: number[] | undefined = this.depth <= 2 ? [] : undefined
    while (this.skipEmpty()) {
      const s = this.start(this.li)
      if (s < ind) break
      if (s > ind) decline()
      const line = this.lines[this.li]
      if (!isItem(line, s)) break
      let col = s + 1
      while (line.charCodeAt(col) === SPACE) col++
      const rest = line.slice(col)
      let value: unknown
      let at = this.li + 1
      if (rest === '' || rest.charCodeAt(0) === HASH) {
        this.li++
        if (!this.skipEmpty() || this.start(this.li) <= ind) decline() // an empty item: null
        at = this.li + 1
        value = this.node(ind)
      } else if (isItem(rest, 0) || keyEnd(rest) >= 0) {
        // `- - x` or `- key: value`: the node starts at the content's column.
        this.starts[this.li] = col
        value = this.node(ind)
      } else {
        value = this.inlineValue(rest, ind)
      }
      out.push(value)
      lines?.push(at)
    }
    if (lines) this.itemLines.set(out, lines)
    return out
  }

  private mapping(ind: number): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    while (this.skipEmpty()) {
      const s = this.start(this.li)
      if (s < ind) break
      if (s > ind) decline()
      const line = this.lines[this.li]
      if (isItem(line, s)) decline() // an item where a key belongs
      const content = s === 0 ? line : line.slice(s)
      const end = keyEnd(content)
      if (end < 0) decline()
      const key = this.key(content.slice(0, end))
      if (Object.hasOwn(out, key)) decline()
      let after = end + 1
      while (content.charCodeAt(after) === SPACE) after++
      const rest = content.slice(after)
      let value: unknown
      if (rest === '' || rest.charCodeAt(0) === HASH) {
        this.li++
        if (!this.skipEmpty()) value = null
        else {
          const next = this.start(this.li)
          if (next > ind) value = this.node(ind)
          else if (next === ind && isItem(this.lines[this.li], next)) {
            // A sequence under its key at the key's indentation, as kubectl writes them.
            if (++this.depth > this.maxDepth) decline()
            value = this.sequence(ind)
            this.depth--
          } else value = null
        }
      } else {
        value = this.inlineValue(rest, ind)
      }
      out[key] = value
    }
    return out
  }

  private key(text: string): string {
    if (text.length > this.maxKey) decline()
    const c = text.charCodeAt(0)
    let key: string
    if (c === 0x22 || c === 0x27) {
      const q = c === 0x22 ? doubleQuoted(text, 0) : singleQuoted(text, 0)
      if (q.end !== text.length) decline()
      key = q.value
    } else {
      if (badPlainStart(c) || text.charCodeAt(text.length - 1) === SPACE || text.includes(' #')) decline()
      if (c === DASH && text.length === 1) decline()
      const v = this.resolve(text)
      if (v === null || (typeof v === 'number' && !Number.isFinite(v))) decline()
      key = String(v)
    }
    if (SPECIAL_KEYS.has(key) || key === 'null' || key === '') decline()
    return key
  }

  /** The value after `key: ` or `- ` on the current line; moves to the next line. */
  private inlineValue(rest: string, ind: number): unknown {
    const c = rest.charCodeAt(0)
    let value: unknown
    if (c === 0x7c /* | */) return this.literal(rest, ind)
    if (c === 0x22 || c === 0x27) {
      const q = c === 0x22 ? doubleQuoted(rest, 0) : singleQuoted(rest, 0)
      if (!onlyComment(rest, q.end)) decline()
      value = q.value
    } else if (c === 0x5b || c === 0x7b) {
      // Only the empty collections kubectl writes.
      if (rest.charCodeAt(1) !== (c === 0x5b ? 0x5d : 0x7d) || !onlyComment(rest, 2)) decline()
      value = c === 0x5b ? [] : {}
    } else {
      if (badPlainStart(c)) decline()
      if ((c === DASH || c === COLON) && (rest.length === 1 || rest.charCodeAt(1) === SPACE)) decline()
      const hash = rest.indexOf(' #')
      const text = trimSpaces(hash < 0 ? rest : rest.slice(0, hash))
      if (text.includes(': ') || text.charCodeAt(text.length - 1) === COLON) decline()
      value = this.resolve(text)
    }
    this.li++
    // A more indented line after a one-line value continues it (a multi-line scalar): declined.
    if (this.skipEmpty() && this.start(this.li) > ind) decline()
    return value
  }

  /** `|`, `|-` or `|+` and the lines indented under it. */
  private literal(head: string, ind: number): string {
    let chomp = 0 // 0 clip, -1 strip, 1 keep
    let k = 1
    if (head.charCodeAt(1) === DASH) {
      chomp = -1
      k = 2
    } else if (head.charCodeAt(1) === 0x2b /* + */) {
      chomp = 1
      k = 2
    }
    if (!onlyComment(head, k)) decline()
    this.li++
    const body: string[] = []
    let indent = -1
    while (this.li < this.lines.length) {
      const line = this.lines[this.li]
      if (line === '') {
        body.push('')
        this.li++
        continue
      }
      const s = this.start(this.li)
      if (s === line.length) decline() // a line of spaces: the readers keep different parts of it
      if (indent < 0) {
        if (s <= ind) break
        indent = s
      }
      if (s < indent) {
        // Less indented and not blank: the scalar ended (a separator too, at column 0).
        break
      }
      body.push(line.slice(indent))
      this.li++
    }
    if (indent < 0 && body.length > 0) decline()
    let last = body.length
    while (last > 0 && body[last - 1] === '') last--
    if (indent >= 0 && this.li < this.lines.length && this.start(this.li) > ind) decline()
    if (chomp === 1) return last === 0 ? '\n'.repeat(body.length) : `${body.join('\n')}\n`
    if (last === 0) return ''
    const text = body.slice(0, last).join('\n')
    return chomp === -1 ? text : `${text}\n`
  }

  private resolve(text: string): unknown {
    if (!mayBeImplicit(text)) return text
    for (const s of this.implicit) if (s.test.test(text)) return s.resolve(text)
    return text
  }
}

/** Whether a line's content at `s` is a sequence item (`-` alone or `- `). */
function isItem(line: string, s: number): boolean {
  return line.charCodeAt(s) === DASH && (s + 1 === line.length || line.charCodeAt(s + 1) === SPACE)
}

function trimSpaces(s: string): string {
  let end = s.length
  while (end > 0 && s.charCodeAt(end - 1) === SPACE) end--
  return end === s.length ? s : s.slice(0, end)
}

/** Nothing but spaces and a comment from `i` on. */
function onlyComment(text: string, i: number): boolean {
  if (i >= text.length) return true
  if (text.charCodeAt(i) !== SPACE) return false
  while (text.charCodeAt(i) === SPACE) i++
  return i >= text.length || text.charCodeAt(i) === HASH
}

/**
 * Where a mapping entry's key ends (the index of its `:`), or -1 when the content is no
 * `key: value` or `key:` (a quoted key is read to its closing quote first).
 */
function keyEnd(content: string): number {
  const c = content.charCodeAt(0)
  let from = 0
  if (c === 0x22 || c === 0x27) {
    const close = c === 0x22 ? doubleQuotedEnd(content) : singleQuotedEnd(content)
    if (close < 0) return -1
    return content.charCodeAt(close) === COLON &&
      (close + 1 === content.length || content.charCodeAt(close + 1) === SPACE)
      ? close
      : -1
  }
  for (;;) {
    const i = content.indexOf(':', from)
    if (i < 0) return -1
    if (i + 1 === content.length || content.charCodeAt(i + 1) === SPACE) {
      const hash = content.indexOf(' #')
      return hash >= 0 && hash < i ? -1 : i
    }
    from = i + 1
  }
}

/** Index after the closing `"`, or -1 when it is not on this line. */
function doubleQuotedEnd(s: string): number {
  for (let i = 1; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x5c) i++
    else if (c === 0x22) return i + 1
  }
  return -1
}

function singleQuotedEnd(s: string): number {
  for (let i = 1; i < s.length; i++) {
    if (s.charCodeAt(i) === 0x27) {
      if (s.charCodeAt(i + 1) === 0x27) i++
      else return i + 1
    }
  }
  return -1
}

function singleQuoted(s: string, at: number): {value: string; end: number} {
  const end = singleQuotedEnd(at === 0 ? s : s.slice(at))
  if (end < 0) decline()
  return {value: s.slice(at + 1, at + end - 1).replaceAll("''", "'"), end: at + end}
}

const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
}

function doubleQuoted(s: string, at: number): {value: string; end: number} {
  let out = ''
  let from = at + 1
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x22) return {value: out + s.slice(from, i), end: i + 1}
    if (c !== 0x5c) continue
    out += s.slice(from, i)
    const e = s[i + 1]
    const simple = ESCAPES[e]
    if (simple !== undefined) {
      out += simple
      i++
    } else if (e === 'x' || e === 'u') {
      const n = e === 'x' ? 2 : 4
      const hex = s.slice(i + 2, i + 2 + n)
      if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) decline()
      const code = Number.parseInt(hex, 16)
      // Surrogates alone: left to the exact reader's rules.
      if (code >= 0xd800 && code <= 0xdfff) decline()
      out += String.fromCharCode(code)
      i += 1 + n
    } else {
      decline()
    }
    from = i + 1
  }
  return decline()
}

/**
 * Whether a plain scalar can resolve to anything but a string: every implicit form (./yaml11.ts)
 * starts with one of `-+.0-9~eE` or is a short word (`null`, `yes`, `off`...) or empty.
 */
function mayBeImplicit(s: string): boolean {
  if (s.length === 0) return true
  return '-+.0123456789~eE'.includes(s[0]) || (s.length <= 5 && 'YyNnTtFfOo'.includes(s[0]))
}

/** What YAML does not allow in a stream (the readers word it): left to them. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters looked for
const NON_PRINTABLE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]/

/** The documents of a text, or undefined when it holds anything this reader leaves to the others. */
export function readSimpleYaml(
  text: string,
  implicit: readonly ImplicitScalar[],
  limits: {maxDepth: number; maxKey: number},
): SimpleDoc[] | undefined {
  // Carriage returns, tabs and non-ASCII line breaks: the general paths.
  if (text.includes('\r') || text.includes('\t') || NON_PRINTABLE.test(text)) return undefined
  try {
    return new Reader(text, implicit, limits.maxDepth, limits.maxKey).documents()
  } catch (e) {
    if (e === DECLINE) return undefined
    throw e
  }
}
