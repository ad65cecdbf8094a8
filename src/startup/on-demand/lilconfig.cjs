// Stands in for `lilconfig` where @oclif/core imports it (scripts/bundle.mjs): oclif searches for
// an oclif config file only when a plugin's package.json has none, which ours always has, yet
// loading lilconfig reads `fs.promises`, and with it Node loads fs/promises, the fs watchers and
// readline's internals (~11 of its modules) on every start. Loaded on the first call.
'use strict'

module.exports = {
  lilconfig: (...args) => require('lilconfig').lilconfig(...args),
}
