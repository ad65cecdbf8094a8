// cluster/load/: the file loader behind `-f`: reads manifests and snapshots (YAML or JSON, Lists included) into a
// World, defaulted and validated as the API server would have, or fails with one InputError line
// (`FILE:LINE[:COL]: ...`) that the command prints after `error: `.

import type {World} from '../world.js'
import {type ApiServerGates, Collector, type ValidateMode} from './collect.js'
import type {ParsedDoc} from './doc.js'
import {type JsonSource, parseJson} from './json.js'
import {expandPaths, type InputFile, readFile, readStdin} from './read.js'
import {bytesToText, checkBytes, checkText, fromUtf16, MAX_YAML_BYTES, startsLikeJson} from './text.js'
import {type TimelineAt, TimelineInputs} from './timeline.js'
import {loadExactReader, NeedsExactReader, parseYaml} from './yaml-fast.js'

export {SYNTHETIC_CREATION_TIMESTAMP, syntheticUid} from './defaults.js'
export {MAX_DEPTH} from './doc.js'
export {STDIN_NAME} from './read.js'
export {MAX_JSON_BYTES, MAX_YAML_BYTES} from './text.js'
export type {ValidateMode}

export interface LoadOptions {
  /** Descend into subdirectories of directory arguments (kubectl's -R). */
  recursive?: boolean
  /** strict (default): invalid objects are errors; warn: print them and go on; ignore: say nothing. */
  validate?: ValidateMode
  /** Reads standard input for `-`; injectable for tests. Default: process.stdin. */
  stdin?: () => Promise<string>
  /** Receives one line per note or warning; default: stderr. */
  warn?: (line: string) => void
  /** Told of each file before it is read, with its size when known (a progress line). */
  onFile?: (name: string, bytes: number | undefined) => void
  /** Keep each object as written, before defaulting, in World.raw. */
  keepRaw?: boolean
  /** A timeline input: the moment whose world is loaded (default: its end). */
  at?: TimelineAt
  /** The API server the objects are created on: its minor and gates (default: the newest's defaults). */
  apiServer?: ApiServerGates
  /**
   * The namespace of objects that name none (default: `default`); asked only when one does: -n,
   * else the kubeconfig context's, as kubectl get -f places them.
   */
  defaultNamespace?: () => string
}

const defaultWarn = (line: string): void => {
  process.stderr.write(`${line}\n`)
}

function collector(opts: LoadOptions): Collector {
  return new Collector(
    opts.validate ?? 'strict',
    opts.warn ?? defaultWarn,
    opts.keepRaw,
    opts.defaultNamespace,
    opts.apiServer,
  )
}

function hasExt(name: string, ...exts: string[]): boolean {
  const lower = name.toLowerCase()
  return exts.some((e) => lower.endsWith(e))
}

/** One input's content: its checked bytes, and its text, decoded once when a reader asks for it. */
class Input implements JsonSource {
  private decoded: string | undefined
  private encoded: Buffer | undefined

  private constructor(bytes: Buffer | undefined, text: string | undefined) {
    this.encoded = bytes
    this.decoded = text
  }

  static ofBytes(bytes: Buffer): Input {
    return new Input(bytes, undefined)
  }

  static ofText(text: string): Input {
    return new Input(undefined, text)
  }

  get bytes(): Buffer {
    this.encoded ??= Buffer.from(this.decoded ?? '')
    return this.encoded
  }

  text(): string {
    this.decoded ??= bytesToText(this.encoded ?? Buffer.alloc(0))
    return this.decoded
  }
}

/**
 * Parses one input. `.json` files are JSON. Anything else that starts like JSON is tried as JSON
 * first (JSON.parse is far faster than a YAML parser) and read as YAML when it is not JSON, YAML's
 * flow style being a superset; a `.yaml` file then reports YAML's error, other input JSON's.
 */
function parseInput(file: string, input: Input): {docs: ParsedDoc[]; fromYaml: boolean} {
  if (hasExt(file, '.json')) return {docs: parseJson(file, input), fromYaml: false}
  if (startsLikeJson(input.bytes)) {
    try {
      return {docs: parseJson(file, input), fromYaml: false}
    } catch (jsonErr) {
      if (input.bytes.length > MAX_YAML_BYTES) throw jsonErr
      try {
        return {docs: parseYaml(file, input.text()), fromYaml: true}
      } catch (yamlErr) {
        throw hasExt(file, '.yaml', '.yml') ? yamlErr : jsonErr
      }
    }
  }
  return {docs: parseYaml(file, input.text()), fromYaml: true}
}

