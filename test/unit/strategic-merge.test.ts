// Strategic merge patch (src/cluster/apply/strategic.ts) against apimachinery's own cases:
// re-created from pkg/util/strategicpatch/patch_test.go (TestStrategicMergePatch: its
// customStrategicMergePatchTestCaseData and strategicMergePatchRawTestCases, each named by its
// description), on the same MergeItem type, with lists compared as upstream compares them (merge
// lists sorted by key) unless the case is about order.

import {describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import {
  createThreeWayMergePatch,
  createTwoWayMergePatch,
  type Schema,
  strategicMergePatch,
} from '../../src/cluster/apply/strategic.js'

// upstream: the MergeItem and RetainKeysMergeItem test types and their tags.
const MERGE_ITEM: Schema = {fields: {}}
const RETAIN_KEYS_ITEM: Schema = {
  fields: {
    mergingIntList: {strategy: 'merge'},
    mergingList: {strategy: 'merge', mergeKey: 'name', schema: MERGE_ITEM},
  },
}
Object.assign(MERGE_ITEM.fields as object, {
  mergingList: {strategy: 'merge', mergeKey: 'name', schema: MERGE_ITEM},
  mergingIntList: {strategy: 'merge'},
  mergeItemPtr: {strategy: 'merge', mergeKey: 'name', schema: MERGE_ITEM},
  replacingItem: {strategy: 'replace'},
  retainKeysMap: {retainKeys: true, schema: RETAIN_KEYS_ITEM},
  retainKeysMergingList: {strategy: 'merge', mergeKey: 'name', retainKeys: true, schema: MERGE_ITEM},
})

type Obj = Record<string, unknown>
const y = (text: string): Obj => parse(text) ?? {}

const MERGE_LISTS = new Set(['mergingList', 'mergeItemPtr', 'retainKeysMergingList'])
const SCALAR_LISTS = new Set(['mergingIntList', '$retainKeys'])
/** upstream: sortMergeListsByName — merge lists sorted by key, so list order does not count. */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted)
  if (typeof v !== 'object' || v === null) return v
  const out: Obj = {}
  for (const [k, x] of Object.entries(v as Obj)) {
    let value = sorted(x)
    if (Array.isArray(value) && MERGE_LISTS.has(k)) {
      value = [...value].sort((a, b) => String((a as Obj).name).localeCompare(String((b as Obj).name)))
    } else if (Array.isArray(value) && (SCALAR_LISTS.has(k) || k.startsWith('$deleteFromPrimitiveList/'))) {
      value = [...value].sort((a, b) => String(a).localeCompare(String(b)))
    }
    out[k] = value
  }
  return out
}

interface Case {
  original: string
  modified: string
  current?: string
  twoWay: string
  threeWay?: string
  result?: string
  twoWayResult?: string
}

