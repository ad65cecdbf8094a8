// The test API server, checked by the clients it exists for: @kubernetes/client-node and the real kubectl.

import {execFile, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {get as httpGet} from 'node:http'
import {get as httpsGet} from 'node:https'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import * as k8s from '@kubernetes/client-node'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'
import {type ApiServer, startApiServer} from './index.js'

type Obj = Record<string, unknown>

const HAS_KUBECTL = spawnSync('kubectl', ['version', '--client'], {stdio: 'ignore'}).status === 0
if (!HAS_KUBECTL) {
  process.stderr.write('apiserver.test: `kubectl` is not on PATH; the kubectl cases are skipped\n')
}

function deployment(name = 'web', image = 'nginx:1', extra: Obj = {}): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name, labels: {app: name}},
    spec: {
      replicas: 2,
      selector: {matchLabels: {app: name}},
      template: {
        metadata: {labels: {app: name}},
        spec: {containers: [{name: 'nginx', image, ports: [{containerPort: 80}]}]},
      },
      ...extra,
    },
  }
}

function clients(server: ApiServer): {kc: k8s.KubeConfig; apps: k8s.AppsV1Api; core: k8s.CoreV1Api} {
  const kc = new k8s.KubeConfig()
  kc.loadFromFile(server.kubeconfigPath)
  return {kc, apps: kc.makeApiClient(k8s.AppsV1Api), core: kc.makeApiClient(k8s.CoreV1Api)}
}

interface Failure {
  code: number
  body: Obj
  headers: Record<string, string>
}

async function failure(p: Promise<unknown>): Promise<Failure> {
  try {
    await p
  } catch (err) {
    if (err instanceof k8s.ApiException) {
      const e = err as k8s.ApiException<unknown>
      const body = typeof e.body === 'string' ? (JSON.parse(e.body) as Obj) : (e.body as Obj)
      return {code: e.code, body, headers: e.headers as Record<string, string>}
    }
    throw err
  }
  throw new Error('expected the call to fail')
}

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch)
const strategic = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch)
const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch)

/** A plain GET (no token), over http or https (certificate not checked). */
function raw(
  server: ApiServer,
  path: string,
  headers: Record<string, string> = {},
): Promise<{status: number; text: string}> {
  const get = server.url.startsWith('https:') ? httpsGet : httpGet
  return new Promise((resolve, reject) => {
    get(`${server.url}${path}`, {headers, rejectUnauthorized: false}, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => {
        text += c
      })
      res.on('end', () => resolve({status: res.statusCode ?? 0, text}))
    }).on('error', reject)
  })
}

