// upstream: pkg/controller/deployment/deployment_controller.go — the sync handler and the lists
// it hands to every path: the ReplicaSets it owns and their pods.

import type {Deployment, Pod, ReplicaSet} from './api/types.js'
import {RecreateStrategyType, ReplicaSetKind, RollingUpdateStrategyType} from './api/types.js'
import {ReplicaSetControllerRefManager, recheckDeletionTimestamp} from './controller-ref-manager.js'
import {filterPodsByOwner} from './controller-utils.js'
import type {ControllerContext} from './interfaces.js'
import {checkPausedConditions} from './paused.js'
import {type PodMap, rolloutRecreate} from './recreate.js'
import {getRollbackTo, rollback} from './rollback.js'
import {rolloutRolling} from './rolling.js'
import {isScalingEvent, sync, syncStatusOnly} from './sync.js'
import {deepCopy} from './util/equality.js'
import {isSelectEverythingLiteral, labelSelectorAsSelector, SelectorError} from './util/labels.js'

/**
 * One pass of the controller for the Deployment namespace/name. Resolves when the pass succeeds;
 * rejects with the error upstream's syncDeployment would return (the caller rate-limits the key).
 */
// upstream: syncDeployment
export async function syncDeployment(ctx: ControllerContext, namespace: string, name: string): Promise<void> {
  ctx.trace.enter('syncDeployment')
  const cached = ctx.listers.getDeployment(namespace, name)
  if (!cached) {
    ctx.trace.fact('deploymentNotFound', `${namespace}/${name}`)
    return
  }
  // The cache's object is shared: every change in this pass goes to a copy.
  const d = deepCopy(cached)

  if (isSelectEverythingLiteral(d.spec.selector)) {
    ctx.recorder.event(
      d,
      'Warning',
      'SelectingAll',
      'This deployment is selecting all pods. A non-empty selector is required.',
    )
    const status = (d.status ??= {})
    if ((status.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) {
      status.observedGeneration = d.metadata.generation
      try {
        await ctx.client.updateDeploymentStatus(d)
      } catch {
        // upstream ignores this error.
      }
    }
    return
  }

  const rsList = await getReplicaSetsForDeployment(ctx, d)
  const podMap = getPodMapForDeployment(ctx, d, rsList)

  if (d.metadata.deletionTimestamp != null) {
    ctx.trace.fact('branch', 'deleting')
    await syncStatusOnly(ctx, d, rsList)
    return
  }

  await checkPausedConditions(ctx, d)

  if (d.spec.paused) {
    ctx.trace.fact('branch', 'paused')
    await sync(ctx, d, rsList)
    return
  }

  // Rollback is not re-entrant: it must finish (and clear its annotation) before anything scales.
  if (getRollbackTo(d) !== undefined) {
    ctx.trace.fact('branch', 'rollback')
    await rollback(ctx, d, rsList)
    return
  }

  if (await isScalingEvent(ctx, d, rsList)) {
    ctx.trace.fact('branch', 'scalingEvent')
    await sync(ctx, d, rsList)
    return
  }

  switch (d.spec.strategy?.type) {
    case RecreateStrategyType:
      ctx.trace.fact('branch', 'recreate')
      await rolloutRecreate(ctx, d, rsList, podMap)
      return
    case RollingUpdateStrategyType:
      ctx.trace.fact('branch', 'rollingUpdate')
      await rolloutRolling(ctx, d, rsList)
      return
  }
  throw new Error(`unexpected deployment strategy type: ${d.spec.strategy?.type ?? ''}`)
}

// upstream: getReplicaSetsForDeployment — every ReplicaSet of the namespace that the claim can
// touch (owned ones, so that those that stopped matching can be released, and orphans to adopt);
// where the listers index them, only those (Listers.claimableReplicaSets), else the namespace.
export async function getReplicaSetsForDeployment(
  ctx: ControllerContext,
  d: Deployment,
): Promise<ReplicaSet[]> {
  ctx.trace.enter('getReplicaSetsForDeployment')
  const ns = d.metadata.namespace ?? ''
  const rsList =
    ctx.listers.claimableReplicaSets?.(ns, d.metadata.uid ?? '', d.spec.selector) ??
    ctx.listers.listReplicaSets(ns)
  let selector: ReturnType<typeof labelSelectorAsSelector>
  try {
    selector = labelSelectorAsSelector(d.spec.selector)
  } catch (err) {
    if (err instanceof SelectorError) {
      throw new Error(`deployment ${ns}/${d.metadata.name} has invalid label selector: ${err.message}`)
    }
    throw err
  }
  // Adoption re-reads the Deployment uncached first, at most once per pass (see upstream #42639).
  const canAdopt = recheckDeletionTimestamp(async () => {
    const fresh = await ctx.client.getDeployment(ns, d.metadata.name ?? '')
    if (fresh.metadata.uid !== d.metadata.uid) {
      throw new Error(
        `original Deployment ${ns}/${d.metadata.name} is gone: got uid ${fresh.metadata.uid ?? ''}, wanted ${d.metadata.uid ?? ''}`,
      )
    }
    return fresh
  })
  const manager = new ReplicaSetControllerRefManager(ctx, d, selector, canAdopt)
  const claimed = await manager.claimReplicaSets(rsList)
  ctx.trace.fact(
    'ownedReplicaSets',
    claimed.map((rs) => rs.metadata.name ?? ''),
  )
  return claimed
}

// upstream: getPodMapForDeployment — pods by the UID of the owned ReplicaSet that controls them,
// in any phase (Recreate must see pods that are still shutting down).
export function getPodMapForDeployment(ctx: ControllerContext, d: Deployment, rsList: ReplicaSet[]): PodMap {
  void d
  const podMap: PodMap = new Map()
  for (const rs of rsList) {
    const uid = rs.metadata.uid ?? ''
    const pods: Pod[] = filterPodsByOwner(ctx.listers.podsByControllerUID(uid), rs, ReplicaSetKind)
    podMap.set(uid, pods)
  }
  return podMap
}
