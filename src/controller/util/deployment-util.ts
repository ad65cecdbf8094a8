// upstream: pkg/controller/deployment/util/deployment_util.go — annotations, revisions,
// conditions, fenceposts and the predicates the sync paths share.

import {formatTime} from '../../util/duration.js'
import {
  DefaultDeploymentUniqueLabelKey,
  type Deployment,
  type DeploymentCondition,
  DeploymentProgressing,
  type DeploymentStatus,
  type PodTemplateSpec,
  RecreateStrategyType,
  type ReplicaSet,
  type ReplicaSetCondition,
  RollingUpdateStrategyType,
} from '../api/types.js'
import {byCreationTimestamp, specReplicas} from '../controller-utils.js'
import {deepCopy, semanticEqual, timeValue} from './equality.js'
import {atoi, i32, MAX_INT32, mul32, parseInt64, parseNonNegativeInt32, toInt32} from './go.js'
import {getScaledValueFromIntOrPercent, IntOrStringError} from './intstr.js'
import {cloneAndRemoveLabel} from './labels.js'

export const RevisionAnnotation = 'deployment.kubernetes.io/revision'
export const RevisionHistoryAnnotation = 'deployment.kubernetes.io/revision-history'
export const DesiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas'
export const MaxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas'
export const DeprecatedRollbackTo = 'deprecated.deployment.rollback.to'
export const LastAppliedConfigAnnotation = 'kubectl.kubernetes.io/last-applied-configuration'

export const RollbackRevisionNotFound = 'DeploymentRollbackRevisionNotFound'
export const RollbackTemplateUnchanged = 'DeploymentRollbackTemplateUnchanged'
export const RollbackDone = 'DeploymentRollback'

export const ReplicaSetUpdatedReason = 'ReplicaSetUpdated'
export const FailedRSCreateReason = 'ReplicaSetCreateError'
export const NewReplicaSetReason = 'NewReplicaSetCreated'
export const FoundNewRSReason = 'FoundNewReplicaSet'
export const NewRSAvailableReason = 'NewReplicaSetAvailable'
export const TimedOutReason = 'ProgressDeadlineExceeded'
export const PausedDeployReason = 'DeploymentPaused'
export const ResumedDeployReason = 'DeploymentResumed'
export const MinimumReplicasAvailable = 'MinimumReplicasAvailable'
export const MinimumReplicasUnavailable = 'MinimumReplicasUnavailable'

/** The controller's cap on the revision-history annotation, in characters. */
export const MaxRevHistoryLengthInChars = 2000

export function deploymentReplicas(d: Deployment): number {
  return d.spec.replicas ?? 1
}

// --- conditions -----------------------------------------------------------------------------------

// upstream: NewDeploymentCondition — both timestamps are "now".
export function newDeploymentCondition(
  type: string,
  status: string,
  reason: string,
  message: string,
  nowMs: number,
): DeploymentCondition {
  const now = formatTime(nowMs)
  return {type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message}
}

// upstream: GetDeploymentCondition — a copy, or undefined.
export function getDeploymentCondition(
  status: DeploymentStatus | undefined,
  type: string,
): DeploymentCondition | undefined {
  const c = status?.conditions?.find((x) => x.type === type)
  return c ? {...c} : undefined
}

// upstream: SetDeploymentCondition
export function setDeploymentCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = getDeploymentCondition(status, condition.type)
  if (current && current.status === condition.status && (current.reason ?? '') === (condition.reason ?? ''))
    return
  const next = {...condition}
  if (current && current.status === condition.status) next.lastTransitionTime = current.lastTransitionTime
  status.conditions = [...filterOutCondition(status.conditions, condition.type), next]
}

// upstream: RemoveDeploymentCondition
export function removeDeploymentCondition(status: DeploymentStatus, type: string): void {
  const rest = filterOutCondition(status.conditions, type)
  // filterOutCondition builds a fresh slice that stays nil when nothing is left.
  if (rest.length === 0) delete status.conditions
  else status.conditions = rest
}

function filterOutCondition(
  conditions: DeploymentCondition[] | undefined,
  type: string,
): DeploymentCondition[] {
  return (conditions ?? []).filter((c) => c.type !== type)
}

// upstream: ReplicaSetToDeploymentCondition
export function replicaSetToDeploymentCondition(c: ReplicaSetCondition): DeploymentCondition {
  return {
    type: c.type,
    status: c.status,
    lastTransitionTime: c.lastTransitionTime,
    lastUpdateTime: c.lastTransitionTime,
    reason: c.reason,
    message: c.message,
  }
}

