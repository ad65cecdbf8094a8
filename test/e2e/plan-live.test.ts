// `plan` against a cluster: the built CLI reads the test API server (read-only) and gets the
// proposed Deployment from a server-side dry-run apply; an autoscaler and a quota come from there.

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import type {PlanResult} from '../../src/plan/index.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cliAsync, ROOT, tempFiles} from './helpers.js'

let server: ApiServer
let env: NodeJS.ProcessEnv
let dir: string

/** The steady example's Deployment as a user writes it: nothing the API server defaults. */
const MINIMAL = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports: [{containerPort: 80}]
`

beforeAll(async () => {
  const list = parse(readFileSync(join(ROOT, 'examples/steady.yaml'), 'utf8')) as {items: unknown[]}
  server = await startApiServer({
    objects: [
      ...list.items,
      {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: {name: 'web', namespace: 'demo'},
        spec: {
          scaleTargetRef: {apiVersion: 'apps/v1', kind: 'Deployment', name: 'web'},
          minReplicas: 2,
          maxReplicas: 10,
        },
        status: {currentReplicas: 3, desiredReplicas: 3},
      },
    ],
  })
  env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
  dir = tempFiles({
    'minimal.yaml': MINIMAL,
    'replicas.yaml': MINIMAL.replace('spec:\n  selector', 'spec:\n  replicas: 5\n  selector'),
  })
})

afterAll(async () => {
  await server?.close()
})

async function plan(file: string): Promise<{code: number | null; doc: PlanResult}> {
  const r = await cliAsync(['plan', '-f', join(dir, file), '-n', 'demo', '-o', 'json', '--exit-code'], {env})
  expect(r.stderr).toBe('')
  return {code: r.code, doc: JSON.parse(r.stdout) as PlanResult}
}

describe('plan on a live cluster', () => {
  it('a manifest that differs from the live object only by what the API server defaults plans no rollout', async () => {
    const before = server.requests.length
    const written = server.writes.length
    const {code, doc} = await plan('minimal.yaml')
    expect(code).toBe(0)
    const item = doc.items[0]!
    expect(item.newReplicaSet).toBe('none')
    expect(item.rollout).toBe(false)
    expect(item.templateChanges).toEqual([])
    expect(item.otherChanges).toEqual([])
    expect(item.risks).toEqual([])
    // Read-only: the one write is the dry-run apply, under kubectl apply's field manager.
    const writes = server.requests.slice(before).filter((q) => q.method !== 'GET')
    expect(writes.map((q) => [q.method, q.path, q.query.dryRun, q.query.fieldManager])).toEqual([
      ['PATCH', '/apis/apps/v1/namespaces/demo/deployments/web', 'All', 'kubectl-client-side-apply'],
    ])
    expect(server.writes.slice(written)).toEqual([])
  })

  it('spec.replicas in the manifest of an autoscaled Deployment is named as a risk', async () => {
    const {code, doc} = await plan('replicas.yaml')
    expect(code).toBe(0)
    const item = doc.items[0]!
    expect(item.otherChanges).toEqual([{path: 'spec.replicas', from: 3, to: 5}])
    expect(item.risks.map((r) => r.code)).toEqual(['AutoscalerReplicas'])
    expect(item.risks[0]?.message).toContain(
      'HorizontalPodAutoscaler web scales this Deployment (now 3 replicas)',
    )
  })
})
