// The moving cluster of the test API server (`simulate`): what a ReplicaSet controller, a scheduler
// and a kubelet do to ReplicaSets and pods, seen through the API as any client sees it. Timings are
// short; every assertion waits for an eventual state with a generous deadline, never for a moment.

import {spawn, spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from './index.js'

const ROOT = join(import.meta.dirname, '../..')

type Obj = Record<string, unknown>
// biome-ignore lint/suspicious/noExplicitAny: test access to nested JSON
type Any = any

const FAST = {podReadyAfterMs: 150, terminateAfterMs: 150}
const DEADLINE_MS = 10_000

let server: ApiServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
})

async function start(objects: unknown[] = [], simulate: object | boolean = FAST): Promise<ApiServer> {
  server = await startApiServer({objects, simulate: simulate as never})
  return server
}

async function api(s: ApiServer, method: string, path: string, body?: unknown, type = 'application/json') {
  const res = await fetch(s.url + path, {
    method,
    headers: {Authorization: `Bearer ${s.token}`, ...(body !== undefined ? {'Content-Type': type} : {})},
    ...(body !== undefined ? {body: JSON.stringify(body)} : {}),
  })
  const text = await res.text()
  return {status: res.status, body: text ? (JSON.parse(text) as Any) : undefined}
}

async function eventually<T>(probe: () => T | undefined | false, what: string): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS
  for (;;) {
    const v = probe()
    if (v !== undefined && v !== false) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const pods = (s: ApiServer, ns = 'default'): Any[] => s.store.list('pods', ns) as Any[]
const rsOf = (s: ApiServer, name: string, ns = 'default'): Any => s.store.get('replicasets', ns, name) as Any
const events = (s: ApiServer, ns = 'default'): Any[] => s.store.list('events', ns) as Any[]

/** A ReplicaSet as the Deployment controller would create it, with a pod-template-hash. */
function replicaSet(name: string, replicas: number, image = 'nginx:1.27', extra: Obj = {}): Obj {
  const labels = {app: 'web', 'pod-template-hash': name.split('-').at(-1)}
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {name, namespace: 'default', labels},
    spec: {
      replicas,
      selector: {matchLabels: labels},
      template: {metadata: {labels}, spec: {containers: [{name: 'app', image}]}},
      ...extra,
    },
  }
}

function ready(p: Any): boolean {
  return p.status?.conditions?.some((c: Any) => c.type === 'Ready' && c.status === 'True') ?? false
}

