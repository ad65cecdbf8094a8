// One output vocabulary on every command, through the built binary: -o name and
// -o jsonpath=TEMPLATE (kubectl's dialect, range/end included) read each command's document,
// --no-headers drops the header rows of tables, and explain's former `-o text` is its table.

import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {deployment} from '../objects.js'
import {cli, cliAsync, ROOT} from './helpers.js'

const MULTI = join(ROOT, 'examples/multi.yaml')
const ROLLING = join(ROOT, 'examples/rolling-update.yaml')
const NOW = '2026-11-29T10:00:10Z'

describe('-o name', () => {
  const cases: Array<{name: string; given: string[]; want: string}> = [
    {
      name: 'dry-run sync names the Deployments it synced',
      given: ['dry-run', 'sync', '-f', MULTI, '-A', '--now', NOW, '-o', 'name'],
      want: [
        'deployment.apps/api',
        'deployment.apps/web',
        'deployment.apps/cart-cache',
        'deployment.apps/checkout',
        'deployment.apps/frontend',
        'deployment.apps/reports',
        '',
      ].join('\n'),
    },
    {
      name: 'explain names the Deployments it explained',
      given: ['explain', 'web', '-f', ROLLING, '-n', 'demo', '--now', NOW, '-o', 'name'],
      want: 'deployment.apps/web\n',
    },
    {
      name: 'reconcile-once on files names the Deployments it passed, as against a cluster',
      given: ['reconcile-once', 'web', '-f', ROLLING, '-n', 'demo', '--now', NOW, '-o', 'name'],
      want: 'deployment.apps/web\n',
    },
  ]
  it.each(cases)('$name', ({given, want}) => {
    const r = cli(given)
    // rollout watch says on stderr that it simulates the snapshot.
    expect(r.stderr).toBe(
      given[0] === 'rollout'
        ? 'rollout watch: the files hold a snapshot (objects with status, ReplicaSets or pods): simulating deployment "web" on a virtual clock (--live waits for it on the cluster instead)\n'
        : '',
    )
    expect(r.code).toBe(0)
    expect(r.stdout).toEqual(want)
  })
})

