// The ReplicaSet controller model (upstream pkg/controller/replicaset, simplified): keep
// spec.replicas active pods, delete the surplus in upstream's order of preference, and write the
// status the Deployment controller reads, with the ReplicaFailure condition when creating or
// deleting pods failed. Not modelled: adoption and release of pods (only the pods whose controller
// reference names the ReplicaSet count), and expectations (a model's writes are seen at once).

import {deepEqual} from '../cluster/json.js'
import type {Pod, ReplicaSet, ReplicaSetCondition, ReplicaSetStatus} from '../controller/api/types.js'
import {getControllerOf, specReplicas} from '../controller/controller-utils.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {timeValue} from '../controller/util/equality.js'
import {
  isPodActive,
  isPodAvailable,
  isPodReady,
  isPodTerminating,
  maxRestarts,
  nodeOf,
  podReadyTime,
  podsOwnedBy,
} from '../status/pods.js'
import {formatTime} from '../util/duration.js'

// upstream: replicaset.BurstReplicas — at most this many creations or deletions per sync.
export const BURST_REPLICAS = 500

// upstream: controller.podPhaseToOrdinal (phases not listed, Succeeded and Failed among them, are 0).
const PHASE_ORDINAL: Record<string, number> = {Pending: 0, Unknown: 1, Running: 2}

// upstream: v1.PodDeletionCost
export const PodDeletionCostAnnotation = 'controller.kubernetes.io/pod-deletion-cost'

/** upstream: helper.GetDeletionCostFromPodAnnotations — an int32, 0 when absent or invalid. */
export function deletionCost(pod: Pod): number {
  const v = pod.metadata.annotations?.[PodDeletionCostAnnotation]
  if (v === undefined || !/^[+-]?\d+$/.test(v.trim())) return 0
  const n = Number(v.trim())
  return n >= -2147483648 && n <= 2147483647 ? n : 0
}

/** upstream: afterOrZero — is t1 after t2, the zero time (absent) being after everything. */
function afterOrZero(t1: number, t2: number): boolean {
  const z1 = !Number.isFinite(t1)
  const z2 = !Number.isFinite(t2)
  if (z1 || z2) return z1
  return t1 > t2
}

/** upstream: logarithmicRankDiff — compares ages in powers of two of nanoseconds. */
function logarithmicRankDiff(t1: number, t2: number, now: number): number {
  const rank = (t: number) => {
    const d = (now - t) * 1e6
    return d > 0 ? Math.trunc(Math.log2(d)) : -1
  }
  return rank(t1) - rank(t2)
}

/** The pod whose times compare; absent times are NaN-free -Infinity. */
function creation(pod: Pod): number {
  return timeValue(pod.metadata.creationTimestamp)
}

/**
 * upstream: controller.ActivePodsWithRanks.Less (v1.36, LogarithmicScaleDown GA, PodDeletionCost
 * on): true when pod a should be deleted before pod b. `rank` is the number of related active pods
 * on the pod's node.
 */
export function deletesBefore(a: Pod, rankA: number, b: Pod, rankB: number, now: number): boolean {
  const nodeA = nodeOf(a)
  const nodeB = nodeOf(b)
  // 1. Unassigned < assigned.
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === ''
  // 2. Pending < Unknown < Running.
  const pa = PHASE_ORDINAL[a.status?.phase ?? ''] ?? 0
  const pb = PHASE_ORDINAL[b.status?.phase ?? ''] ?? 0
  if (pa !== pb) return pa < pb
  // 3. Not ready < ready.
  const ra = isPodReady(a)
  const rb = isPodReady(b)
  if (ra !== rb) return !ra
  // 4. Lower pod-deletion-cost < higher.
  const ca = deletionCost(a)
  const cb = deletionCost(b)
  if (ca !== cb) return ca < cb
  // 5. Doubled up < not doubled up: more related pods on the same node first.
  if (rankA !== rankB) return rankA > rankB
  // 6. Been ready for a shorter time < longer (in logarithmic buckets, then by UID).
  if (ra && rb) {
    const ta = podReadyTime(a) ?? Number.NEGATIVE_INFINITY
    const tb = podReadyTime(b) ?? Number.NEGATIVE_INFINITY
    if (ta !== tb) {
      if (!Number.isFinite(ta) || !Number.isFinite(tb)) return afterOrZero(ta, tb)
      const diff = logarithmicRankDiff(ta, tb, now)
      if (diff === 0) return (a.metadata.uid ?? '') < (b.metadata.uid ?? '')
      return diff < 0
    }
  }
  // 7. Higher restart counts < lower.
  const xa = maxRestarts(a)
  const xb = maxRestarts(b)
  if (xa !== xb) return xa > xb
  // 8. Empty creation time < newer < older (in logarithmic buckets, then by UID).
  const ta = creation(a)
  const tb = creation(b)
  if (ta !== tb) {
    if (!Number.isFinite(ta) || !Number.isFinite(tb)) return afterOrZero(ta, tb)
    const diff = logarithmicRankDiff(ta, tb, now)
    if (diff === 0) return (a.metadata.uid ?? '') < (b.metadata.uid ?? '')
    return diff < 0
  }
  return false
}

