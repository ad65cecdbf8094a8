// Will the surge fit, against Node objects (issue 27 item 6): the simulated test API server serves
// the nodes its kubelets register (every label a kubelet sets, allocatable), `kubectl get nodes`
// prints them, and live `plan` reads them with one list of nodes and one of pods, read-only.

import {writeFileSync} from 'node:fs'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/cluster/live/api.js'
import {connect} from '../../src/cluster/live/kubeconfig.js'
import type {Deployment, Pod} from '../../src/controller/api/types.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import type {PlanResult} from '../../src/plan/index.js'
import {ControllerLoop} from '../../src/run/controller.js'
import {simulatedNode} from '../../src/sim/nodes.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cliAsync, eventually, KUBECTL, kubectlAsync, tempFiles} from './helpers.js'

type Item = PlanResult['items'][number]

/** A Deployment as a user writes it. */
function manifest(name: string, image: string, replicas: number, cpu = '100m'): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: app
        image: ${image}
        resources: {requests: {cpu: ${cpu}}}
`
}

let server: ApiServer
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  server = await startApiServer({simulate: {podReadyAfterMs: 200, terminateAfterMs: 200}})
  env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
})

afterAll(async () => {
  await server?.close()
})

describe.skipIf(KUBECTL === undefined)('the simulated nodes through the API', () => {
  it('kubectl get nodes lists the three Ready nodes with the kubelet labels and allocatable', async () => {
    const table = await kubectlAsync(env, 'get', 'nodes')
    expect(table.stderr).toBe('')
    expect(table.code).toBe(0)
    const lines = table.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION$/)
    expect(lines.slice(1).map((l) => l.split(/\s+/).filter((_, i) => i !== 3))).toEqual([
      ['node-1', 'Ready', '<none>', 'v1.36.3'],
      ['node-2', 'Ready', '<none>', 'v1.36.3'],
      ['node-3', 'Ready', '<none>', 'v1.36.3'],
    ])
    const json = await kubectlAsync(env, 'get', 'node', 'node-2', '-o', 'json')
    expect(json.code).toBe(0)
    const node = JSON.parse(json.stdout)
    expect(node.metadata.labels).toEqual({
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': 'node-2',
      'kubernetes.io/os': 'linux',
    })
    expect(node.status.allocatable).toMatchObject({cpu: '4', memory: '16674816Ki', pods: '110'})
    const selected = await kubectlAsync(env, 'get', 'no', '-l', 'beta.kubernetes.io/os=linux', '-o', 'name')
    expect(selected.stdout).toBe('node/node-1\nnode/node-2\nnode/node-3\n')
  })

  it('live plan fits the surge on the Node objects: one list of nodes and one of pods, read-only', async () => {
    const dir = tempFiles({
      'v1.yaml': manifest('web', 'nginx:1.27', 4, '3'),
      'v2.yaml': manifest('web', 'nginx:1.28', 4, '3'),
    })
    const applied = await kubectlAsync(env, 'apply', '-f', `${dir}/v1.yaml`)
    expect(applied.code).toBe(0)
    const before = server.requests.length
    const r = await cliAsync(['plan', '-f', `${dir}/v2.yaml`, '-o', 'json'], {env})
    expect(r.stderr).toBe('')
    const doc = JSON.parse(r.stdout) as PlanResult
    const item = doc.items[0] as PlanResult['items'][number]
    expect(item.surgeNote).toBeUndefined()
    // No Deployment controller runs here: the Deployment has no ReplicaSet yet, and its first one's
    // 4 pods of 3 CPUs are the surge; each node has 4 CPUs allocatable, so one pod fits on each.
    expect(item.surge).toEqual({
      needed: 4,
      fit: 3,
      nodes: 3,
      reason: '0/3 nodes are available: 3 Insufficient cpu.',
    })
    expect(item.risks.map((x) => x.code)).toContain('SurgeUnschedulable')
    const made = server.requests.slice(before)
    const reads = made.filter((q) => q.path === '/api/v1/nodes' || q.path === '/api/v1/pods')
    expect(reads.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/v1/nodes', 'GET /api/v1/pods'])
    // Read-only: the one write is kubectl apply's own PATCH, sent as a dry run.
    expect(made.filter((q) => q.method !== 'GET').map((q) => `${q.method} ${q.query.dryRun}`)).toEqual([
      'PATCH All',
    ])
  })
})

// Three nodes of 3 CPUs, six pods of 1 CPU spread two to a node: 1 CPU free on each. The change
// surges 4 new pods (maxSurge 4, maxUnavailable 0): 3 fit, the 4th waits for an old pod to leave.
describe.skipIf(KUBECTL === undefined)('ETA steps wait for surge pods that cannot be scheduled', () => {
  let cluster: ApiServer
  let clusterEnv: NodeJS.ProcessEnv
  let loop: ControllerLoop
  let running: Promise<unknown>
  const small = ['node-1', 'node-2', 'node-3'].map((name, i) => {
    const n = simulatedNode(name, i, Date.parse('2026-12-05T10:00:00Z'))
    ;(n.status as {allocatable: Record<string, string>}).allocatable.cpu = '3'
    return n
  })
  const rollout = (image: string) =>
    manifest('web', image, 6, '1').replace(
      'spec:\n  replicas: 6',
      'spec:\n  replicas: 6\n  strategy: {rollingUpdate: {maxSurge: 4, maxUnavailable: 0}}',
    )
  const done = (revision: string) => {
    const d = cluster.store.get('deployments', 'default', 'web') as unknown as Deployment | undefined
    const s = d?.status ?? {}
    return (
      d?.metadata.annotations?.['deployment.kubernetes.io/revision'] === revision &&
      s.observedGeneration === d.metadata.generation &&
      s.updatedReplicas === 6 &&
      s.availableReplicas === 6 &&
      s.replicas === 6
    )
  }

  beforeAll(async () => {
    cluster = await startApiServer({objects: small, simulate: {podReadyAfterMs: 300, terminateAfterMs: 300}})
    clusterEnv = {KUBECONFIG: cluster.kubeconfigPath, KUBECACHEDIR: cluster.cacheDir}
    const conn = await connect({kubeconfig: cluster.kubeconfigPath})
    loop = new ControllerLoop({
      api: new ApiClient(conn),
      conn,
      namespace: 'default',
      workers: 1,
      serverDryRun: false,
      gates: parseFeatureGates(undefined),
      verbosity: 0,
      onceSynced: false,
      log: () => {},
      resyncMs: 0,
    })
    running = loop.run()
  }, 90_000)

  afterAll(async () => {
    loop?.stop()
    await running
    await cluster?.close()
  })

  it('live and offline: 3 of 4 surge pods fit and the steps wait for old pods to leave; the cluster then does so', async () => {
    const dir = tempFiles({'v1.yaml': rollout('nginx:1.27'), 'v2.yaml': rollout('nginx:1.28')})
    expect((await kubectlAsync(clusterEnv, 'apply', '-f', `${dir}/v1.yaml`)).code).toBe(0)
    await eventually(() => done('1'), 'the first rollout')
    const snapshot = await kubectlAsync(clusterEnv, 'get', 'deploy,rs,pods,nodes', '-o', 'yaml')
    expect(snapshot.code).toBe(0)
    writeFileSync(`${dir}/current.yaml`, snapshot.stdout)
    const {parseAllDocuments, stringify} = await import('yaml')
    const list = parseAllDocuments(snapshot.stdout)[0]?.toJS() as {items: Array<{kind: string}>}
    const withoutNodes = {...list, items: list.items.filter((o) => o.kind !== 'Node')}
    writeFileSync(`${dir}/without-nodes.yaml`, stringify(withoutNodes))
    // Pods of the simulated cluster are ready within a second (timestamps have whole seconds): the
    // simulation is given 10 s to make the wait visible.
    const flags = ['-o', 'json', '--pod-ready-after', '10s', '--now', '2026-12-05T12:00:00Z']
    const v2 = `${dir}/v2.yaml`
    const runs = await Promise.all([
      cliAsync(['plan', '-f', v2, ...flags], {env: clusterEnv}),
      cliAsync(['plan', '-f', v2, '--current', `${dir}/current.yaml`, ...flags]),
      cliAsync(['plan', '-f', v2, '--current', `${dir}/without-nodes.yaml`, ...flags]),
    ])
    for (const r of runs) expect(r.stderr).toBe('')
    const [live, offline, blind] = runs.map((r) => (JSON.parse(r.stdout) as PlanResult).items[0] as Item)
    const steps = (item: Item) => item.steps.map((x) => [x.atSeconds, x.role, x.from, x.to])
    for (const item of [live, offline] as Item[]) {
      expect(item.surge).toEqual({
        needed: 4,
        fit: 3,
        nodes: 3,
        reason: '0/3 nodes are available: 3 Insufficient cpu.',
      })
      expect(item.risks.find((x) => x.code === 'SurgeUnschedulable')?.message).toMatch(
        /^3 of 4 surge pods fit on the 3 nodes/,
      )
      // 3 new pods ready at 10 s: 3 old ones go, and 2 more new ones come, Pending with the 4th
      // until the old pods have left their nodes (5 s of termination); bound at 15 s, ready at 24 s.
      expect(steps(item)).toEqual([
        [0, 'new', 0, 4],
        [10, 'old', 6, 3],
        [10, 'new', 4, 6],
        [24, 'old', 3, 0],
      ])
      expect(item.simulation.seconds).toBe(24)
      expect(item.minAvailable).toBe(6)
    }
    // The same snapshot without its nodes: nothing waits, the 4 surge pods are ready at 10 s.
    expect(blind?.surge).toBeNull()
    expect(steps(blind as Item)).toEqual([
      [0, 'new', 0, 4],
      [10, 'old', 6, 2],
      [10, 'new', 4, 6],
      [20, 'old', 2, 0],
    ])
    expect(blind?.simulation.seconds).toBe(20)

    // The cluster, its scheduler placing pods on the nodes' room: the 4th surge pod is refused until
    // an old pod is gone, and the ReplicaSets move as the plan said.
    const sizes = new Map<string, number>()
    const old = (cluster.store.list('replicasets', 'default')[0] as {metadata: {name: string}}).metadata.name
    const moves: Array<[string, number, number]> = []
    // The order of what matters: an old pod leaving its node, and a refused pod being bound.
    const order: string[] = []
    const stop = cluster.store.onChange((c) => {
      if (c.def.resource === 'pods') {
        const pod = c.object as unknown as Pod
        const before = c.previous as unknown as Pod | undefined
        const owner = pod.metadata.ownerReferences?.[0]?.name
        if (c.type === 'DELETED' && owner === old) order.push('old pod gone')
        const waited = before?.status?.conditions?.some(
          (x) => x.type === 'PodScheduled' && x.status === 'False',
        )
        if (c.type === 'MODIFIED' && waited && !before?.spec?.nodeName && pod.spec?.nodeName)
          order.push('refused pod bound')
        return
      }
      if (c.def.resource !== 'replicasets' || c.type === 'DELETED') return
      const rs = c.object as {metadata: {name: string}; spec: {replicas: number}}
      const before = sizes.get(rs.metadata.name) ?? (rs.metadata.name === old ? 6 : 0)
      if (rs.spec.replicas !== before)
        moves.push([rs.metadata.name === old ? 'old' : 'new', before, rs.spec.replicas])
      sizes.set(rs.metadata.name, rs.spec.replicas)
    })
    try {
      expect((await kubectlAsync(clusterEnv, 'apply', '-f', v2)).code).toBe(0)
      await eventually(() => done('2'), 'the second rollout')
    } finally {
      stop()
    }
    // Pods here become ready milliseconds apart: the cluster may take in several steps what the
    // simulation, whose pods of one wave are ready at one instant, takes in one (plan-agreement).
    expect(moves[0]).toEqual(['new', 0, 4])
    expect(moves.filter(([role]) => role === 'new').at(-1)?.[2]).toBe(6)
    expect(moves.at(-1)).toEqual(['old', expect.any(Number), 0])
    expect(order.indexOf('refused pod bound')).toBeGreaterThan(order.indexOf('old pod gone'))
    expect(order.indexOf('old pod gone')).toBeGreaterThanOrEqual(0)
    const refused = cluster.store
      .list('events', 'default')
      .filter((e) => (e as {reason?: string}).reason === 'FailedScheduling')
      .map((e) => (e as {message?: string}).message)
    expect(refused[0]).toBe(
      '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
    )
  }, 120_000)
})
