// reconcile-once --exit-code through the BUILT command line, on files and against the test API
// server (issue 19, items 1 and 2): kubectl diff's convention for a command that writes. 0 the
// pass wrote nothing, 1 it wrote something, 2 an error, a refused write, incomplete input or a
// namespace typo; the same cases and messages as dry-run sync --exit-code.

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse, stringify} from 'yaml'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {deployment} from '../objects.js'
import {cli, cliAsync, deploymentYaml, limiter, ROOT, tempFiles} from './helpers.js'

const SLOW = {timeout: 300_000}
const NOW = ['--now', '2026-11-29T10:00:00Z']
const STEADY = 'examples/steady.yaml'
const STUCK = 'examples/stuck-image-pull.yaml'
const ROLLING = 'examples/rolling-update.yaml'

interface Obj {
  kind: string
  metadata: {name: string; namespace?: string}
  spec?: {strategy?: unknown}
}

function items(example: string): Obj[] {
  return (parse(readFileSync(join(ROOT, example), 'utf8')) as {items: Obj[]}).items
}

/** The stuck example's objects, changed by `edit`, as one YAML List in a temporary file. */
function stuckWith(edit: (objects: Obj[]) => Obj[]): string {
  const dir = tempFiles({
    'slice.yaml': stringify({apiVersion: 'v1', kind: 'List', items: edit(items(STUCK))}),
  })
  return join(dir, 'slice.yaml')
}

const INCOMPLETE = /^warning: The input is incomplete: deployment demo\/api is at revision 2/
const NOTHING =
  'No resources found in default namespace.\nThe files hold Deployments in namespace demo: use -n demo or -A.\n'

