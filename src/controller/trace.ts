// The facts a pass records through ctx.trace.fact: the numbers and names behind each decision, as
// the controller computed them. This interface is the contract between the port and its readers
// (explain, the status model): a fact renamed or reshaped here breaks them at compile time, not
// silently at run time.

/** Which branch of syncDeployment the pass took. */
export type Branch = 'deleting' | 'paused' | 'rollback' | 'scalingEvent' | 'recreate' | 'rollingUpdate'

/** Every fact, by name: what a pass records under it. */
export interface FactValues {
  /** The Deployment is not in the cache (namespace/name). */
  deploymentNotFound: string
  branch: Branch
  /** The ReplicaSets the pass claimed (owned and adopted), by name. */
  ownedReplicaSets: string[]
  /** An orphan ReplicaSet adopted / an owned one released, by name. */
  adopt: string
  release: string
  scalingEvent: {replicaSet: string; desiredReplicasAnnotation: number; replicas: number}
  /** The new ReplicaSet's annotations were brought up to date (its name). */
  newReplicaSetAnnotationsSynced: string
  newReplicaSet: {name: string; hash: string; replicas: number; revision: string}
  hashCollision: {name: string; collisionCount: number | undefined}
  /** scale(): the only active (or latest) ReplicaSet takes every replica. */
  activeOrLatest: string
  /** scale(): the new ReplicaSet is saturated; old ones go to 0. */
  saturated: string
  proportionalScaling: {
    allowedSize: number
    current: number
    toAdd: number
    leftover: number
    shares: Array<{replicaSet: string; from: number; proportion: number}>
  }
  cleanup: {oldReplicaSets: number; revisionHistoryLimit: number; excess: number}
  /** A ReplicaSet cleanup leaves alone (it still has replicas, or is being deleted). */
  cleanupSkipped: string
  availability: {availableReplicas: number; replicas: number; maxUnavailable: number; minAvailable: number}
  /** syncRolloutStatus: how the Progressing condition moves. */
  progress: 'complete' | 'progressing' | 'timedOut' | 'noProgress'
  progressDeadline: {deadline: string | null; secondsLeft: number}
  /** Recreate waits: old pods still run. */
  oldPodsRunning: boolean
  rollbackTo: string
  lastRevision: string
  rollbackTemplateFrom: string
  newReplicaSetScaleDown: {from: number; to: number}
  scaleUp: {maxSurge: number; maxTotalPods: number; currentPods: number; from: number; to: number}
  scaleDown: {
    oldPodsCount: number
    allPodsCount: number
    maxUnavailable: number
    minAvailable: number
    newRSUnavailablePodCount: number
    maxScaledDown: number
  }
  scaleDownBudget: {availablePods: number; minAvailable: number; budget: number}
  /** An error the controller logs and goes on after (cleanupUnhealthyReplicas, scale-down). */
  swallowedError: string
}

export type FactName = keyof FactValues

/** One recorded fact: the upstream function it was recorded in, its name and value. */
export type Fact = {[N in FactName]: {fn: string; name: N; value: FactValues[N]}}[FactName]
