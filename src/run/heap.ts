// V8's heap sized for a long-running controller (issue 30): the young generation held at 2 x 8 MB
// (util/young-generation.ts, which says why), and the old generation collected when it has grown by
// half over what the last full GC kept.
//
// The old generation: after the cold lists the syncs' writes come back as watch events, and each
// replaces a cached object: the old ones are garbage in the old generation. V8 lets the old
// generation grow to up to 4x what the last full GC kept before the next one (its growing factor
// follows how fast its GC is), so at 1,000 Deployments it ran from 46 MB live to 111 MB before
// collecting (peak RSS 204-208 MB). Go's collector, at kube-controller-manager's default GOGC=100,
// collects at 2x; this sets 1.5x (`--heap-growing-percent`, read at each full GC): peak 157-161 MB
// for 3-8% more CPU, measured in turns on fresh servers.

import {setFlagsFromString} from 'node:v8'
import {capYoungGeneration} from '../util/young-generation.js'

/** How much the old generation may grow over what the last full GC kept, in percent. */
export const OLD_GENERATION_GROWING_PERCENT = 50

/** Both settings, for the life of the process. */
export async function tuneHeapForController(): Promise<void> {
  setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWING_PERCENT}`)
  await capYoungGeneration()
}
