// Reading timelines: a recording of `rollout record` (a Timeline header, then one timed watch event a
// line), or what `kubectl get TYPE -w --output-watch-events -o json` prints (the same lines without
// `time`). kubectl watches one type per command ("you may only specify a single resource type"), so
// several such streams, one per kind, are merged into one timeline by their times.
//
// A kubectl stream carries no receive times: each change gets the newest timestamp its object
// carries (managedFields' times, conditions, container states, an Event's times), in whole seconds,
// never earlier than the line before it in the same stream. That costs precision: changes of one
// second across kinds are ordered by stream, not as they happened, and a change that carries no new
// timestamp shares the time of the change before it.

import {InputError} from '../../errors.js'
import {objectTimestamps} from '../world.js'
import {applyMergePatch} from './delta.js'
import {
  CHANGE_TYPES,
  type ChangeType,
  objectKeyOf,
  RECORDED_KINDS,
  REQUIRED_KINDS,
  type RecordedKind,
  TIMELINE_API_VERSION,
  TIMELINE_KIND,
  type TimelineHeader,
} from './format.js'

type Obj = Record<string, unknown>

export interface TimelineChange {
  /** Epoch ms: when it was received (a recording) or the object's newest timestamp (kubectl). */
  time: number
  type: ChangeType
  kind: RecordedKind
  /** `Kind/namespace/name`. */
  key: string
  object: Obj
  file: string
  line: number
}

/** Changes of `kind` between `from` and `to` were not seen (a watch that expired); `to` undefined: never listed again. */
export interface TimelineGap {
  kind: RecordedKind
  from: number
  to: number | undefined
  file: string
  line: number
}

export interface Timeline {
  files: string[]
  /** The recording's header; undefined for kubectl streams. */
  header: TimelineHeader | undefined
  /** Times were taken from the objects (kubectl streams): whole seconds, lower bounds. */
  timesFromObjects: boolean
  /** In the order they happened (a recording's line order; kubectl streams merged by time). */
  changes: TimelineChange[]
  gaps: TimelineGap[]
  /** When the timeline is complete from: every kind listed. */
  start: number
  /** Its last change. */
  end: number
  kinds: RecordedKind[]
  /** Why it does not hold the whole story (kinds missing, started mid-way); empty when it does. */
  incomplete: string[]
}

/** One input file as read, before the inputs are merged. */
export interface TimelineFile {
  file: string
  header: TimelineHeader | undefined
  timesFromObjects: boolean
  changes: TimelineChange[]
  gaps: TimelineGap[]
  /** kubectl: the end of the leading run of ADDED lines (its initial list). */
  listedUntil: number | undefined
  skipped: Map<string, number>
}

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The first line that is not blank, parsed; undefined when it is not a JSON object. */
function firstValue(text: string): Obj | undefined {
  let from = 0
  for (;;) {
    const nl = text.indexOf('\n', from)
    const line = (nl < 0 ? text.slice(from) : text.slice(from, nl)).trim()
    if (line !== '') {
      try {
        const v: unknown = JSON.parse(line)
        return isObject(v) ? v : undefined
      } catch {
        return undefined
      }
    }
    if (nl < 0) return undefined
    from = nl + 1
  }
}

/**
 * Whether a text is a timeline: its first line is a Timeline header, or a watch event (`type` and
 * `object`, as kubectl -w --output-watch-events prints it). Reads only the first line.
 */
export function looksLikeTimeline(head: string): boolean {
  const v = firstValue(head)
  if (!v) return false
  if (v.kind === TIMELINE_KIND && typeof v.apiVersion === 'string' && v.apiVersion.startsWith('deployctl.'))
    return true
  return typeof v.type === 'string' && isObject(v.object) && v.apiVersion === undefined
}

const KIND_BY_NAME = new Map<string, RecordedKind>(RECORDED_KINDS.map((k) => [k, k]))

function fail(file: string, line: number, msg: string): never {
  throw new InputError(`${file}:${line}: ${msg}`)
}

function timeOf(file: string, line: number, v: unknown, field: string): number {
  if (typeof v !== 'string') fail(file, line, `${field}: Required value: an RFC 3339 time`)
  const ms = Date.parse(v)
  if (!/^\d{4}-\d{2}-\d{2}T/.test(v) || !Number.isFinite(ms))
    fail(file, line, `${field}: Invalid value: ${JSON.stringify(v)}: expected an RFC 3339 time`)
  return ms
}

