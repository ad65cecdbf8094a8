// Hostile clusters and hostile input (issue 20), through the built binary: refused writes reach the
// exit code, every attempt's writes are reported. Each case has its own namespace of one shared
// test API server, so the cases run concurrently and the faults of one never touch another.

import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {SyncResult} from '../../src/pass/result.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {deployment, replicaSet} from '../objects.js'
import {cliAsync, limiter, startCli} from './helpers.js'

const SLOW = {timeout: 300_000}
const slot = limiter(3)
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => slot(() => cliAsync(args, {env}))

/**
 * A rolling update one pass into its scale-down: web (4 replicas, maxSurge 0, maxUnavailable 1) has
 * a new template and an old ReplicaSet with 4 available pods. The pass creates the new ReplicaSet at
 * 0 and scales the old one 4 → 3.
 */
function midRollout(namespace: string) {
  const d = deployment({
    namespace,
    replicas: 4,
    image: 'nginx:1.28',
    metadata: {
      uid: `uid-${namespace}-web`,
      generation: 2,
      annotations: {'deployment.kubernetes.io/revision': '1'},
    },
    spec: {
      strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: 0, maxUnavailable: 1}},
      progressDeadlineSeconds: 600,
      revisionHistoryLimit: 10,
    },
  })
  const old = replicaSet({
    name: 'web-old',
    namespace,
    owner: d,
    replicas: 4,
    labels: {app: 'web', 'pod-template-hash': 'old'},
    metadata: {uid: `uid-${namespace}-web-old`, annotations: {'deployment.kubernetes.io/revision': '1'}},
    status: {
      replicas: 4,
      readyReplicas: 4,
      availableReplicas: 4,
      fullyLabeledReplicas: 4,
      observedGeneration: 1,
    },
  })
  old.spec.template = {
    metadata: {labels: {app: 'web', 'pod-template-hash': 'old'}},
    spec: {containers: [{name: 'app', image: 'nginx:1.27'}]},
  }
  return [d, old]
}

const FORMATS = ['table', 'json', 'yaml', 'name'] as const

let server: ApiServer
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  server = await startApiServer({
    objects: [
      ...FORMATS.flatMap((f) => midRollout(`scale-down-${f}`)),
      ...midRollout('scale-down-dry'),
      ...midRollout('scale-down-gated'),
      deployment({namespace: 'retries'}),
    ],
  })
  env = {KUBECONFIG: server.kubeconfigPath}
})

afterAll(async () => {
  await server?.close()
})

describe.concurrent('a refused write reaches the exit code and stderr', SLOW, () => {
  it.each(FORMATS)(
    '-o %s: the old ReplicaSet scale-down refused (upstream goes on): exit 1',
    async (format) => {
      const ns = `scale-down-${format}`
      server.faults.fail(
        {namespace: ns, resource: 'replicasets', name: 'web-old', method: ['PUT', 'PATCH']},
        500,
        {
          message: 'etcd is down',
        },
      )
      const r = await cli(['reconcile-once', '-n', ns, '--no-record-events', '-o', format], env)
      expect(r.stderr).toMatch(
        new RegExp(
          `^error: sync of deployment ${ns}/web: a write was refused: (update|patch) replicasets web-old: Internal error occurred: etcd is down\\n$`,
        ),
      )
      expect(r.code).toBe(1)
      // The controller went on after it, as upstream does: the status write was made.
      expect(server.store.get('replicasets', ns, 'web-old')).toMatchObject({spec: {replicas: 4}})
      if (format === 'json') {
        const actions = (JSON.parse(r.stdout) as SyncResult).items[0]!.actions
        expect(actions.filter((a) => a.outcome === 'failed').map((a) => a.name)).toEqual(['web-old'])
        expect(actions.some((a) => a.subresource === 'status' && a.outcome === 'succeeded')).toBe(true)
      }
    },
  )

  it('--exit-code: a refused write is an error, 2 (1 means "wrote something"), said the same way', async () => {
    const ns = 'scale-down-gated'
    server.faults.fail(
      {namespace: ns, resource: 'replicasets', name: 'web-old', method: ['PUT', 'PATCH']},
      500,
      {message: 'etcd is down'},
    )
    const r = await cli(['reconcile-once', '-n', ns, '--no-record-events', '-o', 'name', '--exit-code'], env)
    expect(r.stderr).toMatch(
      /^error: sync of deployment scale-down-gated\/web: a write was refused: (update|patch) replicasets web-old: Internal error occurred: etcd is down\n$/,
    )
    // The pass did write (the new ReplicaSet, the status): the refusal still wins.
    expect(server.store.list('replicasets', ns)).toHaveLength(2)
    expect(r.code).toBe(2)
  })

  it('--dry-run=server: a refused write exits 1 too', async () => {
    const ns = 'scale-down-dry'
    server.faults.fail(
      {namespace: ns, resource: 'replicasets', name: 'web-old', method: ['PUT', 'PATCH']},
      403,
    )
    const r = await cli(
      ['reconcile-once', '-n', ns, '--dry-run=server', '--no-record-events', '-o', 'json'],
      env,
    )
    expect(r.stderr).toMatch(
      /^error: sync of deployment scale-down-dry\/web: a write was refused: .* is forbidden: /,
    )
    expect(r.code).toBe(1)
  })
})

