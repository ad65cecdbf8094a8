// Which ReplicaSets belong to the Deployment and in which role, as the pass decided it: the claim
// facts (owned, adopted, released) first, the controllerRef when the pass stopped before claiming.

import {LabelIndex} from '../cluster/label-index.js'
import type {MemoryStore} from '../cluster/memory.js'
import {
  type Deployment,
  type LabelSelector,
  type Pod,
  type ReplicaSet,
  ReplicaSetKind,
} from '../controller/api/types.js'
import {filterPodsByOwner, getControllerOf, specReplicas} from '../controller/controller-utils.js'
import {
  findNewReplicaSet,
  RevisionAnnotation,
  RevisionHistoryAnnotation,
  revision,
} from '../controller/util/deployment-util.js'
import {isSelectEverythingLiteral, labelSelectorAsSelector, type Selector} from '../controller/util/labels.js'
import type {Facts} from '../pass/facts.js'
import {age} from '../util/duration.js'
import type {ReplicaSetInfo, ReplicaSetView, RolloutContext} from './context.js'
import type {Ownership, ReplicaSetRow} from './types.js'

/** The Deployment's selector, or undefined when it does not parse. */
export function selectorOf(d: Deployment): Selector | undefined {
  try {
    return labelSelectorAsSelector(d.spec.selector)
  } catch {
    return undefined
  }
}

export function podsOf(store: MemoryStore, rs: ReplicaSet): Pod[] {
  const uid = rs.metadata.uid
  if (!uid || !rs.metadata.namespace || !rs.metadata.name) return []
  return filterPodsByOwner(store.listers.podsByControllerUID(uid), rs, ReplicaSetKind)
}

/**
 * The ReplicaSets of one namespace indexed once for the views of all its Deployments (the listers
 * are a frozen snapshot). With many Deployments sharing a selector, a scan of the namespace per
 * Deployment, and a row per other Deployment's ReplicaSet, made explain -A quadratic.
 */
interface NamespaceIndex {
  replicaSets: readonly ReplicaSet[]
  position: Map<ReplicaSet, number>
  byName: Map<string, ReplicaSet>
  byControllerUid: Map<string, ReplicaSet[]>
  bySelector: Map<string, SelectorMatch>
  /**
   * Those without a controller by label pair: a selector's orphans are looked for among its rarest
   * pair's. Few, usually: a verdict reads only these.
   */
  orphans: LabelIndex<ReplicaSet>
  /** Every one by label pair, for the foreign ReplicaSets explain lists: built when first read. */
  byLabel: LabelIndex<ReplicaSet> | undefined
}

/** The namespace's ReplicaSets a selector matches, shared by every Deployment with that selector. */
interface SelectorMatch {
  orphans: ReplicaSet[]
  /** Those with a controller, as foreign infos (shared: never mutated); found when first read. */
  controlled: ReplicaSetInfo[] | undefined
}

const indexes = new WeakMap<readonly ReplicaSet[], NamespaceIndex>()

const NO_INFOS: readonly ReplicaSetInfo[] = []

function indexOf(namespaceReplicaSets: readonly ReplicaSet[]): NamespaceIndex {
  let index = indexes.get(namespaceReplicaSets)
  if (index) return index
  index = {
    replicaSets: namespaceReplicaSets,
    position: new Map(),
    byName: new Map(),
    byControllerUid: new Map(),
    bySelector: new Map(),
    orphans: new LabelIndex(),
    byLabel: undefined,
  }
  for (const [i, rs] of namespaceReplicaSets.entries()) {
    index.position.set(rs, i)
    index.byName.set(rs.metadata.name ?? '', rs)
    const ref = getControllerOf(rs.metadata)
    if (!ref) {
      index.orphans.add(rs)
      continue
    }
    const uid = ref.uid
    if (uid === undefined) continue
    const owned = index.byControllerUid.get(uid)
    if (owned) owned.push(rs)
    else index.byControllerUid.set(uid, [rs])
  }
  indexes.set(namespaceReplicaSets, index)
  return index
}

