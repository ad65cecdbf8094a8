// V8 code cache for the shipped bundle, made at build time. Every call otherwise parses and
// compiles the same ~1.4 MB of JavaScript (oclif, js-yaml, the loader, the controller) before it
// does anything; with the bytecode V8 serialized after a training run, a small-file dry-run starts
// ~20 ms sooner and --version ~13 ms (README, Benchmark).
//
// Node 22 has this built in (module.enableCompileCache); Node 20, which these machines run, has no
// such switch for CommonJS, so this hooks Module.prototype._compile for the files under dist/ only.
// `npm run build` runs representative commands with `write` (scripts/compile-cache.mjs), which
// leaves one `.bin` per file in dist/compile-cache/. A shipped call only reads them. V8 itself
// refuses a cache made by another V8 version or with other flags (the file is then compiled as
// usual); the build writes dist/ and its cache together, so they cannot drift apart unless someone
// edits dist/ by hand: NODE_DISABLE_COMPILE_CACHE=1 turns the cache off, as it does in Node 22.
// Files compiled here have no import(): Node 20 gives vm.Script one only behind an experimental
// flag, and loses it when the script comes from a cache. The build leaves none in dist/*.cjs.

import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {Module} from 'node:module'
import {dirname, join, relative, sep} from 'node:path'
import {Script} from 'node:vm'

export type CompileCacheMode = 'read' | 'write'

export interface CompileCacheStats {
  /** Files compiled with their cache accepted by V8. */
  hits: string[]
  /** Files compiled without a cache: none written yet, or V8 refused it. */
  misses: string[]
}

interface InternalModule {
  require(id: string): unknown
  exports: unknown
  filename: string
}

interface ModuleStatics {
  _resolveFilename(request: string, parent: unknown, isMain: boolean, options?: unknown): string
  _extensions: unknown
  _cache: unknown
  wrap(script: string): string
  prototype: {_compile(this: InternalModule, content: string, filename: string): unknown}
}

const CACHE_DIR = 'compile-cache'

/** The cache file of a bundle file: dist/chunks/x.cjs -> dist/compile-cache/chunks/x.cjs.bin. */
export function cacheFileOf(distDir: string, filename: string): string {
  return join(distDir, CACHE_DIR, `${relative(distDir, filename)}.bin`)
}

/** The `require` a module compiled here gets, as Node's own loader would give it. */
function requireFor(mod: InternalModule, statics: ModuleStatics): NodeJS.Require {
  const req = ((id: string) => mod.require(id)) as NodeJS.Require
  const resolve = ((request: string, options?: {paths?: string[]}) =>
    statics._resolveFilename(request, mod, false, options)) as NodeJS.RequireResolve
  req.resolve = resolve
  // The entry module (bin/run.cjs), which is what require.main is in every module.
  req.main = process.mainModule
  req.extensions = statics._extensions as NodeJS.Require['extensions']
  req.cache = statics._cache as NodeJS.Require['cache']
  return req
}

/**
 * Compiles the files under `distDir` with their build-time V8 cache. In `write` mode, also writes
 * every compiled file's cache when the process exits, including the functions the run compiled.
 */
export function installCompileCache(distDir: string, mode: CompileCacheMode = 'read'): CompileCacheStats {
  const stats: CompileCacheStats = {hits: [], misses: []}
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return stats
  const statics = Module as unknown as ModuleStatics
  const prefix = distDir.endsWith(sep) ? distDir : distDir + sep
  const startup = join(distDir, 'startup') + sep
  const compiled: Array<{script: Script; filename: string}> = []
  const compile = statics.prototype._compile
  statics.prototype._compile = function (this: InternalModule, content: string, filename: string) {
    // startup/ holds this file and import-esm.cjs, whose import() must stay Node's own.
    if (!filename.startsWith(prefix) || filename.startsWith(startup))
      return compile.call(this, content, filename)
    let cachedData: Buffer | undefined
    try {
      cachedData = readFileSync(cacheFileOf(distDir, filename))
    } catch {
      cachedData = undefined
    }
    const script = new Script(statics.wrap(content), {
      filename,
      cachedData,
    })
    if (cachedData !== undefined && !script.cachedDataRejected) stats.hits.push(filename)
    else stats.misses.push(filename)
    if (mode === 'write') compiled.push({script, filename})
    const wrapper = script.runInThisContext({displayErrors: true}) as (...args: unknown[]) => unknown
    return wrapper.call(
      this.exports,
      this.exports,
      requireFor(this, statics),
      this,
      filename,
      dirname(filename),
    )
  }
  if (mode === 'write') {
    process.once('exit', () => {
      for (const {script, filename} of compiled) {
        const file = cacheFileOf(distDir, filename)
        mkdirSync(dirname(file), {recursive: true})
        // Whole files only: a reader never sees a half-written cache.
        writeFileSync(`${file}.tmp`, script.createCachedData())
        renameSync(`${file}.tmp`, file)
      }
    })
  }
  return stats
}
