// Issue 27: plan against what then happens, on every real application's manifests
// (test/fixtures/real-manifests, apart from the kustomize base an API server refuses; 55
// Deployments). Each file is applied with the real kubectl onto one test API server that simulates
// the cluster, with `run` beside it as the Deployment controller, each file in its own namespace
// (concurrently); once its rollouts are done, every Deployment's images get a new tag, `plan` runs
// live and from `kubectl get -o yaml` (--current), then the bump is really applied and the rollout
// finishes. Both plans must name the ReplicaSet the rollout makes and the scaling steps the
// controller then takes (each ReplicaSet's spec.replicas, from -> to, in order).
// Cases in there: external-dns (untagged -> tagged: a defaulted imagePullPolicy stays), coredns
// (two ports 53), sock-shop (beta os node selector), argocd and external-dns (Recreate).

import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {PlanResult} from '../../src/plan/index.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {objectsOf, type RealApp, realApps} from '../apiserver/real-manifests.js'
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
  return {...app, text}
}

/** The file with each Deployment's container images given a new tag (an untagged one gets one). */
function bumped(text: string): string {
  const items = objectsOf(text)
    .filter(Boolean)
    .map((d: Any) => {
      if (d.kind !== 'Deployment') return d
      for (const c of d.spec.template.spec.containers) {
        c.image = /:[^/]+$/.test(c.image.split('@')[0]) ? `${c.image}-bump` : `${c.image}:v1`
      }
      return d
    })
  return JSON.stringify({apiVersion: 'v1', kind: 'List', items})
}

/** Per Deployment (its name), the ReplicaSet plan says the rollout makes, and its steps. */
function predicted(stdout: string): Map<string, {replicaSet: string | undefined; steps: Step[]}> {
  return new Map(
    (JSON.parse(stdout) as PlanResult).items.map((i) => [
      i.deployment.name,
      {
        replicaSet: i.steps.find((s) => s.role === 'new')?.replicaSet ?? i.replicaSet?.name,
        steps: i.steps.map((s) => `${s.replicaSet} ${s.from}->${s.to}`),
      },
    ]),
  )
}

/** A plan that ran: exit 0, and nothing on stderr but notes (the kinds it skips, ...). */
const planned = (file: string) => ({file, code: 0, stderr: expect.not.stringMatching(/^(?!note: )./m)})

