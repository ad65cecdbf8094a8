// explain's Events about an object (issue 30 item 3): found by kind and name in an index rather than
// by a walk of every Event for each Deployment. Random lists of Events (core/v1 and events.k8s.io/v1,
// with and without namespaces, hostile kinds and names): the index answers what the walk answers, in
// the list's order, also when the same list is asked again or has grown since.

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {eventObject, eventsAbout} from '../../src/status/event-index.js'
import type {KubeEvent} from '../../src/status/types.js'

/** The walk the index replaces: every Event of the list, tested one by one. */
function walk(
  events: readonly KubeEvent[],
  namespace: string,
  kind: string,
  names: Set<string>,
): KubeEvent[] {
  return events.filter((e) => {
    const o = eventObject(e)
    const ns = o.namespace ?? e.metadata?.namespace
    return o.kind === kind && names.has(o.name ?? '') && (ns === undefined || ns === namespace)
  })
}

const KINDS = ['Deployment', 'ReplicaSet', 'Pod']
const NAMES = ['web', 'web-1', 'web-2', '', '5']
const NAMESPACES = ['a', 'b']

const object = fc.record(
  {
    kind: fc.oneof(fc.constantFrom(...KINDS), fc.constant(5 as unknown as string)),
    name: fc.oneof(
      fc.constantFrom(...NAMES),
      fc.constant(5 as unknown as string),
      fc.constant(null as unknown as string),
    ),
    namespace: fc.constantFrom(...NAMESPACES),
  },
  {requiredKeys: []},
)

const event: fc.Arbitrary<KubeEvent> = fc.record(
  {
    involvedObject: object,
    regarding: object,
    reason: fc.constantFrom('FailedCreate', 'Unhealthy'),
    metadata: fc.record({namespace: fc.constantFrom(...NAMESPACES)}, {requiredKeys: []}),
  },
  {requiredKeys: []},
)

const query = fc.record({
  namespace: fc.constantFrom(...NAMESPACES),
  kind: fc.constantFrom(...KINDS),
  names: fc.subarray(NAMES).map((n) => new Set(n)),
})

describe('eventsAbout', () => {
  it('answers what a walk of every Event answers, in order, for any list and query', () => {
    fc.assert(
      fc.property(
        fc.array(event, {maxLength: 40}),
        fc.array(query, {minLength: 1, maxLength: 5}),
        (events, qs) => {
          for (const q of qs) {
            const found = eventsAbout(events, q.namespace, q.kind, q.names)
            const walked = walk(events, q.namespace, q.kind, q.names)
            expect(found).toEqual(walked)
            // The same objects, not copies.
            for (const [i, e] of found.entries()) expect(e).toBe(walked[i])
          }
        },
      ),
      {numRuns: 300},
    )
  })

  it('answers for a list that grew since it was indexed', () => {
    fc.assert(
      fc.property(
        fc.array(event, {maxLength: 20}),
        fc.array(event, {minLength: 1, maxLength: 20}),
        query,
        (a, b, q) => {
          const events = [...a]
          eventsAbout(events, q.namespace, q.kind, q.names)
          events.push(...b)
          expect(eventsAbout(events, q.namespace, q.kind, q.names)).toEqual(
            walk(events, q.namespace, q.kind, q.names),
          )
        },
      ),
    )
  })

  it('keeps an Event listed twice twice, as the walk does', () => {
    const e: KubeEvent = {involvedObject: {kind: 'Pod', name: 'web-1', namespace: 'a'}}
    expect(eventsAbout([e, e], 'a', 'Pod', new Set(['web-1', 'web-2']))).toEqual([e, e])
  })
})
