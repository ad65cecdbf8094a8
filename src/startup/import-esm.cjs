// How the CommonJS bundle reaches its ES module chunks (ink's, see scripts/bundle.mjs). The
// build turns every import() in dist/ into require(), which cannot load a module that awaits at
// top level; this file is copied as it is, so its import() stays one. The chunks are named, not
// given as paths relative to the caller: the caller's code ends up in dist/bundle.cjs, away from the
// file esbuild first wrote it in.
'use strict'

const {join} = require('node:path')
const {pathToFileURL} = require('node:url')

/** import() of dist/chunks/`name`. */
exports.importChunk = (name) => import(pathToFileURL(join(__dirname, '..', 'chunks', name)).href)