// --- revisions ------------------------------------------------------------------------------------

export class RevisionError extends Error {}

// upstream: Revision — 0 when absent, an error when unparsable.
export function revision(obj: {metadata: {annotations?: Record<string, string>}}): bigint {
  const v = obj.metadata.annotations?.[RevisionAnnotation]
  if (v === undefined) return 0n
  const parsed = parseInt64(v)
  if (parsed === undefined) throw new RevisionError(`strconv.ParseInt: parsing "${v}": invalid syntax`)
  return parsed
}

function tryRevision(rs: ReplicaSet): bigint | undefined {
  try {
    return revision(rs)
  } catch {
    return undefined
  }
}

// upstream: MaxRevision
export function maxRevision(rss: Array<ReplicaSet | undefined>): bigint {
  let max = 0n
  for (const rs of rss) {
    if (!rs) continue
    const v = tryRevision(rs)
    if (v !== undefined && v > max) max = v
  }
  return max
}

// upstream: LastRevision — the second-highest revision.
export function lastRevision(rss: Array<ReplicaSet | undefined>): bigint {
  let max = 0n
  let secMax = 0n
  for (const rs of rss) {
    if (!rs) continue
    const v = tryRevision(rs)
    if (v === undefined) continue
    if (v >= max) {
      secMax = max
      max = v
    } else if (v > secMax) {
      secMax = v
    }
  }
  return secMax
}

// upstream: ReplicaSetsByRevision.Less
export function byRevision(a: ReplicaSet, b: ReplicaSet): number {
  const ra = tryRevision(a)
  const rb = tryRevision(b)
  if (ra === undefined || rb === undefined || ra === rb) return byCreationTimestamp(a, b)
  return ra < rb ? -1 : 1
}

// --- annotations ----------------------------------------------------------------------------------

const annotationsToSkip = new Set([
  LastAppliedConfigAnnotation,
  RevisionAnnotation,
  RevisionHistoryAnnotation,
  DesiredReplicasAnnotation,
  MaxReplicasAnnotation,
  DeprecatedRollbackTo,
])

export function skipCopyAnnotation(key: string): boolean {
  return annotationsToSkip.has(key)
}

// upstream: copyDeploymentAnnotationsToReplicaSet. Only a key the ReplicaSet already has with the
// same value is skipped: an empty-valued Deployment annotation is still copied onto a ReplicaSet
// that lacks it (and counts as a change).
function copyDeploymentAnnotationsToReplicaSet(d: Deployment, rs: ReplicaSet): boolean {
  let changed = false
  rs.metadata.annotations ??= {}
  const rsAnn = rs.metadata.annotations
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (skipCopyAnnotation(k) || (Object.hasOwn(rsAnn, k) && rsAnn[k] === v)) continue
    rsAnn[k] = v
    changed = true
  }
  return changed
}

// upstream: SetDeploymentAnnotationsTo
export function setDeploymentAnnotationsTo(d: Deployment, rollbackToRS: ReplicaSet): void {
  const kept: Record<string, string> = {}
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) if (skipCopyAnnotation(k)) kept[k] = v
  for (const [k, v] of Object.entries(rollbackToRS.metadata.annotations ?? {}))
    if (!skipCopyAnnotation(k)) kept[k] = v
  d.metadata.annotations = kept
}

// upstream: SetNewReplicaSetAnnotations
export function setNewReplicaSetAnnotations(
  d: Deployment,
  rs: ReplicaSet,
  newRevision: string,
  exists: boolean,
  revHistoryLimitInChars: number,
): boolean {
  let changed = copyDeploymentAnnotationsToReplicaSet(d, rs)
  const ann = (rs.metadata.annotations ??= {})
  const hadRevision = Object.hasOwn(ann, RevisionAnnotation)
  const oldRevision = ann[RevisionAnnotation] ?? ''
  let oldInt = parseInt64(oldRevision)
  if (oldInt === undefined) {
    if (oldRevision !== '') return false
    oldInt = 0n
  }
  const newInt = parseInt64(newRevision)
  if (newInt === undefined) return false
  if (oldInt < newInt) {
    ann[RevisionAnnotation] = newRevision
    changed = true
  }
  // A ReplicaSet that already had a revision and gets a newer one is being reused (a rollback):
  // remember where it has been.
  if (hadRevision && oldInt < newInt) {
    const history = ann[RevisionHistoryAnnotation] ?? ''
    const entries = history.split(',')
    if (entries[0]!.length === 0) {
      ann[RevisionHistoryAnnotation] = oldRevision
    } else {
      let total = history.length + oldRevision.length + 1
      let start = 0
      while (total > revHistoryLimitInChars && start < entries.length) {
        total = total - entries[start]!.length - 1
        start++
      }
      if (total <= revHistoryLimitInChars) {
        ann[RevisionHistoryAnnotation] = [...entries.slice(start), oldRevision].join(',')
      }
    }
  }
  const replicas = deploymentReplicas(d)
  if (!exists && setReplicasAnnotations(rs, replicas, i32(replicas + maxSurge(d)))) changed = true
  return changed
}