describe('-o jsonpath=TEMPLATE', () => {
  const cases: Array<{name: string; given: string[]; want: string}> = [
    {
      name: 'a field of every item',
      given: [
        'explain',
        '-f',
        ROLLING,
        '-n',
        'demo',
        '--now',
        NOW,
        '-o',
        'jsonpath={.items[*].verdict.code}',
      ],
      want: 'Progressing',
    },
    {
      name: 'range/end over the items, with literals',
      given: [
        'explain',
        '-f',
        ROLLING,
        '-n',
        'demo',
        '--now',
        NOW,
        '-o',
        'jsonpath={range .items[*]}{.deployment.name}={.verdict.code}/{.verdict.reason}{"\\n"}{end}',
      ],
      want: 'web=Progressing/ScalingDown\n',
    },
    {
      name: 'a filter on the writes of a pass',
      given: [
        'dry-run',
        'sync',
        '-f',
        ROLLING,
        '-n',
        'demo',
        '--now',
        NOW,
        '-o',
        'jsonpath={.items[0].actions[?(@.resource=="replicasets")].verb}',
      ],
      want: 'update',
    },
    {
      name: 'rollout watch runs it on each NDJSON object',
      given: [
        'rollout',
        'watch',
        'web',
        '-f',
        ROLLING,
        '-n',
        'demo',
        '--now',
        NOW,
        '-o',
        'jsonpath={.kind}{"\\n"}',
      ],
      want: expect.stringMatching(/^(Step\n)+Summary\n$/) as unknown as string,
    },
  ]
  it.each(cases)('$name', ({given, want}) => {
    const r = cli(given)
    // rollout watch says on stderr that it simulates the snapshot.
    expect(r.stderr).toBe(
      given[0] === 'rollout'
        ? 'rollout watch: the files hold a snapshot (objects with status, ReplicaSets or pods): simulating deployment "web" on a virtual clock (--live waits for it on the cluster instead)\n'
        : '',
    )
    expect(r.stdout).toEqual(want)
  })

  it('refuses a template that does not parse, as a usage error', () => {
    const r = cli(['explain', '-f', ROLLING, '-n', 'demo', '-o', 'jsonpath={.items'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^error: error parsing jsonpath \{\.items, unclosed action/)
  })
})

describe('--no-headers and the table aliases', () => {
  it('dry-run sync prints its table without the header row', () => {
    const args = ['dry-run', 'sync', '-f', ROLLING, '-n', 'demo', '--now', NOW]
    const withHeaders = cli(args).stdout
    const without = cli([...args, '--no-headers']).stdout
    expect(withHeaders).toMatch(/^VERB +RESOURCE +NAME +CHANGE$/m)
    expect(without).not.toMatch(/VERB +RESOURCE/)
    expect(without).toMatch(/^update +replicasets +web-\w+ +replicas 3 -> 2$/m)
  })

  it('explain prints its tables without header rows', () => {
    const args = ['explain', 'web', '-f', ROLLING, '-n', 'demo', '--now', NOW]
    expect(cli(args).stdout).toMatch(/REVISION +NAME +DESIRED/)
    expect(cli([...args, '--no-headers']).stdout).not.toMatch(/REVISION +NAME +DESIRED/)
  })

  it('explain -o table is the report, and -o text (its former name) still is', () => {
    const args = ['explain', 'web', '-f', ROLLING, '-n', 'demo', '--now', NOW]
    const table = cli([...args, '-o', 'table'])
    expect(table.code).toBe(0)
    expect(table.stdout).toBe(cli([...args, '-o', 'text']).stdout)
    expect(table.stdout).toBe(cli(args).stdout)
  })
})

describe('-o wide adds columns, as kubectl does', () => {
  it('dry-run sync: REPLICAS, REVISION and IMAGES of the object written, and every changed field', () => {
    const args = ['dry-run', 'sync', '-f', ROLLING, '-n', 'demo', '--now', NOW]
    const table = cli(args).stdout
    const wide = cli([...args, '-o', 'wide'])
    expect(wide.code).toBe(0)
    expect(table).not.toContain('REPLICAS')
    expect(wide.stdout).toMatch(/^VERB +RESOURCE +NAME +REPLICAS +REVISION +IMAGES +CHANGE$/m)
    // The old ReplicaSet, scaled down to 2: revision 1, nginx:1.26.
    expect(wide.stdout).toMatch(/^update +replicasets +web-\w+ +2 +1 +nginx:1\.26 +spec\.replicas: 3 -> 2$/m)
    const noHeaders = cli([...args, '-o', 'wide', '--no-headers']).stdout
    expect(noHeaders).not.toContain('REPLICAS')
    expect(noHeaders).toMatch(/^update +replicasets +web-\w+ +2 +1 +nginx:1\.26 /m)
  })

  it('explain: the ReplicaSets with CONTAINERS and SELECTOR, as kubectl get rs -o wide', () => {
    const args = ['explain', 'web', '-f', ROLLING, '-n', 'demo', '--now', NOW]
    const table = cli(args).stdout
    const wide = cli([...args, '-o', 'wide'], {env: {COLUMNS: '200'}})
    expect(wide.code).toBe(0)
    expect(table).not.toContain('SELECTOR')
    expect(wide.stdout).toMatch(/^REVISION +NAME .* ROLE +CONTAINERS +IMAGES +SELECTOR +HISTORY$/m)
    expect(wide.stdout).toMatch(
      /^1 +web-(\w+) .* old +\w\S* +nginx:1\.26 +app=web,pod-template-hash=\1 +<none>$/m,
    )
  })
})

describe('every printing command takes the output vocabulary', () => {
  const ROLLOUT = ['rollout', 'watch', 'web', '-f', ROLLING, '-n', 'demo', '--now', NOW]
  it('rollout watch -o yaml prints one document per object after ---', async () => {
    const r = cli([...ROLLOUT, '-o', 'yaml'])
    expect(r.code).toBe(0)
    const {parseAllDocuments} = await import('yaml')
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJSON() as {kind: string})
    const json = cli([...ROLLOUT, '-o', 'json'])
      .stdout.trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown)
    expect(docs).toEqual(json)
    expect(docs.at(-1)?.kind).toBe('Summary')
  })

  it('rollout watch -o name names the Deployment at each step, as kubectl get -w -o name', () => {
    const r = cli([...ROLLOUT, '-o', 'name'])
    expect(r.code).toBe(0)
    const steps = cli([...ROLLOUT, '-o', 'jsonpath={.kind}{"\\n"}']).stdout.match(/^Step$/gm)?.length
    expect(steps).toBeGreaterThan(1)
    expect(r.stdout).toBe('deployment.apps/web\n'.repeat(steps ?? 0))
  })

  it('rollout watch refuses wide: it prints no table', () => {
    const r = cli([...ROLLOUT, '-o', 'wide'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^error: unable to match a printer suitable for the output format "wide"/)
  })

  const PASS = ['-f', ROLLING, '-n', 'demo', '--now', NOW]
  const commands: Array<{name: string; args: string[]; formats: string[]}> = [
    {
      name: 'dry-run sync',
      args: ['dry-run', 'sync', ...PASS],
      formats: ['table', 'wide', 'json', 'yaml', 'name'],
    },
    {name: 'explain', args: ['explain', ...PASS], formats: ['table', 'wide', 'json', 'yaml', 'name']},
    {
      name: 'reconcile-once (files)',
      args: ['reconcile-once', ...PASS],
      formats: ['table', 'wide', 'json', 'yaml', 'name'],
    },
    {name: 'rollout watch', args: ROLLOUT, formats: ['table', 'json', 'yaml', 'name']},
  ]
  it.each(commands)('$name: each format, and jsonpath on its document', ({args, formats}) => {
    const outputs = new Set<string>()
    for (const format of formats) {
      const r = cli([...args, '-o', format])
      expect(r.code, format).toBe(0)
      expect(r.stdout, format).not.toBe('')
      outputs.add(r.stdout)
    }
    // No two formats print the same.
    expect(outputs.size).toBe(formats.length)
    const jp = cli([...args, '-o', 'jsonpath={.kind}'])
    expect(jp.code).toBe(0)
    expect(jp.stdout).toMatch(/^(SyncResult|ExplainResult|List|(Step)+Summary)$/)
  })
})

describe('reconcile-once against a cluster takes the output vocabulary', () => {
  let server: ApiServer
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    server = await startApiServer({objects: [deployment({name: 'web'})]})
    env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
  })
  afterAll(async () => {
    await server?.close()
  })
  // --dry-run=server: every run sends the same writes and the cluster stays as it was.
  const run = (...args: string[]) => cliAsync(['reconcile-once', '--dry-run=server', ...args], {env})

  it('table, wide, --no-headers, name and jsonpath', async () => {
    const table = await run()
    expect(table.stderr).toBe('')
    expect(table.stdout).toMatch(/^VERB +RESOURCE +NAME +CHANGE +RESULT$/m)
    expect(table.stdout).toMatch(
      /^create +replicasets +web-\w+ +created \(replicas \d+, revision 1\) +succeeded \(server dry run\)$/m,
    )
    const wide = await run('-o', 'wide')
    expect(wide.stdout).toMatch(/^VERB +RESOURCE +NAME +REPLICAS +REVISION +IMAGES +CHANGE +RESULT$/m)
    const noHeaders = await run('--no-headers')
    expect(noHeaders.stdout).not.toMatch(/VERB +RESOURCE/)
    expect(noHeaders.stdout).toMatch(/^create +replicasets +web-\w+ /m)
    expect((await run('-o', 'name')).stdout).toBe('deployment.apps/web\n')
    const jp = await run(
      '-o',
      'jsonpath={range .items[*].actions[*]}{.verb} {.resource} {.outcome}{"\\n"}{end}',
    )
    expect(jp.stdout).toMatch(/^create replicasets succeeded\n/)
    expect(server.store.list('replicasets', 'default')).toHaveLength(0)
  })
})

