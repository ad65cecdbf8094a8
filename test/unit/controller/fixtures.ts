// Builders and a harness for the controller's unit tests, in the spirit of upstream's test helpers
// (newDeployment, newReplicaSet, generatePodFromRS, the fixture that runs syncDeployment over a
// fake clientset). Every object gets a UID: FindOldReplicaSets and the pod map key on it, so
// objects without one would silently behave as "the same object".

import type {Action} from '../../../src/cluster/action.js'
import {MemoryStore, RecordingClient} from '../../../src/cluster/memory.js'
import type {World} from '../../../src/cluster/world.js'
import type {
  Deployment,
  IntOrString,
  OwnerReference,
  Pod,
  PodTemplateSpec,
  ReplicaSet,
} from '../../../src/controller/api/types.js'
import {syncDeployment} from '../../../src/controller/deployment-controller.js'
import {parseFeatureGates} from '../../../src/controller/features.js'
import type {ControllerContext, EventType} from '../../../src/controller/interfaces.js'

/** The clock every harness starts with unless told otherwise. */
export const NOW = Date.parse('2026-03-02T10:00:00Z')

/** metav1.Time as the port writes it: RFC 3339, whole seconds, UTC. */
export function iso(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}

let uidCounter = 0
/** A fresh UID, unique within the test run. */
export function newUID(prefix = 'uid'): string {
  uidCounter++
  return `${prefix}-${String(uidCounter).padStart(6, '0')}`
}

export function controllerRef(d: Deployment): OwnerReference {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: d.metadata.name ?? '',
    uid: d.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  }
}

/**
 * upstream test helper newDeployment: RollingUpdate with maxSurge/maxUnavailable defaulting to int
 * 0 (so the fenceposts resolve to surge 0, unavailable 1), no progress deadline, the selector's
 * labels on the template. An undefined selector leaves the selector empty (`{}`), as a nil
 * matchLabels map does upstream.
 */
export function newDeployment(
  name: string,
  replicas: number,
  revisionHistoryLimit: number | undefined,
  maxSurge: IntOrString | undefined,
  maxUnavailable: IntOrString | undefined,
  selector: Record<string, string> | undefined,
): Deployment {
  const d: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name, namespace: 'default', uid: newUID('d'), annotations: {}},
    spec: {
      replicas,
      selector: selector ? {matchLabels: {...selector}} : {},
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: {maxUnavailable: maxUnavailable ?? 0, maxSurge: maxSurge ?? 0},
      },
      template: {
        metadata: {labels: {...(selector ?? {})}},
        spec: {containers: [{name: 'foo', image: 'foo/bar'}]},
      },
    },
  }
  if (revisionHistoryLimit !== undefined) d.spec.revisionHistoryLimit = revisionHistoryLimit
  return d
}

export interface ObjectOptions {
  /** creationTimestamp: epoch ms or an RFC 3339 string; absent is Go's zero time. */
  created?: number | string
}

function createdAt(o: ObjectOptions | undefined): {creationTimestamp?: string} {
  if (o?.created === undefined) return {}
  return {creationTimestamp: typeof o.created === 'number' ? iso(o.created) : o.created}
}

/** upstream test helper newReplicaSet: owned by d (controller + blockOwnerDeletion), d's template. */
export function newReplicaSet(d: Deployment, name: string, replicas: number, o?: ObjectOptions): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: d.metadata.namespace ?? 'default',
      uid: newUID('rs'),
      labels: {...(d.spec.selector?.matchLabels ?? {})},
      ownerReferences: [controllerRef(d)],
      ...createdAt(o),
    },
    spec: {
      replicas,
      selector: structuredClone(d.spec.selector ?? {}),
      template: structuredClone(d.spec.template),
    },
  }
}

/** upstream test helper rs(): an unowned, unlabelled ReplicaSet with an empty template (but a UID). */
export function rs(
  name: string,
  replicas: number,
  selector: Record<string, string> | undefined,
  o?: ObjectOptions,
): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {name, namespace: 'default', uid: newUID('rs'), ...createdAt(o)},
    spec: {replicas, selector: selector ? {matchLabels: {...selector}} : {}, template: {}},
  }
}

export interface RSStatus {
  replicas?: number
  ready?: number
  available?: number
  terminating?: number
  observedGeneration?: number
}

/** Sets status fields (the fields left out stay absent, i.e. Go zero values or nil). */
export function withStatus(r: ReplicaSet, s: RSStatus): ReplicaSet {
  r.status = {}
  if (s.replicas !== undefined) r.status.replicas = s.replicas
  if (s.ready !== undefined) r.status.readyReplicas = s.ready
  if (s.available !== undefined) r.status.availableReplicas = s.available
  if (s.terminating !== undefined) r.status.terminatingReplicas = s.terminating
  if (s.observedGeneration !== undefined) r.status.observedGeneration = s.observedGeneration
  return r
}

/** upstream test helper generatePodFromRS, with a chosen name and phase. */
export function newPod(name: string, owner: ReplicaSet, phase?: string): Pod {
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: owner.metadata.namespace ?? 'default',
      uid: newUID('pod'),
      labels: {...(owner.spec.selector?.matchLabels ?? {})},
      ownerReferences: [
        {
          apiVersion: 'v1beta1',
          kind: 'ReplicaSet',
          name: owner.metadata.name ?? '',
          uid: owner.metadata.uid ?? '',
          controller: true,
        },
      ],
    },
    spec: structuredClone(owner.spec.template?.spec ?? {}),
  }
  if (phase !== undefined) pod.status = {phase}
  return pod
}

