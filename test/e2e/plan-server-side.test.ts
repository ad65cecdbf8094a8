// Field ownership on the test API server, through the real kubectl, and `plan --apply=server`:
// fields `kubectl apply` (client-side) set are owned by the Update manager
// kubectl-client-side-apply; a server-side apply by another manager that changes one is a 409
// naming it, for kubectl and for plan (live and from a snapshot) alike, until --force-conflicts.

import {execFile, spawnSync} from 'node:child_process'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {PlanResult} from '../../src/plan/index.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cliAsync, tempFiles} from './helpers.js'

const HAS_KUBECTL = spawnSync('kubectl', ['version', '--client'], {stdio: 'ignore'}).status === 0

const V1 = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: demo
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        ports:
        - {containerPort: 53, protocol: UDP, name: dns}
        - {containerPort: 53, protocol: TCP, name: dns-tcp}
`
const V2 = V1.replace('nginx:1.27', 'nginx:1.28')
const CONFLICT =
  'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.template.spec.containers[name="app"].image'

let server: ApiServer
let dir: string
let env: NodeJS.ProcessEnv

function kubectl(args: string[]): Promise<{code: number; stdout: string; stderr: string}> {
  return new Promise((resolve) => {
    execFile('kubectl', args, {env: {...process.env, ...env}, timeout: 60_000}, (err, stdout, stderr) =>
      resolve({code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr}),
    )
  })
}

// biome-ignore lint/suspicious/noExplicitAny: test access to nested JSON
type Any = any
const managers = (o: Any) =>
  (o.metadata.managedFields ?? []).map(
    (m: Any) => `${m.manager} ${m.operation}${m.subresource ? ` ${m.subresource}` : ''}`,
  )
const owns = (o: Any, manager: string, ...path: string[]) => {
  const entry = (o.metadata.managedFields ?? []).find((m: Any) => m.manager === manager)
  let node = entry?.fieldsV1
  for (const p of path) node = node?.[p]
  return node !== undefined
}
const IMAGE = ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"app"}', 'f:image']

beforeAll(async () => {
  if (!HAS_KUBECTL) return
  server = await startApiServer({})
  server.store.put({apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'demo'}})
  env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
  dir = tempFiles({'v1.yaml': V1, 'v2.yaml': V2})
  expect((await kubectl(['apply', '-f', join(dir, 'v1.yaml')])).code).toBe(0)
}, 60_000)

afterAll(async () => {
  await server?.close()
  if (dir) rmSync(dir, {recursive: true, force: true})
})

describe.skipIf(!HAS_KUBECTL)('field ownership and plan --apply=server', () => {
  it('kubectl apply (client-side) leaves its fields, defaulted ones too, to the Update manager kubectl-client-side-apply', async () => {
    const got = JSON.parse(
      (await kubectl(['get', 'deployment/web', '-n', 'demo', '-o', 'json', '--show-managed-fields'])).stdout,
    )
    expect(managers(got)).toEqual(['kubectl-client-side-apply Update'])
    expect(owns(got, 'kubectl-client-side-apply', ...IMAGE)).toBe(true)
    expect(owns(got, 'kubectl-client-side-apply', 'f:spec', 'f:progressDeadlineSeconds')).toBe(true)
    // Ports are keyed by containerPort and protocol: both port 53 entries are there.
    const containers =
      got.metadata.managedFields[0].fieldsV1['f:spec']['f:template']['f:spec']['f:containers']
    expect(Object.keys(containers['k:{"name":"app"}']['f:ports'])).toEqual(
      expect.arrayContaining([
        'k:{"containerPort":53,"protocol":"TCP"}',
        'k:{"containerPort":53,"protocol":"UDP"}',
      ]),
    )
    // So a server-side apply of the same file changes nothing: no dns -> dns-tcp, no UDP -> TCP.
    // (No controller runs here, so the Deployment has no ReplicaSet: the plan is its first one.)
    const same = await cliAsync(['plan', '-f', join(dir, 'v1.yaml'), '--apply=server', '-o', 'json'], {env})
    expect(same.stderr).toBe('')
    const item = (JSON.parse(same.stdout) as PlanResult).items[0]!
    expect([item.templateChanges, item.otherChanges]).toEqual([[], []])
  })

  it('another manager changing the image conflicts, for kubectl and plan (live and offline), until forced', async () => {
    const ssa = await kubectl([
      'apply',
      '--server-side',
      '--field-manager=deployer',
      '-f',
      join(dir, 'v2.yaml'),
    ])
    expect(ssa.code).toBe(1)
    expect(ssa.stderr).toContain(CONFLICT)

    const args = [
      'plan',
      '-f',
      join(dir, 'v2.yaml'),
      '--apply=server',
      '--field-manager=deployer',
      '-o',
      'json',
    ]
    const live = await cliAsync([...args, '--exit-code'], {env})
    expect(live.code).toBe(2)
    expect(live.stderr).toContain(CONFLICT)

    const snapshot = await kubectl([
      'get',
      'deployments,replicasets,pods',
      '-n',
      'demo',
      '-o',
      'yaml',
      '--show-managed-fields',
    ])
    const snap = tempFiles({'current.yaml': snapshot.stdout})
    try {
      const offline = await cliAsync([...args, '--current', join(snap, 'current.yaml'), '--exit-code'], {env})
      expect(offline.code).toBe(2)
      expect(offline.stderr).toContain(CONFLICT)
      const forcedOffline = await cliAsync(
        [...args, '--current', join(snap, 'current.yaml'), '--force-conflicts'],
        {env},
      )
      expect(forcedOffline.stderr).toBe('')
      const item = (JSON.parse(forcedOffline.stdout) as PlanResult).items[0]!
      expect(item.templateChanges.map((c) => c.path)).toEqual([
        'spec.template.spec.containers[name=app].image',
      ])
    } finally {
      rmSync(snap, {recursive: true, force: true})
    }

    const forcedLive = await cliAsync([...args, '--force-conflicts'], {env})
    expect(forcedLive.stderr).toBe('')
    expect(
      (JSON.parse(forcedLive.stdout) as PlanResult).items[0]!.templateChanges.map((c) => c.path),
    ).toEqual(['spec.template.spec.containers[name=app].image'])

    // kubectl takes the field with --force-conflicts: the image is the deployer's now, no one else's.
    const forced = await kubectl([
      'apply',
      '--server-side',
      '--force-conflicts',
      '--field-manager=deployer',
      '-f',
      join(dir, 'v2.yaml'),
    ])
    expect(forced.stderr).toBe('')
    const got = JSON.parse(
      (await kubectl(['get', 'deployment/web', '-n', 'demo', '-o', 'json', '--show-managed-fields'])).stdout,
    )
    expect(got.spec.template.spec.containers[0].image).toBe('nginx:1.28')
    // After a successful server-side apply kubectl migrates the client-side manager's fields to its
    // own (upstream: migrateToSSAIfNecessary, a JSON patch of managedFields): one manager is left.
    expect(managers(got)).toEqual(['deployer Apply'])
    expect(owns(got, 'deployer', ...IMAGE)).toBe(true)
    expect(owns(got, 'kubectl-client-side-apply', ...IMAGE)).toBe(false)
  })
})