describe('--retries reports every write of every attempt', SLOW, () => {
  it('a conflict on the first status write: both attempts, each write with its attempt', async () => {
    const ns = 'retries'
    server.faults.fail({namespace: ns, method: 'PUT', path: /\/deployments\/web\/status$/}, 409)
    const r = await cli(
      ['reconcile-once', '-n', ns, '--retries', '2', '--no-record-events', '-o', 'json'],
      env,
    )
    expect(r.code).toBe(0)
    const [item] = (JSON.parse(r.stdout) as SyncResult).items
    expect(item!.attempts).toBe(2)
    const actions = item!.actions
    // Every write the server saw is reported, in order, with its attempt.
    const sent = server.requests.filter((q) => q.namespace === ns && q.method !== 'GET')
    expect(
      actions.map((a) => `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.attempt}`),
    ).toEqual([
      'create replicasets 1',
      'update deployments/status 1',
      ...actions.slice(2).map((a) => `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} 2`),
    ])
    expect(actions.filter((a) => a.outcome !== 'skipped')).toHaveLength(sent.length)
    expect(actions[1]!.outcome).toBe('failed')
    const table = await cli(['reconcile-once', '-n', ns, '--no-record-events'], env)
    expect(table.code).toBe(0)
  })
})

/** Starts the CLI without waiting for it: a test can signal it, then await its end. */

