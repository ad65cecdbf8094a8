// recreate.go: upstream's recreate_test.go cases (scale-down in place, oldPodsRunning) and the
// Recreate rollout as syncDeployment drives it: old pods gone before the new RS exists.

import {describe, expect, it} from 'vitest'
import type {Pod, ReplicaSet} from '../../../src/controller/api/types.js'
import {
  oldPodsRunning,
  type PodMap,
  scaleDownOldReplicaSetsForRecreate,
} from '../../../src/controller/recreate.js'
import {
  DesiredReplicasAnnotation,
  MaxReplicasAnnotation,
  RevisionAnnotation,
} from '../../../src/controller/util/deployment-util.js'
import {
  iso,
  NOW,
  newDeployment,
  newHarness,
  newPod,
  newReplicaSet,
  rs,
  scaled,
  syncKey,
  template,
  withStatus,
} from './fixtures.js'

describe('scaleDownOldReplicaSetsForRecreate', () => {
  it('scales every active old RS to 0 and replaces the slice entries with the written objects', async () => {
    const d = newDeployment('foo', 3, undefined, undefined, undefined, {foo: 'bar'})
    const a = newReplicaSet(d, 'foo-0', 3)
    const b = newReplicaSet(d, 'foo-1', 2)
    const h = newHarness({deployments: [d], replicaSets: [a, b]})
    const list = [a, b]
    expect(await scaleDownOldReplicaSetsForRecreate(h.ctx, list, d)).toBe(true)
    expect(list.map((r) => r.spec.replicas)).toEqual([0, 0])
    expect(list[0]).not.toBe(a)
    expect(a.spec.replicas).toBe(3)
    expect(h.events).toEqual([scaled('foo-0', 3, 0), scaled('foo-1', 2, 0)])
  })

  it('leaves empty RSs (and their slice entries) alone', async () => {
    const d = newDeployment('foo', 3, undefined, undefined, undefined, {foo: 'bar'})
    const a = newReplicaSet(d, 'foo-0', 0)
    const h = newHarness({deployments: [d], replicaSets: [a]})
    const list = [a]
    expect(await scaleDownOldReplicaSetsForRecreate(h.ctx, list, d)).toBe(false)
    expect(list[0]).toBe(a)
    expect(h.verbs()).toEqual([])
  })

  it('stops at the first failed write', async () => {
    const d = newDeployment('foo', 3, undefined, undefined, undefined, {foo: 'bar'})
    const missing = newReplicaSet(d, 'foo-0', 3)
    const b = newReplicaSet(d, 'foo-1', 2)
    const h = newHarness({deployments: [d], replicaSets: [b]})
    await expect(scaleDownOldReplicaSetsForRecreate(h.ctx, [missing, b], d)).rejects.toThrow(
      'replicasets.apps "foo-0" not found',
    )
    expect(h.calls().map((c) => c.name)).toEqual(['foo-0'])
  })
})

describe('oldPodsRunning', () => {
  const rsWithUID = (uid: string) => {
    const r = withStatus(rs('rs-1', 0, undefined), {replicas: 0})
    r.metadata.uid = uid
    return r
  }
  const pods = (...phases: string[]): Pod[] =>
    phases.map((phase, i) => newPod(`p${i}`, rsWithUID('owner'), phase === '' ? undefined : phase))
  const cases: Array<[string, ReplicaSet | undefined, ReplicaSet[], PodMap, boolean]> = [
    ['no old RSs', undefined, [], new Map(), false],
    [
      'old RSs with running pods (phase unset)',
      undefined,
      [rsWithUID('some-uid'), rsWithUID('other-uid')],
      new Map([
        ['some-uid', pods('', '')],
        ['other-uid', pods('', '')],
      ]),
      true,
    ],
    [
      'no pods, but non-zero status replicas',
      undefined,
      [withStatus(rs('rs-1', 0, undefined), {replicas: 1})],
      new Map(),
      true,
    ],
    [
      'no pods and no status replicas',
      undefined,
      [withStatus(rs('rs-1', 0, undefined), {})],
      new Map(),
      false,
    ],
    [
      'zero status replicas, terminal pods only',
      undefined,
      [rsWithUID('uid-1')],
      new Map([['uid-1', pods('Failed', 'Succeeded')]]),
      false,
    ],
    ['an Unknown pod', undefined, [rsWithUID('uid-1')], new Map([['uid-1', pods('Unknown')]]), true],
    ['a Pending pod', undefined, [rsWithUID('uid-1')], new Map([['uid-1', pods('Pending')]]), true],
    ['a Running pod', undefined, [rsWithUID('uid-1')], new Map([['uid-1', pods('Running')]]), true],
    [
      'terminal pods and a pending one under other keys',
      undefined,
      [rsWithUID('uid-1')],
      new Map([
        ['uid-1', pods('Failed', 'Succeeded')],
        ['uid-2', []],
        ['uid-3', pods('Pending')],
      ]),
      true,
    ],
    [
      "the new RS's own pods do not count",
      rsWithUID('new-uid'),
      [rsWithUID('uid-1')],
      new Map([
        ['new-uid', pods('Running')],
        ['uid-1', []],
      ]),
      false,
    ],
  ]
  for (const [name, newRS, oldRSs, podMap, want] of cases) {
    it(name, () => {
      expect(oldPodsRunning(newRS, oldRSs, podMap)).toBe(want)
    })
  }
})

