// plan's simulation against a live rollout: on the test API server's moving cluster (`simulate`),
// with the ported controller running, the steps `plan` predicts for an image change are the scale
// steps the controller then makes (up to how simultaneous events are batched), and the peak of
// active pods is the same.

import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/cluster/live/api.js'
import {connect} from '../../src/cluster/live/kubeconfig.js'
import type {Deployment, Pod, ReplicaSet} from '../../src/controller/api/types.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import type {PlanResult} from '../../src/plan/index.js'
import {ControllerLoop} from '../../src/run/controller.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cliAsync, tempFiles} from './helpers.js'

const manifest = (image: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {name: 'web', namespace: 'default'},
  spec: {
    replicas: 4,
    selector: {matchLabels: {app: 'web'}},
    template: {metadata: {labels: {app: 'web'}}, spec: {containers: [{name: 'app', image}]}},
  },
})

let server: ApiServer
let loop: ControllerLoop
let running: Promise<unknown>

async function eventually(probe: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const deployment = () => server.store.get('deployments', 'default', 'web') as unknown as Deployment
const complete = (revision: string) => {
  const d = deployment()
  const s = d?.status ?? {}
  return (
    d?.metadata.annotations?.['deployment.kubernetes.io/revision'] === revision &&
    s.observedGeneration === d.metadata.generation &&
    s.updatedReplicas === 4 &&
    s.availableReplicas === 4 &&
    s.replicas === 4
  )
}

beforeAll(async () => {
  server = await startApiServer({simulate: {podReadyAfterMs: 400, terminateAfterMs: 400}})
  const res = await fetch(`${server.url}/apis/apps/v1/namespaces/default/deployments`, {
    method: 'POST',
    headers: {Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json'},
    body: JSON.stringify(manifest('nginx:1.27')),
  })
  expect(res.status).toBe(201)
  const conn = await connect({kubeconfig: server.kubeconfigPath})
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
  await eventually(() => complete('1'), 'the first rollout')
}, 90_000)

afterAll(async () => {
  loop?.stop()
  await running
  await server?.close()
})

describe('plan and the live rollout that follows', () => {
  it('predicts the scale steps the controller makes and the peak of active pods', async () => {
    const dir = tempFiles({'web.json': JSON.stringify(manifest('nginx:1.28'))})
    const env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
    // The simulated cluster readies a pod 400 ms after its creation: finer than the 1 s timestamps
    // the ETA reads, so the simulation is given that time.
    const r = await cliAsync(
      ['plan', '-f', `${dir}/web.json`, '--pod-ready-after', '400ms', '-o', 'json', '--exit-code'],
      {env},
    )
    expect(r.stderr).toBe('')
    expect(r.code).toBe(1)
    const item = (JSON.parse(r.stdout) as PlanResult).items[0]!
    expect(item.newReplicaSet).toBe('create')

    // The live rollout, change by change: each ReplicaSet's spec.replicas, and the active pods.
    const oldNames = new Set(
      server.store.list('replicasets', 'default').map((o) => (o as unknown as ReplicaSet).metadata.name),
    )
    const replicas = new Map<string, number>()
    for (const o of server.store.list('replicasets', 'default')) {
      const rs = o as unknown as ReplicaSet
      replicas.set(rs.metadata.name ?? '', rs.spec.replicas ?? 0)
    }
    const steps: Array<[string, number, number]> = []
    let peak = 0
    const stop = server.store.onChange((c) => {
      if (c.def.resource === 'replicasets' && c.type !== 'DELETED') {
        const rs = c.object as unknown as ReplicaSet
        const name = rs.metadata.name ?? ''
        const before = replicas.get(name) ?? 0
        if ((rs.spec.replicas ?? 0) !== before) {
          steps.push([oldNames.has(name) ? 'old' : 'new', before, rs.spec.replicas ?? 0])
          replicas.set(name, rs.spec.replicas ?? 0)
        }
      }
      if (c.def.resource === 'pods') {
        const active = server.store
          .list('pods', 'default')
          .filter((p) => (p as unknown as Pod).metadata.deletionTimestamp == null).length
        peak = Math.max(peak, active)
      }
    })
    try {
      const res = await fetch(
        `${server.url}/apis/apps/v1/namespaces/default/deployments/web?fieldManager=kubectl&force=true`,
        {
          method: 'PATCH',
          headers: {Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/apply-patch+yaml'},
          body: JSON.stringify(manifest('nginx:1.28')),
        },
      )
      expect(res.status).toBe(200)
      await eventually(() => complete('2'), 'the second rollout')
    } finally {
      stop()
    }
    // The same moves, at the resolution of each: the simulation readies pods created at one
    // instant together and may take one larger step where the live cluster, whose pods are created
    // milliseconds apart, takes several. So: the same first and last steps, every size the plan
    // gives a ReplicaSet is one the live rollout gives it too, and the same peak.
    const plan = item.steps.map((s): [string, number, number] => [s.role, s.from, s.to])
    expect(plan[0]).toEqual(['new', 0, 1])
    expect(steps[0]).toEqual(plan[0])
    expect(steps.at(-1)).toEqual(plan.at(-1))
    for (const role of ['new', 'old']) {
      const sizes = (list: Array<[string, number, number]>) =>
        list.filter((x) => x[0] === role).map((x) => x[2])
      const live = new Set(sizes(steps))
      expect(sizes(plan).filter((n) => !live.has(n))).toEqual([])
    }
    expect(item.peakPods).toBe(peak)
  }, 120_000)
})
