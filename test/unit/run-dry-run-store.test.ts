// run --dry-run=client builds each sync's store from what the Deployment can touch
// (src/run/dry-run-store.ts), not from its whole namespace: a sync over it writes, errs and
// records events exactly as over a store of the whole namespace (issue 30).

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {MemoryStore, RecordingClient, SnapshotListers} from '../../src/cluster/memory.js'
import type {LabelSelector, ReplicaSet} from '../../src/controller/api/types.js'
import {syncDeployment} from '../../src/controller/deployment-controller.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import type {Listers} from '../../src/controller/interfaces.js'
import {ChangeTracker} from '../../src/pass/change.js'
import {newControllerContext} from '../../src/pass/context.js'
import {dryRunStore} from '../../src/run/dry-run-store.js'
import {deployment as buildDeployment, pod as buildPod, replicaSet as buildReplicaSet} from '../objects.js'

const NOW = Date.parse('2026-12-05T10:00:00Z')
const gates = parseFeatureGates(undefined)
const stamp = (i: number) => new Date(NOW - (100 - i) * 1000).toISOString().replace('.000Z', 'Z')

const LABELS = ['app=a', 'app=b', 'tier=web', 'tier=db']
const labelSet = fc
  .subarray(LABELS)
  .map((pairs) => Object.fromEntries(pairs.map((p) => p.split('=') as [string, string])))
const selector: fc.Arbitrary<LabelSelector> = fc.oneof(
  {weight: 4, arbitrary: fc.constantFrom({matchLabels: {app: 'a'}}, {matchLabels: {app: 'b'}})},
  fc.constantFrom<LabelSelector>(
    {matchLabels: {app: 'a', tier: 'web'}},
    {matchExpressions: [{key: 'app', operator: 'In', values: ['a', 'b']}]},
    {matchExpressions: [{key: 'tier', operator: 'Exists'}]},
    {matchLabels: {app: 'a'}, matchExpressions: [{key: 'tier', operator: 'DoesNotExist'}]},
  ),
)

type Owner = 'orphan' | 'other' | number
interface Spec {
  deployments: Array<{
    namespace: string
    selector: LabelSelector
    replicas: number
    image: number
    history: number
    recreate: boolean
    paused: boolean
    /** Who holds a ReplicaSet of the name this Deployment's new ReplicaSet would get, if anyone. */
    collision: 'none' | 'orphan' | 'other'
  }>
  replicaSets: Array<{
    namespace: string
    labels: Record<string, string>
    owner: Owner
    replicas: number
    image: number
    deleting: boolean
  }>
}

const spec: fc.Arbitrary<Spec> = fc.record({
  deployments: fc.array(
    fc.record({
      namespace: fc.constantFrom('a', 'a', 'a', 'b'),
      selector,
      replicas: fc.integer({min: 0, max: 4}),
      image: fc.integer({min: 1, max: 2}),
      history: fc.integer({min: 0, max: 2}),
      recreate: fc.boolean(),
      paused: fc.boolean(),
      collision: fc.constantFrom<'none' | 'orphan' | 'other'>('none', 'none', 'orphan', 'other'),
    }),
    {minLength: 1, maxLength: 8},
  ),
  replicaSets: fc.array(
    fc.record({
      namespace: fc.constantFrom('a', 'a', 'a', 'b'),
      labels: labelSet,
      owner: fc.oneof(
        {weight: 3, arbitrary: fc.integer({min: 0, max: 7})},
        fc.constantFrom<Owner>('orphan', 'other'),
      ),
      replicas: fc.integer({min: 0, max: 3}),
      image: fc.integer({min: 1, max: 2}),
      deleting: fc.integer({min: 0, max: 4}).map((n) => n === 0),
    }),
    {maxLength: 30},
  ),
})

