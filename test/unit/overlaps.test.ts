// Which Deployments of a namespace select each other's templates (explain's OverlappingSelector),
// found through an index of the template labels (issue 30 item 3): random namespaces of Deployments
// with overlapping, equal, set-based, empty and invalid selectors give exactly what testing every
// group's selector against every template gives, in the same order.

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import type {Deployment, LabelSelector} from '../../src/controller/api/types.js'
import {namespaceOverlaps} from '../../src/explain/overlaps.js'
import {selectorOf} from '../../src/status/replicasets.js'
import {deployment} from '../objects.js'

const LABELS = ['app=a', 'app=b', 'tier=web', 'tier=db', 'track=canary']
const labelSet = fc
  .subarray(LABELS)
  .map((pairs) => Object.fromEntries(pairs.map((p) => p.split('=') as [string, string])))

const selector: fc.Arbitrary<LabelSelector | undefined> = fc.oneof(
  {weight: 4, arbitrary: labelSet.map((matchLabels) => ({matchLabels}))},
  fc.constantFrom<LabelSelector | undefined>(
    {matchExpressions: [{key: 'app', operator: 'In', values: ['a']}]},
    {matchExpressions: [{key: 'app', operator: 'In', values: ['a', 'b']}]},
    {matchExpressions: [{key: 'tier', operator: 'Exists'}]},
    {matchLabels: {app: 'a'}, matchExpressions: [{key: 'track', operator: 'DoesNotExist'}]},
    {matchExpressions: [{key: 'app', operator: 'NotIn', values: ['b']}]},
    {matchExpressions: [{key: 'app', operator: 'Bogus' as 'In', values: ['a']}]},
    {},
    undefined,
  ),
)

const namespace = fc.array(fc.record({selector, labels: labelSet}), {maxLength: 12}).map((specs) =>
  specs.map((s, i) => {
    const d = deployment({name: `d${i}`})
    d.spec.selector = s.selector as LabelSelector
    d.spec.template.metadata = {labels: s.labels}
    return d
  }),
)

/** The walk the index replaces: every group's selector against every Deployment's template. */
function walk(all: Deployment[]) {
  const groups = new Map<string, Deployment[]>()
  for (const d of all) {
    const s = selectorOf(d)
    if (s === undefined || s.empty()) continue
    groups.set(s.toString(), [...(groups.get(s.toString()) ?? []), d])
  }
  const selects = new Map<string, Deployment[]>()
  const selectedBy = new Map<Deployment, string[]>(all.map((d) => [d, []]))
  for (const key of groups.keys()) {
    const s = selectorOf(groups.get(key)![0]!)!
    const matched = all.filter((d) => s.matches(d.spec.template.metadata?.labels))
    selects.set(key, matched)
    for (const d of matched) selectedBy.get(d)!.push(key)
  }
  return {groups, selects, selectedBy}
}

describe('namespaceOverlaps', () => {
  it("selects what a walk of every group's selector over every template selects, in order", () => {
    fc.assert(
      fc.property(namespace, (all) => {
        const got = namespaceOverlaps(all)
        const want = walk(all)
        for (const d of all) {
          const g = got.groupOf.get(d)
          const s = selectorOf(d)
          if (s === undefined || s.empty()) {
            expect(g).toBeUndefined()
            continue
          }
          const key = s.toString()
          expect(g?.members).toEqual(want.groups.get(key))
          expect(g?.selects).toEqual(want.selects.get(key))
          expect(got.selectedBy.get(d)?.map((x) => x.selector.toString())).toEqual(want.selectedBy.get(d))
        }
      }),
      {numRuns: 300},
    )
  })
})
