// The vocabulary of a rollout's state, the one every reader speaks: verdict codes and their reasons,
// blockers, the progress clock, what `kubectl rollout status` says. `explain -o json` prints these
// shapes (a contract: fields are added, never renamed or removed) and `rollout watch` prints the same
// codes. Every code is documented in docs/explain-reasons.md (a unit test checks that each appears).

/** The verdict codes, most decisive first (the first that applies wins). */
export const VERDICT_CODES = [
  'IncompleteInput',
  'Invalid',
  'Deleting',
  'Paused',
  'DeadlineExceeded',
  'Complete',
  'Stalled',
  'Progressing',
] as const
export type VerdictCode = (typeof VERDICT_CODES)[number]

/** Reasons of the IncompleteInput verdict (files only): what the input lacks (./gaps.ts). */
export const INCOMPLETE_REASONS = ['MissingReplicaSets', 'MissingPods'] as const

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
  'ExtraPodsPending',
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
  'FailedCreate',
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
  'TerminatingPastGrace',
  'OldPodRunning',
  'ContainerWaiting',
  'NoPodsInInput',
] as const

export type BlockerCode = (typeof HARD_BLOCKERS)[number] | (typeof SOFT_BLOCKERS)[number]

export const DEAD_END_CODES = [
  'NoControllerActing',
  'MaxUnavailableZeroStuck',
  'QuotaOrFailedCreate',
  'AutoscalerFightsRollout',
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
  /** The names of the pod template's containers (kubectl get rs -o wide: CONTAINERS). */
  containers: string[]
  /** spec.selector as kubectl prints it (`app=web,pod-template-hash=…`; -o wide: SELECTOR). */
  selector: string
  /** The deployment.kubernetes.io/revision-history annotation: revisions this ReplicaSet had before. */
  revisionHistory: string | null
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

export type {EventObject, KubeEvent} from '../cluster/world.js'

export interface EventRow {
  type: string
  reason: string
  message: string
  object: {kind: string; name: string}
  count: number
  /** When it was first seen (eventTime or firstTimestamp). */
  firstSeen: string | null
  lastSeen: string | null
}
