// Typed reads of the facts a pass records through ctx.trace.fact (see src/controller): the numbers
// behind each decision, exactly as the controller computed them.

import type {DeploymentResult} from './result.js'

export interface ScaleUpFact {
  maxSurge: number
  maxTotalPods: number
  currentPods: number
  from: number
  to: number
}

export interface ScaleDownFact {
  oldPodsCount: number
  allPodsCount: number
  maxUnavailable: number
  minAvailable: number
  newRSUnavailablePodCount: number
  maxScaledDown: number
}

export interface ScaleDownBudgetFact {
  availablePods: number
  minAvailable: number
  budget: number
}

export interface ProportionalScalingFact {
  allowedSize: number
  current: number
  toAdd: number
  leftover: number
  shares: Array<{replicaSet: string; from: number; proportion: number}>
}

export interface CleanupFact {
  oldReplicaSets: number
  revisionHistoryLimit: number
  excess: number
}

export interface ScalingEventFact {
  replicaSet: string
  desiredReplicasAnnotation: number
  replicas: number
}

export interface NewReplicaSetFact {
  name: string
  hash: string
  replicas: number
  revision: string
}

export interface ProgressDeadlineFact {
  deadline: string | null
  secondsLeft: number
}

/** The facts of one Deployment's pass, by name. */
export class Facts {
  private readonly list: Array<{fn: string; name: string; value: unknown}>

  constructor(result: DeploymentResult) {
    this.list = result.facts ?? []
  }

  /** The last value recorded under `name`. */
  last<T>(name: string): T | undefined {
    for (let i = this.list.length - 1; i >= 0; i--) {
      const f = this.list[i]!
      if (f.name === name) return f.value as T
    }
    return undefined
  }

  /** Every value recorded under `name`, in order. */
  all<T>(name: string): T[] {
    return this.list.filter((f) => f.name === name).map((f) => f.value as T)
  }

  has(name: string): boolean {
    return this.list.some((f) => f.name === name)
  }

  branch(): string | undefined {
    return this.last<string>('branch')
  }
  scaleUp(): ScaleUpFact | undefined {
    return this.last('scaleUp')
  }
  scaleDown(): ScaleDownFact | undefined {
    return this.last('scaleDown')
  }
  scaleDownBudget(): ScaleDownBudgetFact | undefined {
    return this.last('scaleDownBudget')
  }
  proportionalScaling(): ProportionalScalingFact | undefined {
    return this.last('proportionalScaling')
  }
  cleanup(): CleanupFact | undefined {
    return this.last('cleanup')
  }
  scalingEvent(): ScalingEventFact | undefined {
    return this.last('scalingEvent')
  }
  newReplicaSet(): NewReplicaSetFact | undefined {
    return this.last('newReplicaSet')
  }
  progressDeadline(): ProgressDeadlineFact | undefined {
    return this.last('progressDeadline')
  }
  ownedReplicaSets(): string[] | undefined {
    return this.last('ownedReplicaSets')
  }
}
