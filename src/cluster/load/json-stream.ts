// A big JSON snapshot (one List, or one array, of objects) read from its file a piece at a time,
// through one reused 1 MiB buffer: the file's bytes are never all in memory, nor its text, and
// the whole-file path's byte scan is not needed (docs/development.md has the figures).
//
// Items are found without looking at every byte when the file is pretty-printed, as `kubectl get
// -o json` prints it: an item that opens a line with `{` ends at the first line that holds only
// `}` at the same indentation, which one memchr-like search finds. JSON.parse then decides: a span
// that starts with `{`, ends with `}` and parses is exactly one object, so a wrong guess can only
// fail, and the item is then scanned byte by byte as any other. A walk of the parsed item checks
// what the byte scan would have: its depth, and its keys against the key colons of its text (a
// repeated key, which JSON.parse would silently drop; see keyColons). On the 1,000- and
// 5,000-Deployment snapshots this took the reader's CPU time down by 11-13%. The same walk keeps
// one copy of the strings that items repeat (ItemWalker): a quarter of what a snapshot's objects
// hold in memory.
//
// This reader knows only the common shape, and answers only when it is sure: the same value, line
// and item lines as ./json.ts would give for the whole text. Anything else (a second value, stray
// or scalar items, escapes in the List's own keys, a depth beyond MAX_DEPTH, bytes that are not
// UTF-8, anything JSON.parse refuses) returns undefined, and the caller reads the whole file the
// usual way, which also words the error.

import {isUtf8} from 'node:buffer'
import {FILE_YOUNG_GENERATION_CAP_BYTES, youngGenerationCapped} from '../../util/young-generation.js'
import {MAX_DEPTH, type ParsedDoc} from './doc.js'
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

/** Where the bytes come from: a file descriptor when loading, a Buffer in tests. */
export interface ByteSource {
  size: number
  /** Reads up to `length` bytes at file offset `position` into `into` at `offset`; returns the count. */
  read(into: Buffer, offset: number, length: number, position: number): number
}

export const STREAM_CHUNK = 1024 * 1024

const NOT_SURE = Symbol('not sure')

/** The List (or array) of `src`, parsed item by item; undefined when the whole text must decide. */
export function readJsonListStream(src: ByteSource, chunk = STREAM_CHUNK): ParsedDoc[] | undefined {
  try {
    return new ListReader(src, chunk).read()
  } catch (err) {
    if (err === NOT_SURE) return undefined
    throw err
  }
}

/** How far an item's closing line is looked for before the item is scanned byte by byte instead. */
const FAST_ITEM_MAX = 16 * 1024 * 1024

/** fastItem's answers besides an end offset: wait for more bytes, or scan this item byte by byte. */
const STALL = -1
const SLOW = -2

/** How many times `what` (one character) occurs in `s`. */
function occurrences(s: string, what: string): number {
  let n = 0
  let i = s.indexOf(what)
  while (i >= 0) {
    n++
    i = s.indexOf(what, i + 1)
  }
  return n
}

/**
 * The colons of a JSON text that follow a quote, or -1 when one follows whitespace. A key's colon
 * is the only colon outside strings, and it follows either the key's closing quote or whitespace;
 * so when none follows whitespace, the text has at most this many keys (colons inside strings and
 * a string that starts with one only add to the count). The parsed value has at most as many keys
 * as the text, fewer when JSON.parse dropped a repeated one: equal counts mean nothing was
 * dropped. Strings need not be looked into, nor escapes (`\u003a` is no colon of the text).
 */
function keyColons(s: string): number {
  let n = 0
  let i = s.indexOf(':')
  while (i >= 0) {
    const c = s.charCodeAt(i - 1)
    if (c === QUOTE) n++
    else if (c === SP || c === NL || c === TAB || c === CR) return -1
    i = s.indexOf(':', i + 1)
  }
  return n
}

/** Slots of the walker's table of recent strings (a power of two). */
const SHARED_SLOTS = 1 << 14
/** Strings longer than this are not looked up: few repeat, and comparing them costs more. */
const SHARED_MAX_LENGTH = 128

/**
 * One walk of each parsed item: its keys are counted, nesting beyond MAX_DEPTH is refused, and its
 * string values are replaced by an equal string met before where the walker's table still holds
 * one. JSON.parse makes every value a string of its own (it shares keys only), and a snapshot
 * repeats many: each container's `/dev/termination-log`, `IfNotPresent`, every owner reference's
 * kind, a pod's timestamps; at 1,000 Deployments 10.9 MB of the world's 17.9 MB of strings were
 * copies. The table is a cache, not a set: one string per slot, chosen from the length and a few
 * characters, so that it costs a few loads per string and stays 128 KB whatever the input.
 */
