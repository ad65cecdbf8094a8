// upstream: pkg/controller/deployment/sync.go — scaling, revisions, new ReplicaSet creation,
// cleanup and status for every path through syncDeployment.

import {hasStatusCause, isAlreadyExists, isNotFound, NamespaceTerminatingCause} from './api/errors.js'
import {
  AppsV1,
  ConditionFalse,
  ConditionTrue,
  DefaultDeploymentUniqueLabelKey,
  type Deployment,
  DeploymentAvailable,
  DeploymentKind,
  DeploymentProgressing,
  type DeploymentStatus,
  type ReplicaSet,
} from './api/types.js'
import {
  bySizeNewer,
  bySizeOlder,
  computeHash,
  filterActiveReplicaSets,
  getControllerOf,
  specReplicas,
} from './controller-utils.js'
import type {ControllerContext} from './interfaces.js'
import {getRollbackTo} from './rollback.js'
import {
  byRevision,
  deploymentReplicas,
  equalIgnoreHash,
  FailedRSCreateReason,
  FoundNewRSReason,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  getActualReplicaCountForReplicaSets,
  getAvailableReplicaCountForReplicaSets,
  getDeploymentCondition,
  getDesiredReplicasAnnotation,
  getReadyReplicaCountForReplicaSets,
  getReplicaCountForReplicaSets,
  getReplicaSetProportion,
  getTerminatingReplicaCountForReplicaSets,
  hasProgressDeadline,
  hasRevisionHistoryLimit,
  isRollingUpdate,
  isSaturated,
  MaxRevHistoryLengthInChars,
  MinimumReplicasAvailable,
  MinimumReplicasUnavailable,
  maxRevision,
  maxSurge,
  maxUnavailable,
  NewReplicaSetReason,
  newDeploymentCondition,
  newRSNewReplicas,
  RevisionAnnotation,
  replicasAnnotationsNeedUpdate,
  setDeploymentCondition,
  setDeploymentRevision,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
} from './util/deployment-util.js'
import {deepCopy, deploymentStatusEqual} from './util/equality.js'
import {i32} from './util/go.js'
import {cloneAndAddLabel, cloneSelectorAndAddLabel} from './util/labels.js'
import {type KubeMinor, NEWEST_MINOR} from './version.js'

// upstream: syncStatusOnly
export async function syncStatusOnly(
  ctx: ControllerContext,
  d: Deployment,
  rsList: ReplicaSet[],
): Promise<void> {
  ctx.trace.enter('syncStatusOnly')
  const {newRS, oldRSs} = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
  await syncDeploymentStatus(ctx, [...oldRSs, newRS], newRS, d)
}

// upstream: sync — scaling events and paused Deployments: scale, never roll.
export async function sync(ctx: ControllerContext, d: Deployment, rsList: ReplicaSet[]): Promise<void> {
  ctx.trace.enter('sync')
  const {newRS, oldRSs} = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
  await scale(ctx, d, newRS, oldRSs)
  if (d.spec.paused && getRollbackTo(d) === undefined) await cleanupDeployment(ctx, oldRSs, d)
  await syncDeploymentStatus(ctx, [...oldRSs, newRS], newRS, d)
}

// upstream: isScalingEvent — may write (it syncs the revision on the way).
export async function isScalingEvent(
  ctx: ControllerContext,
  d: Deployment,
  rsList: ReplicaSet[],
): Promise<boolean> {
  ctx.trace.enter('isScalingEvent')
  const {newRS, oldRSs} = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
  for (const rs of filterActiveReplicaSets([...oldRSs, newRS])) {
    const desired = getDesiredReplicasAnnotation(rs)
    if (desired === undefined) continue
    if (desired !== deploymentReplicas(d)) {
      ctx.trace.fact('scalingEvent', {
        replicaSet: rs.metadata.name ?? '',
        desiredReplicasAnnotation: desired,
        replicas: deploymentReplicas(d),
      })
      return true
    }
  }
  return false
}

export interface ReplicaSetsOfDeployment {
  newRS: ReplicaSet | undefined
  oldRSs: ReplicaSet[]
}

