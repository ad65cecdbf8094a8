// upstream: pkg/controller/controller_utils.go — the helpers the Deployment controller borrows from
// the shared controller package: ownership lookups, ReplicaSet orderings, ComputeHash.

import type {ObjectMeta, OwnerReference, Pod, PodTemplateSpec, ReplicaSet} from './api/types.js'
import {timeValue} from './util/equality.js'
import {computePodTemplateHash, PodTemplateHashError} from './util/pod-template-hash.js'
import type {KubeMinor} from './version.js'

export function specReplicas(rs: {spec?: {replicas?: number}}): number {
  return rs.spec?.replicas ?? 0
}

// upstream: metav1.GetControllerOf
export function getControllerOf(meta: ObjectMeta | undefined): OwnerReference | undefined {
  return meta?.ownerReferences?.find((r) => r.controller === true)
}

// upstream: FilterActiveReplicaSets
export function filterActiveReplicaSets(rss: Array<ReplicaSet | undefined>): ReplicaSet[] {
  return rss.filter((rs): rs is ReplicaSet => rs != null && specReplicas(rs) > 0)
}

// upstream: ReplicaSetsByCreationTimestamp.Less
export function byCreationTimestamp(a: ReplicaSet, b: ReplicaSet): number {
  const ta = timeValue(a.metadata.creationTimestamp)
  const tb = timeValue(b.metadata.creationTimestamp)
  if (ta === tb) return nameCompare(a, b)
  return ta < tb ? -1 : 1
}

function nameCompare(a: ReplicaSet, b: ReplicaSet): number {
  const na = a.metadata.name ?? ''
  const nb = b.metadata.name ?? ''
  return na < nb ? -1 : na > nb ? 1 : 0
}

// upstream: ReplicaSetsBySizeOlder — larger first, then older first.
export function bySizeOlder(a: ReplicaSet, b: ReplicaSet): number {
  const ra = specReplicas(a)
  const rb = specReplicas(b)
  if (ra === rb) return byCreationTimestamp(a, b)
  return ra > rb ? -1 : 1
}

// upstream: ReplicaSetsBySizeNewer — larger first, then newer first.
export function bySizeNewer(a: ReplicaSet, b: ReplicaSet): number {
  const ra = specReplicas(a)
  const rb = specReplicas(b)
  if (ra === rb) return byCreationTimestamp(b, a)
  return ra > rb ? -1 : 1
}

/** Sorts in place, as Go's sort.Sort does to the caller's slice. */
export function sortInPlace<T>(list: T[], cmp: (a: T, b: T) => number): T[] {
  return list.sort(cmp)
}

// upstream: FilterPodsByOwner(indexer, owner, kind, includeOrphans=false): the pods filed in the
// controller index under the owner's namespace/Kind/Name/UID. The apiVersion of the reference is
// not part of the key, and no phase or deletion filter applies.
export function filterPodsByOwner(candidates: Pod[], owner: ReplicaSet, ownerKind: string): Pod[] {
  const {namespace, name, uid} = owner.metadata
  if (!namespace) throw new Error('no owner namespace provided')
  if (!name) throw new Error('no owner name provided')
  if (!uid) throw new Error('no owner uid provided')
  if (!ownerKind) throw new Error('no owner kind provided')
  return candidates.filter((p) => {
    const ref = getControllerOf(p.metadata)
    return (
      ref !== undefined &&
      ref.uid === uid &&
      ref.kind === ownerKind &&
      ref.name === name &&
      p.metadata.namespace === namespace
    )
  })
}

// --- ComputeHash --------------------------------------------------------------------------------

export {safeEncodeString} from './util/pod-template-hash.js'

/**
 * upstream: ComputeHash — the pod-template-hash kube-controller-manager of `minor` (default the
 * newest supported) gives this template (go-spew's dump of the typed struct, FNV-32a, then the
 * collision count): see util/pod-template-hash.ts and the golden vectors in
 * test/fixtures/pod-template-hash.
 */
export function computeHash(
  template: PodTemplateSpec,
  collisionCount: number | undefined,
  minor?: KubeMinor,
): string {
  try {
    return computePodTemplateHash(template, collisionCount, minor)
  } catch (err) {
    // A value no API server would store (the loader checks most, not quantities): name the field.
    if (err instanceof PodTemplateHashError) throw err.within('.spec.template')
    throw err
  }
}
