// Stands in for `debug` where @oclif/core imports it (scripts/bundle.mjs). oclif makes
// its loggers with debug(namespace), and loading debug loads tty, net and supports-color on every
// start (~9 ms) to print nothing unless DEBUG is set. The real package is loaded when it is set.
'use strict'

function silent() {}
silent.enabled = false
silent.extend = () => silent

module.exports = function debugOnDemand(namespace) {
  if (!process.env.DEBUG) return silent
  return require('debug')(namespace)
}
