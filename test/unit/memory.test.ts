import {describe, expect, it} from 'vitest'
import {MemoryStore, RecordingClient, strategicMergePatch} from '../../src/cluster/memory.js'
import type {World} from '../../src/cluster/world.js'
import {isAlreadyExists, isConflict, isInvalid, isNotFound} from '../../src/controller/api/errors.js'
import type {Deployment, Pod, ReplicaSet} from '../../src/controller/api/types.js'
import * as objects from '../objects.js'

const NOW = Date.parse('2026-11-29T10:05:00Z')

function deployment(name: string, extra: Partial<Deployment['metadata']> = {}): Deployment {
  return objects.deployment({
    name,
    namespace: 'demo',
    metadata: {uid: `uid-${name}`, generation: 1, labels: undefined, ...extra},
    status: {observedGeneration: 1, replicas: 3},
  })
}

function replicaSet(name: string, owner?: Deployment, replicas = 1): ReplicaSet {
  return objects.replicaSet({name, namespace: 'demo', owner, replicas})
}

function pod(name: string, owner: ReplicaSet): Pod {
  return objects.pod({name, owner})
}

function world(deployments: Deployment[], replicaSets: ReplicaSet[] = [], pods: Pod[] = []): World {
  return {deployments, replicaSets, pods, sources: new WeakMap()}
}

describe('SnapshotListers', () => {
  it('lists ReplicaSets by namespace in input order and pods by controller UID', () => {
    const d = deployment('web')
    const a = replicaSet('web-a', d)
    const b = replicaSet('web-b', d)
    const other = {...replicaSet('other'), metadata: {...replicaSet('other').metadata, namespace: 'prod'}}
    const store = new MemoryStore(world([d], [b, other, a], [pod('p1', a), pod('p2', b), pod('p3', a)]), {
      now: () => NOW,
    })
    expect(store.listers.listReplicaSets('demo').map((rs) => rs.metadata.name)).toEqual(['web-b', 'web-a'])
    expect(store.listers.listReplicaSets('prod').map((rs) => rs.metadata.name)).toEqual(['other'])
    expect(store.listers.podsByControllerUID('uid-web-a').map((p) => p.metadata.name)).toEqual(['p1', 'p3'])
    expect(store.listers.getDeployment('demo', 'web')?.metadata.uid).toBe('uid-web')
    expect(store.listers.getDeployment('demo', 'nope')).toBeUndefined()
  })

  it('is a frozen snapshot that does not see the pass writes and never mutates the input', async () => {
    const d = deployment('web')
    const input = world([d], [replicaSet('web-a', d)])
    const store = new MemoryStore(input, {now: () => NOW})
    const client = new RecordingClient(store)
    const rs = store.listers.getReplicaSet('demo', 'web-a')!
    expect(() => {
      ;(rs.spec as {replicas: number}).replicas = 9
    }).toThrow(TypeError)
    await client.updateReplicaSet({...structuredClone(rs), spec: {...rs.spec, replicas: 5}})
    expect(store.listers.getReplicaSet('demo', 'web-a')?.spec.replicas).toBe(1)
    expect(store.peek('replicasets', 'demo', 'web-a')).toMatchObject({spec: {replicas: 5}})
    expect(input.replicaSets[0]?.spec.replicas).toBe(1)
    // a fresh array per call: the controller sorts it in place
    const list = store.listers.listReplicaSets('demo')
    list.pop()
    expect(store.listers.listReplicaSets('demo')).toHaveLength(1)
  })

  it('defaults a missing namespace to default', () => {
    const d = deployment('web')
    delete d.metadata.namespace
    const store = new MemoryStore(world([d]), {now: () => NOW})
    expect(store.listers.getDeployment('default', 'web')).toBeDefined()
  })
})

