// One output vocabulary on every command, through the built binary: -o name and
// -o jsonpath=TEMPLATE (kubectl's dialect, range/end included) read each command's document,
// --no-headers drops the header rows of tables, and explain's former `-o text` is its table.

import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {cli, ROOT} from './helpers.js'

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
      name: 'reconcile-once on files names every object after the pass, as kubectl get -o name',
      given: ['reconcile-once', 'web', '-f', ROLLING, '-n', 'demo', '--now', NOW, '-o', 'name'],
      want: expect.stringMatching(/^deployment\.apps\/web\nreplicaset\.apps\/web-\w+\n/) as unknown as string,
    },
  ]
  it.each(cases)('$name', ({given, want}) => {
    const r = cli(given)
    expect(r.stderr).toBe('')
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
    expect(r.stderr).toBe('')
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
