// The timeline group of a command's options: --at completed, and a loaded timeline's moment applied
// to the rest (the clock, the namespace the recording was made in, what the timeline lacks).

import type {TimelineAt} from '../cluster/load/timeline.js'
import type {TimelineMoment} from '../cluster/world.js'
import {UsageError} from '../errors.js'
import type {Clock} from './pass-options.js'
import type {TimelineFlagValues} from './timeline-flags.js'

export class TimelineOptions {
  /** --at, parsed. */
  at: TimelineAt | undefined
  /** The moment the loaded timeline was read at (set by apply()). */
  moment: TimelineMoment | undefined

  async complete(flags: TimelineFlagValues): Promise<void> {
    if (flags.at === undefined) return
    const {parseAt} = await import('../cluster/load/timeline.js')
    this.at = parseAt(flags.at)
    if (this.at === undefined) {
      throw new UsageError(
        `invalid --at "${flags.at}": want an RFC 3339 time such as 2026-11-29T10:05:00Z, +D from the timeline's start (+5m) or -D from its end (-2m)`,
      )
    }
  }

  /**
   * After a load: the moment the input was read at (the input must have been a timeline when --at
   * was given). Returns the controller's clock: --now when it was absolute, else the moment itself
   * (moved by a relative --now).
   */
  apply(
    moment: TimelineMoment | undefined,
    clock: Clock | undefined,
    now: number,
    err: (line: string) => void,
  ): number {
    if (!moment) {
      if (this.at) {
        throw new UsageError(
          `--at ${this.at.text} reads a timeline, and the input is not one: give -f FILE recorded by rollout record (or kubectl get TYPE -w --output-watch-events -o json)`,
        )
      }
      return now
    }
    this.moment = moment
    const at = (ms: number) => new Date(ms).toISOString()
    if (this.at && this.at.kind !== 'time') {
      const {timeline} = moment
      const from =
        this.at.kind === 'fromStart'
          ? `after the timeline's start (${at(timeline.start)})`
          : `before its end (${at(timeline.end)})`
      err(`note: --at ${this.at.text} is ${at(moment.at)}, ${this.at.text.slice(1)} ${from}`)
    }
    for (const why of moment.incomplete) {
      err(
        `warning: ${moment.timeline.files.join(', ')}: the timeline is incomplete at ${at(moment.at)}: ${why}`,
      )
    }
    if (clock?.kind === 'absolute') return clock.ms
    return moment.at + (clock?.kind === 'relative' ? clock.offsetMs : 0)
  }

  /** The namespace the recording was made in, when it was one (the default for -n). */
  recordedNamespace(): string | undefined {
    return this.moment?.timeline.header?.selection.namespace ?? undefined
  }
}
