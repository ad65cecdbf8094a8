// rolling.go: upstream's rolling_test.go tables (the master cases), with the resulting replica
// counts read back from the in-memory API server, including the old-RS counts upstream declared
// but never asserted.

import {describe, expect, it} from 'vitest'
import {
  cleanupUnhealthyReplicas,
  reconcileNewReplicaSet,
  reconcileOldReplicaSets,
  scaleDownOldReplicaSetsForRollingUpdate,
} from '../../../src/controller/rolling.js'
import {
  DesiredReplicasAnnotation,
  MaxReplicasAnnotation,
  RevisionAnnotation,
} from '../../../src/controller/util/deployment-util.js'
import {
  NOW,
  newDeployment,
  newHarness,
  newReplicaSet,
  rs,
  scaled,
  syncKey,
  template,
  withStatus,
} from './fixtures.js'

describe('reconcileNewReplicaSet', () => {
  const cases: Array<[string, number, number, number, number, number | undefined]> = [
    ['should not scale up when the old replica set is fully saturated', 10, 0, 10, 0, undefined],
    ['should scale up according to maxSurge when the old replica set is fully saturated', 10, 2, 10, 0, 2],
    ['should scale up according to maxSurge', 10, 2, 5, 0, 7],
    ['should not scale when maxSurge is fully saturated', 10, 2, 10, 2, undefined],
    ['should scale down when there are replicas above maxSurge', 10, 2, 2, 11, 10],
  ]
  for (const [name, replicas, surge, oldReplicas, newReplicas, want] of cases) {
    it(name, async () => {
      const d = newDeployment('foo', replicas, undefined, surge, 0, {foo: 'bar'})
      const newRS = rs('foo-v2', newReplicas, undefined)
      const oldRS = rs('foo-v1', oldReplicas, undefined)
      const h = newHarness({deployments: [d], replicaSets: [newRS, oldRS]})
      const got = await reconcileNewReplicaSet(h.ctx, [newRS, oldRS], newRS, d)
      if (want === undefined) {
        expect(got).toBe(false)
        expect(h.verbs()).toEqual([])
        expect(h.events).toEqual([])
        return
      }
      expect(got).toBe(true)
      expect(h.calls()).toEqual([{verb: 'update', resource: 'replicasets', name: 'foo-v2'}])
      expect(h.rsUpdates()[0]?.spec.replicas).toBe(want)
      expect(h.storedRS('foo-v2')?.spec.replicas).toBe(want)
      expect(h.storedRS('foo-v1')?.spec.replicas).toBe(oldReplicas)
      expect(h.events).toEqual([scaled('foo-v2', newReplicas, want)])
    })
  }
})

