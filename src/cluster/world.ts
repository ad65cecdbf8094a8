// A world is the set of objects one pass sees: what files or a cluster provided.

import type {Deployment, Pod, ReplicaSet} from '../controller/api/types.js'
import type {Timeline} from './timeline/read.js'

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

/** A HorizontalPodAutoscaler or ResourceQuota as the API returns it (the fields are read where used). */
export interface ClusterObject {
  apiVersion?: string
  kind?: string
  metadata: {name?: string; namespace?: string; [key: string]: unknown}
  spec?: Record<string, unknown>
  status?: Record<string, unknown>
}

export interface World {
  deployments: Deployment[]
  replicaSets: ReplicaSet[]
  pods: Pod[]
  /** Events found in files (core/v1 and events.k8s.io/v1); a cluster's are read by explain itself. */
  events?: KubeEvent[]
  /** HorizontalPodAutoscalers found in files (autoscaling/v2 or v1); a cluster's are read by explain. */
  autoscalers?: ClusterObject[]
  /** ResourceQuotas found in files. */
  quotas?: ClusterObject[]
  /** Nodes found in files (plan's surge fit). */
  nodes?: ClusterObject[]
  /** Source of each loaded object (by identity); absent for objects from a live cluster. */
  sources: WeakMap<object, SourceRef>
  /** Each object as written, before defaulting (only when the loader is asked to keep them: `plan`). */
  raw?: WeakMap<object, unknown>
  /** The input was a timeline: the world is the one at `timeline.at`. */
  timeline?: TimelineMoment
}

/** Which moment of a timeline a World is. */
export interface TimelineMoment {
  timeline: Timeline
  /** Epoch ms: --at, resolved (default: the timeline's end). */
  at: number
  /** --at as written. */
  atText?: string
  /** Why the world at that moment may lack changes (empty: it does not). */
  incomplete: string[]
}

export function emptyWorld(): World {
  return {deployments: [], replicaSets: [], pods: [], sources: new WeakMap()}
}

/**
 * The newest timestamp the objects carry (creation, start, condition and container times; Events'
 * times), of one namespace or of all: the time a snapshot was taken, near enough. Deletion
 * timestamps are left out (they lie in the future by the grace period).
 */
export function newestTimestamp(world: World, namespace?: string): number | undefined {
  let newest: number | undefined
  const see = (t: number) => {
    if (newest === undefined || t > newest) newest = t
  }
  const inScope = (ns: string | undefined) => namespace === undefined || (ns || 'default') === namespace
  const objects = [...world.deployments, ...world.replicaSets, ...world.pods].filter((o) =>
    inScope(o.metadata.namespace),
  )
  for (const o of objects) objectTimestamps(o, see)
  for (const e of world.events ?? []) if (inScope(e.metadata?.namespace)) objectTimestamps(e, see)
  return newest
}

/**
 * Each time an object carries that says when it last changed: creation, start, condition and
 * container times, and an Event's times. Deletion timestamps are left out (they lie in the future by
 * the grace period).
 */
export function objectTimestamps(o: unknown, see: (ms: number) => void): void {
  const at = (v: unknown) => {
    if (typeof v !== 'string') return
    const t = Date.parse(v)
    if (Number.isFinite(t)) see(t)
  }
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
  at(field(field(o, 'metadata'), 'creationTimestamp'))
  const status = field(o, 'status')
  at(field(status, 'startTime'))
  for (const c of list(field(status, 'conditions'))) {
    at(field(c, 'lastUpdateTime'))
    at(field(c, 'lastTransitionTime'))
  }
  for (const c of list(field(status, 'containerStatuses'))) {
    at(field(field(field(c, 'state'), 'running'), 'startedAt'))
    at(field(field(field(c, 'state'), 'terminated'), 'finishedAt'))
    at(field(field(field(c, 'lastState'), 'terminated'), 'finishedAt'))
  }
  for (const key of ['lastTimestamp', 'eventTime', 'firstTimestamp']) at(field(o, key))
  at(field(field(o, 'series'), 'lastObservedTime'))
}

function field(v: unknown, key: string): unknown {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined
}
