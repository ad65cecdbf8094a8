// The start of the single executable (Node's SEA), bundled with dist/ by scripts/package/sea-bundle.mjs.
// Node runs one CommonJS script from the executable and that script's require() knows only Node's
// own modules, so this file gives the bundle what bin/run.cjs gets from the file system:
// - oclif finds package.json and its manifest under a root that does not exist on disk (ROOT): the
//   package.json is passed to oclif as loadOptions.pjson, and the manifest read is answered from
//   the bundle (the one file read oclif does under ROOT);
// - oclif's require() of a command file under ROOT gets the bundled module;
// - the one ES module chunk (ink's, whose yoga-layout awaits at top level, so it cannot be part of
//   a CommonJS bundle) is written once to a private, content-addressed directory and import()ed;
//   its imports of shared CommonJS chunks go to small files there that hand back the bundle's own
//   modules, so that ink's part and the rest share one copy of each module.
// With a start-up snapshot (linux amd64, built on the machine that packages), the bundle's modules
// are evaluated and the common commands run once while the snapshot is made (warmUp), so that a
// call starts with oclif, the commands and their compiled code in the heap.
'use strict'

const fs = require('node:fs')
const path = require('node:path')
const v8 = require('node:v8')

const BRIDGE = Symbol.for('kubectl-deployctl.sea')

/** Where oclif believes the package is: next to the executable, under a name nothing uses. */
function virtualRoot() {
  return path.join(path.dirname(process.execPath), '.kubectl-deployctl.sea')
}

/**
 * @param {{
 *   pjson: object, manifest: object, version: string,
 *   main: () => {execute: Function}, complete: () => {main: Function},
 *   modules: Record<string, () => unknown>,
 *   esm: {hash: string, files: Record<string, string>},
 *   late?: Record<string, string>,
 *   warmUp?: string[][],
 * }} app
 */
exports.start = function start(app) {
  const state = {root: virtualRoot()}
  const modules = app.modules
  const lateModules = new Map()
  const manifestText = JSON.stringify(app.manifest)

  globalThis[BRIDGE] = {
    /** The bundle's require(): bundled files by their path under the root, else Node's modules. */
    require(id, builtin) {
      if (typeof id === 'string' && id.startsWith(state.root + path.sep)) {
        const key = path.relative(state.root, id).split(path.sep).join('/')
        const load = modules[key]
        if (load) return load()
        const err = new Error(`Cannot find module '${id}' in the executable`)
        err.code = 'MODULE_NOT_FOUND'
        throw err
      }
      return builtin(id)
    },
    /** A chunk for the ES module part, by file name (see esmBridge). */
    chunk(name) {
      const load = modules[`dist/chunks/${name}`]
      if (!load) throw new Error(`kubectl-deployctl: no bundled chunk ${name}`)
      return load()
    },
    importEsm: (name) => importEsm(app.esm, name),
    /** A chunk kept out of the bundle (live mode's client-node), compiled from its asset once. */
    late(name) {
      const loaded = lateModules.get(name)
      if (loaded) return loaded.exports
      const key = app.late?.[name]
      if (!key) throw new Error(`kubectl-deployctl: no late chunk ${name}`)
      const filename = path.join(state.root, 'dist', 'chunks', name)
      const compiled = compileLate(key, filename)
      const module = {exports: {}}
      lateModules.set(name, module)
      const bridge = globalThis[BRIDGE]
      const chunkRequire = (id) => (id.startsWith('./') ? bridge.chunk(id.slice(2)) : require(id))
      compiled.call(module.exports, module.exports, chunkRequire, module, filename, path.dirname(filename))
      return module.exports
    },
  }

  // oclif reads its manifest under the root: synchronously in the npm build (scripts/bundle.mjs
  // patches its util/fs.js), with fs/promises' readFile in oclif as published. Both are looked up
  // on the module at each call, so both are answered here; nothing else exists under the root.
  const underRoot = (file) => typeof file === 'string' && file.startsWith(state.root + path.sep)
  const virtualFile = (file) => {
    if (path.relative(state.root, file) === 'oclif.manifest.json') return manifestText
    throw Object.assign(new Error(`ENOENT: no such file or directory, open '${file}'`), {
      code: 'ENOENT',
      errno: -2,
      syscall: 'open',
      path: file,
    })
  }
  const readFileSync = fs.readFileSync
  fs.readFileSync = function seaReadFileSync(file, ...rest) {
    return underRoot(file) ? virtualFile(file) : readFileSync.call(this, file, ...rest)
  }
  const fsp = require('node:fs/promises')
  const readFile = fsp.readFile
  fsp.readFile = function seaReadFile(file, ...rest) {
    if (!underRoot(file)) return readFile.call(this, file, ...rest)
    try {
      return Promise.resolve(virtualFile(file))
    } catch (err) {
      return Promise.reject(err)
    }
  }

  const run = (args) => {
    const argv = args ?? process.argv.slice(2)
    // The executable starts with V8's tiering tuned for a short call (execArgv, see
    // scripts/package/index.mjs); the commands that keep running get V8's own back (Node 24's
    // defaults), as in bin/run.cjs.
    if (!args && (argv[0] === 'run' || argv[0] === 'rollout'))
      v8.setFlagsFromString('--sparkplug --invocation-count-for-maglev=400')
    if (argv[0] === '__complete' && app.complete)
      return app.complete().main(argv.slice(1), {manifest: app.manifest, topics: app.pjson.oclif?.topics})
    return app.main().execute({
      args: argv,
      loadOptions: {root: state.root, pjson: structuredClone(app.pjson), isRoot: true},
    })
  }
  const exit = () => {
    // As bin/run.cjs: exit once the output is written, without waiting for a scheduled GC.
    if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit()
  }

  if (v8.startupSnapshot?.isBuildingSnapshot()) {
    // Only what the warm-up loads goes into the snapshot: each module more makes every start
    // slower (~1.5 ms per MB of snapshot here), and live mode's client-node is the bulk of the
    // bundle. Those load at run time, as from the npm build.
    warmUp(app.warmUp ?? [], run)
    v8.startupSnapshot.setDeserializeMainFunction(() => {
      // The executable's own path decides the root: it is only known now.
      state.root = virtualRoot()
      run().then(exit)
    })
    return
  }
  Promise.resolve(run()).then(exit)
}