describe('reconcileOldReplicaSets', () => {
  // [name, replicas, maxUnavailable, old, new, readyOld, readyNew, scaled, old RS writes]
  const cases: Array<[string, number, number, number, number, number, number, boolean, number[]]> = [
    ['maxUnavailable 0 resolves to 1: one old pod goes', 10, 0, 10, 0, 10, 0, true, [9]],
    ['maxUnavailable 2: two old pods go', 10, 2, 10, 0, 10, 0, true, [8]],
    ['two unhealthy old pods are cleaned up first', 10, 2, 10, 0, 8, 0, true, [8]],
    ['one unhealthy old pod cleaned up, then one healthy scaled down', 10, 2, 10, 0, 9, 0, true, [9, 8]],
    ['no room: the new RS is still unavailable', 10, 2, 8, 2, 8, 0, false, []],
  ]
  for (const [name, replicas, unav, oldN, newN, readyOld, readyNew, want, writes] of cases) {
    it(name, async () => {
      const d = newDeployment('foo', replicas, undefined, 0, unav, {foo: 'new'})
      const newRS = withStatus(rs('foo-new', newN, {foo: 'new'}), {replicas: newN, available: readyNew})
      const oldRS = withStatus(rs('foo-old', oldN, {foo: 'old'}), {replicas: oldN, available: readyOld})
      const h = newHarness({deployments: [d], replicaSets: [oldRS, newRS]})
      const got = await reconcileOldReplicaSets(h.ctx, [oldRS, newRS], [oldRS], newRS, d)
      expect(got).toBe(want)
      expect(h.rsUpdates().map((r) => `${r.metadata.name}=${r.spec.replicas}`)).toEqual(
        writes.map((n) => `foo-old=${n}`),
      )
      expect(h.storedRS('foo-old')?.spec.replicas).toBe(writes.at(-1) ?? oldN)
      expect(h.storedRS('foo-new')?.spec.replicas).toBe(newN)
      const sizes = [oldN, ...writes]
      expect(h.events).toEqual(writes.map((n, i) => scaled('foo-old', sizes[i]!, n)))
    })
  }

  it('counts availability of the active old RSs and the new RS only', async () => {
    // A drained old RS (spec 0) still has 3 available pods: they are not part of the budget.
    const d = newDeployment('foo', 10, undefined, 0, 2, {foo: 'bar'})
    const newRS = withStatus(rs('foo-new', 2, {foo: 'bar'}, {created: NOW}), {replicas: 2, available: 2})
    const active = withStatus(rs('foo-a', 8, {foo: 'bar'}, {created: NOW - 1000}), {
      replicas: 8,
      available: 8,
    })
    const drained = withStatus(rs('foo-z', 0, {foo: 'bar'}, {created: NOW - 2000}), {
      replicas: 3,
      available: 3,
    })
    const h = newHarness({deployments: [d], replicaSets: [newRS, active, drained]})
    expect(await reconcileOldReplicaSets(h.ctx, [drained, active, newRS], [active], newRS, d)).toBe(true)
    expect(h.storedRS('foo-a')?.spec.replicas).toBe(6)
    expect(h.calls().map((c) => c.name)).toEqual(['foo-a'])
  })

  it('swallows a write error and reports nothing scaled', async () => {
    const d = newDeployment('foo', 10, undefined, 0, 2, {foo: 'new'})
    const newRS = withStatus(rs('foo-new', 0, {foo: 'new'}), {})
    const oldRS = withStatus(rs('foo-old', 10, {foo: 'old'}), {replicas: 10, available: 8})
    // The API server does not have foo-old: the update fails with NotFound.
    const h = newHarness({deployments: [d], replicaSets: [newRS]})
    expect(await reconcileOldReplicaSets(h.ctx, [oldRS, newRS], [oldRS], newRS, d)).toBe(false)
    expect(h.verbs()).toEqual(['update replicasets'])
    expect(h.events).toEqual([])
  })
})

describe('cleanupUnhealthyReplicas', () => {
  const cases: Array<[number, number, number]> = [
    [8, 1, 1],
    [8, 3, 2],
    [8, 0, 0],
    [10, 3, 0],
  ]
  for (const [ready, maxCleanup, want] of cases) {
    it(`available ${ready}/10, at most ${maxCleanup} → ${want}`, async () => {
      const d = newDeployment('foo', 10, undefined, 2, 2, undefined)
      const oldRS = withStatus(rs('foo-v2', 10, undefined), {replicas: 10, available: ready})
      const h = newHarness({deployments: [d], replicaSets: [oldRS]})
      const list = [oldRS]
      const got = await cleanupUnhealthyReplicas(h.ctx, list, d, maxCleanup)
      expect(got.total).toBe(want)
      expect(h.storedRS('foo-v2')?.spec.replicas).toBe(10 - want)
      expect(h.verbs()).toEqual(want > 0 ? ['update replicasets'] : [])
      // The slice now holds what the server returned.
      expect(got.oldRSs).toBe(list)
      expect(list[0]?.spec.replicas).toBe(10 - want)
    })
  }

  it('cleans the oldest RSs first and spreads the budget', async () => {
    const d = newDeployment('foo', 10, undefined, 2, 2, undefined)
    const newer = withStatus(rs('foo-b', 5, undefined, {created: NOW}), {replicas: 5, available: 3})
    const older = withStatus(rs('foo-a', 4, undefined, {created: NOW - 60_000}), {replicas: 4, available: 2})
    const h = newHarness({deployments: [d], replicaSets: [newer, older]})
    const got = await cleanupUnhealthyReplicas(h.ctx, [newer, older], d, 3)
    expect(got.total).toBe(3)
    expect(got.oldRSs.map((r) => `${r.metadata.name}=${r.spec.replicas}`)).toEqual(['foo-a=2', 'foo-b=4'])
    expect(h.events).toEqual([scaled('foo-a', 4, 2), scaled('foo-b', 5, 4)])
  })
})