describe('RecordingClient', () => {
  it('records every call in order, reads included, even when the call fails', async () => {
    const d = deployment('web')
    const a = replicaSet('web-a', d)
    const store = new MemoryStore(world([d], [a]), {now: () => NOW})
    const client = new RecordingClient(store)
    await client.getDeployment('demo', 'web')
    await client.createReplicaSet(replicaSet('web-b', d))
    await expect(client.createReplicaSet(replicaSet('web-a', d))).rejects.toSatisfy(isAlreadyExists)
    await client.updateDeploymentStatus(deployment('web'))
    await client.deleteReplicaSet(a)
    expect(
      client.actions.map((x) => `${x.verb} ${x.resource}${x.subresource ? '/status' : ''} ${x.name}`),
    ).toEqual([
      'get deployments web',
      'create replicasets web-b',
      'create replicasets web-a',
      'update deployments/status web',
      'delete replicasets web-a',
    ])
    expect(client.actions[1]?.object).toMatchObject({metadata: {name: 'web-b'}})
  })

  it('records the object as sent and returns the stored object as a copy', async () => {
    const d = deployment('web')
    const store = new MemoryStore(world([d]), {now: () => NOW})
    const client = new RecordingClient(store)
    const sent = replicaSet('web-new', d, 2)
    delete sent.metadata.uid
    const created = await client.createReplicaSet(sent)
    expect(client.actions[0]?.object).not.toHaveProperty('metadata.uid')
    expect(created.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/)
    expect(created.metadata.creationTimestamp).toBe('2026-11-29T10:05:00Z')
    expect(created.metadata.generation).toBe(1)
    created.spec.replicas = 99
    expect(store.peek('replicasets', 'demo', 'web-new')).toMatchObject({spec: {replicas: 2}})
    // deterministic: the same identity gets the same UID
    const again = new MemoryStore(world([d]), {now: () => NOW})
    expect((await new RecordingClient(again).createReplicaSet(sent)).metadata.uid).toBe(created.metadata.uid)
  })

  it('fails with NotFound for writes of missing objects', async () => {
    const store = new MemoryStore(world([deployment('web')]), {now: () => NOW})
    const client = new RecordingClient(store)
    await expect(client.getDeployment('demo', 'gone')).rejects.toSatisfy(isNotFound)
    await expect(client.updateReplicaSet(replicaSet('gone'))).rejects.toSatisfy(isNotFound)
    await expect(client.deleteReplicaSet(replicaSet('gone'))).rejects.toThrow(
      'replicasets.apps "gone" not found',
    )
    await expect(client.patchReplicaSet('demo', 'gone', 'strategic-merge', {})).rejects.toSatisfy(isNotFound)
    await expect(client.updateDeploymentStatus(deployment('gone'))).rejects.toSatisfy(isNotFound)
  })

  it('bumps generation on a Deployment spec change and keeps the stored status', async () => {
    const store = new MemoryStore(world([deployment('web')]), {now: () => NOW})
    const client = new RecordingClient(store)
    const d = await client.getDeployment('demo', 'web')
    d.spec.replicas = 5
    d.status = {observedGeneration: 7}
    const updated = await client.updateDeployment(d)
    expect(updated.metadata.generation).toBe(2)
    expect(updated.status).toEqual({observedGeneration: 1, replicas: 3})
    const same = await client.updateDeployment(updated)
    expect(same.metadata.generation).toBe(2)
  })

  it('UpdateStatus stores status and annotations only', async () => {
    const store = new MemoryStore(world([deployment('web')]), {now: () => NOW})
    const client = new RecordingClient(store)
    const d = await client.getDeployment('demo', 'web')
    d.spec.replicas = 10
    d.metadata.labels = {x: 'y'}
    d.metadata.annotations = {'deployment.kubernetes.io/revision': '2'}
    d.status = {observedGeneration: 1, replicas: 4}
    const stored = await client.updateDeploymentStatus(d)
    expect(stored.spec.replicas).toBe(3)
    expect(stored.metadata.labels).toBeUndefined()
    expect(stored.metadata.annotations).toEqual({'deployment.kubernetes.io/revision': '2'})
    expect(stored.status).toEqual({observedGeneration: 1, replicas: 4})
  })

  it('adopts and releases through strategic-merge patches, with the UID as a precondition', async () => {
    const d = deployment('web')
    const orphan = replicaSet('web-a')
    const store = new MemoryStore(world([d], [orphan]), {now: () => NOW})
    const client = new RecordingClient(store)
    const ref = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      uid: 'uid-web',
      controller: true,
      blockOwnerDeletion: true,
    }
    const adopted = await client.patchReplicaSet('demo', 'web-a', 'strategic-merge', {
      metadata: {ownerReferences: [ref], uid: 'uid-web-a'},
    })
    expect(adopted.metadata.ownerReferences).toEqual([ref])
    expect(client.actions[0]).toMatchObject({
      verb: 'patch',
      resource: 'replicasets',
      name: 'web-a',
      patchType: 'strategic-merge',
    })

    // a second controller reference is rejected
    const other = {...ref, name: 'other', uid: 'uid-other'}
    await expect(
      client.patchReplicaSet('demo', 'web-a', 'strategic-merge', {
        metadata: {ownerReferences: [other], uid: 'uid-web-a'},
      }),
    ).rejects.toSatisfy(isInvalid)

    // a stale UID is rejected
    await expect(
      client.patchReplicaSet('demo', 'web-a', 'strategic-merge', {
        metadata: {uid: 'recreated', ownerReferences: [{$patch: 'delete', uid: 'uid-web'}]},
      }),
    ).rejects.toSatisfy(isInvalid)

    const released = await client.patchReplicaSet('demo', 'web-a', 'strategic-merge', {
      metadata: {uid: 'uid-web-a', ownerReferences: [{$patch: 'delete', uid: 'uid-web'}]},
    })
    expect(released.metadata.ownerReferences).toEqual([])
    expect(released.metadata.generation).toBe(orphan.metadata.generation)
  })

  it('checks resourceVersion only when asked to', async () => {
    const d = {...deployment('web'), metadata: {...deployment('web').metadata, resourceVersion: '10'}}
    const lax = new RecordingClient(new MemoryStore(world([d]), {now: () => NOW}))
    await lax.updateDeploymentStatus(d)
    await lax.updateDeploymentStatus(d)

    const strict = new RecordingClient(
      new MemoryStore(world([d]), {now: () => NOW, checkResourceVersion: true}),
    )
    const first = await strict.updateDeploymentStatus(d)
    expect(first.metadata.resourceVersion).toBe('11')
    await expect(strict.updateDeploymentStatus(d)).rejects.toSatisfy(isConflict)
    await strict.updateDeploymentStatus(first)
  })
})

