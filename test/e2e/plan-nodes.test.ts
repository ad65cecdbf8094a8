// Will the surge fit, against Node objects (issue 27 item 6): the simulated test API server serves
// the nodes its kubelets register (every label a kubelet sets, allocatable), `kubectl get nodes`
// prints them, and live `plan` reads them with one list of nodes and one of pods, read-only.

import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {PlanResult} from '../../src/plan/index.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cliAsync, KUBECTL, kubectlAsync, tempFiles} from './helpers.js'

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
