// Stands in for `node:fs/promises` where @oclif/core imports it (scripts/bundle.mjs). oclif's
// promise-based reads run only in development mode (tsconfig, ts-path) or where it reads a file
// through them that the shipped CLI reads synchronously (util/fs.js is patched), yet loading
// fs/promises brings readline's internals and the fs watchers with it: ~11 of Node's modules,
// ~3-5 ms of every start here. Loaded on the first call.
'use strict'

module.exports = {
  access: (...args) => require('node:fs/promises').access(...args),
  readFile: (...args) => require('node:fs/promises').readFile(...args),
  readdir: (...args) => require('node:fs/promises').readdir(...args),
  stat: (...args) => require('node:fs/promises').stat(...args),
}
