// explain (and the passes) on the inputs people actually have, through the BUILT command line:
// partial snapshots, namespace mistakes (issue 19).

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parse, stringify} from 'yaml'
import type {ExplainResult} from '../../src/explain/types.js'
import {cli, ROOT, tempFiles} from './helpers.js'

const NOW = ['--now', '2026-11-29T10:00:00Z']
const STUCK = 'examples/stuck-image-pull.yaml'

interface Obj {
  kind: string
  metadata: {name: string}
}

/** The stuck example's objects of the given kinds, as one YAML List in a temporary file. */
function stuckSlice(kinds: string[]): string {
  const list = parse(readFileSync(join(ROOT, STUCK), 'utf8')) as {items: Obj[]}
  const items = list.items.filter((o) => kinds.includes(o.kind))
  const dir = tempFiles({'slice.yaml': stringify({apiVersion: 'v1', kind: 'List', items})})
  return join(dir, 'slice.yaml')
}

const SNAPSHOT = 'kubectl get deploy,rs,pods,events -n demo -o yaml'

describe('partial input', () => {
  it('a Deployment without its ReplicaSets: explain says IncompleteInput first, with the command', () => {
    const file = stuckSlice(['Deployment'])
    const r = cli(['explain', 'api', '-f', file, '-n', 'demo', ...NOW])
    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines[0]).toBe('deployment demo/api')
    expect(lines[1]).toBe('Verdict: IncompleteInput (MissingReplicaSets)')
    const text = r.stdout.replace(/\s+/g, ' ')
    expect(text).toContain('deployment demo/api is at revision 2 and its status counts 5 replicas')
    expect(text).toContain(`Get a complete snapshot: ${SNAPSHOT}`)
    const json = JSON.parse(cli(['explain', 'api', '-f', file, '-n', 'demo', ...NOW, '-o', 'json']).stdout)
    expect((json as ExplainResult).items[0]?.verdict).toMatchObject({
      code: 'IncompleteInput',
      reason: 'MissingReplicaSets',
    })
  })

  it('ReplicaSets without their pods: IncompleteInput (MissingPods)', () => {
    const file = stuckSlice(['Deployment', 'ReplicaSet'])
    const r = cli(['explain', 'api', '-f', file, '-n', 'demo', ...NOW, '-o', 'json'])
    expect(r.code).toBe(0)
    const e = (JSON.parse(r.stdout) as ExplainResult).items[0]!
    expect(e.verdict.code).toBe('IncompleteInput')
    expect(e.verdict.reason).toBe('MissingPods')
    expect(e.verdict.message).toContain('report 5 pods but the input holds none of them')
    expect(e.blockers.map((b) => b.code)).toEqual(['NoPodsInInput'])
  })

  it('dry-run sync warns on stderr; --exit-code exits 2', () => {
    const file = stuckSlice(['Deployment'])
    const plain = cli(['dry-run', 'sync', '-f', file, '-n', 'demo', ...NOW])
    expect(plain.code).toBe(0)
    expect(plain.stderr).toMatch(/^warning: The input is incomplete: deployment demo\/api is at revision 2/)
    expect(plain.stderr).toContain(SNAPSHOT)
    expect(plain.stdout).toContain('create   replicasets')
    const gated = cli(['dry-run', 'sync', '-f', file, '-n', 'demo', ...NOW, '--exit-code'])
    expect(gated.code).toBe(2)
    expect(gated.stderr).toContain('warning: The input is incomplete')
  })

  it('reconcile-once warns on stderr', () => {
    const r = cli(['reconcile-once', '-f', stuckSlice(['Deployment']), '-n', 'demo', ...NOW, '-o', 'name'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('warning: The input is incomplete: deployment demo/api')
    expect(r.stdout).toContain('deployment.apps/api')
  })

  it('a complete snapshot, and a RollingUpdate pass without pods, warn about nothing', () => {
    const whole = cli(['dry-run', 'sync', '-f', STUCK, '-n', 'demo', ...NOW, '--exit-code'])
    expect(whole.stderr).toBe('')
    expect(whole.code).toBe(1)
    const noPods = cli([
      'dry-run',
      'sync',
      '-f',
      stuckSlice(['Deployment', 'ReplicaSet']),
      '-n',
      'demo',
      ...NOW,
    ])
    expect(noPods.stderr).toBe('')
    const explained = cli(['explain', '-f', STUCK, '-n', 'demo', ...NOW, '-o', 'json'])
    expect((JSON.parse(explained.stdout) as ExplainResult).items[0]?.verdict.code).toBe('DeadlineExceeded')
  })
})
