// sync.go: proportional scaling (upstream's TestScale table), cleanup of old ReplicaSets, status
// calculation and the new ReplicaSet's name. Every case runs against the in-memory API server, so
// the resulting replica counts are read back from what was written.

import {describe, expect, it} from 'vitest'
import {StatusError} from '../../../src/controller/api/errors.js'
import type {Deployment, DeploymentStatus, ReplicaSet} from '../../../src/controller/api/types.js'
import {computeHash} from '../../../src/controller/controller-utils.js'
import {
  cleanupDeployment,
  getAllReplicaSetsAndSyncRevision,
  scale,
  syncDeploymentStatus,
} from '../../../src/controller/sync.js'
import {
  DesiredReplicasAnnotation,
  MaxReplicasAnnotation,
  maxSurge,
  RevisionAnnotation,
} from '../../../src/controller/util/deployment-util.js'
import {
  iso,
  NOW,
  newDeployment,
  newHarness,
  newReplicaSet,
  rs,
  type SeenEvent,
  scaled,
  withStatus,
} from './fixtures.js'

// --- TestScale ------------------------------------------------------------------------------------

const newer = Date.parse('2016-05-20T02:00:00Z')
const old = Date.parse('2016-05-20T01:00:00Z')
const older = Date.parse('2016-05-20T00:00:00Z')

interface ScaleCase {
  name: string
  d: Deployment
  /** The Deployment as it was before the scaling event: its size goes into the RS annotations. */
  oldD: Deployment
  newRS?: ReplicaSet
  oldRSs: ReplicaSet[]
  /** desired-replicas annotation overrides, by RS name. */
  desired?: Record<string, number>
  /** Resulting spec.replicas by RS name. */
  want: Record<string, number>
  /** RSs written, in order (size changes and forced annotation refreshes). */
  updated: string[]
  events: SeenEvent[]
}

const dep = (replicas: number, surge = 0, unav = 0) =>
  newDeployment('foo', replicas, undefined, surge, unav, undefined)

function updatedTemplate(replicas: number): Deployment {
  const d = dep(replicas)
  d.spec.template.metadata = {labels: {...(d.spec.template.metadata?.labels ?? {}), another: 'label'}}
  return d
}