/**
 * upstream: getPodsToDelete — the `diff` pods to delete out of `filteredPods`, ranked by the
 * related pods (those of every ReplicaSet with the same owner) on the same node.
 */
export function getPodsToDelete(filteredPods: Pod[], relatedPods: Pod[], diff: number, now: number): Pod[] {
  if (diff >= filteredPods.length) return filteredPods.slice(0, diff)
  return rankedForDeletion(filteredPods, relatedPods, now).slice(0, diff)
}

/** Every pod of `filteredPods`, in getPodsToDelete's order of preference. */
export function rankedForDeletion(filteredPods: Pod[], relatedPods: Pod[], now: number): Pod[] {
  const onNode = new Map<string, number>()
  for (const pod of relatedPods) {
    if (!isPodActive(pod)) continue
    const node = nodeOf(pod)
    onNode.set(node, (onNode.get(node) ?? 0) + 1)
  }
  const ranked = filteredPods.map((pod) => ({pod, rank: onNode.get(nodeOf(pod)) ?? 0}))
  ranked.sort((x, y) =>
    deletesBefore(x.pod, x.rank, y.pod, y.rank, now)
      ? -1
      : deletesBefore(y.pod, y.rank, x.pod, x.rank, now)
        ? 1
        : 0,
  )
  return ranked.map((r) => r.pod)
}

export interface ManageDecision {
  /** How many pods to create. */
  create: number
  /** The pods to delete, in deletion order. */
  delete: Pod[]
}

/**
 * upstream: manageReplicas — what one sync of the ReplicaSet does to its pods, at most `burst`
 * creations or deletions.
 */
export function manageReplicas(
  rs: ReplicaSet,
  ownedPods: Pod[],
  relatedPods: Pod[],
  now: number,
  burst = BURST_REPLICAS,
): ManageDecision {
  const active = ownedPods.filter(isPodActive)
  const diff = active.length - specReplicas(rs)
  if (diff < 0) return {create: Math.min(-diff, burst), delete: []}
  if (diff > 0) return {create: 0, delete: getPodsToDelete(active, relatedPods, Math.min(diff, burst), now)}
  return {create: 0, delete: []}
}

/** Does every label of the ReplicaSet's pod template appear on the pod? */
function fullyLabeled(rs: ReplicaSet, pod: Pod): boolean {
  const want: Record<string, string> = rs.spec.template?.metadata?.labels ?? {}
  const have: Record<string, string> = pod.metadata.labels ?? {}
  return Object.entries(want).every(([k, v]) => have[k] === v)
}

/** What went wrong in manageReplicas: the first error of a create or delete. */
export interface ManageError {
  message: string
}

/**
 * upstream: calculateStatus — counts over the active pods, the terminating ones when the gate is on,
 * and the ReplicaFailure condition: added (reason FailedCreate or FailedDelete, from the sign of
 * active - spec.replicas) when manageReplicas failed and there is none, removed when it succeeded.
 * Zero counts are left out as the Go struct's omitempty does (replicas is always written).
 * observedGeneration is left as it was: updateReplicaSetStatus sets it when it writes.
 */
export function calculateStatus(
  rs: ReplicaSet,
  ownedPods: Pod[],
  now: number,
  gates: FeatureGates,
  manageError?: ManageError,
  weight: (pod: Pod) => number = () => 1,
): ReplicaSetStatus {
  const active = ownedPods.filter(isPodActive)
  const minReady = rs.spec.minReadySeconds ?? 0
  let fullyLabeledReplicas = 0
  let readyReplicas = 0
  let availableReplicas = 0
  let activeReplicas = 0
  for (const pod of active) {
    const w = weight(pod)
    activeReplicas += w
    if (fullyLabeled(rs, pod)) fullyLabeledReplicas += w
    if (isPodReady(pod)) {
      readyReplicas += w
      if (isPodAvailable(pod, minReady, now)) availableReplicas += w
    }
  }
  const {
    replicas: _r,
    fullyLabeledReplicas: _f,
    readyReplicas: _re,
    availableReplicas: _a,
    terminatingReplicas: _t,
    conditions: oldConditions,
    ...rest
  } = rs.status ?? {}
  let conditions: ReplicaSetCondition[] = [...(oldConditions ?? [])]
  const failure = conditions.find((c) => c.type === 'ReplicaFailure')
  if (manageError && !failure) {
    const diff = activeReplicas - specReplicas(rs)
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : ''
    conditions.push({
      type: 'ReplicaFailure',
      status: 'True',
      lastTransitionTime: formatTime(now),
      reason,
      message: manageError.message,
    })
  } else if (!manageError && failure) {
    conditions = conditions.filter((c) => c.type !== 'ReplicaFailure')
  }
  const status: ReplicaSetStatus = {...rest, replicas: activeReplicas}
  if (fullyLabeledReplicas) status.fullyLabeledReplicas = fullyLabeledReplicas
  if (readyReplicas) status.readyReplicas = readyReplicas
  if (availableReplicas) status.availableReplicas = availableReplicas
  if (gates.enabled('DeploymentReplicaSetTerminatingReplicas')) {
    status.terminatingReplicas = ownedPods.filter(isPodTerminating).reduce((n, p) => n + weight(p), 0)
  }
  if (conditions.length > 0) status.conditions = conditions
  return status
}

