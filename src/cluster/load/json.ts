// JSON input. JSON.parse does the parsing (it is several times faster than anything written in
// JS); a structural pre-scan supplies what it cannot: the depth guard, the boundaries of a stream of
// concatenated values, and the start line and extent of each List item. Positions of syntax errors
// are worked out only after JSON.parse has failed.

import {InputError} from '../../errors.js'
import {MAX_DEPTH, type ParsedDoc, syntaxError, tooDeep} from './doc.js'
import {
  BACKSLASH,
  COLON,
  COMMA,
  CR,
  closingQuote,
  countKeys,
  isItemsKey,
  LBRACE,
  LBRACKET,
  NL,
  QUOTE,
  RBRACE,
  RBRACKET,
  SP,
  TAB,
} from './json-bytes.js'

interface TopValue {
  start: number
  end: number
  line: number
  itemLines: number[]
  /** Byte offsets of the List items (the elements of `items`, or of a top-level array). */
  itemStarts: number[]
  itemEnds: number[]
  /** Offsets of the items array's brackets, and how many items arrays the scan met. */
  itemsOpen: number
  itemsClose: number
  itemsArrays: number
  /** Colons outside strings: one per key in valid JSON (./json-bytes.ts countKeys). */
  colons: number
}

/** What the JSON reader reads: a file's bytes, and its text only when a path needs the whole of it. */
export interface JsonSource {
  bytes: Buffer
  text(): string
}

interface Scan {
  tops: TopValue[]
  /** Offset of the first character outside any object or array that is not whitespace, or -1. */
  stray: number
  /** Offset of the first bracket nested deeper than MAX_DEPTH, or -1. */
  deep: number
}

/**
 * One linear pass that looks only at brackets, strings and newlines. It does not validate (JSON.parse
 * does), so on malformed input its results serve only to report errors. It reads the bytes rather
 * than the string (a third faster in V8), skips strings with Buffer.indexOf (memchr), and counts
 * newlines outside strings only: valid JSON has none inside them. Offsets are byte offsets.
 */
function scan(b: Buffer): Scan {
  const tops: TopValue[] = []
  let top: TopValue | undefined
  let stray = -1
  let line = 1
  let depth = 0
  // Depth of the array whose elements are List items (2 for {"items": [...]}, 1 for [...]), or -1.
  let itemsDepth = -1
  // Whether the last token at depth 1 was the key "items" (then a ':' arms `itemsArray`).
  let itemsKey = false
  let itemsArray = false
  const n = b.length
  // A UTF-8 byte order mark.
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0
  while (i < n) {
    const c = b[i]
    if (c === SP || c === TAB || c === CR) {
      i++
      continue
    }
    if (c === NL) {
      line++
      i++
      continue
    }
    if (c === QUOTE) {
      const j = closingQuote(b, i)
      if (j < 0) break
      itemsKey = depth === 1 && isItemsKey(b, i, j)
      itemsArray = false
      if (depth === 0 && stray < 0) stray = i
      i = j + 1
      continue
    }
    if (c === COLON) {
      if (top) top.colons++
      itemsArray = itemsKey
      itemsKey = false
      i++
      continue
    }
    itemsKey = false
    if (c === LBRACE || c === LBRACKET) {
      if (depth === 0) {
        top = {
          start: i,
          end: n,
          line,
          itemLines: [],
          itemStarts: [],
          itemEnds: [],
          itemsOpen: -1,
          itemsClose: -1,
          itemsArrays: 0,
          colons: 0,
        }
        tops.push(top)
        if (c === LBRACKET) {
          itemsDepth = 1
          top.itemsOpen = i
          top.itemsArrays++
        }
      } else if (depth === itemsDepth && top) {
        top.itemLines.push(line)
        top.itemStarts.push(i)
      } else if (itemsArray && depth === 1 && c === LBRACKET && top) {
        itemsDepth = 2
        top.itemsOpen = i
        top.itemsArrays++
      }
      itemsArray = false
      depth++
      if (depth > MAX_DEPTH) return {tops, stray, deep: i}
      i++
      continue
    }
    itemsArray = false
    if (c === RBRACE || c === RBRACKET) {
      depth--
      if (depth === itemsDepth && top) top.itemEnds.push(i + 1)
      else if (depth < itemsDepth) {
        itemsDepth = -1
        if (top) top.itemsClose = i
      }
      if (depth === 0 && top) top.end = i + 1
      if (depth < 0) {
        if (stray < 0) stray = i
        depth = 0
      }
      i++
      continue
    }
    if (depth === 0 && stray < 0) stray = i
    i++
  }
  return {tops, stray, deep: -1}
}