const RAW_CASES: Record<string, Case> = {
  'delete items in lists of scalars': {
    original: 'mergingIntList: [1, 2, 3]',
    twoWay: '{"$setElementOrder/mergingIntList": [1, 2], "$deleteFromPrimitiveList/mergingIntList": [3]}',
    modified: 'mergingIntList: [1, 2]',
    current: 'mergingIntList: [1, 2, 3, 4]',
    threeWay: '{"$setElementOrder/mergingIntList": [1, 2], "$deleteFromPrimitiveList/mergingIntList": [3]}',
    result: 'mergingIntList: [1, 2, 4]',
  },
  'add and delete items in lists of scalars': {
    original: 'mergingIntList: [1, 2, 3]',
    twoWay:
      '{"$setElementOrder/mergingIntList": [1, 2, 4], "$deleteFromPrimitiveList/mergingIntList": [3], "mergingIntList": [4]}',
    modified: 'mergingIntList: [1, 2, 4]',
    current: 'mergingIntList: [1, 2, 3, 4]',
    threeWay:
      '{"$setElementOrder/mergingIntList": [1, 2, 4], "$deleteFromPrimitiveList/mergingIntList": [3]}',
    result: 'mergingIntList: [1, 2, 4]',
  },
  'merge lists of maps': {
    original: 'mergingList: [{name: 1}, {name: 2, value: 2}]',
    twoWay:
      '{"$setElementOrder/mergingList": [{name: 4}, {name: 1}, {name: 2}, {name: 3}], mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]}',
    modified: 'mergingList: [{name: 4, value: 4}, {name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]',
    current: 'mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]',
    threeWay:
      '{"$setElementOrder/mergingList": [{name: 4}, {name: 1}, {name: 2}, {name: 3}], mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]}',
    result:
      'mergingList: [{name: 4, value: 4}, {name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]',
  },
  'merge lists of maps with conflict': {
    original: 'mergingList: [{name: 1}, {name: 2, value: 2}]',
    twoWay:
      '{"$setElementOrder/mergingList": [{name: 1}, {name: 2}, {name: 3}], mergingList: [{name: 3, value: 3}]}',
    modified: 'mergingList: [{name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]',
    current: 'mergingList: [{name: 1, other: a}, {name: 2, value: 3, other: b}]',
    threeWay:
      '{"$setElementOrder/mergingList": [{name: 1}, {name: 2}, {name: 3}], mergingList: [{name: 2, value: 2}, {name: 3, value: 3}]}',
    result: 'mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]',
  },
  'add field to map in merging list with conflict': {
    original: 'mergingList: [{name: 1}, {name: 2, value: 2}]',
    twoWay: '{"$setElementOrder/mergingList": [{name: 1}, {name: 2}], mergingList: [{name: 1, value: 1}]}',
    modified: 'mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]',
    current: 'mergingList: [{name: 1, other: a}, {name: 3, value: 2, other: b}]',
    threeWay:
      '{"$setElementOrder/mergingList": [{name: 1}, {name: 2}], mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}',
    result:
      'mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2}, {name: 3, value: 2, other: b}]',
  },
  'add duplicate field to map in merging list': {
    original: 'mergingList: [{name: 1}, {name: 2, value: 2}]',
    twoWay: '{"$setElementOrder/mergingList": [{name: 1}, {name: 2}], mergingList: [{name: 1, value: 1}]}',
    modified: 'mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]',
    current: 'mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]',
    threeWay: '{}',
    result: 'mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]',
  },
  'add an item that already exists in current object in merging list': {
    original: 'mergingList: [{name: 1, value: a}, {name: 2}]',
    twoWay: '{"$setElementOrder/mergingList": [{name: 1}, {name: 2}, {name: 3}], mergingList: [{name: 3}]}',
    modified: 'mergingList: [{name: 1, value: a}, {name: 2}, {name: 3}]',
    current: 'mergingList: [{name: 1, value: a, other: x}, {name: 2}, {name: 3}]',
    threeWay: '{}',
    result: 'mergingList: [{name: 1, value: a, other: x}, {name: 2}, {name: 3}]',
  },
  'delete map from merging list': {
    original: 'mergingList: [{name: 1}, {name: 2}]',
    twoWay: '{"$setElementOrder/mergingList": [{name: 2}], mergingList: [{name: 1, $patch: delete}]}',
    modified: 'mergingList: [{name: 2}]',
    current: 'mergingList: [{name: 1}, {name: 2, other: b}]',
    threeWay: '{"$setElementOrder/mergingList": [{name: 2}], mergingList: [{name: 1, $patch: delete}]}',
    result: 'mergingList: [{name: 2, other: b}]',
  },
  'delete missing map from merging list with conflict': {
    original: 'mergingList: [{name: 1}, {name: 2}]',
    twoWay: '{"$setElementOrder/mergingList": [{name: 2}], mergingList: [{name: 1, $patch: delete}]}',
    modified: 'mergingList: [{name: 2}]',
    current: 'mergingList: [{name: 3, other: a}]',
    threeWay:
      '{"$setElementOrder/mergingList": [{name: 2}], mergingList: [{name: 2}, {name: 1, $patch: delete}]}',
    result: 'mergingList: [{name: 2}, {name: 3, other: a}]',
  },
  'retainKeys map deletes nested merging list': {
    original: 'retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}]}',
    current: 'retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}]}',
    modified: 'retainKeysMap: {name: foo, value: bar}',
    twoWay: 'retainKeysMap: {$retainKeys: [name, value], value: bar, mergingList: null}',
    threeWay: 'retainKeysMap: {$retainKeys: [name, value], value: bar, mergingList: null}',
    result: 'retainKeysMap: {name: foo, value: bar}',
  },
  'retainKeys map nested merging list with no change': {
    original: 'retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}]}',
    current: 'retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: c}]}',
    modified: 'retainKeysMap: {name: foo, value: bar, mergingList: [{name: a}, {name: b}]}',
    twoWay: 'retainKeysMap: {$retainKeys: [mergingList, name, value], value: bar}',
    threeWay:
      'retainKeysMap: {$retainKeys: [mergingList, name, value], "$setElementOrder/mergingList": [{name: a}, {name: b}], value: bar}',
    result: 'retainKeysMap: {name: foo, value: bar, mergingList: [{name: a}, {name: b}, {name: c}]}',
  },
  'retainKeys list of maps clears a field': {
    original: 'retainKeysMergingList: [{name: bar}, {name: foo, value: a}]',
    current: 'retainKeysMergingList: [{name: bar}, {name: foo, value: a, other: x}]',
    modified: 'retainKeysMergingList: [{name: bar}, {name: foo, value: a}]',
    twoWay: '{}',
    threeWay:
      '{"$setElementOrder/retainKeysMergingList": [{name: bar}, {name: foo}], retainKeysMergingList: [{$retainKeys: [name, value], name: foo}]}',
    result: 'retainKeysMergingList: [{name: bar}, {name: foo, value: a}]',
  },
  'defined null values should propagate removing original fields': {
    original: '{name: original-name, value: original-value}',
    current: '{name: original-name, value: original-value, other: current-other}',
    modified: '{name: modified-name, value: null}',
    twoWay: '{name: modified-name, value: null}',
    twoWayResult: '{name: modified-name}',
    threeWay: '{name: modified-name, value: null}',
    result: '{name: modified-name, other: current-other}',
  },
  'delete and reorder in one list, reorder in another': {
    original:
      '{mergingList: [{name: a, value: a}, {name: b, value: b}], mergeItemPtr: [{name: c, value: c}, {name: d, value: d}]}',
    current:
      '{mergingList: [{name: a, value: a}, {name: b, value: b}], mergeItemPtr: [{name: c, value: c}, {name: d, value: d}]}',
    modified:
      '{mergingList: [{name: b, value: b}], mergeItemPtr: [{name: d, value: d}, {name: c, value: c}]}',
    twoWay:
      '{"$setElementOrder/mergingList": [{name: b}], "$setElementOrder/mergeItemPtr": [{name: d}, {name: c}], mergingList: [{$patch: delete, name: a}]}',
    threeWay:
      '{"$setElementOrder/mergingList": [{name: b}], "$setElementOrder/mergeItemPtr": [{name: d}, {name: c}], mergingList: [{$patch: delete, name: a}]}',
    result: '{mergingList: [{name: b, value: b}], mergeItemPtr: [{name: d, value: d}, {name: c, value: c}]}',
  },
}

