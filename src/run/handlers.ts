// upstream: pkg/controller/deployment/deployment_controller.go — the informer event handlers. They
// decide which Deployments a change concerns and enqueue them; the sync itself decides what to do.

import {deepEqual} from '../cluster/json.js'
import {isTombstone, type Tombstone} from '../cluster/live/cache/informer.js'
import type {Deployment, OwnerReference, Pod, ReplicaSet} from '../controller/api/types.js'
import {DeploymentKind, RecreateStrategyType, ReplicaSetKind} from '../controller/api/types.js'
import {filterPodsByOwner, getControllerOf} from '../controller/controller-utils.js'
import {labelSelectorAsSelector} from '../controller/util/labels.js'

export interface HandlerDeps {
  getDeployment(namespace: string, name: string): Deployment | undefined
  listDeployments(namespace: string): Deployment[]
  getReplicaSet(namespace: string, name: string): ReplicaSet | undefined
  podsByControllerUID(uid: string): Pod[]
  /**
   * upstream: util.RsListFromClient — an uncached list of the namespace's ReplicaSets matching the
   * label selector (the pod delete handler reads through the API client, not the cache).
   */
  listReplicaSetsFromAPI(namespace: string, labelSelector: string): Promise<ReplicaSet[]>
  /** Queues the Deployment; `cause` says which event called for it (logs and tests read it). */
  enqueue(d: Deployment, cause: string): void
  /** V(4)-style lines about the decisions. */
  debug?(line: string): void
}

const nsOf = (o: {metadata: {namespace?: string}}) => o.metadata.namespace ?? ''
const nameOf = (o: {metadata: {namespace?: string; name?: string}}) => `${nsOf(o)}/${o.metadata.name ?? ''}`

export class DeploymentEventHandlers {
  constructor(private readonly deps: HandlerDeps) {}

  // upstream: addDeployment
  addDeployment(d: Deployment): void {
    this.deps.debug?.(`adding deployment ${nameOf(d)}`)
    this.deps.enqueue(d, 'deployment added')
  }

  // upstream: updateDeployment — the new object, always (no resourceVersion check for Deployments).
  updateDeployment(_old: Deployment, cur: Deployment): void {
    this.deps.debug?.(`updating deployment ${nameOf(cur)}`)
    this.deps.enqueue(cur, 'deployment updated')
  }

  // upstream: deleteDeployment — tombstones carry the last known state.
  deleteDeployment(obj: Deployment | Tombstone<Deployment>): void {
    const d = isTombstone(obj) ? obj.obj : obj
    this.deps.debug?.(`deleting deployment ${nameOf(d)}`)
    this.deps.enqueue(d, 'deployment deleted')
  }

  // upstream: addReplicaSet
  addReplicaSet(rs: ReplicaSet): void {
    if (rs.metadata.deletionTimestamp != null) {
      // On a restart of the controller manager a new ReplicaSet may already be pending deletion.
      this.deleteReplicaSet(rs)
      return
    }
    const ref = getControllerOf(rs.metadata)
    if (ref) {
      const d = this.resolveControllerRef(nsOf(rs), ref)
      if (!d) return
      this.deps.debug?.(`replicaset ${nameOf(rs)} added`)
      this.deps.enqueue(d, `replicaset ${nameOf(rs)} added`)
      return
    }
    // An orphan: every matching Deployment gets a chance to adopt it.
    const ds = this.getDeploymentsForReplicaSet(rs)
    if (ds.length === 0) return
    this.deps.debug?.(`orphan replicaset ${nameOf(rs)} added`)
    for (const d of ds) this.deps.enqueue(d, `orphan replicaset ${nameOf(rs)} added`)
  }

  // upstream: updateReplicaSet
  updateReplicaSet(old: ReplicaSet, cur: ReplicaSet): void {
    // Periodic resyncs send updates for every ReplicaSet; two versions of one are always different.
    if (cur.metadata.resourceVersion === old.metadata.resourceVersion) return
    const curRef = getControllerOf(cur.metadata)
    const oldRef = getControllerOf(old.metadata)
    const refChanged = !deepEqual(curRef, oldRef)
    if (refChanged && oldRef) {
      // The old controller should hear that it lost this ReplicaSet.
      const d = this.resolveControllerRef(nsOf(old), oldRef)
      if (d) this.deps.enqueue(d, `replicaset ${nameOf(cur)} released`)
    }
    if (curRef) {
      const d = this.resolveControllerRef(nsOf(cur), curRef)
      if (!d) return
      this.deps.debug?.(`replicaset ${nameOf(cur)} updated`)
      this.deps.enqueue(d, `replicaset ${nameOf(cur)} updated`)
      return
    }
    // An orphan: if its labels or its controller changed, matching Deployments may adopt it.
    const labelChanged = !deepEqual(cur.metadata.labels, old.metadata.labels)
    if (labelChanged || refChanged) {
      const ds = this.getDeploymentsForReplicaSet(cur)
      if (ds.length === 0) return
      this.deps.debug?.(`orphan replicaset ${nameOf(cur)} updated`)
      for (const d of ds) this.deps.enqueue(d, `orphan replicaset ${nameOf(cur)} updated`)
    }
  }

