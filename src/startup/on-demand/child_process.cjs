// Stands in for `node:child_process` where @oclif/core imports it (scripts/bundle.mjs): oclif runs
// execSync only to name the shell on Windows, and loading child_process loads net (~5 ms).
'use strict'

module.exports = {
  execSync: (...args) => require('node:child_process').execSync(...args),
}
