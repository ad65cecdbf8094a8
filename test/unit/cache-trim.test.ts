// `run`'s pod cache keeps only POD_FIELDS_FOR_CONTROLLER (src/cluster/live/cache/trim.ts). Every
// example, and each as a Recreate Deployment (the strategy that reads pods' phases), is passed
// twice: with pods as given, and with pods trimmed and guarded so that reading any field the trim
// drops throws. The guard makes the test fail the day the controller reads a trimmed field; the
// comparison, the day a trimmed value changes a decision.

import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/cluster/live/api.js'
import {
  type FieldShape,
  keepFields,
  POD_FIELDS_FOR_CONTROLLER,
  SharedParts,
  trimPodForController,
} from '../../src/cluster/live/cache/trim.js'
import {connect} from '../../src/cluster/live/kubeconfig.js'
import {listAll, PAGE_SIZE} from '../../src/cluster/live/read.js'
import {loadWorld} from '../../src/cluster/load/index.js'
import {newestTimestamp, type World} from '../../src/cluster/world.js'
import type {Pod} from '../../src/controller/api/types.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import {runPasses} from '../../src/pass/run.js'
import {startApiServer} from '../apiserver/index.js'
import {pod as buildPod, replicaSet} from '../objects.js'

const gates = parseFeatureGates(undefined)
const EXAMPLES = join(import.meta.dirname, '../../examples')
const examples = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml'))

/**
 * `value` trimmed to `shape`, where every field the trim dropped is a getter that throws: a read of
 * it fails the test. (Not a Proxy: the pass freezes its snapshot, and a frozen Proxy target must
 * hand out its own values.) The getters are not enumerable, so copies and JSON leave them out.
 */
function trapped(value: unknown, shape: FieldShape, path: string): unknown {
  if (Array.isArray(value)) return value.map((v, i) => trapped(v, shape, `${path}[${i}]`))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [field, v] of Object.entries(value)) {
    const sub = shape[field]
    if (sub === undefined) {
      Object.defineProperty(out, field, {
        enumerable: false,
        get() {
          throw new Error(`the controller read ${path}.${field}, which run's pod cache trims`)
        },
      })
    } else out[field] = sub === true ? v : trapped(v, sub, `${path}.${field}`)
  }
  return out
}

const trappedPod = (p: Pod): Pod => {
  expect(JSON.parse(JSON.stringify(trapped(p, POD_FIELDS_FOR_CONTROLLER, 'pod')))).toEqual(
    trimPodForController(p),
  )
  return trapped(p, POD_FIELDS_FOR_CONTROLLER, 'pod') as Pod
}

function withPods(world: World, pods: Pod[]): World {
  return {...world, pods, sources: new WeakMap()}
}

function asRecreate(world: World): World {
  return {
    ...world,
    deployments: world.deployments.map((d) => ({...d, spec: {...d.spec, strategy: {type: 'Recreate'}}})),
    sources: new WeakMap(),
  }
}

async function pass(world: World, now: number) {
  const {result, objects} = await runPasses(world, {allNamespaces: true}, {now, gates})
  // Every write, event and requeue, and the Deployments and ReplicaSets after the pass (pods differ by the trim).
  return JSON.parse(JSON.stringify({result, objects: objects.filter((o) => o.kind !== 'Pod')}))
}

describe("run's pod cache trim", () => {
  it('keeps what the shape lists and nothing else', () => {
    const rs = replicaSet({name: 'web-1'})
    const full = buildPod({
      name: 'p',
      owner: rs,
      metadata: {annotations: {a: 'b'}, deletionTimestamp: '2026-12-05T10:00:00Z'},
      status: {phase: 'Running', conditions: [{type: 'Ready', status: 'True'}]},
    })
    full.spec = {containers: [{name: 'app', image: 'nginx'}]}
    expect(trimPodForController(full)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'default',
        uid: 'uid-p',
        deletionTimestamp: '2026-12-05T10:00:00Z',
        ownerReferences: [
          {apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'uid-web-1', controller: true},
        ],
      },
      status: {phase: 'Running'},
    })
    expect(keepFields({a: [{b: 1, c: 2}]}, {a: {b: true}})).toEqual({a: [{b: 1}]})
  })

  it('is caught reading a trimmed field', () => {
    const p = trappedPod(buildPod({name: 'p', owner: replicaSet({name: 'r'})}))
    expect(p.status?.phase).toBe('Running')
    expect(() => p.spec).toThrow(/read pod.spec, which run's pod cache trims/)
    expect(() => p.metadata.labels).toThrow(/pod.metadata.labels/)
  })

  it.each(examples)(
    'leaves every decision of the controller on %s as it was, RollingUpdate and Recreate',
    async (file) => {
      const world = await loadWorld([join(EXAMPLES, file)], {warn: () => {}})
      const now = (newestTimestamp(world) ?? Date.parse('2026-12-05T10:00:00Z')) + 30_000
      for (const w of [world, asRecreate(world)]) {
        const trimmed = w.pods.map(trappedPod)
        expect(await pass(withPods(w, trimmed), now)).toEqual(await pass(w, now))
      }
    },
  )
})

