// `plan --apply=client` (the default) predicts what `kubectl apply` really does: the real kubectl
// applies v1 to the test API server's moving cluster (the ported controller running), `plan`
// reads v2 live and from a snapshot of the cluster (--current), then kubectl applies v2 and the
// cluster rolls out the ReplicaSet the plan named. issue 27's case (1): v2 drops an env var and a
// template annotation that v1 had; only the last-applied configuration says they must go.

import {execFile, spawnSync} from 'node:child_process'
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import {LAST_APPLIED, modifiedConfiguration} from '../../src/cluster/apply/client.js'
import {ApiClient} from '../../src/cluster/live/api.js'
import {connect} from '../../src/cluster/live/kubeconfig.js'
import type {Deployment, ReplicaSet} from '../../src/controller/api/types.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import type {PlanItem, PlanResult} from '../../src/plan/index.js'
import {ControllerLoop} from '../../src/run/controller.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cliAsync, tempFiles} from './helpers.js'

const HAS_KUBECTL = spawnSync('kubectl', ['version', '--client'], {stdio: 'ignore'}).status === 0

const V1 = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: demo
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
      annotations: {team: payments}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        env:
        - {name: FOO, value: "1"}
        - {name: BAR, value: "2"}
`
const V2 = V1.replace('      annotations: {team: payments}\n', '').replace(
  '        - {name: FOO, value: "1"}\n',
  '',
)

let server: ApiServer
let loop: ControllerLoop
let running: Promise<unknown>
let dir: string
let env: NodeJS.ProcessEnv

function kubectl(args: string[]): Promise<{code: number; stdout: string; stderr: string}> {
  return new Promise((resolve) => {
    execFile('kubectl', args, {env: {...process.env, ...env}, timeout: 60_000}, (err, stdout, stderr) =>
      resolve({code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr}),
    )
  })
}

async function eventually(probe: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const deployment = () => server.store.get('deployments', 'demo', 'web') as unknown as Deployment
const complete = (revision: string, replicas = 3) => {
  const d = deployment()
  const s = d?.status ?? {}
  return (
    d?.metadata.annotations?.['deployment.kubernetes.io/revision'] === revision &&
    s.observedGeneration === d.metadata.generation &&
    s.updatedReplicas === replicas &&
    s.availableReplicas === replicas &&
    s.replicas === replicas
  )
}

beforeAll(async () => {
  if (!HAS_KUBECTL) return
  server = await startApiServer({simulate: {podReadyAfterMs: 300, terminateAfterMs: 300}})
  server.store.put({apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'demo'}})
  env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
  const conn = await connect({kubeconfig: server.kubeconfigPath})
  loop = new ControllerLoop({
    api: new ApiClient(conn),
    conn,
    namespace: 'demo',
    workers: 1,
    serverDryRun: false,
    gates: parseFeatureGates(undefined),
    verbosity: 0,
    onceSynced: false,
    log: () => {},
    resyncMs: 0,
  })
  running = loop.run()
  dir = tempFiles({'v1.yaml': V1, 'v2.yaml': V2})
  const applied = await kubectl(['apply', '-f', join(dir, 'v1.yaml')])
  expect(applied.stderr).toBe('')
  await eventually(() => complete('1'), 'the first rollout')
}, 90_000)

afterAll(async () => {
  loop?.stop()
  await running
  await server?.close()
  if (dir) rmSync(dir, {recursive: true, force: true})
})

function expectCaseOne(item: PlanItem): void {
  expect(item.rollout).toBe(true)
  expect(item.newReplicaSet).toBe('create')
  expect(item.templateChanges).toEqual([
    {path: 'spec.template.metadata.annotations', from: {team: 'payments'}, to: null},
    {
      path: 'spec.template.spec.containers[name=app].env[name=FOO]',
      from: {name: 'FOO', value: '1'},
      to: null,
    },
  ])
  expect(item.otherChanges).toEqual([])
}

describe.skipIf(!HAS_KUBECTL)('plan --apply=client: what kubectl apply does', () => {
  it('v2 drops an env var and a template annotation: a rollout, live and offline, and kubectl apply makes it', async () => {
    const live = await cliAsync(['plan', '-f', join(dir, 'v2.yaml'), '-o', 'json', '--exit-code'], {env})
    expect(live.stderr).toBe('')
    expect(live.code).toBe(1)
    const liveItem = (JSON.parse(live.stdout) as PlanResult).items[0]!
    expectCaseOne(liveItem)

    // The same from a snapshot of the cluster, as `kubectl get -o yaml` gives it.
    const snapshot = await kubectl(['get', 'deployments,replicasets,pods', '-n', 'demo', '-o', 'yaml'])
    expect(snapshot.code).toBe(0)
    const snap = tempFiles({'current.yaml': snapshot.stdout})
    try {
      const offline = await cliAsync(
        [
          'plan',
          '-f',
          join(dir, 'v2.yaml'),
          '--current',
          join(snap, 'current.yaml'),
          '-o',
          'json',
          '--exit-code',
        ],
        {env},
      )
      expect(offline.stderr).toBe('')
      expect(offline.code).toBe(1)
      const offlineItem = (JSON.parse(offline.stdout) as PlanResult).items[0]!
      expectCaseOne(offlineItem)
      expect(offlineItem.steps[0]?.replicaSet).toBe(liveItem.steps[0]?.replicaSet)
    } finally {
      rmSync(snap, {recursive: true, force: true})
    }

    const before = new Set(
      server.store.list('replicasets', 'demo').map((o) => (o as unknown as ReplicaSet).metadata.name),
    )
    const applied = await kubectl(['apply', '-f', join(dir, 'v2.yaml')])
    expect(applied.stdout.trim()).toBe('deployment.apps/web configured')
    await eventually(() => complete('2'), 'the second rollout')
    const created = server.store
      .list('replicasets', 'demo')
      .map((o) => (o as unknown as ReplicaSet).metadata.name)
      .filter((n) => !before.has(n))
    // The ReplicaSet the plan's first step scales up is the one the rollout created.
    expect(created).toEqual([liveItem.steps[0]?.replicaSet])
    // What kubectl stored as last-applied is what the plan's client-side apply computes.
    const written = parse(V2) as Record<string, unknown>
    expect(deployment().metadata.annotations?.[LAST_APPLIED]).toBe(
      (modifiedConfiguration(written).metadata as {annotations: Record<string, string>}).annotations[
        LAST_APPLIED
      ],
    )
    const template = deployment().spec.template
    expect(template.metadata?.annotations).toBeUndefined()
    expect(template.spec?.containers?.[0]?.env).toEqual([{name: 'BAR', value: '2'}])
  }, 120_000)

  it('an autoscaled Deployment whose new manifest drops spec.replicas: 7 -> 1, ReplicasReset, live and offline', async () => {
    // After the first case (v2 applied, revision 2). An HPA scaled the Deployment (applied with
    // replicas: 3) to 7; the last-applied configuration still says 3.
    server.store.put({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: {name: 'web', namespace: 'demo'},
      spec: {
        scaleTargetRef: {apiVersion: 'apps/v1', kind: 'Deployment', name: 'web'},
        minReplicas: 3,
        maxReplicas: 10,
      },
      status: {currentReplicas: 7, desiredReplicas: 7},
    })
    expect((await kubectl(['scale', 'deployment/web', '-n', 'demo', '--replicas=7'])).code).toBe(0)
    await eventually(() => complete('2', 7), 'the scale-up to 7')
    const v3 = V2.replace('  replicas: 3\n', '').replace('nginx:1.27', 'nginx:1.28')
    const files = tempFiles({'v3.yaml': v3})
    try {
      const check = (item: PlanItem) => {
        expect(item.newReplicaSet).toBe('create')
        expect(item.otherChanges).toEqual([{path: 'spec.replicas', from: 7, to: 1, defaulted: true}])
        expect(item.risks.map((r) => r.code)).toContain('ReplicasReset')
        expect(item.risks.find((r) => r.code === 'ReplicasReset')?.message).toContain(
          'the apply sets spec.replicas from 7 to 1',
        )
        // The steps end at 1 replica: the new ReplicaSet at 1, the old one at 0.
        expect(item.steps.filter((x) => x.role === 'new').at(-1)?.to).toBe(1)
        expect(item.steps.filter((x) => x.role === 'old').at(-1)?.to).toBe(0)
      }
      const live = await cliAsync(['plan', '-f', join(files, 'v3.yaml'), '-o', 'json'], {env})
      expect(live.stderr).toBe('')
      check((JSON.parse(live.stdout) as PlanResult).items[0]!)
      const snapshot = await kubectl(['get', 'deployments,replicasets,pods,hpa', '-n', 'demo', '-o', 'yaml'])
      expect(snapshot.code).toBe(0)
      writeFileSync(join(files, 'current.yaml'), snapshot.stdout)
      const offline = await cliAsync(
        ['plan', '-f', join(files, 'v3.yaml'), '--current', join(files, 'current.yaml'), '-o', 'json'],
        {env},
      )
      expect(offline.stderr).toBe('')
      check((JSON.parse(offline.stdout) as PlanResult).items[0]!)
      // And kubectl apply does set it to 1.
      expect((await kubectl(['apply', '-f', join(files, 'v3.yaml')])).code).toBe(0)
      expect(deployment().spec.replicas).toBe(1)
    } finally {
      rmSync(files, {recursive: true, force: true})
    }
  }, 120_000)
})