/** Line and column (in characters) of a byte offset; error path only. */
function lineColAtByte(b: Buffer, offset: number): {line: number; col: number} {
  let line = 1
  let lineStart = 0
  let i = b.indexOf(NL)
  while (i >= 0 && i < offset) {
    line++
    lineStart = i + 1
    i = b.indexOf(NL, lineStart)
  }
  return {line, col: b.toString('utf8', lineStart, offset).length + 1}
}

// --- error path: a small validating scanner that finds the first error and says what it is ---

interface JsonProblem {
  pos: number
  msg: string
}

function describeChar(text: string, i: number): string {
  if (i >= text.length) return 'end of input'
  const c = text.codePointAt(i) ?? 0
  if (c < 0x20 || c === 0x7f) return `character U+${c.toString(16).toUpperCase().padStart(4, '0')}`
  return `'${String.fromCodePoint(c)}'`
}

// States of the validating scanner: what may come next.
const W_VALUE = 0
const W_KEY_OR_END = 1
const W_KEY = 2
const W_COLON = 3
const W_COMMA_OR_OBJ_END = 4
const W_VALUE_OR_ARR_END = 5
const W_COMMA_OR_ARR_END = 6

function afterValue(stack: number[]): number {
  if (stack.length === 0) return W_VALUE
  return stack[stack.length - 1] === LBRACE ? W_COMMA_OR_OBJ_END : W_COMMA_OR_ARR_END
}

function isWs(c: number): boolean {
  return c === SP || c === NL || c === CR || c === TAB
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39
}

function scanString(text: string, i: number): JsonProblem | number {
  // i is at the opening quote; returns the offset after the closing quote.
  let j = i + 1
  const n = text.length
  while (j < n) {
    const c = text.charCodeAt(j)
    if (c === QUOTE) return j + 1
    if (c < 0x20)
      return {
        pos: j,
        msg: `invalid JSON: ${describeChar(text, j)} in a string (control characters must be escaped)`,
      }
    if (c === BACKSLASH) {
      const e = text.charCodeAt(j + 1)
      if (e === 0x75 /* u */) {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6))) {
          return {pos: j, msg: 'invalid JSON: bad \\u escape in a string'}
        }
        j += 6
        continue
      }
      if ('"\\/bfnrt'.indexOf(String.fromCharCode(e)) < 0 || j + 1 >= n) {
        return {pos: j, msg: 'invalid JSON: bad escape in a string'}
      }
      j += 2
      continue
    }
    j++
  }
  return {pos: i, msg: 'invalid JSON: unterminated string'}
}

function scanScalar(text: string, i: number): JsonProblem | number {
  const c = text.charCodeAt(i)
  if (c === QUOTE) return scanString(text, i)
  for (const lit of ['true', 'false', 'null']) {
    if (text.startsWith(lit, i)) return i + lit.length
  }
  if (c === 0x2d /* - */ || isDigit(c)) {
    const m = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y
    m.lastIndex = i
    if (m.exec(text) && m.lastIndex > i) return m.lastIndex
    return {pos: i, msg: 'invalid JSON: malformed number'}
  }
  return {pos: i, msg: `invalid JSON: unexpected ${describeChar(text, i)} (expected a value)`}
}

