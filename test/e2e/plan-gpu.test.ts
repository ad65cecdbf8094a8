// Issue 27: will the surge fit, for an extended resource. The real manifests' vLLM Deployment
// requests an nvidia.com/gpu; kube-scheduler's NodeResourcesFit compares it with each node's
// allocatable like cpu and memory, a node without the resource having 0. On a cluster without GPUs
// its pod stays Pending and plan, live and from files, says the surge cannot be scheduled and why
// ("Insufficient nvidia.com/gpu"), and that old pods leaving does not help; on a cluster with one GPU
// node, the old pod holds the only GPU and the new pod waits for it, as the cluster then shows.

import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {PlanResult} from '../../src/plan/index.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cliAsync, eventually, KUBECTL, kubectlAsync, RunProcess, tempFiles} from './helpers.js'

type Item = PlanResult['items'][number]

const VLLM = readFileSync(join(__dirname, '../fixtures/real-manifests/vllm-deployment.yaml'), 'utf8')
const bumped = VLLM.replace('vllm/vllm-openai:v0.11.0', 'vllm/vllm-openai:v0.11.1')

/** A test API server simulating the cluster (with `gpuNodes`), `run` as its Deployment controller. */
async function cluster(gpuNodes: string[]) {
  const server = await startApiServer({simulate: {podReadyAfterMs: 200, terminateAfterMs: 200, gpuNodes}})
  const env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
  const run = new RunProcess(['-n', 'default'], env)
  await run.started()
  return {server, env, run}
}

/** The messages of the FailedScheduling events in namespace default. */
const refusals = (server: ApiServer) =>
  server.store
    .list('events', 'default')
    .filter((e) => (e as {reason?: string}).reason === 'FailedScheduling')
    .map((e) => (e as {message?: string}).message)

/** plan -f v2 live and from a snapshot of deployments, replicasets, pods and nodes. */
async function plans(env: NodeJS.ProcessEnv, dir: string): Promise<Item[]> {
  const snapshot = await kubectlAsync(env, 'get', 'deploy,rs,pods,nodes', '-o', 'yaml')
  expect(snapshot.code).toBe(0)
  writeFileSync(join(dir, 'current.yaml'), snapshot.stdout)
  const v2 = join(dir, 'v2.yaml')
  const runs = await Promise.all([
    cliAsync(['plan', '-f', v2, '-o', 'json'], {env}),
    cliAsync(['plan', '-f', v2, '--current', join(dir, 'current.yaml'), '-o', 'json']),
  ])
  return runs.map((r) => {
    expect({code: r.code, stderr: r.stderr}).toEqual({code: 0, stderr: ''})
    return (JSON.parse(r.stdout) as PlanResult).items[0] as Item
  })
}

describe.skipIf(KUBECTL === undefined)('a GPU Deployment on a cluster without GPUs', () => {
  let c: Awaited<ReturnType<typeof cluster>>
  let dir: string

  beforeAll(async () => {
    c = await cluster([])
    dir = tempFiles({'v1.yaml': VLLM, 'v2.yaml': bumped})
  }, 60_000)

  afterAll(async () => {
    await c?.run.stop('SIGTERM')
    await c?.server.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  }, 30_000)

  it('the pod stays Pending, and plan (live and --current) reports SurgeUnschedulable "Insufficient nvidia.com/gpu"', async () => {
    expect((await kubectlAsync(c.env, 'apply', '-f', join(dir, 'v1.yaml'))).code).toBe(0)
    const message =
      '0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.'
    await eventually(() => refusals(c.server).includes(message), 'the scheduler refusing the GPU pod')

    for (const item of await plans(c.env, dir)) {
      expect(item.rollout).toBe(true)
      expect(item.surge).toEqual({
        needed: 1,
        fit: 0,
        nodes: 3,
        reason: '0/3 nodes are available: 3 Insufficient nvidia.com/gpu.',
        unresolvable: true,
      })
      expect(item.risks.find((r) => r.code === 'SurgeUnschedulable')?.message).toBe(
        '0 of 1 surge pods fit on the 3 nodes (0/3 nodes are available: 3 Insufficient nvidia.com/gpu.): no node can take one however many old pods leave, so the rest stay Pending until nodes that can are added, and the rollout waits for them',
      )
    }
    // The table says it too.
    const table = await cliAsync(['plan', '-f', join(dir, 'v2.yaml')], {env: c.env})
    expect(table.stdout).toContain(
      'Surge: 0 of 1 new pod fits on the 3 nodes (0/3 nodes are available: 3 Insufficient nvidia.com/gpu.)',
    )
  }, 90_000)
})