describe('TestStrategicMergePatch (upstream strategicMergePatchRawTestCases)', () => {
  for (const [description, c] of Object.entries(RAW_CASES)) {
    it(description, () => {
      const original = y(c.original)
      const modified = y(c.modified)
      const twoWay = createTwoWayMergePatch(original, modified, MERGE_ITEM)
      expect(sorted(twoWay)).toEqual(sorted(y(c.twoWay)))
      expect(sorted(strategicMergePatch(original, twoWay, MERGE_ITEM))).toEqual(
        sorted(y(c.twoWayResult ?? c.modified)),
      )
      if (c.current !== undefined) {
        const current = y(c.current)
        const threeWay = createThreeWayMergePatch(original, modified, current, MERGE_ITEM)
        expect(sorted(threeWay)).toEqual(sorted(y(c.threeWay ?? '{}')))
        expect(sorted(strategicMergePatch(current, threeWay, MERGE_ITEM))).toEqual(
          sorted(y(c.result ?? '{}')),
        )
      }
    })
  }

  it('delete and reorder in one list, reorder in another: the result has the new order', () => {
    const c = RAW_CASES['delete and reorder in one list, reorder in another'] as Case
    const patch = createThreeWayMergePatch(y(c.original), y(c.modified), y(c.current as string), MERGE_ITEM)
    expect(strategicMergePatch(y(c.current as string), patch, MERGE_ITEM)).toEqual(y(c.result as string))
  })
})

