// Real applications' manifests on the test API server, through the real kubectl: every kind they
// ship is stored and served (inert-kinds.ts), a CRD makes its kind served (kinds.ts), and simulated
// pods have logs (pod-logs.ts).

import {execFile, spawnSync} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {limiter} from '../e2e/helpers.js'
import {type ApiServer, startApiServer} from './index.js'
import {REAL_MANIFESTS, renderCoreDns} from './real-manifests.js'

const HAS_KUBECTL = spawnSync('kubectl', ['version', '--client'], {stdio: 'ignore'}).status === 0

interface Run {
  code: number
  stdout: string
  stderr: string
}

function kubectl(server: ApiServer, args: string[], input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      'kubectl',
      args,
      {
        env: {...process.env, KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir},
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        resolve({code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr})
      },
    )
    child.stdin?.end(input ?? '')
  })
}

const servers: ApiServer[] = []
const dirs: string[] = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
  for (const d of dirs) rmSync(d, {recursive: true, force: true})
})

async function fresh(simulate = false): Promise<ApiServer> {
  const s = await startApiServer(simulate ? {simulate: {podReadyAfterMs: 200, terminateAfterMs: 200}} : {})
  servers.push(s)
  return s
}

describe.skipIf(!HAS_KUBECTL)('kubectl apply of real applications', () => {
  const files = readdirSync(REAL_MANIFESTS).filter((f) => f.endsWith('.yaml'))
  const slot = limiter(2)

  it.each(files.filter((f) => f !== 'metrics-server-base-deployment.yaml'))(
    '%s applies, and applies again without a change',
    (file) =>
      slot(async () => {
        const s = await fresh()
        let text = readFileSync(join(REAL_MANIFESTS, file), 'utf8')
        if (file === 'coredns.yaml.sed.yaml') text = renderCoreDns(text)
        // kube-prometheus's setup step creates the namespace its manifests go into.
        if (file.startsWith('kube-prometheus-'))
          s.store.put({apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'monitoring'}})
        const first = await kubectl(s, ['apply', '-f', '-'], text)
        expect(first.stderr).toBe('')
        expect(first.code).toBe(0)
        const objects = first.stdout.trim().split('\n')
        expect(objects.every((l) => l.endsWith(' created'))).toBe(true)
        // kubectl sends a patch for some objects whatever the server holds (`data: null`, a
        // $retainKeys directive) and then says "configured": what matters is that nothing changes.
        const writes = s.writes.length
        const again = await kubectl(s, ['apply', '-f', '-'], text)
        expect(again.code).toBe(0)
        expect(
          again.stdout
            .trim()
            .split('\n')
            .map((l) => l.replace(/ (unchanged|configured)$/, '')),
        ).toEqual(objects.map((l) => l.replace(/ created$/, '')))
        expect(s.writes.slice(writes)).toEqual([])
      }),
    120_000,
  )

  it('refuses what a real API server refuses: the kustomize base without a selector, the unrendered coredns template', async () => {
    const s = await fresh()
    const base = await kubectl(s, [
      'apply',
      '-f',
      join(REAL_MANIFESTS, 'metrics-server-base-deployment.yaml'),
    ])
    expect(base.code).toBe(1)
    // ValidateDeploymentSpec: no selector is Required, and the template's labels then match nothing.
    expect(base.stderr).toContain('The Deployment "metrics-server" is invalid:')
    expect(base.stderr).toContain('spec.selector: Required value')
    const sed = await kubectl(s, ['apply', '-f', join(REAL_MANIFESTS, 'coredns.yaml.sed.yaml')])
    expect(sed.code).toBe(1)
    expect(sed.stderr).toContain(
      'The Service "kube-dns" is invalid: spec.clusterIPs[0]: Invalid value: "CLUSTER_DNS_IP": must be a valid IP address',
    )
  })
})

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`
const WIDGET = `apiVersion: example.com/v1
kind: Widget
metadata: {name: blue}
size: 3
spec: {color: blue}
`

describe.skipIf(!HAS_KUBECTL)('custom resources', () => {
  it('serves a CRD kind once it is created (discovery, apply, get) and forgets it with its objects when deleted', async () => {
    // With simulate, as kubectl's client-side validation of an unknown kind reads /openapi/v2.
    const s = await fresh(true)
    const before = await kubectl(s, ['apply', '-f', '-'], WIDGET)
    expect(before.code).toBe(1)
    expect(before.stderr).toContain('no matches for kind "Widget" in version "example.com/v1"')
    expect((await kubectl(s, ['apply', '-f', '-'], CRD)).stdout).toBe(
      'customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n',
    )
    const crd = JSON.parse((await kubectl(s, ['get', 'crd', 'widgets.example.com', '-o', 'json'])).stdout)
    expect(crd.status.conditions.map((c: {type: string; status: string}) => `${c.type}=${c.status}`)).toEqual(
      ['NamesAccepted=True', 'Established=True'],
    )
    expect((await kubectl(s, ['apply', '-f', '-'], WIDGET)).stdout).toBe('widget.example.com/blue created\n')
    const got = JSON.parse((await kubectl(s, ['get', 'wd', 'blue', '-o', 'json'])).stdout)
    expect(got.size).toBe(3)
    expect(got.spec).toEqual({color: 'blue'})
    const resources = (await kubectl(s, ['api-resources', '--api-group', 'example.com', '-o', 'name'])).stdout
    expect(resources).toBe('widgets.example.com\n')
    expect((await kubectl(s, ['delete', 'crd', 'widgets.example.com'])).code).toBe(0)
    expect(s.writes.filter((w) => w.type === 'DELETED').map((w) => `${w.resource}/${w.name}`)).toEqual([
      'widgets/blue',
      'customresourcedefinitions/widgets.example.com',
    ])
    expect(s.store.kinds.byResource('example.com', 'v1', 'widgets')).toBeUndefined()
    const res = await fetch(`${s.url}/apis/example.com/v1`, {headers: {authorization: `Bearer ${s.token}`}})
    expect(res.status).toBe(404)
  })

  it('keeps the CRDs of one server from another in the same process', async () => {
    const a = await fresh()
    const b = await fresh()
    expect((await kubectl(a, ['apply', '-f', '-'], CRD)).code).toBe(0)
    expect(a.store.kinds.byResource('example.com', 'v1', 'widgets')).toBeDefined()
    expect(b.store.kinds.byResource('example.com', 'v1', 'widgets')).toBeUndefined()
  })
})

function deploymentWith(name: string, container: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - ${container}
`
}

