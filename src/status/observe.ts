// What a watcher sees of one Deployment at one instant: its counts and conditions, its ReplicaSets
// newest first with their pods, and kubectl rollout status's verdict. Built from plain objects, so
// the simulator and a live watch (informer caches) produce the same Observation for the view.

import type {Deployment, Pod, ReplicaSet} from '../controller/api/types.js'
import {getControllerOf, specReplicas} from '../controller/controller-utils.js'
import {
  deploymentReplicas,
  findNewReplicaSet,
  maxSurge,
  maxUnavailable,
  RevisionAnnotation,
} from '../controller/util/deployment-util.js'
import {timeValue} from '../controller/util/equality.js'
import {type PodSummary, podsOwnedBy, summarizePod} from './pods.js'
import {rolloutStatus} from './rollout-status.js'
import type {RolloutStatus} from './types.js'

export interface ReplicaSetSummary {
  name: string
  revision: number
  /** The ReplicaSet whose template is the Deployment's. */
  new: boolean
  /** spec.replicas: what the Deployment controller asks for. */
  replicas: number
  /** status.replicas: active pods. */
  current: number
  ready: number
  available: number
  terminating: number
  pods: PodSummary[]
}

export interface ConditionSummary {
  type: string
  status: string
  reason?: string
  message?: string
  lastUpdateTime?: string
  lastTransitionTime?: string
}

export interface DeploymentSummary {
  name: string
  namespace: string
  generation: number
  observedGeneration: number
  revision: number
  strategy: string
  /** Resolved against spec.replicas (0 for Recreate). */
  maxSurge: number
  maxUnavailable: number
  replicas: number
  updated: number
  /** status.replicas. */
  current: number
  ready: number
  available: number
  unavailable: number
  terminating?: number
  minReadySeconds: number
  progressDeadlineSeconds?: number
  paused: boolean
  conditions: ConditionSummary[]
}

export interface Observation {
  /** Epoch ms. */
  time: number
  deployment: DeploymentSummary
  replicaSets: ReplicaSetSummary[]
  rollout: RolloutStatus
}

const MAX_INT32 = 2147483647

function revisionOf(o: {metadata: {annotations?: Record<string, string>}}): number {
  const v = Number(o.metadata.annotations?.[RevisionAnnotation] ?? '')
  return Number.isSafeInteger(v) ? v : 0
}

/** The ReplicaSets whose controller is the Deployment, newest revision first. */
export function replicaSetsOf(d: Deployment, replicaSets: readonly ReplicaSet[]): ReplicaSet[] {
  const uid = d.metadata.uid
  return replicaSets
    .filter((rs) => {
      const ref = getControllerOf(rs.metadata)
      return ref !== undefined && ref.kind === 'Deployment' && ref.uid === uid
    })
    .sort(
      (a, b) =>
        revisionOf(b) - revisionOf(a) ||
        timeValue(b.metadata.creationTimestamp) - timeValue(a.metadata.creationTimestamp) ||
        (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
    )
}

/** The order of String.prototype.localeCompare, without building a collator per comparison. */
const byName = new Intl.Collator()

function summarizeReplicaSet(
  rs: ReplicaSet,
  isNew: boolean,
  pods: readonly Pod[],
  now: number,
): ReplicaSetSummary {
  const minReady = rs.spec.minReadySeconds ?? 0
  // Each creation time parsed once, not once per comparison.
  const owned = podsOwnedBy(rs, pods)
    .map((p) => ({p, at: timeValue(p.metadata.creationTimestamp), name: p.metadata.name ?? ''}))
    .sort((a, b) => a.at - b.at || byName.compare(a.name, b.name))
    .map((x) => x.p)
  const s = rs.status ?? {}
  return {
    name: rs.metadata.name ?? '',
    revision: revisionOf(rs),
    new: isNew,
    replicas: specReplicas(rs),
    current: s.replicas ?? 0,
    ready: s.readyReplicas ?? 0,
    available: s.availableReplicas ?? 0,
    terminating: s.terminatingReplicas ?? 0,
    pods: owned.map((p) => summarizePod(p, minReady, now)),
  }
}

/** The Observation of Deployment `d` among `replicaSets` and `pods` at `now` (epoch ms). */
export function observe(
  d: Deployment,
  replicaSets: readonly ReplicaSet[],
  pods: readonly Pod[],
  now: number,
): Observation {
  const owned = replicaSetsOf(d, replicaSets)
  const newRS = findNewReplicaSet(d, [...owned])
  const s = d.status ?? {}
  const pds = d.spec.progressDeadlineSeconds
  const deployment: DeploymentSummary = {
    name: d.metadata.name ?? '',
    namespace: d.metadata.namespace ?? 'default',
    generation: d.metadata.generation ?? 0,
    observedGeneration: s.observedGeneration ?? 0,
    revision: revisionOf(d),
    strategy: d.spec.strategy?.type ?? '',
    maxSurge: maxSurge(d),
    maxUnavailable: maxUnavailable(d),
    replicas: deploymentReplicas(d),
    updated: s.updatedReplicas ?? 0,
    current: s.replicas ?? 0,
    ready: s.readyReplicas ?? 0,
    available: s.availableReplicas ?? 0,
    unavailable: s.unavailableReplicas ?? 0,
    ...(s.terminatingReplicas != null ? {terminating: s.terminatingReplicas} : {}),
    minReadySeconds: d.spec.minReadySeconds ?? 0,
    ...(pds != null && pds !== MAX_INT32 ? {progressDeadlineSeconds: pds} : {}),
    paused: d.spec.paused === true,
    conditions: (s.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      ...(c.reason ? {reason: c.reason} : {}),
      ...(c.message ? {message: c.message} : {}),
      ...(c.lastUpdateTime ? {lastUpdateTime: c.lastUpdateTime} : {}),
      ...(c.lastTransitionTime ? {lastTransitionTime: c.lastTransitionTime} : {}),
    })),
  }
  return {
    time: now,
    deployment,
    replicaSets: owned.map((rs) => summarizeReplicaSet(rs, rs === newRS, pods, now)),
    rollout: rolloutStatus(d),
  }
}
