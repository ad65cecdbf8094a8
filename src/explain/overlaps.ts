// Which Deployments of a namespace select each other's pods, computed once per namespace and pass
// by groups of equal selectors: with 1,000 Deployments sharing `app: shared`, every one overlaps
// 999 others, and a pairwise answer per Deployment (a dead end and a ReplicaSet row per pair)
// would be quadratic in time and output. Each Deployment gets one answer naming its group.
// Which Deployments a group's selector selects is looked up in an index of the template labels:
// with 5,000 Deployments of distinct selectors in one namespace, testing every selector against
// every template was 25 million matches (explain -A: 13.4 s CPU against 6.1 s over 50 namespaces).

import {LabelIndex} from '../cluster/label-index.js'
import type {MemoryStore} from '../cluster/memory.js'
import type {Deployment, LabelSelector, ReplicaSet} from '../controller/api/types.js'
import type {Selector} from '../controller/util/labels.js'
import type {ReplicaSetInfo, RolloutContext} from '../status/context.js'
import {selectorOf} from '../status/replicasets.js'

interface Group {
  selector: Selector
  /** As its first member wrote it: what the index looks candidates up by. */
  written: LabelSelector | undefined
  members: Deployment[]
  /** The Deployments whose template labels this selector matches (computed once per group). */
  selects: Deployment[]
}

interface NamespaceOverlaps {
  groupOf: Map<Deployment, Group | undefined>
  /** The groups whose selector matches a Deployment's template labels. */
  selectedBy: Map<Deployment, Group[]>
  /** The names of the Deployments of some lists of a group, by the lists: one Set per combination. */
  unions: Map<string, Set<string>>
  listIds: Map<Deployment[], number>
}

const cache = new WeakMap<MemoryStore, Map<string, NamespaceOverlaps>>()

/** Exported for test/unit/overlaps.test.ts, which holds it to a walk of every pair. */
export function namespaceOverlaps(all: Deployment[]): NamespaceOverlaps {
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
      g = {selector, written: d.spec.selector, members: [], selects: []}
      groups.set(key, g)
    }
    g.members.push(d)
    groupOf.set(d, g)
  }
  const selectedBy = new Map<Deployment, Group[]>(all.map((d) => [d, []]))
  // Each Deployment by its template's label pairs, in input order: a group's candidates are those
  // carrying the rarest pair its selector requires (every Deployment when it requires none), and
  // the selector still decides, so the answer is the walk's.
  const templates = new LabelIndex<{metadata: {labels?: Record<string, string>}; d: Deployment}>()
  for (const d of all) templates.add({metadata: {labels: d.spec.template.metadata?.labels}, d})
  for (const g of groups.values()) {
    for (const {d} of templates.candidates(g.written ?? {})) {
      if (g.selector.matches(d.spec.template.metadata?.labels)) {
        g.selects.push(d)
        selectedBy.get(d)?.push(g)
      }
    }
  }
  return {groupOf, selectedBy, unions: new Map(), listIds: new Map()}
}

/** The names of the Deployments of `lists`, one Set shared by every Deployment with the same lists. */
function namesOf(ns: NamespaceOverlaps, lists: Deployment[][]): Set<string> {
  const ids = lists.map((l) => {
    let id = ns.listIds.get(l)
    if (id === undefined) {
      id = ns.listIds.size
      ns.listIds.set(l, id)
    }
    return id
  })
  const key = ids.join(',')
  let names = ns.unions.get(key)
  if (!names) {
    names = new Set(lists.flat().map((d) => d.metadata.name ?? ''))
    ns.unions.set(key, names)
  }
  return names
}

export interface Overlap {
  /** How many other Deployments overlap with this one. */
  count: number
  /** The first few of them, by name. */
  names: string[]
  /**
   * The names of the overlapping Deployments, this one's too when its group holds it: one Set shared
   * by every Deployment of a group of equal selectors (with 1,000 of them, a Set each was quadratic).
   */
  members: Set<string>
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
    ns = namespaceOverlaps([self, ...ctx.others])
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
  const members = namesOf(ns, distinct)
  if (distinct.length === 1) {
    const only = distinct[0]!
    count = only.length - (only.includes(self) ? 1 : 0)
    names = []
    for (const d of only) {
      if (names.length >= SHOWN) break
      if (d !== self) names.push(name(d))
    }
  } else {
    count = members.size - (members.has(selfName) ? 1 : 0)
    names = []
    for (const n of members) {
      if (names.length >= SHOWN) break
      if (n !== selfName) names.push(n)
    }
  }
  const one = count === 1 ? names[0] : undefined
  const other = one === undefined ? undefined : ctx.others.find((d) => name(d) === one)
  const theirs = other ? selectorOf(other) : undefined
  const mine = selectorOf(self)
  return {
    count,
    names,
    members,
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

/** The foreign ReplicaSets of a Deployment, as explain shows them. */
export interface ForeignReplicaSets {
  /** Those named one by one: controlled by anything but a Deployment of the overlapping group. */
  listed: ReplicaSetInfo[]
  /**
   * How many the Deployments of a group (more than one) of overlapping Deployments control: the
   * OverlappingSelector dead end covers them, once.
   */
  grouped: number
}

/** The foreign ReplicaSets of a selector's match split by the members of a group, once per group. */
interface Partition {
  listed: ReplicaSetInfo[]
  grouped: Set<ReplicaSet>
  byDeployment: Map<string, ReplicaSetInfo[]>
}

const partitions = new WeakMap<readonly ReplicaSetInfo[], WeakMap<Set<string>, Partition>>()

function partition(controlled: readonly ReplicaSetInfo[], members: Set<string>): Partition {
  let byMembers = partitions.get(controlled)
  if (!byMembers) {
    byMembers = new WeakMap()
    partitions.set(controlled, byMembers)
  }
  let p = byMembers.get(members)
  if (p) return p
  p = {listed: [], grouped: new Set(), byDeployment: new Map()}
  for (const info of controlled) {
    const deployment = info.controller?.startsWith('Deployment/') ? info.controller.slice(11) : undefined
    if (deployment === undefined || !members.has(deployment)) {
      p.listed.push(info)
      continue
    }
    p.grouped.add(info.rs)
    const list = p.byDeployment.get(deployment)
    if (list) list.push(info)
    else p.byDeployment.set(deployment, [info])
  }
  byMembers.set(members, p)
  return p
}

/**
 * The foreign ReplicaSets of ctx's Deployment: from the partition its whole group shares, less its
 * own (which the group's count holds) and those of another object of its name. Linear in the
 * namespace's ReplicaSets for the whole group, not per Deployment.
 */
export function foreignOf(ctx: RolloutContext, overlap: Overlap): ForeignReplicaSets {
  const {controlled, skip} = ctx.view.foreign
  if (overlap.count <= 1) return {listed: controlled.filter((i) => !skip(i)), grouped: 0}
  const p = partition(controlled, overlap.members)
  // A ReplicaSet controlled by a Deployment/NAME of this one's name is foreign only under another uid,
  // and then listed: the group it overlaps with is the others.
  const ofName = p.byDeployment.get(ctx.name) ?? []
  const sameName = ofName.filter((i) => !skip(i))
  const own = ctx.view.all.filter((i) => p.grouped.has(i.rs)).length
  let listed = p.listed.filter((i) => !skip(i))
  if (sameName.length > 0) {
    const position = (i: ReplicaSetInfo) => ctx.namespaceReplicaSets.indexOf(i.rs)
    listed = [...listed, ...sameName].sort((a, b) => position(a) - position(b))
  }
  return {listed, grouped: p.grouped.size - own - sameName.length}
}