const scaleCases = (): ScaleCase[] => [
  {
    name: 'normal scaling event: 10 -> 12',
    d: dep(12),
    oldD: dep(10),
    newRS: rs('foo-v1', 10, undefined, {created: newer}),
    oldRSs: [],
    want: {'foo-v1': 12},
    updated: ['foo-v1'],
    events: [scaled('foo-v1', 10, 12)],
  },
  {
    name: 'normal scaling event: 10 -> 5',
    d: dep(5),
    oldD: dep(10),
    newRS: rs('foo-v1', 10, undefined, {created: newer}),
    oldRSs: [],
    want: {'foo-v1': 5},
    updated: ['foo-v1'],
    events: [scaled('foo-v1', 10, 5)],
  },
  {
    name: 'proportional scaling: 5 -> 10',
    d: dep(10),
    oldD: dep(5),
    newRS: rs('foo-v2', 2, undefined, {created: newer}),
    oldRSs: [rs('foo-v1', 3, undefined, {created: old})],
    want: {'foo-v2': 4, 'foo-v1': 6},
    updated: ['foo-v1', 'foo-v2'],
    events: [scaled('foo-v1', 3, 6), scaled('foo-v2', 2, 4)],
  },
  {
    name: 'proportional scaling: 5 -> 3',
    d: dep(3),
    oldD: dep(5),
    newRS: rs('foo-v2', 2, undefined, {created: newer}),
    oldRSs: [rs('foo-v1', 3, undefined, {created: old})],
    want: {'foo-v2': 1, 'foo-v1': 2},
    updated: ['foo-v1', 'foo-v2'],
    events: [scaled('foo-v1', 3, 2), scaled('foo-v2', 2, 1)],
  },
  {
    name: 'proportional scaling: 9 -> 4',
    d: dep(4),
    oldD: dep(9),
    newRS: rs('foo-v2', 8, undefined, {created: newer}),
    oldRSs: [rs('foo-v1', 1, undefined, {created: old})],
    want: {'foo-v2': 4, 'foo-v1': 0},
    updated: ['foo-v2', 'foo-v1'],
    events: [scaled('foo-v2', 8, 4), scaled('foo-v1', 1, 0)],
  },
  {
    name: 'proportional scaling: 7 -> 10',
    d: dep(10),
    oldD: dep(7),
    newRS: rs('foo-v3', 2, undefined, {created: newer}),
    oldRSs: [rs('foo-v2', 3, undefined, {created: old}), rs('foo-v1', 2, undefined, {created: older})],
    want: {'foo-v3': 3, 'foo-v2': 4, 'foo-v1': 3},
    updated: ['foo-v2', 'foo-v3', 'foo-v1'],
    events: [scaled('foo-v2', 3, 4), scaled('foo-v3', 2, 3), scaled('foo-v1', 2, 3)],
  },
  {
    name: 'proportional scaling: 13 -> 8',
    d: dep(8),
    oldD: dep(13),
    newRS: rs('foo-v3', 2, undefined, {created: newer}),
    oldRSs: [rs('foo-v2', 8, undefined, {created: old}), rs('foo-v1', 3, undefined, {created: older})],
    want: {'foo-v3': 1, 'foo-v2': 5, 'foo-v1': 2},
    updated: ['foo-v2', 'foo-v1', 'foo-v3'],
    events: [scaled('foo-v2', 8, 5), scaled('foo-v1', 3, 2), scaled('foo-v3', 2, 1)],
  },
  {
    name: 'leftover distribution: 3 -> 4 (the newest of equal sizes takes it)',
    d: dep(4),
    oldD: dep(3),
    newRS: rs('foo-v3', 1, undefined, {created: newer}),
    oldRSs: [rs('foo-v2', 1, undefined, {created: old}), rs('foo-v1', 1, undefined, {created: older})],
    want: {'foo-v3': 2, 'foo-v2': 1, 'foo-v1': 1},
    updated: ['foo-v3', 'foo-v2', 'foo-v1'],
    events: [scaled('foo-v3', 1, 2)],
  },
  {
    name: 'leftover distribution: 3 -> 2 (the oldest of equal sizes gives it)',
    d: dep(2),
    oldD: dep(3),
    newRS: rs('foo-v3', 1, undefined, {created: newer}),
    oldRSs: [rs('foo-v2', 1, undefined, {created: old}), rs('foo-v1', 1, undefined, {created: older})],
    want: {'foo-v3': 1, 'foo-v2': 1, 'foo-v1': 0},
    updated: ['foo-v1', 'foo-v2', 'foo-v3'],
    events: [scaled('foo-v1', 1, 0)],
  },
  {
    name: 'proportional scaling (no new rs): 4 -> 5',
    d: dep(5),
    oldD: dep(4),
    oldRSs: [rs('foo-v2', 2, undefined, {created: old}), rs('foo-v1', 2, undefined, {created: older})],
    want: {'foo-v2': 3, 'foo-v1': 2},
    updated: ['foo-v2', 'foo-v1'],
    events: [scaled('foo-v2', 2, 3)],
  },
  {
    name: 'proportional scaling: 6 -> 0',
    d: dep(0),
    oldD: dep(6),
    newRS: rs('foo-v3', 3, undefined, {created: newer}),
    oldRSs: [rs('foo-v2', 2, undefined, {created: old}), rs('foo-v1', 1, undefined, {created: older})],
    want: {'foo-v3': 0, 'foo-v2': 0, 'foo-v1': 0},
    updated: ['foo-v3', 'foo-v2', 'foo-v1'],
    events: [scaled('foo-v3', 3, 0), scaled('foo-v2', 2, 0), scaled('foo-v1', 1, 0)],
  },
  {
    name: 'proportional scaling: 0 -> 6 (nothing active: the new RS takes it all)',
    d: dep(6),
    oldD: dep(6),
    newRS: rs('foo-v3', 0, undefined, {created: newer}),
    oldRSs: [rs('foo-v2', 0, undefined, {created: old}), rs('foo-v1', 0, undefined, {created: older})],
    want: {'foo-v3': 6, 'foo-v2': 0, 'foo-v1': 0},
    updated: ['foo-v3'],
    events: [scaled('foo-v3', 0, 6)],
  },
  {
    name: 'scale with a stale desired annotation on one old RS',
    d: dep(5),
    oldD: dep(5),
    newRS: rs('foo-v3', 2, undefined, {created: newer}),
    oldRSs: [rs('foo-v2', 1, undefined, {created: old}), rs('foo-v1', 1, undefined, {created: older})],
    desired: {'foo-v2': 3},
    want: {'foo-v3': 2, 'foo-v2': 2, 'foo-v1': 1},
    updated: ['foo-v2'],
    events: [scaled('foo-v2', 1, 2)],
  },
  {
    name: 'deployment with surge pods',
    d: dep(20, 2),
    oldD: dep(10, 2),
    newRS: rs('foo-v2', 6, undefined, {created: newer}),
    oldRSs: [rs('foo-v1', 6, undefined, {created: old})],
    want: {'foo-v2': 11, 'foo-v1': 11},
    updated: ['foo-v2', 'foo-v1'],
    events: [scaled('foo-v2', 6, 11), scaled('foo-v1', 6, 11)],
  },
  {
    name: 'change both surge and size',
    d: dep(50, 6),
    oldD: dep(10, 3),
    newRS: rs('foo-v2', 5, undefined, {created: newer}),
    oldRSs: [rs('foo-v1', 8, undefined, {created: old})],
    want: {'foo-v2': 22, 'foo-v1': 34},
    updated: ['foo-v1', 'foo-v2'],
    events: [scaled('foo-v1', 8, 34), scaled('foo-v2', 5, 22)],
  },
  {
    name: 'change both size and template',
    d: updatedTemplate(14),
    oldD: dep(10),
    oldRSs: [rs('foo-v2', 7, undefined, {created: newer}), rs('foo-v1', 3, undefined, {created: old})],
    want: {'foo-v2': 10, 'foo-v1': 4},
    updated: ['foo-v2', 'foo-v1'],
    events: [scaled('foo-v2', 7, 10), scaled('foo-v1', 3, 4)],
  },
  {
    name: 'saturated but broken new replica set does not affect old pods',
    d: dep(2, 1, 1),
    oldD: dep(2, 1, 1),
    newRS: withStatus(rs('foo-v2', 2, undefined, {created: newer}), {available: 0}),
    oldRSs: [rs('foo-v1', 1, undefined, {created: old})],
    want: {'foo-v2': 2, 'foo-v1': 1},
    updated: [],
    events: [],
  },
]