/** upstream: customStrategicMergePatchTestCaseData — patches no diff produces, applied to original. */
const CUSTOM_CASES: Record<string, {original: string; twoWay: string; modified: string}> = {
  'unique scalars when merging lists': {
    original: 'mergingIntList: [1, 2]',
    twoWay: 'mergingIntList: [2, 3]',
    modified: 'mergingIntList: [1, 2, 3]',
  },
  'delete map from nested map': {
    original: 'simpleMap: {key1: 1, key2: 1}',
    twoWay: 'simpleMap: {$patch: delete}',
    modified: 'simpleMap: {}',
  },
  'delete all items from merging list': {
    original: 'mergingList: [{name: 1}, {name: 2}]',
    twoWay: 'mergingList: [{$patch: replace}]',
    modified: 'mergingList: []',
  },
  'delete all keys from map': {original: '{name: 1, value: 1}', twoWay: '{$patch: replace}', modified: '{}'},
  'add key and delete all keys from map': {
    original: '{name: 1, value: 1}',
    twoWay: '{other: a, $patch: replace}',
    modified: '{other: a}',
  },
  'delete all duplicate entries in a merging list': {
    original: 'mergingList: [{name: 1}, {name: 1}, {name: 2, value: a}, {name: 3}, {name: 3}]',
    twoWay:
      'mergingList: [{name: 1, $patch: delete}, {name: 1, $patch: delete}, {name: 3, $patch: delete}, {name: 3, $patch: delete}]',
    modified: 'mergingList: [{name: 2, value: a}]',
  },
  'retainKeys map can delete a field when no retainKeys directive present': {
    original: 'retainKeysMap: {name: foo, value: a}',
    twoWay: 'retainKeysMap: {value: null}',
    modified: 'retainKeysMap: {name: foo}',
  },
  'preserve the order from the patch in a merging list': {
    original: 'mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]',
    twoWay: 'mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, other: x}]',
    modified: 'mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, value: b, other: x}]',
  },
  'preserve the order from the patch in a merging list 2': {
    original: 'mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]',
    twoWay: 'mergingList: [{name: 3, value: c}, {name: 1, value: a}]',
    modified: 'mergingList: [{name: 2, value: b}, {name: 3, value: c}, {name: 1, value: a}]',
  },
  'preserve the order from the patch in a merging int list': {
    original: 'mergingIntList: [1, 2, 3]',
    twoWay: 'mergingIntList: [3, 1]',
    modified: 'mergingIntList: [2, 3, 1]',
  },
}

describe('TestCustomStrategicMergePatch (upstream customStrategicMergePatchTestCaseData)', () => {
  for (const [description, c] of Object.entries(CUSTOM_CASES)) {
    it(description, () => {
      // These cases are about what the patch does, order included where they say so.
      const got = strategicMergePatch(y(c.original), y(c.twoWay), MERGE_ITEM)
      if (description.startsWith('preserve the order')) expect(got).toEqual(y(c.modified))
      else expect(sorted(got)).toEqual(sorted(y(c.modified)))
    })
  }
})
