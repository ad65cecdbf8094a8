// Finding a Deployment's ReplicaSets through indexes (issue 30 item 3) decides exactly what the walk
// over the namespace decides (upstream's getReplicaSetsForDeployment lists every ReplicaSet of the
// namespace and lets ClaimReplicaSets ignore the rest). Random namespaces of Deployments with
// overlapping selectors and ReplicaSets owned, foreign or orphaned: the index's candidates hold every
// ReplicaSet a claim can touch, in the lister's order, and whole passes are equal with and without it.

import fc from 'fast-check'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {LabelIndex, requiredPairs} from '../../src/cluster/label-index.js'
import {ApiClient} from '../../src/cluster/live/api.js'
import {Informer} from '../../src/cluster/live/cache/informer.js'
import {InformerListers, replicaSetIndexers} from '../../src/cluster/live/cache/listers.js'
import {connect} from '../../src/cluster/live/kubeconfig.js'
import {MemoryStore, SnapshotListers} from '../../src/cluster/memory.js'
import type {World} from '../../src/cluster/world.js'
import type {Deployment, LabelSelector, ReplicaSet} from '../../src/controller/api/types.js'
import {getControllerOf} from '../../src/controller/controller-utils.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import {labelSelectorAsSelector} from '../../src/controller/util/labels.js'
import {runPasses} from '../../src/pass/run.js'
import {storeGaps} from '../../src/status/gaps.js'
import {rolloutStateOf} from '../../src/status/item.js'
import {resolveResource, startApiServer} from '../apiserver/index.js'
import {deployment as buildDeployment, pod as buildPod, replicaSet as buildReplicaSet} from '../objects.js'

const NOW = Date.parse('2026-12-05T10:00:00Z')
const gates = parseFeatureGates(undefined)

const LABELS = ['app=a', 'app=b', 'tier=web', 'tier=db', 'track=canary']
const labelSet = fc
  .subarray(LABELS)
  .map((pairs) => Object.fromEntries(pairs.map((p) => p.split('=') as [string, string])))

const selector: fc.Arbitrary<LabelSelector | null> = fc.oneof(
  {
    weight: 4,
    arbitrary: labelSet.filter((l) => Object.keys(l).length > 0).map((matchLabels) => ({matchLabels})),
  },
  fc.constantFrom<LabelSelector | null>(
    {matchExpressions: [{key: 'app', operator: 'In', values: ['a']}]},
    {matchExpressions: [{key: 'app', operator: 'In', values: ['a', 'b']}]},
    {matchExpressions: [{key: 'tier', operator: 'Exists'}]},
    {matchLabels: {app: 'a'}, matchExpressions: [{key: 'track', operator: 'DoesNotExist'}]},
    {matchExpressions: [{key: 'app', operator: 'NotIn', values: ['b']}]},
    {},
    null,
  ),
)

interface Spec {
  deployments: Array<{namespace: string; selector: LabelSelector | null; replicas: number}>
  replicaSets: Array<{namespace: string; labels: Record<string, string>; owner: number; replicas: number}>
}

const spec: fc.Arbitrary<Spec> = fc.record({
  deployments: fc.array(
    fc.record({
      namespace: fc.constantFrom('a', 'a', 'b'),
      selector,
      replicas: fc.integer({min: 0, max: 4}),
    }),
    {minLength: 1, maxLength: 8},
  ),
  // owner: -1 an orphan, -2 a foreign controller, else the index of a Deployment.
  replicaSets: fc.array(
    fc.record({
      namespace: fc.constantFrom('a', 'a', 'b'),
      labels: labelSet,
      owner: fc.integer({min: -2, max: 7}),
      replicas: fc.integer({min: 0, max: 3}),
    }),
    {maxLength: 24},
  ),
})