describe('scale (TestScale)', () => {
  for (const c of scaleCases()) {
    it(c.name, async () => {
      const all = [...(c.newRS ? [c.newRS] : []), ...c.oldRSs]
      for (const r of all) {
        const desired = c.desired?.[r.metadata.name ?? ''] ?? c.oldD.spec.replicas ?? 0
        r.metadata.annotations = {
          [DesiredReplicasAnnotation]: String(desired),
          [MaxReplicasAnnotation]: String(desired + maxSurge(c.oldD)),
        }
      }
      const h = newHarness({deployments: [c.d], replicaSets: all})
      await scale(h.ctx, c.d, c.newRS, [...c.oldRSs])

      const got = Object.fromEntries(
        all.map((r) => [r.metadata.name, h.storedRS(r.metadata.name!)?.spec.replicas]),
      )
      expect(got).toEqual(c.want)
      expect(h.rsUpdates().map((r) => r.metadata.name)).toEqual(c.updated)
      expect(h.events).toEqual(c.events)
      // Every write refreshes the annotations to the Deployment's current size.
      const replicas = c.d.spec.replicas ?? 0
      for (const sent of h.rsUpdates()) {
        expect(sent.metadata.annotations).toEqual({
          [DesiredReplicasAnnotation]: String(replicas),
          [MaxReplicasAnnotation]: String(replicas + maxSurge(c.d)),
        })
      }
      expect(h.verbs().every((v) => v === 'update replicasets')).toBe(true)
    })
  }

  it('leaves Recreate Deployments with several active ReplicaSets alone', async () => {
    const d = dep(10)
    d.spec.strategy = {type: 'Recreate'}
    const a = rs('foo-v2', 2, undefined, {created: newer})
    const b = rs('foo-v1', 3, undefined, {created: old})
    const h = newHarness({deployments: [d], replicaSets: [a, b]})
    await scale(h.ctx, d, a, [b])
    expect(h.verbs()).toEqual([])
  })

  it('scales every active old RS to 0 once the new RS is saturated', async () => {
    const d = dep(3)
    const n = withStatus(rs('foo-v2', 3, undefined, {created: newer}), {available: 3})
    n.metadata.annotations = {[DesiredReplicasAnnotation]: '3', [MaxReplicasAnnotation]: '3'}
    const o1 = rs('foo-v1', 2, undefined, {created: old})
    const o0 = rs('foo-v0', 0, undefined, {created: older})
    const h = newHarness({deployments: [d], replicaSets: [n, o1, o0]})
    await scale(h.ctx, d, n, [o1, o0])
    expect(h.calls()).toEqual([{verb: 'update', resource: 'replicasets', name: 'foo-v1'}])
    expect(h.storedRS('foo-v1')?.spec.replicas).toBe(0)
    expect(h.events).toEqual([scaled('foo-v1', 2, 0)])
  })

  it('does nothing, annotations included, when the only active RS already has the size', async () => {
    const d = dep(4)
    const n = rs('foo-v1', 4, undefined, {created: newer})
    n.metadata.annotations = {[DesiredReplicasAnnotation]: '1', [MaxReplicasAnnotation]: '1'}
    const h = newHarness({deployments: [d], replicaSets: [n]})
    await scale(h.ctx, d, n, [])
    expect(h.verbs()).toEqual([])
  })
})