function findProblem(text: string): JsonProblem | undefined {
  const stack: number[] = []
  let want: number = W_VALUE
  let i = 0
  const n = text.length
  const unexpected = (expected: string): JsonProblem => ({
    pos: i,
    msg: `invalid JSON: unexpected ${describeChar(text, i)} (expected ${expected})`,
  })
  for (;;) {
    while (i < n && isWs(text.charCodeAt(i))) i++
    if (i >= n) {
      return stack.length === 0 && want === W_VALUE
        ? undefined
        : {pos: n, msg: 'invalid JSON: unexpected end of input'}
    }
    const c = text.charCodeAt(i)
    switch (want) {
      case W_VALUE:
      case W_VALUE_OR_ARR_END: {
        if (want === W_VALUE_OR_ARR_END && c === RBRACKET) {
          stack.pop()
          i++
          want = afterValue(stack)
          break
        }
        if (c === LBRACE) {
          stack.push(LBRACE)
          want = W_KEY_OR_END
          i++
          break
        }
        if (c === LBRACKET) {
          stack.push(LBRACKET)
          want = W_VALUE_OR_ARR_END
          i++
          break
        }
        const r = scanScalar(text, i)
        if (typeof r !== 'number') return r
        i = r
        want = afterValue(stack)
        break
      }
      case W_KEY_OR_END:
      case W_KEY: {
        if (want === W_KEY_OR_END && c === RBRACE) {
          stack.pop()
          i++
          want = afterValue(stack)
          break
        }
        if (c !== QUOTE) return unexpected('a double-quoted property name')
        const r = scanString(text, i)
        if (typeof r !== 'number') return r
        i = r
        want = W_COLON
        break
      }
      case W_COLON:
        if (c !== COLON) return unexpected("':' after a property name")
        i++
        want = W_VALUE
        break
      case W_COMMA_OR_OBJ_END:
      case W_COMMA_OR_ARR_END: {
        const close = want === W_COMMA_OR_OBJ_END ? RBRACE : RBRACKET
        if (c === 0x2c /* , */) {
          i++
          want = close === RBRACE ? W_KEY : W_VALUE
          break
        }
        if (c === close) {
          stack.pop()
          i++
          want = afterValue(stack)
          break
        }
        return unexpected(close === RBRACE ? "',' or '}'" : "',' or ']'")
      }
    }
  }
}

/** The error to report when JSON.parse refused `text` (a whole input or one value of a stream). */
function parseFailure(file: string, text: string, err: unknown): Error {
  const p = findProblem(text)
  if (p) return syntaxError(file, text, p.pos, p.msg)
  const m = err instanceof Error ? /at position (\d+)/.exec(err.message) : null
  const msg = err instanceof Error ? err.message.replace(/ in JSON at position \d+.*$/, '') : String(err)
  return syntaxError(file, text, m ? Number(m[1]) : 0, `invalid JSON: ${msg}`)
}

/**
 * The first key repeated in an object of `text`, which JSON.parse has accepted (error path only):
 * its offset and the key as written.
 */
function findDuplicateKey(text: string): {pos: number; key: string} | undefined {
  // One set of keys per open object; null for an array.
  const open: Array<Set<string> | null> = []
  let keyNext = false
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = scanString(text, i)
      if (typeof end !== 'number') return undefined
      const keys = open[open.length - 1]
      if (keyNext && keys) {
        const written = text.slice(i, end)
        const key = JSON.parse(written) as string
        if (keys.has(key)) return {pos: i, key: written}
        keys.add(key)
      }
      keyNext = false
      i = end
      continue
    }
    i++
    if (isWs(c)) continue
    if (c === LBRACE) open.push(new Set())
    else if (c === LBRACKET) open.push(null)
    else if (c === RBRACE || c === RBRACKET) open.pop()
    keyNext = c === LBRACE || (c === COMMA && open.length > 0 && open[open.length - 1] !== null)
  }
  return undefined
}

/**
 * Refuses a value with fewer keys than its text has colons: JSON.parse kept the last of a repeated
 * key, where kubectl's strict decoding refuses it (as the YAML readers do).
 */
function checkKeys(file: string, src: JsonSource, value: unknown, t: TopValue): void {
  if (countKeys(value) === t.colons) return
  // The values before this one had none: the first repeated key of the file is this value's.
  const text = src.text()
  const d = findDuplicateKey(text)
  if (d) throw syntaxError(file, text, d.pos, `duplicate key ${d.key} (keys in an object must be unique)`)
  throw new InputError(`${file}:${t.line}: a key is repeated in an object (keys in an object must be unique)`)
}