// upstream: SetDeploymentRevision
export function setDeploymentRevision(d: Deployment, rev: string): boolean {
  d.metadata.annotations ??= {}
  if ((d.metadata.annotations[RevisionAnnotation] ?? '') !== rev) {
    d.metadata.annotations[RevisionAnnotation] = rev
    return true
  }
  return false
}

// upstream: SetReplicasAnnotations
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  let updated = false
  const ann = (rs.metadata.annotations ??= {})
  if ((ann[DesiredReplicasAnnotation] ?? '') !== String(desired)) {
    ann[DesiredReplicasAnnotation] = String(desired)
    updated = true
  }
  if ((ann[MaxReplicasAnnotation] ?? '') !== String(max)) {
    ann[MaxReplicasAnnotation] = String(max)
    updated = true
  }
  return updated
}

// upstream: ReplicasAnnotationsNeedUpdate
export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const ann = rs.metadata.annotations
  if (ann == null) return true
  return (
    (ann[DesiredReplicasAnnotation] ?? '') !== String(desired) ||
    (ann[MaxReplicasAnnotation] ?? '') !== String(max)
  )
}

// upstream: getNonNegativeInt32FromAnnotation
function getNonNegativeInt32FromAnnotation(rs: ReplicaSet, key: string): number | undefined {
  const v = rs.metadata.annotations?.[key]
  return v === undefined ? undefined : parseNonNegativeInt32(v)
}

// upstream: GetDesiredReplicasAnnotation
export function getDesiredReplicasAnnotation(rs: ReplicaSet): number | undefined {
  return getNonNegativeInt32FromAnnotation(rs, DesiredReplicasAnnotation)
}

function getMaxReplicasAnnotation(rs: ReplicaSet): number | undefined {
  return getNonNegativeInt32FromAnnotation(rs, MaxReplicasAnnotation)
}

// --- fenceposts -----------------------------------------------------------------------------------

export class FencepostError extends Error {}

// upstream: ResolveFenceposts — surge rounds up, unavailable rounds down, and both resolving to
// zero would deadlock a rollout, so unavailable becomes 1.
export function resolveFenceposts(
  maxSurgeValue: number | string | undefined,
  maxUnavailableValue: number | string | undefined,
  desired: number,
): {surge: number; unavailable: number} {
  const surge = getScaledValueFromIntOrPercent(maxSurgeValue ?? 0, desired, true)
  let unavailable = getScaledValueFromIntOrPercent(maxUnavailableValue ?? 0, desired, false)
  if (surge === 0 && unavailable === 0) unavailable = 1
  if (surge > MAX_INT32 || surge < -MAX_INT32 - 1)
    throw new FencepostError(`surge value ${surge} is out of int32 bounds`)
  if (unavailable > MAX_INT32 || unavailable < -MAX_INT32 - 1) {
    throw new FencepostError(`unavailable value ${unavailable} is out of int32 bounds`)
  }
  return {surge, unavailable}
}

function safeFenceposts(d: Deployment): {surge: number; unavailable: number} {
  const ru = d.spec.strategy?.rollingUpdate
  try {
    return resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, deploymentReplicas(d))
  } catch (err) {
    // The wrappers drop the error (validation keeps it from happening) and use 0, 0.
    if (err instanceof IntOrStringError || err instanceof FencepostError) return {surge: 0, unavailable: 0}
    throw err
  }
}

export function isRollingUpdate(d: Deployment): boolean {
  return d.spec.strategy?.type === RollingUpdateStrategyType
}

// upstream: MaxUnavailable
export function maxUnavailable(d: Deployment): number {
  const replicas = deploymentReplicas(d)
  if (!isRollingUpdate(d) || replicas === 0) return 0
  const {unavailable} = safeFenceposts(d)
  return Math.min(unavailable, replicas)
}

// upstream: MinAvailable
export function minAvailable(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0
  return i32(deploymentReplicas(d) - maxUnavailable(d))
}

