// Stands in for `node:perf_hooks` where @oclif/core imports it (scripts/bundle.mjs): oclif marks
// and measures only when its performance tracing is on, and the module costs ~2 ms to load.
'use strict'

module.exports = {
  get performance() {
    return require('node:perf_hooks').performance
  },
  get PerformanceObserver() {
    return require('node:perf_hooks').PerformanceObserver
  },
}