// --- cleanupDeployment ----------------------------------------------------------------------------

describe('cleanupDeployment', () => {
  const run = async (oldRSs: ReplicaSet[], limit: number | undefined) => {
    const d = newDeployment('foo', 1, limit, undefined, undefined, {foo: 'bar'})
    const h = newHarness({deployments: [d], replicaSets: oldRSs})
    await cleanupDeployment(h.ctx, [...oldRSs], d)
    expect(h.verbs().every((v) => v === 'delete replicasets')).toBe(true)
    return h.calls().map((c) => c.name)
  }
  const st = (name: string, spec: number, status: number) =>
    withStatus(rs(name, spec, undefined), {replicas: status})

  it('deletes the oldest beyond the limit (equal revisions and times: by name)', async () => {
    expect(await run([st('foo-1', 0, 0), st('foo-2', 0, 0), st('foo-3', 0, 0)], 1)).toEqual([
      'foo-1',
      'foo-2',
    ])
  })

  it('skips ReplicaSets that still have replicas, in spec or status', async () => {
    expect(
      await run([st('foo-1', 0, 0), st('foo-2', 0, 1), st('foo-3', 1, 0), st('foo-4', 1, 1)], 0),
    ).toEqual(['foo-1'])
  })

  it('deletes everything empty with a limit of 0', async () => {
    expect(await run([st('foo-1', 0, 0), st('foo-2', 0, 0)], 0)).toEqual(['foo-1', 'foo-2'])
  })

  it('deletes nothing that has replicas', async () => {
    expect(await run([st('foo-1', 1, 1), st('foo-2', 1, 1)], 0)).toEqual([])
  })

  it('does not count or delete a ReplicaSet being deleted', async () => {
    const r = st('foo-1', 0, 0)
    r.metadata.deletionTimestamp = iso(NOW)
    expect(await run([r], 0)).toEqual([])
  })

  it('keeps everything with an unlimited (MaxInt32) or absent history limit', async () => {
    const three = () => [st('foo-1', 0, 0), st('foo-2', 0, 0), st('foo-3', 0, 0)]
    expect(await run(three(), 2147483647)).toEqual([])
    expect(await run(three(), undefined)).toEqual([])
  })

  it('skips a ReplicaSet whose spec the ReplicaSet controller has not observed yet', async () => {
    const r = st('foo-1', 0, 0)
    r.metadata.generation = 2
    r.status = {...r.status, observedGeneration: 1}
    const ok = st('foo-2', 0, 0)
    ok.metadata.generation = 2
    ok.status = {...ok.status, observedGeneration: 2}
    expect(await run([r, ok], 0)).toEqual(['foo-2'])
  })

  it('ignores NotFound on delete and carries on', async () => {
    const d = newDeployment('foo', 1, 0, undefined, undefined, {foo: 'bar'})
    const gone = st('foo-1', 0, 0)
    const here = st('foo-2', 0, 0)
    const h = newHarness({deployments: [d], replicaSets: [here]})
    await cleanupDeployment(h.ctx, [gone, here], d)
    expect(h.calls().map((c) => c.name)).toEqual(['foo-1', 'foo-2'])
    expect(h.storedRS('foo-2')).toBeUndefined()
  })
})

