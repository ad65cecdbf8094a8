// The Events about an object, found by kind and name in an index built once per list of Events.
// explain reads, for every Deployment, the Events about it, its ReplicaSets and their pods; a walk
// of the whole list for each made `explain -A` cost Deployments x Events (2,000 Deployments and
// 28,000 Events of one snapshot: 24.5 s of CPU against 3.8 s without the Events). The answer is the
// walk's, in the list's order (test/unit/event-index.test.ts holds the two to each other).

import type {KubeEvent} from './types.js'

/** The object an Event is about: events.k8s.io/v1's `regarding`, core/v1's `involvedObject`. */
export function eventObject(e: KubeEvent) {
  return e.regarding ?? e.involvedObject ?? {}
}

interface EventIndex {
  /** The list's length when indexed: a list that grew or shrank since is indexed again. */
  length: number
  /** Positions in the list by kind and name of the object, ascending. */
  byObject: Map<string, number[]>
}

const indexes = new WeakMap<readonly KubeEvent[], EventIndex>()

const objectKey = (kind: string, name: string): string => `${kind}\u0000${name}`

function indexOf(events: readonly KubeEvent[]): EventIndex {
  const known = indexes.get(events)
  if (known && known.length === events.length) return known
  const index: EventIndex = {length: events.length, byObject: new Map()}
  for (const [i, e] of events.entries()) {
    const o = eventObject(e)
    // A kind or name that is not a string (hostile input) matches no object, as in the walk.
    const name = o.name ?? ''
    if (typeof o.kind !== 'string' || typeof name !== 'string') continue
    const key = objectKey(o.kind, name)
    const list = index.byObject.get(key)
    if (list) list.push(i)
    else index.byObject.set(key, [i])
  }
  indexes.set(events, index)
  return index
}

/**
 * The Events about objects of `kind` named in `names` in `namespace` (an Event that names no
 * namespace is taken to be about this one), in the list's order.
 */
export function eventsAbout(
  events: readonly KubeEvent[],
  namespace: string,
  kind: string,
  names: ReadonlySet<string>,
): KubeEvent[] {
  const index = indexOf(events)
  const positions: number[] = []
  for (const name of names) {
    const list = index.byObject.get(objectKey(kind, name))
    if (list) for (const i of list) positions.push(i)
  }
  if (names.size > 1) positions.sort((a, b) => a - b)
  const out: KubeEvent[] = []
  for (const i of positions) {
    const e = events[i]!
    const ns = eventObject(e).namespace ?? e.metadata?.namespace
    if (ns === undefined || ns === namespace) out.push(e)
  }
  return out
}
