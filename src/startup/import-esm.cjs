// How the CommonJS bundle reaches its one ES module chunk (ink's, see scripts/bundle.mjs). The
// compile cache compiles dist/ through vm.Script, where import() works only behind an experimental
// hook that prints a warning; this file is compiled by Node as usual, so its import() is plain.
'use strict'

const {join} = require('node:path')
const {pathToFileURL} = require('node:url')

/** import() of `specifier` (relative, as esbuild wrote it) from the file in `dir`. */
exports.importFrom = (dir, specifier) => import(pathToFileURL(join(dir, specifier)).href)