async function until(probe: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (probe()) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe.concurrent('deadlines', SLOW, () => {
  let server: ApiServer
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    server = await startApiServer({
      objects: ['slow-body-dry', 'slow-body-reconcile', 'hung-run', 'long-watch', 'long-request'].map(
        (namespace) => deployment({namespace}),
      ),
    })
    env = {KUBECONFIG: server.kubeconfigPath}
  }, 120_000)
  afterAll(async () => {
    await server?.close()
  })

  it.each([['dry-run', 'sync'], ['reconcile-once']])(
    '--request-timeout bounds the whole request: a body sent a byte every 300 ms (%s)',
    async (...command) => {
      const ns = command[0] === 'dry-run' ? 'slow-body-dry' : 'slow-body-reconcile'
      server.faults.add({
        namespace: ns,
        verb: 'list',
        resource: 'deployments',
        trickleMs: 300,
        times: Infinity,
      })
      const r = await cli([...command, '-n', ns, '--request-timeout', '2s'], env)
      expect(r.stderr).toMatch(
        /^Unable to connect to the server: the server at 127\.0\.0\.1:\d+ did not answer within the request timeout \(2s\)\n$/,
      )
      expect(r.code).toBe(1)
    },
  )

  it('run: the first SIGINT with a hung request exits promptly', async () => {
    const ns = 'hung-run'
    server.faults.add({
      namespace: ns,
      verb: 'list',
      resource: 'deployments',
      delayMs: 120_000,
      times: Infinity,
    })
    const run = startCli(['run', '-n', ns, '--force', '--request-timeout', '0'], {env})
    await until(
      () => server.requests.some((q) => q.namespace === ns && q.resource === 'deployments'),
      'the list',
    )
    run.child.kill('SIGINT')
    const r = await run.done
    // Not killed by the test's 60 s guard: the process ended on its own after the grace period.
    expect(r.signal).toBeNull()
    expect(r.stderr).toContain('SIGINT received')
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('stopped before its caches synced')
  })

  it('run --help names the default request timeout', async () => {
    const r = await cli(['run', '--help'])
    expect(r.stdout).toMatch(/Default 30s\s+for\s+run/)
  })

  it('rollout watch --timeout 600h waits (no TimeoutOverflowWarning, no early timeout)', async () => {
    const watch = startCli(
      ['rollout', 'watch', 'web', '-n', 'long-watch', '--line-mode', '--timeout', '600h'],
      {env},
    )
    await until(
      () => server.requests.some((q) => q.namespace === 'long-watch' && q.verb === 'watch'),
      'the watch',
    )
    await new Promise((r) => setTimeout(r, 1500))
    watch.child.kill('SIGINT')
    const r = await watch.done
    expect(r.stderr).not.toContain('TimeoutOverflowWarning')
    expect(r.stdout).not.toContain('timed out')
    expect(r.code).toBe(130)
  })

  it('--request-timeout 600h: no TimeoutOverflowWarning; past Go duration range: a usage error', async () => {
    const [long, huge] = await Promise.all([
      cli(['dry-run', 'sync', '-n', 'long-request', '--request-timeout', '600h'], env),
      cli(['rollout', 'watch', 'web', '-n', 'long-request', '--timeout', '3000000h'], env),
    ])
    expect(long.stderr).toBe('')
    expect(long.code).toBe(0)
    expect(huge.stderr).toMatch(/^error: invalid --timeout "3000000h"/)
    expect(huge.code).toBe(2)
  })
})

describe.concurrent('bounded memory', SLOW, () => {
  let server: ApiServer
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    server = await startApiServer({
      objects: ['big-body', 'same-token', 'fresh-tokens', 'not-a-list'].map((namespace) =>
        deployment({namespace}),
      ),
    })
    env = {KUBECONFIG: server.kubeconfigPath}
  }, 120_000)
  afterAll(async () => {
    await server?.close()
  })

  it('a response past DEPLOYCTL_MAX_RESPONSE_BYTES: one clear line, counted as it streams', async () => {
    server.faults.add({
      namespace: 'big-body',
      verb: 'list',
      resource: 'deployments',
      padBytes: 50 * 1024 * 1024,
    })
    const r = await cli(['dry-run', 'sync', '-n', 'big-body'], {
      ...env,
      DEPLOYCTL_MAX_RESPONSE_BYTES: '1000000',
    })
    expect(r.stderr).toBe(
      "error: the server's answer to GET /apis/apps/v1/namespaces/big-body/deployments is larger than 1000000 bytes (" +
        r.stderr.split('(')[1]!.split(' ')[0] +
        ' so far): raise DEPLOYCTL_MAX_RESPONSE_BYTES, or narrow the request with -n or -l\n',
    )
    expect(r.code).toBe(1)
    const bad = await cli(['dry-run', 'sync', '-n', 'big-body'], {
      ...env,
      DEPLOYCTL_MAX_RESPONSE_BYTES: 'lots',
    })
    expect(bad.stderr).toMatch(
      /^error: invalid DEPLOYCTL_MAX_RESPONSE_BYTES "lots": want a whole number of bytes/,
    )
    expect(bad.code).toBe(1)
  })

  it('a continue token that comes back, or never ends: an error, not a loop', async () => {
    server.faults.add({
      namespace: 'same-token',
      verb: 'list',
      resource: 'deployments',
      continueToken: 'again',
      times: Infinity,
    })
    server.faults.add({
      namespace: 'fresh-tokens',
      verb: 'list',
      resource: 'deployments',
      continueToken: 'fresh',
      times: Infinity,
    })
    const [same, fresh] = await Promise.all([
      cli(['dry-run', 'sync', '-n', 'same-token'], env),
      cli(['dry-run', 'sync', '-n', 'fresh-tokens'], env),
    ])
    expect(same.stderr).toBe(
      "error: the server's list of deployments does not end: it answered the same continue token twice\n",
    )
    expect(same.code).toBe(1)
    expect(fresh.stderr).toBe(
      "error: the server's list of deployments does not end: a page after a continue token repeats objects it already listed\n",
    )
    expect(fresh.code).toBe(1)
  })

  it('--concurrent-deployment-syncs past 1000: a usage error, before any work', async () => {
    for (const command of [['reconcile-once'], ['run']]) {
      const r = await cli([...command, '-n', 'not-a-list', '--concurrent-deployment-syncs', '100000000'], env)
      expect(r.stderr).toMatch(
        /^error: --concurrent-deployment-syncs: Expected an integer less than or equal to 1000/,
      )
      expect(r.code).toBe(2)
    }
  })
})