describe('the ReplicaSet controller', () => {
  it('gives a ReplicaSet its pods and writes its status as upstream computes it', async () => {
    const s = await start()
    expect(
      (await api(s, 'POST', '/apis/apps/v1/namespaces/default/replicasets', replicaSet('web-abc12', 3)))
        .status,
    ).toBe(201)
    const rs = await eventually(() => {
      const r = rsOf(s, 'web-abc12')
      return r.status?.availableReplicas === 3 ? r : undefined
    }, 'three available replicas')
    expect(rs.status).toEqual({
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      terminatingReplicas: 0,
      observedGeneration: 1,
    })
    const list = pods(s)
    expect(list).toHaveLength(3)
    for (const p of list) {
      expect(p.metadata.name).toMatch(/^web-abc12-[bcdfghjklmnpqrstvwxz2456789]{5}$/)
      expect(p.metadata.generateName).toBe('web-abc12-')
      expect(p.metadata.labels).toEqual({app: 'web', 'pod-template-hash': 'abc12'})
      expect(p.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-abc12',
          uid: rs.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ])
      expect(p.spec.nodeName).toMatch(/^node-[123]$/)
      expect(p.status.phase).toBe('Running')
      expect(p.status.startTime).toBeDefined()
      expect(p.status.conditions.map((c: Any) => `${c.type}=${c.status}`)).toEqual([
        'PodReadyToStartContainers=True',
        'Initialized=True',
        'Ready=True',
        'ContainersReady=True',
        'PodScheduled=True',
      ])
      expect(p.status.conditions.every((c: Any) => typeof c.lastTransitionTime === 'string')).toBe(true)
      expect(p.status.containerStatuses[0]).toMatchObject({
        name: 'app',
        ready: true,
        started: true,
        restartCount: 0,
      })
      expect(p.status.containerStatuses[0].state.running.startedAt).toBeDefined()
    }
    // The scheduler spreads them, one per node.
    expect(new Set(list.map((p) => p.spec.nodeName)).size).toBe(3)
    const reasons = events(s).map((e) => `${e.source.component} ${e.reason}`)
    expect(reasons.filter((r) => r === 'replicaset-controller SuccessfulCreate')).toHaveLength(3)
    expect(reasons.filter((r) => r === 'default-scheduler Scheduled')).toHaveLength(3)
  })

  it('counts available replicas only minReadySeconds after they are ready', async () => {
    const s = await start()
    const rs = replicaSet('slow-abc12', 1, 'nginx:1', {minReadySeconds: 2})
    await api(s, 'POST', '/apis/apps/v1/namespaces/default/replicasets', rs)
    // Ready times have whole seconds, so availability comes 1 to 2 s after readiness: not at once.
    await eventually(() => rsOf(s, 'slow-abc12').status?.readyReplicas === 1, 'ready')
    expect(rsOf(s, 'slow-abc12').status.availableReplicas).toBeUndefined()
    await eventually(() => rsOf(s, 'slow-abc12').status?.availableReplicas === 1, 'available')
  })

  it('schedules a pod that selects a node by the beta os label, as a kubelet labels its node', async () => {
    const s = await start()
    const legacy = replicaSet('legacy-abc12', 2)
    ;(legacy as Any).spec.template.spec.nodeSelector = {'beta.kubernetes.io/os': 'linux'}
    await api(s, 'POST', '/apis/apps/v1/namespaces/default/replicasets', legacy)
    await eventually(() => rsOf(s, 'legacy-abc12').status?.readyReplicas === 2, 'ready')
    expect(pods(s).every((p) => typeof p.spec.nodeName === 'string')).toBe(true)
  })

  it('deletes the surplus gracefully, the not-ready pod first, and the pods go after terminate-after', async () => {
    const s = await start()
    await api(s, 'POST', '/apis/apps/v1/namespaces/default/replicasets', replicaSet('web-abc12', 2))
    await eventually(() => rsOf(s, 'web-abc12').status?.readyReplicas === 2, 'two ready pods')
    // A third pod that is not ready yet (its image never pulls) is the one to go on scale-down.
    const rs = rsOf(s, 'web-abc12')
    const patch = {
      spec: {
        replicas: 3,
        template: {spec: {containers: [{name: 'app', image: 'registry.example.invalid/app:1'}]}},
      },
    }
    await api(
      s,
      'PATCH',
      '/apis/apps/v1/namespaces/default/replicasets/web-abc12',
      patch,
      'application/merge-patch+json',
    )
    const third = await eventually(
      () => pods(s).find((p) => !ready(p) && p.spec.nodeName),
      'a third, scheduled pod',
    )
    await api(
      s,
      'PATCH',
      '/apis/apps/v1/namespaces/default/replicasets/web-abc12/scale',
      {spec: {replicas: 2}},
      'application/merge-patch+json',
    )
    const terminating = await eventually(
      () => pods(s).find((p) => p.metadata.deletionTimestamp),
      'a terminating pod',
    )
    expect(terminating.metadata.name).toBe(third.metadata.name)
    expect(terminating.metadata.deletionGracePeriodSeconds).toBe(30)
    await eventually(() => rsOf(s, 'web-abc12').status?.terminatingReplicas === 1, 'terminatingReplicas 1')
    expect(rsOf(s, 'web-abc12').status).toMatchObject({replicas: 2, readyReplicas: 2, observedGeneration: 3})
    await eventually(() => pods(s).length === 2, 'the terminating pod gone')
    await eventually(() => rsOf(s, 'web-abc12').status?.terminatingReplicas === 0, 'terminatingReplicas 0')
    expect(
      events(s).some(
        (e) => e.reason === 'SuccessfulDelete' && e.message === `Deleted pod: ${third.metadata.name}`,
      ),
    ).toBe(true)
    expect(rs.metadata.uid).toBe(rsOf(s, 'web-abc12').metadata.uid)
  })

  it('sets ReplicaFailure when pods cannot be created, and clears it once they can', async () => {
    const s = await start()
    const quota = s.faults.fail({verb: 'create', resource: 'pods'}, 403, {times: Number.POSITIVE_INFINITY})
    await api(s, 'POST', '/apis/apps/v1/namespaces/default/replicasets', replicaSet('web-abc12', 2))
    const cond = await eventually(
      () => rsOf(s, 'web-abc12').status?.conditions?.[0],
      'a ReplicaFailure condition',
    )
    expect(cond).toMatchObject({type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate'})
    expect(cond.message).toMatch(/forbidden/)
    const failed = events(s).find((e) => e.reason === 'FailedCreate')
    expect(failed).toMatchObject({type: 'Warning', source: {component: 'replicaset-controller'}})
    expect(failed.message).toMatch(/^Error creating: .*forbidden/)
    quota.remove()
    await eventually(() => rsOf(s, 'web-abc12').status?.readyReplicas === 2, 'the pods created after all')
    expect(rsOf(s, 'web-abc12').status.conditions).toBeUndefined()
  })
})

describe('the kubelet', () => {
  it('never pulls an image from a .invalid registry and posts the kubelet events', async () => {
    const s = await start()
    await api(
      s,
      'POST',
      '/apis/apps/v1/namespaces/default/replicasets',
      replicaSet('bad-abc12', 1, 'registry.example.invalid/app:2'),
    )
    const pod = await eventually(
      () =>
        pods(s).find((p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff'),
      'ImagePullBackOff',
    )
    expect(pod.status.phase).toBe('Pending')
    expect(pod.status.containerStatuses[0].state.waiting.message).toMatch(
      /^Back-off pulling image "registry.example.invalid\/app:2": ErrImagePull: .*lookup registry.example.invalid: no such host$/,
    )
    const kubelet = events(s).filter((e) => e.source.component === 'kubelet')
    expect(kubelet.map((e) => `${e.type} ${e.reason} ${e.message.split(':')[0]}`)).toEqual([
      'Normal Pulling Pulling image "registry.example.invalid/app',
      'Warning Failed Failed to pull image "registry.example.invalid/app',
      'Warning Failed Error',
      'Normal BackOff Back-off pulling image "registry.example.invalid/app',
      'Warning Failed Error',
    ])
    for (const e of kubelet) {
      expect(e.involvedObject).toMatchObject({
        kind: 'Pod',
        name: pod.metadata.name,
        uid: pod.metadata.uid,
        fieldPath: 'spec.containers{app}',
      })
      expect(e.source.host).toBe(pod.spec.nodeName)
      expect(e.reportingComponent).toBe('kubelet')
    }
    expect(rsOf(s, 'bad-abc12').status).toMatchObject({replicas: 1, fullyLabeledReplicas: 1})
    expect(rsOf(s, 'bad-abc12').status.readyReplicas).toBeUndefined()
  })

  it('deletes a pod gracefully over the API, at once with a grace period of 0 or when it was never scheduled', async () => {
    const s = await start([], {podReadyAfterMs: 150, terminateAfterMs: 400})
    const pod = (name: string, nodeName?: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name},
      spec: {containers: [{name: 'app', image: 'nginx'}], ...(nodeName ? {nodeName} : {})},
    })
    for (const p of [pod('a', 'node-1'), pod('b', 'node-1')])
      await api(s, 'POST', '/api/v1/namespaces/default/pods', p)
    await eventually(() => pods(s).every(ready) && pods(s).length === 2, 'two running pods')
    const del = await api(s, 'DELETE', '/api/v1/namespaces/default/pods/a')
    expect(del.status).toBe(200)
    expect(del.body.metadata.deletionTimestamp).toBeDefined()
    expect(s.store.get('pods', 'default', 'a')).toBeDefined()
    await api(s, 'DELETE', '/api/v1/namespaces/default/pods/b', {gracePeriodSeconds: 0})
    expect(s.store.get('pods', 'default', 'b')).toBeUndefined()
    await eventually(() => s.store.get('pods', 'default', 'a') === undefined, 'a gone after terminate-after')
  })
  it('leaves a pod on a node without a kubelet to its clients: status as written, terminating until a grace-0 delete', async () => {
    const s = await start([], {...FAST, nodesWithoutKubelet: ['fake-node']})
    await api(
      s,
      'POST',
      '/apis/apps/v1/namespaces/default/replicasets',
      replicaSet('web-abc12', 2, 'nginx:1.27', {
        template: {
          metadata: {labels: {app: 'web', 'pod-template-hash': 'abc12'}},
          spec: {nodeName: 'fake-node', containers: [{name: 'app', image: 'nginx:1.27'}]},
        },
      }),
    )
    await eventually(() => rsOf(s, 'web-abc12').status?.replicas === 2, 'two pods counted')
    // Nothing is due: no scheduler, no kubelet for these pods.
    expect(s.simulation?.nextDueAt()).toBeUndefined()
    expect(pods(s).map((p) => [p.spec.nodeName, p.status.phase, p.status.conditions])).toEqual([
      ['fake-node', 'Pending', undefined],
      ['fake-node', 'Pending', undefined],
    ])
    // A client marks one ready, as upstream's integration tests do (UpdateStatus).
    const [a, b] = pods(s).map((p) => p.metadata.name as string)
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z')
    const marked = await api(
      s,
      'PATCH',
      `/api/v1/namespaces/default/pods/${a}/status`,
      {status: {phase: 'Running', conditions: [{type: 'Ready', status: 'True', lastTransitionTime: now}]}},
      'application/merge-patch+json',
    )
    expect(marked.status).toBe(200)
    await eventually(() => rsOf(s, 'web-abc12').status?.readyReplicas === 1, 'one ready replica')
    expect(s.store.get('pods', 'default', a as string)).toMatchObject({status: {phase: 'Running'}})
    // A graceful delete: nobody confirms it, so the pod stays terminating.
    expect((await api(s, 'DELETE', `/api/v1/namespaces/default/pods/${b}`)).status).toBe(200)
    const terminating = s.store.get('pods', 'default', b as string) as Any
    expect(terminating.metadata.deletionTimestamp).toBeDefined()
    await eventually(() => rsOf(s, 'web-abc12').status?.terminatingReplicas === 1, 'one terminating replica')
    expect(s.store.get('pods', 'default', b as string)).toBeDefined()
    await eventually(() => s.simulation?.nextDueAt() === undefined, 'a steady cluster')
    expect(s.store.get('pods', 'default', b as string)).toBeDefined()
    // A grace-0 delete removes it (upstream's tests force-delete terminating pods this way).
    await api(s, 'DELETE', `/api/v1/namespaces/default/pods/${b}`, {gracePeriodSeconds: 0})
    expect(s.store.get('pods', 'default', b as string)).toBeUndefined()
  })
})

describe('the garbage collector', () => {
  it('collects ReplicaSets and pods whose owner is gone (a snapshot applied with new uids)', async () => {
    const s = await start()
    const rs = {
      ...replicaSet('web-abc12', 1),
      metadata: {
        ...(replicaSet('web-abc12', 1).metadata as Obj),
        ownerReferences: [
          {apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'old-uid', controller: true},
        ],
      },
    }
    await api(s, 'POST', '/apis/apps/v1/namespaces/default/replicasets', rs)
    await eventually(() => rsOf(s, 'web-abc12') === undefined, 'the orphaned ReplicaSet collected')
    await eventually(() => pods(s).length === 0, 'its pods gone')
  })

  it('leaves a dependent alone when an owner is of a kind whose controller is not simulated (a StatefulSet)', async () => {
    const s = await start()
    const refs = [
      {apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'b3c1a9e0-0000-4000-8000-000000000001'},
    ]
    const rs = replicaSet('web-abc12', 1)
    await api(s, 'POST', '/apis/apps/v1/namespaces/default/replicasets', {
      ...rs,
      metadata: {...(rs.metadata as Obj), ownerReferences: refs},
    })
    await eventually(() => rsOf(s, 'web-abc12')?.status?.availableReplicas === 1, 'its pod available')
    await eventually(() => s.simulation?.nextDueAt() === undefined, 'a steady cluster')
    expect(rsOf(s, 'web-abc12').metadata.ownerReferences).toEqual(refs)
  })
})

describe('without simulate', () => {
  it('keeps the world frozen and /openapi/v2 404', async () => {
    const s = await start([replicaSet('web-abc12', 2)], false)
    await new Promise((r) => setTimeout(r, 300))
    expect(pods(s)).toEqual([])
    expect(rsOf(s, 'web-abc12').status).toBeUndefined()
    expect(s.simulation).toBeUndefined()
    expect((await fetch(`${s.url}/openapi/v2`)).status).toBe(404)
  })

  it('serves /openapi/v2 as protobuf with simulate', async () => {
    const s = await start()
    const res = await fetch(`${s.url}/openapi/v2`, {
      headers: {Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf'},
    })
    expect(res.status).toBe(200)
    const body = Buffer.from(await res.arrayBuffer())
    // Document.swagger (field 1) = "2.0".
    expect([...body.subarray(0, 5)]).toEqual([0x0a, 3, ...Buffer.from('2.0')])
  })
})

describe('npm run apiserver -- --simulate', () => {
  const tsx = join(ROOT, 'node_modules/.bin/tsx')
  const main = join(ROOT, 'test/apiserver/main.ts')

  it('refuses timings without --simulate', () => {
    const r = spawnSync(tsx, [main, '--port', '0', '--pod-ready-after', '1s'], {encoding: 'utf8'})
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('--pod-ready-after, --terminate-after and --gpu-nodes need --simulate')
    const gpus = spawnSync(tsx, [main, '--port', '0', '--gpu-nodes', '2'], {encoding: 'utf8'})
    expect(gpus.status).toBe(2)
    expect(gpus.stderr).toContain('--gpu-nodes need --simulate')
    const bad = spawnSync(tsx, [main, '--simulate', '--terminate-after', 'soon'], {encoding: 'utf8'})
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain('--terminate-after: invalid duration "soon"')
  })

  it('moves a loaded example: the Recreate example’s terminating pod goes after --terminate-after', async () => {
    const child = spawn(
      tsx,
      [
        main,
        '--port',
        '0',
        '--simulate',
        // Long enough that the first look, right after the server listens, finds the pod even on a
        // loaded machine (200ms lost that race once in ten full runs); the wait below is bounded.
        '--terminate-after',
        '2s',
        '--load',
        join(ROOT, 'examples/recreate.yaml'),
      ],
      {stdio: ['ignore', 'pipe', 'inherit']},
    )
    try {
      let out = ''
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        out += c
      })
      const url = await eventually(() => /listening on (\S+)/.exec(out)?.[1], 'the server to listen')
      const podPath = `${url}/api/v1/namespaces/demo/pods/db-migrator-77c9c4567b-hh9gf`
      const status = async () => (await fetch(podPath)).status
      expect(await status()).toBe(200)
      const deadline = Date.now() + DEADLINE_MS
      while ((await status()) !== 404) {
        if (Date.now() > deadline) throw new Error('the terminating pod is still there')
        await new Promise((r) => setTimeout(r, 50))
      }
    } finally {
      child.kill('SIGTERM')
      await new Promise((r) => child.once('close', r))
    }
  }, 30_000)
})
