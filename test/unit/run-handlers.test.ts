// The event handlers of `run`: which Deployments each informer event enqueues. The cases follow
// upstream's deployment_controller_test.go (TestAddReplicaSet, TestAddReplicaSetOrphan,
// TestUpdateReplicaSet*, TestDeleteReplicaSet*, TestPodDeletion*), written anew for this port, plus
// the details of upstream's handlers those tests do not reach.

import {describe, expect, it} from 'vitest'
import type {Deployment, Pod, ReplicaSet} from '../../src/controller/api/types.js'
import {DeploymentEventHandlers} from '../../src/run/handlers.js'
import {controllerRef, newDeployment, newPod, newReplicaSet} from './controller/fixtures.js'

interface Fixture {
  deployments: Deployment[]
  replicaSets: ReplicaSet[]
  /** The pod informer's cache (after the deletion the handler is told about). */
  pods: Pod[]
  /** What the uncached ReplicaSet list returns (default: replicaSets). */
  apiReplicaSets?: ReplicaSet[]
}

function harness(f: Fixture) {
  const enqueued: string[] = []
  const apiLists: string[] = []
  const key = (o: {metadata: {namespace?: string; name?: string}}) =>
    `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`
  const h = new DeploymentEventHandlers({
    getDeployment: (ns, name) => f.deployments.find((d) => key(d) === `${ns}/${name}`),
    listDeployments: (ns) => f.deployments.filter((d) => d.metadata.namespace === ns),
    getReplicaSet: (ns, name) => f.replicaSets.find((r) => key(r) === `${ns}/${name}`),
    podsByControllerUID: (uid) =>
      f.pods.filter((p) => p.metadata.ownerReferences?.some((r) => r.controller && r.uid === uid)),
    listReplicaSetsFromAPI: async (ns, selector) => {
      apiLists.push(`${ns}?${selector}`)
      return (f.apiReplicaSets ?? f.replicaSets).filter((r) => r.metadata.namespace === ns)
    },
    enqueue: (d) => {
      if (!enqueued.includes(key(d))) enqueued.push(key(d))
    },
  })
  return {h, enqueued, apiLists}
}

/** upstream's bumpResourceVersion: a copy with a different resourceVersion. */
function bumped(rs: ReplicaSet, change: (rs: ReplicaSet) => void = () => {}): ReplicaSet {
  const next = structuredClone(rs)
  next.metadata.resourceVersion = String(Number(rs.metadata.resourceVersion ?? '0') + 1)
  change(next)
  return next
}

function twoDeployments() {
  const d1 = newDeployment('d1', 1, undefined, undefined, undefined, {foo: 'bar'})
  const d2 = newDeployment('d2', 1, undefined, undefined, undefined, {foo: 'bar'})
  const d3 = newDeployment('d3', 1, undefined, undefined, undefined, {foo: 'notbar'})
  return {d1, d2, d3}
}

function orphan(rs: ReplicaSet): ReplicaSet {
  const o = structuredClone(rs)
  delete o.metadata.ownerReferences
  return o
}

describe('Deployment events', () => {
  it('an add enqueues the Deployment', () => {
    const {d1} = twoDeployments()
    const {h, enqueued} = harness({deployments: [d1], replicaSets: [], pods: []})
    h.addDeployment(d1)
    expect(enqueued).toEqual(['default/d1'])
  })

  it('an update enqueues even when nothing changed (no resourceVersion check for Deployments)', () => {
    const {d1} = twoDeployments()
    const {h, enqueued} = harness({deployments: [d1], replicaSets: [], pods: []})
    h.updateDeployment(d1, d1)
    expect(enqueued).toEqual(['default/d1'])
  })

  it('a delete enqueues the Deployment, also from a tombstone', () => {
    const {d1, d2} = twoDeployments()
    const {h, enqueued} = harness({deployments: [], replicaSets: [], pods: []})
    h.deleteDeployment(d1)
    h.deleteDeployment({tombstone: true, key: 'default/d2', obj: d2})
    expect(enqueued).toEqual(['default/d1', 'default/d2'])
  })
})