// upstream: getAllReplicaSetsAndSyncRevision
export async function getAllReplicaSetsAndSyncRevision(
  ctx: ControllerContext,
  d: Deployment,
  rsList: ReplicaSet[],
  createIfNotExisted: boolean,
): Promise<ReplicaSetsOfDeployment> {
  ctx.trace.enter('getAllReplicaSetsAndSyncRevision')
  const [, allOldRSs] = findOldReplicaSets(d, rsList)
  const newRS = await getNewReplicaSet(ctx, d, rsList, allOldRSs, createIfNotExisted)
  return {newRS, oldRSs: allOldRSs}
}

/** upstream: the new ReplicaSet's name; long Deployment names are cut so the name stays valid. */
export function generateReplicaSetName(
  deploymentName: string,
  hash: string,
  minor: KubeMinor = NEWEST_MINOR,
): string {
  // Before 1.34 (PR #132560) the name is never cut: too long a one makes the create fail.
  if (minor < 34) return `${deploymentName}-${hash}`
  const maxLen = 253 - 1 - hash.length
  if (deploymentName.length > maxLen && maxLen > 0) return `${deploymentName.slice(0, maxLen)}-${hash}`
  return `${deploymentName}-${hash}`
}

// upstream: getNewReplicaSet
async function getNewReplicaSet(
  ctx: ControllerContext,
  d: Deployment,
  rsList: ReplicaSet[],
  oldRSs: ReplicaSet[],
  createIfNotExisted: boolean,
): Promise<ReplicaSet | undefined> {
  ctx.trace.enter('getNewReplicaSet')
  const existingNewRS = findNewReplicaSet(d, rsList)
  // int64 arithmetic: one past the largest revision wraps, as Go's does.
  const newRevision = BigInt.asIntN(64, maxRevision(oldRSs) + 1n).toString()
  const now = ctx.clock.now()

  if (existingNewRS) {
    const rsCopy = deepCopy(existingNewRS)
    const annotationsUpdated = setNewReplicaSetAnnotations(
      d,
      rsCopy,
      newRevision,
      true,
      MaxRevHistoryLengthInChars,
    )
    const minReadySecondsNeedsUpdate = (rsCopy.spec.minReadySeconds ?? 0) !== (d.spec.minReadySeconds ?? 0)
    if (annotationsUpdated || minReadySecondsNeedsUpdate) {
      setMinReadySeconds(rsCopy, d.spec.minReadySeconds ?? 0)
      ctx.trace.fact('newReplicaSetAnnotationsSynced', rsCopy.metadata.name ?? '')
      return ctx.client.updateReplicaSet(rsCopy)
    }
    // The Deployment takes the revision the new ReplicaSet already carries.
    let needsUpdate = setDeploymentRevision(d, rsCopy.metadata.annotations?.[RevisionAnnotation] ?? '')
    if (hasProgressDeadline(d) && getDeploymentCondition(d.status, DeploymentProgressing) === undefined) {
      const msg = `Found new replica set "${rsCopy.metadata.name}"`
      setDeploymentCondition(
        statusOf(d),
        newDeploymentCondition(DeploymentProgressing, ConditionTrue, FoundNewRSReason, msg, now),
      )
      needsUpdate = true
    }
    if (needsUpdate) await ctx.client.updateDeploymentStatus(d)
    return rsCopy
  }

  if (!createIfNotExisted) return undefined

  const template = deepCopy(d.spec.template)
  const hash = computeHash(template, d.status?.collisionCount, ctx.features.kubeVersion)
  template.metadata = {...(template.metadata ?? {})}
  template.metadata.labels = cloneAndAddLabel(
    d.spec.template.metadata?.labels,
    DefaultDeploymentUniqueLabelKey,
    hash,
  )
  const selector = cloneSelectorAndAddLabel(d.spec.selector, DefaultDeploymentUniqueLabelKey, hash)
  const name = generateReplicaSetName(d.metadata.name ?? '', hash, ctx.features.kubeVersion)
  const newRS: ReplicaSet = {
    apiVersion: AppsV1,
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: d.metadata.namespace,
      labels: template.metadata.labels,
      ownerReferences: [
        {
          apiVersion: AppsV1,
          kind: DeploymentKind,
          name: d.metadata.name ?? '',
          uid: d.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {replicas: 0, selector, template},
  }
  setMinReadySeconds(newRS, d.spec.minReadySeconds ?? 0)
  const newReplicasCount = newRSNewReplicas(d, [...oldRSs, newRS], newRS)
  newRS.spec.replicas = newReplicasCount
  setNewReplicaSetAnnotations(d, newRS, newRevision, false, MaxRevHistoryLengthInChars)
  ctx.trace.fact('newReplicaSet', {name, hash, replicas: newReplicasCount, revision: newRevision})

  let alreadyExists = false
  let createdRS: ReplicaSet
  try {
    createdRS = await ctx.client.createReplicaSet(newRS)
  } catch (err) {
    if (isAlreadyExists(err)) {
      alreadyExists = true
      const rs = ctx.listers.getReplicaSet(newRS.metadata.namespace ?? '', name)
      if (!rs) throw new Error(`replicaset.apps "${name}" not found`)
      const ref = getControllerOf(rs.metadata)
      if (ref && ref.uid === d.metadata.uid && equalIgnoreHash(d.spec.template, rs.spec.template)) {
        createdRS = rs
      } else {
        // A hash collision: bump collisionCount so the next pass hashes to another name.
        const status = statusOf(d)
        status.collisionCount = (status.collisionCount ?? 0) + 1
        ctx.trace.fact('hashCollision', {name, collisionCount: status.collisionCount})
        try {
          await ctx.client.updateDeploymentStatus(d)
        } catch {
          // upstream only logs on success; the AlreadyExists error below is what requeues.
        }
        throw err
      }
    } else if (hasStatusCause(err, NamespaceTerminatingCause)) {
      throw err
    } else {
      const msg = `Failed to create new replica set "${name}": ${err instanceof Error ? err.message : String(err)}`
      if (hasProgressDeadline(d)) {
        setDeploymentCondition(
          statusOf(d),
          newDeploymentCondition(DeploymentProgressing, ConditionFalse, FailedRSCreateReason, msg, now),
        )
        try {
          await ctx.client.updateDeploymentStatus(d)
        } catch {
          // The create error is the one worth reporting.
        }
      }
      ctx.recorder.event(d, 'Warning', FailedRSCreateReason, msg)
      throw err
    }
  }
  if (!alreadyExists && newReplicasCount > 0) {
    ctx.recorder.event(
      d,
      'Normal',
      'ScalingReplicaSet',
      `Scaled up replica set ${createdRS.metadata.name} from 0 to ${newReplicasCount}`,
    )
  }
  let needsUpdate = setDeploymentRevision(d, newRevision)
  if (!alreadyExists && hasProgressDeadline(d)) {
    const msg = `Created new replica set "${createdRS.metadata.name}"`
    setDeploymentCondition(
      statusOf(d),
      newDeploymentCondition(DeploymentProgressing, ConditionTrue, NewReplicaSetReason, msg, now),
    )
    needsUpdate = true
  }
  if (needsUpdate) await ctx.client.updateDeploymentStatus(d)
  return createdRS
}

/** minReadySeconds is omitempty in Go: zero is written as absent. */
function setMinReadySeconds(rs: ReplicaSet, v: number): void {
  if (v === 0) delete rs.spec.minReadySeconds
  else rs.spec.minReadySeconds = v
}

export function statusOf(d: Deployment): DeploymentStatus {
  d.status ??= {}
  return d.status
}

// upstream: scale
export async function scale(
  ctx: ControllerContext,
  d: Deployment,
  newRS: ReplicaSet | undefined,
  oldRSs: ReplicaSet[],
): Promise<void> {
  ctx.trace.enter('scale')
  const replicas = deploymentReplicas(d)
  const activeOrLatest = findActiveOrLatest(newRS, oldRSs)
  if (activeOrLatest) {
    ctx.trace.fact('activeOrLatest', activeOrLatest.metadata.name ?? '')
    if (specReplicas(activeOrLatest) === replicas) return
    await scaleReplicaSet(ctx, activeOrLatest, replicas, d, false)
    return
  }
  if (isSaturated(d, newRS)) {
    ctx.trace.fact('saturated', newRS?.metadata.name ?? '')
    for (const old of filterActiveReplicaSets(oldRSs)) await scaleReplicaSet(ctx, old, 0, d, false)
    return
  }
  if (!isRollingUpdate(d)) return

  const allRSs = filterActiveReplicaSets([...oldRSs, newRS])
  const allRSsReplicas = getReplicaCountForReplicaSets(allRSs)
  const allowedSize = replicas > 0 ? i32(replicas + maxSurge(d)) : 0
  const toAdd = i32(allowedSize - allRSsReplicas)
  if (toAdd > 0) allRSs.sort(bySizeNewer)
  else if (toAdd < 0) allRSs.sort(bySizeOlder)

  let added = 0
  const nameToSize = new Map<string, number>()
  const shares: Array<{replicaSet: string; from: number; proportion: number}> = []
  for (const rs of allRSs) {
    if (toAdd !== 0) {
      const proportion = getReplicaSetProportion(rs, d, toAdd, added)
      nameToSize.set(rs.metadata.name ?? '', i32(specReplicas(rs) + proportion))
      added = i32(added + proportion)
      shares.push({replicaSet: rs.metadata.name ?? '', from: specReplicas(rs), proportion})
    } else {
      nameToSize.set(rs.metadata.name ?? '', specReplicas(rs))
    }
  }
  ctx.trace.fact('proportionalScaling', {
    allowedSize,
    current: allRSsReplicas,
    toAdd,
    leftover: toAdd - added,
    shares,
  })
  for (let i = 0; i < allRSs.length; i++) {
    const rs = allRSs[i]!
    const name = rs.metadata.name ?? ''
    if (i === 0 && toAdd !== 0) {
      // Whatever rounding left over goes to the largest ReplicaSet.
      const size = i32((nameToSize.get(name) ?? 0) + toAdd - added)
      nameToSize.set(name, Math.max(size, 0))
    }
    await scaleReplicaSet(ctx, rs, nameToSize.get(name) ?? 0, d, true)
  }
}

export interface ScaleResult {
  scaled: boolean
  rs: ReplicaSet
}

// upstream: scaleReplicaSet — lazy unless forceUpdate, which also refreshes stale annotations.
export async function scaleReplicaSet(
  ctx: ControllerContext,
  rs: ReplicaSet,
  newScale: number,
  d: Deployment,
  forceUpdate: boolean,
): Promise<ScaleResult> {
  const oldScale = specReplicas(rs)
  if (!forceUpdate && oldScale === newScale) return {scaled: false, rs}
  const replicas = deploymentReplicas(d)
  const maxReplicas = i32(replicas + maxSurge(d))
  const sizeNeedsUpdate = oldScale !== newScale
  const annotationsNeedUpdate = replicasAnnotationsNeedUpdate(rs, replicas, maxReplicas)
  if (!sizeNeedsUpdate && !annotationsNeedUpdate) return {scaled: false, rs}
  const rsCopy = deepCopy(rs)
  rsCopy.spec.replicas = newScale
  setReplicasAnnotations(rsCopy, replicas, maxReplicas)
  const updated = await ctx.client.updateReplicaSet(rsCopy)
  if (sizeNeedsUpdate) {
    const direction = oldScale < newScale ? 'up' : 'down'
    ctx.recorder.event(
      d,
      'Normal',
      'ScalingReplicaSet',
      `Scaled ${direction} replica set ${updated.metadata.name} from ${oldScale} to ${newScale}`,
    )
  }
  return {scaled: sizeNeedsUpdate, rs: updated}
}

// upstream: cleanupDeployment — deletes the oldest old ReplicaSets beyond revisionHistoryLimit.
export async function cleanupDeployment(
  ctx: ControllerContext,
  oldRSs: ReplicaSet[],
  d: Deployment,
): Promise<void> {
  ctx.trace.enter('cleanupDeployment')
  if (!hasRevisionHistoryLimit(d)) return
  const cleanable = oldRSs.filter((rs) => rs != null && rs.metadata.deletionTimestamp == null)
  const limit = d.spec.revisionHistoryLimit ?? 0
  const diff = cleanable.length - limit
  ctx.trace.fact('cleanup', {
    oldReplicaSets: cleanable.length,
    revisionHistoryLimit: limit,
    excess: Math.max(diff, 0),
  })
  if (diff <= 0) return
  cleanable.sort(byRevision)
  for (let i = 0; i < diff; i++) {
    const rs = cleanable[i]!
    const blocked =
      (rs.status?.replicas ?? 0) !== 0 ||
      specReplicas(rs) !== 0 ||
      (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0) ||
      rs.metadata.deletionTimestamp != null
    if (blocked) {
      ctx.trace.fact('cleanupSkipped', rs.metadata.name ?? '')
      continue
    }
    try {
      await ctx.client.deleteReplicaSet(rs)
    } catch (err) {
      if (!isNotFound(err)) throw err
    }
  }
}

// upstream: syncDeploymentStatus
export async function syncDeploymentStatus(
  ctx: ControllerContext,
  allRSs: Array<ReplicaSet | undefined>,
  newRS: ReplicaSet | undefined,
  d: Deployment,
): Promise<void> {
  ctx.trace.enter('syncDeploymentStatus')
  const newStatus = calculateStatus(ctx, allRSs, newRS, d)
  if (deploymentStatusEqual(d.status, newStatus)) return
  d.status = newStatus
  await ctx.client.updateDeploymentStatus(d)
}

// upstream: calculateStatus
export function calculateStatus(
  ctx: ControllerContext,
  allRSs: Array<ReplicaSet | undefined>,
  newRS: ReplicaSet | undefined,
  d: Deployment,
): DeploymentStatus {
  const availableReplicas = getAvailableReplicaCountForReplicaSets(allRSs)
  const totalReplicas = getReplicaCountForReplicaSets(allRSs)
  let unavailableReplicas = i32(totalReplicas - availableReplicas)
  if (unavailableReplicas < 0) unavailableReplicas = 0

  // Built field by field as the Go struct is, leaving out zero values as omitempty does.
  const status: DeploymentStatus = {}
  const put = (key: keyof DeploymentStatus & string, v: number) => {
    if (v !== 0) (status as Record<string, unknown>)[key] = v
  }
  put('observedGeneration', d.metadata.generation ?? 0)
  put('replicas', getActualReplicaCountForReplicaSets(allRSs))
  put('updatedReplicas', getActualReplicaCountForReplicaSets([newRS]))
  put('readyReplicas', getReadyReplicaCountForReplicaSets(allRSs))
  put('availableReplicas', availableReplicas)
  put('unavailableReplicas', unavailableReplicas)
  if (ctx.features.enabled('DeploymentReplicaSetTerminatingReplicas')) {
    const terminating = getTerminatingReplicaCountForReplicaSets(allRSs)
    if (terminating !== undefined) status.terminatingReplicas = terminating
  }
  if (d.status?.conditions != null && d.status.conditions.length > 0) {
    status.conditions = d.status.conditions.map((c) => ({...c}))
  }
  if (d.status?.collisionCount != null) status.collisionCount = d.status.collisionCount

  const replicas = deploymentReplicas(d)
  const mu = maxUnavailable(d)
  ctx.trace.fact('availability', {
    availableReplicas,
    replicas,
    maxUnavailable: mu,
    minAvailable: replicas - mu,
  })
  const now = ctx.clock.now()
  if (availableReplicas >= i32(replicas - mu)) {
    setDeploymentCondition(
      status,
      newDeploymentCondition(
        DeploymentAvailable,
        ConditionTrue,
        MinimumReplicasAvailable,
        'Deployment has minimum availability.',
        now,
      ),
    )
  } else {
    setDeploymentCondition(
      status,
      newDeploymentCondition(
        DeploymentAvailable,
        ConditionFalse,
        MinimumReplicasUnavailable,
        'Deployment does not have minimum availability.',
        now,
      ),
    )
  }
  return status
}