describe('cleanupDeployment order (by revision, then creation time)', () => {
  const t = [NOW - 60_000, NOW, NOW + 60_000, NOW + 120_000]
  const r = (i: number, replicas: number, rev?: string) => {
    const x = withStatus(rs(`foo-${i}`, replicas, {foo: 'bar'}, {created: t[i - 1]}), {replicas})
    if (rev !== undefined) x.metadata.annotations = {[RevisionAnnotation]: rev}
    return x
  }
  const cases: Array<[string, () => ReplicaSet[], number, string[]]> = [
    ['lower revision first', () => [r(1, 0, '1'), r(2, 0, '2')], 1, ['foo-1']],
    ['revision beats creation time', () => [r(1, 0, '2'), r(2, 0, '1')], 1, ['foo-2']],
    ['no revision counts as 0', () => [r(1, 0, '1'), r(2, 0)], 1, ['foo-2']],
    ['no revision counts as 0 (older)', () => [r(1, 0), r(2, 0, '2')], 1, ['foo-1']],
    ['skipped ones are not replaced', () => [r(1, 1, '1'), r(2, 0, '2'), r(3, 0, '3')], 1, ['foo-2']],
    ['all candidates busy', () => [r(1, 1, '1'), r(2, 1, '2'), r(3, 0, '3')], 1, []],
    [
      'four revisions out of order',
      () => [r(1, 0, '3'), r(2, 0, '1'), r(3, 0, '4'), r(4, 0, '2')],
      2,
      ['foo-2', 'foo-4'],
    ],
    ['an unparsable revision falls back to creation time', () => [r(1, 0, '9'), r(2, 0, 'x')], 1, ['foo-1']],
  ]
  for (const [name, build, limit, want] of cases) {
    it(name, async () => {
      const sets = build()
      const d = newDeployment('foo', 1, limit, undefined, undefined, {foo: 'bar'})
      const h = newHarness({deployments: [d], replicaSets: sets})
      await cleanupDeployment(h.ctx, sets, d)
      expect(h.calls().map((c) => `${c.verb} ${c.name}`)).toEqual(want.map((n) => `delete ${n}`))
    })
  }
})

// --- syncDeploymentStatus -------------------------------------------------------------------------

