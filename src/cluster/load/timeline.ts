// A timeline as `-f` input: the loader hands each input that looks like one (a Timeline header, or
// kubectl's watch events, on its first line) to this module, which merges them, picks the world at
// `--at` and gives its objects to the collector like any file's, so they are defaulted and checked
// the same way. What was picked (the moment, the span, what the timeline lacks) rides on the World.

import {InputError} from '../../errors.js'
import {parseDuration, parseRFC3339} from '../../util/duration.js'
import {nanoTime} from '../timeline/format.js'
import {
  gapsAt,
  looksLikeTimeline,
  mergeTimelines,
  parseTimelineFile,
  type Timeline,
  type TimelineFile,
} from '../timeline/read.js'
import {TimelineState} from '../timeline/state.js'
import type {TimelineMoment} from '../world.js'
import type {Collector} from './collect.js'
import type {ParsedDoc} from './doc.js'

/** --at as written: an RFC 3339 time, `+D` from the timeline's start or `-D` from its end. */
export type TimelineAt =
  | {kind: 'time'; ms: number; text: string}
  | {kind: 'fromStart' | 'fromEnd'; ms: number; text: string}

/** Parses --at; undefined when it is neither form. */
export function parseAt(text: string): TimelineAt | undefined {
  const t = text.trim()
  const m = /^([+-])(.+)$/.exec(t)
  if (m) {
    const ms = parseDuration(m[2] ?? '')
    if (ms === undefined) return undefined
    return {kind: m[1] === '+' ? 'fromStart' : 'fromEnd', ms, text: t}
  }
  const ms = parseRFC3339(t)
  return ms === undefined ? undefined : {kind: 'time', ms, text: t}
}

/** The inputs of one load that are timelines. */
export class TimelineInputs {
  private readonly files: TimelineFile[] = []

  constructor(private readonly at: TimelineAt | undefined) {}

  /** Keeps the input when it is a timeline (true); leaves it to the other readers otherwise. */
  take(file: string, input: {bytes: Buffer; text(): string}): boolean {
    // The first line decides; a snapshot's first line is never a watch event.
    const head = input.bytes.subarray(0, Math.min(input.bytes.length, 64 * 1024)).toString('utf8')
    if (!looksLikeTimeline(head)) return false
    this.files.push(parseTimelineFile(file, input.text()))
    return true
  }

  /** Adds the world at --at (default: the end) to the collector; false when no input was a timeline. */
  addTo(c: Collector): boolean {
    if (this.files.length === 0) return false
    const timeline = mergeTimelines(this.files)
    const at = resolveAt(timeline, this.at)
    const state = new TimelineState(timeline)
    state.advanceTo(at)
    const byFile = new Map<string, ParsedDoc[]>()
    for (const change of state.changes()) {
      const value = structuredClone(change.object)
      const meta = value.metadata as Record<string, unknown> | undefined
      // kubectl prints managedFields; the informers (and so the recordings) drop them.
      if (meta) delete meta.managedFields
      let docs = byFile.get(change.file)
      if (!docs) byFile.set(change.file, (docs = []))
      docs.push({value, line: change.line, index: docs.length})
    }
    for (const [file, docs] of byFile) c.addDocs(file, docs, false)
    for (const f of this.files) {
      for (const [kind, n] of f.skipped) c.skip(kind, n)
    }
    c.world.timeline = momentOf(timeline, at, this.at)
    return true
  }
}

/** The instant --at names, checked against the timeline's span. */
function resolveAt(timeline: Timeline, at: TimelineAt | undefined): number {
  const file = timeline.files.join(', ')
  if (timeline.changes.length === 0) throw new InputError(`${file}: the timeline holds no change`)
  if (at === undefined) return timeline.end
  const t =
    at.kind === 'time' ? at.ms : at.kind === 'fromStart' ? timeline.start + at.ms : timeline.end - at.ms
  const first = timeline.changes[0]?.time ?? timeline.start
  const span = `it runs from ${nanoTime(Math.min(first, timeline.start))} to ${nanoTime(timeline.end)}`
  if (t < first)
    throw new InputError(`--at ${at.text} (${nanoTime(t)}) is before the timeline ${file} begins: ${span}`)
  if (t > timeline.end)
    throw new InputError(`--at ${at.text} (${nanoTime(t)}) is after the timeline ${file} ends: ${span}`)
  return t
}

function momentOf(timeline: Timeline, at: number, given: TimelineAt | undefined): TimelineMoment {
  const incomplete = [...timeline.incomplete]
  if (at < timeline.start) {
    incomplete.push(`${nanoTime(at)} is before every kind was listed (${nanoTime(timeline.start)})`)
  }
  for (const g of gapsAt(timeline, at)) {
    incomplete.push(
      g.to === undefined
        ? `the watch of ${g.kind}s ended at ${nanoTime(g.from)} (${g.file}:${g.line}) and did not list them again: later ${g.kind} changes are missing`
        : `the watch of ${g.kind}s expired at ${nanoTime(g.from)} and listed them again at ${nanoTime(g.to)} (${g.file}:${g.line}): ${g.kind} changes in between are missing`,
    )
  }
  return {timeline, at, ...(given ? {atText: given.text} : {}), incomplete}
}
