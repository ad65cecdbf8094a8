// How long a pod of a Deployment has taken to become available, from what the cluster shows: per
// pod, the Ready condition's lastTransitionTime − metadata.creationTimestamp (a condition keeps only
// its last transition, so only pods that never restarted count), plus minReadySeconds. `plan` feeds
// the percentiles to the simulator as the pods' time to ready.

import type {Pod} from '../controller/api/types.js'
import {timeValue} from '../controller/util/equality.js'
import {maxRestarts, podReadyTime} from './pods.js'

export interface PodTimes {
  /** Seconds from creation to Ready, one per pod that counts, ascending. */
  readySeconds: number[]
  /** Pods looked at, and why the others were left out. */
  pods: number
  restarted: number
  notReady: number
}

/** The time to Ready of each pod that became ready without a restart. */
export function podReadySeconds(pods: readonly Pod[]): PodTimes {
  const readySeconds: number[] = []
  let restarted = 0
  let notReady = 0
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp != null) continue
    if (maxRestarts(pod) > 0) {
      restarted++
      continue
    }
    const ready = podReadyTime(pod)
    const created = timeValue(pod.metadata.creationTimestamp)
    if (ready === undefined || !Number.isFinite(created) || ready < created) {
      notReady++
      continue
    }
    readySeconds.push((ready - created) / 1000)
  }
  readySeconds.sort((a, b) => a - b)
  return {readySeconds, pods: pods.length, restarted, notReady}
}

/** The p-th percentile (0–100) by the nearest-rank method; undefined for no samples. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}