describe('syncDeploymentStatus', () => {
  const available = (since: string) => ({
    type: 'Available',
    status: 'True',
    lastUpdateTime: since,
    lastTransitionTime: since,
    reason: 'MinimumReplicasAvailable',
    message: 'Deployment has minimum availability.',
  })

  it('writes the calculated status and keeps it on the in-memory Deployment', async () => {
    const d = newDeployment('foo', 3, undefined, 1, 1, {foo: 'bar'})
    d.metadata.generation = 2
    const n = withStatus(newReplicaSet(d, 'foo-new', 3), {replicas: 3, ready: 2, available: 2})
    const o = withStatus(newReplicaSet(d, 'foo-old', 1), {replicas: 1, ready: 1, available: 1})
    const h = newHarness({deployments: [d], replicaSets: [n, o]})
    await syncDeploymentStatus(h.ctx, [o, n], n, d)
    const want: DeploymentStatus = {
      observedGeneration: 2,
      replicas: 4,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      unavailableReplicas: 1,
      terminatingReplicas: 0,
      conditions: [available(iso(NOW))],
    }
    expect(h.verbs()).toEqual(['update deployments/status'])
    expect(h.storedDeployment('foo')?.status).toEqual(want)
    expect(d.status).toEqual(want)
  })

  it('writes nothing when the status is equal under Go rules (absent equals 0)', async () => {
    const d = newDeployment('foo', 1, undefined, 1, 1, {foo: 'bar'})
    d.metadata.generation = 1
    const n = withStatus(newReplicaSet(d, 'foo-new', 1), {replicas: 1, ready: 1, available: 1})
    d.status = {
      observedGeneration: 1,
      replicas: 1,
      updatedReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      unavailableReplicas: 0,
      terminatingReplicas: 0,
      conditions: [available('2026-01-01T00:00:00Z')],
    }
    const h = newHarness({deployments: [d], replicaSets: [n]})
    await syncDeploymentStatus(h.ctx, [n], n, d)
    expect(h.verbs()).toEqual([])
  })

  it('tells a nil terminatingReplicas from 0 (gate off leaves it nil)', async () => {
    const d = newDeployment('foo', 1, undefined, 1, 1, {foo: 'bar'})
    const n = withStatus(newReplicaSet(d, 'foo-new', 1), {replicas: 1, available: 1})
    d.status = {
      replicas: 1,
      updatedReplicas: 1,
      availableReplicas: 1,
      terminatingReplicas: 0,
      conditions: [available('2026-01-01T00:00:00Z')],
    }
    const h = newHarness(
      {deployments: [d], replicaSets: [n]},
      {gates: 'DeploymentReplicaSetTerminatingReplicas=false'},
    )
    await syncDeploymentStatus(h.ctx, [n], n, d)
    expect(h.verbs()).toEqual(['update deployments/status'])
    expect(d.status.terminatingReplicas).toBeUndefined()
  })

  it('reports unknown terminating replicas as nil once an RS was synced without the field', async () => {
    const d = newDeployment('foo', 1, undefined, 1, 1, {foo: 'bar'})
    const n = withStatus(newReplicaSet(d, 'foo-new', 1), {observedGeneration: 1, replicas: 1, available: 1})
    const h = newHarness({deployments: [d], replicaSets: [n]})
    await syncDeploymentStatus(h.ctx, [n], n, d)
    expect(d.status).toEqual({
      replicas: 1,
      updatedReplicas: 1,
      availableReplicas: 1,
      conditions: [available(iso(NOW))],
    })
  })

  it('clamps unavailable at 0, reports lack of availability, copies collisionCount', async () => {
    const d = newDeployment('foo', 4, undefined, 0, 1, {foo: 'bar'})
    d.status = {collisionCount: 2}
    const n = withStatus(newReplicaSet(d, 'foo-new', 0), {})
    const o = withStatus(newReplicaSet(d, 'foo-old', 0), {replicas: 2, available: 2})
    const h = newHarness({deployments: [d], replicaSets: [n, o]})
    await syncDeploymentStatus(h.ctx, [o, n, undefined], n, d)
    expect(d.status).toEqual({
      replicas: 2,
      availableReplicas: 2,
      terminatingReplicas: 0,
      collisionCount: 2,
      conditions: [
        {
          type: 'Available',
          status: 'False',
          lastUpdateTime: iso(NOW),
          lastTransitionTime: iso(NOW),
          reason: 'MinimumReplicasUnavailable',
          message: 'Deployment does not have minimum availability.',
        },
      ],
    })
  })
})

// --- the new ReplicaSet's name ----------------------------------------------------------------------

describe('new ReplicaSet name (generateReplicaSetName through getNewReplicaSet)', () => {
  for (const name of ['my-deployment', 'a'.repeat(242), 'a'.repeat(250), 'b'.repeat(253)]) {
    it(`${name.slice(0, 13)} (${name.length} chars)`, async () => {
      const d = newDeployment(name, 1, undefined, undefined, undefined, {foo: 'bar'})
      const h = newHarness({deployments: [d]})
      const {newRS} = await getAllReplicaSetsAndSyncRevision(h.ctx, d, [], true)
      expect(h.verbs()).toEqual(['create replicasets', 'update deployments/status'])
      const hash = newRS?.metadata.labels?.['pod-template-hash'] ?? ''
      expect(hash).toMatch(/^[456789bcdf]{1,10}$/)
      const keep = Math.min(name.length, 253 - 1 - hash.length)
      expect(newRS?.metadata.name).toBe(`${name.slice(0, keep)}-${hash}`)
      expect(newRS?.metadata.name?.length).toBeLessThanOrEqual(253)
      expect(newRS?.spec.selector?.matchLabels).toEqual({foo: 'bar', 'pod-template-hash': hash})
      expect(newRS?.spec.template?.metadata?.labels).toEqual({foo: 'bar', 'pod-template-hash': hash})
    })
  }
})

