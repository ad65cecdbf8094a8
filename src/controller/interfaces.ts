// The seams between the pure controller and the world around it. Upstream's controller reads
// informer caches (listers), writes through a clientset, records events and requeues keys; the same
// four roles appear here so that files, a live cluster and the tests can all drive one port.

import type {Deployment, LabelSelector, Pod, ReplicaSet} from './api/types.js'
import type {FactName, FactValues} from './trace.js'
import type {KubeMinor} from './version.js'

/** Read-only cache view, as upstream's listers and the pod indexer provide it. */
export interface Listers {
  /** upstream: dLister.Deployments(ns).Get(name); undefined when absent. */
  getDeployment(namespace: string, name: string): Deployment | undefined
  /** upstream: rsLister.ReplicaSets(ns).List(labels.Everything()), in the cache's order. */
  listReplicaSets(namespace: string): ReplicaSet[]
  /**
   * Not upstream: the namespace's ReplicaSets whose claim is not a no-op for a Deployment with this
   * UID and selector (those it controls, and orphans that may match), in listReplicaSets' order.
   * ClaimReplicaSets ignores every other ReplicaSet, so claiming from these decides what claiming
   * from the whole namespace decides, at the cost of what the Deployment owns rather than what its
   * namespace holds. Listers without an index leave it out (or answer undefined) and the namespace
   * is walked.
   */
  claimableReplicaSets?(
    namespace: string,
    ownerUid: string,
    selector: LabelSelector | undefined,
  ): ReplicaSet[] | undefined
  /** upstream: rsLister.ReplicaSets(ns).Get(name). */
  getReplicaSet(namespace: string, name: string): ReplicaSet | undefined
  /** upstream: podIndexer.ByIndex(PodControllerUIDIndex, uid): pods whose controllerRef has this UID. */
  podsByControllerUID(uid: string): Pod[]
}

export type PatchType = 'strategic-merge' | 'merge'

/** The writes the controller makes (client-go's AppsV1 typed clients). */
export interface Client {
  getDeployment(namespace: string, name: string): Promise<Deployment>
  updateDeployment(d: Deployment): Promise<Deployment>
  updateDeploymentStatus(d: Deployment): Promise<Deployment>
  createReplicaSet(rs: ReplicaSet): Promise<ReplicaSet>
  updateReplicaSet(rs: ReplicaSet): Promise<ReplicaSet>
  patchReplicaSet(namespace: string, name: string, type: PatchType, patch: unknown): Promise<ReplicaSet>
  deleteReplicaSet(rs: ReplicaSet): Promise<void>
}

export type EventType = 'Normal' | 'Warning'

/** upstream: record.EventRecorder, always about a Deployment here. */
export interface EventRecorder {
  event(d: Deployment, type: EventType, reason: string, message: string): void
}

/** The work queue calls the sync handler makes about its own key. */
export interface Requeuer {
  /** upstream: dc.enqueueAfter(d, after) */
  addAfter(seconds: number): void
  /** upstream: dc.queue.AddRateLimited(key) */
  addRateLimited(): void
}

/**
 * A record of the decisions a pass takes: the upstream function entered and the facts behind a
 * decision. `dry-run sync` prints the function names as the path; `explain` prints the facts.
 */
export interface Tracer {
  enter(fn: string): void
  /** A fact of the contract in trace.ts: its name fixes the shape of its value. */
  fact<N extends FactName>(name: N, value: FactValues[N]): void
}

export interface Clock {
  /** Milliseconds since the epoch. Every place upstream reads the clock reads this. */
  now(): number
}

export interface FeatureGates {
  enabled(name: FeatureName): boolean
  /** The minor whose kube-controller-manager runs (hash types, gate defaults); absent: the newest. */
  readonly kubeVersion?: KubeMinor
}

export type FeatureName = 'DeploymentReplicaSetTerminatingReplicas' | 'DeploymentPodReplacementPolicy'

export interface ControllerContext {
  listers: Listers
  client: Client
  recorder: EventRecorder
  queue: Requeuer
  clock: Clock
  features: FeatureGates
  trace: Tracer
}
