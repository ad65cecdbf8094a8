// A world is the set of objects one pass sees: what files or a cluster provided.

import type {Deployment, Pod, ReplicaSet} from '../controller/api/types.js'

/** Where an object came from, so errors can name the file, the document and the line. */
export interface SourceRef {
  file: string
  /** 1-based line of the object's start in the file (0 when unknown, e.g. JSON from stdin). */
  line: number
  /** 0-based index of the YAML document or List item. */
  index?: number
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

export interface World {
  deployments: Deployment[]
  replicaSets: ReplicaSet[]
  pods: Pod[]
  /** Events found in files (core/v1 and events.k8s.io/v1); a cluster's are read by explain itself. */
  events?: KubeEvent[]
  /** Source of each loaded object (by identity); absent for objects from a live cluster. */
  sources: WeakMap<object, SourceRef>
}

export function emptyWorld(): World {
  return {deployments: [], replicaSets: [], pods: [], sources: new WeakMap()}
}
