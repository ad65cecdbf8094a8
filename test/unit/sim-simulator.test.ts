// Simulated rollouts checked against the Deployment controller's arithmetic: the ReplicaSet sizes
// at each step, the surge and availability bounds, Recreate's order, the progress deadline, and
// determinism.

import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadWorldFromText} from '../../src/cluster/load/from-text.js'
import {loadWorld} from '../../src/cluster/load/index.js'
import type {World} from '../../src/cluster/world.js'
import {MAX_POD_OBJECTS} from '../../src/sim/cluster.js'
import {
  parseFailNewPods,
  type Simulation,
  SimulationError,
  Simulator,
  simulate,
  snapshotTime,
  type TimelineEntry,
} from '../../src/sim/simulator.js'
import {podCount} from '../../src/status/pods.js'

const ROOT = join(import.meta.dirname, '../..')
const T0 = Date.parse('2026-11-29T09:00:00Z')

function deploymentYaml(o: {replicas: number; strategy?: string; extra?: string}): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: demo
  uid: 11111111-2222-4333-8444-555555555555
  generation: 1
  creationTimestamp: "2026-11-29T09:00:00Z"
  labels: {app: web}
spec:
  replicas: ${o.replicas}
  selector: {matchLabels: {app: web}}
  strategy: ${o.strategy ?? '{type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}}'}