describe('reconcile-once --exit-code on files', () => {
  const once = (args: string[], exitCode = true) =>
    cli(['reconcile-once', ...args, ...NOW, ...(exitCode ? ['--exit-code'] : [])])

  it('a steady Deployment: 0, and the world is printed unchanged', () => {
    const r = once(['-f', STEADY, '-n', 'demo', '-o', 'name'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('deployment.apps/web\n')
    const names = once(['-f', STEADY, '-n', 'demo', '-o', 'jsonpath={.objects.items[*].metadata.name}'])
    expect(names.stdout).toBe('web web-cc544bdcc web-cc544bdcc-86sx9 web-cc544bdcc-9jhld web-cc544bdcc-ggh92')
  })

  it('a rollout to make: 1 (0 without --exit-code), the objects after the pass still printed', () => {
    const r = once(['-f', ROLLING, '-n', 'demo', '-o', 'yaml'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(1)
    expect(parse(r.stdout)).toMatchObject({kind: 'SyncResult', objects: {kind: 'List'}})
    expect(once(['-f', ROLLING, '-n', 'demo', '-o', 'name'], false).code).toBe(0)
  })

  it('passes fed back until nothing changes: the gate turns 0 where dry-run sync --exit-code does', () => {
    const file = join(tempFiles({'web.yaml': deploymentYaml('web')}), 'web.yaml')
    const objects = ['-o', 'jsonpath={.objects}']
    const first = once(['-f', file, ...objects])
    expect(first.code).toBe(1)
    const second = cli(['reconcile-once', '-f', '-', ...NOW, '--exit-code', ...objects], {
      input: first.stdout,
    })
    expect(second.stderr).toBe('')
    expect(second.code).toBe(0)
    expect(JSON.parse(second.stdout)).toMatchObject(JSON.parse(first.stdout))
    expect(cli(['dry-run', 'sync', '-f', '-', ...NOW, '--exit-code'], {input: first.stdout}).code).toBe(0)
  })

  it('a Deployment without its ReplicaSets: 2 with the warning (0 without --exit-code)', () => {
    const file = stuckWith((objects) => objects.filter((o) => o.kind === 'Deployment'))
    const r = once(['-f', file, '-n', 'demo', '-o', 'name'])
    expect(r.stderr).toMatch(INCOMPLETE)
    expect(r.stderr).toContain('Get a complete snapshot: kubectl get deploy,rs,pods,events -n demo -o yaml')
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('deployment.apps/api\n')
    const plain = once(['-f', file, '-n', 'demo', '-o', 'name'], false)
    expect(plain.stderr).toMatch(INCOMPLETE)
    expect(plain.code).toBe(0)
  })

  it('a Recreate Deployment whose ReplicaSets report pods the input lacks: 2 (MissingPods)', () => {
    const file = stuckWith((objects) =>
      objects
        .filter((o) => o.kind !== 'Pod')
        .map((o) => (o.kind === 'Deployment' ? {...o, spec: {...o.spec, strategy: {type: 'Recreate'}}} : o)),
    )
    const r = once(['-f', file, '-n', 'demo', '-o', 'name'])
    expect(r.stderr).toBe(
      'warning: The input is incomplete: the ReplicaSets of deployment demo/api report 5 pods but the input holds none of them, so what blocks the rollout cannot be read. Get a complete snapshot: kubectl get deploy,rs,pods,events -n demo -o yaml\n',
    )
    expect(r.code).toBe(2)
  })

  it('nothing selected while the files hold Deployments elsewhere: 2 with the hint (0 without)', () => {
    const r = once(['-f', STUCK, '-n', 'default', '-o', 'name'])
    expect(r.stderr).toBe(NOTHING)
    expect(r.code).toBe(2)
    const plain = once(['-f', STUCK, '-n', 'default', '-o', 'name'], false)
    expect(plain.stderr).toBe(NOTHING)
    expect(plain.code).toBe(0)
    // -A is no mistake.
    expect(once(['-f', STEADY, '-A', '-o', 'name']).code).toBe(0)
  })

  it('a named Deployment in another namespace: 2 with the hint (1 without), nothing printed', () => {
    const r = once(['api', '-f', STUCK, '-n', 'default'])
    expect(r.stderr).toBe(
      'error: deployments.apps "api" not found\nThe files hold deployment api in namespace demo: use -n demo.\n',
    )
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(once(['api', '-f', STUCK, '-n', 'default'], false).code).toBe(1)
    expect(once(['nope', '-f', STUCK, '-n', 'demo']).stderr).toBe(
      'error: deployments.apps "nope" not found\n',
    )
    expect(once(['nope', '-f', STUCK, '-n', 'demo']).code).toBe(2)
  })

  it('a sync that fails: 2 (1 without), as dry-run sync', () => {
    const bad = deploymentYaml('odd').replace('type: RollingUpdate', 'type: BlueGreen')
    const file = join(tempFiles({'odd.yaml': bad}), 'odd.yaml')
    const args = ['-f', file, '--validate', 'ignore', '-o', 'name']
    const r = once(args)
    expect(r.stderr).toBe(
      'error: sync of deployment default/odd failed: unexpected deployment strategy type: BlueGreen\n',
    )
    expect(r.code).toBe(2)
    expect(once(args, false).code).toBe(1)
    expect(cli(['dry-run', 'sync', ...args, ...NOW, '--exit-code']).code).toBe(2)
  })

  it('-h shows the flag; completion offers it', () => {
    const help = cli(['reconcile-once', '-h'])
    // Wrapped to the terminal's width: compared with the lines joined.
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      '--exit-code Exit 0 when the pass wrote nothing, 1 when it wrote something, 2 or more on error',
    )
    const completed = cli(['__complete', 'reconcile-once', '--exit'])
    expect(completed.stdout.split('\n').map((l) => l.split('\t')[0])).toContain('--exit-code')
  })
})

describe('reconcile-once --exit-code on a cluster', SLOW, () => {
  const slot = limiter(2)
  let steady: ApiServer
  let server: ApiServer
  const run = (s: ApiServer, args: string[]) =>
    slot(() => cliAsync(['reconcile-once', ...args], {env: {KUBECONFIG: s.kubeconfigPath}}))

  beforeAll(async () => {
    steady = await startApiServer({objects: items(STEADY)})
    server = await startApiServer({
      objects: ['rollout', 'dry', 'failed', 'failed-plain'].map((namespace) => deployment({namespace})),
    })
  })
  afterAll(async () => {
    await steady?.close()
    await server?.close()
  })

  it('a steady Deployment: 0, nothing written', async () => {
    const r = await run(steady, ['-n', 'demo', '--exit-code'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(steady.requests.filter((q) => q.method !== 'GET')).toEqual([])
  })

  it('-n typo: 2 with "use -n demo or -A" (0 without); a name in another namespace: 2', async () => {
    const hint =
      'No resources found in demp namespace.\nThe cluster has Deployments in namespace demo: use -n demo or -A.\n'
    const r = await run(steady, ['-n', 'demp', '--exit-code'])
    expect(r.stderr).toBe(hint)
    expect(r.code).toBe(2)
    const plain = await run(steady, ['-n', 'demp'])
    expect(plain.stderr).toBe(hint)
    expect(plain.code).toBe(0)
    const named = await run(steady, ['web', '--exit-code'])
    expect(named.stderr).toBe(
      'Error from server (NotFound): deployments.apps "web" not found\nThe cluster has deployment web in namespace demo: use -n demo.\n',
    )
    expect(named.code).toBe(2)
  })

  it('a rollout to make: 1, and the next pass on what it wrote: 0', async () => {
    const r = await run(server, ['-n', 'rollout', '--no-record-events', '--exit-code', '-o', 'name'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(1)
    expect(server.store.list('replicasets', 'rollout')).toHaveLength(1)
    const again = await run(server, ['-n', 'rollout', '--no-record-events', '--exit-code', '-o', 'wide'])
    expect(again.stderr).toBe('')
    expect(again.code).toBe(0)
  })

  it('--dry-run=server: 1 for the writes the server accepted without storing them', async () => {
    const r = await run(server, ['-n', 'dry', '--dry-run=server', '--no-record-events', '--exit-code'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(1)
    expect(server.store.list('replicasets', 'dry')).toEqual([])
  })

  it('a failed write: 2 with --exit-code, 1 without, said on stderr both times', async () => {
    const line = (ns: string) =>
      `error: sync of deployment ${ns}/web failed: Internal error occurred: injected fault; already written: update deployments/status web\n`
    for (const [ns, flags, code] of [
      ['failed', ['--exit-code'], 2],
      ['failed-plain', [], 1],
    ] as const) {
      server.faults.fail({namespace: ns, verb: 'create', resource: 'replicasets'}, 500)
      const r = await run(server, ['-n', ns, '--no-record-events', '-o', 'name', ...flags])
      expect(r.stderr).toBe(line(ns))
      expect(r.code).toBe(code)
    }
  })
})
