// Issue 26, item 7: several clusters in one run. Two test API servers behind two contexts of one
// kubeconfig (and a third context whose server refuses connections): explain --summary covers each,
// with a CONTEXT column and a `context` field, and a context that cannot be read is an error of its
// own after the output, not the others'.

import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {SchemaSet} from '../schema.js'
import {cliAsync, multiContextKubeconfig, ROOT} from './helpers.js'

const servers: ApiServer[] = []
let dir = ''
let env: NodeJS.ProcessEnv = {}

function example(file: string): unknown[] {
  return (parse(readFileSync(join(ROOT, 'examples', file), 'utf8'), {version: '1.1'}) as {items: unknown[]})
    .items
}

beforeAll(async () => {
  servers.push(await startApiServer({objects: example('steady.yaml')}))
  servers.push(await startApiServer({objects: example('deadline-exceeded.yaml')}))
  dir = mkdtempSync(join(tmpdir(), 'deployctl-contexts-'))
  const [eu, us] = servers as [ApiServer, ApiServer]
  writeFileSync(
    join(dir, 'kubeconfig'),
    multiContextKubeconfig({
      eu: {url: eu.url, token: eu.token},
      us: {url: us.url, token: us.token},
      // Nothing listens on port 1: the connection is refused at once.
      gone: {url: 'https://127.0.0.1:1', token: 'x'},
      // The same cluster as eu, for a gate whose every context passes.
      'eu-again': {url: eu.url, token: eu.token},
    }),
  )
  env = {KUBECONFIG: join(dir, 'kubeconfig'), KUBECACHEDIR: join(dir, 'cache')}
})

afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
  rmSync(dir, {recursive: true, force: true})
})

const NOW = ['--now', '2026-11-29T10:10:00Z']

describe('explain --summary over several contexts', () => {
  it('--context twice: a CONTEXT column first, the rows of each in the order given', async () => {
    const r = await cliAsync(['explain', '--summary', '-A', '--context', 'us', '--context', 'eu', ...NOW], {
      env,
    })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^CONTEXT +DEPLOYMENT +VERDICT +READY/)
    expect(lines.slice(1).map((l) => l.split(/ +/).slice(0, 3))).toEqual([
      ['us', 'demo/api', 'DeadlineExceeded'],
      ['eu', 'demo/web', 'Complete'],
    ])
  })

  it('-o json: each item names its context; --fail-on names the context of a match', async () => {
    const r = await cliAsync(
      [
        'explain',
        '--summary',
        '-A',
        '--context',
        'eu',
        '--context',
        'us',
        '-o',
        'json',
        '--fail-on',
        'stuck',
        ...NOW,
      ],
      {env},
    )
    expect(r.code).toBe(1)
    expect(r.stderr).toBe('--fail-on stuck: 1 of 2 Deployments match: us:demo/api (stuck)\n')
    const doc = JSON.parse(r.stdout) as {
      kind: string
      items: Array<{context: string; deployment: {name: string}}>
    }
    expect(doc.kind).toBe('ExplainSummary')
    expect(new SchemaSet(join(ROOT, 'docs/schemas')).validate('explain-summary.json', doc)).toEqual([])
    expect(doc.items.map((i) => [i.context, i.deployment.name])).toEqual([
      ['eu', 'web'],
      ['us', 'api'],
    ])
  })

  it('--all-contexts: an unreachable context is an error of its own; the others are reported', async () => {
    const r = await cliAsync(['explain', '--summary', '-A', '--all-contexts', ...NOW], {env})
    expect(r.code).toBe(1)
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => l.split(/ +/).slice(0, 2)),
    ).toEqual([
      ['eu', 'demo/web'],
      ['us', 'demo/api'],
      ['eu-again', 'demo/web'],
    ])
    const errors = r.stderr.trimEnd().split('\n')
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/^error: context "gone": .*127\.0\.0\.1:1/)
  })

  it('is refused with -f, without --summary, and with both --all-contexts and --context', async () => {
    const two = ['--context', 'eu', '--context', 'us']
    const cases: Array<[string[], string]> = [
      [
        ['--summary', '-f', 'examples/steady.yaml', ...two],
        'several --context reads clusters; -f reads files',
      ],
      [['-A', ...two], 'several contexts are summarized: add --summary'],
      [
        ['--summary', '-A', '--all-contexts', '--context', 'eu'],
        '--all-contexts and --context cannot be combined',
      ],
    ]
    for (const [args, message] of cases) {
      const r = await cliAsync(['explain', ...args], {env})
      expect({args, code: r.code}).toEqual({args, code: 2})
      expect(r.stderr).toContain(message)
    }
  })
})

describe('rollout watch (the gate) over several contexts', () => {
  const gate = (args: string[]) =>
    cliAsync(['rollout', 'watch', '-A', '--timeout', '60s', ...args], {env, killAfterMs: 90_000})

  it('passes when every context is done, naming each Deployment with its context', async () => {
    const r = await gate(['--context', 'eu', '--context', 'eu-again'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/ deployment eu:demo\/web done 3\/3 ready/)
    expect(r.stdout).toMatch(/ deployment eu-again:demo\/web done 3\/3 ready/)
    expect(r.stdout).toContain('rollout gate passed: 2 of 2 Deployments rolled out.\n')
  })

  it('one failing context fails the gate and names itself; the other is done', async () => {
    const r = await gate(['--context', 'eu', '--context', 'us', '-o', 'json'])
    expect(r.code).toBe(1)
    const last = JSON.parse(r.stdout.trimEnd().split('\n').at(-1) ?? '{}') as {
      kind: string
      result: string
      message: string
      items: Array<{context: string; deployment: {name: string}; phase: string; reason: string}>
    }
    expect(last.kind).toBe('RolloutGateResult')
    expect(last.result).toBe('Failed')
    expect(last.items.map((i) => [i.context, i.deployment.name, i.phase])).toEqual([
      ['us', 'api', 'Failed'],
      ['eu', 'web', 'Done'],
    ])
    expect(last.message).toMatch(/^1 of 2 Deployments rolled out; 1 failed: us:demo\/api \(/)
  })

  it('an unreachable context fails the gate with its error, not the others', async () => {
    const r = await gate(['--context', 'eu', '--context', 'gone'])
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(/ deployment eu:demo\/web done 3\/3 ready/)
    expect(r.stdout).toMatch(/^deployment gone:\*\/\* failed: ContextUnreachable/m)
    expect(r.stdout).toMatch(
      /rollout gate failed: 1 of 2 Deployments rolled out; 1 failed: gone:\*\/\* \(ContextUnreachable\)/,
    )
    expect(r.stdout).toContain('127.0.0.1:1')
  })
})
