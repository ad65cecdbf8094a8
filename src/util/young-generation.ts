// The young generation held at 2 x 8 MB (issue 30): a long-running controller's (`run`, with
// run/heap.ts), and at 2 x 4 MB that of a call that reads a big snapshot file
// (cluster/load/json-stream.ts asks at each megabyte it reads, as the event loop is blocked
// meanwhile and no gc observer would run).
//
// V8 doubles its semi-spaces whenever more bytes survived scavenges since the last doubling than
// they hold. A controller's cold lists are exactly that: every cached object survives, so the young
// generation grows from 2 x 1 MB to 2 x 32 MB while the caches fill (peak RSS 215-250 MB at 1,000
// Deployments), although after the lists almost nothing allocated there survives. Held at 2 x 8 MB
// the same cold sync peaks at 165-178 MB, for about the same CPU. A big snapshot file is the same:
// every object it holds survives, and reading one grew the young generation to 2 x 64 MB; held, the
// peak RSS of dry-run sync -A -o json went from 275-287 to 163-169 MB at 1,000 Deployments (48 MB of
// JSON) and from 569-636 to 404-412 MB at 5,000, for the same CPU time. `node
// --max-semi-space-size=8` would do it, but V8 reads that flag only when the heap is set up;
// `--semi-space-growth-factor` it reads at each growth, so growth is switched off once the young
// generation reached the size. (Go's runtime, which kube-controller-manager runs on, has no such
// generation to tune.)

import {getHeapSpaceStatistics, setFlagsFromString} from 'node:v8'

/** The young generation's size (both semi-spaces) past which it stops growing. */
export const YOUNG_GENERATION_CAP_BYTES = 16 * 2 ** 20

/**
 * The cap while a big snapshot file is read: 2 x 4 MB. Every object read survives, so a bigger
 * young generation only adds pages: at 5,000 Deployments the peak RSS went 336-343 -> 328-333 MB,
 * at 1,000 150-156 -> 143-148 MB, for the same CPU time within noise (7 and 5 runs in turns).
 */
export const FILE_YOUNG_GENERATION_CAP_BYTES = 8 * 2 ** 20

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
