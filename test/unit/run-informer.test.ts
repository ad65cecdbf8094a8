// The informer of `run` against the in-memory test API server: list then watch, resuming a dropped
// watch from the last resourceVersion, listing again after 410 Gone with tombstones for what went
// away meanwhile, resync, and the namespace and controller-UID indexes.

import {afterEach, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/cluster/live/api.js'
import {Informer, isTombstone, type Tombstone} from '../../src/cluster/live/cache/informer.js'
import {POD_CONTROLLER_UID_INDEX, podControllerUID} from '../../src/cluster/live/cache/listers.js'
import {connect} from '../../src/cluster/live/kubeconfig.js'
import type {Deployment, Pod} from '../../src/controller/api/types.js'
import {type ApiServer, resolveResource, startApiServer} from '../apiserver/index.js'
import {deployment as build} from '../objects.js'

let server: ApiServer | undefined
let informers: Array<Informer<Deployment> | Informer<Pod>> = []

afterEach(async () => {
  for (const i of informers) await i.stop()
  informers = []
  await server?.close()
  server = undefined
})

function deployment(name: string, namespace = 'default', labels: Record<string, string> = {app: name}) {
  return build({name, namespace, labels, replicas: 1, metadata: {managedFields: [{manager: 'kubectl'}]}})
}

type Seen = string[]

async function deploymentInformer(
  s: ApiServer,
  opts: {namespace?: string; labelSelector?: string; resyncMs?: number} = {},
) {
  const conn = await connect({kubeconfig: s.kubeconfigPath})
  const warnings: string[] = []
  const inf = new Informer<Deployment>({
    api: new ApiClient(conn),
    conn,
    resource: 'deployments',
    namespace: opts.namespace,
    labelSelector: opts.labelSelector,
    resyncMs: opts.resyncMs ?? 0,
    warn: (l) => warnings.push(l),
    freeze: true,
  })
  const seen: Seen = []
  const name = (d: Deployment | Tombstone<Deployment>) =>
    isTombstone(d) ? `tombstone ${d.key}` : `${d.metadata.namespace}/${d.metadata.name}`
  inf.addEventHandler({
    add: (d) => seen.push(`add ${name(d)}`),
    update: (old, cur) =>
      seen.push(
        old.metadata.resourceVersion === cur.metadata.resourceVersion
          ? `resync ${name(cur)}`
          : `update ${name(cur)}`,
      ),
    delete: (d) => seen.push(`delete ${name(d)}`),
  })
  informers.push(inf)
  return {inf, seen, warnings}
}

async function until(probe: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Until the informer's watch delivers: a probe object added now shows up in the cache. */
async function watching(s: ApiServer, inf: Informer<Deployment>, seen: Seen): Promise<void> {
  const name = `probe-${s.store.resourceVersion}`
  s.store.put(deployment(name))
  await until(() => inf.get(`default/${name}`) !== undefined, 'the watch to deliver')
  seen.length = 0
}

const lists = (s: ApiServer) =>
  s.requests.filter((r) => r.verb === 'list' && r.resource === 'deployments').length

describe('Informer', () => {
  it('lists, then delivers adds, updates and deletes from the watch', async () => {
    server = await startApiServer({objects: [deployment('a'), deployment('b', 'other')]})
    const {inf, seen} = await deploymentInformer(server)
    await inf.start()
    expect(inf.hasSynced).toBe(true)
    expect(seen.sort()).toEqual(['add default/a', 'add other/b'])
    const a = inf.get('default/a')
    expect(a?.kind).toBe('Deployment')
    expect(a?.metadata.managedFields).toBeUndefined()
    expect(Object.isFrozen(a)).toBe(true)
    expect(inf.byIndex('namespace', 'other').map((d) => d.metadata.name)).toEqual(['b'])

    seen.length = 0
    server.store.put(deployment('c'))
    const updated = server.store.get('deployments', 'default', 'a') as Record<string, unknown>
    server.store.put({...updated, spec: {...(updated.spec as object), replicas: 3}})
    server.store.remove(resolveResource('deployments'), 'other', 'b')
    await until(() => seen.length === 3, 'three watch events')
    expect(seen).toEqual(['add default/c', 'update default/a', 'delete other/b'])
    expect(inf.get('default/a')?.spec.replicas).toBe(3)
    expect(inf.get('other/b')).toBeUndefined()
    expect(inf.byIndex('namespace', 'other')).toEqual([])
    expect(inf.resourceVersion).toBe(server.store.resourceVersion)
  })

  it('watches one namespace, and only the labels asked for', async () => {
    server = await startApiServer({
      objects: [deployment('a'), deployment('b', 'default', {team: 'x'}), deployment('c', 'other')],
    })
    const {inf, seen} = await deploymentInformer(server, {namespace: 'default', labelSelector: 'team=x'})
    await inf.start()
    expect(seen).toEqual(['add default/b'])
    // A Deployment whose labels stop matching leaves the cache as a delete.
    const b = server.store.get('deployments', 'default', 'b') as {metadata: Record<string, unknown>}
    server.store.put({...b, metadata: {...b.metadata, labels: {team: 'y'}}})
    await until(() => seen.length === 2, 'the delete')
    expect(seen[1]).toBe('delete default/b')
  })

  it('resumes a dropped watch from the last resourceVersion without listing again, missing nothing', async () => {
    server = await startApiServer({objects: [deployment('a')]})
    const {inf, seen, warnings} = await deploymentInformer(server)
    await inf.start()
    expect(lists(server)).toBe(1)
    seen.length = 0
    await watching(server, inf, seen)
    expect(server.faults.dropWatches({resource: 'deployments'})).toBe(1)
    // Changes while no watch is open are replayed by the next watch.
    server.store.put(deployment('b'))
    server.store.put(deployment('c'))
    await until(() => seen.length === 2, 'the replayed adds')
    expect(warnings).toEqual([expect.stringMatching(/^watch of deployments failed: .*; retrying in 800 ms$/)])
    expect(seen).toEqual(['add default/b', 'add default/c'])
    expect(lists(server)).toBe(1)
    const watches = server.requests.filter((r) => r.verb === 'watch' && r.resource === 'deployments')
    expect(watches.length).toBeGreaterThanOrEqual(2)
    expect(watches[0]?.query).toMatchObject({watch: '1', allowWatchBookmarks: 'true'})
    expect(Number(watches.at(-1)?.query.resourceVersion)).toBeGreaterThan(
      Number(watches[0]?.query.resourceVersion),
    )
  })

  it('a watch refused with another error (500) is retried with back-off, listing again; every watch passes the client hooks', async () => {
    server = await startApiServer({objects: [deployment('a')]})
    const conn = await connect({kubeconfig: server.kubeconfigPath})
    const throttled: string[] = []
    const api = new ApiClient(conn, undefined, undefined, {
      hooks: {
        before: (method, url) =>
          void throttled.push(`${method} ${url.searchParams.has('watch') ? 'watch' : 'list'}`),
      },
      userAgent: 'test-agent',
    })
    const failing = server.faults.add({verb: 'watch', resource: 'deployments', status: 500, times: 2})
    const warnings: string[] = []
    const inf = new Informer<Deployment>({
      api,
      conn,
      resource: 'deployments',
      namespace: undefined,
      resyncMs: 0,
      warn: (l) => warnings.push(l),
    })
    informers.push(inf)
    await inf.start()
    await until(() => warnings.length === 2, 'two failed watches')
    await until(() => lists(server as ApiServer) === 3, 'the list after the second failure')
    server.store.put(deployment('b'))
    await until(() => inf.get('default/b') !== undefined, 'the watch after two failures')
    expect(failing.hits).toBe(2)
    expect(warnings).toEqual([
      expect.stringMatching(/^watch of deployments failed: .*; retrying in 800 ms$/),
      expect.stringMatching(/^watch of deployments failed: .*; retrying in 1600 ms$/),
    ])
    expect(lists(server)).toBe(3)
    expect(throttled.filter((t) => t === 'GET watch').length).toBeGreaterThanOrEqual(3)
    const watches = server.requests.filter((r) => r.verb === 'watch')
    expect(watches.every((w) => w.userAgent === 'test-agent' && Number(w.query.timeoutSeconds) >= 300)).toBe(
      true,
    )
  })

  it('lists again after 410 Gone: adds, updates, and tombstones for what went away meanwhile', async () => {
    server = await startApiServer({objects: [deployment('a'), deployment('b')]})
    const {inf, seen} = await deploymentInformer(server)
    await inf.start()
    seen.length = 0
    await watching(server, inf, seen)
    // The watch is down and the history it would resume from is gone.
    server.faults.dropWatches({resource: 'deployments'}, {graceful: true})
    server.store.remove(resolveResource('deployments'), 'default', 'b')
    server.store.put(deployment('c'))
    server.faults.expireWatchWindow()
    await until(() => seen.length >= 4, 'the re-list')
    // An object the list still holds comes as an update even when unchanged (store.Replace).
    expect(seen.filter((x) => !x.includes('probe')).sort()).toEqual([
      'add default/c',
      'delete tombstone default/b',
      'resync default/a',
    ])
    expect(lists(server)).toBe(2)
    // And it keeps watching from the new list.
    server.store.put(deployment('d'))
    await until(() => seen.includes('add default/d'), 'a change after the re-list')
  })

  it('resyncs: every cached object again as an update with the same version', async () => {
    server = await startApiServer({objects: [deployment('a'), deployment('b')]})
    const {inf, seen} = await deploymentInformer(server, {resyncMs: 150})
    await inf.start()
    await until(() => seen.filter((s) => s.startsWith('resync')).length >= 4, 'two resyncs')
    expect(
      seen
        .filter((s) => s.startsWith('resync'))
        .slice(0, 2)
        .sort(),
    ).toEqual(['resync default/a', 'resync default/b'])
  })

  it('indexes pods by the UID of their controller', async () => {
    const pod = (name: string, uid?: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'default',
        ownerReferences: uid
          ? [{apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid, controller: true}]
          : undefined,
      },
      spec: {containers: [{name: 'c', image: 'x'}]},
    })
    server = await startApiServer({objects: [pod('p1', 'u1'), pod('p2', 'u1'), pod('p3', 'u2'), pod('p4')]})
    const conn = await connect({kubeconfig: server.kubeconfigPath})
    const inf = new Informer<Pod>({
      api: new ApiClient(conn),
      conn,
      resource: 'pods',
      namespace: undefined,
      indexers: {[POD_CONTROLLER_UID_INDEX]: podControllerUID},
    })
    informers.push(inf)
    await inf.start()
    const names = (uid: string) =>
      inf
        .byIndex(POD_CONTROLLER_UID_INDEX, uid)
        .map((p) => p.metadata.name)
        .sort()
    expect(names('u1')).toEqual(['p1', 'p2'])
    expect(names('u2')).toEqual(['p3'])
    server.store.remove(resolveResource('pods'), 'default', 'p1')
    await until(() => names('u1').length === 1, 'the index to drop p1')
    expect(names('u1')).toEqual(['p2'])
  })

  it('stop() ends the watch', async () => {
    server = await startApiServer({objects: [deployment('a')]})
    const {inf} = await deploymentInformer(server)
    await inf.start()
    await inf.stop()
    expect(server.faults.dropWatches()).toBe(0)
  })
})
