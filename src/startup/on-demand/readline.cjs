// Stands in for `node:readline` where @oclif/core imports it (scripts/bundle.mjs): oclif reads
// lines only for a flag whose value comes from stdin, and readline loads its interface and history
// modules on every start. Loaded on the first call.
'use strict'

module.exports = {
  createInterface: (...args) => require('node:readline').createInterface(...args),
}
