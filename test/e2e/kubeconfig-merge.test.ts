// KUBECONFIG with several files, through the built binary against the test API server, merged as
// client-go's clientcmd loading rules merge them (issue 25, item 2): for clusters, users and
// contexts the first file that names an entry wins (the whole entry), current-context comes from
// the first file that sets it, missing and empty files are skipped, and --kubeconfig is one file
// that must exist.

import {rmSync, writeFileSync} from 'node:fs'
import {delimiter, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {deployment} from '../objects.js'
import {cliAsync, limiter, tempFiles} from './helpers.js'

const SLOW = {timeout: 120_000}
const slot = limiter(2)

let a: ApiServer
let b: ApiServer
let dir: string

interface Ctx {
  name: string
  cluster: string
  user?: string
  namespace?: string
}

function kubeconfig(o: {
  clusters?: Array<{name: string; server: string}>
  users?: Array<{name: string; token?: string}>
  contexts?: Ctx[]
  current?: string
}): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: (o.clusters ?? []).map((c) => ({
      name: c.name,
      cluster: {server: c.server, 'insecure-skip-tls-verify': true},
    })),
    users: (o.users ?? []).map((u) => ({name: u.name, user: u.token ? {token: u.token} : {}})),
    contexts: (o.contexts ?? []).map((c) => ({
      name: c.name,
      context: {cluster: c.cluster, user: c.user ?? 'u', ...(c.namespace ? {namespace: c.namespace} : {})},
    })),
    ...(o.current ? {'current-context': o.current} : {}),
  })
}

const path = (name: string) => join(dir, name)
const list = (...names: string[]) => names.map(path).join(delimiter)
const run = (args: string[], env: NodeJS.ProcessEnv) => slot(() => cliAsync(args, {env}))

beforeAll(async () => {
  ;[a, b] = await Promise.all([
    startApiServer({
      tls: true,
      requireToken: 'token-a',
      objects: [deployment({name: 'on-a', namespace: 'demo'})],
    }),
    startApiServer({
      tls: true,
      requireToken: 'token-b',
      objects: [deployment({name: 'on-b', namespace: 'demo'})],
    }),
  ])
  dir = tempFiles({
    // The case: a first file with clusters and contexts but no current-context.
    'other.kc': kubeconfig({
      clusters: [{name: 'other', server: b.url}],
      users: [{name: 'other', token: 'token-b'}],
      contexts: [{name: 'other', cluster: 'other', user: 'other'}],
    }),
    kubeconfig: kubeconfig({
      clusters: [{name: 'a', server: a.url}],
      users: [{name: 'u', token: 'token-a'}],
      contexts: [{name: 'a', cluster: 'a', namespace: 'demo'}],
      current: 'a',
    }),
    // Names the same cluster, user and context as `kubeconfig`, but pointing at b.
    'shadow.kc': kubeconfig({
      clusters: [{name: 'a', server: b.url}],
      users: [{name: 'u', token: 'token-b'}],
      contexts: [{name: 'a', cluster: 'a', namespace: 'demo'}],
      current: 'a',
    }),
    // The same user name with no token: first wins for the whole entry.
    'tokenless.kc': kubeconfig({users: [{name: 'u'}]}),
    // Sets only current-context, to a context another file defines.
    'pick-b.kc': kubeconfig({current: 'b'}),
    'b.kc': kubeconfig({
      clusters: [{name: 'b', server: b.url}],
      users: [{name: 'ub', token: 'token-b'}],
      contexts: [{name: 'b', cluster: 'b', user: 'ub', namespace: 'demo'}],
    }),
    empty: '',
  })
})

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()])
  if (dir) rmSync(dir, {recursive: true, force: true})
})

describe('KUBECONFIG with several files', () => {
  it(
    'the first file without a current-context does not hide the next one (the issue case)',
    SLOW,
    async () => {
      const r = await run(['explain', '-A', '--summary'], {KUBECONFIG: list('other.kc', 'kubeconfig')})
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(/^demo\/on-a\s/m)
      expect(r.stdout).not.toContain('on-b')
    },
  )

  it('current-context comes from the first file that sets it', SLOW, async () => {
    const r = await run(['dry-run', 'sync', '-o', 'name'], {
      KUBECONFIG: list('pick-b.kc', 'kubeconfig', 'b.kc'),
    })
    expect(r.stderr).toBe('')
    expect(r.stdout).toContain('on-b')
    expect(r.code).toBe(0)
  })

  it('the first file that names a cluster, user or context wins, for the whole entry', SLOW, async () => {
    const first = await run(['dry-run', 'sync', '-o', 'name'], {KUBECONFIG: list('kubeconfig', 'shadow.kc')})
    expect(first.stderr).toBe('')
    expect(first.stdout).toContain('on-a')
    const second = await run(['dry-run', 'sync', '-o', 'name'], {KUBECONFIG: list('shadow.kc', 'kubeconfig')})
    expect(second.stderr).toBe('')
    expect(second.stdout).toContain('on-b')
    // tokenless.kc's user u comes first: kubeconfig's token for u is not merged into it.
    const tokenless = await run(['dry-run', 'sync'], {KUBECONFIG: list('tokenless.kc', 'kubeconfig')})
    expect(tokenless.code).toBe(1)
    expect(tokenless.stderr).toMatch(/Unauthorized/)
  })

  it('missing and empty files and empty entries are skipped', SLOW, async () => {
    const r = await run(['dry-run', 'sync', '-o', 'name'], {
      KUBECONFIG: [path('missing.kc'), '', path('empty'), path('kubeconfig'), path('missing-too')].join(
        delimiter,
      ),
    })
    expect(r.stderr).toBe('')
    expect(r.stdout).toContain('on-a')
    expect(r.code).toBe(0)
  })
})

describe('--kubeconfig', () => {
  it('is one file, read alone, over $KUBECONFIG', SLOW, async () => {
    const r = await run(['dry-run', 'sync', '-o', 'name', '--kubeconfig', path('b.kc'), '--context', 'b'], {
      KUBECONFIG: path('kubeconfig'),
    })
    expect(r.stderr).toBe('')
    expect(r.stdout).toContain('on-b')
    // other.kc alone has no current-context: the files of $KUBECONFIG are not read.
    const other = await run(['dry-run', 'sync', '--kubeconfig', path('other.kc')], {
      KUBECONFIG: path('kubeconfig'),
    })
    expect(other.code).toBe(1)
    expect(other.stderr).toMatch(/^error: the kubeconfig has no current context/)
  })

  it('must exist', SLOW, async () => {
    const r = await run(['dry-run', 'sync', '--kubeconfig', path('missing.kc')], {
      KUBECONFIG: path('kubeconfig'),
    })
    expect(r.stderr).toBe(`error: stat ${path('missing.kc')}: no such file or directory\n`)
    expect(r.code).toBe(1)
  })
})

describe('a file that does not parse', () => {
  it("is kubectl's error loading config file, even when another file would do", SLOW, async () => {
    writeFileSync(path('broken.kc'), 'clusters: [\n')
    const r = await run(['dry-run', 'sync'], {KUBECONFIG: list('kubeconfig', 'broken.kc')})
    expect(r.stderr).toMatch(new RegExp(`^error: error loading config file "${path('broken.kc')}": `))
    expect(r.code).toBe(1)
  })
})