describe('ReplicaSet added', () => {
  it('enqueues the owner (TestAddReplicaSet)', () => {
    const {d1, d2} = twoDeployments()
    const rs1 = newReplicaSet(d1, 'rs1', 1)
    const rs2 = newReplicaSet(d2, 'rs2', 1)
    const {h, enqueued} = harness({deployments: [d1, d2], replicaSets: [rs1, rs2], pods: []})
    h.addReplicaSet(rs1)
    expect(enqueued).toEqual(['default/d1'])
    h.addReplicaSet(rs2)
    expect(enqueued).toEqual(['default/d1', 'default/d2'])
  })

  it('an orphan enqueues every Deployment whose selector matches it (TestAddReplicaSetOrphan)', () => {
    const {d1, d2, d3} = twoDeployments()
    const rs = orphan(newReplicaSet(d1, 'rs1', 1))
    const {h, enqueued} = harness({deployments: [d1, d2, d3], replicaSets: [rs], pods: []})
    h.addReplicaSet(rs)
    expect(enqueued).toEqual(['default/d1', 'default/d2'])
  })

  it('an orphan without labels, or matched only by an empty selector, enqueues nothing', () => {
    const {d1} = twoDeployments()
    const everything = newDeployment('all', 1, undefined, undefined, undefined, undefined)
    everything.spec.selector = {matchLabels: {}}
    const noLabels = orphan(newReplicaSet(d1, 'rs1', 1))
    delete noLabels.metadata.labels
    const {h, enqueued} = harness({deployments: [d1, everything], replicaSets: [noLabels], pods: []})
    h.addReplicaSet(noLabels)
    const labelled = orphan(newReplicaSet(d1, 'rs2', 1))
    labelled.metadata.labels = {other: 'x'}
    h.addReplicaSet(labelled)
    expect(enqueued).toEqual([])
  })

  it('an orphan is not matched by a Deployment with an invalid selector, nor in another namespace', () => {
    const {d1} = twoDeployments()
    const bad = newDeployment('bad', 1, undefined, undefined, undefined, {foo: 'bar'})
    bad.spec.selector = {matchExpressions: [{key: 'foo', operator: 'In', values: []}]}
    const elsewhere = newDeployment('elsewhere', 1, undefined, undefined, undefined, {foo: 'bar'})
    elsewhere.metadata.namespace = 'other'
    const rs = orphan(newReplicaSet(d1, 'rs1', 1))
    const {h, enqueued} = harness({deployments: [d1, bad, elsewhere], replicaSets: [rs], pods: []})
    h.addReplicaSet(rs)
    expect(enqueued).toEqual(['default/d1'])
  })

  it('a controller reference resolves only with kind Deployment and the same UID; the group is not compared', () => {
    const {d1} = twoDeployments()
    const wrongUID = newReplicaSet(d1, 'rs1', 1)
    wrongUID.metadata.ownerReferences = [{...controllerRef(d1), uid: 'someone-else'}]
    const wrongKind = newReplicaSet(d1, 'rs2', 1)
    wrongKind.metadata.ownerReferences = [{...controllerRef(d1), kind: 'StatefulSet'}]
    const gone = newReplicaSet(
      newDeployment('gone', 1, undefined, undefined, undefined, {foo: 'bar'}),
      'rs3',
      1,
    )
    const otherGroup = newReplicaSet(d1, 'rs4', 1)
    otherGroup.metadata.ownerReferences = [{...controllerRef(d1), apiVersion: 'extensions/v1beta1'}]
    const {h, enqueued} = harness({deployments: [d1], replicaSets: [], pods: []})
    h.addReplicaSet(wrongUID)
    h.addReplicaSet(wrongKind)
    h.addReplicaSet(gone)
    // An owned ReplicaSet whose owner cannot be resolved is not treated as an orphan either.
    expect(enqueued).toEqual([])
    h.addReplicaSet(otherGroup)
    expect(enqueued).toEqual(['default/d1'])
  })

  it('a ReplicaSet added with a deletion timestamp is handled as a delete', () => {
    const {d1, d2} = twoDeployments()
    const owned = newReplicaSet(d1, 'rs1', 1)
    owned.metadata.deletionTimestamp = '2026-03-02T10:00:00Z'
    const orphaned = orphan(newReplicaSet(d2, 'rs2', 1))
    orphaned.metadata.deletionTimestamp = '2026-03-02T10:00:00Z'
    const {h, enqueued} = harness({deployments: [d1, d2], replicaSets: [], pods: []})
    h.addReplicaSet(owned)
    // Deleted orphans are not waited for: the orphan path is not taken.
    h.addReplicaSet(orphaned)
    expect(enqueued).toEqual(['default/d1'])
  })
})