function selectorMatch(
  index: NamespaceIndex,
  selector: Selector,
  written: LabelSelector | undefined,
): SelectorMatch {
  const key = selector.toString()
  let match = index.bySelector.get(key)
  if (match) return match
  match = {orphans: [], controlled: undefined}
  for (const rs of index.orphans.candidates(written)) {
    if (selector.matches(rs.metadata.labels)) match.orphans.push(rs)
  }
  index.bySelector.set(key, match)
  return match
}

/** The ReplicaSets with a controller that the selector matches, as foreign infos, in input order. */
function controlledMatches(
  index: NamespaceIndex,
  match: SelectorMatch,
  selector: Selector,
  written: LabelSelector | undefined,
): ReplicaSetInfo[] {
  if (match.controlled) return match.controlled
  if (!index.byLabel) {
    index.byLabel = new LabelIndex()
    for (const rs of index.replicaSets) index.byLabel.add(rs)
  }
  match.controlled = []
  for (const rs of index.byLabel.candidates(written)) {
    const ref = getControllerOf(rs.metadata)
    if (!ref || !selector.matches(rs.metadata.labels)) continue
    match.controlled.push({
      rs,
      ownership: 'foreign',
      role: 'not owned',
      controller: `${ref.kind}/${ref.name}`,
      // Another controller's pods are never this rollout's: not read.
      pods: [],
    })
  }
  return match.controlled
}

/** The ReplicaSets of `namespaceReplicaSets` (the lister's, one array per namespace) that concern `d`. */
export function replicaSetView(
  d: Deployment,
  namespaceReplicaSets: readonly ReplicaSet[],
  facts: Facts,
  store: MemoryStore,
): ReplicaSetView {
  // An empty selector would match every ReplicaSet; the controller claims none then, and neither do we.
  const selector = isSelectEverythingLiteral(d.spec.selector) ? undefined : selectorOf(d)
  const uid = d.metadata.uid
  const claimedNames = facts.last('ownedReplicaSets')
  const adopted = new Set(facts.all('adopt'))
  const released = new Set(facts.all('release'))
  const index = indexOf(namespaceReplicaSets)
  const match = selector ? selectorMatch(index, selector, d.spec.selector) : undefined
  // Candidates: what the pass adopted or released, what it owns, the orphans its selector matches.
  const candidates = new Set<ReplicaSet>()
  for (const name of [...adopted, ...released]) {
    const rs = index.byName.get(name)
    if (rs) candidates.add(rs)
  }
  for (const rs of uid ? (index.byControllerUid.get(uid) ?? []) : []) candidates.add(rs)
  for (const rs of match?.orphans ?? []) candidates.add(rs)
  const infos: Array<Omit<ReplicaSetInfo, 'role'>> = []
  for (const rs of [...candidates].sort((a, b) => index.position.get(a)! - index.position.get(b)!)) {
    const name = rs.metadata.name ?? ''
    const ref = getControllerOf(rs.metadata)
    const ours = ref !== undefined && ref.uid === uid
    const matches = selector?.matches(rs.metadata.labels) ?? false
    let ownership: Ownership
    if (adopted.has(name)) ownership = 'adopt'
    else if (released.has(name)) ownership = 'release'
    else if (ours) ownership = 'owned'
    else if (matches && !ref) ownership = 'orphan'
    else continue
    infos.push({rs, ownership, controller: null, pods: podsOf(store, rs)})
  }
  // The claim as the pass made it; when the pass stopped before claiming, what it owns by controllerRef.
  const claimed =
    claimedNames !== undefined
      ? claimedNames
          .map((n) => infos.find((i) => i.rs.metadata.name === n)?.rs)
          .filter((rs): rs is ReplicaSet => rs !== undefined)
      : infos.filter((i) => i.ownership === 'owned').map((i) => i.rs)
  const newRS = findNewReplicaSet(d, [...claimed])
  const oldRSs = claimed.filter((rs) => rs !== newRS)
  const all = infos.map((i) => ({
    ...i,
    role:
      i.rs === newRS ? ('new' as const) : claimed.includes(i.rs) ? ('old' as const) : ('not owned' as const),
  }))
  const skip = (i: ReplicaSetInfo) =>
    getControllerOf(i.rs.metadata)?.uid === uid ||
    adopted.has(i.rs.metadata.name ?? '') ||
    released.has(i.rs.metadata.name ?? '')
  const written = d.spec.selector
  const foreign = {
    // Read by explain's listing of foreign ReplicaSets only, not by the verdict.
    get controlled(): readonly ReplicaSetInfo[] {
      return match && selector ? controlledMatches(index, match, selector, written) : NO_INFOS
    },
    skip,
  }
  return {all, foreign, claimed, newRS, oldRSs}
}