function checkHeader(file: string, v: Obj): TimelineHeader {
  if (v.apiVersion !== TIMELINE_API_VERSION) {
    fail(
      file,
      1,
      `Timeline: apiVersion ${JSON.stringify(v.apiVersion)} is not supported: ${TIMELINE_API_VERSION} is expected`,
    )
  }
  timeOf(file, 1, v.start, 'Timeline: start')
  if (!isObject(v.selection)) fail(file, 1, 'Timeline: selection: Required value')
  if (!Array.isArray(v.kinds) || v.kinds.some((k) => !KIND_BY_NAME.has(String(k))))
    fail(file, 1, `Timeline: kinds: Invalid value: expected a list of ${RECORDED_KINDS.join(', ')}`)
  return v as unknown as TimelineHeader
}

/** The newest timestamp an object carries, managedFields' included (kubectl prints them). */
export function objectTime(o: Obj): number | undefined {
  let newest: number | undefined
  const see = (t: number) => {
    if (newest === undefined || t > newest) newest = t
  }
  objectTimestamps(o, see)
  const managed = isObject(o.metadata) ? o.metadata.managedFields : undefined
  if (Array.isArray(managed)) {
    for (const m of managed) {
      const t = isObject(m) && typeof m.time === 'string' ? Date.parse(m.time) : Number.NaN
      if (Number.isFinite(t)) see(t)
    }
  }
  const hpa = isObject(o.status) ? o.status.lastScaleTime : undefined
  if (typeof hpa === 'string' && Number.isFinite(Date.parse(hpa))) see(Date.parse(hpa))
  return newest
}

/** Parses one timeline input; throws InputError naming the file, line and field. */
export function parseTimelineFile(file: string, text: string): TimelineFile {
  const out: TimelineFile = {
    file,
    header: undefined,
    timesFromObjects: false,
    changes: [],
    gaps: [],
    listedUntil: undefined,
    skipped: new Map(),
  }
  let lineNo = 0
  let first = true
  let previous: number | undefined
  let initialList = true
  let streamKind: RecordedKind | undefined
  /** The latest version of each object by uid: what a delta line (./delta.ts) patches. */
  const lastByUid = new Map<string, Obj>()
  const fromDelta = (v: Obj): Obj => {
    if (!out.header) fail(file, lineNo, 'patch: a delta line is only read in a recording of rollout record')
    if (typeof v.uid !== 'string' || v.uid === '')
      fail(file, lineNo, 'uid: Required value: the uid of the object the patch applies to')
    if (!isObject(v.patch))
      fail(file, lineNo, 'patch: Invalid value: expected a JSON merge patch (an object)')
    const base = lastByUid.get(v.uid)
    if (!base) fail(file, lineNo, `uid: no earlier line of object ${v.uid} for the patch to apply to`)
    if (v.kind !== undefined && v.kind !== base.kind)
      fail(
        file,
        lineNo,
        `kind: Invalid value: ${JSON.stringify(v.kind)}: object ${v.uid} is a ${String(base.kind)}`,
      )
    return applyMergePatch(base, v.patch) as Obj
  }
  let from = 0
  while (from <= text.length) {
    const nl = text.indexOf('\n', from)
    const raw = nl < 0 ? text.slice(from) : text.slice(from, nl)
    from = nl < 0 ? text.length + 1 : nl + 1
    lineNo++
    const trimmed = raw.trim()
    if (trimmed === '') continue
    let v: unknown
    try {
      v = JSON.parse(trimmed)
    } catch (err) {
      fail(file, lineNo, `invalid JSON: ${err instanceof Error ? err.message : String(err)}`)
    }
    if (!isObject(v)) fail(file, lineNo, 'expected a JSON object (one watch event a line)')
    if (first) {
      first = false
      if (v.kind === TIMELINE_KIND && v.type === undefined) {
        out.header = checkHeader(file, v)
        continue
      }
      out.timesFromObjects = v.time === undefined
    }
    const type = v.type
    if (type === 'RELIST') {
      const kind = KIND_BY_NAME.get(String(v.kind))
      if (!kind)
        fail(file, lineNo, `kind: Invalid value: ${JSON.stringify(v.kind)}: expected a recorded kind`)
      const to = timeOf(file, lineNo, v.time, 'time')
      out.gaps.push({kind, from: timeOf(file, lineNo, v.since, 'since'), to, file, line: lineNo})
      continue
    }
    if (type === 'BOOKMARK') continue
    if (type === 'ERROR') {
      // A kubectl stream ends on a watch error (410 Gone, a dropped connection): nothing after it.
      const at = previous ?? 0
      if (streamKind) out.gaps.push({kind: streamKind, from: at, to: undefined, file, line: lineNo})
      continue
    }
    if (typeof type !== 'string' || !CHANGE_TYPES.includes(type)) {
      fail(
        file,
        lineNo,
        `type: Invalid value: ${JSON.stringify(type)}: expected ADDED, MODIFIED or DELETED (or a Timeline header on the first line)`,
      )
    }
    const object = v.object === undefined && v.patch !== undefined ? fromDelta(v) : v.object
    if (!isObject(object)) fail(file, lineNo, 'object: Required value: the object the event is about')
    const uid = isObject(object.metadata) ? object.metadata.uid : undefined
    if (typeof uid === 'string' && uid !== '') {
      if (type === 'DELETED') lastByUid.delete(uid)
      else lastByUid.set(uid, object)
    }
    const kindName = object.kind
    if (typeof kindName !== 'string' || kindName === '') fail(file, lineNo, 'object.kind: Required value')
    const meta = object.metadata
    if (!isObject(meta) || typeof meta.name !== 'string' || meta.name === '')
      fail(file, lineNo, `${kindName}: object.metadata.name: Required value`)
    const kind = KIND_BY_NAME.get(kindName)
    if (!kind) {
      out.skipped.set(kindName, (out.skipped.get(kindName) ?? 0) + 1)
      continue
    }
    if (meta.namespace === undefined || meta.namespace === '') meta.namespace = 'default'
    let time: number
    if (out.timesFromObjects) {
      if (v.time !== undefined)
        fail(file, lineNo, 'time: a line with a time in a stream whose first line has none')
      time = Math.max(objectTime(object) ?? previous ?? 0, previous ?? 0)
      if (initialList && type === 'ADDED') out.listedUntil = time
      else initialList = false
    } else {
      time = timeOf(file, lineNo, v.time, 'time')
    }
    previous = time
    streamKind ??= kind
    out.changes.push({
      time,
      type: type as ChangeType,
      kind,
      key: objectKeyOf(kind, object),
      object,
      file,
      line: lineNo,
    })
  }
  return out
}

