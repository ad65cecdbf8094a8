// Timers of any length. setTimeout holds at most 2^31-1 ms (about 24.8 days): a longer delay fires
// at once, with a TimeoutOverflowWarning. `rollout watch --timeout 600h` must really wait, so long
// delays are waited in chunks.

/** setTimeout's largest delay. */
export const MAX_TIMER_MS = 2 ** 31 - 1

export interface LongTimer {
  cancel(): void
  /** Lets the process exit while the timer is pending (as Timeout.unref). */
  unref(): LongTimer
}

/** Calls fn once, ms from now (negative: at once), however long ms is. */
export function setLongTimeout(fn: () => void, ms: number): LongTimer {
  const due = Date.now() + Math.max(0, ms)
  let handle: NodeJS.Timeout
  let unref = false
  const arm = () => {
    const left = due - Date.now()
    handle = left > MAX_TIMER_MS ? setTimeout(arm, MAX_TIMER_MS) : setTimeout(fn, Math.max(0, left))
    if (unref) handle.unref()
  }
  arm()
  const timer: LongTimer = {
    cancel: () => clearTimeout(handle),
    unref: () => {
      unref = true
      handle.unref()
      return timer
    },
  }
  return timer
}