describe('ReplicaSet updated', () => {
  it('enqueues the owner (TestUpdateReplicaSet)', () => {
    const {d1, d2} = twoDeployments()
    const rs1 = newReplicaSet(d1, 'rs1', 1)
    const rs2 = newReplicaSet(d2, 'rs2', 1)
    const {h, enqueued} = harness({deployments: [d1, d2], replicaSets: [rs1, rs2], pods: []})
    h.updateReplicaSet(rs1, bumped(rs1))
    expect(enqueued).toEqual(['default/d1'])
    h.updateReplicaSet(rs2, bumped(rs2))
    expect(enqueued).toEqual(['default/d1', 'default/d2'])
  })

  it('an unchanged resourceVersion (a resync) enqueues nothing', () => {
    const {d1} = twoDeployments()
    const rs1 = newReplicaSet(d1, 'rs1', 1)
    rs1.metadata.resourceVersion = '7'
    const {h, enqueued} = harness({deployments: [d1], replicaSets: [rs1], pods: []})
    h.updateReplicaSet(rs1, structuredClone(rs1))
    expect(enqueued).toEqual([])
  })

  it('an orphan whose labels changed enqueues the matching Deployments (TestUpdateReplicaSetOrphanWithNewLabels)', () => {
    const {d1, d2, d3} = twoDeployments()
    const rs = orphan(newReplicaSet(d1, 'rs1', 1))
    const prev = structuredClone(rs)
    prev.metadata.labels = {foo: 'notbar'}
    const {h, enqueued} = harness({deployments: [d1, d2, d3], replicaSets: [rs], pods: []})
    h.updateReplicaSet(prev, bumped(rs))
    expect(enqueued).toEqual(['default/d1', 'default/d2'])
  })

  it('an orphan updated without label or owner changes enqueues nothing', () => {
    const {d1, d2} = twoDeployments()
    const rs = orphan(newReplicaSet(d1, 'rs1', 1))
    const {h, enqueued} = harness({deployments: [d1, d2], replicaSets: [rs], pods: []})
    h.updateReplicaSet(
      rs,
      bumped(rs, (n) => (n.spec.replicas = 3)),
    )
    expect(enqueued).toEqual([])
  })

  it('a changed controller reference enqueues the old and the new owner (TestUpdateReplicaSetChangeControllerRef)', () => {
    const {d1, d2} = twoDeployments()
    const rs = newReplicaSet(d1, 'rs1', 1)
    const {h, enqueued} = harness({deployments: [d1, d2], replicaSets: [rs], pods: []})
    h.updateReplicaSet(
      rs,
      bumped(rs, (n) => (n.metadata.ownerReferences = [controllerRef(d2)])),
    )
    expect(enqueued).toEqual(['default/d1', 'default/d2'])
  })

  it('a released ReplicaSet enqueues the old owner and every match (TestUpdateReplicaSetRelease)', () => {
    const {d1, d2} = twoDeployments()
    const rs = newReplicaSet(d1, 'rs1', 1)
    const {h, enqueued} = harness({deployments: [d1, d2], replicaSets: [rs], pods: []})
    h.updateReplicaSet(
      rs,
      bumped(rs, (n) => delete n.metadata.ownerReferences),
    )
    expect(enqueued).toEqual(['default/d1', 'default/d2'])
  })
})

describe('ReplicaSet deleted', () => {
  it('enqueues the owner, also from a tombstone (TestDeleteReplicaSet)', () => {
    const {d1, d2} = twoDeployments()
    const rs1 = newReplicaSet(d1, 'rs1', 1)
    const rs2 = newReplicaSet(d2, 'rs2', 1)
    const {h, enqueued} = harness({deployments: [d1, d2], replicaSets: [], pods: []})
    h.deleteReplicaSet(rs1)
    expect(enqueued).toEqual(['default/d1'])
    h.deleteReplicaSet({tombstone: true, key: 'default/rs2', obj: rs2})
    expect(enqueued).toEqual(['default/d1', 'default/d2'])
  })

  it('an orphan enqueues nothing (TestDeleteReplicaSetOrphan)', () => {
    const {d1, d2} = twoDeployments()
    const rs = orphan(newReplicaSet(d1, 'rs1', 1))
    const {h, enqueued} = harness({deployments: [d1, d2], replicaSets: [], pods: []})
    h.deleteReplicaSet(rs)
    expect(enqueued).toEqual([])
  })
})