class ItemWalker {
  keys = 0
  private readonly recent: string[] = new Array<string>(SHARED_SLOTS).fill('')

  /** Walks `v`, whose brackets open at `depth` (the depth the byte scan would count). */
  walk(v: object, depth: number): void {
    if (depth > MAX_DEPTH) notSure()
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i]
        if (typeof x === 'string') {
          const s = this.kept(x)
          if (s !== undefined) v[i] = s
        } else if (typeof x === 'object' && x !== null) this.walk(x, depth + 1)
      }
      return
    }
    const o = v as Record<string, unknown>
    for (const k in o) {
      this.keys++
      const x = o[k]
      if (typeof x === 'string') {
        const s = this.kept(x)
        if (s !== undefined) o[k] = s
      } else if (typeof x === 'object' && x !== null) this.walk(x, depth + 1)
    }
  }

  /**
   * An equal string kept before (strings compare by value: the caller stores it to drop its own
   * copy), or undefined, and `s` is kept in its slot.
   */
  private kept(s: string): string | undefined {
    const n = s.length
    if (n === 0 || n > SHARED_MAX_LENGTH) return undefined
    // A few characters where strings of one kind differ (the ends, the quarters, the middle).
    const a = s.charCodeAt(0) ^ (s.charCodeAt(n - 1) << 8) ^ (s.charCodeAt(n >> 1) << 16) ^ (n << 24)
    const b = s.charCodeAt(n >> 2) ^ (s.charCodeAt((3 * n) >> 2) << 8) ^ (s.charCodeAt(n - 2) << 16)
    const h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b)
    const slot = (h ^ (h >>> 15)) & (SHARED_SLOTS - 1)
    const kept = this.recent[slot] as string
    if (kept === s) return kept
    this.recent[slot] = s
    return undefined
  }
}

/** How far a plain loop looks for a closing quote before memchr (Buffer.indexOf) takes over. */
const SHORT_STRING = 64

/**
 * closingQuote for the window's first `n` bytes, cheaper on the short strings (keys, most values)
 * that make most of a snapshot: a plain loop costs less than a native call for a few bytes.
 */
function stringEnd(b: Buffer, open: number, n: number): number {
  const lim = Math.min(n, open + SHORT_STRING)
  let j = open + 1
  while (j < lim && b[j] !== QUOTE) j++
  return j < lim && b[j - 1] !== BACKSLASH ? j : closingQuote(b, open)
}

function notSure(): never {
  throw NOT_SURE
}

class ListReader {
  private win: Buffer
  /** Valid bytes in `win`, and the file offset of win[0]. */
  private len = 0
  private base = 0
  /** Next byte to scan (window-relative), and next byte to read from the file. */
  private pos = 0
  private filePos = 0

  private line = 1
  private depth = 0
  /** File offsets; -1 when not (yet) met. */
  private topStart = -1
  private topEnd = -1
  private itemsOpen = -1
  private itemsClose = -1
  private itemStart = -1
  private topLine = 1
  /** Depth of the array whose elements are the items: 1 for [...], 2 for {"items": [...]}. */
  private itemsDepth = -1
  private itemsKey = false
  private itemsArmed = false
  /** Between items: whether a comma is due before the next one (false before the first). */
  private commaDue = false
  private commaSeen = false
  private head: Buffer | undefined
  private tail: Buffer | undefined
  private readonly items: unknown[] = []
  private readonly itemLines: number[] = []
  /** Colons outside strings met by the byte scan (fast items are skipped): one per key. */
  private colons = 0
  /** Keys of what the byte scan met: the List's own and those of items scanned byte by byte. */
  private scannedKeys = 0
  private readonly walker = new ItemWalker()
  /** File offset of an item that did not end where its indentation said: scanned byte by byte. */
  private slowItem = -1
  /** The closing line searched for the item at file offset `fastAt` (kept while more bytes come). */
  private fastAt = -1
  private fastPattern: Buffer | undefined
  /** Whether the young generation has reached its cap (util/young-generation.ts): asked until it has. */
  private youngCapped = false

  constructor(
    private readonly src: ByteSource,
    private readonly chunk: number,
  ) {
    this.win = Buffer.allocUnsafe(chunk)
  }

