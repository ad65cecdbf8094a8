// deployment_controller.go: upstream's fixture-based sync tests (the client calls a pass makes, in
// order), ownership (adopt/release with the exact patch bodies), the pod map, re-entrant rollback,
// and the paused/resumed Progressing conditions.

import {describe, expect, it} from 'vitest'
import {StatusError} from '../../../src/controller/api/errors.js'
import type {Deployment, DeploymentCondition, ReplicaSet} from '../../../src/controller/api/types.js'
import {
  getPodMapForDeployment,
  getReplicaSetsForDeployment,
} from '../../../src/controller/deployment-controller.js'
import {checkPausedConditions} from '../../../src/controller/paused.js'
import {
  DeprecatedRollbackTo,
  DesiredReplicasAnnotation,
  MaxReplicasAnnotation,
  RevisionAnnotation,
} from '../../../src/controller/util/deployment-util.js'
import {
  controllerRef,
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

const nowT = iso(NOW)
const availableTrue: DeploymentCondition = {
  type: 'Available',
  status: 'True',
  lastUpdateTime: nowT,
  lastTransitionTime: nowT,
  reason: 'MinimumReplicasAvailable',
  message: 'Deployment has minimum availability.',
}

describe('syncDeployment: client calls of a pass', () => {
  it('creates the new ReplicaSet, then writes the revision and the status', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    const h = newHarness({deployments: [d]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual([
      'create replicasets',
      'update deployments/status',
      'update deployments/status',
    ])

    const created = h.client.actions[0]?.object as ReplicaSet
    expect(created.spec.replicas).toBe(1)
    expect(created.metadata.ownerReferences).toEqual([controllerRef(d)])
    expect(h.events).toEqual([
      {
        type: 'Normal',
        reason: 'ScalingReplicaSet',
        message: `Scaled up replica set ${created.metadata.name} from 0 to 1`,
      },
    ])
    const first = h.client.actions[1]?.object as Deployment
    expect(first.metadata.annotations).toEqual({[RevisionAnnotation]: '1'})
    expect(first.status ?? {}).toEqual({})
    const stored = h.storedDeployment('foo')
    expect(stored?.metadata.annotations).toEqual({[RevisionAnnotation]: '1'})
    expect(stored?.status).toEqual({
      unavailableReplicas: 1,
      terminatingReplicas: 0,
      conditions: [availableTrue],
    })
    expect(h.path.slice(0, 1)).toEqual(['syncDeployment'])
    expect(h.path).toContain('rolloutRolling')
  })

  it('only syncs status while the Deployment is being deleted', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    d.metadata.deletionTimestamp = iso(NOW - 60_000)
    const h = newHarness({deployments: [d]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['update deployments/status'])
    expect(h.storedDeployment('foo')?.status).toEqual({terminatingReplicas: 0, conditions: [availableTrue]})
    expect(h.path).toContain('syncStatusOnly')
    expect(h.events).toEqual([])
  })

  it('refuses to adopt when the uncached Deployment turns out deleted (deletion race)', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    const d2 = structuredClone(d)
    d2.metadata.deletionTimestamp = iso(NOW - 60_000)
    const orphan = rs('rs1', 1, {foo: 'bar'})
    orphan.metadata.labels = {foo: 'bar'}
    const h = newHarness(
      {deployments: [d], replicaSets: [orphan]},
      {server: {deployments: [d2], replicaSets: [orphan]}},
    )
    const err = await syncKey(h, d)
    expect(err?.message).toBe(
      `can't adopt ReplicaSet default/rs1 (${orphan.metadata.uid}): default/foo has just been deleted at 2026-03-02 09:59:00 +0000 UTC`,
    )
    expect(h.verbs()).toEqual(['get deployments'])
  })

  it('does nothing but warn for an empty selector (generation already observed)', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    d.spec.selector = {}
    const h = newHarness({deployments: [d]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual([])
    expect(h.events).toEqual([
      {
        type: 'Warning',
        reason: 'SelectingAll',
        message: 'This deployment is selecting all pods. A non-empty selector is required.',
      },
    ])
  })

  it('records the observed generation for an empty selector', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    d.spec.selector = {}
    d.metadata.generation = 2
    d.status = {observedGeneration: 1}
    const h = newHarness({deployments: [d]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['update deployments/status'])
    expect(h.storedDeployment('foo')?.status).toEqual({observedGeneration: 2})
    expect(h.events.map((e) => e.reason)).toEqual(['SelectingAll'])
  })

  it('scales proportionally on a scaling event instead of rolling', async () => {
    const d = newDeployment('foo', 10, undefined, undefined, undefined, {foo: 'bar'})
    d.metadata.annotations = {[RevisionAnnotation]: '2'}
    const ann = (rev: string) => ({
      [RevisionAnnotation]: rev,
      [DesiredReplicasAnnotation]: '5',
      [MaxReplicasAnnotation]: '5',
    })
    const oldRS = newReplicaSet(d, 'foo-old', 3, {created: NOW - 60_000})
    oldRS.spec.template = template({foo: 'bar'}, 'foo/bar:old')
    oldRS.metadata.annotations = ann('1')
    const newRS = newReplicaSet(d, 'foo-new', 2, {created: NOW})
    newRS.metadata.annotations = ann('2')
    const h = newHarness({deployments: [d], replicaSets: [oldRS, newRS]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['update replicasets', 'update replicasets', 'update deployments/status'])
    expect(h.storedRS('foo-old')?.spec.replicas).toBe(6)
    expect(h.storedRS('foo-new')?.spec.replicas).toBe(4)
    expect(h.events).toEqual([scaled('foo-old', 3, 6), scaled('foo-new', 2, 4)])
    expect(h.path).toContain('sync')
    expect(h.path).not.toContain('rolloutRolling')
  })
})

describe('syncDeployment: edges', () => {
  it('does nothing for a key the cache does not have', async () => {
    const d = newDeployment('gone', 1, undefined, undefined, undefined, {foo: 'bar'})
    const h = newHarness({})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual([])
    expect(h.path).toEqual(['syncDeployment'])
  })

  it('fails on an unknown strategy type after the shared steps', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    d.spec.strategy = {type: 'BlueGreen'}
    const h = newHarness({deployments: [d]})
    expect((await syncKey(h, d))?.message).toBe('unexpected deployment strategy type: BlueGreen')
    expect(h.verbs()).toEqual([])
  })
})

describe('getReplicaSetsForDeployment', () => {
  it('claims only the ReplicaSets each Deployment controls', async () => {
    const d1 = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    const d2 = newDeployment('bar', 1, undefined, undefined, undefined, {foo: 'bar'})
    const rs1 = newReplicaSet(d1, 'rs1', 1)
    const rs2 = newReplicaSet(d2, 'rs2', 1)
    const h = newHarness({deployments: [d1, d2], replicaSets: [rs1, rs2]})
    expect((await getReplicaSetsForDeployment(h.ctx, d1)).map((r) => r.metadata.name)).toEqual(['rs1'])
    expect((await getReplicaSetsForDeployment(h.ctx, d2)).map((r) => r.metadata.name)).toEqual(['rs2'])
    expect(h.verbs()).toEqual([])
  })

  it('adopts a matching orphan and releases an owned RS that stopped matching, with exact patches', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    const rsAdopt = rs('rsAdopt', 1, {foo: 'bar'})
    rsAdopt.metadata.labels = {foo: 'bar'}
    const rsRelease = newReplicaSet(d, 'rsRelease', 1)
    rsRelease.metadata.labels = {foo: 'notbar'}
    const h = newHarness({deployments: [d], replicaSets: [rsAdopt, rsRelease]})

    const claimed = await getReplicaSetsForDeployment(h.ctx, d)
    expect(claimed.map((r) => r.metadata.name)).toEqual(['rsAdopt'])
    expect(h.calls()).toEqual([
      {verb: 'get', resource: 'deployments', name: 'foo'},
      {verb: 'patch', resource: 'replicasets', name: 'rsAdopt'},
      {verb: 'patch', resource: 'replicasets', name: 'rsRelease'},
    ])
    const [, adopt, release] = h.client.actions
    expect(adopt?.patchType).toBe('strategic-merge')
    expect(JSON.stringify(adopt?.patch)).toBe(
      `{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"foo","uid":"${d.metadata.uid}","controller":true,"blockOwnerDeletion":true}],"uid":"${rsAdopt.metadata.uid}"}}`,
    )
    expect(release?.patchType).toBe('strategic-merge')
    expect(JSON.stringify(release?.patch)).toBe(
      `{"metadata":{"uid":"${rsRelease.metadata.uid}","ownerReferences":[{"$patch":"delete","uid":"${d.metadata.uid}"}]}}`,
    )
    expect(h.storedRS('rsAdopt')?.metadata.ownerReferences).toEqual([controllerRef(d)])
    expect(h.storedRS('rsRelease')?.metadata.ownerReferences).toEqual([])
    expect(h.events).toEqual([])
  })

  it('rechecks the Deployment once per pass, and fails every adoption when it is gone', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    const moved = structuredClone(d)
    moved.metadata.uid = 'another-uid'
    const a = rs('a', 1, {foo: 'bar'})
    a.metadata.labels = {foo: 'bar'}
    const b = rs('b', 1, {foo: 'bar'})
    b.metadata.labels = {foo: 'bar'}
    const h = newHarness(
      {deployments: [d], replicaSets: [a, b]},
      {server: {deployments: [moved], replicaSets: [a, b]}},
    )
    const reason = `can't recheck DeletionTimestamp: original Deployment default/foo is gone: got uid another-uid, wanted ${d.metadata.uid}`
    await expect(getReplicaSetsForDeployment(h.ctx, d)).rejects.toThrow(
      `[can't adopt ReplicaSet default/a (${a.metadata.uid}): ${reason}, can't adopt ReplicaSet default/b (${b.metadata.uid}): ${reason}]`,
    )
    expect(h.verbs()).toEqual(['get deployments'])
  })

  it('reports claim errors as one aggregate, identical messages once', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    const strays = ['s1', 's2', 's3'].map((n) => {
      const r = newReplicaSet(d, n, 1)
      r.metadata.labels = {foo: 'notbar'}
      return r
    })
    const h = newHarness({deployments: [d], replicaSets: strays})
    const messages = [
      'etcdserver: request timed out',
      'etcdserver: request timed out',
      'etcdserver: leader changed',
    ]
    let calls = 0
    h.ctx.client = Object.assign(Object.create(h.client), {
      patchReplicaSet: async () => {
        throw new StatusError('InternalError', 500, messages[calls++] ?? '')
      },
    })
    await expect(getReplicaSetsForDeployment(h.ctx, d)).rejects.toMatchObject({
      message: '[etcdserver: request timed out, etcdserver: leader changed]',
    })
    calls = 0
    messages[2] = messages[0]!
    await expect(getReplicaSetsForDeployment(h.ctx, d)).rejects.toMatchObject({
      message: 'etcdserver: request timed out',
    })
  })

  it('neither adopts nor releases while the Deployment is being deleted, but keeps what it owns', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    d.metadata.deletionTimestamp = nowT
    const orphan = rs('orphan', 1, {foo: 'bar'})
    orphan.metadata.labels = {foo: 'bar'}
    const owned = newReplicaSet(d, 'owned', 1)
    const stray = newReplicaSet(d, 'stray', 1)
    stray.metadata.labels = {foo: 'notbar'}
    const h = newHarness({deployments: [d], replicaSets: [orphan, owned, stray]})
    expect((await getReplicaSetsForDeployment(h.ctx, d)).map((r) => r.metadata.name)).toEqual(['owned'])
    expect(h.verbs()).toEqual([])
  })

  it('ignores a release that finds the ReplicaSet gone', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    const stray = newReplicaSet(d, 'stray', 1)
    stray.metadata.labels = {foo: 'notbar'}
    const h = newHarness({deployments: [d], replicaSets: [stray]}, {server: {deployments: [d]}})
    expect(await getReplicaSetsForDeployment(h.ctx, d)).toEqual([])
    expect(h.verbs()).toEqual(['patch replicasets'])
  })
})