describe('Pod deleted', () => {
  function recreate(name = 'foo') {
    const d = newDeployment(name, 1, undefined, undefined, undefined, {foo: 'bar'})
    d.spec.strategy = {type: 'Recreate'}
    return d
  }

  it('wakes a Recreate Deployment whose last pod went (TestPodDeletionEnqueuesRecreateDeployment)', async () => {
    const d = recreate()
    const rs = newReplicaSet(d, 'foo-1', 1)
    const pod = newPod('foo-1-a', rs)
    const {h, enqueued, apiLists} = harness({deployments: [d], replicaSets: [rs], pods: []})
    expect(await h.deletePod(pod)).toBe(true)
    expect(enqueued).toEqual(['default/foo'])
    // The ReplicaSets are listed through the API with the Deployment's selector, not from the cache.
    expect(apiLists).toEqual(['default?foo=bar'])
  })

  it('leaves it while another of its pods remains (TestPodDeletionDoesntEnqueueRecreateDeployment)', async () => {
    const d = recreate()
    const rs1 = newReplicaSet(d, 'foo-1', 1)
    const rs2 = newReplicaSet(d, 'foo-2', 1)
    const pod1 = newPod('foo-1-a', rs1)
    const pod2 = newPod('foo-2-a', rs2)
    const {h, enqueued} = harness({deployments: [d], replicaSets: [rs1, rs2], pods: [pod2]})
    expect(await h.deletePod(pod1)).toBe(false)
    expect(enqueued).toEqual([])
  })

  it('counts only the pods of ReplicaSets it controls (TestPodDeletionPartialReplicaSetOwnershipEnqueueRecreateDeployment)', async () => {
    const d = recreate()
    const other = recreate('bar')
    const rs1 = newReplicaSet(d, 'foo-1', 1)
    const rs2 = newReplicaSet(other, 'bar-1', 1)
    const pod1 = newPod('foo-1-a', rs1)
    const pod2 = newPod('bar-1-a', rs2)
    const {h, enqueued} = harness({deployments: [d, other], replicaSets: [rs1, rs2], pods: [pod2]})
    expect(await h.deletePod(pod1)).toBe(true)
    expect(enqueued).toEqual(['default/foo'])
  })

  it('still sees the pods of a ReplicaSet it controls that the API lists (TestPodDeletionPartialReplicaSetOwnershipDoesntEnqueueRecreateDeployment)', async () => {
    const d = recreate()
    const rs1 = newReplicaSet(d, 'foo-1', 1)
    const rs2 = newReplicaSet(d, 'foo-2', 1)
    const pod1 = newPod('foo-1-a', rs1)
    const pod2 = newPod('foo-2-a', rs2)
    // The cache does not hold rs2 yet; the API does.
    const {h, enqueued} = harness({
      deployments: [d],
      replicaSets: [rs1],
      apiReplicaSets: [rs1, rs2],
      pods: [pod2],
    })
    expect(await h.deletePod(pod1)).toBe(false)
    expect(enqueued).toEqual([])
  })

  it('ignores RollingUpdate Deployments, orphan pods, pods of unknown or replaced ReplicaSets', async () => {
    const rolling = newDeployment('roll', 1, undefined, undefined, undefined, {foo: 'bar'})
    const rs = newReplicaSet(rolling, 'roll-1', 1)
    const d = recreate()
    const rsR = newReplicaSet(d, 'foo-1', 1)
    const orphanPod = newPod('x', rsR)
    delete orphanPod.metadata.ownerReferences
    const staleOwner = newPod('y', rsR)
    staleOwner.metadata.ownerReferences = [{...staleOwner.metadata.ownerReferences![0]!, uid: 'old-uid'}]
    const notRS = newPod('z', rsR)
    notRS.metadata.ownerReferences = [{...notRS.metadata.ownerReferences![0]!, kind: 'StatefulSet'}]
    const {h, enqueued} = harness({deployments: [rolling, d], replicaSets: [rs, rsR], pods: []})
    expect(await h.deletePod(newPod('roll-1-a', rs))).toBe(false)
    expect(await h.deletePod(orphanPod)).toBe(false)
    expect(await h.deletePod(staleOwner)).toBe(false)
    expect(await h.deletePod(notRS)).toBe(false)
    expect(enqueued).toEqual([])
    // A tombstone carries the pod.
    expect(await h.deletePod({tombstone: true, key: 'default/p', obj: newPod('p', rsR)})).toBe(true)
    expect(enqueued).toEqual(['default/foo'])
  })

  it('does nothing when the uncached list fails', async () => {
    const d = recreate()
    const rs = newReplicaSet(d, 'foo-1', 1)
    const enqueued: string[] = []
    const h = new DeploymentEventHandlers({
      getDeployment: () => d,
      listDeployments: () => [d],
      getReplicaSet: () => rs,
      podsByControllerUID: () => [],
      listReplicaSetsFromAPI: async () => {
        throw new Error('forbidden')
      },
      enqueue: (x) => enqueued.push(x.metadata.name ?? ''),
    })
    expect(await h.deletePod(newPod('foo-1-a', rs))).toBe(false)
    expect(enqueued).toEqual([])
  })
})