describe.concurrent("answers and credentials that cannot be used: said in the tool's words", SLOW, () => {
  let server: ApiServer
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    server = await startApiServer({
      objects: [
        'a-number',
        'an-item-number',
        'an-item-without-spec',
        'a-bad-watch-event',
        'replicas-three',
        'replicas-negative',
        'a-deployment-list',
        'a-watch-event-of-three',
      ].map((namespace) => deployment({namespace})),
      faults: [
        {namespace: 'a-number', verb: 'list', resource: 'deployments', body: 42, times: Infinity},
        {
          namespace: 'an-item-number',
          verb: 'list',
          resource: 'replicasets',
          body: {items: [1]},
          times: Infinity,
        },
        {
          namespace: 'an-item-without-spec',
          verb: 'list',
          resource: 'deployments',
          body: {items: [{metadata: {name: 'web', namespace: 'an-item-without-spec'}}]},
          times: Infinity,
        },
        // issue 28: garbage a real API server never stores is an error naming the object and field.
        ...(['replicas-three', 'replicas-negative'] as const).map((namespace) => {
          const d = deployment({namespace, defaulted: true})
          const replicas: unknown = namespace === 'replicas-three' ? 'three' : -4
          return {
            namespace,
            verb: 'list' as const,
            resource: 'deployments',
            body: {
              kind: 'DeploymentList',
              apiVersion: 'apps/v1',
              items: [{...d, spec: {...d.spec, replicas}}],
            },
            times: Infinity,
          }
        }),
        {
          namespace: 'a-deployment-list',
          verb: 'list',
          resource: 'replicasets',
          body: {kind: 'DeploymentList', apiVersion: 'apps/v1', metadata: {}, items: []},
          times: Infinity,
        },
        {
          namespace: 'a-watch-event-of-three',
          verb: 'watch',
          resource: 'deployments',
          body: {
            type: 'MODIFIED',
            object: (() => {
              const d = deployment({namespace: 'a-watch-event-of-three', defaulted: true})
              return {...d, spec: {...d.spec, replicas: 'three'}}
            })(),
          },
        },
        {
          namespace: 'a-bad-watch-event',
          verb: 'watch',
          resource: 'deployments',
          body: {type: 'MODIFIED', object: 1},
        },
      ],
    })
    env = {KUBECONFIG: server.kubeconfigPath}
  }, 120_000)
  afterAll(async () => {
    await server?.close()
  })

  it('a 200 answer that is not a list, or holds what is not an object: an error, not an empty list', async () => {
    const [number, item, noSpec] = await Promise.all(
      ['a-number', 'an-item-number', 'an-item-without-spec'].map((ns) =>
        cli(['dry-run', 'sync', '-n', ns], env),
      ),
    )
    expect(number.stderr).toBe(
      "error: the server's answer to GET /apis/apps/v1/namespaces/a-number/deployments is not a list of deployments\n",
    )
    expect(number.code).toBe(1)
    expect(item.stderr).toBe(
      "error: the server's answer to GET /apis/apps/v1/namespaces/an-item-number/replicasets is not a list of replicasets: items[0]: Invalid value: 1: expected an object\n",
    )
    expect(item.code).toBe(1)
    expect(noSpec.stderr).toBe(
      'error: the server\'s answer to GET /apis/apps/v1/namespaces/an-item-without-spec/deployments holds deployments.apps "web" in namespace "an-item-without-spec", which no API server stores: spec: Required value\n',
    )
    expect(noSpec.code).toBe(1)
  })

  it('a served Deployment with replicas "three" or -4, a DeploymentList for ReplicaSets: exit 1 naming object and field (issue 28)', async () => {
    const [three, negative, list] = await Promise.all(
      ['replicas-three', 'replicas-negative', 'a-deployment-list'].map((ns) =>
        cli(['dry-run', 'sync', '-n', ns], env),
      ),
    )
    expect(three.stderr).toBe(
      'error: the server\'s answer to GET /apis/apps/v1/namespaces/replicas-three/deployments holds deployments.apps "web" in namespace "replicas-three", which no API server stores: spec.replicas: Invalid value: "three": expected an integer\n',
    )
    expect(three.code).toBe(1)
    expect(negative.stderr).toBe(
      'error: the server\'s answer to GET /apis/apps/v1/namespaces/replicas-negative/deployments holds deployments.apps "web" in namespace "replicas-negative", which no API server stores: spec.replicas: Invalid value: -4: must be greater than or equal to 0\n',
    )
    expect(negative.code).toBe(1)
    expect(list.stderr).toBe(
      "error: the server's answer to GET /apis/apps/v1/namespaces/a-deployment-list/replicasets is not a list of replicasets: it is a DeploymentList of apps/v1, not a ReplicaSetList of apps/v1\n",
    )
    expect(list.code).toBe(1)
  })

  it('a watch event whose Deployment has replicas "three": the watch starts over, naming the object and field (issue 28)', async () => {
    const r = await cli(['rollout', 'watch', 'web', '-n', 'a-watch-event-of-three', '--timeout', '2s'], env)
    expect(r.stderr).toContain(
      'warning: watch of deployments failed: the server sent a watch event of deployments that cannot be used: deployments.apps "web" in namespace "a-watch-event-of-three", which no API server stores: spec.replicas: Invalid value: "three": expected an integer; retrying in',
    )
    expect(r.code).toBe(1)
  })

  it('a watch event that is not an object of its kind: a warning, the watch starts over, no stack trace', async () => {
    const r = await cli(['rollout', 'watch', 'web', '-n', 'a-bad-watch-event', '--timeout', '2s'], env)
    expect(r.stderr).toBe(
      'warning: watch of deployments failed: the server sent a watch event of deployments that cannot be used: object: Invalid value: 1: expected an object; retrying in 800 ms\n' +
        'error: timed out waiting for the condition: deployment "web" rollout did not finish within 2s\n',
    )
    expect(r.code).toBe(1)
  })

  it("a client key, certificate or CA that is not PEM: the kubeconfig field is named, not OpenSSL's code", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deployctl-tls-'))
    try {
      const b64 = (s: string) => Buffer.from(s).toString('base64')
      const kubeconfig = (cluster: string, user: string) => {
        const path = join(dir, `${cluster.length}-${user.length}.yaml`)
        writeFileSync(
          path,
          `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:9", ${cluster}}
users:
- name: u
  user: {${user}}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`,
        )
        return path
      }
      const notPem = b64('not a key')
      const cases = [
        {
          file: kubeconfig(
            'insecure-skip-tls-verify: true',
            `client-certificate-data: ${notPem}, client-key-data: ${notPem}`,
          ),
          error: `the kubeconfig's user "u": client-key-data is not a PEM-encoded private key (tls: failed to find any PEM data in key input)`,
        },
        {
          file: kubeconfig(`certificate-authority-data: ${notPem}`, 'token: t'),
          error: `the kubeconfig's cluster "c": certificate-authority-data holds no PEM-encoded certificate (unable to load root certificates)`,
        },
      ]
      for (const c of cases) {
        const r = await cli(['dry-run', 'sync', '--kubeconfig', c.file])
        expect(r.stderr).toBe(`error: ${c.error}\n`)
        expect(r.code).toBe(1)
      }
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
