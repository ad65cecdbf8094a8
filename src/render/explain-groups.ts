// explain's text report groups what repeats: identical blockers of many pods are one line that
// names one of them ("ImagePullBackOff 12 pods (web-abc-x and 11 more): ..."), and Warning events
// that say the same about many objects are one line with kubectl describe's interval
// (`4s (x36 over 4m)`). `-o json|yaml` keep every blocker and every event: this is presentation only.

import type {Blocker, EventRow} from '../status/types.js'
import {age, parseTime} from '../util/duration.js'

export interface Group<T> {
  /** The first member, the one the line names. */
  first: T
  members: T[]
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * A message with what differs from one object to the next taken out: the object's own name (and
 * the kubelet's `name_namespace(uid)` form of it), times and numbers (restart counts, ages), so
 * that "the same problem" on twelve pods reads as one.
 */
function sameness(message: string, name: string): string {
  let text = message
  if (name !== '')
    text = text.replace(new RegExp(`${escapeRegExp(name)}(_[^\\s(]*\\([0-9a-f-]+\\))?`, 'g'), '<name>')
  return text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z?/g, '<time>').replace(/\d+/g, '#')
}

/** Members grouped by `key`, the groups in the order of their first member. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Array<Group<T>> {
  const groups = new Map<string, Group<T>>()
  for (const item of items) {
    const k = key(item)
    const g = groups.get(k)
    if (g) g.members.push(item)
    else groups.set(k, {first: item, members: [item]})
  }
  return [...groups.values()]
}

/**
 * The kubelet flips a pod that cannot pull between ErrImagePull (a pull just failed, with the
 * registry's error) and ImagePullBackOff (waiting to retry): for one container and image they are one
 * problem.
 */
const FAMILY: Partial<Record<Blocker['code'], string>> = {ErrImagePull: 'pull', ImagePullBackOff: 'pull'}

/**
 * Blockers that say the same of several objects of one ReplicaSet: same code (or family), container,
 * image, exit code and message but for names, times and numbers. The first member is the one whose
 * message says most: of a pull family, an ErrImagePull (the registry's own error) when there is one.
 */
export function groupBlockers(blockers: readonly Blocker[]): Array<Group<Blocker>> {
  const groups = groupBy(blockers, (b) => {
    const family = FAMILY[b.code]
    return JSON.stringify([
      family ?? b.code,
      b.hard,
      b.object.kind,
      b.replicaSet,
      b.container,
      b.image,
      b.lastExitCode,
      family ? '' : sameness(b.message, b.object.name),
    ])
  })
  return groups.map((g) => ({
    first: g.members.find((b) => b.code === 'ErrImagePull') ?? g.first,
    members: g.members,
  }))
}

/** The codes of a group, in the order first seen: `ImagePullBackOff/ErrImagePull`. */
export function groupCodes(g: Group<Blocker>): string {
  return [...new Set(g.members.map((b) => b.code))].join('/')
}

export interface EventGroup {
  type: string
  reason: string
  /** The newest event's message (the others say the same of their own object). */
  message: string
  objects: Array<{kind: string; name: string}>
  /** How often it happened: the events' counts added up. */
  count: number
  firstSeen: string | null
  lastSeen: string | null
}

/** Events of the same type and reason that say the same of objects of one kind; newest first, as the rows. */
export function groupEvents(events: readonly EventRow[]): EventGroup[] {
  const groups = groupBy(events, (e) =>
    JSON.stringify([e.type, e.reason, e.object.kind, sameness(e.message, e.object.name)]),
  )
  return groups.map(({first, members}) => {
    const times = (pick: (e: EventRow) => string | null) =>
      members
        .map((e) => ({t: pick(e), ms: parseTime(pick(e))}))
        .filter((x): x is {t: string; ms: number} => x.t !== null && x.ms !== undefined)
        .sort((a, b) => a.ms - b.ms)
    const firsts = times((e) => e.firstSeen)
    const lasts = times((e) => e.lastSeen)
    const objects: EventGroup['objects'] = []
    const seen = new Set<string>()
    for (const e of members) {
      const k = `${e.object.kind}/${e.object.name}`
      if (seen.has(k)) continue
      seen.add(k)
      objects.push(e.object)
    }
    return {
      type: first.type,
      reason: first.reason,
      message: first.message,
      objects,
      count: members.reduce((n, e) => n + e.count, 0),
      firstSeen: firsts[0]?.t ?? null,
      lastSeen: lasts.at(-1)?.t ?? null,
    }
  })
}

/**
 * kubectl describe's Age column of an event: its last sighting's age, and with a count above one
 * `(xN over AGE-OF-FIRST)`. upstream: kubectl describe DescribeEvents with translateTimestampSince.
 */
export function eventInterval(
  g: Pick<EventGroup, 'count' | 'firstSeen' | 'lastSeen'>,
  nowMs: number,
): string {
  const first = age(g.firstSeen, nowMs)
  if (g.count > 1) return `${age(g.lastSeen, nowMs)} (x${g.count} over ${first})`
  return first
}
