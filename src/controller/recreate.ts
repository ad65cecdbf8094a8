// upstream: pkg/controller/deployment/recreate.go — Recreate: every old pod gone before the new
// ReplicaSet exists.

import {type Deployment, type Pod, PodFailed, PodSucceeded, type ReplicaSet} from './api/types.js'
import {filterActiveReplicaSets, specReplicas} from './controller-utils.js'
import type {ControllerContext} from './interfaces.js'
import {syncRolloutStatus} from './progress.js'
import {cleanupDeployment, getAllReplicaSetsAndSyncRevision, scaleReplicaSet} from './sync.js'
import {
  deploymentComplete,
  deploymentReplicas,
  getActualReplicaCountForReplicaSets,
} from './util/deployment-util.js'

export type PodMap = Map<string, Pod[]>

// upstream: rolloutRecreate
export async function rolloutRecreate(
  ctx: ControllerContext,
  d: Deployment,
  rsList: ReplicaSet[],
  podMap: PodMap,
): Promise<void> {
  ctx.trace.enter('rolloutRecreate')
  // No new ReplicaSet yet: nothing may scale up before the old pods are gone.
  let {newRS, oldRSs} = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
  let allRSs: Array<ReplicaSet | undefined> = [...oldRSs, newRS]
  const activeOldRSs = filterActiveReplicaSets(oldRSs)

  if (await scaleDownOldReplicaSetsForRecreate(ctx, activeOldRSs, d)) {
    await syncRolloutStatus(ctx, allRSs, newRS, d)
    return
  }
  if (oldPodsRunning(newRS, oldRSs, podMap)) {
    ctx.trace.fact('oldPodsRunning', true)
    await syncRolloutStatus(ctx, allRSs, newRS, d)
    return
  }
  if (!newRS) {
    ;({newRS, oldRSs} = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true))
    allRSs = [...oldRSs, newRS]
  }
  await scaleUpNewReplicaSetForRecreate(ctx, newRS as ReplicaSet, d)
  if (deploymentComplete(d, d.status ?? {})) await cleanupDeployment(ctx, oldRSs, d)
  await syncRolloutStatus(ctx, allRSs, newRS, d)
}

// upstream: scaleDownOldReplicaSetsForRecreate
export async function scaleDownOldReplicaSetsForRecreate(
  ctx: ControllerContext,
  oldRSs: ReplicaSet[],
  d: Deployment,
): Promise<boolean> {
  ctx.trace.enter('scaleDownOldReplicaSetsForRecreate')
  let scaled = false
  for (let i = 0; i < oldRSs.length; i++) {
    const rs = oldRSs[i]!
    if (specReplicas(rs) === 0) continue
    const result = await scaleReplicaSet(ctx, rs, 0, d, false)
    if (result.scaled) {
      oldRSs[i] = result.rs
      scaled = true
    }
  }
  return scaled
}

// upstream: oldPodsRunning — any old pod not in a terminal phase still counts, terminating or not.
export function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[], podMap: PodMap): boolean {
  if (getActualReplicaCountForReplicaSets(oldRSs) > 0) return true
  for (const [uid, pods] of podMap) {
    if (newRS && newRS.metadata.uid === uid) continue
    for (const pod of pods) {
      const phase = pod.status?.phase
      if (phase === PodFailed || phase === PodSucceeded) continue
      return true
    }
  }
  return false
}

// upstream: scaleUpNewReplicaSetForRecreate
async function scaleUpNewReplicaSetForRecreate(
  ctx: ControllerContext,
  newRS: ReplicaSet,
  d: Deployment,
): Promise<boolean> {
  ctx.trace.enter('scaleUpNewReplicaSetForRecreate')
  return (await scaleReplicaSet(ctx, newRS, deploymentReplicas(d), d, false)).scaled
}