describe('getPodMapForDeployment', () => {
  it('maps each owned RS to the pods it controls, any phase, no orphans', () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    const rs1 = newReplicaSet(d, 'rs1', 1)
    const rs2 = newReplicaSet(d, 'rs2', 1)
    const pod1 = newPod('rs1-pod', rs1)
    const pod2 = newPod('rs2-pod', rs2)
    const pod3 = newPod('pod3', rs1)
    pod3.metadata.ownerReferences = []
    const pod4 = newPod('pod4', rs1, 'Failed')
    const h = newHarness({deployments: [d], replicaSets: [rs1, rs2], pods: [pod1, pod2, pod3, pod4]})
    const podMap = getPodMapForDeployment(h.ctx, d, [rs1, rs2])
    expect([...podMap.keys()]).toEqual([rs1.metadata.uid, rs2.metadata.uid])
    expect(podMap.get(rs1.metadata.uid!)?.map((p) => p.metadata.name)).toEqual(['rs1-pod', 'pod4'])
    expect(podMap.get(rs2.metadata.uid!)?.map((p) => p.metadata.name)).toEqual(['rs2-pod'])
  })

  it('fails for a ReplicaSet without a UID', () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    const r = newReplicaSet(d, 'rs1', 1)
    delete r.metadata.uid
    const h = newHarness({deployments: [d]})
    expect(() => getPodMapForDeployment(h.ctx, d, [r])).toThrow('no owner uid provided')
  })
})

