// Random valid worlds for property tests: one Deployment and up to four ReplicaSets with random
// strategies, fenceposts, replica counts, statuses, ownership and annotations.

import fc from 'fast-check'
import type {World} from '../../../src/cluster/world.js'
import type {Deployment, ReplicaSet} from '../../../src/controller/api/types.js'

export const NOW = Date.parse('2026-11-29T10:00:00Z')
export const D_UID = '11111111-1111-4111-8111-111111111111'

const iso = (s: number) => new Date(NOW - s * 1000).toISOString().replace('.000Z', 'Z')

function template(version: number) {
  return {
    metadata: {labels: {app: 'web'}},
    spec: {containers: [{name: 'app', image: `registry.example.com/web:v${version}`}]},
  }
}

interface RSSpec {
  version: number
  replicas: number
  ready: number
  available: number
  statusReplicas: number
  owned: boolean
  revision: number
  annotated: boolean
  annotatedDesired: number
}

const intOrPercent = fc.oneof(
  fc.integer({min: 0, max: 5}),
  fc.constantFrom('0%', '10%', '25%', '33%', '50%', '100%'),
)

const rsSpec = fc
  .record({
    version: fc.integer({min: 1, max: 4}),
    replicas: fc.integer({min: 0, max: 12}),
    statusDelta: fc.integer({min: -3, max: 2}),
    // Percentages as integers: fast-check's doubles lean on 0 and 1.
    readyPct: fc.integer({min: 0, max: 100}),
    availPct: fc.integer({min: 0, max: 100}),
    owned: fc.oneof({weight: 5, arbitrary: fc.constant(true)}, {weight: 1, arbitrary: fc.constant(false)}),
    annotated: fc.oneof(
      {weight: 4, arbitrary: fc.constant(true)},
      {weight: 1, arbitrary: fc.constant(false)},
    ),
    // -1: the annotation records the Deployment's current replicas (no scaling event).
    annotatedDesired: fc.oneof(
      {weight: 4, arbitrary: fc.constant(-1)},
      {weight: 1, arbitrary: fc.integer({min: 0, max: 15})},
    ),
  })
  .map((r): Omit<RSSpec, 'revision'> => {
    const statusReplicas = Math.max(0, r.replicas + r.statusDelta)
    const ready = Math.round((statusReplicas * r.readyPct) / 100)
    const available = Math.round((ready * r.availPct) / 100)
    return {
      version: r.version,
      replicas: r.replicas,
      statusReplicas,
      ready,
      available,
      owned: r.owned,
      annotated: r.annotated,
      annotatedDesired: r.annotatedDesired,
    }
  })

export const worldSpec = fc.record({
  replicas: fc.integer({min: 0, max: 12}),
  recreate: fc.oneof({weight: 3, arbitrary: fc.constant(false)}, {weight: 1, arbitrary: fc.constant(true)}),
  surge: intOrPercent,
  unavailable: intOrPercent,
  version: fc.integer({min: 1, max: 4}),
  paused: fc.oneof({weight: 5, arbitrary: fc.constant(false)}, {weight: 1, arbitrary: fc.constant(true)}),
  historyLimit: fc.integer({min: 0, max: 3}),
  generationAhead: fc.boolean(),
  rss: fc.array(rsSpec, {minLength: 0, maxLength: 4}),
})

export type WorldSpec = typeof worldSpec extends fc.Arbitrary<infer T> ? T : never

export function buildWorld(w: WorldSpec): World {
  // The API server rejects maxSurge and maxUnavailable both 0 (literally); keep worlds valid.
  const unavailable = w.surge === 0 && w.unavailable === 0 ? 1 : w.unavailable
  const d: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'default',
      uid: D_UID,
      generation: w.generationAhead ? 3 : 2,
      creationTimestamp: iso(7200),
      labels: {app: 'web'},
    },
    spec: {
      replicas: w.replicas,
      selector: {matchLabels: {app: 'web'}},
      template: template(w.version),
      strategy: w.recreate
        ? {type: 'Recreate'}
        : {type: 'RollingUpdate', rollingUpdate: {maxSurge: w.surge, maxUnavailable: unavailable}},
      revisionHistoryLimit: w.historyLimit,
      progressDeadlineSeconds: 600,
      paused: w.paused,
    },
    status: {observedGeneration: 2},
  }
  const replicaSets = w.rss.map((r, i): ReplicaSet => {
    const hash = `h${i}${r.version}bcdf`.slice(0, 8)
    return {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `web-${hash}`,
        namespace: 'default',
        uid: `22222222-2222-4222-8222-00000000000${i}`,
        generation: 1,
        creationTimestamp: iso(3600 - i * 60),
        labels: {app: 'web', 'pod-template-hash': hash},
        annotations: {
          'deployment.kubernetes.io/revision': String(i + 1),
          ...(r.annotated
            ? {
                'deployment.kubernetes.io/desired-replicas': String(
                  r.annotatedDesired < 0 ? w.replicas : r.annotatedDesired,
                ),
                'deployment.kubernetes.io/max-replicas': String(
                  (r.annotatedDesired < 0 ? w.replicas : r.annotatedDesired) + 1,
                ),
              }
            : {}),
        },
        ...(r.owned
          ? {
              ownerReferences: [
                {
                  apiVersion: 'apps/v1',
                  kind: 'Deployment',
                  name: 'web',
                  uid: D_UID,
                  controller: true,
                  blockOwnerDeletion: true,
                },
              ],
            }
          : {}),
      },
      spec: {
        replicas: r.replicas,
        selector: {matchLabels: {app: 'web', 'pod-template-hash': hash}},
        template: {...template(r.version), metadata: {labels: {app: 'web', 'pod-template-hash': hash}}},
      },
      status: {
        replicas: r.statusReplicas,
        readyReplicas: r.ready,
        availableReplicas: r.available,
        observedGeneration: 1,
        terminatingReplicas: 0,
      },
    }
  })
  return {deployments: [d], replicaSets, pods: [], sources: new WeakMap()}
}
