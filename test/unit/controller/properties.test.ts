// Invariants of one controller pass over random valid worlds (fast-check). A fixed seed keeps CI
// reproducible; FC_SEED / FC_RUNS widen the search locally. Shrunk counterexamples found here are
// kept below as regular tests.

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import type {World} from '../../../src/cluster/world.js'
import {parseFeatureGates} from '../../../src/controller/features.js'
import {maxSurge, maxUnavailable} from '../../../src/controller/util/deployment-util.js'
import {deepCopy} from '../../../src/controller/util/equality.js'
import type {DeploymentResult} from '../../../src/pass/result.js'
import {runPasses} from '../../../src/pass/run.js'
import {buildWorld, D_UID, NOW, worldSpec} from './world-arbitrary.js'

const gates = parseFeatureGates(undefined)
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261129
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 300

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
  return {result: out.result.items[0]!, world: out.world}
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
