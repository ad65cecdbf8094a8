// Replaying a finished timeline as if it were happening: when to show each frame, and a frame
// source (the interface a live watch implements too) driven by timers.

import type {WatchFrame} from './frame.js'

/** Where frames come from: the view subscribes, and is told when there will be no more. */
export interface FrameSource {
  subscribe(onFrame: (frame: WatchFrame) => void, onEnd: () => void): () => void
}

/** At most 20 frames a second. */
export const MIN_FRAME_MS = 50
/** The automatic speed spreads the virtual time over about this long... */
export const AUTO_TIME_BUDGET_MS = 3000
/** ...plus at most about this long of per-frame pauses. */
export const AUTO_FRAME_BUDGET_MS = 3000

/**
 * The pause before each frame (the first is 0), in real ms. `speed` is virtual seconds per real
 * second; 'auto' is as fast as readable: frames 20-50ms apart plus the virtual time squeezed into
 * about 3s, so a replay takes a few seconds whatever it simulates.
 */
export function replayDelays(times: readonly number[], speed: number | 'auto'): number[] {
  if (times.length === 0) return []
  const span = (times.at(-1) ?? 0) - (times[0] ?? 0)
  let frameMs = MIN_FRAME_MS
  let scale: number
  if (speed === 'auto') {
    frameMs = Math.min(MIN_FRAME_MS, Math.max(20, AUTO_FRAME_BUDGET_MS / times.length))
    scale = span > 0 ? AUTO_TIME_BUDGET_MS / span : 0
  } else {
    scale = 1 / speed
  }
  return times.map((t, i) => (i === 0 ? 0 : Math.max(frameMs, Math.round((t - (times[i - 1] ?? t)) * scale))))
}

/**
 * The last frame of each virtual instant: what the automatic speed shows, so that the passes and
 * model steps of one instant (a few ms apart on a real cluster) do not each take a frame.
 */
export function lastPerInstant<T extends {time: number}>(frames: readonly T[]): T[] {
  return frames.filter((f, i) => i === frames.length - 1 || (frames[i + 1] as T).time !== f.time)
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
}

/** Plays `frames` with `delays` (see replayDelays), then ends after a short hold of the last frame. */
export function replaySource(
  frames: readonly WatchFrame[],
  delays: readonly number[],
  timers: Timers = realTimers,
  holdMs = 300,
): FrameSource {
  return {
    subscribe(onFrame, onEnd) {
      let handle: unknown
      let i = 0
      const tick = () => {
        onFrame(frames[i] as WatchFrame)
        i++
        handle =
          i < frames.length
            ? timers.setTimeout(tick, delays[i] ?? MIN_FRAME_MS)
            : timers.setTimeout(onEnd, holdMs)
      }
      if (frames.length === 0) {
        handle = timers.setTimeout(onEnd, 0)
        return () => timers.clearTimeout(handle)
      }
      tick()
      return () => timers.clearTimeout(handle)
    },
  }
}
