// Every `-o json` document of every command, on files and against a cluster (the test API server),
// validated against its JSON Schema in docs/schemas/ (issue 25 item 6; docs/output.md). The
// validator is test/schema.ts (the subset of JSON Schema the schemas use).

import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {SchemaSet} from '../schema.js'
import {cli, cliAsync, ROOT} from './helpers.js'

const SCHEMAS = join(ROOT, 'docs/schemas')
const schemas = new SchemaSet(SCHEMAS)

/** Each document kind and its schema file. */
const SCHEMA_OF: Record<string, string> = {
  SyncResult: 'sync-result.json',
  ExplainResult: 'explain-result.json',
  ExplainSummary: 'explain-summary.json',
  TimelineSummary: 'timeline-summary.json',
  PlanResult: 'plan-result.json',
  RolloutGateResult: 'rollout-gate-result.json',
}
/** rollout watch -o json is a stream (one object per line), each line validated by this schema. */
const STREAM_SCHEMA = 'rollout-watch.json'
/** version -o json has no kind, as kubectl version's document has none. */
const VERSION_SCHEMA = 'version.json'
/** The gate's stream: RolloutGateEvent lines, then the RolloutGateResult; its schema takes both. */
const GATE_SCHEMA = 'rollout-gate-result.json'

function expectGateStreamValid(stdout: string, what: string): void {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '')
  expect(lines.length, what).toBeGreaterThan(1)
  for (const line of lines)
    expect(schemas.validate(GATE_SCHEMA, JSON.parse(line)), `${what}: ${line.slice(0, 80)}`).toEqual([])
  expectValid(JSON.parse(lines.at(-1) ?? '{}'), `${what}: its last line`)
}

function expectValid(doc: unknown, what: string): void {
  const kind = (doc as {kind?: string}).kind ?? ''
  const file = SCHEMA_OF[kind]
  expect(file, `${what}: no schema for kind ${kind}`).toBeDefined()
  expect(schemas.validate(file!, doc), what).toEqual([])
}

function expectStreamValid(stdout: string, what: string): void {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '')
  expect(lines.length, what).toBeGreaterThan(0)
  for (const line of lines)
    expect(schemas.validate(STREAM_SCHEMA, JSON.parse(line)), `${what}: ${line.slice(0, 80)}`).toEqual([])
}

function json(args: string[], what = args.join(' ')): unknown {
  const r = cli([...args, '-o', 'json'])
  expect(r.code, `${what}: ${r.stderr}`).toBeLessThanOrEqual(1)
  return JSON.parse(r.stdout)
}