describe('a cold list', () => {
  it('keeps each page trimmed as it arrives, not every page whole until the end', async () => {
    const rs = replicaSet({name: 'web-1'})
    const pods = Array.from({length: PAGE_SIZE + 1}, (_, i) => buildPod({name: `p${i}`, owner: rs}))
    const server = await startApiServer({objects: pods})
    try {
      const conn = await connect({kubeconfig: server.kubeconfigPath})
      const api = new ApiClient(conn)
      const seen: string[] = []
      const request = api.request.bind(api)
      api.request = ((opts: Parameters<typeof request>[0]) => {
        seen.push('page')
        return request(opts)
      }) as typeof api.request
      const {items} = await listAll<Pod>(api, 'pods', undefined, {}, (p) => {
        seen.push('item')
        return trimPodForController(p)
      })
      expect(items).toHaveLength(PAGE_SIZE + 1)
      expect(items[0]).toMatchObject({kind: 'Pod', metadata: {name: 'p0'}, status: {phase: 'Running'}})
      expect(items[0]?.spec).toBeUndefined()
      expect(items[0]?.metadata.labels).toBeUndefined()
      expect(seen.indexOf('page', 1)).toBe(PAGE_SIZE + 1)
    } finally {
      await server.close()
    }
  })
})

describe("SharedParts (the gate's first lists share equal parts)", () => {
  it('keeps each distinct nested part once, and every object reads as it was', () => {
    const parts = new SharedParts()
    const rs = replicaSet({name: 'web-abc', replicas: 2})
    const pods = [0, 1, 2].map((i) => {
      const p = buildPod({name: `web-abc-${i}`, owner: rs})
      p.spec = {containers: [{name: 'app', image: 'nginx:1', ports: [{containerPort: 80}]}]}
      return p
    })
    const copies = pods.map((p) => structuredClone(p))
    const shared = copies.map((p) => parts.share(p))
    // Values unchanged, key order included.
    expect(JSON.stringify(shared)).toBe(JSON.stringify(pods))
    // The top level is never replaced: each object stays itself.
    for (const [i, p] of shared.entries()) expect(p).toBe(copies[i])
    // Equal parts are one object; different ones stay apart.
    expect(shared[1]?.spec).toBe(shared[0]?.spec)
    expect(shared[2]?.metadata.ownerReferences).toBe(shared[0]?.metadata.ownerReferences)
    expect(shared[1]?.metadata).not.toBe(shared[0]?.metadata)
    // The same pod again adds nothing: every nested part, metadata included, is kept already.
    const kept = parts.size
    const again = parts.share(structuredClone(pods[0]))
    expect(parts.size).toBe(kept)
    expect(again?.metadata).toBe(shared[0]?.metadata)
  })

  it('tells apart parts that differ only in key order, types, nesting or length', () => {
    const parts = new SharedParts()
    const a = parts.share({x: {a: 1, b: 2}, y: [1, 2], z: {n: '1'}, w: [[1]], v: [null]})
    const b = parts.share({x: {b: 2, a: 1}, y: [1, 2, 3], z: {n: 1}, w: [[1, 1]], v: [false]})
    expect(b.x).not.toBe(a.x)
    expect(Object.keys(b.x)).toEqual(['b', 'a'])
    expect(b.y).toEqual([1, 2, 3])
    expect(b.z.n).toBe(1)
    expect(b.w).toEqual([[1, 1]])
    expect(b.v).toEqual([false])
    const c = parts.share({x: {a: 1, b: 2}, y: [1, 2], z: {n: '1'}, w: [[1]], v: [null]})
    for (const k of ['x', 'y', 'z', 'w', 'v'] as const) expect(c[k]).toBe(a[k])
    parts.clear()
    expect(parts.size).toBe(0)
  })
})