// upstream: MaxSurge
export function maxSurge(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0
  return safeFenceposts(d).surge
}

// --- replica counts -------------------------------------------------------------------------------

// upstream: GetReplicaCountForReplicaSets (spec.replicas)
export function getReplicaCountForReplicaSets(rss: Array<ReplicaSet | undefined>): number {
  let total = 0
  for (const rs of rss) if (rs) total = i32(total + specReplicas(rs))
  return total
}

// upstream: GetActualReplicaCountForReplicaSets (status.replicas)
export function getActualReplicaCountForReplicaSets(rss: Array<ReplicaSet | undefined>): number {
  let total = 0
  for (const rs of rss) if (rs) total = i32(total + (rs.status?.replicas ?? 0))
  return total
}

// upstream: GetReadyReplicaCountForReplicaSets
export function getReadyReplicaCountForReplicaSets(rss: Array<ReplicaSet | undefined>): number {
  let total = 0
  for (const rs of rss) if (rs) total = i32(total + (rs.status?.readyReplicas ?? 0))
  return total
}

// upstream: GetAvailableReplicaCountForReplicaSets
export function getAvailableReplicaCountForReplicaSets(rss: Array<ReplicaSet | undefined>): number {
  let total = 0
  for (const rs of rss) if (rs) total = i32(total + (rs.status?.availableReplicas ?? 0))
  return total
}

// upstream: GetTerminatingReplicaCountForReplicaSets — undefined means "unknown".
export function getTerminatingReplicaCountForReplicaSets(
  rss: Array<ReplicaSet | undefined>,
): number | undefined {
  let total = 0
  for (const rs of rss) {
    if (!rs) continue
    const t = rs.status?.terminatingReplicas
    if ((rs.status?.observedGeneration ?? 0) === 0 && t == null) continue
    if (t == null) return undefined
    total = i32(total + t)
  }
  return total
}

// --- proportional scaling -------------------------------------------------------------------------

// upstream: GetReplicaSetProportion
export function getReplicaSetProportion(
  rs: ReplicaSet | undefined,
  d: Deployment,
  toAdd: number,
  added: number,
): number {
  if (!rs || specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0
  const fraction = getReplicaSetFraction(rs, d)
  const allowed = i32(toAdd - added)
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed)
}

// upstream: getReplicaSetFraction
export function getReplicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  const replicas = deploymentReplicas(d)
  if (replicas === 0) return -specReplicas(rs)
  const deploymentMaxReplicas = i32(replicas + maxSurge(d))
  let before = getMaxReplicasAnnotation(rs)
  if (before === undefined || before === 0) {
    // Without the annotation, fall back to the Deployment's current size.
    before = d.status?.replicas ?? 0
    if (before === 0) return 0
  }
  const scaleBase = specReplicas(rs)
  const newSize = mul32(scaleBase, deploymentMaxReplicas) / before
  return i32(roundToInt32(newSize) - specReplicas(rs))
}

// upstream: integer.RoundToInt32 — half away from zero.
export function roundToInt32(x: number): number {
  return i32(Math.trunc(x < 0 ? x - 0.5 : x + 0.5))
}

// upstream: IsSaturated
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false
  const desired = atoi(rs.metadata.annotations?.[DesiredReplicasAnnotation] ?? '')
  if (desired === undefined) return false
  const replicas = deploymentReplicas(d)
  return (
    specReplicas(rs) === replicas &&
    toInt32(desired) === replicas &&
    (rs.status?.availableReplicas ?? 0) === replicas
  )
}

// upstream: FindActiveOrLatest — sorts oldRSs newest first, in place.
export function findActiveOrLatest(
  newRS: ReplicaSet | undefined,
  oldRSs: ReplicaSet[],
): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined
  oldRSs.sort((a, b) => byCreationTimestamp(b, a))
  const active = [...oldRSs, newRS].filter((rs): rs is ReplicaSet => rs != null && specReplicas(rs) > 0)
  if (active.length === 0) return newRS ?? oldRSs[0]
  if (active.length === 1) return active[0]
  return undefined
}

// --- new and old ReplicaSets ----------------------------------------------------------------------

// upstream: EqualIgnoreHash
export function equalIgnoreHash(t1: PodTemplateSpec | undefined, t2: PodTemplateSpec | undefined): boolean {
  return semanticEqual(withoutHashLabel(t1), withoutHashLabel(t2))
}

