// Stands in for `wsl-utils` where @oclif/core imports it (scripts/bundle.mjs). oclif asks only
// whether it runs under WSL (is-wsl, which wsl-utils re-exports) on every start, and the PowerShell
// path on Windows; wsl-utils itself loads child_process and, with it, net (~5 ms).
'use strict'

module.exports = {
  get isWsl() {
    return require('is-wsl').default
  },
  // A chunk of its own: bundled with this file, its node:child_process import would load with it.
  powerShellPath: async () => (await import('wsl-utils')).powerShellPath(),
}