describe('rollback', () => {
  it('is re-entrant: rolls back to the last revision with one Deployment update', async () => {
    const selector = {foo: 'bar', 'pod-template-hash': 'hash'}
    const d = newDeployment('foo', 2, undefined, undefined, undefined, selector)
    d.metadata.annotations = {[RevisionAnnotation]: '2', [DeprecatedRollbackTo]: '0'}
    const rs1 = newReplicaSet(d, 'deploymentrs-old', 0)
    rs1.spec.template!.spec = {...rs1.spec.template?.spec, terminationGracePeriodSeconds: 1}
    rs1.metadata.annotations = {[RevisionAnnotation]: '1'}
    const rs2 = newReplicaSet(d, 'deploymentrs-new', 1)
    rs2.metadata.annotations = {[RevisionAnnotation]: '2'}
    const h = newHarness({deployments: [d], replicaSets: [rs1, rs2]})

    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['update deployments'])
    const sent = h.client.actions[0]?.object as Deployment
    expect(sent.metadata.annotations).toEqual({[RevisionAnnotation]: '2'})
    expect(sent.spec.template).toEqual({
      metadata: {labels: {foo: 'bar'}},
      spec: {containers: [{name: 'foo', image: 'foo/bar'}], terminationGracePeriodSeconds: 1},
    })
    expect(h.events).toEqual([
      {type: 'Normal', reason: 'DeploymentRollback', message: 'Rolled back deployment "foo" to revision 1'},
    ])
  })

  it('creates the new RS first when there is none, then rolls back', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    d.metadata.annotations = {[RevisionAnnotation]: '1', [DeprecatedRollbackTo]: '1'}
    const old = withStatus(newReplicaSet(d, 'foo-old', 1, {created: NOW - 60_000}), {
      replicas: 1,
      available: 1,
    })
    old.spec.template = template({foo: 'bar'}, 'foo/bar:old')
    old.metadata.annotations = {[RevisionAnnotation]: '1', 'kubernetes.io/change-cause': 'v1'}
    const h = newHarness({deployments: [d], replicaSets: [old]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['create replicasets', 'update deployments/status', 'update deployments'])
    const sent = h.client.actions[2]?.object as Deployment
    expect(sent.metadata.annotations).toEqual({[RevisionAnnotation]: '2', 'kubernetes.io/change-cause': 'v1'})
    expect(sent.spec.template).toEqual(template({foo: 'bar'}, 'foo/bar:old'))
    expect(h.events).toEqual([
      {type: 'Normal', reason: 'DeploymentRollback', message: 'Rolled back deployment "foo" to revision 1'},
    ])
  })

  it('warns when the target has the current template, and still clears the request', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    d.metadata.annotations = {[RevisionAnnotation]: '2', [DeprecatedRollbackTo]: '2'}
    const cur = newReplicaSet(d, 'foo-cur', 1)
    cur.metadata.annotations = {[RevisionAnnotation]: '2'}
    const h = newHarness({deployments: [d], replicaSets: [cur]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['update deployments'])
    expect(h.storedDeployment('foo')?.metadata.annotations).toEqual({[RevisionAnnotation]: '2'})
    expect(h.events).toEqual([
      {
        type: 'Warning',
        reason: 'DeploymentRollbackTemplateUnchanged',
        message: 'The rollback revision contains the same template as current deployment "foo"',
      },
    ])
  })

  it('warns when there is no last revision to go back to', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    d.metadata.annotations = {[RevisionAnnotation]: '1', [DeprecatedRollbackTo]: '0'}
    const cur = newReplicaSet(d, 'foo-cur', 1)
    cur.metadata.annotations = {[RevisionAnnotation]: '1'}
    const h = newHarness({deployments: [d], replicaSets: [cur]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['update deployments'])
    expect(h.events).toEqual([
      {
        type: 'Warning',
        reason: 'DeploymentRollbackRevisionNotFound',
        message: 'Unable to find last revision.',
      },
    ])
  })

  it('gives up on an unknown revision and clears the request', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    d.metadata.annotations = {[RevisionAnnotation]: '1', [DeprecatedRollbackTo]: '7'}
    const cur = newReplicaSet(d, 'foo-1', 1)
    cur.metadata.annotations = {[RevisionAnnotation]: '1'}
    const h = newHarness({deployments: [d], replicaSets: [cur]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['update deployments'])
    expect(h.storedDeployment('foo')?.metadata.annotations).toEqual({[RevisionAnnotation]: '1'})
    expect(h.events).toEqual([
      {
        type: 'Warning',
        reason: 'DeploymentRollbackRevisionNotFound',
        message: 'Unable to find the revision to rollback to.',
      },
    ])
  })
})