describe('test API server with client-node', () => {
  let server: ApiServer
  let apps: k8s.AppsV1Api
  let core: k8s.CoreV1Api
  let kc: k8s.KubeConfig

  beforeAll(async () => {
    server = await startApiServer({bookmarkIntervalMs: 100})
    ;({apps, core, kc} = clients(server))
  })
  afterAll(async () => {
    await server.close()
  })

  it('serves discovery and the namespaces that always exist', async () => {
    const version = JSON.parse((await raw(server, '/version')).text) as Obj
    expect(version).toMatchObject({major: '1', minor: '36'})
    expect(String(version.gitVersion)).toMatch(/^v1\.36\./)
    const apis = JSON.parse((await raw(server, '/apis/apps/v1')).text) as {resources: Obj[]}
    const names = apis.resources.map((r) => r.name)
    expect(names).toEqual(
      expect.arrayContaining(['deployments', 'deployments/status', 'deployments/scale', 'replicasets/scale']),
    )
    expect(apis.resources.find((r) => r.name === 'deployments')?.shortNames).toEqual(['deploy'])
    const ns = await core.listNamespace()
    expect(ns.items.map((n) => n.metadata?.name)).toEqual(expect.arrayContaining(['default', 'kube-system']))
    expect((await raw(server, '/openapi/v2')).status).toBe(404)
  })

  it('creates with defaults and bookkeeping, and rejects duplicates and invalid objects', async () => {
    const d = await apps.createNamespacedDeployment({namespace: 'default', body: deployment('web')})
    expect(d.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/)
    expect(d.metadata?.generation).toBe(1)
    expect(d.metadata?.creationTimestamp).toBeInstanceOf(Date)
    expect(d.spec?.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: {maxSurge: '25%', maxUnavailable: '25%'},
    })
    expect(d.spec?.revisionHistoryLimit).toBe(10)
    expect(d.spec?.progressDeadlineSeconds).toBe(600)
    expect(d.spec?.template.spec?.containers[0]?.imagePullPolicy).toBe('IfNotPresent')
    expect(d.spec?.template.spec?.dnsPolicy).toBe('ClusterFirst')

    const dup = await failure(
      apps.createNamespacedDeployment({namespace: 'default', body: deployment('web')}),
    )
    expect(dup.code).toBe(409)
    expect(dup.body).toMatchObject({
      reason: 'AlreadyExists',
      message: 'deployments.apps "web" already exists',
    })

    const bad = deployment('bad', 'nginx:1', {
      replicas: -1,
      strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: 0, maxUnavailable: 0}},
    })
    ;((bad.spec as Obj).template as {metadata: Obj}).metadata = {labels: {app: 'other'}}
    const inv = await failure(apps.createNamespacedDeployment({namespace: 'default', body: bad}))
    expect(inv.code).toBe(422)
    expect(inv.body).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      details: {name: 'bad', group: 'apps', kind: 'Deployment'},
    })
    const fields = ((inv.body.details as Obj).causes as Obj[]).map((c) => c.field)
    expect(fields).toEqual(
      expect.arrayContaining([
        'spec.replicas',
        'spec.template.metadata.labels',
        'spec.strategy.rollingUpdate.maxUnavailable',
      ]),
    )
    expect(String(inv.body.message)).toContain('Deployment.apps "bad" is invalid: [')

    const gen = await apps.createNamespacedReplicaSet({
      namespace: 'default',
      body: {
        metadata: {generateName: 'web-', labels: {app: 'web'}},
        spec: {selector: {matchLabels: {app: 'web'}}, template: (deployment().spec as Obj).template as never},
      } as k8s.V1ReplicaSet,
    })
    expect(gen.metadata?.name).toMatch(/^web-[a-z0-9]{5}$/)
    expect(gen.spec?.replicas).toBe(1)
  })

  it('lists with label, set-based and field selectors and paginates with continue tokens', async () => {
    for (const [name, tier] of [
      ['a1', 'front'],
      ['a2', 'back'],
      ['a3', 'front'],
      ['a4', 'db'],
    ]) {
      const body = deployment(name)
      ;(body.metadata as Obj).labels = {app: name, tier}
      await apps.createNamespacedDeployment({namespace: 'default', body})
    }
    const names = async (opts: {labelSelector?: string; fieldSelector?: string}): Promise<string[]> =>
      (await apps.listNamespacedDeployment({namespace: 'default', ...opts})).items.map(
        (d) => d.metadata?.name ?? '',
      )
    expect(await names({labelSelector: 'tier=front'})).toEqual(['a1', 'a3'])
    expect(await names({labelSelector: 'tier in (back,db)'})).toEqual(['a2', 'a4'])
    expect(await names({labelSelector: 'tier,tier notin (front)'})).toEqual(['a2', 'a4'])
    expect(await names({labelSelector: '!tier'})).toEqual(['web'])
    expect(await names({fieldSelector: 'metadata.name=a2'})).toEqual(['a2'])
    const bad = await failure(
      apps.listNamespacedDeployment({namespace: 'default', fieldSelector: 'spec.replicas=1'}),
    )
    expect(bad.body).toMatchObject({code: 400, message: 'field label not supported: spec.replicas'})

    const page1 = await apps.listNamespacedDeployment({namespace: 'default', limit: 2})
    expect(page1.items.map((d) => d.metadata?.name)).toEqual(['a1', 'a2'])
    expect(page1.metadata?._continue).toBeTruthy()
    expect(page1.metadata?.remainingItemCount).toBe(3)
    const page2 = await apps.listNamespacedDeployment({
      namespace: 'default',
      limit: 2,
      _continue: page1.metadata?._continue,
    })
    expect(page2.items.map((d) => d.metadata?.name)).toEqual(['a3', 'a4'])
    const page3 = await apps.listNamespacedDeployment({
      namespace: 'default',
      limit: 2,
      _continue: page2.metadata?._continue,
    })
    expect(page3.items.map((d) => d.metadata?.name)).toEqual(['web'])
    expect(page3.metadata?._continue).toBeFalsy()

    const all = await apps.listDeploymentForAllNamespaces()
    expect(all.items.length).toBe(5)
    expect(Number(all.metadata?.resourceVersion)).toBeGreaterThan(Number(page1.metadata?.resourceVersion) - 1)
  })

  it('replaces with optimistic concurrency and bumps generation on spec (and Deployment annotation) changes', async () => {
    const d = await apps.readNamespacedDeployment({name: 'web', namespace: 'default'})
    const rv0 = Number(d.metadata?.resourceVersion)
    d.spec!.replicas = 3
    const d2 = await apps.replaceNamespacedDeployment({name: 'web', namespace: 'default', body: d})
    expect(d2.metadata?.generation).toBe(2)
    expect(Number(d2.metadata?.resourceVersion)).toBeGreaterThan(rv0)

    const stale = await failure(
      apps.replaceNamespacedDeployment({name: 'web', namespace: 'default', body: d}),
    )
    expect(stale.code).toBe(409)
    expect(stale.body).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      details: {name: 'web', group: 'apps', kind: 'deployments'},
      message:
        'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
    })

    // A no-op update writes nothing.
    const same = await apps.replaceNamespacedDeployment({name: 'web', namespace: 'default', body: d2})
    expect(same.metadata?.resourceVersion).toBe(d2.metadata?.resourceVersion)

    // Labels alone do not bump generation; annotations do on Deployments (apps/v1 strategy).
    const labelled = await apps.patchNamespacedDeployment(
      {name: 'web', namespace: 'default', body: {metadata: {labels: {extra: 'x'}}}},
      merge,
    )
    expect(labelled.metadata?.generation).toBe(2)
    const annotated = await apps.patchNamespacedDeployment(
      {name: 'web', namespace: 'default', body: {metadata: {annotations: {note: 'x'}}}},
      merge,
    )
    expect(annotated.metadata?.generation).toBe(3)

    // A merge patch carrying a stale resourceVersion is a precondition too.
    const stalePatch = await failure(
      apps.patchNamespacedDeployment(
        {
          name: 'web',
          namespace: 'default',
          body: {metadata: {resourceVersion: String(rv0)}, spec: {replicas: 4}},
        },
        merge,
      ),
    )
    expect(stalePatch.code).toBe(409)

    const immutable = await failure(
      apps.patchNamespacedDeployment(
        {
          name: 'web',
          namespace: 'default',
          body: {spec: {selector: {matchLabels: {app: 'x'}}, template: {metadata: {labels: {app: 'x'}}}}},
        },
        merge,
      ),
    )
    expect(immutable.code).toBe(422)
    expect(String(immutable.body.message)).toContain('field is immutable')
  })

  it('applies strategic merge patches by merge key, JSON patches and dry runs', async () => {
    const owner = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      uid: 'u-1',
      controller: true,
      blockOwnerDeletion: true,
    }
    const rs = await apps.createNamespacedReplicaSet({
      namespace: 'default',
      body: {
        metadata: {name: 'web-abc', labels: {app: 'web'}, ownerReferences: [owner]},
        spec: {
          replicas: 1,
          selector: {matchLabels: {app: 'web'}},
          template: {
            metadata: {labels: {app: 'web'}},
            spec: {
              containers: [
                {name: 'nginx', image: 'nginx:1', env: [{name: 'A', value: '1'}]},
                {name: 'side', image: 'busybox:1'},
              ],
            },
          },
        },
      },
    })
    expect(rs.metadata?.generation).toBe(1)
    const patched = await apps.patchNamespacedReplicaSet(
      {
        name: 'web-abc',
        namespace: 'default',
        body: {
          metadata: {ownerReferences: [{$patch: 'delete', uid: 'u-1'}]},
          spec: {
            template: {
              spec: {containers: [{name: 'side', image: 'busybox:2', env: [{name: 'B', value: '2'}]}]},
            },
          },
        },
      },
      strategic,
    )
    expect(patched.metadata?.ownerReferences ?? []).toEqual([])
    const cs = patched.spec?.template?.spec?.containers ?? []
    expect(cs.map((c) => [c.name, c.image])).toEqual([
      ['nginx', 'nginx:1'],
      ['side', 'busybox:2'],
    ])
    expect(cs[0]?.env).toEqual([{name: 'A', value: '1'}])
    expect(patched.metadata?.generation).toBe(2)

    const jp = await apps.patchNamespacedReplicaSet(
      {name: 'web-abc', namespace: 'default', body: [{op: 'replace', path: '/spec/replicas', value: 4}]},
      jsonPatch,
    )
    expect(jp.spec?.replicas).toBe(4)

    const before = server.store.resourceVersion
    const dry = await apps.patchNamespacedReplicaSet(
      {name: 'web-abc', namespace: 'default', body: {spec: {replicas: 7}}, dryRun: 'All'},
      merge,
    )
    expect(dry.spec?.replicas).toBe(7)
    expect(server.store.resourceVersion).toBe(before)
    expect(
      (await apps.readNamespacedReplicaSet({name: 'web-abc', namespace: 'default'})).spec?.replicas,
    ).toBe(4)
  })

  it('updates status like apps/v1: keeps status and annotations, resets spec and labels, keeps generation', async () => {
    const d = await apps.readNamespacedDeployment({name: 'web', namespace: 'default'})
    const gen = d.metadata?.generation
    d.status = {
      observedGeneration: gen,
      replicas: 3,
      readyReplicas: 3,
      updatedReplicas: 3,
      availableReplicas: 3,
    }
    d.metadata!.annotations = {...d.metadata?.annotations, 'deployment.kubernetes.io/revision': '1'}
    d.metadata!.labels = {hijack: 'yes'}
    d.spec!.replicas = 99
    const out = await apps.replaceNamespacedDeploymentStatus({name: 'web', namespace: 'default', body: d})
    expect(out.status?.readyReplicas).toBe(3)
    expect(out.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('1')
    expect(out.metadata?.labels).toEqual({app: 'web', extra: 'x'})
    expect(out.spec?.replicas).toBe(3)
    expect(out.metadata?.generation).toBe(gen)

    // The main resource ignores status.
    out.status = {replicas: 42}
    const main = await apps.replaceNamespacedDeployment({name: 'web', namespace: 'default', body: out})
    expect(main.status?.replicas).toBe(3)

    // ValidateDeploymentStatus: counts bounded by status.replicas, available <= ready.
    const badStatus = await failure(
      apps.patchNamespacedDeploymentStatus(
        {
          name: 'web',
          namespace: 'default',
          body: {status: {replicas: 3, readyReplicas: 2, availableReplicas: 3}},
        },
        merge,
      ),
    )
    expect(badStatus.code).toBe(422)
    expect(String(badStatus.body.message)).toBe(
      'Deployment.apps "web" is invalid: status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas',
    )

    // Status with a stale resourceVersion conflicts too.
    const stale = await failure(
      apps.replaceNamespacedDeploymentStatus({name: 'web', namespace: 'default', body: d}),
    )
    expect(stale.code).toBe(409)
  })

  it('serves the scale subresource', async () => {
    const scale = await apps.readNamespacedDeploymentScale({name: 'web', namespace: 'default'})
    expect(scale).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: {replicas: 3},
      status: {selector: 'app=web'},
    })
    const out = await apps.patchNamespacedDeploymentScale(
      {name: 'web', namespace: 'default', body: {spec: {replicas: 6}}},
      merge,
    )
    expect(out.spec?.replicas).toBe(6)
    const d = await apps.readNamespacedDeployment({name: 'web', namespace: 'default'})
    expect(d.spec?.replicas).toBe(6)
    const neg = await failure(
      apps.replaceNamespacedDeploymentScale({
        name: 'web',
        namespace: 'default',
        body: {...out, spec: {replicas: -1}},
      }),
    )
    expect(neg.code).toBe(422)
  })

  it('deletes with preconditions and collects dependents', async () => {
    const rs = await apps.readNamespacedReplicaSet({name: 'web-abc', namespace: 'default'})
    const wrongUid = await failure(
      apps.deleteNamespacedReplicaSet({
        name: 'web-abc',
        namespace: 'default',
        body: {preconditions: {uid: 'nope'}},
      }),
    )
    expect(wrongUid.code).toBe(409)
    expect(String(wrongUid.body.message)).toContain('Precondition failed: UID in precondition: nope')
    const staleRv = await failure(
      apps.deleteNamespacedReplicaSet({
        name: 'web-abc',
        namespace: 'default',
        body: {preconditions: {resourceVersion: '1'}},
      }),
    )
    expect(staleRv.code).toBe(409)
    // A pod owned by the ReplicaSet goes with it.
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: {
          name: 'web-abc-x1',
          labels: {app: 'web'},
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: 'web-abc',
              uid: rs.metadata!.uid!,
              controller: true,
            },
          ],
        },
        spec: {containers: [{name: 'nginx', image: 'nginx:1'}]},
      },
    })
    const status = await apps.deleteNamespacedReplicaSet({
      name: 'web-abc',
      namespace: 'default',
      body: {
        preconditions: {uid: rs.metadata?.uid, resourceVersion: rs.metadata?.resourceVersion},
        propagationPolicy: 'Background',
      },
    })
    expect(status).toMatchObject({status: 'Success', details: {name: 'web-abc', kind: 'replicasets'}})
    expect(server.store.get('pods', 'default', 'web-abc-x1')).toBeUndefined()
    const gone = await failure(apps.readNamespacedReplicaSet({name: 'web-abc', namespace: 'default'}))
    expect(gone.body).toMatchObject({reason: 'NotFound', message: 'replicasets.apps "web-abc" not found'})
  })

  it('watches: replays from a resourceVersion, sends bookmarks, ends on timeout, 410 after the window expires', async () => {
    const list = await apps.listNamespacedDeployment({namespace: 'default'})
    const rv = list.metadata!.resourceVersion!
    await apps.patchNamespacedDeployment(
      {name: 'a1', namespace: 'default', body: {spec: {replicas: 5}}},
      merge,
    )
    const events: [string, string][] = []
    let ended: unknown = 'open'
    const ac = await new k8s.Watch(kc).watch(
      '/apis/apps/v1/namespaces/default/deployments',
      {resourceVersion: rv, allowWatchBookmarks: true, labelSelector: 'tier=front'},
      (type: string, obj: {metadata?: {name?: string; resourceVersion?: string}}) => {
        events.push([type, type === 'BOOKMARK' ? 'bookmark' : (obj.metadata?.name ?? '')])
      },
      (err: unknown) => {
        ended = err
      },
    )
    // Leaving the selector is a DELETED event for this watch.
    await apps.patchNamespacedDeployment(
      {name: 'a3', namespace: 'default', body: {metadata: {labels: {tier: 'x'}}}},
      merge,
    )
    await apps.deleteNamespacedDeployment({name: 'a2', namespace: 'default'})
    // Waited for, not slept on: a bookmark the server wrote (every 100 ms here) can still be unread
    // by the client when a fixed sleep ends on a busy machine.
    await vi.waitFor(
      () => {
        expect(events.filter(([t]) => t !== 'BOOKMARK').length).toBeGreaterThanOrEqual(2)
        expect(events.some(([t]) => t === 'BOOKMARK')).toBe(true)
      },
      {timeout: 10_000, interval: 20},
    )
    expect(events.filter(([t]) => t !== 'BOOKMARK')).toEqual([
      ['MODIFIED', 'a1'],
      ['DELETED', 'a3'],
    ])

    // Dropping watch streams ends the client's watch.
    expect(server.faults.dropWatches({resource: 'deployments'})).toBe(1)
    await vi.waitFor(() => expect(ended).not.toBe('open'), {timeout: 10_000, interval: 20})
    ac.abort()

    // After the window expires, an old resourceVersion gets an ERROR event with a 410 Status.
    server.faults.expireWatchWindow()
    const errors: Obj[] = []
    await new k8s.Watch(kc).watch(
      '/apis/apps/v1/namespaces/default/deployments',
      {resourceVersion: rv},
      (type: string, obj: Obj) => {
        if (type === 'ERROR') errors.push(obj)
      },
      () => {},
    )
    await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), {timeout: 10_000, interval: 20})
    expect(errors[0]).toMatchObject({kind: 'Status', code: 410, reason: 'Expired'})

    // timeoutSeconds ends the stream; an initial watch sends ADDED for what exists.
    const t0 = Date.now()
    const added: string[] = []
    await new Promise<void>((resolve) => {
      void new k8s.Watch(kc).watch(
        '/apis/apps/v1/namespaces/default/deployments',
        {timeoutSeconds: 1, fieldSelector: 'metadata.name=web'},
        (type: string, obj: {metadata?: {name?: string}}) => added.push(`${type} ${obj.metadata?.name}`),
        () => resolve(),
      )
    })
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900)
    expect(added).toEqual(['ADDED web'])
  })

  it('feeds a client-node informer', async () => {
    const informer = k8s.makeInformer(kc, '/apis/apps/v1/namespaces/default/deployments', () =>
      apps.listNamespacedDeployment({namespace: 'default'}),
    )
    const seen: string[] = []
    informer.on('update', (d: k8s.V1Deployment) =>
      seen.push(`update ${d.metadata?.name} ${d.spec?.replicas}`),
    )
    informer.on('error', () => {})
    await informer.start()
    expect(informer.list('default').map((d) => d.metadata?.name)).toContain('web')
    await apps.patchNamespacedDeployment(
      {name: 'web', namespace: 'default', body: {spec: {replicas: 2}}},
      merge,
    )
    await expect.poll(() => seen).toContain('update web 2')
    await informer.stop()
  })

  it('returns kubectl tables', async () => {
    const res = await raw(server, '/apis/apps/v1/namespaces/default/deployments?limit=500', {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    })
    const table = JSON.parse(res.text) as {
      kind: string
      columnDefinitions: {name: string}[]
      rows: {cells: unknown[]}[]
    }
    expect(table.kind).toBe('Table')
    expect(table.columnDefinitions.map((c) => c.name).slice(0, 5)).toEqual([
      'Name',
      'Ready',
      'Up-to-date',
      'Available',
      'Age',
    ])
    expect(table.rows.find((r) => r.cells[0] === 'web')?.cells.slice(0, 4)).toEqual(['web', '3/2', 3, 3])
  })

  it('injects faults: nth failure, 429 with Retry-After, RBAC 403, delay, truncation, dropped connections', async () => {
    const h = server.faults.fail({verb: 'update', resource: 'deployments'}, 500, {nth: 2})
    const d = await apps.readNamespacedDeployment({name: 'web', namespace: 'default'})
    const first = await apps.replaceNamespacedDeployment({name: 'web', namespace: 'default', body: d})
    const second = await failure(
      apps.replaceNamespacedDeployment({name: 'web', namespace: 'default', body: first}),
    )
    expect(second.code).toBe(500)
    expect(second.body).toMatchObject({
      reason: 'InternalError',
      message: 'Internal error occurred: injected fault',
    })
    await apps.replaceNamespacedDeployment({name: 'web', namespace: 'default', body: first})
    expect([h.seen, h.hits]).toEqual([3, 1])

    server.faults.fail({method: 'PATCH', path: /\/deployments\/web$/}, 429, {retryAfterSeconds: 7})
    const tooMany = await failure(
      apps.patchNamespacedDeployment({name: 'web', namespace: 'default', body: {}}, merge),
    )
    expect(tooMany.code).toBe(429)
    expect(tooMany.headers['retry-after']).toBe('7')

    server.faults.fail({verb: 'update', resource: 'deployments', subresource: 'status'}, 403)
    const forbidden = await failure(
      apps.replaceNamespacedDeploymentStatus({name: 'web', namespace: 'default', body: first}),
    )
    expect(forbidden.body.message).toBe(
      'deployments.apps "web" is forbidden: User "system:serviceaccount:default:x" cannot update resource "deployments/status" in API group "apps" in the namespace "default"',
    )
    server.faults.fail({verb: 'update', resource: 'deployments'}, 403)
    const forbiddenMain = await failure(
      apps.replaceNamespacedDeployment({name: 'web', namespace: 'default', body: first}),
    )
    expect(forbiddenMain.body.message).toBe(
      'deployments.apps "web" is forbidden: User "system:serviceaccount:default:x" cannot update resource "deployments" in API group "apps" in the namespace "default"',
    )

    const slow = server.faults.delay(300, {verb: 'get', name: 'web'}, 1)
    const t0 = Date.now()
    await apps.readNamespacedDeployment({name: 'web', namespace: 'default'})
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280)
    expect(slow.hits).toBe(1)

    server.faults.truncate({verb: 'list', resource: 'replicasets'})
    await expect(apps.listNamespacedReplicaSet({namespace: 'default'})).rejects.toThrow()
    server.faults.add({verb: 'get', resource: 'pods', drop: true})
    await expect(core.readNamespacedPod({name: 'x', namespace: 'default'})).rejects.toThrow()
    // One-shot rules are spent: the next calls go through.
    await apps.listNamespacedReplicaSet({namespace: 'default'})
    expect(server.requests.some((r) => r.status === 429 && r.method === 'PATCH')).toBe(true)
  })

  it('requires the token when asked to, and serves https', async () => {
    const secured = await startApiServer({requireToken: 's3cret', tls: true})
    try {
      expect(secured.url).toMatch(/^https:/)
      const ok = clients(secured)
      expect((await ok.core.listNamespace()).items.length).toBeGreaterThan(0)
      const kc2 = new k8s.KubeConfig()
      kc2.loadFromOptions({
        clusters: [{name: 'c', server: secured.url, skipTLSVerify: true}],
        users: [{name: 'u', token: 'wrong'}],
        contexts: [{name: 'x', cluster: 'c', user: 'u'}],
        currentContext: 'x',
      })
      const denied = await failure(kc2.makeApiClient(k8s.CoreV1Api).listNamespace())
      expect(denied.code).toBe(401)
      // client-node drops 401 bodies; check the Status with a plain request (no token).
      const res = await raw(secured, '/apis/apps/v1/deployments')
      expect(res.status).toBe(401)
      expect(JSON.parse(res.text)).toMatchObject({kind: 'Status', reason: 'Unauthorized', code: 401})
      expect((await raw(secured, '/version')).status).toBe(200)
    } finally {
      await secured.close()
    }
  })
})