/** A pod of the ReplicaSet the test creates directly (no Deployment controller runs here). */
async function podOf(s: ApiServer, app: string, until: (pod: string) => boolean): Promise<string> {
  for (;;) {
    const r = await kubectl(s, ['get', 'pods', '-l', `app=${app}`, '-o', 'json'])
    const items = (JSON.parse(r.stdout) as {items: unknown[]}).items
    const text = JSON.stringify(items[0] ?? '')
    if (items.length > 0 && until(text)) return (items[0] as {metadata: {name: string}}).metadata.name
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe.skipIf(!HAS_KUBECTL)('kubectl logs of simulated pods', () => {
  it('prints what a crash-looping container echoes, now and with --previous; refuses a container that never started', async () => {
    const s = await fresh(true)
    const dir = mkdtempSync(join(tmpdir(), 'deployctl-logs-'))
    dirs.push(dir)
    const crasher = deploymentWith(
      'crasher',
      `{name: app, image: busybox:1.36, command: [sh, -c, "echo starting; echo 'config /etc/app.conf missing'; exit 3"]}`,
    )
    const bad = deploymentWith('bad', '{name: app, image: registry.example.invalid/app:1}')
    const steady = deploymentWith(
      'steady',
      '{name: app, image: busybox:1.36, command: [sh, -c, "echo ready; sleep 3600"]}',
    )
    // As ReplicaSets: the test server has no Deployment controller, its ReplicaSet controller makes the pods.
    const asReplicaSet = (d: string) => d.replace('kind: Deployment', 'kind: ReplicaSet')
    writeFileSync(join(dir, 'rs.yaml'), [crasher, bad, steady].map(asReplicaSet).join('---\n'))
    expect((await kubectl(s, ['apply', '-f', join(dir, 'rs.yaml')])).code).toBe(0)

    const steadyPod = await podOf(s, 'steady', (p) => p.includes('"running"'))
    expect((await kubectl(s, ['logs', steadyPod])).stdout).toBe('ready\n')
    expect((await kubectl(s, ['logs', steadyPod, '--previous'])).stderr).toBe(
      `Error from server (BadRequest): previous terminated container "app" in pod "${steadyPod}" not found\n`,
    )

    const looping = await podOf(s, 'crasher', (p) => p.includes('CrashLoopBackOff'))
    const pod = JSON.parse((await kubectl(s, ['get', 'pod', looping, '-o', 'json'])).stdout)
    expect(pod.status.containerStatuses[0].lastState.terminated).toMatchObject({exitCode: 3, reason: 'Error'})
    expect((await kubectl(s, ['logs', looping, '--previous'])).stdout).toBe(
      'starting\nconfig /etc/app.conf missing\n',
    )
    expect((await kubectl(s, ['logs', looping, '--tail', '1'])).stdout).toBe('config /etc/app.conf missing\n')

    const pulling = await podOf(s, 'bad', (p) => p.includes('ImagePullBackOff'))
    expect((await kubectl(s, ['logs', pulling])).stderr).toBe(
      `Error from server (BadRequest): container "app" in pod "${pulling}" is waiting to start: trying and failing to pull image\n`,
    )
  })
})
