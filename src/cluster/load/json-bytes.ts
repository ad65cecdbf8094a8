// Byte-level pieces shared by the JSON readers that look at structure without parsing values:
// the pre-scan of ./json.ts and the streaming List reader of ./json-stream.ts.

export const QUOTE = 0x22
export const BACKSLASH = 0x5c
export const NL = 0x0a
export const SP = 0x20
export const CR = 0x0d
export const TAB = 0x09
export const COMMA = 0x2c
export const COLON = 0x3a
export const LBRACE = 0x7b
export const RBRACE = 0x7d
export const LBRACKET = 0x5b
export const RBRACKET = 0x5d

/**
 * Offset of the quote that closes the string opened at `open`, or -1 when `b` ends first. A quote
 * counts when an even number of backslashes precedes it. Buffer.indexOf is memchr.
 */
export function closingQuote(b: Buffer, open: number): number {
  let j = b.indexOf(QUOTE, open + 1)
  while (j > 0 && b[j - 1] === BACKSLASH) {
    let k = j - 1
    while (b[k] === BACKSLASH) k--
    if ((j - 1 - k) % 2 === 0) break
    j = b.indexOf(QUOTE, j + 1)
  }
  return j
}

/** Whether the string from `open` to `close` (both quotes) is "items", spelled without escapes. */
export function isItemsKey(b: Buffer, open: number, close: number): boolean {
  // "items": 0x69 0x74 0x65 0x6d 0x73
  return (
    close - open === 6 &&
    b[open + 1] === 0x69 &&
    b[open + 2] === 0x74 &&
    b[open + 3] === 0x65 &&
    b[open + 4] === 0x6d &&
    b[open + 5] === 0x73
  )
}

/**
 * The number of keys in a parsed value, all levels. A text has one key per `:` outside strings, and
 * JSON.parse keeps the last of duplicate keys: fewer keys than colons means a duplicate, which the
 * readers then refuse as strict decoding does (a walk of ~20 ms for a 48 MB snapshot, against a
 * parse with a reviver or per-object sets on every file).
 */
export function countKeys(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0
  let n = 0
  if (Array.isArray(v)) {
    for (const x of v) n += countKeys(x)
    return n
  }
  for (const k in v) n += 1 + countKeys((v as Record<string, unknown>)[k])
  return n
}
