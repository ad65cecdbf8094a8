// upstream: pkg/controller/controller_utils.go — the helpers the Deployment controller borrows from
// the shared controller package: ownership lookups, ReplicaSet orderings, ComputeHash.

import type {ObjectMeta, OwnerReference, Pod, PodTemplateSpec, ReplicaSet} from './api/types.js'
import {timeValue} from './util/equality.js'

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

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

function fnv1a(bytes: Uint8Array, seed = FNV_OFFSET): number {
  let h = seed
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i]!
    h = Math.imul(h, FNV_PRIME) >>> 0
  }
  return h >>> 0
}

// upstream: rand.SafeEncodeString — maps each character onto an alphabet without vowels or
// look-alike characters, so hashes never spell words.
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'
export function safeEncodeString(s: string): string {
  let out = ''
  for (const ch of s) out += SAFE_ALPHABET[(ch.codePointAt(0) ?? 0) % SAFE_ALPHABET.length]
  return out
}

/** Key-sorted JSON, with zero values dropped, so semantically equal templates hash the same. */
function canonical(v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  if (typeof v === 'object') {
    const entries = Object.keys(v as object)
      .sort()
      .filter((k) => !isZeroish((v as Record<string, unknown>)[k]))
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(v)
}

function isZeroish(v: unknown): boolean {
  if (v == null || v === '' || v === 0 || v === false) return true
  if (Array.isArray(v)) return v.length === 0
  if (typeof v === 'object') return Object.keys(v as object).length === 0
  return false
}

const encoder = new TextEncoder()

/**
 * upstream: ComputeHash. Upstream hashes a Go struct dump of the template with FNV-1a 32 and then
 * the collision count; outside Go the dump cannot be reproduced byte for byte, so this hashes a
 * canonical JSON form instead. Same template gives the same hash, another collisionCount another.
 */
export function computeHash(template: PodTemplateSpec, collisionCount: number | undefined): string {
  let h = fnv1a(encoder.encode(canonical(template)))
  if (collisionCount != null) {
    const extra = new Uint8Array(8)
    new DataView(extra.buffer).setUint32(0, collisionCount >>> 0, true)
    h = fnv1a(extra, h)
  }
  return safeEncodeString(String(h))
}