function worldOf(s: Spec): World {
  const deployments = s.deployments.map((d, i) => {
    const built = buildDeployment({
      name: `d${i}`,
      namespace: d.namespace,
      replicas: d.replicas,
      defaulted: true,
      metadata: {uid: `uid-d${i}`},
    })
    if (d.selector === null) delete built.spec.selector
    else built.spec.selector = d.selector
    built.spec.template = {
      ...built.spec.template,
      metadata: {labels: {...(d.selector?.matchLabels ?? {}), app: d.selector?.matchLabels?.app ?? 'a'}},
    }
    return built
  })
  const replicaSets: ReplicaSet[] = []
  const pods = []
  for (const [i, r] of s.replicaSets.entries()) {
    const owner = r.owner >= 0 ? deployments[r.owner % deployments.length] : undefined
    const rs = buildReplicaSet({
      name: `rs${i}`,
      namespace: r.namespace,
      labels: r.labels,
      owner: owner && owner.metadata.namespace === r.namespace ? owner : undefined,
      replicas: r.replicas,
      metadata: {creationTimestamp: new Date(NOW - (100 - i) * 1000).toISOString().replace('.000Z', 'Z')},
    })
    if (r.owner === -2) {
      rs.metadata.ownerReferences = [
        {apiVersion: 'apps/v1', kind: 'Deployment', name: 'other', uid: 'uid-other', controller: true},
      ]
    }
    replicaSets.push(rs)
    for (let p = 0; p < r.replicas; p++) pods.push(buildPod({name: `rs${i}-p${p}`, owner: rs}))
  }
  return {deployments, replicaSets, pods, sources: new WeakMap()}
}

/** What ClaimReplicaSets does not ignore: its own ReplicaSets and the orphans its selector matches. */
function touchedByClaim(d: Deployment, all: readonly ReplicaSet[]): ReplicaSet[] {
  const sel = labelSelectorAsSelector(d.spec.selector)
  return all.filter((rs) => {
    const ref = getControllerOf(rs.metadata)
    return ref ? ref.uid === d.metadata.uid : sel.matches(rs.metadata.labels)
  })
}

const isSubsequence = <T>(sub: readonly T[], of: readonly T[]) => {
  let i = 0
  for (const o of of) if (i < sub.length && sub[i] === o) i++
  return i === sub.length
}

afterEach(() => vi.restoreAllMocks())

describe('LabelIndex', () => {
  it('answers a superset of the matches, in input order', () => {
    fc.assert(
      fc.property(fc.array(labelSet, {maxLength: 30}), selector, (labels, sel) => {
        const objects = labels.map((l, i) => ({id: i, metadata: {labels: l}}))
        const index = new LabelIndex<(typeof objects)[number]>()
        for (const o of objects) index.add(o)
        const candidates = index.candidates(sel)
        const matches = objects.filter((o) => labelSelectorAsSelector(sel).matches(o.metadata.labels))
        expect(matches.every((m) => candidates.includes(m))).toBe(true)
        expect(isSubsequence(candidates, objects)).toBe(true)
      }),
      {seed: 30, numRuns: 300},
    )
  })

  it('looks in the rarest required pair, and everywhere when no pair is required', () => {
    expect(requiredPairs(null)).toBeNull()
    expect(requiredPairs({})).toBeUndefined()
    expect(requiredPairs({matchExpressions: [{key: 'x', operator: 'Exists'}]})).toBeUndefined()
    expect(
      requiredPairs({matchExpressions: [{key: 'x', operator: 'In', values: ['1', '2']}]}),
    ).toBeUndefined()
    expect(
      requiredPairs({matchLabels: {a: '1'}, matchExpressions: [{key: 'b', operator: 'In', values: ['2']}]}),
    ).toHaveLength(2)
    const index = new LabelIndex<{metadata: {labels: Record<string, string>}}>()
    const many = Array.from({length: 50}, () => ({metadata: {labels: {app: 'a', tier: 'web'}}}))
    const rare = {metadata: {labels: {app: 'a', tier: 'db'}}}
    for (const o of [...many, rare]) index.add(o)
    expect(index.candidates({matchLabels: {app: 'a', tier: 'db'}})).toEqual([rare])
    expect(index.candidates({matchLabels: {app: 'zzz'}})).toEqual([])
  })
})

describe('SnapshotListers.claimableReplicaSets', () => {
  it('holds every ReplicaSet a claim can touch, in listReplicaSets order', () => {
    fc.assert(
      fc.property(spec, (s) => {
        const world = worldOf(s)
        const listers = new SnapshotListers(world.deployments, world.replicaSets, world.pods)
        for (const d of world.deployments) {
          const ns = d.metadata.namespace ?? ''
          const all = listers.listReplicaSets(ns)
          const claimable = listers.claimableReplicaSets(ns, d.metadata.uid ?? '', d.spec.selector)
          expect(touchedByClaim(d, all).every((rs) => claimable.includes(rs))).toBe(true)
          expect(isSubsequence(claimable, all)).toBe(true)
        }
      }),
      {seed: 30, numRuns: 300},
    )
  })

  it('gives whole passes, explanations and input gaps equal to the namespace walk', async () => {
    await fc.assert(
      fc.asyncProperty(spec, async (s) => {
        const indexed = await observe(worldOf(s))
        vi.spyOn(SnapshotListers.prototype, 'claimableReplicaSets').mockReturnValue(
          undefined as unknown as ReplicaSet[],
        )
        const walked = await observe(worldOf(s))
        vi.restoreAllMocks()
        expect(indexed).toEqual(walked)
      }),
      {seed: 30, numRuns: 150},
    )
  })
})