describe('paused and resumed conditions', () => {
  const progressing = (
    reason: string,
    message: string,
    update: string,
    transition: string,
  ): DeploymentCondition => ({
    type: 'Progressing',
    status: 'Unknown',
    lastUpdateTime: update,
    lastTransitionTime: transition,
    reason,
    message,
  })
  const earlier = '2026-03-01T00:00:00Z'

  const dep = (paused: boolean, conditions: DeploymentCondition[], pds: number | null = 600) => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, {foo: 'bar'})
    d.spec.paused = paused
    if (pds !== null) d.spec.progressDeadlineSeconds = pds
    d.status = {conditions}
    return d
  }

  it('adds DeploymentPaused when paused', async () => {
    const d = dep(true, [])
    const h = newHarness({deployments: [d]})
    await checkPausedConditions(h.ctx, d)
    expect(h.verbs()).toEqual(['update deployments/status'])
    expect(d.status?.conditions).toEqual([
      progressing('DeploymentPaused', 'Deployment is paused', nowT, nowT),
    ])
  })

  it('adds DeploymentResumed when resumed, keeping the transition time', async () => {
    const d = dep(false, [progressing('DeploymentPaused', 'Deployment is paused', earlier, earlier)])
    const h = newHarness({deployments: [d]})
    await checkPausedConditions(h.ctx, d)
    expect(h.verbs()).toEqual(['update deployments/status'])
    expect(d.status?.conditions).toEqual([
      progressing('DeploymentResumed', 'Deployment is resumed', nowT, earlier),
    ])
  })

  it('writes nothing when already paused, without a deadline, or after a timeout', async () => {
    const cases = [
      dep(true, [progressing('DeploymentPaused', 'Deployment is paused', earlier, earlier)]),
      dep(true, [], null),
      dep(true, [], 2147483647),
      dep(true, [{type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded'}]),
      dep(false, []),
    ]
    for (const d of cases) {
      const before = structuredClone(d.status)
      const h = newHarness({deployments: [d]})
      await checkPausedConditions(h.ctx, d)
      expect(h.verbs()).toEqual([])
      expect(d.status).toEqual(before)
    }
  })

  it('a paused pass: condition, scale-only sync, cleanup, status', async () => {
    const d = dep(true, [])
    d.spec.revisionHistoryLimit = 0
    d.metadata.annotations = {[RevisionAnnotation]: '2'}
    const cur = withStatus(newReplicaSet(d, 'foo-cur', 1, {created: NOW}), {replicas: 1, available: 1})
    cur.metadata.annotations = {
      [RevisionAnnotation]: '2',
      [DesiredReplicasAnnotation]: '1',
      [MaxReplicasAnnotation]: '1',
    }
    const old = withStatus(newReplicaSet(d, 'foo-old', 0, {created: NOW - 60_000}), {})
    old.spec.template = template({foo: 'bar'}, 'foo/bar:old')
    old.metadata.annotations = {[RevisionAnnotation]: '1'}
    const h = newHarness({deployments: [d], replicaSets: [cur, old]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual([
      'update deployments/status',
      'delete replicasets',
      'update deployments/status',
    ])
    expect(h.calls()[1]?.name).toBe('foo-old')
    expect(h.storedDeployment('foo')?.status).toEqual({
      replicas: 1,
      updatedReplicas: 1,
      availableReplicas: 1,
      terminatingReplicas: 0,
      conditions: [progressing('DeploymentPaused', 'Deployment is paused', nowT, nowT), availableTrue],
    })
  })
  it('a paused Deployment with a pending rollback neither rolls back nor cleans up', async () => {
    const d = dep(true, [])
    d.spec.revisionHistoryLimit = 0
    d.metadata.annotations = {[RevisionAnnotation]: '2', [DeprecatedRollbackTo]: '1'}
    const cur = withStatus(newReplicaSet(d, 'foo-cur', 1, {created: NOW}), {replicas: 1, available: 1})
    cur.metadata.annotations = {
      [RevisionAnnotation]: '2',
      [DesiredReplicasAnnotation]: '1',
      [MaxReplicasAnnotation]: '1',
    }
    const old = withStatus(newReplicaSet(d, 'foo-old', 0, {created: NOW - 60_000}), {})
    old.spec.template = template({foo: 'bar'}, 'foo/bar:old')
    old.metadata.annotations = {[RevisionAnnotation]: '1'}
    const h = newHarness({deployments: [d], replicaSets: [cur, old]})
    expect(await syncKey(h, d)).toBeUndefined()
    expect(h.verbs()).toEqual(['update deployments/status', 'update deployments/status'])
    expect(h.path).not.toContain('rollback')
    expect(h.storedDeployment('foo')?.metadata.annotations?.[DeprecatedRollbackTo]).toBe('1')
  })
})