// Upstream deep-copies both templates to drop the label; comparing never mutates, so copying just
// the path down to the labels is enough (this runs for every ReplicaSet on every pass).
function withoutHashLabel(t: PodTemplateSpec | undefined): PodTemplateSpec {
  const labels = t?.metadata?.labels
  if (!t || !labels || !Object.hasOwn(labels, DefaultDeploymentUniqueLabelKey)) return t ?? {}
  const {[DefaultDeploymentUniqueLabelKey]: _hash, ...rest} = labels
  return {...t, metadata: {...t.metadata, labels: rest}}
}

// upstream: FindNewReplicaSet — sorts rsList oldest first, in place, and takes the oldest match.
export function findNewReplicaSet(d: Deployment, rsList: ReplicaSet[]): ReplicaSet | undefined {
  rsList.sort(byCreationTimestamp)
  return rsList.find((rs) => equalIgnoreHash(rs.spec.template, d.spec.template))
}

// upstream: FindOldReplicaSets — [required (non-zero) old RSs, all old RSs].
export function findOldReplicaSets(d: Deployment, rsList: ReplicaSet[]): [ReplicaSet[], ReplicaSet[]] {
  const newRS = findNewReplicaSet(d, rsList)
  const required: ReplicaSet[] = []
  const all: ReplicaSet[] = []
  for (const rs of rsList) {
    if (newRS && rs.metadata.uid === newRS.metadata.uid) continue
    all.push(rs)
    if (specReplicas(rs) !== 0) required.push(rs)
  }
  return [required, all]
}

// upstream: SetFromReplicaSetTemplate
export function setFromReplicaSetTemplate(d: Deployment, template: PodTemplateSpec | undefined): void {
  const t = deepCopy(template ?? {})
  const metadata = {...(t.metadata ?? {})}
  metadata.labels = cloneAndRemoveLabel(metadata.labels, DefaultDeploymentUniqueLabelKey)
  d.spec.template = {...t, metadata}
}

// --- predicates -----------------------------------------------------------------------------------

// upstream: HasProgressDeadline
export function hasProgressDeadline(d: Deployment): boolean {
  const s = d.spec.progressDeadlineSeconds
  return s != null && s !== MAX_INT32
}

// upstream: HasRevisionHistoryLimit
export function hasRevisionHistoryLimit(d: Deployment): boolean {
  const l = d.spec.revisionHistoryLimit
  return l != null && l !== MAX_INT32
}

// upstream: DeploymentComplete
export function deploymentComplete(d: Deployment, s: DeploymentStatus): boolean {
  const replicas = deploymentReplicas(d)
  return (
    (s.updatedReplicas ?? 0) === replicas &&
    (s.replicas ?? 0) === replicas &&
    (s.availableReplicas ?? 0) === replicas &&
    (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  )
}

// upstream: DeploymentProgressing — compares the new status with the one the Deployment carries.
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {}
  const oldOld = i32((old.replicas ?? 0) - (old.updatedReplicas ?? 0))
  const newOld = i32((s.replicas ?? 0) - (s.updatedReplicas ?? 0))
  return (
    (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  )
}

// upstream: DeploymentTimedOut
export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, nowMs: number): boolean {
  if (!hasProgressDeadline(d)) return false
  const c = getDeploymentCondition(s, DeploymentProgressing)
  if (!c) return false
  if (c.reason === NewRSAvailableReason) return false
  if (c.reason === TimedOutReason) return true
  const deadline = timeValue(c.lastUpdateTime) + (d.spec.progressDeadlineSeconds ?? 0) * 1000
  return deadline < nowMs
}

// upstream: NewRSNewReplicas
export function newRSNewReplicas(
  d: Deployment,
  allRSs: Array<ReplicaSet | undefined>,
  newRS: ReplicaSet,
): number {
  const replicas = deploymentReplicas(d)
  switch (d.spec.strategy?.type) {
    case RollingUpdateStrategyType: {
      const surge = getScaledValueFromIntOrPercent(d.spec.strategy.rollingUpdate?.maxSurge, replicas, true)
      const current = getReplicaCountForReplicaSets(allRSs)
      const maxTotal = i32(replicas + surge)
      if (current >= maxTotal) return specReplicas(newRS)
      const scaleUp = Math.min(i32(maxTotal - current), i32(replicas - specReplicas(newRS)))
      return i32(specReplicas(newRS) + scaleUp)
    }
    case RecreateStrategyType:
      return replicas
    default:
      throw new Error(`deployment type ${d.spec.strategy?.type ?? ''} isn't supported`)
  }
}
