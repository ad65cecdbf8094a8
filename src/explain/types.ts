// The data `explain` produces, as `explain -o json|yaml` prints it: the rollout's status (src/status)
// with the pass explained check by check. This shape is a contract for scripts and CI: fields are
// added, never renamed or removed.

import type {ActionResource, ActionVerb, RecordedEvent} from '../cluster/action.js'
import type {Requeue, ResultEnvelope} from '../pass/result.js'
import type {ToolVerdicts} from '../status/tools.js'
import type {
  Blocker,
  DeadEnd,
  EventRow,
  ProgressClock,
  ReplicaSetRow,
  RolloutStatus,
  Verdict,
} from '../status/types.js'
import type {AutoscalerInfo} from './autoscaler.js'
import type {TemplateDiff} from './template.js'

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

/** A pod or ReplicaSet the user named (`explain pod/NAME`), the explanation starting from it. */
export interface StartPoint {
  kind: 'Pod' | 'ReplicaSet'
  name: string
  /** The ReplicaSet of the pod (or the ReplicaSet itself). */
  replicaSet: string | null
  /** Its blocker codes (a pod's waiting reasons, a ReplicaSet's ReplicaFailure). */
  codes: string[]
  /** Its state, and the Deployment it belongs to, in words. */
  message: string
}

export interface Explanation {
  /** The pods and ReplicaSets named on the command line that led here; empty when none was named. */
  startedFrom: StartPoint[]
  deployment: {namespace: string; name: string}
  generation: number
  observedGeneration: number
  strategy: string | null
  verdict: Verdict
  rolloutStatus: RolloutStatus
  /** kubectl rollout status, kstatus and Argo CD's answers for the Deployment as given, and where they part. */
  tools: ToolVerdicts
  replicaSets: ReplicaSetRow[]
  /** What the pod template changed since the previous revision (why there is a new ReplicaSet); null without one. */
  templateDiff: TemplateDiff | null
  /** The HorizontalPodAutoscaler that owns spec.replicas; null when none targets the Deployment. */
  autoscaler: AutoscalerInfo | null
  /** Pods of the ReplicaSets in the input; false when the files hold none (blockers are then unknown). */
  podsInInput: boolean
  pass: PassExplain
  progress: ProgressClock
  blockers: Blocker[]
  deadEnds: DeadEnd[]
  /** Warning events of the Deployment, its ReplicaSets and their pods, newest first; null when no events were given. */
  events: EventRow[] | null
  /** Which events the analysis read; null when the source gave none (files without Events). */
  eventSource: EventSource | null
  next: NextPass
}

export interface EventSource {
  /** `cluster`: listed live; `files`: Events found in the -f input. */
  from: 'cluster' | 'files'
  /** Events given for the namespaces concerned. */
  total: number
  /** Those about this Deployment, its ReplicaSets and their pods (any type). */
  concerning: number
  warnings: number
  /** The newest of those, or null. */
  newest: string | null
}

export type ExplainResult = ResultEnvelope<'ExplainResult', Explanation>