const examples = readdirSync(join(ROOT, 'examples'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => {
    const text = readFileSync(join(ROOT, 'examples', f), 'utf8')
    const now = /--now (\d\S+)/.exec(text)?.[1] ?? '2026-11-29T10:00:00Z'
    return {file: join('examples', f), now}
  })

describe('the schemas', () => {
  it('a document that breaks its schema fails: a missing verdict, a wrong code, a renamed field', () => {
    const doc = json([
      'dry-run',
      'sync',
      '-f',
      'examples/rolling-update.yaml',
      '-A',
      '--now',
      '2026-11-29T10:00:10Z',
    ]) as {
      items: Array<Record<string, unknown>>
    }
    expectValid(doc, 'as printed')
    const without = structuredClone(doc)
    delete without.items[0]!.verdict
    expect(schemas.validate('sync-result.json', without)).toEqual([
      {path: '$.items[0]', message: 'missing required field verdict'},
    ])
    const wrong = structuredClone(doc)
    ;(wrong.items[0]!.verdict as {code: string}).code = 'Healthy'
    expect(schemas.validate('sync-result.json', wrong)[0]?.path).toBe('$.items[0].verdict.code')
    const flat = structuredClone(doc)
    flat.items[0]!.deployment = {namespace: 'demo', name: 'web', uid: 'x'}
    expect(schemas.validate('sync-result.json', flat)).toEqual([
      {path: '$.items[0].deployment', message: 'unexpected field uid'},
    ])
  })

  it('use only the keywords the validator checks', () => {
    for (const f of readdirSync(SCHEMAS)) {
      if (f === 'common.json') continue
      expect(() => schemas.validate(f, {}), f).not.toThrow()
    }
  })
})

describe('-o json on files', () => {
  it.each(examples)('dry-run sync, reconcile-once, explain and rollout watch on $file', ({file, now}) => {
    const args = ['-f', file, '-A', '--now', now]
    expectValid(json(['dry-run', 'sync', ...args]), `dry-run sync ${file}`)
    expectValid(json(['reconcile-once', ...args]), `reconcile-once ${file}`)
    expectValid(json(['explain', ...args]), `explain ${file}`)
    expectValid(json(['explain', '--summary', ...args]), `explain --summary ${file}`)
    const list = parse(readFileSync(join(ROOT, file), 'utf8')) as {
      items?: Array<{kind: string; metadata: {name: string; namespace?: string}}>
    }
    const d = list.items?.find((o) => o.kind === 'Deployment')
    if (d) {
      const namespace = d.metadata.namespace ?? 'default'
      const watch = cli([
        'rollout',
        'watch',
        d.metadata.name,
        '-f',
        file,
        '-n',
        namespace,
        '--now',
        now,
        '--simulate',
        '-o',
        'json',
      ])
      expectStreamValid(watch.stdout, `rollout watch ${file}`)
    }
  })

  it('explain on posted snapshots (IncompleteInput)', () => {
    const posted = readdirSync(join(ROOT, 'test/fixtures/posted'))
    for (const f of posted) expectValid(json(['explain', '-f', join('test/fixtures/posted', f), '-A']), f)
  })

  it('plan on every bundled proposal', () => {
    const cases = [
      ['plan/web-image.yaml', 'steady.yaml'],
      ['plan/web-replicas.yaml', 'steady.yaml'],
      ['plan/web-rollback.yaml', 'rolling-update.yaml'],
    ]
    for (const [proposed, current] of cases) {
      const args = [
        'plan',
        '-f',
        `examples/${proposed}`,
        '--current',
        `examples/${current}`,
        '--now',
        '2026-11-29T10:00:10Z',
      ]
      expectValid(json(args), proposed!)
    }
  })

  it('explain --timeline-summary on every recorded timeline', () => {
    for (const f of readdirSync(join(ROOT, 'test/fixtures/timeline'))) {
      expectValid(json(['explain', '-f', join('test/fixtures/timeline', f), '--timeline-summary']), f)
    }
  })
})

describe('-o json against a cluster', () => {
  let server: ApiServer
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    const objects = ['steady.yaml', 'stuck-image-pull.yaml'].flatMap(
      (f) => (parse(readFileSync(join(ROOT, 'examples', f), 'utf8')) as {items: unknown[]}).items,
    )
    server = await startApiServer({objects})
    env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
  })
  afterAll(async () => {
    await server?.close()
  })
  const live = async (args: string[]) => {
    const r = await cliAsync([...args, '-n', 'demo', '-o', 'json'], {env})
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBeLessThanOrEqual(1)
    return r.stdout
  }

  it('dry-run sync, reconcile-once --dry-run=server, explain, explain --summary, plan', async () => {
    expectValid(JSON.parse(await live(['dry-run', 'sync'])), 'dry-run sync')
    expectValid(JSON.parse(await live(['reconcile-once', '--dry-run=server'])), 'reconcile-once')
    expectValid(JSON.parse(await live(['explain'])), 'explain')
    expectValid(JSON.parse(await live(['explain', '--summary'])), 'explain --summary')
    expectValid(JSON.parse(await live(['plan', '-f', join(ROOT, 'examples/plan/web-image.yaml')])), 'plan')
  })

  it('rollout watch of a complete rollout', async () => {
    expectStreamValid(await live(['rollout', 'watch', 'web', '--timeout', '20s']), 'rollout watch')
  })

  it('the rollout gate over several Deployments, one of them failed (its events in the row)', async () => {
    const gate = await live([
      'rollout',
      'watch',
      'web',
      'api',
      'ghost',
      '--timeout',
      '5s',
      '--require-existing',
    ])
    expectGateStreamValid(gate, 'rollout watch web api ghost')
    const result = JSON.parse(gate.trim().split('\n').at(-1) ?? '{}') as {items: Array<{phase: string}>}
    expect(result.items.filter((i) => i.phase === 'Failed').length).toBeGreaterThanOrEqual(1)
  })
})

describe('version', () => {
  it("version -o json (kubectl version's document, no kind) validates against version.json", () => {
    const r = cli(['version', '--client', '-o', 'json'])
    expect(r.code).toBe(0)
    expect(schemas.validate(VERSION_SCHEMA, JSON.parse(r.stdout))).toEqual([])
  })
})

describe('coverage', () => {
  it('every schema file belongs to a document kind, the watch stream or version', () => {
    const files = readdirSync(SCHEMAS).filter((f) => f !== 'common.json')
    expect([...Object.values(SCHEMA_OF), STREAM_SCHEMA, VERSION_SCHEMA].sort()).toEqual(files.sort())
  })
})