interface Run {
  code: number
  stdout: string
  stderr: string
}

describe.skipIf(!HAS_KUBECTL)('test API server with the real kubectl', () => {
  let server: ApiServer
  let apps: k8s.AppsV1Api
  let cacheDir: string
  let manifest: string

  const kubectl = (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        'kubectl',
        args,
        {env: {...process.env, KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: cacheDir}, timeout: 20_000},
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
          resolve({code, stdout, stderr})
        },
      )
    })
  const ok = async (...args: string[]): Promise<string> => {
    const r = await kubectl(...args)
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`)
    return r.stdout
  }
  const web = async (): Promise<k8s.V1Deployment> =>
    apps.readNamespacedDeployment({name: 'web', namespace: 'default'})

  beforeAll(async () => {
    server = await startApiServer()
    ;({apps} = clients(server))
    cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'))
    manifest = join(cacheDir, 'web.json')
    writeFileSync(manifest, JSON.stringify(deployment('web', 'nginx:1')))
  })
  afterAll(async () => {
    await server.close()
    rmSync(cacheDir, {recursive: true, force: true})
  })

  it('creates from a file with validation on (OpenAPI v3 says the server validates fields)', async () => {
    expect(await ok('create', '-f', manifest)).toBe('deployment.apps/web created\n')
    const post = server.requests.find((r) => r.method === 'POST')
    expect(post?.query.fieldValidation).toBe('Strict')
    expect(server.requests.some((r) => r.path === '/version')).toBe(true)
    expect((await web()).metadata?.generation).toBe(1)
    // Strict field validation rejects unknown fields.
    const typo = join(cacheDir, 'typo.json')
    const bad = deployment('typo')
    ;(bad.spec as Obj).replicaz = 3
    writeFileSync(typo, JSON.stringify(bad))
    const r = await kubectl('create', '-f', typo)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('unknown field "spec.replicaz"')
  })

  it('decodes the protobuf body of kubectl create deployment', async () => {
    expect(await ok('create', 'deployment', 'pb', '--image=nginx:1.2', '--port=80', '--replicas=3')).toBe(
      'deployment.apps/pb created\n',
    )
    const post = server.requests.filter((r) => r.method === 'POST').at(-1)
    expect(post?.contentType).toBe('application/vnd.kubernetes.protobuf')
    const pb = await apps.readNamespacedDeployment({name: 'pb', namespace: 'default'})
    expect(pb.spec?.replicas).toBe(3)
    expect(pb.spec?.selector.matchLabels).toEqual({app: 'pb'})
    expect(pb.spec?.template.spec?.containers[0]).toMatchObject({
      name: 'nginx',
      image: 'nginx:1.2',
      ports: [{containerPort: 80}],
    })
    await ok('delete', 'deploy', 'pb')
  })

  it('gets JSON and tables', async () => {
    const list = JSON.parse(await ok('get', 'deploy,rs', '-o', 'json')) as {kind: string; items: Obj[]}
    expect(list.kind).toBe('List')
    expect(list.items.map((i) => i.kind)).toEqual(['Deployment'])
    const table = await ok('get', 'deploy')
    expect(table.split('\n')[0]).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/)
    expect(table.split('\n')[1]).toMatch(/^web\s+0\/2\s+0\s+0\s+\d+s$/)
  })

  it('scales, sets the image, pauses, resumes and restarts, bumping generation each time', async () => {
    const rv0 = Number((await web()).metadata?.resourceVersion)
    expect(await ok('scale', 'deploy/web', '--replicas', '5')).toBe('deployment.apps/web scaled\n')
    let d = await web()
    expect([d.spec?.replicas, d.metadata?.generation]).toEqual([5, 2])
    expect(Number(d.metadata?.resourceVersion)).toBeGreaterThan(rv0)
    expect(server.requests.some((r) => r.method === 'PATCH' && r.subresource === 'scale')).toBe(true)

    expect(await ok('set', 'image', 'deploy/web', 'nginx=nginx:2')).toBe(
      'deployment.apps/web image updated\n',
    )
    d = await web()
    expect([d.spec?.template.spec?.containers[0]?.image, d.metadata?.generation]).toEqual(['nginx:2', 3])

    expect(await ok('rollout', 'pause', 'deploy/web')).toBe('deployment.apps/web paused\n')
    expect((await web()).spec?.paused).toBe(true)
    expect(await ok('rollout', 'resume', 'deploy/web')).toBe('deployment.apps/web resumed\n')
    expect(await ok('rollout', 'restart', 'deploy/web')).toBe('deployment.apps/web restarted\n')
    d = await web()
    expect(d.spec?.paused).toBeFalsy()
    expect(d.spec?.template.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt']).toBeTruthy()
    expect(d.metadata?.generation).toBe(6)
  })

  it('reports rollout status from the Deployment status', async () => {
    const waiting = await ok('rollout', 'status', 'deploy/web', '--watch=false')
    expect(waiting).toContain('Waiting for deployment spec update to be observed')
    const d = await web()
    d.status = {
      observedGeneration: d.metadata?.generation,
      replicas: 5,
      updatedReplicas: 5,
      readyReplicas: 5,
      availableReplicas: 5,
    }
    d.metadata!.annotations = {...d.metadata?.annotations, 'deployment.kubernetes.io/revision': '2'}
    // A watching `rollout status` finishes on the MODIFIED event the status write causes.
    const watching = kubectl('rollout', 'status', 'deploy/web', '--timeout=15s')
    await new Promise((r) => setTimeout(r, 300))
    await apps.replaceNamespacedDeploymentStatus({name: 'web', namespace: 'default', body: d})
    expect((await watching).stdout).toContain('deployment "web" successfully rolled out')
    expect(await ok('rollout', 'status', 'deploy/web', '--watch=false')).toBe(
      'deployment "web" successfully rolled out\n',
    )
  })

  it('shows rollout history and undoes to the previous revision client-side', async () => {
    const d = await web()
    const tpl = (image: string, hash: string): k8s.V1PodTemplateSpec => ({
      metadata: {labels: {app: 'web', 'pod-template-hash': hash}},
      spec: {containers: [{name: 'nginx', image, ports: [{containerPort: 80}]}]},
    })
    const owner = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      uid: d.metadata!.uid!,
      controller: true,
      blockOwnerDeletion: true,
    }
    for (const [rev, image, hash] of [
      ['1', 'nginx:1', 'aaa111'],
      ['2', 'nginx:2', 'bbb222'],
    ] as const) {
      await apps.createNamespacedReplicaSet({
        namespace: 'default',
        body: {
          metadata: {
            name: `web-${hash}`,
            labels: {app: 'web', 'pod-template-hash': hash},
            annotations: {'deployment.kubernetes.io/revision': rev},
            ownerReferences: [owner],
          },
          spec: {
            replicas: 0,
            selector: {matchLabels: {app: 'web', 'pod-template-hash': hash}},
            template: tpl(image, hash),
          },
        },
      })
    }
    const rsTable = (await ok('get', 'rs')).split('\n')
    expect(rsTable[0]).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$/)
    expect(rsTable[1]).toMatch(/^web-aaa111\s+0\s+0\s+0\s+\d+s$/)
    const history = await ok('rollout', 'history', 'deploy/web')
    expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/)

    const gen = d.metadata?.generation ?? 0
    expect(await ok('rollout', 'undo', 'deploy/web')).toBe('deployment.apps/web rolled back\n')
    const after = await web()
    expect(after.spec?.template.spec?.containers[0]?.image).toBe('nginx:1')
    expect(after.spec?.template.metadata?.labels).toEqual({app: 'web'})
    expect(after.metadata?.generation).toBe(gen + 1)
    const undo = server.requests.filter((r) => r.method === 'PATCH').at(-1)
    expect(undo?.contentType).toBe('application/json-patch+json')
  })

  it('prints pods as kubectl does', async () => {
    const core = clients(server).core
    const pod = await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: {name: 'web-1', labels: {app: 'web'}},
        spec: {containers: [{name: 'nginx', image: 'nginx:1'}]},
      },
    })
    expect(pod.status?.phase).toBe('Pending')
    pod.status = {
      phase: 'Running',
      conditions: [{type: 'Ready', status: 'True'}],
      containerStatuses: [
        {name: 'nginx', image: 'nginx:1', imageID: '', ready: true, restartCount: 2, state: {running: {}}},
      ],
    }
    await core.replaceNamespacedPodStatus({name: 'web-1', namespace: 'default', body: pod})
    const out = (await ok('get', 'pods')).split('\n')
    expect(out[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/)
    expect(out[1]).toMatch(/^web-1\s+1\/1\s+Running\s+2\s+\d+s$/)
  })

  it('deletes a ReplicaSet and surfaces API errors', async () => {
    expect(await ok('delete', 'rs', 'web-aaa111')).toBe('replicaset.apps "web-aaa111" deleted\n')
    expect(server.store.get('replicasets', 'default', 'web-aaa111')).toBeUndefined()
    const missing = await kubectl('get', 'deploy', 'nope')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('deployments.apps "nope" not found')
    server.faults.fail({verb: 'patch', resource: 'deployments'}, 403)
    const denied = await kubectl('scale', 'deploy/web', '--replicas', '1')
    expect(denied.code).toBe(1)
    expect(denied.stderr).toContain('cannot patch resource "deployments/scale" in API group "apps"')
  })
})
