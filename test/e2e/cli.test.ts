import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import type {SyncResult} from '../../src/pass/result.js'
import {cli, deploymentYaml, ROOT, tempFiles} from './helpers.js'

const NOW = '2026-11-29T10:05:00Z'

function expectOneLineError(stderr: string, pattern: RegExp): void {
  const lines = stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^error: /)
  expect(lines[0]).toMatch(pattern)
  expect(stderr).not.toMatch(/^\s+at /m)
}

const writes = (r: SyncResult['items'][number]) =>
  r.actions.map((a) => `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''}`)

describe('help', () => {
  it('lists the commands', () => {
    const r = cli(['--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('dry-run')
    expect(r.stdout).toContain('reconcile-once')
  })

  it('documents dry-run sync with flags and examples', () => {
    const r = cli(['dry-run', 'sync', '--help'])
    expect(r.code).toBe(0)
    for (const text of [
      '--exit-code',
      '--feature-gates',
      '-A, --all-namespaces',
      'EXAMPLES',
      'kubectl deployctl dry-run sync',
    ]) {
      expect(r.stdout).toContain(text)
    }
  })

  it('documents reconcile-once', () => {
    const r = cli(['reconcile-once', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/kind:\s+List/)
  })
})

describe('usage and input errors', () => {
  const dir = tempFiles({'web.yaml': deploymentYaml('web')})
  const file = join(dir, 'web.yaml')

  it('rejects a malformed --now with exit 2', () => {
    const r = cli(['dry-run', 'sync', '-f', file, '--now', 'tomorrow'])
    expect(r.code).toBe(2)
    expectOneLineError(r.stderr, /invalid --now "tomorrow"/)
    expect(r.stdout).toBe('')
    expect(cli(['dry-run', 'sync', '-f', file, '--now', '2026-02-30T10:00:00Z']).code).toBe(2)
  })

  it('rejects unknown flags, formats and feature gates with exit 2', () => {
    expect(cli(['dry-run', 'sync', '-f', file, '--bogus']).code).toBe(2)
    expect(cli(['dry-run', 'sync', '-f', file, '-o', 'xml']).code).toBe(2)
    const gates = cli(['dry-run', 'sync', '-f', file, '--feature-gates', 'Nope=true'])
    expect(gates.code).toBe(2)
    expectOneLineError(gates.stderr, /unrecognized feature gate: Nope/)
    expect(cli(['dry-run', 'sync', '-f', file, '-l', 'app in']).code).toBe(2)
    expect(cli(['dry-run', 'sync', 'web', '-f', file, '-A']).code).toBe(2)
  })

  it('reports a missing file in one line with exit 1 and no stack trace', () => {
    const r = cli(['dry-run', 'sync', '-f', join(dir, 'missing.yaml')])
    expect(r.code).toBe(1)
    expectOneLineError(r.stderr, /missing\.yaml/)
  })

  it('reads the cluster when no file is given, and says when there is no kubeconfig', () => {
    const r = cli(['dry-run', 'sync'], {env: {KUBECONFIG: '', HOME: '/nonexistent'}})
    expect(r.code).toBe(1)
    expectOneLineError(r.stderr, /no kubeconfig found .*or read objects from files with -f FILE/)
  })

  it('names a kubeconfig context that does not exist', () => {
    const dir = tempFiles({config: 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n'})
    const r = cli(['dry-run', 'sync', '--context', 'prod'], {env: {KUBECONFIG: join(dir, 'config')}})
    expect(r.code).toBe(1)
    expectOneLineError(r.stderr, /context "prod" does not exist/)
  })

  it('fails like kubectl for a named Deployment that does not exist', () => {
    const r = cli(['dry-run', 'sync', 'deployment/nope', '-f', file, '--now', NOW])
    expect(r.code).toBe(1)
    expectOneLineError(r.stderr, /deployments\.apps "nope" not found/)
  })

  it('prints kubectl\'s "No resources found" and exits 0 when nothing is selected', () => {
    const r = cli(['dry-run', 'sync', '-f', file, '-n', 'elsewhere', '--now', NOW])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr.split('\n')[0]).toBe('No resources found in elsewhere namespace.')
    const json = cli(['dry-run', 'sync', '-f', file, '-n', 'elsewhere', '--now', NOW, '-o', 'json'])
    expect(JSON.parse(json.stdout)).toMatchObject({kind: 'SyncResult', items: []})
  })

  it('maps input errors to exit 2 under --exit-code', () => {
    expect(cli(['dry-run', 'sync', '-f', join(dir, 'missing.yaml'), '--exit-code']).code).toBe(2)
  })
})

describe('dry-run sync', () => {
  const dir = tempFiles({
    'web.yaml': deploymentYaml('web'),
    'two.yaml': `${deploymentYaml('web')}---\n${deploymentYaml('api', 'shop')}`,
    'bad-strategy.yaml': deploymentYaml('odd').replace('type: RollingUpdate', 'type: BlueGreen'),
  })
  const file = join(dir, 'web.yaml')

  it("-o json is a SyncResult with upstream's writes for a new Deployment", () => {
    const r = cli(['dry-run', 'sync', '-f', file, '--now', NOW, '-o', 'json'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout) as SyncResult
    expect(doc).toMatchObject({kind: 'SyncResult', now: NOW})
    expect(doc.items).toHaveLength(1)
    const [web] = doc.items
    expect(web?.deployment).toEqual({namespace: 'default', name: 'web'})
    expect(web?.path[0]).toBe('syncDeployment')
    expect(writes(web!)).toEqual([
      'create replicasets',
      'update deployments/status',
      'update deployments/status',
    ])
    expect(web?.events[0]).toMatchObject({type: 'Normal', reason: 'ScalingReplicaSet'})
    expect(web?.error).toBeNull()
  })

  it('-o yaml carries the same document as -o json', () => {
    const json = cli(['dry-run', 'sync', '-f', file, '--now', NOW, '-o', 'json'])
    const yaml = cli(['dry-run', 'sync', '-f', file, '--now', NOW, '-o', 'yaml'])
    expect(yaml.code).toBe(0)
    expect(parse(yaml.stdout, {version: '1.1'})).toEqual(JSON.parse(json.stdout))
  })

  it('prints the path, the action table, the events and the requeue', () => {
    const r = cli(['dry-run', 'sync', '-f', file, '--now', NOW])
    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines[0]).toBe('deployment default/web')
    expect(lines[1]).toMatch(/^path: syncDeployment → /)
    expect(lines[2]).toMatch(/^VERB +RESOURCE +NAME +CHANGE$/)
    expect(lines[3]).toMatch(/^create +replicasets +web-\w+ +created \(replicas 2, revision 1\)$/)
    expect(lines[4]).toMatch(
      /^update +deployments\/status +web +annotations deployment\.kubernetes\.io\/revision <none> -> 1/,
    )
    expect(r.stdout).toMatch(
      /^ {2}Normal {2}ScalingReplicaSet {2}Scaled up replica set web-\w+ from 0 to 2$/m,
    )
    expect(r.stdout).toMatch(/^requeue: /m)
    expect(r.stdout).not.toContain('\u001b[')
  })

  it('-o wide lists every changed field', () => {
    const r = cli(['dry-run', 'sync', 'web', '-f', file, '--now', NOW, '-o', 'wide'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^VERB +RESOURCE +NAME +REPLICAS +REVISION +IMAGES +CHANGE$/m)
    expect(r.stdout).toMatch(/^update +deployments\/status +web +/m)
    expect(r.stdout).toMatch(/^ +status\.observedGeneration: <none> -> 1$/m)
  })

  it('selects by namespace, all namespaces, labels and name', () => {
    const two = join(dir, 'two.yaml')
    const names = (args: string[]) =>
      (
        JSON.parse(
          cli(['dry-run', 'sync', '-f', two, '--now', NOW, '-o', 'json', ...args]).stdout,
        ) as SyncResult
      ).items.map((r) => `${r.deployment.namespace}/${r.deployment.name}`)
    // No -n: every namespace of the file, as kubectl get -f reads it.
    expect(names([])).toEqual(['default/web', 'shop/api'])
    expect(names(['api'])).toEqual(['shop/api'])
    expect(names(['-n', 'default'])).toEqual(['default/web'])
    expect(names(['-A'])).toEqual(['default/web', 'shop/api'])
    expect(names(['-A', '-l', 'app=api'])).toEqual(['shop/api'])
    expect(names(['-n', 'shop', 'deploy/api'])).toEqual(['shop/api'])
  })

  it('--exit-code: 1 when something would change, 0 when a pass changes nothing more', () => {
    expect(cli(['dry-run', 'sync', '-f', file, '--now', NOW, '--exit-code']).code).toBe(1)
    // reconcile-once's document holds the objects after the pass: -o jsonpath={.objects} feeds them on.
    const objects = ['-o', 'jsonpath={.objects}']
    const once = cli(['reconcile-once', '-f', file, '--now', NOW, ...objects])
    const again = cli(['reconcile-once', '-f', '-', '--now', NOW, ...objects], {input: once.stdout})
    expect(again.code).toBe(0)
    const settled = cli(['dry-run', 'sync', '-f', '-', '--now', NOW, '--exit-code'], {input: again.stdout})
    expect(settled.stderr).toBe('')
    expect(settled.code).toBe(0)
  })

  it('prints the result of a failed sync and exits 1 (2 under --exit-code)', () => {
    const bad = join(dir, 'bad-strategy.yaml')
    const r = cli(['dry-run', 'sync', '-f', bad, '--now', NOW, '--validate', 'ignore'])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('deployment default/odd')
    expect(r.stdout).toContain('error: unexpected deployment strategy type: BlueGreen')
    expect(r.stdout).toContain('requeue: rate limited')
    const json = cli(['dry-run', 'sync', '-f', bad, '--now', NOW, '--validate', 'ignore', '-o', 'json'])
    expect(JSON.parse(json.stdout).items[0]).toMatchObject({
      error: 'unexpected deployment strategy type: BlueGreen',
      requeue: {kind: 'rateLimited'},
    })
    expect(
      cli(['dry-run', 'sync', '-f', bad, '--now', NOW, '--validate', 'ignore', '--exit-code']).code,
    ).toBe(2)
  })
})

describe('reconcile-once', () => {
  const dir = tempFiles({'web.yaml': deploymentYaml('web')})
  const file = join(dir, 'web.yaml')

  it("prints a SyncResult whose objects, the world after the pass, are the next pass's input", () => {
    const r = cli(['reconcile-once', '-f', file, '--now', NOW, '-o', 'yaml'])
    expect(r.code).toBe(0)
    const doc = parse(r.stdout, {version: '1.1'})
    expect(doc).toMatchObject({
      kind: 'SyncResult',
      items: [{deployment: {name: 'web'}, verdict: {code: 'Progressing'}}],
    })
    expect(doc.items[0].actions.map((a: {verb: string}) => a.verb)).toEqual(['create', 'update', 'update'])
    const list = doc.objects
    expect(list).toMatchObject({apiVersion: 'v1', kind: 'List'})
    const items = list.items as Array<{
      kind: string
      metadata: {name: string; annotations?: Record<string, string>}
    }>
    expect(items.map((o) => o.kind)).toEqual(['Deployment', 'ReplicaSet'])
    expect(items[0]?.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('1')
    expect(items[1]).toMatchObject({apiVersion: 'apps/v1', metadata: {creationTimestamp: NOW}})

    const objects = cli(['reconcile-once', '-f', file, '--now', NOW, '-o', 'jsonpath={.objects}'])
    expect(JSON.parse(objects.stdout)).toEqual(list)
    const json = cli(['reconcile-once', '-f', '-', '--now', NOW, '-o', 'json'], {input: objects.stdout})
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout).objects.items).toHaveLength(2)
    // On a terminal (or -o table) it prints what dry-run sync prints for the same pass.
    const table = cli(['reconcile-once', '-f', file, '--now', NOW])
    expect(table.stdout).toBe(cli(['dry-run', 'sync', '-f', file, '--now', NOW]).stdout)
  })
})

describe('the bundled examples', () => {
  const examples = readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.yaml'))

  it.each(examples)('%s runs and gives a SyncResult', (name) => {
    const text = readFileSync(join(ROOT, 'examples', name), 'utf8')
    const now = /dry-run sync .*--now (\S+)/.exec(text)?.[1] ?? NOW
    const r = cli(['dry-run', 'sync', '-f', join('examples', name), '-A', '--now', now, '-o', 'json'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout) as SyncResult
    expect(doc.items.length).toBeGreaterThan(0)
    for (const result of doc.items) expect(result.error).toBeNull()
  })

  it('rolling-update scales the old ReplicaSet down', () => {
    const r = cli([
      'dry-run',
      'sync',
      '-f',
      'examples/rolling-update.yaml',
      '-A',
      '--now',
      '2026-11-29T10:00:10Z',
    ])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^update +replicasets +web-\w+ +replicas 3 -> 2$/m)
    expect(r.stdout).toMatch(/Scaled down replica set web-\w+ from 3 to 2/)
  })
})
