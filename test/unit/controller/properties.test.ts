// Invariants of one controller pass over random valid worlds (fast-check). A fixed seed keeps CI
// reproducible; FC_SEED / FC_RUNS widen the search locally. Shrunk counterexamples found here are
// kept below as regular tests.

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import type {World} from '../../../src/cluster/world.js'
import type {Deployment, ReplicaSet} from '../../../src/controller/api/types.js'
import {parseFeatureGates} from '../../../src/controller/features.js'
import {maxSurge, maxUnavailable} from '../../../src/controller/util/deployment-util.js'
import {deepCopy} from '../../../src/controller/util/equality.js'
import {runPasses} from '../../../src/pass/run.js'
import type {DeploymentResult} from '../../../src/result.js'

const NOW = Date.parse('2026-11-29T10:00:00Z')
const gates = parseFeatureGates(undefined)
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261129
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 300
const D_UID = '11111111-1111-4111-8111-111111111111'

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

const worldSpec = fc.record({
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

type WorldSpec = typeof worldSpec extends fc.Arbitrary<infer T> ? T : never

function buildWorld(w: WorldSpec): World {
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

function copyWorld(w: World): World {
  return {
    deployments: deepCopy(w.deployments),
    replicaSets: deepCopy(w.replicaSets),
    pods: deepCopy(w.pods),
    sources: new WeakMap(),
  }
}

async function pass(world: World): Promise<{result: DeploymentResult; world: World}> {
  const out = await runPasses(world, {namespace: 'default'}, {now: NOW, gates})
  return {result: out.result.results[0]!, world: out.world}
}

const replicasOf = (world: World) =>
  new Map(world.replicaSets.map((rs) => [rs.metadata.name, rs.spec.replicas ?? 0]))

describe('one pass never', () => {
  it('creates more than one ReplicaSet, or deletes one that still has replicas', async () => {
    await fc.assert(
      fc.asyncProperty(worldSpec, async (w) => {
        const before = buildWorld(w)
        const {result} = await pass(copyWorld(before))
        const creates = result.actions.filter((a) => a.verb === 'create')
        expect(creates.length).toBeLessThanOrEqual(1)
        for (const a of result.actions.filter((x) => x.verb === 'delete')) {
          const rs = before.replicaSets.find((x) => x.metadata.name === a.name)!
          expect(rs.spec.replicas).toBe(0)
          expect(rs.status?.replicas ?? 0).toBe(0)
        }
      }),
      {seed: SEED, numRuns: RUNS},
    )
  })

  it('surges past replicas + maxSurge or drains healthy pods below minAvailable in a rolling update', async () => {
    let drained = 0
    let surged = 0
    await fc.assert(
      fc.asyncProperty(worldSpec, async (w) => {
        const before = buildWorld(w)
        const d = before.deployments[0]!
        const {result, world: after} = await pass(copyWorld(before))
        if (!result.path.includes('rolloutRolling') || result.error) return
        const replicas = d.spec.replicas ?? 0
        const limit = replicas + maxSurge(d)
        const owned = (world: World) =>
          world.replicaSets.filter((rs) => rs.metadata.ownerReferences?.some((r) => r.uid === D_UID))
        // The ReplicaSets the Deployment owns in this pass: owned before, adopted or created by it.
        // (A later update of an adopted ReplicaSet sends the cached copy without the new owner, as
        // upstream's does, so ownership after the pass is not the measure.)
        const names = new Set([
          ...owned(before).map((rs) => rs.metadata.name),
          ...result.actions.filter((a) => a.verb === 'patch' || a.verb === 'create').map((a) => a.name),
        ])
        const ours = (world: World) => world.replicaSets.filter((rs) => names.has(rs.metadata.name))
        const total = (world: World) =>
          world.replicaSets
            .filter((rs) => names.has(rs.metadata.name))
            .reduce((n, rs) => n + (rs.spec.replicas ?? 0), 0)
        const grew = ours(after).some(
          (rs) => (rs.spec.replicas ?? 0) > (replicasOf(before).get(rs.metadata.name) ?? 0),
        )
        // Scaling up never goes past the surge limit.
        if (grew) {
          surged++
          expect(total(after)).toBeLessThanOrEqual(limit)
        }

        // Scaling old ReplicaSets down removes unhealthy pods first; healthy ones only while
        // the Deployment keeps minAvailable.
        const minAvailable = replicas - maxUnavailable(d)
        const beforeReplicas = replicasOf(before)
        let healthyRemoved = 0
        let availableTotal = 0
        for (const rs of before.replicaSets)
          if (names.has(rs.metadata.name)) availableTotal += rs.status?.availableReplicas ?? 0
        for (const rs of ours(after)) {
          const was = beforeReplicas.get(rs.metadata.name) ?? 0
          const now = rs.spec.replicas ?? 0
          if (now >= was) continue
          const orig = before.replicaSets.find((x) => x.metadata.name === rs.metadata.name)!
          const unhealthy = was - (orig.status?.availableReplicas ?? 0)
          healthyRemoved += Math.max(0, was - now - Math.max(0, unhealthy))
        }
        if (healthyRemoved > 0) {
          drained++
          expect(availableTotal - healthyRemoved).toBeGreaterThanOrEqual(minAvailable)
        }
      }),
      {seed: SEED, numRuns: RUNS},
    )
    // The generator must reach both decisions often enough for the property to mean something.
    expect(drained).toBeGreaterThan(RUNS / 20)
    expect(surged).toBeGreaterThan(RUNS / 20)
  })
})

/** What the ReplicaSet controller and kubelets would do next, done at once: every pod available. */
function settle(world: World): World {
  const w = copyWorld(world)
  for (const rs of w.replicaSets) {
    const n = rs.spec.replicas ?? 0
    rs.status = {
      replicas: n,
      readyReplicas: n,
      availableReplicas: n,
      fullyLabeledReplicas: n,
      observedGeneration: rs.metadata.generation ?? 1,
      terminatingReplicas: 0,
    }
  }
  return w
}

describe('repeated passes', () => {
  it('converge: once pods settle, a pass over a complete Deployment writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(worldSpec, async (w) => {
        let world = buildWorld(w)
        let quiet = false
        for (let i = 0; i < 40 && !quiet; i++) {
          const {result, world: next} = await pass(world)
          quiet = result.actions.length === 0 && result.error === null
          world = settle(next)
        }
        expect(quiet).toBe(true)
        // And stays quiet.
        const {result} = await pass(world)
        expect(result.actions).toEqual([])
      }),
      {seed: SEED, numRuns: Math.min(RUNS, 150)},
    )
  })
})