describe('scaleDownOldReplicaSetsForRollingUpdate', () => {
  const cases: Array<[string, number, number, number, number | undefined]> = [
    ['maxUnavailable 0 (resolves to 1)', 0, 10, 10, 9],
    ['maxUnavailable 2', 2, 10, 10, 8],
    ['not enough available', 2, 8, 10, undefined],
    ['the old RS is already at 0', 2, 10, 0, undefined],
    ['far below minAvailable', 2, 1, 10, undefined],
  ]
  for (const [name, unav, ready, oldReplicas, want] of cases) {
    it(name, async () => {
      const d = newDeployment('foo', 10, undefined, 0, unav, {foo: 'bar'})
      const oldRS = withStatus(rs('foo-v2', oldReplicas, undefined), {available: ready})
      const h = newHarness({deployments: [d], replicaSets: [oldRS]})
      const got = await scaleDownOldReplicaSetsForRollingUpdate(h.ctx, [oldRS], [oldRS], d)
      if (want === undefined) {
        expect(got).toBe(0)
        expect(h.verbs()).toEqual([])
        return
      }
      expect(got).toBe(oldReplicas - want)
      expect(h.calls()).toEqual([{verb: 'update', resource: 'replicasets', name: 'foo-v2'}])
      expect(h.rsUpdates()[0]?.spec.replicas).toBe(want)
      expect(h.events).toEqual([scaled('foo-v2', oldReplicas, want)])
    })
  }

  it('takes the oldest first, across several old RSs', async () => {
    const d = newDeployment('foo', 10, undefined, 0, 3, {foo: 'bar'})
    const a = withStatus(rs('foo-a', 2, undefined, {created: NOW - 60_000}), {available: 2})
    const b = withStatus(rs('foo-b', 8, undefined, {created: NOW}), {available: 8})
    const h = newHarness({deployments: [d], replicaSets: [a, b]})
    expect(await scaleDownOldReplicaSetsForRollingUpdate(h.ctx, [b, a], [b, a], d)).toBe(3)
    expect(h.rsUpdates().map((r) => `${r.metadata.name}=${r.spec.replicas}`)).toEqual(['foo-a=0', 'foo-b=7'])
  })
})

describe('rolloutRolling (through syncDeployment)', () => {
  const oldTemplate = template({foo: 'bar'}, 'foo/bar:old')

  function world(newReplicas: number) {
    const d = newDeployment('foo', 3, undefined, 3, 0, {foo: 'bar'})
    d.metadata.annotations = {[RevisionAnnotation]: '2'}
    const oldRS = withStatus(newReplicaSet(d, 'foo-old', 3, {created: NOW - 60_000}), {
      replicas: 3,
      ready: 3,
      available: 3,
    })
    oldRS.spec.template = oldTemplate
    oldRS.metadata.annotations = {
      [RevisionAnnotation]: '1',
      [DesiredReplicasAnnotation]: '3',
      [MaxReplicasAnnotation]: '6',
    }
    const newRS = withStatus(newReplicaSet(d, 'foo-new', newReplicas, {created: NOW}), {})
    newRS.metadata.annotations = {
      [RevisionAnnotation]: '2',
      [DesiredReplicasAnnotation]: '3',
      [MaxReplicasAnnotation]: '6',
    }
    return {d, oldRS, newRS}
  }

  it('scales the new RS up and computes status from the pre-scale objects', async () => {
    const {d, oldRS, newRS} = world(0)
    const h = newHarness({deployments: [d], replicaSets: [oldRS, newRS]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['update replicasets', 'update deployments/status'])
    expect(h.storedRS('foo-new')?.spec.replicas).toBe(3)
    expect(h.events).toEqual([scaled('foo-new', 0, 3)])
    // Σspec is still 3 + 0 in the status computation: no unavailable replicas are reported.
    const status = h.storedDeployment('foo')?.status
    expect(status?.replicas).toBe(3)
    expect(status?.updatedReplicas).toBeUndefined()
    expect(status?.unavailableReplicas).toBeUndefined()
    expect(status?.availableReplicas).toBe(3)
    expect(h.path).toContain('rolloutRolling')
  })

  it('scales the old RS down once the new pods are available', async () => {
    const {d, oldRS, newRS} = world(3)
    newRS.status = {replicas: 3, readyReplicas: 3, availableReplicas: 3}
    const h = newHarness({deployments: [d], replicaSets: [oldRS, newRS]})
    expect(await syncKey(h, d)).toBeUndefined()
    // 6 available, minAvailable 3: all three old pods may go at once.
    expect(h.verbs()).toEqual(['update replicasets', 'update deployments/status'])
    expect(h.storedRS('foo-old')?.spec.replicas).toBe(0)
    expect(h.events).toEqual([scaled('foo-old', 3, 0)])
  })
})