describe('rolloutRecreate (through syncDeployment)', () => {
  const oldTemplate = template({foo: 'bar'}, 'foo/bar:old')

  function setup(oldSpec: number, oldStatusReplicas: number) {
    const d = newDeployment('foo', 3, undefined, undefined, undefined, {foo: 'bar'})
    d.spec.strategy = {type: 'Recreate'}
    d.metadata.annotations = {[RevisionAnnotation]: '1'}
    const oldRS = withStatus(newReplicaSet(d, 'foo-old', oldSpec, {created: NOW - 60_000}), {
      replicas: oldStatusReplicas,
      ready: oldStatusReplicas,
      available: oldStatusReplicas,
    })
    oldRS.spec.template = oldTemplate
    oldRS.metadata.annotations = {
      [RevisionAnnotation]: '1',
      [DesiredReplicasAnnotation]: '3',
      [MaxReplicasAnnotation]: '3',
    }
    return {d, oldRS}
  }

  it('scales the old RS to 0 first and creates nothing', async () => {
    const {d, oldRS} = setup(3, 3)
    const h = newHarness({deployments: [d], replicaSets: [oldRS]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['update replicasets', 'update deployments/status'])
    expect(h.storedRS('foo-old')?.spec.replicas).toBe(0)
    expect(h.events).toEqual([scaled('foo-old', 3, 0)])
    expect(h.path).toContain('rolloutRecreate')
  })

  it('waits while the old RS still reports pods', async () => {
    const {d, oldRS} = setup(0, 2)
    const h = newHarness({deployments: [d], replicaSets: [oldRS]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['update deployments/status'])
    expect(h.storedDeployment('foo')?.status?.replicas).toBe(2)
  })

  it('waits for a terminating old pod the RS no longer counts', async () => {
    const {d, oldRS} = setup(0, 0)
    const pod = newPod('foo-old-a', oldRS, 'Running')
    pod.metadata.deletionTimestamp = iso(NOW)
    const h = newHarness({deployments: [d], replicaSets: [oldRS], pods: [pod]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['update deployments/status'])
    expect(h.events).toEqual([])
  })

  it('creates the new RS at full size once only terminal old pods are left', async () => {
    const {d, oldRS} = setup(0, 0)
    const h = newHarness({
      deployments: [d],
      replicaSets: [oldRS],
      pods: [newPod('foo-old-a', oldRS, 'Failed'), newPod('foo-old-b', oldRS, 'Succeeded')],
    })
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual([
      'create replicasets',
      'update deployments/status',
      'update deployments/status',
    ])
    const created = h.client.actions[0]?.object as ReplicaSet
    expect(created.spec.replicas).toBe(3)
    expect(created.metadata.annotations).toEqual({
      [RevisionAnnotation]: '2',
      [DesiredReplicasAnnotation]: '3',
      [MaxReplicasAnnotation]: '3',
    })
    expect(h.events).toEqual([
      {
        type: 'Normal',
        reason: 'ScalingReplicaSet',
        message: `Scaled up replica set ${created.metadata.name} from 0 to 3`,
      },
    ])
    expect(h.storedDeployment('foo')?.metadata.annotations?.[RevisionAnnotation]).toBe('2')
  })

  it('scales an existing new RS up to the full size', async () => {
    const {d, oldRS} = setup(0, 0)
    d.metadata.annotations = {[RevisionAnnotation]: '2'}
    const newRS = newReplicaSet(d, 'foo-new', 1, {created: NOW})
    newRS.metadata.annotations = {
      [RevisionAnnotation]: '2',
      [DesiredReplicasAnnotation]: '3',
      [MaxReplicasAnnotation]: '3',
    }
    const h = newHarness({
      deployments: [d],
      replicaSets: [oldRS, newRS],
      pods: [newPod('foo-new-a', newRS, 'Running')],
    })
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['update replicasets', 'update deployments/status'])
    expect(h.storedRS('foo-new')?.spec.replicas).toBe(3)
    expect(h.events).toEqual([scaled('foo-new', 1, 3)])
  })
})