describe('MemoryStore.objects', () => {
  it('keeps input order, replaces written objects, drops deleted ones, and places created ones after their owner', async () => {
    const web = deployment('web')
    const api = deployment('api')
    const webOld = replicaSet('web-old', web)
    const apiOld = replicaSet('api-old', api)
    const p = pod('web-old-1', webOld)
    const store = new MemoryStore(world([web, api], [webOld, apiOld], [p]), {now: () => NOW})
    const client = new RecordingClient(store)
    await client.createReplicaSet(replicaSet('web-new', web))
    await client.createReplicaSet(replicaSet('api-new', api))
    await client.createReplicaSet(replicaSet('stray'))
    await client.deleteReplicaSet(apiOld)
    await client.updateReplicaSet({...webOld, spec: {...webOld.spec, replicas: 0}})
    const names = store.objects().map((o) => o.metadata.name)
    expect(names).toEqual(['web', 'api', 'api-new', 'web-old', 'web-new', 'web-old-1', 'stray'])
    expect(store.world().replicaSets.find((rs) => rs.metadata.name === 'web-old')?.spec.replicas).toBe(0)
  })

  it('interleaves kinds by their source positions', () => {
    const web = deployment('web')
    const rs = replicaSet('web-a', web)
    const p = pod('web-a-1', rs)
    const api = deployment('api')
    const w = world([web, api], [rs], [p])
    w.sources.set(web, {file: 'a.yaml', line: 1, index: 0})
    w.sources.set(rs, {file: 'a.yaml', line: 20, index: 1})
    w.sources.set(p, {file: 'a.yaml', line: 40, index: 2})
    w.sources.set(api, {file: 'b.yaml', line: 1, index: 0})
    const store = new MemoryStore(w, {now: () => NOW})
    expect(store.objects().map((o) => o.metadata.name)).toEqual(['web', 'web-a', 'web-a-1', 'api'])
    const after = store.world()
    expect(after.sources.get(after.deployments[1] as object)).toEqual({file: 'b.yaml', line: 1, index: 0})
  })
})

describe('strategicMergePatch', () => {
  it('merges maps, deletes nulls and replaces plain lists', () => {
    expect(
      strategicMergePatch({a: {b: 1, c: 2}, l: [1, 2], k: 1}, {a: {c: null, d: 3}, l: [3], k: null}, []),
    ).toEqual({a: {b: 1, d: 3}, l: [3]})
  })
})
