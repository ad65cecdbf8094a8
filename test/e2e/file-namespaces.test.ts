// -f reads each object in its own namespace, as `kubectl get -f` does (issue 25, item 5): without -n,
// explain, dry-run sync, reconcile-once and rollout watch select among every namespace the files
// name, and objects that name none are in the kubeconfig context's namespace when there is a
// kubeconfig (else `default`), or in -n's when it is given. Through the built binary.

import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'
import {cli, deploymentYaml, ROOT, tempFiles} from './helpers.js'

const STEADY = join(ROOT, 'examples/steady.yaml')
const STUCK = join(ROOT, 'examples/stuck-image-pull.yaml')
const NOW = ['--now', '2026-11-29T10:00:00Z']

let dir: string
const path = (name: string) => join(dir, name)
/** No kubeconfig anywhere (HOME has none either). */
const NO_KUBECONFIG = () => ({KUBECONFIG: path('none'), HOME: dir})

interface Item {
  deployment: {namespace: string; name: string}
}
const keys = (stdout: string) =>
  (JSON.parse(stdout) as {items: Item[]}).items.map((i) => `${i.deployment.namespace}/${i.deployment.name}`)

beforeAll(() => {
  const kubeconfig = (contexts: Array<{name: string; namespace?: string}>, current?: string) =>
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{name: 'c', cluster: {server: 'https://127.0.0.1:1'}}],
      users: [{name: 'u', user: {}}],
      contexts: contexts.map((c) => ({
        name: c.name,
        context: {cluster: 'c', user: 'u', ...(c.namespace ? {namespace: c.namespace} : {})},
      })),
      ...(current ? {'current-context': current} : {}),
    })
  dir = tempFiles({
    'no-namespace.yaml': deploymentYaml('web').replace('  namespace: default\n', ''),
    'two-webs.yaml': `${deploymentYaml('web', 'blue')}---\n${deploymentYaml('web', 'green').replace(/uid: .*/, 'uid: 9e3c44a2-0000-4000-8000-000000000002')}`,
    kubeconfig: kubeconfig(
      [
        {name: 'team', namespace: 'team-ns'},
        {name: 'other', namespace: 'other-ns'},
      ],
      'team',
    ),
    'first.kc': kubeconfig([{name: 'plain'}]),
  })
})

afterAll(() => {
  if (dir) rmSync(dir, {recursive: true, force: true})
})

describe("the files' namespaces without -n", () => {
  it('explain -f examples/steady.yaml explains its Deployment, in its namespace (the issue case)', () => {
    const r = cli(['explain', '-f', STEADY, ...NOW], {env: NO_KUBECONFIG()})
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^deployment demo\/web\nVerdict: Complete \(RolloutComplete\)/)
    const summary = cli(['explain', '--summary', '-f', STEADY, ...NOW, '-o', 'json'], {env: NO_KUBECONFIG()})
    expect(summary.code).toBe(0)
    expect(summary.stdout).toContain('"demo"')
  })

  it('dry-run sync, reconcile-once and rollout watch use them too', () => {
    const env = NO_KUBECONFIG()
    for (const args of [['dry-run', 'sync'], ['reconcile-once']]) {
      const r = cli([...args, '-f', STEADY, ...NOW, '-o', 'name'], {env})
      expect(r.stderr, args.join(' ')).toBe('')
      expect(r.stdout.split('\n')[0], args.join(' ')).toBe('deployment.apps/web')
    }
    const watch = cli(['rollout', 'watch', 'web', '-f', STEADY, '--line-mode'], {env})
    expect(watch.stderr).toBe(
      'rollout watch: the files hold a snapshot (objects with status, ReplicaSets or pods): simulating deployment "web" on a virtual clock (--live waits for it on the cluster instead)\n',
    )
    expect(watch.stdout).toContain('deployment "web" successfully rolled out')
    expect(watch.code).toBe(0)
  })

  it('a name selects in every namespace of the files; -n still selects one', () => {
    const env = NO_KUBECONFIG()
    const both = cli(['dry-run', 'sync', 'web', '-f', path('two-webs.yaml'), ...NOW, '-o', 'json'], {env})
    expect(keys(both.stdout)).toEqual(['blue/web', 'green/web'])
    const one = cli(
      ['dry-run', 'sync', 'web', '-f', path('two-webs.yaml'), '-n', 'green', ...NOW, '-o', 'json'],
      {
        env,
      },
    )
    expect(keys(one.stdout)).toEqual(['green/web'])
    // A simulation follows one Deployment: a name in two namespaces asks for -n. (Without
    // --simulate, manifests are waited for on the cluster: both.)
    const watch = cli(['rollout', 'watch', 'web', '-f', path('two-webs.yaml'), '--simulate', '--line-mode'], {
      env,
    })
    expect(watch.stderr).toBe(
      'error: the files hold deployment web in namespaces blue, green: choose one with -n\n',
    )
    expect(watch.code).toBe(2)
  })

  it('explain rs/NAME and pod/NAME find the namespace that holds them', () => {
    const r = cli(['explain', 'rs/api-6f64564f4d', '-f', STUCK, ...NOW, '-o', 'json'], {env: NO_KUBECONFIG()})
    expect(r.stderr).toBe('')
    expect(keys(r.stdout)).toEqual(['demo/api'])
  })
})

describe('objects that name no namespace', () => {
  const json = (args: string[], env: NodeJS.ProcessEnv) =>
    cli(['dry-run', 'sync', '-f', path('no-namespace.yaml'), ...NOW, '-o', 'json', ...args], {env})

  it("are in the kubeconfig context's namespace, the one --context names, or -n's", () => {
    const env = {KUBECONFIG: path('kubeconfig'), HOME: dir}
    expect(keys(json([], env).stdout)).toEqual(['team-ns/web'])
    expect(keys(json(['--context', 'other'], env).stdout)).toEqual(['other-ns/web'])
    expect(keys(json(['-n', 'flag-ns'], env).stdout)).toEqual(['flag-ns/web'])
    // KUBECONFIG's files merged as clientcmd merges them: current-context from the first that sets it.
    const merged = {KUBECONFIG: [path('first.kc'), path('kubeconfig')].join(':'), HOME: dir}
    expect(keys(json([], merged).stdout)).toEqual(['team-ns/web'])
  })

  it('are in default without a kubeconfig', () => {
    const r = json([], NO_KUBECONFIG())
    expect(r.stderr).toBe('')
    expect(keys(r.stdout)).toEqual(['default/web'])
  })
})
