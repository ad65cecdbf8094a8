// plan against what then happens, on real applications' manifests (issue 27's four faults came from
// these): each applied with the real kubectl to the test API server's moving cluster (the ported
// controller running), an image bump planned live and from `kubectl get -o yaml`, then applied: the
// ReplicaSet each plan names is the one the rollout makes. external-dns (untagged -> tagged: a
// defaulted imagePullPolicy stays), coredns (two ports 53), sock-shop (beta os node selector).
// The full 20 files (55 Deployments) ran the same way by hand: 55 of 55 live and offline.

import {execFile, spawnSync} from 'node:child_process'
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {parseAllDocuments} from 'yaml'
import {ApiClient} from '../../src/cluster/live/api.js'
import {connect} from '../../src/cluster/live/kubeconfig.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import type {PlanResult} from '../../src/plan/index.js'
import {ControllerLoop} from '../../src/run/controller.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {REAL_MANIFESTS, renderCoreDns} from '../apiserver/real-manifests.js'
import {cliAsync, tempFiles} from './helpers.js'

const HAS_KUBECTL = spawnSync('kubectl', ['version', '--client'], {stdio: 'ignore'}).status === 0
// biome-ignore lint/suspicious/noExplicitAny: test access to nested JSON
type Any = any

let cleanup: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanup.reverse()) await c()
  cleanup = []
})

function kubectl(
  env: NodeJS.ProcessEnv,
  args: string[],
): Promise<{code: number; stdout: string; stderr: string}> {
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      args,
      {env: {...process.env, ...env}, timeout: 60_000, maxBuffer: 1 << 26},
      (err, stdout, stderr) =>
        resolve({code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr}),
    )
  })
}

async function settled(server: ApiServer): Promise<void> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const ds = server.store.list('deployments', undefined) as Any[]
    if (
      ds.length > 0 &&
      ds.every(
        (d) =>
          d.status?.observedGeneration === d.metadata.generation &&
          (d.status?.updatedReplicas ?? 0) === (d.spec.replicas ?? 1) &&
          (d.status?.replicas ?? 0) === (d.spec.replicas ?? 1),
      )
    )
      return
    if (Date.now() > deadline) throw new Error('timed out waiting for the rollouts')
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Each Deployment's container images with a new tag (an untagged one gets one). */
function bumped(docs: Any[]): string {
  const items = docs.map((d) => {
    if (d.kind !== 'Deployment') return d
    for (const c of d.spec.template.spec.containers) {
      c.image = /:[^/]+$/.test(c.image.split('@')[0]) ? `${c.image}-bump` : `${c.image}:v1`
    }
    return d
  })
  return JSON.stringify({apiVersion: 'v1', kind: 'List', items})
}

const predicted = (stdout: string) =>
  new Map(
    (JSON.parse(stdout) as PlanResult).items.map((i) => [
      `${i.deployment.namespace}/${i.deployment.name}`,
      i.steps.find((s) => s.role === 'new')?.replicaSet ?? i.replicaSet?.name,
    ]),
  )

describe.skipIf(!HAS_KUBECTL)('plan on real manifests, against the rollout that follows', () => {
  it.each(['external-dns-deployment.yaml', 'coredns.yaml.sed.yaml', 'sock-shop-complete-demo.yaml'])(
    '%s: every Deployment rolls out the ReplicaSet plan names, live and offline',
    async (file) => {
      let text = readFileSync(join(REAL_MANIFESTS, file), 'utf8')
      if (file === 'coredns.yaml.sed.yaml') text = renderCoreDns(text)
      const docs = parseAllDocuments(text)
        .map((d) => d.toJS())
        .filter(Boolean)
      const server = await startApiServer({simulate: {podReadyAfterMs: 300, terminateAfterMs: 300}})
      cleanup.push(() => server.close())
      const env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
      const conn = await connect({kubeconfig: server.kubeconfigPath})
      const loop = new ControllerLoop({
        api: new ApiClient(conn),
        conn,
        namespace: undefined,
        workers: 2,
        serverDryRun: false,
        gates: parseFeatureGates(undefined),
        verbosity: 0,
        onceSynced: false,
        log: () => {},
        resyncMs: 0,
      })
      const running = loop.run()
      cleanup.push(async () => {
        loop.stop()
        await running
      })
      const dir = tempFiles({'v1.yaml': text, 'v2.json': bumped(docs)})
      cleanup.push(() => rmSync(dir, {recursive: true, force: true}))
      expect((await kubectl(env, ['apply', '-f', join(dir, 'v1.yaml')])).code).toBe(0)
      await settled(server)

      const live = await cliAsync(['plan', '-f', join(dir, 'v2.json'), '-o', 'json'], {env})
      expect([live.code, live.stderr]).toEqual([0, expect.not.stringContaining('error')])
      const snapshot = await kubectl(env, ['get', 'deployments,replicasets,pods', '-A', '-o', 'yaml'])
      writeFileSync(join(dir, 'current.yaml'), snapshot.stdout)
      const offline = await cliAsync(
        ['plan', '-f', join(dir, 'v2.json'), '--current', join(dir, 'current.yaml'), '-o', 'json'],
        {env},
      )
      expect([offline.code, offline.stderr]).toEqual([0, expect.not.stringContaining('error')])

      expect((await kubectl(env, ['apply', '-f', join(dir, 'v2.json')])).code).toBe(0)
      await settled(server)
      const actual = new Map(
        (server.store.list('deployments', undefined) as Any[]).map((d) => {
          const revision = d.metadata.annotations?.['deployment.kubernetes.io/revision']
          const rs = (server.store.list('replicasets', d.metadata.namespace) as Any[]).find(
            (r) =>
              r.metadata.ownerReferences?.[0]?.uid === d.metadata.uid &&
              r.metadata.annotations?.['deployment.kubernetes.io/revision'] === revision,
          )
          return [`${d.metadata.namespace}/${d.metadata.name}`, rs?.metadata.name]
        }),
      )
      expect(actual.size).toBe(docs.filter((d: Any) => d.kind === 'Deployment').length)
      expect(predicted(live.stdout)).toEqual(actual)
      expect(predicted(offline.stdout)).toEqual(actual)
    },
    180_000,
  )
})