  // upstream: deleteReplicaSet — only owned ones matter: orphans are not waited for.
  deleteReplicaSet(obj: ReplicaSet | Tombstone<ReplicaSet>): void {
    const rs = isTombstone(obj) ? obj.obj : obj
    const ref = getControllerOf(rs.metadata)
    if (!ref) return
    const d = this.resolveControllerRef(nsOf(rs), ref)
    if (!d) return
    this.deps.debug?.(`replicaset ${nameOf(rs)} deleted`)
    this.deps.enqueue(d, `replicaset ${nameOf(rs)} deleted`)
  }

  /**
   * upstream: deletePod — a Recreate Deployment waits for its old pods to go; the deletion of the
   * last one wakes it. Returns whether the Deployment was enqueued (for tests).
   */
  async deletePod(obj: Pod | Tombstone<Pod>): Promise<boolean> {
    const pod = isTombstone(obj) ? obj.obj : obj
    const d = this.getDeploymentForPod(pod)
    if (!d) return false
    this.deps.debug?.(`pod ${nameOf(pod)} deleted`)
    if (d.spec.strategy?.type !== RecreateStrategyType) return false
    let rsList: ReplicaSet[]
    let numPods = 0
    try {
      rsList = await this.listOwnedReplicaSets(d)
      for (const rs of rsList) {
        numPods += filterPodsByOwner(
          this.deps.podsByControllerUID(rs.metadata.uid ?? ''),
          rs,
          ReplicaSetKind,
        ).length
      }
    } catch {
      return false
    }
    if (numPods !== 0) return false
    this.deps.debug?.(`recreate deployment ${nameOf(d)} has no pods left`)
    this.deps.enqueue(d, `pod ${nameOf(pod)} deleted, no pods left`)
    return true
  }

  // upstream: getDeploymentForPod — pod → its ReplicaSet (kind and UID checked) → that one's Deployment.
  getDeploymentForPod(pod: Pod): Deployment | undefined {
    const ref = getControllerOf(pod.metadata)
    if (!ref) return undefined
    if (ref.kind !== ReplicaSetKind) return undefined
    const rs = this.deps.getReplicaSet(nsOf(pod), ref.name)
    if (!rs || rs.metadata.uid !== ref.uid) return undefined
    const rsRef = getControllerOf(rs.metadata)
    if (!rsRef) return undefined
    return this.resolveControllerRef(nsOf(rs), rsRef)
  }

  /**
   * upstream: resolveControllerRef — the Deployment a controller reference names, if the cache
   * holds it with that UID. Only the kind is compared, not the API group.
   */
  resolveControllerRef(namespace: string, ref: OwnerReference): Deployment | undefined {
    if (ref.kind !== DeploymentKind) return undefined
    const d = this.deps.getDeployment(namespace, ref.name)
    if (!d || d.metadata.uid !== ref.uid) return undefined
    return d
  }

  /**
   * upstream: getDeploymentsForReplicaSet / util.GetDeploymentsForReplicaSet — the namespace's
   * Deployments whose valid, non-empty selector matches the ReplicaSet's labels; none for a
   * ReplicaSet without labels.
   */
  getDeploymentsForReplicaSet(rs: ReplicaSet): Deployment[] {
    const labels = rs.metadata.labels ?? {}
    if (Object.keys(labels).length === 0) return []
    const out: Deployment[] = []
    for (const d of this.deps.listDeployments(nsOf(rs))) {
      let selector: ReturnType<typeof labelSelectorAsSelector>
      try {
        selector = labelSelectorAsSelector(d.spec.selector)
      } catch {
        continue
      }
      if (selector.empty() || !selector.matches(labels)) continue
      out.push(d)
    }
    if (out.length > 1) {
      this.deps.debug?.(
        `user error: more than one deployment is selecting replica set ${nameOf(rs)} with labels ${JSON.stringify(labels)}: ${out.map(nameOf).join(', ')}`,
      )
    }
    return out
  }

  // upstream: util.ListReplicaSets(d, RsListFromClient(client)) — listed by selector, then owned only.
  private async listOwnedReplicaSets(d: Deployment): Promise<ReplicaSet[]> {
    const selector = labelSelectorAsSelector(d.spec.selector)
    // labels.Nothing() prints as "" in Go: the list then holds everything and ownership filters it.
    const text = selector.toString() === '<none>' ? '' : selector.toString()
    const all = await this.deps.listReplicaSetsFromAPI(nsOf(d), text)
    return all.filter((rs) => getControllerOf(rs.metadata)?.uid === d.metadata.uid)
  }
}
