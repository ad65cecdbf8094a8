// Stands in for src/startup/import-esm.cjs in the single executable (scripts/package/sea-bundle.mjs):
// the ES module chunks are not beside the bundle there, so they are asked for by file name from
// the executable's runtime (sea/runtime.cjs), which writes them out once and imports them.
'use strict'

exports.importChunk = (name) => globalThis[Symbol.for('kubectl-deployctl.sea')].importEsm(name)
