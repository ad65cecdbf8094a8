// The one object builder of the tests: a Deployment, ReplicaSet or Pod as a user writes it (or, with
// `defaulted`, as an API server serves it), each field overridable. The controller's own unit tests
// keep upstream's helpers (test/unit/controller/fixtures.ts: newDeployment, newReplicaSet, newPod),
// whose shapes the re-created upstream tests depend on.

import type {Deployment, OwnerReference, Pod, ReplicaSet} from '../src/controller/api/types.js'

export interface DeploymentOptions {
  name?: string
  namespace?: string
  replicas?: number
  image?: string
  /** metadata.labels (default app=NAME); the selector and the template use app=NAME. */
  labels?: Record<string, string>
  /** Merged over metadata. */
  metadata?: Partial<Deployment['metadata']>
  /** Merged over spec. */
  spec?: Partial<Deployment['spec']>
  status?: Deployment['status']
  /** The fields an API server fills in (strategy, deadline, history limit, uid, generation). */
  defaulted?: boolean
}

/** A Deployment `web` (3 replicas of nginx:1.27, app=web) unless told otherwise. */
export function deployment(o: DeploymentOptions = {}): Deployment {
  const name = o.name ?? 'web'
  const namespace = o.namespace ?? 'default'
  const app = {app: name}
  const d: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace,
      labels: o.labels ?? app,
      ...(o.defaulted ? {uid: `uid-${namespace}-${name}`, generation: 1} : {}),
      ...o.metadata,
    },
    spec: {
      replicas: o.replicas ?? 3,
      selector: {matchLabels: app},
      template: {
        metadata: {labels: app},
        spec: {containers: [{name: 'app', image: o.image ?? 'nginx:1.27'}]},
      },
      ...(o.defaulted
        ? {
            strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: '25%', maxUnavailable: '25%'}},
            progressDeadlineSeconds: 600,
            revisionHistoryLimit: 10,
          }
        : {}),
      ...o.spec,
    },
  }
  if (o.status) d.status = o.status
  return d
}

/** The controllerRef an owner puts on what it controls. */
export function controllerRef(
  owner: Deployment | ReplicaSet,
  kind: 'Deployment' | 'ReplicaSet',
): OwnerReference {
  return {
    apiVersion: 'apps/v1',
    kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
  }
}

export interface ReplicaSetOptions {
  name: string
  namespace?: string
  replicas?: number
  /** The Deployment that controls it (its controllerRef); none for an orphan. */
  owner?: Deployment
  labels?: Record<string, string>
  metadata?: Partial<ReplicaSet['metadata']>
  spec?: Partial<ReplicaSet['spec']>
  status?: ReplicaSet['status']
}

export function replicaSet(o: ReplicaSetOptions): ReplicaSet {
  const labels = o.labels ?? {app: 'web'}
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: o.name,
      namespace: o.namespace ?? o.owner?.metadata.namespace ?? 'default',
      uid: `uid-${o.name}`,
      labels,
      ...(o.owner ? {ownerReferences: [controllerRef(o.owner, 'Deployment')]} : {}),
      ...o.metadata,
    },
    spec: {replicas: o.replicas ?? 1, selector: {matchLabels: labels}, ...o.spec},
    status: o.status ?? {replicas: o.replicas ?? 1},
  }
}

export interface PodOptions {
  name: string
  owner: ReplicaSet
  metadata?: Partial<Pod['metadata']>
  status?: Pod['status']
}

export function pod(o: PodOptions): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: o.name,
      namespace: o.owner.metadata.namespace ?? 'default',
      uid: `uid-${o.name}`,
      labels: {...(o.owner.metadata.labels ?? {})},
      ownerReferences: [controllerRef(o.owner, 'ReplicaSet')],
      ...o.metadata,
    },
    spec: {containers: []},
    status: o.status ?? {phase: 'Running'},
  }
}