describe.skipIf(KUBECTL === undefined)('a GPU Deployment on a cluster with one GPU node', () => {
  let c: Awaited<ReturnType<typeof cluster>>
  let dir: string

  beforeAll(async () => {
    c = await cluster(['gpu-1'])
    dir = tempFiles({'v1.yaml': VLLM, 'v2.yaml': bumped})
  }, 60_000)

  afterAll(async () => {
    await c?.run.stop('SIGTERM')
    await c?.server.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  }, 30_000)

  it('the pod runs on the GPU node; the surge pod needs a second GPU: plan says so, and the cluster then refuses it alike', async () => {
    const node = await kubectlAsync(c.env, 'get', 'node', 'gpu-1', '-o', 'json')
    const gpu = JSON.parse(node.stdout) as {
      metadata: {labels: Record<string, string>}
      status: {allocatable: Record<string, string>}
    }
    expect(gpu.status.allocatable['nvidia.com/gpu']).toBe('1')
    expect(gpu.metadata.labels['nvidia.com/gpu.present']).toBe('true')

    expect((await kubectlAsync(c.env, 'apply', '-f', join(dir, 'v1.yaml'))).code).toBe(0)
    const pods = () => c.server.store.list('pods', 'default') as Array<{spec?: {nodeName?: string}}>
    await eventually(() => pods()[0]?.spec?.nodeName === 'gpu-1', 'the GPU pod bound to gpu-1')

    // The new pod needs the GPU the old one holds (and 10Gi of gpu-1's memory, 10Gi taken of ~16Gi):
    // preemption could free them, so it is not unresolvable; maxUnavailable 0 keeps the old pod.
    const reason = '0/4 nodes are available: 1 Insufficient memory, 4 Insufficient nvidia.com/gpu.'
    for (const item of await plans(c.env, dir)) {
      expect(item.surge).toEqual({needed: 1, fit: 0, nodes: 4, reason})
      expect(item.risks.find((r) => r.code === 'SurgeUnschedulable')?.message).toBe(
        `0 of 1 surge pods fit on the 4 nodes (${reason}): the rest stay Pending until old pods are gone or nodes are added, and the rollout waits for them`,
      )
    }

    expect((await kubectlAsync(c.env, 'apply', '-f', join(dir, 'v2.yaml'))).code).toBe(0)
    await eventually(
      () =>
        refusals(c.server).includes(
          `${reason} preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.`,
        ),
      'the scheduler refusing the surge pod',
    )
  }, 90_000)
})

describe.skipIf(KUBECTL === undefined)(
  'a GPU Deployment under a ResourceQuota on requests.nvidia.com/gpu',
  () => {
    let c: Awaited<ReturnType<typeof cluster>>
    let dir: string

    beforeAll(async () => {
      c = await cluster(['gpu-1', 'gpu-2'])
      dir = tempFiles({
        'v1.yaml': VLLM,
        'v2.yaml': bumped,
        'quota.yaml':
          'apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: gpus}\nspec: {hard: {requests.nvidia.com/gpu: "1"}}\n',
      })
    }, 60_000)

    afterAll(async () => {
      await c?.run.stop('SIGTERM')
      await c?.server.close()
      if (dir) rmSync(dir, {recursive: true, force: true})
    }, 30_000)

    it('room on the nodes, none in the quota: plan (live and --current) says the surge pod is refused, and the cluster refuses it', async () => {
      expect((await kubectlAsync(c.env, 'apply', '-f', join(dir, 'quota.yaml'))).code).toBe(0)
      expect((await kubectlAsync(c.env, 'apply', '-f', join(dir, 'v1.yaml'))).code).toBe(0)
      const pods = () => c.server.store.list('pods', 'default') as Array<{spec?: {nodeName?: string}}>
      await eventually(() => pods()[0]?.spec?.nodeName?.startsWith('gpu-'), 'the GPU pod bound to a GPU node')

      const snapshot = await kubectlAsync(c.env, 'get', 'deploy,rs,pods,nodes,resourcequotas', '-o', 'yaml')
      expect(snapshot.code).toBe(0)
      writeFileSync(join(dir, 'current.yaml'), snapshot.stdout)
      const v2 = join(dir, 'v2.yaml')
      const runs = await Promise.all([
        cliAsync(['plan', '-f', v2, '-o', 'json'], {env: c.env}),
        cliAsync(['plan', '-f', v2, '--current', join(dir, 'current.yaml'), '-o', 'json']),
      ])
      const refusal =
        'is forbidden: exceeded quota: gpus, requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=1, limited: requests.nvidia.com/gpu=1'
      for (const r of runs) {
        expect({code: r.code, stderr: r.stderr}).toEqual({code: 0, stderr: ''})
        const item = (JSON.parse(r.stdout) as PlanResult).items[0] as Item
        // The new ReplicaSet is scaled up, its pod refused: the old one stays, and the deadline passes.
        expect(item.steps.map((s) => [s.role, s.from, s.to])).toEqual([['new', 0, 1]])
        const risk = item.risks.find((x) => x.code === 'ProgressDeadline')?.message
        expect(risk).toMatch(
          /^the new pods are refused \(Error creating: pods "vllm-gemma-deployment-[a-z0-9]+-[a-z0-9]+" /,
        )
        expect(risk).toContain(refusal)
      }

      expect((await kubectlAsync(c.env, 'apply', '-f', v2)).code).toBe(0)
      const failedCreate = () =>
        c.server.store
          .list('events', 'default')
          .map((e) => e as {reason?: string; message?: string})
          .find((e) => e.reason === 'FailedCreate')?.message
      await eventually(
        () => failedCreate()?.includes(refusal),
        'the ReplicaSet controller refused by the quota',
      )
    }, 90_000)
  },
)