function worldOf(s: Spec) {
  const deployments = s.deployments.map((d, i) => {
    const built = buildDeployment({
      name: `d${i}`,
      namespace: d.namespace,
      replicas: d.replicas,
      image: `img:${d.image}`,
      defaulted: true,
      metadata: {uid: `uid-d${i}`},
    })
    built.spec.selector = d.selector
    built.spec.revisionHistoryLimit = d.history
    if (d.recreate) built.spec.strategy = {type: 'Recreate'}
    // Paused: sync() cleans old ReplicaSets up beyond revisionHistoryLimit.
    if (d.paused) built.spec.paused = true
    const labels: Record<string, string> = {app: d.selector.matchLabels?.app ?? 'a'}
    if (d.selector.matchLabels?.tier || d.selector.matchExpressions?.some((e) => e.operator === 'Exists')) {
      labels.tier = d.selector.matchLabels?.tier ?? 'web'
    }
    built.spec.template = {...built.spec.template, metadata: {labels}}
    return built
  })
  const replicaSets: ReplicaSet[] = []
  const pods = []
  for (const [i, r] of s.replicaSets.entries()) {
    const owner = typeof r.owner === 'number' ? deployments[r.owner % deployments.length] : undefined
    const rs = buildReplicaSet({
      name: `rs${i}`,
      namespace: r.namespace,
      labels: r.labels,
      owner: owner && owner.metadata.namespace === r.namespace ? owner : undefined,
      replicas: r.replicas,
      metadata: {
        creationTimestamp: stamp(i),
        annotations: {'deployment.kubernetes.io/revision': String(i + 1)},
        ...(r.deleting ? {deletionTimestamp: stamp(i)} : {}),
      },
      spec: {
        template: {
          metadata: {labels: r.labels},
          spec: {containers: [{name: 'app', image: `img:${r.image}`}]},
        },
      },
    })
    if (r.owner === 'other') {
      rs.metadata.ownerReferences = [
        {apiVersion: 'apps/v1', kind: 'Deployment', name: 'other', uid: 'uid-other', controller: true},
      ]
    }
    replicaSets.push(rs)
    for (let p = 0; p < r.replicas; p++) pods.push(buildPod({name: `rs${i}-p${p}`, owner: rs}))
  }
  return {deployments, replicaSets, pods}
}

/** The store before this change: the Deployment and every cached ReplicaSet of its namespace. */
function namespaceStore(listers: Listers, namespace: string, name: string): MemoryStore {
  const d = listers.getDeployment(namespace, name)
  return new MemoryStore(
    {
      deployments: d ? [d] : [],
      replicaSets: listers.listReplicaSets(namespace),
      pods: [],
      sources: new WeakMap(),
    },
    {now: () => NOW},
  )
}

/** One --dry-run=client sync as run's syncKey does it: its writes (described), events and error. */
async function drySync(listers: Listers, store: MemoryStore, namespace: string, name: string) {
  const client = new RecordingClient(store)
  const events: string[] = []
  const {ctx} = newControllerContext({
    listers,
    client,
    now: () => NOW,
    gates,
    key: {namespace, name},
    onEvent: (_d, type, reason, message) => events.push(`${type} ${reason}: ${message}`),
  })
  let error: string | undefined
  try {
    await syncDeployment(ctx, namespace, name)
  } catch (err) {
    error = err instanceof Error ? err.message : String(err)
  }
  const tracker = new ChangeTracker((resource, ns, n) => store.initial(resource, ns, n))
  const writes = client.actions
    .filter((a) => a.verb !== 'get')
    .map((a) => ({...a, summary: tracker.describe(a).summary}))
  return {actions: client.actions, writes, events, error}
}

