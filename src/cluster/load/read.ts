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
  if (code === 'ENOENT' || code === 'ENOTDIR') return new InputError(`the path "${path}" does not exist`)
  if (code === 'EACCES' || code === 'EPERM') return new InputError(`${path}: permission denied`)
  if (code === 'EISDIR') return new InputError(`${path}: is a directory`)
  const msg = err instanceof Error ? err.message : String(err)
  return new InputError(`${path}: cannot read: ${msg}`)
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

/** A file's size in bytes before it is read (undefined for stdin, a pipe, or one that is gone). */
export function fileSize(f: InputFile): number | undefined {
  if (f.path === undefined) return undefined
  const st = statSync(f.path, {throwIfNoEntry: false})
  return st?.isFile() ? st.size : undefined
}

export function readStdin(): Promise<Buffer> {
  return readStream(STDIN_NAME, process.stdin)
}

/** The bytes of a file, refusing one over the limit for its format before reading it all. */
export async function readFileBytes(f: InputFile): Promise<Buffer> {
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
      // A pipe or device (`-f <(kubectl get ...)`): no size up front, so count while reading.
      return await readStream(f.name, createReadStream('', {fd, autoClose: false}))
    }
    const head = Buffer.alloc(Math.min(SNIFF_BYTES, st.size))
    if (head.length > 0) readSync(fd, head, 0, head.length, 0)
    const format = sniffFormat(f.name, head)
    if (st.size > limitFor(format)) throw tooLarge(f.name, st.size, format)
    return readFileSync(fd)
  } catch (err) {
    if (err instanceof InputError) throw err
    throw describeFsError(f.name, err)
  } finally {
    closeSync(fd)
  }
}

/** JSON files this big are first read a piece at a time, as a List (./json-stream.ts). */
export const STREAM_MIN_BYTES = 4 * 1024 * 1024

/**
 * The documents of a big JSON List file, read without holding the file in memory; undefined when
 * the file is small, not JSON, not a plain List, or anything else the whole-file path must decide
 * (which then also words any error).
 */
export function readJsonListFile(f: InputFile): ParsedDoc[] | undefined {
  if (f.path === undefined) return undefined
  let fd: number
  try {
    fd = openSync(f.path, 'r')
  } catch {
    return undefined
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile() || st.size < STREAM_MIN_BYTES || st.size > MAX_JSON_BYTES) return undefined
    const head = Buffer.alloc(SNIFF_BYTES)
    readSync(fd, head, 0, head.length, 0)
    if (sniffFormat(f.name, head) !== 'json' || !startsLikeJson(head)) return undefined
    return readJsonListStream({
      size: st.size,
      read: (into, offset, length, position) => readSync(fd, into, offset, length, position),
    })
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}
