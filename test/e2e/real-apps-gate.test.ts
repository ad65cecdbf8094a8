// Issue 26, item 8: real applications through the gate. `kubectl apply -f` of every real
// application's manifests (test/fixtures/real-manifests, apart from the kustomize base an API
// server refuses) onto the test API server, which simulates the cluster, with `run` beside it as the
// Deployment controller; then the gate waits for every Deployment those files define (sock-shop's
// pods select beta.kubernetes.io/os, which the simulated nodes carry; vLLM's requests a GPU, which
// the simulated GPU node has) and exits 0. An application
// whose files name no namespace goes into one of its own (`kubectl apply -n APP`), as one installs
// it: guestbook and microservices-demo both define a Deployment "frontend", with other selectors.

import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {deploymentsOf, realApps} from '../apiserver/real-manifests.js'
import {cliAsync, kubectlAsync, RunProcess} from './helpers.js'

const HAS_KUBECTL = spawnSync('kubectl', ['version', '--client'], {stdio: 'ignore'}).status === 0

describe.skipIf(!HAS_KUBECTL)('the gate over real applications', () => {
  let server: ApiServer
  let run: RunProcess
  let dir: string
  let env: NodeJS.ProcessEnv
  const expected = new Set<string>()
  const files: Array<{file: string; namespace: string | undefined}> = []

  beforeAll(async () => {
    // A GPU node beside the three general ones: vLLM's pod requests an nvidia.com/gpu, and on a
    // cluster without one it stays Pending (Insufficient nvidia.com/gpu), as a real scheduler leaves it.
    server = await startApiServer({
      simulate: {podReadyAfterMs: 300, terminateAfterMs: 300, gpuNodes: ['gpu-1']},
    })
    env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
    run = new RunProcess(['-A'], env)
    await run.started()
    dir = mkdtempSync(join(tmpdir(), 'deployctl-real-apps-'))
    for (const {file, text, objects, namespace} of realApps()) {
      writeFileSync(join(dir, file), text)
      files.push({file, namespace})
      for (const key of deploymentsOf(objects, namespace)) expected.add(key)
    }
    // kube-prometheus's setup step creates the namespace its manifests go into.
    const namespaces = ['monitoring', ...files.flatMap((f) => (f.namespace ? [f.namespace] : []))]
    for (const ns of new Set(namespaces))
      expect((await kubectlAsync(env, 'create', 'namespace', ns)).code).toBe(0)
  }, 60_000)

  afterAll(async () => {
    await run?.stop('SIGTERM')
    await server?.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  }, 30_000)

  it('kubectl apply -f of every file succeeds, and the gate waits for all their Deployments and exits 0', async () => {
    for (const {file, namespace} of files) {
      const applied = await kubectlAsync(
        env,
        'apply',
        ...(namespace ? ['-n', namespace] : []),
        '-f',
        join(dir, file),
      )
      expect({file, stderr: applied.stderr, code: applied.code}).toEqual({file, stderr: '', code: 0})
    }
    expect(expected.size).toBeGreaterThan(40)
    expect(expected).toContain('sock-shop/carts')

    const gate = await cliAsync(['rollout', 'watch', '-A', '--timeout', '5m', '-o', 'json'], {
      env,
      killAfterMs: 360_000,
    })
    const lines = gate.stdout.trimEnd().split('\n')
    const result = JSON.parse(lines.at(-1) ?? '{}') as {
      kind: string
      result: string
      message: string
      counts: {total: number; done: number}
      items: Array<{
        deployment: {namespace: string; name: string}
        phase: string
        tools?: {
          agree: boolean
          kubectl: {status: string}
          kstatus: {status: string}
          argocd: {status: string}
        }
      }>
    }
    expect({code: gate.code, message: result.message}).toEqual({
      code: 0,
      message: `${expected.size} of ${expected.size} Deployments rolled out.`,
    })
    expect(result.kind).toBe('RolloutGateResult')
    expect(new Set(result.items.map((i) => `${i.deployment.namespace}/${i.deployment.name}`))).toEqual(
      expected,
    )
    expect(result.items.every((i) => i.phase === 'Done')).toBe(true)
    // Done by kubectl's rule, and kstatus and Argo CD say so too.
    for (const i of result.items) {
      expect([i.tools?.kubectl.status, i.tools?.kstatus.status, i.tools?.argocd.status]).toEqual([
        'Done',
        'Current',
        'Healthy',
      ])
    }
  }, 420_000)

  it('-f FILE: the gate waits for the Deployments sock-shop defines, in the namespace it names', async () => {
    const gate = await cliAsync(
      ['rollout', 'watch', '-f', join(dir, 'sock-shop-complete-demo.yaml'), '--timeout', '5m'],
      {env, killAfterMs: 360_000},
    )
    const sockShop = [...expected].filter((k) => k.startsWith('sock-shop/'))
    expect(gate.code).toBe(0)
    expect(gate.stderr).toContain(
      `the files hold ${sockShop.length} Deployment manifests (no status): waiting for them on the cluster in namespace sock-shop`,
    )
    expect(gate.stdout).toContain(
      `rollout gate passed: ${sockShop.length} of ${sockShop.length} Deployments rolled out.`,
    )
  }, 420_000)
})
