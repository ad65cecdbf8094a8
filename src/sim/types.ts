// Plain data shared by the models, the simulator and the renderers of a simulated rollout.

import type {ActionResource, ActionVerb} from '../cluster/action.js'
import type {EventType} from '../controller/interfaces.js'

/** Who made a change: the Deployment controller under test, or one of the simulated components. */
export type Actor = 'deployment-controller' | 'replicaset-controller' | 'default-scheduler' | 'kubelet'

/** One write to the simulated cluster, in words. */
export interface SimAction {
  actor: Actor
  verb: ActionVerb
  resource: ActionResource
  subresource?: 'status'
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
}
