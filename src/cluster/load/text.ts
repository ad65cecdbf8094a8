// Turning bytes into text: size limits, binary detection and format sniffing happen before any
// parser sees the input, so a hostile file is refused in bounded time and memory.

import {isUtf8} from 'node:buffer'
import {InputError} from '../../errors.js'

const MiB = 1024 * 1024

/**
 * YAML parsing costs roughly 20x what JSON.parse does, so YAML gets the tighter limit. JSON is what
 * `kubectl get -o json` snapshots are, and those reach hundreds of MB; V8 cannot hold a string much
 * over 512 MiB anyway.
 */
export const MAX_YAML_BYTES = 64 * MiB
export const MAX_JSON_BYTES = 500 * MiB

export type Format = 'json' | 'yaml'

export function limitFor(format: Format): number {
  return format === 'json' ? MAX_JSON_BYTES : MAX_YAML_BYTES
}

export function describeBytes(n: number): string {
  return n % MiB === 0 ? `${n / MiB} MiB` : `${n} bytes`
}

export function tooLarge(file: string, size: number, format: Format): InputError {
  const what = format === 'json' ? 'JSON' : 'YAML'
  return new InputError(
    `${file}: file is too large (${size} bytes; the limit for ${what} input is ${describeBytes(limitFor(format))})`,
  )
}

/** Format from the file name when it says so, else from the first significant byte. */
export function sniffFormat(file: string, head: Uint8Array): Format {
  const lower = file.toLowerCase()
  if (lower.endsWith('.json')) return 'json'
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml'
  return startsLikeJson(head) ? 'json' : 'yaml'
}

/** Whether the first significant byte opens a JSON object or array (kubectl's decoder sniffs so). */
export function startsLikeJson(head: Uint8Array): boolean {
  let i = 0
  // A UTF-8 byte order mark.
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3
  for (; i < head.length; i++) {
    const c = head[i]
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue
    return c === 0x7b /* { */ || c === 0x5b /* [ */
  }
  return false
}

/** Offset of the first byte that is not part of a well-formed UTF-8 sequence. */
function firstInvalidUtf8(buf: Uint8Array): number {
  let i = 0
  const n = buf.length
  while (i < n) {
    const c = buf[i]
    if (c < 0x80) {
      i++
      continue
    }
    let need: number
    let min: number
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1
      min = 0x80
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2
      min = 0x800
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3
      min = 0x10000
    } else return i
    let cp = c & (0xff >> (need + 2))
    for (let k = 1; k <= need; k++) {
      const b = buf[i + k]
      if (b === undefined || (b & 0xc0) !== 0x80) return i
      cp = (cp << 6) | (b & 0x3f)
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i
    i += need + 1
  }
  return -1
}

/**
 * A UTF-16 file with its byte order mark (what PowerShell 5's `>` writes) as UTF-8 bytes; other
 * bytes as they are. kubectl reads such files (go-yaml decodes UTF-16 by its mark).
 */
export function fromUtf16(file: string, b: Buffer): Buffer {
  const le = b[0] === 0xff && b[1] === 0xfe
  if (!le && !(b[0] === 0xfe && b[1] === 0xff)) return b
  let text: string
  try {
    text = new TextDecoder(le ? 'utf-16le' : 'utf-16be', {fatal: true}).decode(b)
  } catch {
    throw new InputError(`${file}: not a text file (invalid UTF-16)`)
  }
  return Buffer.from(text, 'utf8')
}

/**
 * Refuses what is not text with an InputError. NUL bytes are refused even though they are valid
 * UTF-8: no manifest contains them, and a binary file usually does.
 */
export function checkBytes(file: string, b: Buffer): void {
  const nul = b.indexOf(0)
  if (nul >= 0) throw new InputError(`${file}: not a text file (NUL byte at byte ${nul})`)
  if (!isUtf8(b)) {
    throw new InputError(`${file}: not a text file (invalid UTF-8 at byte ${firstInvalidUtf8(b)})`)
  }
}

/** The text of bytes that passed checkBytes, without a byte order mark. */
export function bytesToText(b: Buffer): string {
  let text = b.toString('utf8')
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  return text
}

/** checkBytes' NUL check for input that arrives as a string (tests, an injected stdin). */
export function checkText(file: string, text: string): string {
  const nul = text.indexOf('\0')
  if (nul >= 0) {
    throw new InputError(
      `${file}: not a text file (NUL byte at byte ${Buffer.byteLength(text.slice(0, nul))})`,
    )
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}