describe('run --dry-run=client: the store of one sync', () => {
  it('gives the writes, events and errors of a store of the whole namespace, from what the Deployment can touch', async () => {
    const seen = new Set<string>()
    let smaller = 0
    await fc.assert(
      fc.asyncProperty(spec, async (s) => {
        const world = worldOf(s)
        // The name each Deployment's new ReplicaSet would get, then taken by another object.
        const plain = new SnapshotListers(world.deployments, world.replicaSets, world.pods)
        const extra: ReplicaSet[] = []
        for (const [i, d] of world.deployments.entries()) {
          const collision = s.deployments[i]!.collision
          if (collision === 'none') continue
          const ns = d.metadata.namespace ?? ''
          const name = d.metadata.name ?? ''
          const {actions} = await drySync(plain, namespaceStore(plain, ns, name), ns, name)
          const create = actions.find((a) => a.verb === 'create')
          if (!create) continue
          const taken = buildReplicaSet({
            name: create.name,
            namespace: ns,
            labels: collision === 'orphan' ? {app: 'z'} : {app: 'a'},
            metadata: {creationTimestamp: stamp(99)},
          })
          if (collision === 'other') {
            taken.metadata.ownerReferences = [
              {apiVersion: 'apps/v1', kind: 'Deployment', name: 'other', uid: 'uid-other', controller: true},
            ]
          }
          extra.push(taken)
        }
        const replicaSets = [...world.replicaSets, ...extra]
        const listers = new SnapshotListers(world.deployments, replicaSets, world.pods)
        for (const d of world.deployments) {
          const ns = d.metadata.namespace ?? ''
          const name = d.metadata.name ?? ''
          const small = dryRunStore(listers, ns, name, () => NOW)
          const whole = await drySync(listers, namespaceStore(listers, ns, name), ns, name)
          const part = await drySync(listers, small, ns, name)
          expect(part).toEqual(whole)
          if (small.listers.listReplicaSets(ns).length < listers.listReplicaSets(ns).length) smaller++
          for (const w of whole.writes) seen.add(`${w.verb} ${w.resource}${w.subresource ? '/status' : ''}`)
          if (whole.error?.includes('already exists')) seen.add('collision')
          if (whole.events.length > 0) seen.add('event')
        }
      }),
      {seed: 30, numRuns: 150},
    )
    // The worlds exercised every kind of write the sync makes, name collisions included, and
    // stores smaller than the namespace.
    expect([...seen].sort()).toEqual([
      'collision',
      'create replicasets',
      'delete replicasets',
      'event',
      'patch replicasets',
      'update deployments/status',
      'update replicasets',
    ])
    expect(smaller).toBeGreaterThan(0)
  })

  it('takes a taken name from the listers once, and a name it deleted stays deleted', () => {
    const d = buildDeployment({name: 'web', namespace: 'a', defaulted: true})
    const mine = buildReplicaSet({name: 'web-1', namespace: 'a', owner: d})
    const theirs = buildReplicaSet({name: 'web-2', namespace: 'a', labels: {app: 'other'}})
    const listers = new SnapshotListers([d], [mine, theirs], [])
    let lookups = 0
    const counting: Listers = {
      ...listers,
      getDeployment: (ns, n) => listers.getDeployment(ns, n),
      listReplicaSets: (ns) => listers.listReplicaSets(ns),
      claimableReplicaSets: (ns, uid, sel) => listers.claimableReplicaSets(ns, uid, sel),
      getReplicaSet: (ns, n) => {
        lookups++
        return listers.getReplicaSet(ns, n)
      },
      podsByControllerUID: (uid) => listers.podsByControllerUID(uid),
    }
    const store = dryRunStore(counting, 'a', 'web', () => NOW)
    expect(store.listers.listReplicaSets('a')).toEqual([mine])
    expect(() => store.create('replicasets', buildReplicaSet({name: 'web-2', namespace: 'a'}))).toThrow(
      'replicasets.apps "web-2" already exists',
    )
    expect(store.initial('replicasets', 'a', 'web-2')).toBe(theirs)
    expect(lookups).toBe(1)
    store.delete('replicasets', 'a', 'web-1')
    expect(store.peek('replicasets', 'a', 'web-1')).toBeUndefined()
    store.create('replicasets', buildReplicaSet({name: 'web-1', namespace: 'a', owner: d}))
    expect(store.peek('replicasets', 'a', 'web-3')).toBeUndefined()
    expect(lookups).toBe(2)
  })
})