function addInput(c: Collector, file: string, input: Input): void {
  const {docs, fromYaml} = parseInput(file, input)
  c.addDocs(file, docs, fromYaml)
}

/** Loads one text as if it were the file `fileName`. Needs the exact YAML reader loaded (./from-text.ts). */
export function loadWorldFromLoadedText(text: string, fileName: string, opts: LoadOptions = {}): World {
  const c = collector(opts)
  addInput(c, fileName, Input.ofText(checkText(fileName, text)))
  return c.finish()
}

/**
 * Loads the objects of every `-f` argument into one World. The exact YAML reader is loaded only
 * when a text needs it (./yaml-fast.ts): a parse that needs it is retried once it is loaded, and a
 * message that needs a field's line (rare: invalid input) starts the load over, with the warnings
 * of the first attempt dropped and stdin read only once.
 */
export async function loadWorld(paths: string[], opts: LoadOptions = {}): Promise<World> {
  const read = readEachOnce(opts)
  const warned: string[] = []
  const flush = () => {
    for (const line of warned) (opts.warn ?? defaultWarn)(line)
  }
  try {
    const world = await loadOnce(paths, opts, read, (line) => warned.push(line))
    flush()
    return world
  } catch (err) {
    if (!(err instanceof NeedsExactReader)) {
      // As without the buffer: the notes and warnings before an error, then the error.
      flush()
      throw err
    }
  }
  await loadExactReader()
  return loadOnce(paths, opts, read, opts.warn ?? defaultWarn)
}

function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined
  return () => {
    p ??= f()
    return p
  }
}

/** One input as read: the documents of a big JSON List read a piece at a time, or its content. */
type Read = {docs: ParsedDoc[]} | {input: Input}

/** Reads the i-th input of the expanded list (the same list on each attempt of a load). */
type Reader = (f: InputFile, i: number) => Promise<Read>

/**
 * Reads each input through one open, and keeps what cannot be read a second time for a load that
 * starts over: stdin, and a pipe or device (`-f <(kubectl get ...)`, a FIFO). Regular files are
 * read again rather than held.
 */
function readEachOnce(opts: LoadOptions): Reader {
  const stdin = once<string | Buffer>(opts.stdin ?? readStdin)
  const kept = new Map<number, Input>()
  return async (f, i) => {
    if (f.path === undefined) {
      opts.onFile?.(f.name, undefined)
      const content = await stdin()
      if (typeof content === 'string') return {input: Input.ofText(checkText(f.name, content))}
      const bytes = fromUtf16(f.name, content)
      checkBytes(f.name, bytes)
      return {input: Input.ofBytes(bytes)}
    }
    const again = kept.get(i)
    if (again) {
      opts.onFile?.(f.name, undefined)
      return {input: again}
    }
    const content = await readFile(f, (size) => opts.onFile?.(f.name, size))
    if ('docs' in content) return content
    const bytes = fromUtf16(f.name, content.bytes)
    checkBytes(f.name, bytes)
    const input = Input.ofBytes(bytes)
    if (!content.regular) kept.set(i, input)
    return {input}
  }
}

async function loadOnce(
  paths: string[],
  opts: LoadOptions,
  read: Reader,
  warn: (line: string) => void,
): Promise<World> {
  const files = expandPaths(paths, opts.recursive ?? false)
  const c = collector({...opts, warn})
  const timelines = new TimelineInputs(opts.at)
  for (const [i, f] of files.entries()) {
    const content = await read(f, i)
    if ('docs' in content) {
      c.addDocs(f.name, content.docs, false)
      continue
    }
    if (timelines.take(f.name, content.input)) continue
    const {docs, fromYaml} = await parseWithExactReader(f.name, content.input)
    c.addDocs(f.name, docs, fromYaml)
  }
  timelines.addTo(c)
  return c.finish()
}

/** parseInput, loading the exact YAML reader first when the text turns out to need it. */
async function parseWithExactReader(
  file: string,
  input: Input,
): Promise<{docs: ParsedDoc[]; fromYaml: boolean}> {
  try {
    return parseInput(file, input)
  } catch (err) {
    if (!(err instanceof NeedsExactReader)) throw err
  }
  await loadExactReader()
  return parseInput(file, input)
}