/**
 * Runs each command line once with its output dropped, so that its code is compiled in the snapshot.
 * process.stdout and process.stderr are stand-ins meanwhile: Node makes the real ones on first use
 * for what fd 1 and 2 are then, and one made here would be kept in the snapshot (a file stream where
 * the user has a terminal, and the ink view would never start).
 */
function warmUp(lines, run) {
  if (lines.length === 0) return
  const {Writable} = require('node:stream')
  // DEPLOYCTL_WARMUP_VERBOSE=1 (packaging) shows what the warm-up prints, to see why it failed.
  const verbose = Boolean(process.env.DEPLOYCTL_WARMUP_VERBOSE)
  const sink = (fd) =>
    Object.assign(
      new Writable({
        write(chunk, _enc, done) {
          if (verbose && fd === 2) require('node:fs').writeSync(2, chunk)
          done()
        },
      }),
      {fd, isTTY: false},
    )
  const saved = {
    stdout: Object.getOwnPropertyDescriptor(process, 'stdout'),
    stderr: Object.getOwnPropertyDescriptor(process, 'stderr'),
  }
  const fake = {stdout: sink(1), stderr: sink(2)}
  for (const k of ['stdout', 'stderr'])
    Object.defineProperty(process, k, {configurable: true, enumerable: true, get: () => fake[k]})
  const restore = () => {
    for (const k of ['stdout', 'stderr']) Object.defineProperty(process, k, saved[k])
  }
  let chain = Promise.resolve()
  // Every line must succeed: a failing one (an unknown command, a missing example) would leave
  // nothing useful compiled in the snapshot and pass unnoticed, since its output is dropped.
  for (const args of lines)
    chain = chain
      .then(() => run(args))
      .then(() => {
        if (process.exitCode) throw new Error(`\`${args.join(' ')}\` exited ${process.exitCode}`)
      })
  chain
    .then(() => {
      restore()
      // A warmed-up command may have set an exit code (--exit-code): the snapshot must not keep it.
      process.exitCode = undefined
    })
    .catch((err) => {
      restore()
      require('node:fs').writeSync(2, `warm-up failed: ${err?.stack ?? err}\n`)
      process.exit(1)
    })
}

/**
 * A late chunk's asset (one function expression, 2.7 MB for client-node) compiled through a V8 code
 * cache in the private cache directory, written when a call has run, so that it holds the functions
 * the call compiled: without one, every live call compiled the chunk's code again (~60 ms of a
 * live explain here). The cache is keyed by the asset's name (its text's hash), Node's version and
 * V8's flags (`run` and `rollout` run under V8's own tiering, the rest under a short call's); one
 * V8 rejects is written again, and one that cannot be written costs only time.
 */