  read(): ParsedDoc[] {
    this.fill()
    const w = this.win
    if (w[0] === 0xef && w[1] === 0xbb && w[2] === 0xbf) this.pos = 3
    for (;;) {
      const stalled = this.scan()
      if (this.filePos >= this.src.size) {
        // A string that never ends, or a value still open at the end of the file.
        if (stalled || this.topEnd < 0) notSure()
        break
      }
      this.fill()
    }
    return [this.result()]
  }

  /** Keeps what is still needed, then appends the next chunk of the file. */
  private fill(): void {
    // Every object read survives: held at its cap, V8's young generation does not double on them.
    this.youngCapped ||= youngGenerationCapped(FILE_YOUNG_GENERATION_CAP_BYTES)
    const keepFrom = Math.min(this.base + this.pos, this.neededFrom())
    const keep = this.base + this.len - keepFrom
    const need = keep + this.chunk
    if (need > this.win.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.win.length * 2))
      this.win.copy(grown, 0, keepFrom - this.base, this.len)
      this.win = grown
    } else if (keep > 0) {
      this.win.copy(this.win, 0, keepFrom - this.base, this.len)
    }
    this.pos -= keepFrom - this.base
    this.base = keepFrom
    this.len = keep
    const n = this.src.read(this.win, this.len, this.chunk, this.filePos)
    this.filePos += n
    this.len += n
    if (n === 0 && this.filePos < this.src.size) notSure()
  }

  /** The first file offset that later steps still read: the head, the item or the tail being read. */
  private neededFrom(): number {
    if (this.topStart >= 0 && this.itemsOpen < 0) return this.topStart
    if (this.itemStart >= 0) return this.itemStart
    if (this.itemsClose >= 0 && this.topEnd < 0) return this.itemsClose
    return Number.POSITIVE_INFINITY
  }

  /** Scans the window; true when it stopped at a string whose end is not in it yet. */
  private scan(): boolean {
    // A view of the valid bytes, so that indexOf cannot find a quote in what is left of older reads.
    const b = this.win.subarray(0, this.len)
    const n = this.len
    let i = this.pos
    while (i < n) {
      const c = b[i]
      if (c === SP || c === TAB || c === CR) {
        i++
        continue
      }
      if (c === NL) {
        this.line++
        i++
        // The indentation of a pretty-printed line, in a tighter loop than the one above.
        while (b[i] === SP) i++
        continue
      }
      if (this.topEnd >= 0) notSure() // a second value after the List
      if (c === QUOTE) {
        const j = stringEnd(b, i, n)
        if (j < 0) {
          this.pos = i
          return true
        }
        if (this.depth === 0 || this.depth === this.itemsDepth) notSure() // a string as a value or item
        this.itemsKey = this.depth === 1 && isItemsKey(b, i, j)
        this.itemsArmed = false
        i = j + 1
        continue
      }
      if (c === COLON) {
        if (this.depth === 0 || this.depth === this.itemsDepth) notSure()
        this.colons++
        this.itemsArmed = this.itemsKey
        this.itemsKey = false
        i++
        continue
      }
      this.itemsKey = false
      if (c === LBRACE && this.depth === this.itemsDepth && this.base + i !== this.slowItem) {
        const end = this.fastItem(b, i, n)
        if (end === STALL) {
          this.pos = i
          return true
        }
        if (end !== SLOW) {
          this.itemsArmed = false
          i = end
          continue
        }
        this.slowItem = this.base + i
      }
      if (c === LBRACE || c === LBRACKET) this.open(c, i)
      else if (c === RBRACE || c === RBRACKET) this.close(i)
      else if (c === COMMA && this.depth === this.itemsDepth) {
        if (!this.commaDue) notSure()
        this.commaDue = false
        this.commaSeen = true
      } else if (this.depth === 0 || this.depth === this.itemsDepth) notSure() // a scalar there
      this.itemsArmed = false
      i++
    }
    this.pos = i
    return false
  }

  /**
   * The item that opens at b[i] (a `{` that ends its line, with only indentation before it on its
   * line), read whole when a line of the same indentation and `}` closes it: the window offset just
   * after that `}`; STALL when more bytes may show it; SLOW when the byte scan must read the item.
   */
  private fastItem(b: Buffer, i: number, n: number): number {
    if (this.commaDue || (this.items.length === 0 && this.commaSeen)) notSure()
    const atEnd = this.filePos >= this.src.size
    if (this.fastAt !== this.base + i) {
      if (i + 1 >= n) return atEnd ? SLOW : STALL
      if (b[i + 1] !== NL) return SLOW
      const lineStart = b.lastIndexOf(NL, i) + 1
      if (lineStart === 0 && this.base > 0) return SLOW // the line's start is no longer in the window
      for (let k = lineStart; k < i; k++) if (b[k] !== SP && b[k] !== TAB) return SLOW
      this.fastAt = this.base + i
      this.fastPattern = Buffer.concat([Buffer.from([NL]), b.subarray(lineStart, i), Buffer.from([RBRACE])])
    }
    const pattern = this.fastPattern as Buffer
    const j = b.indexOf(pattern, i + 1)
    if (j < 0) return atEnd || n - i > FAST_ITEM_MAX ? SLOW : STALL
    const end = j + pattern.length
    const bytes = b.subarray(i, end)
    if (!isUtf8(bytes)) notSure()
    const text = bytes.toString('utf8')
    let value: object
    try {
      value = JSON.parse(text)
    } catch {
      return SLOW
    }
    const w = this.walker
    const keys = w.keys
    w.walk(value, this.depth + 1)
    // As many keys in the value as the text can hold: JSON.parse dropped no repeated key.
    if (keyColons(text) !== w.keys - keys) return SLOW
    this.items.push(value)
    this.itemLines.push(this.line)
    this.line += occurrences(text, '\n')
    this.commaDue = true
    return end
  }

  private open(c: number, i: number): void {
    const at = this.base + i
    if (this.depth === 0) {
      this.topStart = at
      this.topLine = this.line
      if (c === LBRACKET) {
        this.itemsDepth = 1
        this.itemsOpen = at
        this.head = Buffer.from('[')
      }
    } else if (this.depth === this.itemsDepth) {
      if (this.commaDue || (this.items.length === 0 && this.commaSeen)) notSure()
      this.itemStart = at
      this.itemLines.push(this.line)
    } else if (this.itemsArmed && this.depth === 1 && c === LBRACKET) {
      if (this.itemsOpen >= 0) notSure() // a second items array
      this.itemsDepth = 2
      this.itemsOpen = at
      this.head = Buffer.from(this.win.subarray(this.topStart - this.base, i + 1))
    }
    this.depth++
    if (this.depth > MAX_DEPTH) notSure()
  }

  private close(i: number): void {
    const at = this.base + i
    this.depth--
    if (this.depth < 0) notSure()
    if (this.depth === this.itemsDepth) {
      this.item(this.win.subarray(this.itemStart - this.base, i + 1))
      this.itemStart = -1
      this.commaDue = true
    } else if (this.depth === this.itemsDepth - 1) {
      // The items array closes: no trailing comma.
      if (!this.commaDue && this.commaSeen) notSure()
      this.itemsClose = at
      this.itemsDepth = -1
    }
    if (this.depth === 0) {
      if (this.itemsClose < 0) notSure() // an object without an items array
      this.tail = Buffer.from(this.win.subarray(this.itemsClose - this.base, i + 1))
      this.topEnd = at + 1
    }
  }

  private item(bytes: Buffer): void {
    if (!isUtf8(bytes)) notSure()
    let value: unknown
    try {
      value = JSON.parse(bytes.toString('utf8'))
    } catch {
      notSure()
    }
    const w = this.walker
    const keys = w.keys
    if (typeof value === 'object' && value !== null) w.walk(value, this.depth + 1)
    this.scannedKeys += w.keys - keys
    this.items.push(value)
  }

  /** The List with its items, as JSON.parse would give the whole of it; a duplicate key is left to it. */
  private result(): ParsedDoc {
    const doc = this.list()
    if (this.scannedKeys !== this.colons) notSure()
    return doc
  }

  private list(): ParsedDoc {
    const head = this.head ?? notSure()
    const tail = this.tail ?? notSure()
    const doc = {value: this.items as unknown, line: this.topLine, index: 0, itemLines: this.itemLines}
    if (this.itemsOpen === this.topStart) {
      if (tail.length !== 1 || tail[0] !== RBRACKET) notSure()
      return doc
    }
    // An escaped key could be another spelling of "items" that JSON.parse would let win.
    if (head.includes(BACKSLASH) || tail.includes(BACKSLASH) || !isUtf8(head) || !isUtf8(tail)) notSure()
    let list: {items?: unknown}
    try {
      list = JSON.parse(head.toString('utf8') + tail.toString('utf8'))
    } catch {
      return notSure()
    }
    if (typeof list !== 'object' || list === null || !Array.isArray(list.items) || list.items.length !== 0) {
      notSure()
    }
    this.scannedKeys += countKeys(list)
    list.items = this.items
    doc.value = list
    return doc
  }
}