/** Whether b[from, to) is JSON whitespace with exactly `commas` commas. */
function isSeparator(b: Buffer, from: number, to: number, commas: number): boolean {
  let seen = 0
  for (let i = from; i < to; i++) {
    const c = b[i]
    if (c === 0x2c /* , */) seen++
    else if (c !== SP && c !== NL && c !== CR && c !== TAB) return false
  }
  return seen === commas
}

/**
 * A List (or top-level array) parsed one item at a time: the same value JSON.parse gives for the
 * whole text, without a string as large as the file. For a 236 MB snapshot that string, the file's
 * bytes and the objects were all alive at once; now the strings are an item long and die young.
 * Returns undefined whenever the scan's view of the structure is not certain (stray tokens between
 * items, a second items key, escapes in the List's own keys, any parse error); the caller then
 * parses the whole text, which also words the error.
 */
function parseByItems(b: Buffer, t: TopValue): {value: unknown} | undefined {
  const {itemStarts: starts, itemEnds: ends} = t
  if (t.itemsArrays !== 1 || t.itemsClose < 0 || starts.length !== ends.length) return undefined
  let prev = t.itemsOpen + 1
  for (let k = 0; k < starts.length; k++) {
    if (!isSeparator(b, prev, starts[k], k === 0 ? 0 : 1)) return undefined
    prev = ends[k]
  }
  if (!isSeparator(b, prev, t.itemsClose, 0)) return undefined
  const items: unknown[] = new Array(starts.length)
  try {
    for (let k = 0; k < starts.length; k++) items[k] = JSON.parse(b.toString('utf8', starts[k], ends[k]))
  } catch {
    return undefined
  }
  if (t.itemsOpen === t.start) return t.itemsClose === t.end - 1 ? {value: items} : undefined
  // The List without its items: `{"apiVersion": "v1", "items": [` + `], "kind": "List", ...}`.
  const head = b.toString('utf8', t.start, t.itemsOpen + 1)
  const tail = b.toString('utf8', t.itemsClose, t.end)
  // An escaped key could be another spelling of "items" that JSON.parse would let win.
  if (head.includes('\\') || tail.includes('\\')) return undefined
  let list: unknown
  try {
    list = JSON.parse(head + tail)
  } catch {
    return undefined
  }
  const rec = list as {items?: unknown}
  if (!Array.isArray(rec?.items) || rec.items.length !== 0) return undefined
  rec.items = items
  return {value: list}
}

/**
 * Parses JSON input: one value, or several concatenated ones as `kubectl get -o json` prints them
 * one after the other. The pre-scan reads the bytes; the whole text is asked for only when a List
 * cannot be parsed item by item, or to word an error. Throws InputError naming file:line:column.
 */
export function parseJson(file: string, src: JsonSource): ParsedDoc[] {
  const b = src.bytes
  const s = scan(b)
  if (s.deep >= 0) {
    const {line, col} = lineColAtByte(b, s.deep)
    throw tooDeep(file, line, col)
  }
  if (s.stray >= 0) {
    const text = src.text()
    const p = findProblem(text)
    if (p) throw syntaxError(file, text, p.pos, p.msg)
    const {line, col} = lineColAtByte(b, s.stray)
    throw new InputError(
      `${file}:${line}:${col}: expected a Kubernetes object (a JSON object with apiVersion and kind) or a list of them`,
    )
  }
  const docs: ParsedDoc[] = []
  if (s.tops.length === 1) {
    const t = s.tops[0]
    let parsed = parseByItems(b, t)
    if (!parsed) {
      const text = src.text()
      try {
        parsed = {value: JSON.parse(text)}
      } catch (err) {
        throw parseFailure(file, text, err)
      }
    }
    checkKeys(file, src, parsed.value, t)
    docs.push({value: parsed.value, line: t.line, index: 0, itemLines: t.itemLines})
    return docs
  }
  s.tops.forEach((t, index) => {
    let value: unknown
    try {
      value = JSON.parse(b.toString('utf8', t.start, t.end))
    } catch (err) {
      // The whole text is searched, so that the position is the file's.
      throw parseFailure(file, src.text(), err)
    }
    checkKeys(file, src, value, t)
    docs.push({value, line: t.line, index, itemLines: t.itemLines})
  })
  return docs
}
