// upstream: pkg/controller/deployment/rolling.go — RollingUpdate: surge the new ReplicaSet up,
// drain the old ones within maxUnavailable.

import type {Deployment, ReplicaSet} from './api/types.js'
import {byCreationTimestamp, filterActiveReplicaSets, specReplicas} from './controller-utils.js'
import type {ControllerContext} from './interfaces.js'
import {syncRolloutStatus} from './progress.js'
import {cleanupDeployment, getAllReplicaSetsAndSyncRevision, scaleReplicaSet} from './sync.js'
import {
  deploymentComplete,
  deploymentReplicas,
  getAvailableReplicaCountForReplicaSets,
  getReplicaCountForReplicaSets,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
} from './util/deployment-util.js'
import {i32} from './util/go.js'

// upstream: rolloutRolling
export async function rolloutRolling(
  ctx: ControllerContext,
  d: Deployment,
  rsList: ReplicaSet[],
): Promise<void> {
  ctx.trace.enter('rolloutRolling')
  const {newRS, oldRSs} = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
  // With create=true a new ReplicaSet always comes back or the call throws.
  const rs = newRS as ReplicaSet
  const allRSs = [...oldRSs, rs]

  if (await reconcileNewReplicaSet(ctx, allRSs, rs, d)) {
    await syncRolloutStatus(ctx, allRSs, rs, d)
    return
  }
  if (await reconcileOldReplicaSets(ctx, allRSs, filterActiveReplicaSets(oldRSs), rs, d)) {
    await syncRolloutStatus(ctx, allRSs, rs, d)
    return
  }
  // Judged on the status the Deployment carried into this pass, not a fresh one.
  if (deploymentComplete(d, d.status ?? {})) await cleanupDeployment(ctx, oldRSs, d)
  await syncRolloutStatus(ctx, allRSs, rs, d)
}

// upstream: reconcileNewReplicaSet
export async function reconcileNewReplicaSet(
  ctx: ControllerContext,
  allRSs: ReplicaSet[],
  newRS: ReplicaSet,
  d: Deployment,
): Promise<boolean> {
  ctx.trace.enter('reconcileNewReplicaSet')
  const replicas = deploymentReplicas(d)
  const current = specReplicas(newRS)
  if (current === replicas) return false
  if (current > replicas) {
    ctx.trace.fact('newReplicaSetScaleDown', {from: current, to: replicas})
    return (await scaleReplicaSet(ctx, newRS, replicas, d, false)).scaled
  }
  const target = newRSNewReplicas(d, allRSs, newRS)
  ctx.trace.fact('scaleUp', {
    maxSurge: maxSurge(d),
    maxTotalPods: i32(replicas + maxSurge(d)),
    currentPods: getReplicaCountForReplicaSets(allRSs),
    from: current,
    to: target,
  })
  return (await scaleReplicaSet(ctx, newRS, target, d, false)).scaled
}

// upstream: reconcileOldReplicaSets — errors from the two scale-down steps are swallowed as upstream
// does; the next pass retries.
export async function reconcileOldReplicaSets(
  ctx: ControllerContext,
  allRSs: ReplicaSet[],
  oldRSs: ReplicaSet[],
  newRS: ReplicaSet,
  d: Deployment,
): Promise<boolean> {
  ctx.trace.enter('reconcileOldReplicaSets')
  const oldPodsCount = getReplicaCountForReplicaSets(oldRSs)
  if (oldPodsCount === 0) return false
  const allPodsCount = getReplicaCountForReplicaSets(allRSs)
  const mu = maxUnavailable(d)
  const minAvailable = i32(deploymentReplicas(d) - mu)
  const newRSUnavailablePodCount = i32(specReplicas(newRS) - (newRS.status?.availableReplicas ?? 0))
  const maxScaledDown = i32(allPodsCount - minAvailable - newRSUnavailablePodCount)
  ctx.trace.fact('scaleDown', {
    oldPodsCount,
    allPodsCount,
    maxUnavailable: mu,
    minAvailable,
    newRSUnavailablePodCount,
    maxScaledDown,
  })
  if (maxScaledDown <= 0) return false

  let cleaned: {oldRSs: ReplicaSet[]; total: number}
  try {
    cleaned = await cleanupUnhealthyReplicas(ctx, oldRSs, d, maxScaledDown)
  } catch (err) {
    ctx.trace.fact('swallowedError', String(err instanceof Error ? err.message : err))
    return false
  }
  let scaledDownCount: number
  try {
    scaledDownCount = await scaleDownOldReplicaSetsForRollingUpdate(
      ctx,
      [...cleaned.oldRSs, newRS],
      cleaned.oldRSs,
      d,
    )
  } catch (err) {
    ctx.trace.fact('swallowedError', String(err instanceof Error ? err.message : err))
    return false
  }
  return cleaned.total + scaledDownCount > 0
}

// upstream: cleanupUnhealthyReplicas — scales old ReplicaSets down by their unavailable pods first,
// because removing those cannot lower availability.
export async function cleanupUnhealthyReplicas(
  ctx: ControllerContext,
  oldRSs: ReplicaSet[],
  d: Deployment,
  maxCleanupCount: number,
): Promise<{oldRSs: ReplicaSet[]; total: number}> {
  ctx.trace.enter('cleanupUnhealthyReplicas')
  oldRSs.sort(byCreationTimestamp)
  let total = 0
  for (let i = 0; i < oldRSs.length; i++) {
    const target = oldRSs[i]!
    if (total >= maxCleanupCount) break
    const replicas = specReplicas(target)
    const available = target.status?.availableReplicas ?? 0
    if (replicas === 0) continue
    if (replicas === available) continue
    const count = Math.min(i32(maxCleanupCount - total), i32(replicas - available))
    const newCount = i32(replicas - count)
    if (newCount > replicas) {
      throw new Error(
        `when cleaning up unhealthy replicas, got invalid request to scale down ${target.metadata.namespace}/${target.metadata.name} ${replicas} -> ${newCount}`,
      )
    }
    const {rs} = await scaleReplicaSet(ctx, target, newCount, d, false)
    total = i32(total + count)
    oldRSs[i] = rs
  }
  return {oldRSs, total}
}

// upstream: scaleDownOldReplicaSetsForRollingUpdate — oldest first, down to minAvailable.
export async function scaleDownOldReplicaSetsForRollingUpdate(
  ctx: ControllerContext,
  allRSs: ReplicaSet[],
  oldRSs: ReplicaSet[],
  d: Deployment,
): Promise<number> {
  ctx.trace.enter('scaleDownOldReplicaSetsForRollingUpdate')
  const minAvailable = i32(deploymentReplicas(d) - maxUnavailable(d))
  const available = getAvailableReplicaCountForReplicaSets(allRSs)
  ctx.trace.fact('scaleDownBudget', {
    availablePods: available,
    minAvailable,
    budget: Math.max(0, available - minAvailable),
  })
  if (available <= minAvailable) return 0
  oldRSs.sort(byCreationTimestamp)
  let total = 0
  const target = i32(available - minAvailable)
  for (const rs of oldRSs) {
    if (total >= target) break
    const replicas = specReplicas(rs)
    if (replicas === 0) continue
    const count = Math.min(replicas, i32(target - total))
    const newCount = i32(replicas - count)
    if (newCount > replicas) {
      throw new Error(
        `when scaling down old RS, got invalid request to scale down ${rs.metadata.namespace}/${rs.metadata.name} ${replicas} -> ${newCount}`,
      )
    }
    await scaleReplicaSet(ctx, rs, newCount, d, false)
    total = i32(total + count)
  }
  return total
}
