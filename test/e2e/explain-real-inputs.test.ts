// explain (and the passes) on the inputs people actually have, through the BUILT command line:
// partial snapshots, namespace mistakes (issue 19).

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse, stringify} from 'yaml'
import type {ExplainResult} from '../../src/explain/types.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cli, cliAsync, ROOT, tempFiles} from './helpers.js'

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

describe('namespace mistakes', () => {
  const NOTHING =
    'No resources found in default namespace.\nThe files hold Deployments in namespace demo: use -n demo or -A.\n'
  const NAMED =
    'error: deployments.apps "api" not found in namespace "default": the files hold deployment api in namespace demo: use -n demo\n'

  it('nothing selected: every command names the namespace; dry-run sync --exit-code exits 2', () => {
    const gated = cli(['dry-run', 'sync', '-f', STUCK, ...NOW, '--exit-code'])
    expect(gated.stderr).toBe(NOTHING)
    expect(gated.code).toBe(2)
    expect(cli(['dry-run', 'sync', '-f', STUCK, ...NOW]).code).toBe(0)
    const explained = cli(['explain', '-f', STUCK, ...NOW])
    expect(explained.stderr).toBe(NOTHING)
    expect(explained.stdout).toBe('')
    expect(cli(['reconcile-once', '-f', STUCK, ...NOW, '-o', 'name']).stderr).toBe(NOTHING)
    // -A and the right -n are not mistakes.
    expect(cli(['explain', '-f', STUCK, '-A', ...NOW, '-o', 'name']).stderr).toBe('')
  })

  it('a named Deployment in another namespace: the same hint from every command', () => {
    for (const args of [
      ['explain', 'api'],
      ['explain', 'deployment/api'],
      ['dry-run', 'sync', 'api', '--exit-code'],
      ['reconcile-once', 'api', '-o', 'yaml'],
      ['rollout', 'watch', 'api'],
    ]) {
      const r = cli([...args, '-f', STUCK, ...NOW])
      expect(r.stderr, args.join(' ')).toBe(NAMED)
      expect(r.code, args.join(' ')).toBe(args.includes('--exit-code') ? 2 : 1)
      expect(r.stdout).toBe('')
    }
    // A name that is nowhere keeps kubectl's NotFound as it is.
    expect(cli(['explain', 'nope', '-f', STUCK, ...NOW]).stderr).toBe(
      'error: deployments.apps "nope" not found\n',
    )
  })

  describe('on a cluster', () => {
    let server: ApiServer
    let env: NodeJS.ProcessEnv
    beforeAll(async () => {
      const list = parse(readFileSync(join(ROOT, STUCK), 'utf8')) as {items: unknown[]}
      server = await startApiServer({objects: list.items})
      env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
    })
    afterAll(async () => {
      await server?.close()
    })

    it('says where the cluster has Deployments, for a selection and for a name', async () => {
      const cluster =
        'No resources found in default namespace.\nThe cluster has Deployments in namespace demo: use -n demo or -A.\n'
      const gated = await cliAsync(['dry-run', 'sync', ...NOW, '--exit-code'], {env})
      expect(gated.stderr).toBe(cluster)
      expect(gated.code).toBe(2)
      expect((await cliAsync(['explain', ...NOW], {env})).stderr).toBe(cluster)
      const named = await cliAsync(['explain', 'api', ...NOW], {env})
      expect(named.stderr).toBe(
        'error: deployments.apps "api" not found in namespace "default": the cluster has deployment api in namespace demo: use -n demo\n',
      )
      expect(named.code).toBe(1)
      const watched = await cliAsync(['rollout', 'watch', 'api', '--timeout', '5s'], {env})
      expect(watched.stderr).toBe(
        'Error from server (NotFound): deployments.apps "api" not found\nThe cluster has deployment api in namespace demo: use -n demo.\n',
      )
      expect(watched.code).toBe(1)
    })
  })
})