// Issue 25 item 6: one item shape per Deployment. The same jsonpath reads the same Deployment and
// verdict from every command's document.
describe('one item shape: deployment and verdict first in every item', () => {
  const FILES = ['-f', ROLLING, '-n', 'demo', '--now', NOW]
  const PATH =
    'jsonpath={.items[0].deployment.namespace}/{.items[0].deployment.name} {.items[0].verdict.code} {.items[0].verdict.reason}'
  it.each([
    ['explain', ['explain', ...FILES]],
    ['explain --summary', ['explain', '--summary', ...FILES]],
    ['dry-run sync', ['dry-run', 'sync', ...FILES]],
    ['reconcile-once -f', ['reconcile-once', ...FILES]],
  ])('%s', (_name, args) => {
    const r = cli([...args, '-o', PATH])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('demo/web Progressing ScalingDown')
    const doc = JSON.parse(cli([...args, '-o', 'json']).stdout) as {items: object[]}
    expect(Object.keys(doc.items[0]!).slice(0, 2)).toEqual(['deployment', 'verdict'])
  })

  it('plan: the verdict of the Deployment as applied, before the controller acts', () => {
    const args = [
      'plan',
      '-f',
      join(ROOT, 'examples/plan/web-image.yaml'),
      '--current',
      join(ROOT, 'examples/steady.yaml'),
    ]
    const r = cli([...args, '--now', NOW, '-o', PATH])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('demo/web Progressing NewReplicaSetCreated')
    const same = cli([
      'plan',
      '-f',
      join(ROOT, 'examples/plan/web-replicas.yaml'),
      '--current',
      join(ROOT, 'examples/steady.yaml'),
      '--now',
      NOW,
      '-o',
      PATH,
    ])
    expect(same.stdout).toMatch(/^demo\/web Progressing /)
  })
})
