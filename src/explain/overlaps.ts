// Which Deployments of a namespace select each other's pods, computed once per namespace and pass
// by groups of equal selectors: with 1,000 Deployments sharing `app: shared`, every one overlaps
// 999 others, and a pairwise answer per Deployment (a dead end and a ReplicaSet row per pair)
// would be quadratic in time and output. Each Deployment gets one answer naming its group.

import type {MemoryStore} from '../cluster/memory.js'
import type {Deployment} from '../controller/api/types.js'
import type {Selector} from '../controller/util/labels.js'
import type {RolloutContext} from '../status/context.js'
import {selectorOf} from '../status/replicasets.js'

interface Group {
  selector: Selector
  members: Deployment[]
  /** The Deployments whose template labels this selector matches (computed once per group). */
  selects: Deployment[]
}

interface NamespaceOverlaps {
  groupOf: Map<Deployment, Group | undefined>
  /** The groups whose selector matches a Deployment's template labels. */
  selectedBy: Map<Deployment, Group[]>
}

const cache = new WeakMap<MemoryStore, Map<string, NamespaceOverlaps>>()

function compute(all: Deployment[]): NamespaceOverlaps {
  const groups = new Map<string, Group>()
  const groupOf = new Map<Deployment, Group | undefined>()
  for (const d of all) {
    const selector = selectorOf(d)
    if (selector === undefined || selector.empty()) {
      groupOf.set(d, undefined)
      continue
    }
    const key = selector.toString()
    let g = groups.get(key)
    if (!g) {
      g = {selector, members: [], selects: []}
      groups.set(key, g)
    }
    g.members.push(d)
    groupOf.set(d, g)
  }
  const selectedBy = new Map<Deployment, Group[]>(all.map((d) => [d, []]))
  for (const g of groups.values()) {
    for (const d of all) {
      if (g.selector.matches(d.spec.template.metadata?.labels)) {
        g.selects.push(d)
        selectedBy.get(d)?.push(g)
      }
    }
  }
  return {groupOf, selectedBy}
}

export interface Overlap {
  /** How many other Deployments overlap with this one. */
  count: number
  /** The first few of them, by name. */
  names: string[]
  /** Names of every overlapping Deployment, for membership tests (lazy: a Set only when asked). */
  has(name: string): boolean
  /** When exactly one other overlaps: whether its selector selects us, and ours it. */
  theyMatchMe: boolean
  iMatchThem: boolean
}

const SHOWN = 5

/** The Deployments of the namespace whose selectors overlap with this one's (this one excluded). */
export function overlapOf(ctx: RolloutContext): Overlap {
  let byNs = cache.get(ctx.store)
  if (!byNs) {
    byNs = new Map()
    cache.set(ctx.store, byNs)
  }
  let ns = byNs.get(ctx.namespace)
  // The namespace's Deployments as every context of this pass sees them: ctx.d and ctx.others.
  const self = ctx.d
  if (!ns?.groupOf.has(self)) {
    ns = compute([self, ...ctx.others])
    byNs.set(ctx.namespace, ns)
  }
  const own = ns.groupOf.get(self)
  // Lists of Deployments that overlap: those selecting our labels, those our selector selects.
  const lists: Deployment[][] = [...(ns.selectedBy.get(self) ?? []).map((g) => g.members)]
  if (own) lists.push(own.selects)
  const distinct = [...new Set(lists)]
  const name = (d: Deployment) => d.metadata.name ?? ''
  const selfName = name(self)
  let count: number
  let names: string[]
  let set: Set<string> | undefined
  if (distinct.length === 1) {
    const only = distinct[0]!
    count = only.length - (only.includes(self) ? 1 : 0)
    names = []
    for (const d of only) {
      if (names.length >= SHOWN) break
      if (d !== self) names.push(name(d))
    }
  } else {
    set = new Set(distinct.flat().map(name))
    set.delete(selfName)
    count = set.size
    names = [...set].slice(0, SHOWN)
  }
  const one = count === 1 ? names[0] : undefined
  const other = one === undefined ? undefined : ctx.others.find((d) => name(d) === one)
  const theirs = other ? selectorOf(other) : undefined
  const mine = selectorOf(self)
  return {
    count,
    names,
    has: (n: string) => {
      if (n === selfName) return false
      set ??= new Set(distinct.flat().map(name))
      return set.has(n)
    },
    theyMatchMe:
      other !== undefined &&
      theirs !== undefined &&
      !theirs.empty() &&
      theirs.matches(self.spec.template.metadata?.labels),
    iMatchThem:
      other !== undefined &&
      mine !== undefined &&
      !mine.empty() &&
      mine.matches(other.spec.template.metadata?.labels),
  }
}

/**
 * A foreign ReplicaSet controlled by one of a group (more than one) of overlapping Deployments: the
 * OverlappingSelector dead end covers it, so it is not listed on its own.
 */
export function overlappingReplicaSet(overlap: Overlap, controller: string | null): boolean {
  return (
    overlap.count > 1 && controller?.startsWith('Deployment/') === true && overlap.has(controller.slice(11))
  )
}
