#!/usr/bin/env node
// CommonJS on purpose: Node then never starts its ESM loader for a file-mode call (dist/ is
// CommonJS too, see scripts/bundle.mjs). The build's V8 code cache comes first, so that it serves
// every file of dist/ (src/startup/compile-cache.ts).
const {join} = require('node:path')
require('../dist/startup/compile-cache.cjs').installCompileCache(join(__dirname, '..', 'dist'))
require('../dist/main.cjs').execute({dir: __dirname})
