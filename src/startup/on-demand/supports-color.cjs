// Stands in for `supports-color` where @oclif/core imports it (scripts/bundle.mjs). oclif reads
// `stdout` and `stderr` only when it colours help or an error, but loading the package loads tty
// and net (~6 ms) on every start. The real package is loaded on the first read.
'use strict'

let real
const load = () => {
  real ??= require('supports-color')
  return real
}

module.exports = {
  get stdout() {
    return load().stdout
  },
  get stderr() {
    return load().stderr
  },
}