/**
 * upstream: updateReplicaSetStatus — the status to write, or undefined in the steady state: the
 * same counts (terminatingReplicas compared as a pointer), the generation already observed and the
 * same conditions. The written status carries observedGeneration = the ReplicaSet's generation.
 */
export function statusToWrite(rs: ReplicaSet, status: ReplicaSetStatus): ReplicaSetStatus | undefined {
  const old = rs.status ?? {}
  const n = (v: number | undefined) => v ?? 0
  const steady =
    n(old.replicas) === n(status.replicas) &&
    n(old.fullyLabeledReplicas) === n(status.fullyLabeledReplicas) &&
    n(old.readyReplicas) === n(status.readyReplicas) &&
    n(old.availableReplicas) === n(status.availableReplicas) &&
    old.terminatingReplicas === status.terminatingReplicas &&
    n(rs.metadata.generation) === n(old.observedGeneration) &&
    deepEqual(old.conditions ?? [], status.conditions ?? [])
  if (steady) return undefined
  const {observedGeneration: _o, ...rest} = status
  return rs.metadata.generation ? {...rest, observedGeneration: rs.metadata.generation} : rest
}

/**
 * The status one sync of the ReplicaSet writes, observedGeneration included (calculateStatus, then
 * what updateReplicaSetStatus writes); equal to rs.status when there is nothing to write.
 */
export function replicaSetStatus(
  rs: ReplicaSet,
  ownedPods: Pod[],
  now: number,
  gates: FeatureGates,
  manageError?: ManageError,
  weight?: (pod: Pod) => number,
): ReplicaSetStatus {
  const computed = calculateStatus(rs, ownedPods, now, gates, manageError, weight)
  return statusToWrite(rs, computed) ?? rs.status ?? computed
}

/**
 * upstream: controller.GetPodFromTemplate — a pod for the ReplicaSet: the template's labels,
 * annotations, finalizers and spec, generateName `<rs>-`, and the controller reference. The name,
 * uid and timestamps are the API server's to give.
 */
export function podFromTemplate(rs: ReplicaSet): Pod {
  const rsName = rs.metadata.name ?? ''
  const template = rs.spec.template ?? {}
  const finalizers = template.metadata?.finalizers
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${rsName}-`,
      ...(rs.metadata.namespace !== undefined ? {namespace: rs.metadata.namespace} : {}),
      ...(template.metadata?.labels ? {labels: {...template.metadata.labels}} : {}),
      ...(template.metadata?.annotations ? {annotations: {...template.metadata.annotations}} : {}),
      ...(finalizers && finalizers.length > 0 ? {finalizers: [...finalizers]} : {}),
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: rsName,
          uid: rs.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: structuredClone(template.spec ?? {}),
  }
}

/** When a ready pod of this ReplicaSet becomes available (minReadySeconds after it became ready). */
export function nextAvailableAt(rs: ReplicaSet, ownedPods: Pod[], now: number): number | undefined {
  const minReady = rs.spec.minReadySeconds ?? 0
  if (minReady === 0) return undefined
  let next: number | undefined
  for (const pod of ownedPods) {
    if (!isPodActive(pod) || isPodAvailable(pod, minReady, now)) continue
    const since = podReadyTime(pod)
    if (since === undefined) continue
    // Available once strictly past the mark: the first millisecond after it.
    const at = since + minReady * 1000 + 1
    if (at > now && (next === undefined || at < next)) next = at
  }
  return next
}

/** upstream: getIndirectlyRelatedPods — the pods of every ReplicaSet with the same controller. */
export function relatedPodsOf(
  rs: ReplicaSet,
  replicaSets: readonly ReplicaSet[],
  pods: readonly Pod[],
): Pod[] {
  const owner = getControllerOf(rs.metadata)
  if (!owner) return podsOwnedBy(rs, pods)
  const siblings = replicaSets.filter((x) => getControllerOf(x.metadata)?.uid === owner.uid)
  return siblings.flatMap((x) => podsOwnedBy(x, pods))
}
