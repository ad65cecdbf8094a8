#!/usr/bin/env node
// CommonJS on purpose: Node loads dist/ (CommonJS too, see scripts/bundle.mjs) through its
// synchronous CommonJS loader, which a file-mode call finishes sooner than the ESM loader.
'use strict'

// The dependencies need Node 22.19 (package.json engines); older ones would fail with a stack
// trace from deep inside them.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(`error: kubectl deployctl needs Node.js 22.19 or newer, this is ${process.version}\n`)
  process.exit(1)
}
// V8's tiering, tuned for a short call as the executable is (scripts/package/index.mjs): no
// Sparkplug, whose batches of baseline code a small-file call compiled for the few milliseconds
// left before exit, and Maglev after 2,000 invocations rather than 400; a 1,000-Deployment file
// takes the same time (docs/benchmarks.md, session 37). Set before any of dist/ is compiled: V8's
// code caches are checked against its flags (each command has its own cache of the bundle). The
// commands that keep running (the controller, following or recording a rollout) keep V8's own
// tiering: their reaction to an event is what counts there, not their start.
if (process.argv[2] !== 'run' && process.argv[2] !== 'rollout')
  require('node:v8').setFlagsFromString('--no-sparkplug --invocation-count-for-maglev=2000')
// Node's compile cache: the V8 bytecode of dist/ kept between calls (in the OS temp directory,
// per Node version, or in NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off).
// dist/'s own CommonJS files go through a code cache made after a call has run, in the same
// directory (src/startup/code-cache.cjs: it also holds the functions a call compiles as it runs).
const compileCache = require('node:module').enableCompileCache()
if (compileCache.directory) {
  require('../dist/startup/code-cache.cjs').install(
    require('node:path').join(__dirname, '..', 'dist'),
    compileCache.directory,
  )
}
;(process.argv[2] === '__complete'
  ? complete(process.argv.slice(3))
  : require('../dist/main.cjs').execute({dir: __dirname})
).then(() => {
  // Done: exit now. Left alone, Node first runs what V8 scheduled on the event loop, often a
  // young-generation GC (~10 ms here), though nothing waits for it. Only with all output
  // written: where pipes are asynchronous (macOS), exiting earlier would cut it short.
  if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit()
})

/**
 * `__complete WORDS...` (kubectl_complete-deployctl, the completion scripts): answered before oclif
 * starts, from the oclif manifest and package.json's topics, since a shell waits for it.
 */
function complete(words) {
  const {readFileSync} = require('node:fs')
  const {join} = require('node:path')
  const read = (f) => JSON.parse(readFileSync(join(__dirname, '..', f), 'utf8'))
  return require('../dist/completion/main.cjs').main(words, {
    manifest: read('oclif.manifest.json'),
    topics: read('package.json').oclif?.topics,
  })
}
