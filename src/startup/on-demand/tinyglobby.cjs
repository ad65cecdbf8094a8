// Stands in for `tinyglobby` where @oclif/core imports it (scripts/bundle.mjs). oclif globs for
// command files only when a plugin has no manifest, which the shipped CLI always has, yet loading
// tinyglobby (with fdir and picomatch) costs ~5 ms on every start. Loaded on the first call.
'use strict'

module.exports = {
  glob: (...args) => require('tinyglobby').glob(...args),
  globSync: (...args) => require('tinyglobby').globSync(...args),
}
