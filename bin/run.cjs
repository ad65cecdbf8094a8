#!/usr/bin/env node
// CommonJS on purpose: Node then never starts its ESM loader for a file-mode call (dist/ is
// CommonJS too, see scripts/bundle.mjs). The build's V8 code cache comes first, so that it serves
// every file of dist/ (src/startup/compile-cache.ts).
'use strict'

// The dependencies need Node 22.19 (package.json engines); older ones would fail with a stack
// trace from deep inside them.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(`error: kubectl-deployctl needs Node.js 22.19 or newer, this is ${process.version}\n`)
  process.exit(1)
}
const {join} = require('node:path')
require('../dist/startup/compile-cache.cjs').installCompileCache(join(__dirname, '..', 'dist'))
require('../dist/main.cjs')
  .execute({dir: __dirname})
  .then(() => {
    // Done: exit now. Left alone, Node first runs what V8 scheduled on the event loop, often a
    // young-generation GC (~10 ms here), though nothing waits for it. Only with all output
    // written: where pipes are asynchronous (macOS), exiting earlier would cut it short.
    if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit()
  })
