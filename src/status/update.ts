// What a source of rollout updates (the simulator, a live watch) hands its readers at each change:
// the objects as observed, the rollout's state, and the actions and events since the last update.

import type {ActionResource, ActionVerb} from '../cluster/action.js'
import type {EventType} from '../controller/interfaces.js'
import type {RolloutState} from './index.js'
import type {Observation} from './observe.js'

/** Who made a change: the Deployment controller under test, or one of the simulated components. */
export type Actor =
  | 'deployment-controller'
  | 'replicaset-controller'
  | 'default-scheduler'
  | 'kubelet'
  | 'horizontal-pod-autoscaler'

/** One write to the simulated cluster, in words. */
export interface SimAction {
  actor: Actor
  verb: ActionVerb
  resource: ActionResource
  subresource?: 'status' | 'scale'
  name: string
  /** What changed: `replicas 3 -> 5`, `created (Pending)`, `ContainerCreating -> Running, ready`. */
  summary: string
}

/** An event, as `kubectl get events` shows it. */
export interface SimEvent {
  type: EventType
  reason: string
  /** `Deployment/web`, `ReplicaSet/web-6f448484c8`, `Pod/web-6f448484c8-kbjgt`. */
  object: string
  message: string
  source: Actor
  /** The part of the object the event is about: the kubelet's container events carry `spec.containers{NAME}`. */
  fieldPath?: string
}

/** What a source hands the view at each change. The simulator's TimelineEntry is one. */
export interface WatchUpdate {
  /** Epoch ms. */
  time: number
  /** ms since the watch started. */
  elapsed: number
  observation: Observation
  events: SimEvent[]
  actions?: SimAction[]
  /** Where the rollout stands: the same state explain reports for these objects at this time. */
  state: RolloutState
  /** The next pass's writes (or its requeue), in words: the live view shows them. */
  next?: string[]
  /** A replayed recording: where the recorded writes differ from the port's (rollout watch --replay). */
  divergences?: Divergence[]
}

/**
 * Why a recorded ReplicaSet write and the port's disagree (docs/replay.md): a manual edit or another
 * controller, a size the port would not choose, a write the port makes only later, one it would not
 * make at all, one the port would have made that came late, or one that never came.
 */
export type DivergenceCode =
  | 'OtherWriter'
  | 'DifferentSize'
  | 'EarlyWrite'
  | 'ExtraWrite'
  | 'LateWrite'
  | 'MissingWrite'

export interface Divergence {
  /** Epoch ms: when the recorded write came, or when the port first wanted the missing (or late) one. */
  time: number
  code: DivergenceCode
  replicaSet: string
  message: string
}

/** How the watch ended. */
export interface WatchOutcome {
  kind:
    | 'complete'
    | 'deadlineExceeded'
    | 'maxTime'
    | 'stalled'
    | 'stepLimit'
    | 'interrupted'
    // A live watch: --timeout passed, paused with --paused-ok, the Deployment is gone.
    | 'timeout'
    | 'paused'
    | 'deleted'
  /** The last line: kubectl's success or error message. */
  message: string
  /** When the watch ended (epoch ms), if later than the last update (--max-time). */
  end?: number
  summary?: WatchSummary
}

export interface WatchSummary {
  /** ms. */
  duration: number
  peakPods: number
  minAvailable: number
  deadlineExceeded: boolean
  /** The Kubernetes minor the simulation acted as ("v1.35"). */
  kubernetesVersion?: string
}
