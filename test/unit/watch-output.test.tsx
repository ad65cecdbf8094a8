// What `rollout watch` prints without a terminal (line mode, NDJSON) and the frame model behind the
// view (verdict, deadline countdown, ETA, blockers), on the rolling-update example's simulation.

import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadWorld} from '../../src/cluster/load/index.js'
import {blockersOf, deadlineOf, FrameBuilder, verdictOf} from '../../src/render/watch/frame.js'
import {LineWriter} from '../../src/render/watch/lines.js'
import {ndjsonLine, stepJson, summaryJson, timestamp} from '../../src/render/watch/ndjson.js'
import {simulate} from '../../src/sim/simulator.js'

const ROOT = join(import.meta.dirname, '../..')
const START = Date.parse('2026-11-29T10:00:10Z')

async function run(failNewPods?: number) {
  const world = await loadWorld([join(ROOT, 'examples/rolling-update.yaml')])
  return simulate(world, {
    namespace: 'demo',
    name: 'web',
    start: START,
    ...(failNewPods ? {failNewPods} : {}),
  })
}

function lines(sim: Awaited<ReturnType<typeof run>>): string[] {
  const w = new LineWriter('web')
  const out = sim.timeline.flatMap((e) => w.push(e))
  const s = sim.summary
  out.push(
    ...w.finish({
      kind: s.outcome,
      message: s.message,
      summary: {
        duration: s.duration,
        peakPods: s.peakPods,
        minAvailable: s.minAvailable,
        deadlineExceeded: s.deadlineExceeded,
      },
    }),
  )
  return out
}

describe('line mode', () => {
  it('prints one line per change in kubectl words and ends with the success line', async () => {
    expect(lines(await run())).toEqual([
      'web [10:00:10 +0s] Waiting for deployment "web" rollout to finish: 2 out of 4 new replicas have been updated...',
      'web [10:00:10 +0s] Scaled down replica set web-6b78dbb95b from 3 to 2',
      'web [10:00:10 +0s] Scaled up replica set web-cc544bdcc from 2 to 3',
      'web [10:00:10 +0s] Waiting for deployment "web" rollout to finish: 3 out of 4 new replicas have been updated...',
      'web [10:00:16 +6s] Scaled down replica set web-6b78dbb95b from 2 to 1',
      'web [10:00:16 +6s] Scaled up replica set web-cc544bdcc from 3 to 4',
      'web [10:00:16 +6s] Waiting for deployment "web" rollout to finish: 1 old replicas are pending termination...',
      'web [10:00:20 +10s] Scaled down replica set web-6b78dbb95b from 1 to 0',
      'web [10:00:20 +10s] Waiting for deployment "web" rollout to finish: 3 of 4 updated replicas are available...',
      'web [10:00:26 +16s] summary: took 16s, at most 6 pods, at least 3 available, progress deadline not exceeded',
      'web [10:00:26 +16s] deployment "web" successfully rolled out',
    ])
  })

  it('reports failing pods as warnings and ends with the deadline error', async () => {
    const out = lines(await run(1))
    // The kubelet's Warnings (its image back-off event itself is Normal, as upstream's).
    expect(out).toContain('web [10:00:15 +5s] pod/web-cc544bdcc-zzqph: Failed: Error: ImagePullBackOff')
    expect(out).toContain('web [10:00:10 +0s] pod/web-cc544bdcc-zzqph: Failed: Error: ErrImagePull')
    expect(out.some((l) => l.includes('Back-off pulling image'))).toBe(false)
    expect(out.at(-1)).toBe('web [10:10:31 +10m] error: deployment "web" exceeded its progress deadline')
    expect(out.at(-2)).toMatch(/summary: took 10m, .* progress deadline exceeded$/)
  })
})

describe('NDJSON', () => {
  it('writes one Step per timeline entry, then the Summary', async () => {
    const sim = await run()
    const objects = [...sim.timeline.map(stepJson), summaryJson(sim.summary)]
    const text = objects.map(ndjsonLine).join('')
    const parsed = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(parsed).toHaveLength(sim.timeline.length + 1)
    expect(parsed[1]).toMatchObject({
      kind: 'Step',
      step: 1,
      t: 0,
      time: '2026-11-29T10:00:10Z',
      status: 'Waiting for deployment "web" rollout to finish: 2 out of 4 new replicas have been updated...',
      actions: [
        {
          actor: 'deployment-controller',
          verb: 'update',
          resource: 'replicasets',
          name: 'web-6b78dbb95b',
          summary: 'replicas 3 -> 2',
        },
      ],
      replicaSets: [
        {name: 'web-cc544bdcc', revision: 2, new: true, replicas: 2, current: 2, ready: 1, available: 1},
        {name: 'web-6b78dbb95b', revision: 1, new: false, replicas: 2, current: 3, ready: 3, available: 3},
      ],
      pass: {writes: 1, requeueAfterSeconds: 597, error: null},
    })
    expect(parsed.at(-1)).toEqual({
      kind: 'Summary',
      outcome: 'complete',
      message: 'deployment "web" successfully rolled out',
      start: '2026-11-29T10:00:10Z',
      end: '2026-11-29T10:00:26Z',
      duration: 16,
      steps: sim.summary.steps,
      passes: sim.summary.passes,
      peakPods: 6,
      minAvailable: 3,
      deadlineExceeded: false,
      complete: true,
    })
  })

  it('keeps milliseconds in times only when there are some', () => {
    expect(timestamp(START)).toBe('2026-11-29T10:00:10Z')
    expect(timestamp(START + 5)).toBe('2026-11-29T10:00:10.005Z')
  })
})

describe('frames', () => {
  it('tells the verdict, the deadline, the ETA and the blockers', async () => {
    const sim = await run()
    const first = sim.timeline[0]!
    // The status model's verdict: the next pass scales the old ReplicaSet down.
    expect(verdictOf(first.state)).toEqual({code: 'Progressing', reason: 'ScalingDown', tone: 'busy'})
    // Progressing last updated at 10:00:06 with a 600s deadline.
    expect(deadlineOf(first.state, first.time)).toEqual({
      at: Date.parse('2026-11-29T10:10:06Z'),
      remaining: 596_000,
    })
    expect(blockersOf(first.state)).toEqual([
      'web-cc544bdcc-zzqph: container nginx is starting (ContainerCreating)',
    ])
    const builder = new FrameBuilder()
    const frames = sim.timeline.map((e) => builder.push(e))
    expect(frames[0]?.eta).toBeUndefined()
    // By 10:00:20, 2 more new pods became available in 10s: 1 left, about 5s more.
    const at20 = frames.find((f) => f.elapsed === 10_000 && f.replicaSets[0]?.available === 3)
    expect(at20?.eta).toBe(5_000)
    const last = frames.at(-1)!
    expect(last.verdict).toEqual({code: 'Complete', reason: 'RolloutComplete', tone: 'good'})
    expect(last.deadline).toBeUndefined()
    expect(last.eta).toBe(0)
    expect(last.blockers).toEqual([])
    expect(last.events.length).toBeLessThanOrEqual(5)
  })
})
