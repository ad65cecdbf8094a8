// The file loader behind `-f`: reads manifests and snapshots (YAML or JSON, Lists included) into a
// World, defaulted and validated as the API server would have, or fails with one InputError line
// (`FILE:LINE[:COL]: ...`) that the command prints after `error: `.

import type {World} from '../world.js'
import {Collector, type ValidateMode} from './collect.js'
import type {ParsedDoc} from './doc.js'
import {looksLikeJson, parseJson} from './json.js'
import {expandPaths, readFileBytes, readStdin} from './read.js'
import {checkText, decodeText, MAX_YAML_BYTES} from './text.js'
import {parseYaml} from './yaml-fast.js'

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
}

const defaultWarn = (line: string): void => {
  process.stderr.write(`${line}\n`)
}

function collector(opts: LoadOptions): Collector {
  return new Collector(opts.validate ?? 'strict', opts.warn ?? defaultWarn)
}

function hasExt(name: string, ...exts: string[]): boolean {
  const lower = name.toLowerCase()
  return exts.some((e) => lower.endsWith(e))
}

/**
 * Parses one input's text. `.json` files are JSON. Anything else that starts like JSON is tried as
 * JSON first (JSON.parse is far faster than a YAML parser) and read as YAML when it is not JSON,
 * YAML's flow style being a superset; a `.yaml` file then reports YAML's error, other input JSON's.
 */
function parseText(file: string, text: string, bytes?: Buffer): {docs: ParsedDoc[]; fromYaml: boolean} {
  if (hasExt(file, '.json')) return {docs: parseJson(file, text, bytes), fromYaml: false}
  if (looksLikeJson(text)) {
    try {
      return {docs: parseJson(file, text, bytes), fromYaml: false}
    } catch (jsonErr) {
      if (text.length > MAX_YAML_BYTES) throw jsonErr
      try {
        return {docs: parseYaml(file, text), fromYaml: true}
      } catch (yamlErr) {
        throw hasExt(file, '.yaml', '.yml') ? yamlErr : jsonErr
      }
    }
  }
  return {docs: parseYaml(file, text), fromYaml: true}
}

function addText(c: Collector, file: string, text: string, bytes?: Buffer): void {
  const {docs, fromYaml} = parseText(file, text, bytes)
  c.addDocs(file, docs, fromYaml)
}

/** Loads one text as if it were the file `fileName` (tests, stdin). */
export function loadWorldFromText(text: string, fileName: string, opts: LoadOptions = {}): World {
  const c = collector(opts)
  addText(c, fileName, checkText(fileName, text))
  return c.finish()
}

/** Loads the objects of every `-f` argument into one World. */
export async function loadWorld(paths: string[], opts: LoadOptions = {}): Promise<World> {
  const files = await expandPaths(paths, opts.recursive ?? false)
  const c = collector(opts)
  for (const f of files) {
    if (f.path === undefined && opts.stdin) {
      const text = await opts.stdin()
      addText(c, f.name, checkText(f.name, text))
      continue
    }
    const bytes = f.path === undefined ? await readStdin() : await readFileBytes(f)
    addText(c, f.name, decodeText(f.name, bytes), bytes)
  }
  return c.finish()
}
