import {describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import type {Action} from '../../src/cluster/action.js'
import type {Deployment, ReplicaSet} from '../../src/controller/api/types.js'
import {ChangeTracker, diff} from '../../src/pass/change.js'
import type {DeploymentResult, SyncResult} from '../../src/pass/result.js'
import {jsonChunks, renderDocument} from '../../src/render/document.js'
import {describeRequeue, renderSyncResult} from '../../src/render/sync-result.js'

const REV = 'deployment.kubernetes.io/revision'

const web: Deployment = {
  metadata: {name: 'web', namespace: 'demo', annotations: {[REV]: '1'}, generation: 2},
  spec: {replicas: 3, template: {}},
  status: {
    observedGeneration: 1,
    replicas: 3,
    availableReplicas: 2,
    conditions: [
      {type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable'},
      {type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: 'old'},
    ],
  },
}
const oldRS: ReplicaSet = {
  metadata: {name: 'web-old', namespace: 'demo', annotations: {[REV]: '1'}},
  spec: {replicas: 3},
}

const before = (resource: string, _ns: string, name: string): unknown =>
  resource === 'deployments' && name === 'web'
    ? web
    : resource === 'replicasets' && name === 'web-old'
      ? oldRS
      : undefined

function update(object: unknown, resource: Action['resource'], status = false): Action {
  const o = object as {metadata: {name: string}}
  return {
    verb: 'update',
    resource,
    ...(status ? {subresource: 'status' as const} : {}),
    namespace: 'demo',
    name: o.metadata.name,
    object,
  }
}

function withStatus(
  patch: Partial<NonNullable<Deployment['status']>>,
  annotations = web.metadata.annotations,
) {
  return {...web, metadata: {...web.metadata, annotations}, status: {...web.status, ...patch}}
}

describe('CHANGE column', () => {
  it('summarises creates, scales, status writes, deletes and ownership patches', () => {
    const t = new ChangeTracker(before)
    const newRS = {
      metadata: {name: 'web-new', namespace: 'demo', annotations: {[REV]: '2'}},
      spec: {replicas: 1},
    }
    expect(
      t.describe({verb: 'create', resource: 'replicasets', namespace: 'demo', name: 'web-new', object: newRS})
        .summary,
    ).toBe('created (replicas 1, revision 2)')
    expect(t.describe(update({...oldRS, spec: {replicas: 2}}, 'replicasets')).summary).toBe('replicas 3 -> 2')
    const status = t.describe(
      update(
        withStatus(
          {
            observedGeneration: 2,
            availableReplicas: 3,
            conditions: [
              {type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable'},
              {type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'done'},
            ],
          },
          {[REV]: '2'},
        ),
        'deployments',
        true,
      ),
    )
    expect(status.summary).toBe(
      `annotations ${REV} 1 -> 2; observedGeneration 1 -> 2; availableReplicas 2 -> 3; Progressing: ReplicaSetUpdated -> NewReplicaSetAvailable`,
    )
    expect(status.details).toContain(
      'status.conditions[Progressing].reason: ReplicaSetUpdated -> NewReplicaSetAvailable',
    )
    expect(status.details).toContain('status.availableReplicas: 2 -> 3')
    expect(t.describe({verb: 'delete', resource: 'replicasets', namespace: 'demo', name: 'web-old'})).toEqual(
      {
        summary: 'deleted',
        details: ['deleted (replicas 2, revision 1)'],
      },
    )
    const ref = {apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u1', controller: true}
    expect(
      t.describe({
        verb: 'patch',
        resource: 'replicasets',
        namespace: 'demo',
        name: 'orphan',
        patch: {metadata: {ownerReferences: [ref], uid: 'u2'}},
        patchType: 'strategic-merge',
      }),
    ).toEqual({summary: 'adopted', details: ['adopted by Deployment/web']})
    expect(
      t.describe({
        verb: 'patch',
        resource: 'replicasets',
        namespace: 'demo',
        name: 'orphan',
        patch: {metadata: {uid: 'u2', ownerReferences: [{$patch: 'delete', uid: 'u1'}]}},
        patchType: 'strategic-merge',
      }).summary,
    ).toBe('released')
  })

  it('compares each write with the previous one, so a redundant write reads "no change"', () => {
    const t = new ChangeTracker(before)
    const next = withStatus({observedGeneration: 2})
    expect(t.describe(update(next, 'deployments', true)).summary).toBe('observedGeneration 1 -> 2')
    expect(t.describe(update(next, 'deployments', true)).summary).toBe('no change')
  })

  it('words condition transitions, new conditions and pointer fields', () => {
    const a = {
      status: {conditions: [{type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable'}]},
    }
    const b = {
      status: {
        terminatingReplicas: 0,
        conditions: [
          {type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable'},
          {type: 'Progressing', status: 'True', reason: 'NewReplicaSetCreated'},
        ],
      },
    }
    expect(diff(a, b).summary).toBe(
      'terminatingReplicas <none> -> 0; Available: True (MinimumReplicasAvailable) -> False (MinimumReplicasUnavailable); Progressing: <none> -> NewReplicaSetCreated',
    )
    expect(diff({spec: {template: {a: 1}, paused: true}}, {spec: {template: {a: 2}}}).summary).toBe(
      'template changed; paused true -> <none>',
    )
  })
})

function result(results: DeploymentResult[]): SyncResult {
  return {
    kind: 'SyncResult',
    apiVersion: 'deployctl.kubectl.io/v1alpha3',
    now: '2026-11-29T10:05:00Z',
    kubernetesVersion: 'v1.36',
    featureGates: {},
    items: results,
  }
}

const sample: DeploymentResult = {
  deployment: {namespace: 'demo', name: 'web'},
  path: ['syncDeployment', 'rolloutRolling', 'reconcileOldReplicaSets'],
  actions: [
    update({...oldRS, spec: {replicas: 2}}, 'replicasets'),
    update(withStatus({observedGeneration: 2}), 'deployments', true),
  ],
  events: [
    {
      type: 'Normal',
      reason: 'ScalingReplicaSet',
      message: 'Scaled down replica set web-old from 3 to 2',
      object: {kind: 'Deployment', namespace: 'demo', name: 'web'},
    },
  ],
  requeueAfterSeconds: null,
  requeue: null,
  error: null,
}

describe('renderSyncResult', () => {
  it('prints path, a borderless table, events and the requeue', async () => {
    const out = await renderSyncResult(result([sample]), {format: {kind: 'table'}, before})
    expect(out).toBe(
      [
        'deployment demo/web',
        'path: syncDeployment → rolloutRolling → reconcileOldReplicaSets',
        'VERB     RESOURCE             NAME      CHANGE',
        'update   replicasets          web-old   replicas 3 -> 2',
        'update   deployments/status   web       observedGeneration 1 -> 2',
        'events:',
        '  Normal  ScalingReplicaSet  Scaled down replica set web-old from 3 to 2',
        'requeue: none',
        '',
      ].join('\n'),
    )
    expect(out).not.toContain('\u001b[')
    for (const line of out.split('\n')) expect(line).toBe(line.trimEnd())
  })

  it('lists every changed field in wide output, and shows errors', async () => {
    const failed = {
      ...sample,
      actions: [],
      events: [],
      error: 'boom',
      requeue: {kind: 'rateLimited' as const},
    }
    const out = await renderSyncResult(result([sample, failed]), {format: {kind: 'wide'}, before})
    // Wide adds what the object written is: its replicas, revision and images.
    expect(out).toContain('VERB     RESOURCE             NAME      REPLICAS   REVISION   IMAGES   CHANGE')
    expect(out).toContain(
      'update   replicasets          web-old   2          1          <none>   spec.replicas: 3 -> 2',
    )
    expect(out).toContain(
      'update   deployments/status   web       3          1          <none>   status.observedGeneration: 1 -> 2',
    )
    expect(out).toContain('actions: none\nevents: none\nrequeue: rate limited\nerror: boom')
  })

  it('colours only when asked', async () => {
    const out = await renderSyncResult(result([{...sample, error: 'x'}]), {
      format: {kind: 'table'},
      before,
      color: true,
    })
    expect(out).toContain('\u001b[1mdeployment demo/web')
  })

  it('prints JSON and YAML documents with the same content', async () => {
    const doc = result([{...sample, events: [{...sample.events[0]!, message: 'yes'}]}])
    const json = await renderSyncResult(doc, {format: {kind: 'json'}, before})
    const yaml = await renderSyncResult(doc, {format: {kind: 'yaml'}, before})
    expect(JSON.parse(json)).toEqual(parse(yaml, {version: '1.1'}))
    expect(yaml).toContain('message: "yes"')
    expect(JSON.parse(json).kind).toBe('SyncResult')
  })
})

describe('describeRequeue and renderDocument', () => {
  it('words requeues', () => {
    expect(describeRequeue({kind: 'after', seconds: 30.5})).toBe('after 30.5s')
    expect(describeRequeue({kind: 'rateLimited'})).toBe('rate limited')
    expect(describeRequeue(null)).toBe('none')
  })
  it('drops undefined fields from both documents', async () => {
    expect(await renderDocument({a: undefined, b: 1}, 'yaml')).toBe('b: 1\n')
    expect(await renderDocument({a: undefined, b: 1}, 'json')).toBe('{\n  "b": 1\n}\n')
  })
})

describe('jsonChunks', () => {
  const whole = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`
  it('joins to the bytes of JSON.stringify(doc, null, 2), whatever the document', () => {
    const cases: unknown[] = [
      {kind: 'SyncResult', items: [], after: 1},
      {items: [1, 'x', null, {q: [1, {r: 2}]}, [], {}]},
      {kind: 'x', items: [{a: undefined, b: () => 1, c: new Date(0)}], tail: {items: []}},
      {x: {items: [1]}, items: [{items: [{}]}], 'it\nems': 'a\n  "items": []'},
      {items: [undefined, () => 1]},
      {toJSON: () => ({items: [2]}), items: [1]},
      {items: 'not a list'},
      [1, 2],
      null,
      'text',
    ]
    for (const c of cases) expect([...jsonChunks(c)].join('')).toBe(whole(c))
  })

  it('hands a large document out in pieces of about a megabyte', () => {
    const doc = {
      kind: 'List',
      items: Array.from({length: 3000}, (_, i) => ({name: `item-${i}`, pad: 'x'.repeat(1000)})),
    }
    const chunks = [...jsonChunks(doc)]
    expect(chunks.length).toBeGreaterThan(2)
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan((1 << 20) + 2000)
    expect(chunks.join('')).toBe(whole(doc))
  })
})
