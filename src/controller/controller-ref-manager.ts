// upstream: pkg/controller/controller_ref_manager.go — claiming ReplicaSets for a Deployment:
// adopt matching orphans, release owned ones that no longer match.

import {errorMessage, isInvalid, isNotFound} from './api/errors.js'
import {AppsV1, type Deployment, DeploymentKind, type ReplicaSet} from './api/types.js'
import {getControllerOf} from './controller-utils.js'
import type {ControllerContext} from './interfaces.js'
import type {Selector} from './util/labels.js'
import {goTimeString} from './util/time.js'

/**
 * Several errors from one claim pass, reported together as utilerrors.NewAggregate does: each
 * distinct message once, in order, bracketed only when more than one distinct message is left.
 */
export class ClaimErrors extends Error {
  constructor(readonly errors: Error[]) {
    const distinct = [...new Set(errors.map((e) => e.message))]
    super(distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`)
    this.name = 'ClaimErrors'
  }
}

// upstream: ReplicaSetControllerRefManager
export class ReplicaSetControllerRefManager {
  private canAdoptResult: Promise<void> | undefined

  constructor(
    private readonly ctx: ControllerContext,
    private readonly controller: Deployment,
    private readonly selector: Selector,
    private readonly canAdoptFunc: () => Promise<void>,
  ) {}

  // upstream: CanAdopt — the check runs at most once per manager (sync.Once).
  private canAdopt(): Promise<void> {
    this.canAdoptResult ??= this.canAdoptFunc()
    return this.canAdoptResult
  }

  // upstream: ClaimReplicaSets
  async claimReplicaSets(sets: ReplicaSet[]): Promise<ReplicaSet[]> {
    const claimed: ReplicaSet[] = []
    const errors: Error[] = []
    for (const rs of sets) {
      const decision = this.decide(rs)
      if (decision === 'claimed') {
        claimed.push(rs)
        continue
      }
      if (decision === 'ignored') continue
      try {
        if (await this.act(decision, rs)) claimed.push(rs)
      } catch (err) {
        errors.push(err instanceof Error ? err : new Error(String(err)))
      }
    }
    if (errors.length > 0) throw new ClaimErrors(errors)
    return claimed
  }

  // upstream: BaseControllerRefManager.ClaimObject, split in two: deciding needs no I/O, so only
  // ReplicaSets that need a patch pay for an await (a namespace's every ReplicaSet is checked
  // for every Deployment).
  private decide(rs: ReplicaSet): 'claimed' | 'ignored' | 'adopt' | 'release' {
    const ref = getControllerOf(rs.metadata)
    const deleting = this.controller.metadata.deletionTimestamp != null
    if (ref) {
      if (ref.uid !== this.controller.metadata.uid) return 'ignored'
      // Already ours and still selected: claimed even while the Deployment is being deleted,
      // because keeping it takes no action.
      if (this.selector.matches(rs.metadata.labels)) return 'claimed'
      return deleting ? 'ignored' : 'release'
    }
    if (deleting || !this.selector.matches(rs.metadata.labels)) return 'ignored'
    if (rs.metadata.deletionTimestamp != null) return 'ignored'
    const ns = this.controller.metadata.namespace ?? ''
    if (ns.length > 0 && ns !== rs.metadata.namespace) return 'ignored'
    return 'adopt'
  }

  /** Adopts (claimed when it worked) or releases (never claimed); NotFound means it is gone. */
  private async act(decision: 'adopt' | 'release', rs: ReplicaSet): Promise<boolean> {
    try {
      if (decision === 'adopt') await this.adoptReplicaSet(rs)
      else await this.releaseReplicaSet(rs)
    } catch (err) {
      if (isNotFound(err)) return false
      throw err
    }
    return decision === 'adopt'
  }

  // upstream: AdoptReplicaSet
  private async adoptReplicaSet(rs: ReplicaSet): Promise<void> {
    try {
      await this.canAdopt()
    } catch (err) {
      throw new Error(
        `can't adopt ReplicaSet ${rs.metadata.namespace}/${rs.metadata.name} (${rs.metadata.uid ?? ''}): ${errorMessage(err)}`,
      )
    }
    this.ctx.trace.fact('adopt', rs.metadata.name ?? '')
    await this.ctx.client.patchReplicaSet(
      rs.metadata.namespace ?? '',
      rs.metadata.name ?? '',
      'strategic-merge',
      ownerRefControllerPatch(this.controller, rs.metadata.uid ?? ''),
    )
  }

  // upstream: ReleaseReplicaSet — NotFound and Invalid mean it is already gone or not ours.
  private async releaseReplicaSet(rs: ReplicaSet): Promise<void> {
    this.ctx.trace.fact('release', rs.metadata.name ?? '')
    try {
      await this.ctx.client.patchReplicaSet(
        rs.metadata.namespace ?? '',
        rs.metadata.name ?? '',
        'strategic-merge',
        deleteOwnerRefPatch(rs.metadata.uid ?? '', this.controller.metadata.uid ?? ''),
      )
    } catch (err) {
      if (isNotFound(err) || isInvalid(err)) return
      throw err
    }
  }
}

// upstream: ownerRefControllerPatch — the dependent's uid in the patch acts as a precondition.
export function ownerRefControllerPatch(controller: Deployment, dependentUID: string): unknown {
  return {
    metadata: {
      ownerReferences: [
        {
          apiVersion: AppsV1,
          kind: DeploymentKind,
          name: controller.metadata.name ?? '',
          uid: controller.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      uid: dependentUID,
    },
  }
}

// upstream: GenerateDeleteOwnerRefStrategicMergeBytes
export function deleteOwnerRefPatch(dependentUID: string, ownerUID: string): unknown {
  return {metadata: {uid: dependentUID, ownerReferences: [{$patch: 'delete', uid: ownerUID}]}}
}

// upstream: RecheckDeletionTimestamp
export function recheckDeletionTimestamp(
  getObject: () => Promise<{metadata: {namespace?: string; name?: string; deletionTimestamp?: string}}>,
): () => Promise<void> {
  return async () => {
    let obj: {metadata: {namespace?: string; name?: string; deletionTimestamp?: string}}
    try {
      obj = await getObject()
    } catch (err) {
      throw new Error(`can't recheck DeletionTimestamp: ${errorMessage(err)}`)
    }
    if (obj.metadata.deletionTimestamp != null) {
      throw new Error(
        `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''} has just been deleted at ${goTimeString(obj.metadata.deletionTimestamp)}`,
      )
    }
  }
}
