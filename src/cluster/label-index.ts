// Objects indexed by their label pairs, so that finding what a selector matches costs what the
// rarest of its required pairs holds, not what the namespace holds. Upstream's listers walk the
// namespace for every Deployment (one sync at a time, that is cheap); a pass over thousands of
// Deployments in one namespace, or a cold `run`, pays that walk once per Deployment: quadratic.
//
// The index answers with candidates, a superset of the matches in input order: callers still apply
// the selector, so the result is the walk's result by construction (test/unit/label-index.test.ts
// holds whole passes to it).

import type {LabelSelector} from '../controller/api/types.js'

export const pairKey = (key: string, value: string): string => `${key}\u0000${value}`

/**
 * The label pairs an object must carry for `selector` to match it: matchLabels, and `In` with one
 * value (the same requirement written the other way). Undefined when the selector requires no pair
 * (only Exists/NotIn/DoesNotExist or multi-valued In, or the empty selector that matches everything);
 * null for a nil selector, which matches nothing (metav1.LabelSelectorAsSelector).
 */
export function requiredPairs(selector: LabelSelector | null | undefined): string[] | undefined | null {
  if (selector == null) return null
  const pairs: string[] = []
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) pairs.push(pairKey(k, v))
  for (const e of selector.matchExpressions ?? []) {
    if (e.operator === 'In' && e.values?.length === 1) pairs.push(pairKey(e.key, e.values[0]!))
  }
  return pairs.length > 0 ? pairs : undefined
}

export class LabelIndex<T extends {metadata: {labels?: Record<string, string>}}> {
  private readonly byPair = new Map<string, T[]>()
  private readonly all: T[] = []

  /** Objects must be added in input order. */
  add(obj: T): void {
    this.all.push(obj)
    for (const [k, v] of Object.entries(obj.metadata.labels ?? {})) {
      const key = pairKey(k, v)
      const list = this.byPair.get(key)
      if (list) list.push(obj)
      else this.byPair.set(key, [obj])
    }
  }

  /** Every object that could match `selector`, in input order (a shared array: do not change it). */
  candidates(selector: LabelSelector | null | undefined): readonly T[] {
    const pairs = requiredPairs(selector)
    if (pairs === null) return []
    if (pairs === undefined) return this.all
    let best: readonly T[] | undefined
    for (const pair of pairs) {
      const list = this.byPair.get(pair)
      if (!list) return []
      if (!best || list.length < best.length) best = list
    }
    return best ?? this.all
  }
}

/** Merges arrays that are each in input order (by `position`) into one, without duplicates. */
export function mergeByPosition<T>(lists: ReadonlyArray<readonly T[]>, position: (o: T) => number): T[] {
  const nonEmpty = lists.filter((l) => l.length > 0)
  if (nonEmpty.length === 0) return []
  if (nonEmpty.length === 1) return [...nonEmpty[0]!]
  const seen = new Set<T>()
  const out: T[] = []
  for (const list of nonEmpty) {
    for (const o of list) {
      if (seen.has(o)) continue
      seen.add(o)
      out.push(o)
    }
  }
  return out.sort((a, b) => position(a) - position(b))
}
