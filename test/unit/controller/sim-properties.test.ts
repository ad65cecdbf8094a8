// A simulated rollout (src/sim: ReplicaSet controller and pod lifecycle models around the port)
// always ends within a bound of steps, for every generated world: it completes, hits its progress
// deadline, or (paused, or stuck before the deadline can fire) stops as stalled.

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {simulate} from '../../../src/sim/index.js'
import {buildWorld, NOW, worldSpec} from './world-arbitrary.js'

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261129
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 40
const MAX_STEPS = 3000

describe('simulated rollouts', () => {
  it('end within the step bound, and complete when nothing fails and nothing is paused', async () => {
    await fc.assert(
      fc.asyncProperty(worldSpec, fc.constantFrom(0, 1, '100%'), async (w, failNewPods) => {
        const world = buildWorld(w)
        const {summary} = await simulate(world, {
          name: 'web',
          namespace: 'default',
          start: NOW,
          failNewPods,
          maxSteps: MAX_STEPS,
          maxTime: 30 * 60_000,
          seed: 7,
        })
        expect(summary.steps).toBeLessThanOrEqual(MAX_STEPS)
        expect(summary.outcome).not.toBe('stepLimit')
        // A deadline of 600 s fires long before 30 minutes: no rollout may run out the clock.
        expect(summary.outcome).not.toBe('maxTime')
        if (!w.paused && failNewPods === 0 && w.replicas > 0) expect(summary.outcome).toBe('complete')
        if (summary.outcome === 'deadlineExceeded') expect(failNewPods).not.toBe(0)
      }),
      {seed: SEED, numRuns: RUNS},
    )
  }, 120_000)
})
