// The data `explain` produces, as `explain -o json|yaml` prints it. This shape is a contract for
// scripts and CI: fields are added, never renamed or removed. Every code is documented in
// docs/explain-reasons.md (a unit test checks that each one listed here appears there).

import type {ActionResource, ActionVerb, RecordedEvent} from '../cluster/action.js'
import type {Requeue} from '../pass/result.js'

/** The verdict codes, most decisive first (the first that applies wins). */
export const VERDICT_CODES = [
  'Invalid',
  'Deleting',
  'Paused',
  'DeadlineExceeded',
  'Complete',
  'Stalled',
  'Progressing',
] as const
export type VerdictCode = (typeof VERDICT_CODES)[number]

/** Reasons of the Invalid verdict. */
export const INVALID_REASONS = [
  'SelectsEverything',
  'InvalidSelector',
  'SelectorDoesNotMatchTemplate',
  'UnknownStrategy',
] as const

/** The reason of the Deleting verdict. */
export const DELETING_REASONS = ['BeingDeleted'] as const

/** The reason of the Complete verdict. */
export const COMPLETE_REASONS = ['RolloutComplete'] as const

/** The reason of DeadlineExceeded when no blocker of the new ReplicaSet names a cause. */
export const DEADLINE_REASONS = ['ProgressDeadlineExceeded'] as const

/** Reasons of the Paused verdict. */
export const PAUSED_REASONS = ['PausedWithPendingTemplate', 'PausedMidRollout', 'Paused'] as const

/** Reasons of the Progressing verdict (what moves, or what the rollout is waiting for). */
export const PROGRESSING_REASONS = [
  'RollbackRequested',
  'SpecChangeNotObserved',
  'NewReplicaSetCreated',
  'ProportionalScaling',
  'ScalingUp',
  'ScalingDown',
  'OldPodsTerminating',
  'OldReplicasPending',
  'PodsStarting',
  'PodsNotReady',
  'MinReadySeconds',
  'WaitingForPods',
] as const

/**
 * Pod and ReplicaSet problems that do not clear up by waiting: one of them on the new ReplicaSet
 * makes the verdict Stalled (or is the reason of DeadlineExceeded).
 */
export const HARD_BLOCKERS = [
  'ReplicaFailure',
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'Unschedulable',
  'ReadinessProbeFailing',
] as const

/** What a rollout waits for while nothing is wrong yet. */
export const SOFT_BLOCKERS = [
  'ContainerCreating',
  'Pending',
  'NotReady',
  'MinReadySeconds',
  'Terminating',
  'OldPodRunning',
  'ContainerWaiting',
  'NoPodsInInput',
] as const

export type BlockerCode = (typeof HARD_BLOCKERS)[number] | (typeof SOFT_BLOCKERS)[number]

export const DEAD_END_CODES = [
  'MaxUnavailableZeroStuck',
  'QuotaOrFailedCreate',
  'PausedWithPendingTemplate',
  'DeadlineWillNotFire',
  'MinReadySecondsExceedsDeadline',
  'OverlappingSelector',
  'ForeignOwnedMatchingReplicaSet',
  'WillAdopt',
  'WillRelease',
] as const
export type DeadEndCode = (typeof DEAD_END_CODES)[number]

/** States of the progress clock. */
export const CLOCK_STATES = [
  'Running',
  'Passed',
  'FiresThisPass',
  'Exceeded',
  'Complete',
  'Paused',
  'NoDeadline',
  'NoCondition',
  'CheckSkipped',
] as const
export type ClockState = (typeof CLOCK_STATES)[number]

export interface Verdict {
  code: VerdictCode
  /** A stable sub-code: which case of the verdict (see docs/explain-reasons.md). */
  reason: string
  /** Plain sentences for a reader who has never seen the controller's source. */
  message: string
}

/** What `kubectl rollout status` prints for the Deployment as given (before the pass). */
export interface RolloutStatus {
  message: string
  /** kubectl stops waiting and exits 0. */
  done: boolean
  /** kubectl stops with this error and exits 1. */
  error: boolean
}

export type ReplicaSetRole = 'new' | 'old' | 'not owned'

/** How the pass treats a ReplicaSet's ownership. */
export type Ownership = 'owned' | 'adopt' | 'release' | 'foreign' | 'orphan'

export interface ReplicaSetRow {
  name: string
  revision: string | null
  role: ReplicaSetRole
  ownership: Ownership
  /** The controller of a foreign ReplicaSet, as Kind/name. */
  controller: string | null
  desired: number
  current: number
  ready: number
  available: number
  createdAt: string | null
  /** kubectl's AGE column, relative to --now. */
  age: string
  images: string[]
  /** The deployment.kubernetes.io/revision-history annotation: revisions this ReplicaSet had before. */
  revisionHistory: string | null
}

export type CheckName =
  | 'selectsEverything'
  | 'claimReplicaSets'
  | 'deleting'
  | 'paused'
  | 'rollback'
  | 'scalingEvent'
  | 'strategy'

export interface PassCheck {
  check: CheckName
  /** The question syncDeployment asks, in words. */
  question: string
  /** yes / no; `not reached` when an earlier check ended the pass; the strategy's name for `strategy`. */
  answer: string
  detail: string
}

/** maxSurge or maxUnavailable: as written, and what the controller makes of it. */
export interface Fencepost {
  written: string | number | null
  resolved: number
  /** How the written value became the resolved one, e.g. `25% of 10 = 2.5, rounded up → 3`. */
  rounding: string
}

