// A V8 code cache of dist/ made after a call has run, not before (bin/run.cjs installs it).
//
// Node's compile cache (module.enableCompileCache) serializes each file's code right after compiling
// it, when V8 has compiled only the file's top level: every function that a call then runs is parsed
// and compiled again on every call (~20 ms of CPU in a small-file dry-run, docs/benchmarks.md). This
// compiles dist/'s CommonJS files as Node does (the same wrapper and arguments) but keeps each script,
// and at exit writes V8's code cache of the scripts that had none, now holding the functions the
// call compiled. V8 checks a cache against its own version, flags and the source's length, and
// rejects the rest; the directory is per Node version, V8 flags and build (dist/startup/build-id, a hash of
// dist/ written by scripts/bundle.mjs), so that a rebuilt file of the same length never meets the
// cache of its old text. dist/bundle.cjs, which holds nearly all of dist/, has one cache per command
// (variantOf). Writes go to a temporary name first, then are renamed: concurrent calls never read
// half a file.
'use strict'

const Module = require('node:module')
const fs = require('node:fs')
const path = require('node:path')
const vm = require('node:vm')

/**
 * Compile `dist`'s .cjs files (below `dist`, except dist/startup) through the cache in `base` (Node's
 * compile cache directory). Returns false when there is no build id (a dist/ not built by
 * scripts/bundle.mjs).
 */
exports.install = (dist, base) => {
  let lines
  try {
    lines = fs
      .readFileSync(path.join(dist, 'startup', 'build-id'), 'utf8')
      .trim()
      .split('\n')
  } catch {
    return false
  }
  // V8's cache tag holds its version and the hash of its flags: a call made under other flags
  // (bin/run.cjs gives `run` and `rollout` V8's own tiering, the rest a short call's) has caches
  // of its own, or each call would reject, compile again and rewrite what the other kind wrote.
  const tag = require('node:v8').cachedDataVersionTag().toString(16)
  const dir = path.join(base, `kubectl-deployctl-${process.version}-${process.arch}-${tag}-${lines[0]}`)
  const bundle = path.join(dist, 'bundle.cjs')
  const variant = `~${variantOf(process.argv.slice(2), lines.slice(1))}`
  const prefix = dist + path.sep
  const skip = path.join(dist, 'startup') + path.sep
  const fresh = [] // [cache file, script] of the scripts compiled without a cache
  const compile = Module.prototype._compile
  Module.prototype._compile = function (content, filename, format) {
    if (!filename.startsWith(prefix) || filename.startsWith(skip) || !filename.endsWith('.cjs')) {
      return compile.call(this, content, filename, format)
    }
    // Not path.relative() or join(): they resolve against the working directory on every call.
    let file = `${dir}${path.sep}${filename.slice(prefix.length).replaceAll(path.sep, '~')}`
    if (filename === bundle) file += variant
    let cachedData
    try {
      cachedData = fs.readFileSync(file)
    } catch {}
    const script = new vm.Script(wrapped(content), {
      filename,
      cachedData,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    })
    if (cachedData === undefined || script.cachedDataRejected) fresh.push([file, script])
    const fn = script.runInThisContext({displayErrors: true})
    return fn.call(this.exports, this.exports, requireOf(this), this, filename, path.dirname(filename))
  }
  process.on('exit', () => {
    if (fresh.length === 0) return
    try {
      fs.mkdirSync(dir, {recursive: true})
      for (const [file, script] of fresh) {
        const tmp = `${file}.${process.pid}`
        fs.writeFileSync(tmp, script.createCachedData())
        fs.renameSync(tmp, file)
      }
    } catch {
      // A cache that cannot be written (read-only or full temp directory) is only slower.
    }
  })
  return true
}

/**
 * Which cache of the bundle a call uses: one per command (the longest run of leading words naming
 * one of `commands`, each a line of words), `root` for none (--version, an unknown word), with
 * `+help` for help, `complete` for shell completion. A call compiles and caches what it runs, and
 * V8 deserializes the whole cache at every start: one made by `dry-run sync` would cost `--version`
 * ~3 ms, one made by `--version` would leave `dry-run sync` to compile most of its code again.
 */
exports.variantOf = variantOf
function variantOf(argv, commands) {
  if (argv[0] === '__complete') return 'complete'
  const help = argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')
  const words = argv[0] === 'help' ? argv.slice(1) : argv
  let id = 'root'
  let length = 0
  for (const line of commands) {
    const command = line.split(' ')
    if (command.length > length && command.every((w, i) => words[i] === w)) {
      id = command.join('-')
      length = command.length
    }
  }
  return help ? `${id}+help` : id
}

/**
 * dist/bundle.cjs and client-node's chunk (the two large files, 2.1 and 2.7 MB) are written as
 * Node's module wrapper around their code, called at once (scripts/bundle.mjs): WRAPPED_HEAD, the
 * code, WRAPPED_TAIL. Compiled here, such a file is that function expression alone, a slice of its
 * text, which V8 reads in place; Module.wrap() joins the text to the wrapper, and V8 copies the
 * joined string into a new one before it compiles (~8 ms of a small-file call here, ~25 ms of a
 * live one). Through Node's own loader (no code cache) the file still runs as any module: it
 * calls itself.
 */
const WRAPPED_TAIL = '}).call(this, exports, require, module, __filename, __dirname)'
exports.WRAPPED_HEAD = '(function (exports, require, module, __filename, __dirname) {'
exports.WRAPPED_TAIL = WRAPPED_TAIL

exports.wrapped = wrapped
function wrapped(content) {
  if (content.startsWith(exports.WRAPPED_HEAD)) {
    const end = content.lastIndexOf(WRAPPED_TAIL)
    if (end > 0) return content.slice(0, end + 2)
  }
  return Module.wrap(content)
}

/** The `require` a CommonJS module gets (Node's makeRequireFunction, for what dist/ uses). */
function requireOf(mod) {
  const require = (id) => mod.require(id)
  require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options)
  require.resolve.paths = (request) => Module._resolveLookupPaths(request, mod)
  require.main = process.mainModule
  require.extensions = Module._extensions
  require.cache = Module._cache
  return require
}