/** Every foreign ReplicaSet of the view, one by one (a walk of the selector's whole match). */
export function foreignInfos(view: ReplicaSetView): ReplicaSetInfo[] {
  return view.foreign.controlled.filter((i) => !view.foreign.skip(i))
}

function revisionNumber(rs: ReplicaSet): bigint | undefined {
  try {
    const v = rs.metadata.annotations?.[RevisionAnnotation]
    return v === undefined ? undefined : revision(rs)
  } catch {
    return undefined
  }
}

/** Newest revision first; ReplicaSets the Deployment does not own last. */
export function replicaSetRows(view: ReplicaSetView, now: number): ReplicaSetRow[] {
  const rank = (i: ReplicaSetInfo) => (i.role === 'not owned' ? 1 : 0)
  const sorted = [...view.all].sort((a, b) => {
    if (rank(a) !== rank(b)) return rank(a) - rank(b)
    const ra = revisionNumber(a.rs)
    const rb = revisionNumber(b.rs)
    if (ra !== rb) {
      if (ra === undefined) return 1
      if (rb === undefined) return -1
      return ra > rb ? -1 : 1
    }
    const na = a.rs.metadata.name ?? ''
    const nb = b.rs.metadata.name ?? ''
    return na < nb ? -1 : na > nb ? 1 : 0
  })
  return sorted.map((i) => {
    const rs = i.rs
    const ann = rs.metadata.annotations ?? {}
    return {
      name: rs.metadata.name ?? '',
      revision: ann[RevisionAnnotation] ?? null,
      role: i.role,
      ownership: i.ownership,
      controller: i.controller,
      desired: specReplicas(rs),
      current: rs.status?.replicas ?? 0,
      ready: rs.status?.readyReplicas ?? 0,
      available: rs.status?.availableReplicas ?? 0,
      createdAt: rs.metadata.creationTimestamp ?? null,
      age: age(rs.metadata.creationTimestamp, now),
      images: (rs.spec.template?.spec?.containers ?? []).map((c) => c.image ?? ''),
      containers: (rs.spec.template?.spec?.containers ?? []).map((c) => c.name ?? ''),
      selector: selectorString(rs.spec.selector),
      revisionHistory: ann[RevisionHistoryAnnotation] ?? null,
    }
  })
}

export interface ScaleRecord {
  name: string
  from: number
  to: number
  created: boolean
}

/** The ReplicaSets the pass creates or resizes, in the order of its writes. */
export function scaledReplicaSets(ctx: RolloutContext): ScaleRecord[] {
  const sizes = new Map<string, number>()
  const records: ScaleRecord[] = []
  for (const a of ctx.result.actions) {
    if (a.resource !== 'replicasets' || a.subresource) continue
    if (a.verb === 'create') {
      const to = specReplicas(a.object as ReplicaSet)
      records.push({name: a.name, from: 0, to, created: true})
      sizes.set(a.name, to)
    } else if (a.verb === 'update') {
      const before = ctx.store.initial('replicasets', a.namespace, a.name) as ReplicaSet | undefined
      const from = sizes.get(a.name) ?? (before ? specReplicas(before) : 0)
      const to = specReplicas(a.object as ReplicaSet)
      if (from !== to) records.push({name: a.name, from, to, created: false})
      sizes.set(a.name, to)
    }
  }
  return records
}

/** A label selector as kubectl prints it; one the API server would refuse, as `<invalid>`. */
function selectorString(selector: LabelSelector | undefined): string {
  try {
    return labelSelectorAsSelector(selector).toString()
  } catch {
    return '<invalid>'
  }
}
