// What every part of the analysis reads: the Deployment before and after the pass, the ReplicaSets
// and pods around it (as the pass's informer caches saw them), the pass's record and --now.

import type {MemoryStore} from '../cluster/memory.js'
import type {Deployment, Pod, ReplicaSet} from '../controller/api/types.js'
import type {Facts} from '../pass/facts.js'
import type {DeploymentResult} from '../pass/result.js'
import type {InputGap} from './gaps.js'
import type {ControllerHints} from './no-controller.js'
import type {KubeEvent, Ownership, ReplicaSetRole} from './types.js'

export interface ReplicaSetInfo {
  rs: ReplicaSet
  ownership: Ownership
  role: ReplicaSetRole
  /** Kind/name of the controller of a foreign ReplicaSet. */
  controller: string | null
  /** Its pods (controllerRef pointing at it), in any phase; none read for a foreign ReplicaSet. */
  pods: Pod[]
}

export interface ReplicaSetView {
  /**
   * The ReplicaSets that concern this Deployment: owned, adopted, released, or orphans matching its
   * selector. Those another controller owns are in `foreign`.
   */
  all: ReplicaSetInfo[]
  /**
   * The ReplicaSets its selector matches that another object controls: the match of the selector,
   * shared by every Deployment with that selector (so not copied per Deployment), less those `skip`
   * says are this Deployment's own. foreignInfos() walks it.
   */
  foreign: {controlled: readonly ReplicaSetInfo[]; skip: (info: ReplicaSetInfo) => boolean}
  /** What the pass treats as its own (owned and adopted), as the pass saw them. */
  claimed: ReplicaSet[]
  /** The ReplicaSet whose template equals the Deployment's, if any. */
  newRS: ReplicaSet | undefined
  oldRSs: ReplicaSet[]
}

export interface RolloutContext {
  namespace: string
  name: string
  /** The Deployment as given. */
  d: Deployment
  /** The Deployment after the pass (status and annotations as the pass wrote them). */
  after: Deployment
  /** Other Deployments of the namespace (for overlapping selectors). */
  others: Deployment[]
  /** Every ReplicaSet of the namespace, as given (the lister's own array: read only). */
  namespaceReplicaSets: readonly ReplicaSet[]
  result: DeploymentResult
  facts: Facts
  store: MemoryStore
  now: number
  /** Recent events of the namespace when the source provides them (live mode); undefined from files. */
  events: KubeEvent[] | undefined
  /** What a watcher knows beyond the objects (when it saw a generation go unobserved). */
  hints: ControllerHints
  view: ReplicaSetView
  /** What the input lacks around this Deployment (files only; empty for a cluster's objects). */
  gaps: InputGap[]
}
