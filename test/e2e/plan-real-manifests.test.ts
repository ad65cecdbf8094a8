// Issue 27: plan against what then happens, on every real application's manifests
// (test/fixtures/real-manifests, apart from the kustomize base an API server refuses: 19 files, 55
// Deployments). Each file is applied with the real kubectl onto one test API server that simulates
// the cluster, with `run` beside it as the Deployment controller, each file in its own namespace;
// once the rollouts are done, every Deployment's images get a new tag, one `plan -f DIR` of all the
// bumped files runs live and one from `kubectl get -A -o yaml` (--current), then the bumps are
// really applied and the rollouts finish. Both plans must name the ReplicaSet each rollout makes
// and the scaling steps the controller then takes (each ReplicaSet's spec.replicas, from -> to, in
// order, as the server stored them). Cases in there: external-dns (untagged -> tagged: a defaulted
// imagePullPolicy stays; Recreate), coredns (two ports 53), sock-shop (beta os node selector),
// podinfo (minReadySeconds, an HPA), guestbook and nginx (several replicas, one pod at a time), vLLM
// (an nvidia.com/gpu request: it schedules on the GPU nodes only).

import {spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {PlanResult} from '../../src/plan/index.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {applyEach, objectsOf, type RealApp, realApps} from '../apiserver/real-manifests.js'
import {cliAsync, eventually, kubectlAsync, limiter, RunProcess} from './helpers.js'

const HAS_KUBECTL = spawnSync('kubectl', ['version', '--client'], {stdio: 'ignore'}).status === 0
// biome-ignore lint/suspicious/noExplicitAny: test access to nested JSON
type Any = any

/** One ReplicaSet's spec.replicas moving, as plan's steps say it and as the server's writes show it. */
type Step = string

/**
 * ingress-nginx ships two variants of one install into namespace ingress-nginx (cloud and bare
 * metal differ in the Service and an argument of the controller): the cloud one goes into a
 * namespace of its own so both run side by side; the cluster-wide objects they share stay shared.
 */
function ownNamespace(app: RealApp): RealApp {
  if (app.file !== 'ingress-nginx-cloud.yaml') return app
  const text = app.text
    .split(/^---$/m)
    .map((doc) =>
      doc
        .replace(/^(\s*namespace): ingress-nginx$/gm, '$1: ingress-nginx-cloud')
        .replace(/^(kind: Namespace[\s\S]*^ {2}name): ingress-nginx$/m, '$1: ingress-nginx-cloud'),
    )
    .join('---')
  return {...app, text, objects: objectsOf(text)}
}

/**
 * The file with each Deployment's container images given a new tag (an untagged one gets one), and
 * the namespace it is applied into written on its Deployments, so that one `plan -f DIR` reads them all.
 */
function bumped(app: RealApp): string {
  const items = (structuredClone(app.objects) as Any[]).filter(Boolean).map((d: Any) => {
    if (d.kind !== 'Deployment') return d
    if (app.namespace) d.metadata.namespace = app.namespace
    for (const c of d.spec.template.spec.containers) {
      c.image = /:[^/]+$/.test(c.image.split('@')[0]) ? `${c.image}-bump` : `${c.image}:v1`
    }
    return d
  })
  return JSON.stringify({apiVersion: 'v1', kind: 'List', items})
}

/** Per Deployment (namespace/name), the ReplicaSet plan says the rollout makes, and its steps. */
function predicted(stdout: string): Map<string, {replicaSet: string | undefined; steps: Step[]}> {
  return new Map(
    (JSON.parse(stdout) as PlanResult).items.map((i) => [
      `${i.deployment.namespace}/${i.deployment.name}`,
      {
        replicaSet: i.steps.find((s) => s.role === 'new')?.replicaSet ?? i.replicaSet?.name,
        steps: i.steps.map((s) => `${s.replicaSet} ${s.from}->${s.to}`),
      },
    ]),
  )
}

/** A plan that ran: exit 0, and nothing on stderr but notes (the kinds it skips, ...). */
const planned = (mode: string) => ({mode, code: 0, stderr: expect.not.stringMatching(/^(?!note: )./m)})

describe.skipIf(!HAS_KUBECTL)('plan on real manifests, against the rollout that follows', () => {
  let server: ApiServer
  let run: RunProcess
  let dir: string
  let env: NodeJS.ProcessEnv
  /** The scaling steps the server stores, by owning Deployment (namespace/name) being recorded. */
  const recording = new Map<string, Step[]>()

  beforeAll(async () => {
    // Nodes enough for the 20 applications and their surge at once (each node 4 CPUs, 16Gi): on
    // the default 3 the pods wait for room, and the rollouts take a scheduler's back-off longer.
    // Two GPU nodes: vLLM requests an nvidia.com/gpu, and its image bump surges a second pod beside
    // the first (maxSurge 25% of 1), which needs the second GPU.
    server = await startApiServer({
      simulate: {
        podReadyAfterMs: 200,
        terminateAfterMs: 200,
        nodes: Array.from({length: 8}, (_, i) => `node-${i + 1}`),
        gpuNodes: ['gpu-1', 'gpu-2'],
      },
    })
    env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
    server.store.onChange((c) => {
      if (c.def.resource !== 'replicasets' || c.type === 'DELETED') return
      const o = c.object as Any
      const owner = o.metadata.ownerReferences?.find((r: Any) => r.kind === 'Deployment')?.name
      const steps = recording.get(`${o.metadata.namespace}/${owner}`)
      if (!steps) return
      const from = c.type === 'ADDED' ? 0 : ((c.previous as Any)?.spec?.replicas ?? 1)
      const to = o.spec?.replicas ?? 1
      if (from === to) return
      steps.push(`${o.metadata.name} ${from}->${to}`)
    })
    // The controller runs as long as the test may (its 5 minutes on a busy machine), without the
    // client's 20 requests a second: 55 rollouts at once would otherwise queue behind it.
    run = new RunProcess(['-A', '--kube-api-qps=-1'], env, 330_000)
    await run.started()
    dir = mkdtempSync(join(tmpdir(), 'deployctl-plan-real-'))
  }, 60_000)

  afterAll(async () => {
    await run?.stop('SIGTERM')
    await server?.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  }, 30_000)

  const deployment = (key: string) =>
    server.store.get('deployments', ...(key.split('/') as [string, string])) as Any

  /** Until every Deployment (namespace/name) has observed its spec and rolled it out whole. */
  async function settled(keys: string[], what: string): Promise<void> {
    const pending = () =>
      keys.filter((key) => {
        const d = deployment(key)
        const want = d?.spec.replicas ?? 1
        return !(
          d?.status?.observedGeneration === d.metadata.generation &&
          d.status?.updatedReplicas === want &&
          d.status?.replicas === want &&
          d.status?.availableReplicas === want
        )
      })
    await eventually(() => pending().length === 0, what, 90_000).catch((e: Error) => {
      throw new Error(`${e.message}: ${pending().join(', ')} not rolled out`)
    })
  }

  /** The ReplicaSet of the Deployment's current revision, as the server stores it. */
  function currentReplicaSet(key: string): string | undefined {
    const d = deployment(key)
    const revision = d.metadata.annotations?.['deployment.kubernetes.io/revision']
    const rs = (server.store.list('replicasets', d.metadata.namespace) as Any[]).find(
      (r) =>
        r.metadata.ownerReferences?.[0]?.uid === d.metadata.uid &&
        r.metadata.annotations?.['deployment.kubernetes.io/revision'] === revision,
    )
    return rs?.metadata.name
  }

  it('every Deployment rolls out the ReplicaSet and the steps plan predicts, live and offline (55 of 55)', async () => {
    const apps = realApps()
      .map(ownNamespace)
      .map((app) => {
        const deployments = app.objects.filter((o) => o?.kind === 'Deployment')
        const namespaces = new Set(deployments.map((d) => d?.metadata?.namespace ?? app.namespace))
        const keys = deployments.map((d) => `${[...namespaces][0]}/${d?.metadata?.name}`)
        return {...app, namespaces, keys, nsFlag: app.namespace ? ['-n', app.namespace] : []}
      })
      .filter((app) => app.keys.length > 0)
    // Every file's Deployments are in one namespace: settled() and the recording read them there.
    expect(apps.filter((a) => a.namespaces.size !== 1).map((a) => a.file)).toEqual([])
    const keys = apps.flatMap((a) => a.keys)
    expect(keys.length).toBe(55)
    // kube-prometheus's setup step creates the namespace its manifests go into.
    const namespaces = ['monitoring', ...apps.flatMap((a) => (a.namespace ? [a.namespace] : []))]
    for (const ns of new Set(namespaces))
      server.store.put({apiVersion: 'v1', kind: 'Namespace', metadata: {name: ns}})
    const v2 = join(dir, 'v2')
    mkdirSync(v2)
    for (const app of apps) {
      writeFileSync(join(dir, app.file), app.text)
      writeFileSync(join(v2, app.file.replace(/\.yaml$/, '.json')), bumped(app))
    }
    // Four kubectl processes at once; the rollouts then go on side by side. Files that share a
    // cluster-scoped object go one after the other, as they would have to on a real cluster.
    const slot = limiter(4)
    const applyAll = (file: (app: RealApp) => string, what: string) =>
      applyEach(apps, async (app) => {
        const applied = await slot(() => kubectlAsync(env, 'apply', ...app.nsFlag, '-f', file(app)))
        expect({file: file(app), code: applied.code, stderr: applied.stderr}).toEqual({
          file: file(app),
          code: 0,
          stderr: '',
        })
        await settled(app.keys, `${app.file}'s ${what}`)
      })

    await applyAll((app) => join(dir, app.file), 'first rollouts')

    // One plan of every Deployment (plan -f DIR), live and from a snapshot side by side: the live
    // one only reads.
    const snapshot = await kubectlAsync(
      env,
      'get',
      'deployments,replicasets,pods,horizontalpodautoscalers',
      '-A',
      '-o',
      'yaml',
    )
    expect(snapshot.code).toBe(0)
    writeFileSync(join(dir, 'current.yaml'), snapshot.stdout)
    const [live, offline] = await Promise.all([
      cliAsync(['plan', '-f', v2, '-o', 'json'], {env}),
      cliAsync(['plan', '-f', v2, '--current', join(dir, 'current.yaml'), '-o', 'json'], {env}),
    ])
    expect({mode: 'live', code: live.code, stderr: live.stderr}).toEqual(planned('live'))
    expect({mode: 'offline', code: offline.code, stderr: offline.stderr}).toEqual(planned('offline'))

    for (const key of keys) recording.set(key, [])
    await applyAll((app) => join(v2, app.file.replace(/\.yaml$/, '.json')), 'image bumps')

    const mismatches: string[] = []
    for (const [mode, plan] of [
      ['live', predicted(live.stdout)],
      ['offline', predicted(offline.stdout)],
    ] as const) {
      for (const key of keys) {
        const actual = {replicaSet: currentReplicaSet(key), steps: recording.get(key)}
        const said = plan.get(key)
        for (const field of ['replicaSet', 'steps'] as const) {
          const [a, b] = [JSON.stringify(said?.[field]), JSON.stringify(actual[field])]
          if (a !== b) mismatches.push(`${mode} ${key} ${field}: plan ${a}, server ${b}`)
        }
      }
    }
    expect(mismatches).toEqual([])
  }, 300_000)
})
