// `-f` as kubectl reads it: files, directories (their .yaml/.yml/.json files, subdirectories only
// when recursive) and `-` for stdin. Sizes are checked before a file is read in full.
// Files and directories are read with synchronous calls, as a CLI that has nothing else to do can:
// each asynchronous call is a round trip through libuv's thread pool, and for a small file those
// waits were ~10 ms of a ~290 ms call on the benchmark machine.

import {
  closeSync,
  createReadStream,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs'
import {join} from 'node:path'
import {InputError} from '../../errors.js'
import type {ParsedDoc} from './doc.js'
import {readJsonListStream} from './json-stream.js'
import {type Format, limitFor, MAX_JSON_BYTES, sniffFormat, startsLikeJson, tooLarge} from './text.js'

export const STDIN_NAME = 'STDIN'

const MANIFEST_EXTENSIONS = ['.yaml', '.yml', '.json']

export interface InputFile {
  /** The name used in messages: the path as given (joined under a directory), or STDIN. */
  name: string
  /** Absent for stdin. */
  path?: string
}

function describeFsError(path: string, err: unknown): InputError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  if ((code === 'ENOENT' || code === 'ENOTDIR') && /^https?:\/\//i.test(path)) {
    // kubectl -f reads URLs; this tool reads files and stdin only.
    return new InputError(
      `the path "${path}" does not exist: -f reads files and stdin, not URLs (curl -fsSL URL | kubectl deployctl ... -f -)`,
    )
  }
  if (code === 'ENOENT' || code === 'ENOTDIR') return new InputError(`the path "${path}" does not exist`)
  if (code === 'EACCES' || code === 'EPERM') return new InputError(`${path}: permission denied`)
  if (code === 'EISDIR') return new InputError(`${path}: is a directory`)
  const why = code === undefined ? undefined : READ_ERRORS[code]
  return new InputError(`${path}: cannot read: ${why ?? (code ? `system error ${code}` : String(err))}`)
}

/** What a failed read means, in words rather than Node's `EBADF: bad file descriptor, read`. */
const READ_ERRORS: Record<string, string> = {
  EBADF: 'not open for reading (closed, or opened for writing only)',
  EIO: 'input/output error',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  ENXIO: 'no such device',
  ENODEV: 'no such device',
  EAGAIN: 'not ready for reading (non-blocking)',
}

function statPath(path: string): Stats {
  try {
    return statSync(path)
  } catch (err) {
    throw describeFsError(path, err)
  }
}

function walkDir(dir: string, recursive: boolean, out: InputFile[], visited: Set<string>): void {
  // Symlinked directories could loop; real paths already visited are not entered again.
  let real: string
  try {
    real = realpathSync(dir)
  } catch (err) {
    throw describeFsError(dir, err)
  }
  if (visited.has(real)) return
  visited.add(real)
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch (err) {
    throw describeFsError(dir, err)
  }
  // Lexical order, as filepath.Walk visits them, so runs are reproducible.
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  for (const name of names) {
    const path = join(dir, name)
    const st = statPath(path)
    if (st.isDirectory()) {
      if (recursive) walkDir(path, recursive, out, visited)
    } else if (MANIFEST_EXTENSIONS.some((ext) => name.toLowerCase().endsWith(ext))) {
      out.push({name: path, path})
    }
  }
}

/** Expands the -f arguments into the files to read, in order. */
export function expandPaths(paths: string[], recursive: boolean): InputFile[] {
  const out: InputFile[] = []
  let stdin = false
  for (const p of paths) {
    if (p === '-') {
      if (stdin) throw new InputError('"-" (standard input) can be given only once')
      stdin = true
      out.push({name: STDIN_NAME})
      continue
    }
    if (p === '') throw new InputError('the path "" does not exist')
    const st = statPath(p)
    if (st.isDirectory()) walkDir(p, recursive, out, new Set())
    else out.push({name: p, path: p})
  }
  return out
}

const SNIFF_BYTES = 4096

/** Reads a stream up to a limit that depends on what the first bytes say the format is. */
async function readStream(name: string, chunks: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const parts: Buffer[] = []
  let size = 0
  let format: Format | undefined
  for await (const chunk of chunks) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    parts.push(b)
    size += b.length
    if (format === undefined && size >= SNIFF_BYTES) format = sniffFormat(name, Buffer.concat(parts))
    if (size > (format === undefined ? MAX_JSON_BYTES : limitFor(format))) {
      throw tooLarge(name, size, format ?? 'json')
    }
  }
  const buf = Buffer.concat(parts, size)
  if (format === undefined && size > limitFor(sniffFormat(name, buf)))
    throw tooLarge(name, size, sniffFormat(name, buf))
  return buf
}

export async function readStdin(): Promise<Buffer> {
  try {
    if (fstatSync(0).isDirectory()) throw new InputError(`${STDIN_NAME}: is a directory`)
    return await readStream(STDIN_NAME, process.stdin)
  } catch (err) {
    if (err instanceof InputError) throw err
    throw describeFsError(STDIN_NAME, err)
  }
}

/** JSON files this big are first read a piece at a time, as a List (./json-stream.ts). */
export const STREAM_MIN_BYTES = 4 * 1024 * 1024

/**
 * What one file gave: the documents of a big JSON List read a piece at a time, or its bytes.
 * `regular` is false for a pipe or device (`-f <(kubectl get ...)`, a FIFO), which cannot be read
 * a second time: a caller that may need the bytes again keeps them.
 */
export type FileContent = {docs: ParsedDoc[]} | {bytes: Buffer; regular: boolean}

/**
 * Reads a file through one open: fstat once, then a big regular JSON file is tried as a streamed
 * List, and anything else (or a List the streaming reader leaves to the whole-file path) is read
 * from the same descriptor, refusing a file over the limit for its format before reading it all.
 * `onSize` hears the size before the read (undefined for a pipe or device).
 */
export async function readFile(
  f: InputFile,
  onSize?: (bytes: number | undefined) => void,
): Promise<FileContent> {
  const path = f.path ?? f.name
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch (err) {
    throw describeFsError(path, err)
  }
  try {
    const st = fstatSync(fd)
    if (st.isDirectory()) throw new InputError(`${f.name}: is a directory`)
    if (!st.isFile()) {
      onSize?.(undefined)
      // No size up front, so count while reading.
      return {bytes: await readStream(f.name, createReadStream('', {fd, autoClose: false})), regular: false}
    }
    onSize?.(st.size)
    const head = Buffer.alloc(Math.min(SNIFF_BYTES, st.size))
    if (head.length > 0) readSync(fd, head, 0, head.length, 0)
    const format = sniffFormat(f.name, head)
    if (st.size > limitFor(format)) throw tooLarge(f.name, st.size, format)
    if (st.size >= STREAM_MIN_BYTES && format === 'json' && startsLikeJson(head)) {
      const docs = streamJsonList(fd, st.size)
      if (docs) return {docs}
    }
    // Positioned reads above leave the descriptor at the start.
    return {bytes: readFileSync(fd), regular: true}
  } catch (err) {
    if (err instanceof InputError) throw err
    throw describeFsError(f.name, err)
  } finally {
    closeSync(fd)
  }
}

/**
 * The documents of a big JSON List file, read without holding the file in memory; undefined when
 * it is not a plain List or anything else the whole-file path must decide (which then also words
 * any error).
 */
function streamJsonList(fd: number, size: number): ParsedDoc[] | undefined {
  try {
    return readJsonListStream({
      size,
      read: (into, offset, length, position) => readSync(fd, into, offset, length, position),
    })
  } catch {
    return undefined
  }
}
