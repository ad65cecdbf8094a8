// V8's heap sized for a long-running controller (issue 30): the young generation held at 2 x 8 MB,
// and the old generation collected when it has grown by half over what the last full GC kept.
//
// The young generation: V8 doubles its semi-spaces whenever more bytes survived scavenges since the last doubling than
// they hold. A controller's cold lists are exactly that: every cached object survives, so the young
// generation grows from 2 x 1 MB to 2 x 32 MB while the caches fill (peak RSS 215-250 MB at 1,000
// Deployments), although after the lists almost nothing allocated there survives. Held at 2 x 8 MB
// the same cold sync peaks at 165-178 MB, for about the same CPU. `node --max-semi-space-size=8`
// would do it, but V8 reads that flag only when the heap is set up; `--semi-space-growth-factor` it
// reads at each growth, so growth is switched off once the young generation reached the size.
// (Go's runtime, which kube-controller-manager runs on, has no such generation to tune.)
//
// The old generation: after the cold lists the syncs' writes come back as watch events, and each
// replaces a cached object: the old ones are garbage in the old generation. V8 lets the old
// generation grow to up to 4x what the last full GC kept before the next one (its growing factor
// follows how fast its GC is), so at 1,000 Deployments it ran from 46 MB live to 111 MB before
// collecting (peak RSS 204-208 MB). Go's collector, at kube-controller-manager's default GOGC=100,
// collects at 2x; this sets 1.5x (`--heap-growing-percent`, read at each full GC): peak 157-161 MB
// for 3-8% more CPU, measured in turns on fresh servers.

import {getHeapSpaceStatistics, setFlagsFromString} from 'node:v8'

/** How much the old generation may grow over what the last full GC kept, in percent. */
export const OLD_GENERATION_GROWING_PERCENT = 50

/** Both settings, for the life of the process. */
export async function tuneHeapForController(): Promise<void> {
  setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWING_PERCENT}`)
  await capYoungGeneration()
}

/** The young generation's size (both semi-spaces) past which it stops growing. */
export const YOUNG_GENERATION_CAP_BYTES = 16 * 2 ** 20

/** Whether the young generation has reached the cap (growth is then switched off). */
export function youngGenerationCapped(capBytes = YOUNG_GENERATION_CAP_BYTES): boolean {
  const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')
  if (!young || young.space_size < capBytes) return false
  setFlagsFromString('--semi-space-growth-factor=1')
  return true
}

/**
 * Checks after each garbage collection until the young generation reaches the cap, then stops
 * its growth and stops checking. A process whose heap never gets there keeps V8's defaults.
 */
export async function capYoungGeneration(capBytes = YOUNG_GENERATION_CAP_BYTES): Promise<void> {
  if (youngGenerationCapped(capBytes)) return
  const {PerformanceObserver} = await import('node:perf_hooks')
  const observer = new PerformanceObserver(() => {
    if (youngGenerationCapped(capBytes)) observer.disconnect()
  })
  observer.observe({entryTypes: ['gc']})
}
