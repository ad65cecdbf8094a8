// What kstatus (sigs.k8s.io/cli-utils pkg/kstatus/status, the library Helm 4's --wait and Flux's
// health checks use) computes for a Deployment: Current, InProgress, Failed or Terminating, with its
// message and the reason of the standard condition it would add. A port of status.Compute for
// apps/Deployment (cli-utils at 5895ad6, Oct 2025): the generic properties first, then the
// Deployment's legacy rules. Pure: it reads only the object, as kstatus does.

import type {Deployment} from '../controller/api/types.js'

export const KSTATUS_STATUSES = ['InProgress', 'Failed', 'Current', 'Terminating'] as const
export type KstatusStatus = (typeof KSTATUS_STATUSES)[number]

export interface KstatusResult {
  status: KstatusStatus
  /** The reason of the Reconciling (InProgress) or Stalled (Failed) condition kstatus adds; null for Current and Terminating. */
  reason: string | null
  message: string
}

/** Go's math.MaxInt32: kstatus's stand-in for an unset progressDeadlineSeconds. */
const MAX_INT32 = 2147483647

// upstream (cli-utils): status.Compute — checkGenericProperties decides when it can, else the
// resource's legacy rules (deploymentConditions for apps/Deployment, which always decide).
export function kstatusOf(d: Deployment): KstatusResult {
  return genericProperties(d) ?? deploymentConditions(d)
}

// upstream (cli-utils): checkGenericProperties
function genericProperties(d: Deployment): KstatusResult | null {
  if (d.metadata.deletionTimestamp) {
    return {status: 'Terminating', reason: null, message: 'Resource scheduled for deletion'}
  }
  const generation = checkGeneration(d)
  if (generation) return generation
  // The standard conditions, which a Deployment's controller never sets, win when present.
  for (const c of d.status?.conditions ?? []) {
    if (c.type === 'Reconciling' && c.status === 'True') return inProgress(c.reason ?? '', c.message ?? '')
    if (c.type === 'Stalled' && c.status === 'True') {
      return {status: 'Failed', reason: c.reason ?? '', message: c.message ?? ''}
    }
  }
  return null
}

// upstream (cli-utils): checkGeneration — only when both fields are present, and any difference counts.
function checkGeneration(d: Deployment): KstatusResult | null {
  const generation = d.metadata.generation
  const observed = d.status?.observedGeneration
  if (generation == null || observed == null || observed === generation) return null
  return inProgress(
    'LatestGenerationNotObserved',
    `${d.kind ?? 'Deployment'} generation is ${generation}, but latest observed generation is ${observed}`,
  )
}

// upstream (cli-utils): deploymentConditions
function deploymentConditions(d: Deployment): KstatusResult {
  // Without a deadline the controller sets no Progressing condition, so kstatus does not ask for one.
  let progressing = (d.spec?.progressDeadlineSeconds ?? MAX_INT32) === MAX_INT32
  let available = false
  for (const c of d.status?.conditions ?? []) {
    if (c.type === 'Progressing') {
      if (c.reason === 'ProgressDeadlineExceeded') {
        return {status: 'Failed', reason: c.reason, message: 'Progress deadline exceeded'}
      }
      if (c.status === 'True' && c.reason === 'NewReplicaSetAvailable') progressing = true
    } else if (c.type === 'Available' && c.status === 'True') {
      available = true
    }
  }
  const spec = d.spec?.replicas ?? 1
  const s = d.status ?? {}
  const replicas = s.replicas ?? 0
  const updated = s.updatedReplicas ?? 0
  const ready = s.readyReplicas ?? 0
  const avail = s.availableReplicas ?? 0
  if (spec > replicas) return inProgress('LessReplicas', `Replicas: ${replicas}/${spec}`)
  if (spec > updated) return inProgress('LessUpdated', `Updated: ${updated}/${spec}`)
  if (replicas > spec) return inProgress('ExtraPods', `Pending termination: ${replicas - spec}`)
  if (updated > avail) return inProgress('LessAvailable', `Available: ${avail}/${updated}`)
  if (spec > ready) return inProgress('LessReady', `Ready: ${ready}/${spec}`)
  if (!progressing) return inProgress('ReplicaSetNotAvailable', 'ReplicaSet not Available')
  if (!available) return inProgress('DeploymentNotAvailable', 'Deployment not Available')
  return {status: 'Current', reason: null, message: `Deployment is available. Replicas: ${replicas}`}
}

// upstream (cli-utils): newInProgressStatus
function inProgress(reason: string, message: string): KstatusResult {
  return {status: 'InProgress', reason, message}
}