export interface Fenceposts {
  replicas: number
  maxSurge: Fencepost
  maxUnavailable: Fencepost
  /** spec.replicas + maxSurge: the most pods all ReplicaSets may have together. */
  maxTotalPods: number
  /** spec.replicas - maxUnavailable: the fewest available pods a scale-down may leave. */
  minAvailable: number
}

export type StepName =
  | 'createNewReplicaSet'
  | 'scaleUp'
  | 'scaleDownNewReplicaSet'
  | 'scaleDown'
  | 'proportionalScaling'
  | 'scaleDownOldForRecreate'
  | 'waitForOldPods'
  | 'scaleUpForRecreate'
  | 'rollback'
  | 'cleanup'
  | 'status'

export interface Share {
  replicaSet: string
  from: number
  to: number
  proportion: number
  /** How the share was computed, e.g. `6 × 15 / 10 = 9`. */
  formula: string
}

export interface Step {
  step: StepName
  /** What happens: `scales web-abc 3 → 2`, `nothing`, `not reached`. */
  outcome: string
  /** Why, with the numbers. */
  detail: string
  /** The numbers behind the decision; keys depend on the step (docs/explain-reasons.md). */
  numbers?: Record<string, number>
  shares?: Share[]
}

export interface Cleanup {
  revisionHistoryLimit: number | null
  oldReplicaSets: number
  excess: number
  deletes: string[]
  skipped: Array<{replicaSet: string; reason: string}>
  /** Why cleanup does not run in this pass, or null when it runs. */
  waits: string | null
}

export interface PassExplain {
  /** The controller functions the pass went through, as `dry-run sync` prints them. */
  path: string[]
  checks: PassCheck[]
  /** RollingUpdate or Recreate numbers; null when the pass does not reach the strategy. */
  fenceposts: Fenceposts | null
  steps: Step[]
  cleanup: Cleanup | null
}

export interface Condition {
  status: string
  reason: string | null
  message: string | null
  lastUpdateTime: string | null
  lastTransitionTime: string | null
}

export interface ProgressClock {
  state: ClockState
  progressDeadlineSeconds: number | null
  /** The Progressing condition after the pass (the one the next deadline check reads). */
  condition: Condition | null
  /** The Progressing condition as given, when the pass changes it. */
  conditionBefore: Condition | null
  /** lastUpdateTime of Progressing: the last time the controller saw progress. */
  lastProgress: string | null
  /** lastProgress + progressDeadlineSeconds. */
  deadline: string | null
  /** Seconds from --now to the deadline; negative once it has passed. */
  secondsLeft: number | null
  message: string
}

export interface Blocker {
  code: BlockerCode
  hard: boolean
  object: {kind: 'Pod' | 'ReplicaSet' | 'Deployment'; name: string}
  /** The ReplicaSet the pod belongs to. */
  replicaSet: string | null
  container: string | null
  image: string | null
  message: string
  restarts: number | null
  lastExitCode: number | null
  /** When the state began (deletionTimestamp, readiness, ...). */
  since: string | null
  /** When it ends if nothing else happens (minReadySeconds). */
  until: string | null
}

export interface DeadEnd {
  code: DeadEndCode
  message: string
  /** The objects involved, as Kind/name. */
  objects: string[]
}

/** A Kubernetes Event as the core/v1 or events.k8s.io/v1 API returns it (the fields explain reads). */
export interface KubeEvent {
  type?: string
  reason?: string
  message?: string
  note?: string
  count?: number
  firstTimestamp?: string | null
  lastTimestamp?: string | null
  eventTime?: string | null
  series?: {count?: number; lastObservedTime?: string}
  involvedObject?: EventObject
  regarding?: EventObject
  metadata?: {namespace?: string; name?: string; creationTimestamp?: string}
}

export interface EventObject {
  kind?: string
  name?: string
  namespace?: string
  uid?: string
}

export interface EventRow {
  type: string
  reason: string
  message: string
  object: {kind: string; name: string}
  count: number
  lastSeen: string | null
}

export interface NextAction {
  verb: ActionVerb
  resource: ActionResource
  subresource?: 'status'
  namespace: string
  name: string
  /** The CHANGE column of `dry-run sync`. */
  change: string
}

export interface NextPass {
  actions: NextAction[]
  events: RecordedEvent[]
  requeue: Requeue | null
  requeueAfterSeconds: number | null
  /** When the requeue fires (--now + delay), for `after`. */
  requeueAt: string | null
  /** The requeue in words. */
  requeueMessage: string
  error: string | null
}

export interface Explanation {
  deployment: {namespace: string; name: string}
  generation: number
  observedGeneration: number
  strategy: string | null
  verdict: Verdict
  rolloutStatus: RolloutStatus
  replicaSets: ReplicaSetRow[]
  /** Pods of the ReplicaSets in the input; false when the files hold none (blockers are then unknown). */
  podsInInput: boolean
  pass: PassExplain
  progress: ProgressClock
  blockers: Blocker[]
  deadEnds: DeadEnd[]
  /** Warning events of the Deployment, its ReplicaSets and their pods, newest first; null when no events were given. */
  events: EventRow[] | null
  next: NextPass
}

export interface ExplainResult {
  kind: 'ExplainResult'
  apiVersion: 'deployctl.kubectl.io/v1alpha1'
  now: string
  kubernetesVersion: string
  featureGates: Record<string, boolean>
  explanations: Explanation[]
}