/** Merges the inputs (a recording, or one kubectl stream per kind) into one timeline. */
export function mergeTimelines(files: TimelineFile[]): Timeline {
  const recordings = files.filter((f) => f.header !== undefined)
  if (recordings.length > 1) {
    throw new InputError(
      `${recordings[1]?.file}: a second recording (after ${recordings[0]?.file}): give one recording at a time`,
    )
  }
  if (recordings.length === 1 && files.length > 1) {
    const other = files.find((f) => f.header === undefined)
    throw new InputError(
      `${other?.file}: a kubectl watch stream cannot be merged into the recording ${recordings[0]?.file}`,
    )
  }
  const header = recordings[0]?.header
  // Each input is in order already; a stable sort by time merges them (ties: input order).
  const changes = files.length === 1 ? (files[0]?.changes ?? []) : mergeByTime(files.map((f) => f.changes))
  const gaps = files.flatMap((f) => f.gaps)
  const kinds = header ? [...header.kinds] : RECORDED_KINDS.filter((k) => changes.some((c) => c.kind === k))
  const first = changes[0]?.time
  const start = header
    ? Date.parse(header.start)
    : Math.max(...files.map((f) => f.listedUntil ?? f.changes[0]?.time ?? 0), first ?? 0)
  const end = Math.max(changes.at(-1)?.time ?? start, start)
  const incomplete: string[] = []
  const missing = REQUIRED_KINDS.filter((k) => !kinds.includes(k))
  if (missing.length > 0) {
    incomplete.push(
      header
        ? `it holds no ${missing.join(', ')}: the recorder could not list ${missing.length === 1 ? 'it' : 'them'}`
        : `it holds no ${missing.join(', ')}: add ${missing.map((k) => `kubectl get ${k.toLowerCase()}s -w --output-watch-events -o json`).join(', ')}`,
    )
  }
  const seen = new Set<string>()
  for (const c of changes) {
    if (!seen.has(c.key) && c.type !== 'ADDED') {
      incomplete.push(
        `it starts mid-way: the first change of ${c.kind} ${c.key.slice(c.kind.length + 1)} (${c.file}:${c.line}) is ${c.type}, not the ADDED of a full list`,
      )
      break
    }
    seen.add(c.key)
  }
  return {
    files: files.map((f) => f.file),
    header,
    timesFromObjects: header === undefined && files.some((f) => f.timesFromObjects),
    changes,
    gaps,
    start,
    end,
    kinds,
    incomplete,
  }
}

function mergeByTime(lists: TimelineChange[][]): TimelineChange[] {
  const all = lists.flatMap((list, input) => list.map((c, i) => ({c, input, i})))
  all.sort((a, b) => a.c.time - b.c.time || a.input - b.input || a.i - b.i)
  return all.map((x) => x.c)
}

/** The gaps that cover `t`: a watch was down then, so the world at `t` may lack changes. */
export function gapsAt(timeline: Timeline, t: number): TimelineGap[] {
  return timeline.gaps.filter((g) => g.from < t && (g.to === undefined || t < g.to))
}