describe.skipIf(!HAS_KUBECTL)('plan on real manifests, against the rollout that follows', () => {
  let server: ApiServer
  let run: RunProcess
  let dir: string
  let env: NodeJS.ProcessEnv
  /** The scaling steps the server stores, by owning Deployment (namespace/name) being recorded. */
  const recording = new Map<string, Step[]>()

  beforeAll(async () => {
    server = await startApiServer({simulate: {podReadyAfterMs: 200, terminateAfterMs: 200}})
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
    // The controller runs as long as the test may (its 5 minutes on a busy machine).
    run = new RunProcess(['-A'], env, 330_000)
    await run.started()
    dir = mkdtempSync(join(tmpdir(), 'deployctl-plan-real-'))
  }, 60_000)

  afterAll(async () => {
    await run?.stop('SIGTERM')
    await server?.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  }, 30_000)

  /** Until every Deployment of `namespace` named has observed its spec and rolled it out whole. */
  async function settled(namespace: string, names: string[], what: string): Promise<void> {
    const pending = () =>
      names.filter((name) => {
        const d = server.store.get('deployments', namespace, name) as Any
        const want = d?.spec.replicas ?? 1
        return !(
          d?.status?.observedGeneration === d.metadata.generation &&
          d.status?.updatedReplicas === want &&
          d.status?.replicas === want &&
          d.status?.availableReplicas === want
        )
      })
    await eventually(() => pending().length === 0, what, 90_000).catch((e: Error) => {
      throw new Error(
        `${e.message}: ${pending()
          .map((n) => `${namespace}/${n}`)
          .join(', ')} not rolled out`,
      )
    })
  }

  /** The ReplicaSet of the Deployment's current revision, as the server stores it. */
  function currentReplicaSet(namespace: string, name: string): string | undefined {
    const d = server.store.get('deployments', namespace, name) as Any
    const revision = d.metadata.annotations?.['deployment.kubernetes.io/revision']
    const rs = (server.store.list('replicasets', namespace) as Any[]).find(
      (r) =>
        r.metadata.ownerReferences?.[0]?.uid === d.metadata.uid &&
        r.metadata.annotations?.['deployment.kubernetes.io/revision'] === revision,
    )
    return rs?.metadata.name
  }

  it('every Deployment rolls out the ReplicaSet and the steps plan predicts, live and offline (55 of 55)', async () => {
    const apps = realApps().map(ownNamespace)
    // kube-prometheus's setup step creates the namespace its manifests go into.
    const namespaces = ['monitoring', ...apps.flatMap((a) => (a.namespace ? [a.namespace] : []))]
    for (const ns of new Set(namespaces))
      server.store.put({apiVersion: 'v1', kind: 'Namespace', metadata: {name: ns}})

    // Four files at once: each waits on kubectl, the CLI and the simulated pods in turn.
    const slot = limiter(4)
    const results = await Promise.all(
      apps.map((app) =>
        slot(async () => {
          const deployments = objectsOf(app.text).filter((o) => o?.kind === 'Deployment')
          if (deployments.length === 0) return {file: app.file, deployments: 0, mismatches: []}
          const nsFlag = app.namespace ? ['-n', app.namespace] : []
          const namespaces = new Set(deployments.map((d) => d?.metadata?.namespace ?? app.namespace))
          expect({file: app.file, namespaces: namespaces.size}).toEqual({file: app.file, namespaces: 1})
          const namespace = [...namespaces][0] as string
          const names = deployments.map((d) => d?.metadata?.name as string)
          const base = join(dir, app.file.replace(/\.yaml$/, ''))
          writeFileSync(`${base}.v1.yaml`, app.text)
          writeFileSync(`${base}.v2.json`, bumped(app.text))

          const v1 = await kubectlAsync(env, 'apply', ...nsFlag, '-f', `${base}.v1.yaml`)
          expect({file: app.file, code: v1.code, stderr: v1.stderr}).toEqual({
            file: app.file,
            code: 0,
            stderr: '',
          })
          await settled(namespace, names, `${app.file}'s first rollouts`)

          // The snapshot first: the live plan only reads, so the two plans can run side by side.
          const snapshot = await kubectlAsync(
            env,
            'get',
            'deployments,replicasets,pods,horizontalpodautoscalers',
            '-n',
            namespace,
            '-o',
            'yaml',
          )
          expect({file: app.file, code: snapshot.code}).toEqual({file: app.file, code: 0})
          writeFileSync(`${base}.current.yaml`, snapshot.stdout)
          const [live, offline] = await Promise.all([
            cliAsync(['plan', ...nsFlag, '-f', `${base}.v2.json`, '-o', 'json'], {env}),
            cliAsync(
              ['plan', ...nsFlag, '-f', `${base}.v2.json`, '--current', `${base}.current.yaml`, '-o', 'json'],
              {env},
            ),
          ])
          expect({file: app.file, code: live.code, stderr: live.stderr}).toEqual(planned(app.file))
          expect({file: app.file, code: offline.code, stderr: offline.stderr}).toEqual(planned(app.file))

          const shown = new Map(names.map((name) => [name, [] as Step[]]))
          for (const [name, steps] of shown) recording.set(`${namespace}/${name}`, steps)
          const v2 = await kubectlAsync(env, 'apply', ...nsFlag, '-f', `${base}.v2.json`)
          expect({file: app.file, code: v2.code, stderr: v2.stderr}).toEqual({
            file: app.file,
            code: 0,
            stderr: '',
          })
          await settled(namespace, names, `${app.file}'s image bumps`)
          for (const name of names) recording.delete(`${namespace}/${name}`)

          const mismatches: string[] = []
          for (const [mode, plan] of [
            ['live', predicted(live.stdout)],
            ['offline', predicted(offline.stdout)],
          ] as const) {
            for (const name of names) {
              const actual = {replicaSet: currentReplicaSet(namespace, name), steps: shown.get(name) ?? []}
              const said = plan.get(name)
              for (const field of ['replicaSet', 'steps'] as const) {
                const [a, b] = [JSON.stringify(said?.[field]), JSON.stringify(actual[field])]
                if (a !== b) mismatches.push(`${mode} ${namespace}/${name} ${field}: plan ${a}, server ${b}`)
              }
            }
          }
          return {file: app.file, deployments: names.length, mismatches}
        }),
      ),
    )
    const total = results.reduce((n, r) => n + r.deployments, 0)
    expect(results.flatMap((r) => r.mismatches)).toEqual([])
    expect(total).toBe(55)
  }, 300_000)
})