${o.extra ?? ''}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.26"}]}
`
}

/**
 * A Deployment rolled out at revision 1 (simulated until complete, from T0), then given a new
 * image as `kubectl set image` would: generation 2. The second rollout starts a minute later.
 */
async function updatedWorld(o: {
  replicas: number
  strategy?: string
  extra?: string
}): Promise<{world: World; start: number}> {
  const first = new Simulator(loadWorldFromText(deploymentYaml(o), 'web.yaml'), {
    namespace: 'demo',
    name: 'web',
    start: T0,
  })
  while (await first.next()) {}
  expect(first.summary().outcome).toBe('complete')
  const world = first.world()
  const d = structuredClone(world.deployments[0]!)
  d.spec.template.spec!.containers![0]!.image = 'nginx:1.27'
  d.metadata.generation = 2
  world.deployments = [d]
  // Whole seconds, as the objects' timestamps are.
  return {world, start: Math.ceil((first.summary().end + 60_000) / 1000) * 1000}
}

const rsByRevision = (e: TimelineEntry, revision: number) =>
  e.observation.replicaSets.find((r) => r.revision === revision)

/** [elapsed seconds, new RS spec.replicas, old RS spec.replicas] each time a size changes. */
function sizes(sim: Simulation): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = []
  for (const e of sim.timeline) {
    const row: [number, number, number] = [
      e.elapsed / 1000,
      rsByRevision(e, 2)?.replicas ?? 0,
      rsByRevision(e, 1)?.replicas ?? 0,
    ]
    const last = out.at(-1)
    if (!last || last[1] !== row[1] || last[2] !== row[2]) out.push(row)
  }
  return out
}

describe('rolling update, 10 replicas, maxSurge 25% (3), maxUnavailable 25% (2)', async () => {
  const {world, start} = await updatedWorld({replicas: 10})
  const sim = await simulate(world, {namespace: 'demo', name: 'web', start})

  it('resolves the fenceposts as the controller does', () => {
    const d = sim.timeline[0]!.observation.deployment
    expect([d.maxSurge, d.maxUnavailable]).toEqual([3, 2])
  })

  it('sizes the ReplicaSets step by step as rolling.go computes them', () => {
    expect(sizes(sim)).toEqual([
      [0, 0, 10],
      // t=0, pass 1: new RS created at min(10+3-10, 10) = 3; old scaled down by
      // min(13 - 8 - 3 unavailable new, 10 available - 8) = 2.
      [0, 3, 8],
      // pass 2: 3+8 = 11 < 13, so the new RS grows by 2 (spec counts, not pods: the 2 old pods are
      // still terminating).
      [0, 5, 8],
      // t=10s: the 5 new pods are available: 13 available - 8 = 5 old pods may go: 8 -> 3; then the
      // new RS fills the room: 3+5 = 8, +5 -> 10.
      [10, 5, 3],
      [10, 10, 3],
      // t=20s: all 10 new pods available: the last 3 old ones go.
      [20, 10, 0],
    ])
  })

  it('never asks for more than replicas + maxSurge pods nor lets availability drop below replicas - maxUnavailable', () => {
    for (const e of sim.timeline) {
      const specTotal = e.observation.replicaSets.reduce((n, r) => n + r.replicas, 0)
      const available = e.observation.replicaSets.reduce((n, r) => n + r.available, 0)
      expect(specTotal, `step ${e.step}`).toBeLessThanOrEqual(13)
      expect(available, `step ${e.step}`).toBeGreaterThanOrEqual(8)
    }
    expect(sim.summary.minAvailable).toBe(8)
  })

  it('completes at +20s with the kubectl message, and counts terminating pods in the peak', () => {
    expect(sim.summary).toMatchObject({
      kind: 'Summary',
      outcome: 'complete',
      complete: true,
      deadlineExceeded: false,
      duration: 20_000,
      message: 'deployment "web" successfully rolled out',
      // 10 new + 3 old active + 5 old terminating at +10s.
      peakPods: 18,
    })
    expect(sim.timeline.at(-1)?.observation.rollout).toEqual({
      message: 'deployment "web" successfully rolled out',
      done: true,
      error: false,
    })
    expect(sim.timeline.at(-1)?.state.verdict.code).toBe('Complete')
  })

  it('records the controller writes and events of each pass', () => {
    const first = sim.timeline[1]!
    const writes = first.actions
      .filter((a) => a.actor === 'deployment-controller' && a.resource === 'replicasets')
      .map((a) => `${a.verb} ${a.resource} ${a.summary}`)
    expect(writes[0]).toMatch(/^create replicasets created \(replicas 3, revision 2\)$/)
    expect(writes[1]).toBe('update replicasets replicas 10 -> 8')
    expect(first.events.map((e) => e.message)).toEqual([
      expect.stringMatching(/^Scaled up replica set web-\w+ from 0 to 3$/),
      expect.stringMatching(/^Scaled down replica set web-\w+ from 10 to 8$/),
    ])
    // The ReplicaSet controller follows in the next step at the same instant.
    const next = sim.timeline[2]!
    expect(next.elapsed).toBe(0)
    expect(
      next.actions.filter((a) => a.actor === 'replicaset-controller' && a.verb === 'create'),
    ).toHaveLength(3)
    expect(
      next.actions.filter((a) => a.actor === 'replicaset-controller' && a.verb === 'delete'),
    ).toHaveLength(2)
  })
})

describe('Recreate', async () => {
  const {world, start} = await updatedWorld({replicas: 4, strategy: '{type: Recreate}'})
  const sim = await simulate(world, {namespace: 'demo', name: 'web', start})

  it('scales the old ReplicaSet to 0 and creates the new one only once every old pod is gone', () => {
    expect(sizes(sim)).toEqual([
      [0, 0, 4],
      [0, 0, 0],
      // terminateAfter (5s) later the old pods are gone; the new ReplicaSet appears at full size.
      [5, 4, 0],
    ])
    for (const e of sim.timeline) {
      if (rsByRevision(e, 2)) expect(rsByRevision(e, 1)?.pods, `step ${e.step}`).toEqual([])
    }
    expect(sim.summary).toMatchObject({outcome: 'complete', duration: 15_000, minAvailable: 0, peakPods: 4})
  })
})

describe('failing new pods', async () => {
  const {world, start} = await updatedWorld({replicas: 4, extra: '  progressDeadlineSeconds: 60'})
  const run = () => simulate(world, {namespace: 'demo', name: 'web', start, failNewPods: 1})
  const sim = await run()

  it('exceeds the progress deadline one second after lastUpdateTime + progressDeadlineSeconds', () => {
    const i = sim.timeline.findIndex((e) => e.observation.rollout.error)
    expect(i).toBeGreaterThan(0)
    const before = sim.timeline[i - 1]!.observation.deployment.conditions.find(
      (c) => c.type === 'Progressing',
    )
    expect(before?.reason).toBe('ReplicaSetUpdated')
    const lastProgress = Date.parse(before?.lastUpdateTime ?? '')
    // The last progress: the third healthy new pod available at +30s.
    expect(lastProgress - start).toBe(30_000)
    // requeueStuckDeployment adds the key back after (deadline - now) + 1s.
    expect(sim.timeline[i]!.time).toBe(lastProgress + 60_000 + 1_000)
    expect(sim.timeline[i]!.observation.rollout.message).toBe(
      'error: deployment "web" exceeded its progress deadline',
    )
    expect(sim.summary).toMatchObject({
      outcome: 'deadlineExceeded',
      deadlineExceeded: true,
      complete: false,
      duration: 91_000,
    })
  })

  it('keeps exactly that many pods of the newest ReplicaSet failing', () => {
    const last = sim.timeline.at(-1)!
    const fresh = rsByRevision(last, 2)!
    expect(fresh.pods.filter((p) => p.state === 'failing').map((p) => p.reason)).toEqual(['ImagePullBackOff'])
    expect(fresh.available).toBe(3)
  })
  it('fails every new pod whose image is on a .invalid registry, without --fail-new-pods', async () => {
    const d = structuredClone(world.deployments[0]!)
    d.spec.template.spec!.containers![0]!.image = 'registry.example.invalid/nginx:1.27'
    const bad = {...world, deployments: [d]}
    const r = await simulate(bad, {namespace: 'demo', name: 'web', start})
    expect(r.summary.outcome).toBe('deadlineExceeded')
    const fresh = rsByRevision(r.timeline.at(-1)!, 2)!
    expect(fresh.pods.length).toBeGreaterThan(0)
    expect(fresh.pods.every((p) => p.state === 'failing' && p.reason === 'ImagePullBackOff')).toBe(true)
    expect(
      r.timeline.flatMap((e) => e.events).some((e) => e.reason === 'Pulling' && e.source === 'kubelet'),
    ).toBe(true)
  })

  it('gives the same timeline on every run', async () => {
    expect(JSON.stringify(await run())).toBe(JSON.stringify(sim))
  })

  it('alternates ImagePullBackOff and CrashLoopBackOff, with restarts, for a percentage', async () => {
    const {world: w10, start: s10} = await updatedWorld({replicas: 10})
    const r = await simulate(w10, {
      namespace: 'demo',
      name: 'web',
      start: s10,
      failNewPods: '25%',
      maxTime: 5 * 60_000,
    })
    const fresh = rsByRevision(r.timeline.at(-1)!, 2)!
    const failing = fresh.pods.filter((p) => p.state === 'failing')
    // 25% of 10, rounded up.
    expect(failing.map((p) => p.reason).sort()).toEqual([
      'CrashLoopBackOff',
      'ImagePullBackOff',
      'ImagePullBackOff',
    ])
    const crashing = failing.find((p) => p.reason === 'CrashLoopBackOff')
    expect(crashing?.restarts).toBeGreaterThan(3)
    expect(crashing?.message).toMatch(/^back-off \d+s restarting failed container=nginx pod=web-/)
    // 600s deadline, 5 minute cap.
    expect(r.summary).toMatchObject({
      outcome: 'maxTime',
      duration: 300_000,
      message: 'error: timed out waiting for the condition',
    })
  })
})

describe('simulator edges', () => {
  it('waits minReadySeconds (strictly) before a ready pod counts as available', async () => {
    const {world, start} = await updatedWorld({replicas: 2, extra: '  minReadySeconds: 5'})
    const sim = await simulate(world, {namespace: 'demo', name: 'web', start})
    const firstAvailable = sim.timeline.find((e) => (rsByRevision(e, 2)?.available ?? 0) > 0)
    expect(firstAvailable?.elapsed).toBe(10_000 + 5_000 + 1)
    expect(sim.summary.outcome).toBe('complete')
  })

  it('plays the rolling-update example to completion', async () => {
    const world = await loadWorld([join(ROOT, 'examples/rolling-update.yaml')])
    const sim = await simulate(world, {
      namespace: 'demo',
      name: 'web',
      start: Date.parse('2026-11-29T10:00:10Z'),
    })
    expect(sim.summary).toMatchObject({outcome: 'complete', duration: 16_000, minAvailable: 3, peakPods: 6})
    // The first pass is the one `dry-run sync` shows for this file: old RS 3 -> 2.
    expect(sim.timeline[1]?.actions.map((a) => a.summary)).toEqual(['replicas 3 -> 2'])
  })

  it('reports a paused Deployment as stalled', async () => {
    const world = await loadWorld([join(ROOT, 'examples/paused.yaml')])
    const sim = await simulate(world, {
      namespace: 'demo',
      name: 'worker',
      start: Date.parse('2026-11-29T10:00:00Z'),
    })
    expect(sim.summary).toMatchObject({
      outcome: 'stalled',
      message: 'error: deployment "worker" rollout cannot progress: the Deployment is paused',
    })
  })

  it('stops at the step bound', async () => {
    const {world, start} = await updatedWorld({replicas: 4})
    const sim = await simulate(world, {namespace: 'demo', name: 'web', start, maxSteps: 3})
    expect(sim.summary).toMatchObject({outcome: 'stepLimit', steps: 3})
  })

  it('makes pods ready at once with readyAfter 0', async () => {
    const {world, start} = await updatedWorld({replicas: 4})
    const sim = await simulate(world, {
      namespace: 'demo',
      name: 'web',
      start,
      timings: {readyAfter: 0, terminateAfter: 0},
    })
    expect(sim.summary).toMatchObject({outcome: 'complete', duration: 0})
  })

  it('refuses an unknown Deployment and a bad --fail-new-pods', () => {
    const world = loadWorldFromText(deploymentYaml({replicas: 1}), 'web.yaml')
    expect(() => new Simulator(world, {namespace: 'demo', name: 'api', start: T0})).toThrow(
      new SimulationError('deployments.apps "api" not found in namespace "demo"'),
    )
    expect(parseFailNewPods('2')).toBe(2)
    expect(parseFailNewPods('50%')).toBe('50%')
    expect(() => parseFailNewPods('half')).toThrow(SimulationError)
    expect(() => parseFailNewPods(-1)).toThrow(SimulationError)
  })
})

describe('rollouts of many pods (issue 28: plan hung on 2147483647 replicas)', () => {
  it('takes as many steps for 100,000 pods as for 40, in cohorts of pods', async () => {
    const run = async (replicas: number) => {
      const sim = new Simulator(loadWorldFromText(deploymentYaml({replicas}), 'web.yaml'), {
        namespace: 'demo',
        name: 'web',
        start: T0,
      })
      let objects = 0
      while (await sim.next()) objects = Math.max(objects, sim.world().pods.length)
      return {summary: sim.summary(), objects, world: sim.world()}
    }
    const small = await run(40)
    const big = await run(100_000)
    expect(big.summary).toMatchObject({outcome: 'complete', peakPods: 100_000})
    expect(big.summary.steps).toBeLessThanOrEqual(small.summary.steps)
    // The pod objects stay near MAX_POD_OBJECTS whatever the number of pods.
    expect(big.objects).toBeLessThanOrEqual(2 * MAX_POD_OBJECTS)
    expect(big.world.replicaSets[0]?.status).toMatchObject({replicas: 100_000, availableReplicas: 100_000})
  })

  it('rolls steady.yaml out to 100,000 pods of a new image within the surge and availability bounds', async () => {
    const world = await loadWorld([join(ROOT, 'examples/steady.yaml')], {})
    const d = world.deployments[0]!
    world.deployments[0] = {
      ...d,
      metadata: {...d.metadata, generation: 2},
      spec: {
        ...d.spec,
        replicas: 100_000,
        template: {
          ...d.spec.template,
          spec: {containers: [{name: 'nginx', image: 'nginx:1.28'}]},
        },
      },
    }
    const sim = await simulate(world, {
      namespace: 'demo',
      name: 'web',
      start: Date.parse('2026-11-29T10:00:00Z'),
    })
    expect(sim.summary).toMatchObject({outcome: 'complete', minAvailable: 3})
    // spec.replicas + maxSurge at most, active or terminating (as rollout watch counts them).
    const most = Math.max(
      ...sim.timeline.map((e) =>
        e.observation.replicaSets.reduce(
          (n, rs) => n + podCount(rs.pods.filter((p) => p.state !== 'terminating')),
          0,
        ),
      ),
    )
    expect(most).toBe(125_000)
    expect(sim.timeline.length).toBeLessThan(30)
  })

  it('ends on 2147483647 replicas: the new ReplicaSet never grows (spec.replicas + maxSurge overflows int32)', async () => {
    const {world, start} = await updatedWorld({replicas: 1})
    world.deployments[0] = {
      ...world.deployments[0]!,
      spec: {...world.deployments[0]!.spec, replicas: 2147483647},
    }
    const sim = await simulate(world, {namespace: 'demo', name: 'web', start})
    expect(sim.summary.outcome).toBe('deadlineExceeded')
    expect(sim.summary.steps).toBeLessThan(50)
    expect(sim.summary.peakPods).toBe(2147483647)
  })
})

describe('snapshotTime', () => {
  it('is the newest timestamp, none for files without any (the loader made their creation time up)', () => {
    const dated = loadWorldFromText(deploymentYaml({replicas: 1}), 'web.yaml')
    expect(snapshotTime(dated, 'demo')).toBe(T0)
    const undated = loadWorldFromText(
      deploymentYaml({replicas: 1}).replace('  creationTimestamp: "2026-11-29T09:00:00Z"\n', ''),
      'web.yaml',
    )
    expect(snapshotTime(undated, 'demo')).toBeUndefined()
  })

  it('is no earlier than the availability the ReplicaSets report: minReadySeconds after the pods became Ready', async () => {
    const world = await loadWorld([join(ROOT, 'examples/steady.yaml')], {warn: () => {}})
    // The newest timestamp is the last pod's Ready (09:30:06); with minReadySeconds 3 the ReplicaSet
    // counting 3 available was read after 09:30:09.
    expect(snapshotTime(world, 'demo')).toBe(Date.parse('2026-11-29T09:30:06Z'))
    for (const rs of world.replicaSets) rs.spec.minReadySeconds = 3
    expect(snapshotTime(world, 'demo')).toBe(Date.parse('2026-11-29T09:30:10Z'))
    // Counting 2 available: the second pod's Ready (09:30:05) + 3 s.
    for (const rs of world.replicaSets) rs.status = {...rs.status, replicas: 3, availableReplicas: 2}
    expect(snapshotTime(world, 'demo')).toBe(Date.parse('2026-11-29T09:30:09Z'))
  })
})