function compileLate(key, filename) {
  const vm = require('node:vm')
  const source = require('node:sea').getAsset(key, 'utf8')
  let file
  let cachedData
  try {
    const tag = v8.cachedDataVersionTag().toString(16)
    file = path.join(privateCacheDir(), `${key.replace(/[\\/]/g, '~')}-${process.version}-${tag}.cache`)
    cachedData = fs.readFileSync(file)
  } catch {}
  const script = new vm.Script(source, {filename, cachedData})
  if (file && (cachedData === undefined || script.cachedDataRejected)) {
    process.once('exit', () => {
      const tmp = `${file}.${process.pid}`
      try {
        fs.writeFileSync(tmp, script.createCachedData(), {mode: 0o600})
        fs.renameSync(tmp, file)
      } catch {
        fs.rmSync(tmp, {force: true})
      }
    })
  }
  return script.runInThisContext()
}

/**
 * import() of one of the bundled ES module files, written on first use to
 * <cache>/kubectl-deployctl/esm-<hash>/: the directory is created in a private temporary directory
 * beside it and renamed into place, so a reader sees all of it or none of it, and two processes
 * racing to write it both end up with the same complete copy. The hash covers every file in it.
 */
async function importEsm(esm, name) {
  const sea = require('node:sea')
  const dir = esmDirectory(esm, sea)
  const {pathToFileURL} = require('node:url')
  // The bundle is compiled without a dynamic import() callback (snapshot and code cache both drop
  // it); a function compiled here with the default loader has one.
  const vm = require('node:vm')
  const load = vm.compileFunction('return import(url)', ['url'], {
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  })
  return load(pathToFileURL(path.join(dir, name)).href)
}

function esmDirectory(esm, sea) {
  const base = privateCacheDir()
  const final = path.join(base, `esm-${esm.hash}`)
  if (complete(final, esm)) return final
  const tmp = fs.mkdtempSync(path.join(base, '.tmp-'))
  try {
    for (const [file, key] of Object.entries(esm.files)) {
      fs.writeFileSync(path.join(tmp, file), Buffer.from(sea.getRawAsset(key)), {mode: 0o600})
    }
    fs.writeFileSync(path.join(tmp, '.complete'), esm.hash, {mode: 0o600})
    try {
      fs.renameSync(tmp, final)
    } catch (err) {
      // Another process put its copy in place first: the same bytes, so use it.
      if (!['EEXIST', 'ENOTEMPTY', 'EPERM'].includes(err.code) || !complete(final, esm)) throw err
    }
  } finally {
    fs.rmSync(tmp, {recursive: true, force: true})
  }
  if (!complete(final, esm)) throw new Error(`kubectl-deployctl: could not write ${final}`)
  return final
}

function complete(dir, esm) {
  try {
    return fs.readFileSync(path.join(dir, '.complete'), 'utf8') === esm.hash
  } catch {
    return false
  }
}

/**
 * A directory only this user can write: the user's cache directory, else one in the temporary
 * directory named after the user id. Refused when it is a symbolic link, someone else's, or open
 * to others, since code imported from it runs with this user's cluster credentials.
 */
function privateCacheDir() {
  const os = require('node:os')
  const env = process.env
  const home = os.homedir()
  const candidates = []
  if (process.platform === 'win32') {
    if (env.LOCALAPPDATA) candidates.push(path.join(env.LOCALAPPDATA, 'kubectl-deployctl'))
  } else {
    if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME))
      candidates.push(path.join(env.XDG_CACHE_HOME, 'kubectl-deployctl'))
    if (home) {
      const caches = process.platform === 'darwin' ? ['Library', 'Caches'] : ['.cache']
      candidates.push(path.join(home, ...caches, 'kubectl-deployctl'))
    }
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user'
  candidates.push(path.join(os.tmpdir(), `kubectl-deployctl-${uid}`))
  for (const dir of candidates) {
    try {
      fs.mkdirSync(dir, {recursive: true, mode: 0o700})
      if (isPrivate(dir)) return dir
    } catch {
      // not writable here: try the next place
    }
  }
  throw new Error(`kubectl-deployctl: no private directory to unpack into (tried ${candidates.join(', ')})`)
}

function isPrivate(dir) {
  const st = fs.lstatSync(dir)
  if (!st.isDirectory()) return false
  if (process.platform === 'win32') return true
  return st.uid === process.getuid() && (st.mode & 0o022) === 0
}