// --- getNewReplicaSet: the existing-RS and creation paths -----------------------------------------

describe('getNewReplicaSet', () => {
  const withDeadline = () => {
    const d = newDeployment('foo', 2, undefined, 1, 0, {foo: 'bar'})
    d.spec.progressDeadlineSeconds = 600
    return d
  }
  const expectedName = (d: Deployment, collisionCount?: number) =>
    `foo-${computeHash(d.spec.template, collisionCount)}`

  it('creates the RS with the surge-limited size, revision and replica annotations', async () => {
    const d = withDeadline()
    const h = newHarness({deployments: [d]})
    const {newRS} = await getAllReplicaSetsAndSyncRevision(h.ctx, d, [], true)
    expect(newRS?.metadata.name).toBe(expectedName(d))
    expect(newRS?.spec.replicas).toBe(2)
    expect(newRS?.metadata.annotations).toEqual({
      [RevisionAnnotation]: '1',
      [DesiredReplicasAnnotation]: '2',
      [MaxReplicasAnnotation]: '3',
    })
    expect(h.verbs()).toEqual(['create replicasets', 'update deployments/status'])
    expect(d.status?.conditions).toEqual([
      {
        type: 'Progressing',
        status: 'True',
        lastUpdateTime: iso(NOW),
        lastTransitionTime: iso(NOW),
        reason: 'NewReplicaSetCreated',
        message: `Created new replica set "${expectedName(d)}"`,
      },
    ])
  })

  it('takes over an RS of the same name it owns with the same template (no event, no condition)', async () => {
    const d = withDeadline()
    const existing = newReplicaSet(d, expectedName(d), 2)
    const h = newHarness({deployments: [d], replicaSets: [existing]})
    // The RS is not in this pass's list, so the controller tries to create it.
    const {newRS} = await getAllReplicaSetsAndSyncRevision(h.ctx, d, [], true)
    expect(newRS?.metadata.uid).toBe(existing.metadata.uid)
    expect(h.verbs()).toEqual(['create replicasets', 'update deployments/status'])
    expect(h.events).toEqual([])
    expect(d.status?.conditions).toBeUndefined()
    expect(d.metadata.annotations).toEqual({[RevisionAnnotation]: '1'})
  })

  it('counts a hash collision and fails with AlreadyExists', async () => {
    const d = withDeadline()
    const other = newDeployment('other', 1, undefined, undefined, undefined, {foo: 'bar'})
    const squatter = newReplicaSet(other, expectedName(d), 1)
    const h = newHarness({deployments: [d], replicaSets: [squatter]})
    await expect(getAllReplicaSetsAndSyncRevision(h.ctx, d, [], true)).rejects.toThrow(
      `replicasets.apps "${expectedName(d)}" already exists`,
    )
    expect(h.verbs()).toEqual(['create replicasets', 'update deployments/status'])
    expect(d.status?.collisionCount).toBe(1)
    expect(h.storedDeployment('foo')?.status?.collisionCount).toBe(1)
    // The next pass hashes with the new count, so it picks another name.
    expect(expectedName(d, 1)).not.toBe(expectedName(d))
  })

  it('keeps the collision count in memory even when its status write fails', async () => {
    const d = withDeadline()
    const other = newDeployment('other', 1, undefined, undefined, undefined, {foo: 'bar'})
    const squatter = newReplicaSet(other, expectedName(d), 1)
    d.status = {collisionCount: 4}
    const name = expectedName(d, 4)
    squatter.metadata.name = name
    // The API server has no Deployment: UpdateStatus fails with NotFound, which is only logged.
    const h = newHarness({replicaSets: [squatter]})
    await expect(getAllReplicaSetsAndSyncRevision(h.ctx, d, [], true)).rejects.toThrow(
      `replicasets.apps "${name}" already exists`,
    )
    expect(d.status?.collisionCount).toBe(5)
  })

  it('reports other create errors on the Progressing condition and as a Warning', async () => {
    const d = withDeadline()
    const h = newHarness({deployments: [d]})
    h.ctx.client = Object.assign(Object.create(h.client), {
      createReplicaSet: async () => {
        throw new StatusError('InternalError', 500, 'etcd is sad')
      },
    })
    await expect(getAllReplicaSetsAndSyncRevision(h.ctx, d, [], true)).rejects.toThrow('etcd is sad')
    const message = `Failed to create new replica set "${expectedName(d)}": etcd is sad`
    expect(h.verbs()).toEqual(['update deployments/status'])
    expect(d.status?.conditions).toEqual([
      {
        type: 'Progressing',
        status: 'False',
        lastUpdateTime: iso(NOW),
        lastTransitionTime: iso(NOW),
        reason: 'ReplicaSetCreateError',
        message,
      },
    ])
    expect(h.events).toEqual([{type: 'Warning', reason: 'ReplicaSetCreateError', message}])
  })

  it('says nothing when the namespace is terminating', async () => {
    const d = withDeadline()
    const h = newHarness({deployments: [d]})
    h.ctx.client = Object.assign(Object.create(h.client), {
      createReplicaSet: async () => {
        throw new StatusError('Forbidden', 403, 'namespace default is being terminated', [
          {type: 'NamespaceTerminating'},
        ])
      },
    })
    await expect(getAllReplicaSetsAndSyncRevision(h.ctx, d, [], true)).rejects.toThrow('being terminated')
    expect(h.verbs()).toEqual([])
    expect(h.events).toEqual([])
    expect(d.status).toBeUndefined()
  })

  it('syncs annotations and minReadySeconds of the existing new RS first, and stops there', async () => {
    const d = withDeadline()
    d.spec.minReadySeconds = 5
    d.metadata.annotations = {team: 'a'}
    const cur = newReplicaSet(d, 'foo-cur', 2)
    cur.metadata.annotations = {[RevisionAnnotation]: '1'}
    const h = newHarness({deployments: [d], replicaSets: [cur]})
    await getAllReplicaSetsAndSyncRevision(h.ctx, d, [cur], true)
    expect(h.verbs()).toEqual(['update replicasets'])
    const sent = h.rsUpdates()[0]
    expect(sent?.spec.minReadySeconds).toBe(5)
    expect(sent?.metadata.annotations).toEqual({[RevisionAnnotation]: '1', team: 'a'})
    expect(d.metadata.annotations).toEqual({team: 'a'})
  })

  it('gives the Deployment the RS revision, adding FoundNewReplicaSet when no Progressing exists', async () => {
    const d = withDeadline()
    const cur = newReplicaSet(d, 'foo-cur', 2)
    cur.metadata.annotations = {[RevisionAnnotation]: '4'}
    const h = newHarness({deployments: [d], replicaSets: [cur]})
    await getAllReplicaSetsAndSyncRevision(h.ctx, d, [cur], false)
    expect(h.verbs()).toEqual(['update deployments/status'])
    expect(d.metadata.annotations).toEqual({[RevisionAnnotation]: '4'})
    expect(d.status?.conditions).toEqual([
      {
        type: 'Progressing',
        status: 'True',
        lastUpdateTime: iso(NOW),
        lastTransitionTime: iso(NOW),
        reason: 'FoundNewReplicaSet',
        message: 'Found new replica set "foo-cur"',
      },
    ])
  })

  it('copies an unparsable RS revision onto the Deployment as it is', async () => {
    const d = newDeployment('foo', 2, undefined, 1, 0, {foo: 'bar'})
    const cur = newReplicaSet(d, 'foo-cur', 2)
    cur.metadata.annotations = {[RevisionAnnotation]: 'abc'}
    const h = newHarness({deployments: [d], replicaSets: [cur]})
    await getAllReplicaSetsAndSyncRevision(h.ctx, d, [cur], false)
    expect(h.verbs()).toEqual(['update deployments/status'])
    expect(h.storedDeployment('foo')?.metadata.annotations).toEqual({[RevisionAnnotation]: 'abc'})
  })

  it('does not create anything without createIfNotExisted', async () => {
    const d = withDeadline()
    const h = newHarness({deployments: [d]})
    expect(await getAllReplicaSetsAndSyncRevision(h.ctx, d, [], false)).toEqual({
      newRS: undefined,
      oldRSs: [],
    })
    expect(h.verbs()).toEqual([])
  })
})