async function observe(world: World) {
  const {result, objects} = await runPasses(world, {allNamespaces: true}, {now: NOW, gates})
  const store = new MemoryStore(world, {now: () => NOW})
  const gaps = world.deployments.map((d) =>
    storeGaps(store, d.metadata.namespace ?? '', d.metadata.name ?? ''),
  )
  const judged = await runPasses(world, {allNamespaces: true}, {now: NOW, gates, collectFacts: true})
  const states = judged.result.items.map((r) =>
    rolloutStateOf(world, judged.store, r, {now: NOW, checkInput: true}),
  )
  return {result, objects, gaps, states}
}

describe('InformerListers.claimableReplicaSets', () => {
  it('holds what a claim can touch, in the namespace index order, as the cache changes', async () => {
    const world = worldOf(
      fc.sample(
        spec.filter((s) => s.replicaSets.length >= 10),
        {seed: 30, numRuns: 1},
      )[0]!,
    )
    const server = await startApiServer({objects: world.replicaSets})
    const conn = await connect({kubeconfig: server.kubeconfigPath})
    const api = new ApiClient(conn)
    const common = {api, conn, namespace: undefined, resyncMs: 0, freeze: true}
    const indexed = new Informer<ReplicaSet>({
      ...common,
      resource: 'replicasets',
      indexers: replicaSetIndexers,
    })
    const plain = new Informer<ReplicaSet>({...common, resource: 'replicasets'})
    try {
      await indexed.start()
      await plain.start()
      const check = () => {
        const listers = new InformerListers(indexed as never, indexed, indexed as never)
        for (const d of world.deployments) {
          const ns = d.metadata.namespace ?? ''
          const all = listers.listReplicaSets(ns)
          const claimable = listers.claimableReplicaSets(ns, d.metadata.uid ?? '', d.spec.selector)
          expect(claimable).toBeDefined()
          expect(touchedByClaim(d, all).every((rs) => claimable!.includes(rs))).toBe(true)
          expect(isSubsequence(claimable!, all)).toBe(true)
        }
        // Without the indexes the listers say so, and the controller walks the namespace.
        const bare = new InformerListers(plain as never, plain, plain as never)
        expect(bare.claimableReplicaSets('a', 'uid-d0', {matchLabels: {app: 'a'}})).toBeUndefined()
      }
      check()
      // Orphans adopted and owned ones released, labels changed, one deleted: the indexes follow.
      const stored = (name: string) =>
        structuredClone(
          indexed.get(
            `${world.replicaSets.find((r) => r.metadata.name === name)!.metadata.namespace}/${name}`,
          )!,
        )
      const names = world.replicaSets.map((r) => r.metadata.name ?? '')
      const owner = world.deployments[0]!
      for (const [i, name] of names.entries()) {
        const rs = stored(name) as ReplicaSet
        if (i % 3 === 0) {
          rs.metadata.ownerReferences = getControllerOf(rs.metadata)
            ? []
            : [
                {
                  apiVersion: 'apps/v1',
                  kind: 'Deployment',
                  name: 'd0',
                  uid: owner.metadata.uid ?? '',
                  controller: true,
                },
              ]
        } else if (i % 3 === 1) rs.metadata.labels = {...rs.metadata.labels, app: 'b'}
        else continue
        server.store.put(rs as never)
      }
      server.store.remove(
        resolveResource('replicasets'),
        world.replicaSets[2]!.metadata.namespace ?? '',
        names[2]!,
      )
      const rv = server.store.resourceVersion
      const deadline = Date.now() + 10_000
      while (indexed.resourceVersion !== rv) {
        if (Date.now() > deadline) throw new Error('the informer did not catch up')
        await new Promise((r) => setTimeout(r, 20))
      }
      check()
    } finally {
      await indexed.stop()
      await plain.stop()
      await server.close()
    }
  })
})