/** A template with one container, for the tests that compare templates. */
export function template(labels: Record<string, string>, image = 'foo/bar'): PodTemplateSpec {
  return {metadata: {labels: {...labels}}, spec: {containers: [{name: 'foo', image}]}}
}

// --- harness --------------------------------------------------------------------------------------

export interface Objects {
  deployments?: Deployment[]
  replicaSets?: ReplicaSet[]
  pods?: Pod[]
}

export interface HarnessOptions {
  now?: number
  /**
   * What the uncached client (the API server) holds, when it differs from the informer caches the
   * listers read: upstream's fixture can preload the fake clientset and the indexers separately.
   */
  server?: Objects
  /** --feature-gates syntax, e.g. "DeploymentReplicaSetTerminatingReplicas=false". */
  gates?: string
}

export interface SeenEvent {
  type: EventType
  reason: string
  message: string
}

export type SeenRequeue = {kind: 'after'; seconds: number} | {kind: 'rateLimited'}

export interface Harness {
  ctx: ControllerContext
  /** The store the client writes to (the "API server"). */
  store: MemoryStore
  client: RecordingClient
  events: SeenEvent[]
  requeues: SeenRequeue[]
  /** Upstream function names entered, in order. */
  path: string[]
  /** The clock, epoch ms; tests may move it. */
  now: number
  /** Every client call as "verb resource[/subresource]" — the shape upstream's fixture compares. */
  verbs(): string[]
  /** Every client call with its object name. */
  calls(): Array<{verb: string; resource: string; subresource?: string; name: string}>
  /** The ReplicaSet as the API server holds it now. */
  storedRS(name: string, namespace?: string): ReplicaSet | undefined
  storedDeployment(name: string, namespace?: string): Deployment | undefined
  /** The object sent with each update of ReplicaSets, in order. */
  rsUpdates(): ReplicaSet[]
}

// The store takes its objects over (and may freeze them): it gets copies, so the objects a test
// hands to controller functions stay its own, as upstream's separate fake and informer copies are.
function world(o: Objects): World {
  return {
    deployments: structuredClone(o.deployments ?? []),
    replicaSets: structuredClone(o.replicaSets ?? []),
    pods: structuredClone(o.pods ?? []),
    sources: new WeakMap(),
  }
}

/**
 * A ControllerContext over an in-memory API server holding `objects` (and listers over the same
 * objects, unless `server` gives the API server different ones), recording every client call,
 * event, requeue and entered function.
 */
export function newHarness(objects: Objects = {}, opts: HarnessOptions = {}): Harness {
  const cache = new MemoryStore(world(objects), {now: () => h.now})
  const store = opts.server ? new MemoryStore(world(opts.server), {now: () => h.now}) : cache
  const client = new RecordingClient(store)
  const gates = parseFeatureGates(opts.gates)
  const h: Harness = {
    store,
    client,
    events: [],
    requeues: [],
    path: [],
    now: opts.now ?? NOW,
    ctx: undefined as unknown as ControllerContext,
    verbs: () => client.actions.map(verbOf),
    calls: () =>
      client.actions.map((a: Action) => ({
        verb: a.verb,
        resource: a.resource,
        ...(a.subresource ? {subresource: a.subresource} : {}),
        name: a.name,
      })),
    storedRS: (name, namespace = 'default') =>
      store.peek('replicasets', namespace, name) as ReplicaSet | undefined,
    storedDeployment: (name, namespace = 'default') =>
      store.peek('deployments', namespace, name) as Deployment | undefined,
    rsUpdates: () =>
      client.actions
        .filter((a) => a.verb === 'update' && a.resource === 'replicasets')
        .map((a) => a.object as ReplicaSet),
  }
  h.ctx = {
    listers: cache.listers,
    client,
    recorder: {
      event: (_d, type, reason, message) => {
        h.events.push({type, reason, message})
      },
    },
    queue: {
      addAfter: (seconds) => {
        h.requeues.push({kind: 'after', seconds})
      },
      addRateLimited: () => {
        h.requeues.push({kind: 'rateLimited'})
      },
    },
    clock: {now: () => h.now},
    features: gates,
    trace: {enter: (fn) => h.path.push(fn), fact: () => {}},
  }
  return h
}

export function verbOf(a: Pick<Action, 'verb' | 'resource' | 'subresource'>): string {
  return `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''}`
}

/** Runs syncDeployment for d's key; resolves to the error it failed with, if any. */
export async function syncKey(h: Harness, d: Deployment): Promise<Error | undefined> {
  try {
    await syncDeployment(h.ctx, d.metadata.namespace ?? 'default', d.metadata.name ?? '')
    return undefined
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  }
}

/** "Scaled <dir> replica set <name> from <a> to <b>" as a Normal ScalingReplicaSet event. */
export function scaled(name: string, from: number, to: number): SeenEvent {
  return {
    type: 'Normal',
    reason: 'ScalingReplicaSet',
    message: `Scaled ${from < to ? 'up' : 'down'} replica set ${name} from ${from} to ${to}`,
  }
}
