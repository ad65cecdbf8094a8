// How the CommonJS bundle reaches its one ES module chunk (ink's, see scripts/bundle.mjs). The
// build turns every import() in dist/ into require(), which cannot load a module that awaits at
// top level; this file is copied as it is, so its import() stays one.
'use strict'

const {join} = require('node:path')
const {pathToFileURL} = require('node:url')

/** import() of `specifier` (relative, as esbuild wrote it) from the file in `dir`. */
exports.importFrom = (dir, specifier) => import(pathToFileURL(join(dir, specifier)).href)
