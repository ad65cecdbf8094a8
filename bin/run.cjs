#!/usr/bin/env node
// CommonJS on purpose: Node then never starts its ESM loader for a file-mode call (dist/ is
// CommonJS too, see scripts/bundle.mjs).
require('../dist/main.cjs').execute({dir: __dirname})
