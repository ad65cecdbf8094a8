// Issue 19, item 7: the blockers of the commonest stuck rollouts, through the built binary, on the
// examples (files) and on the test API server's moving cluster (live): the scheduler leaves a pod
// Unschedulable, the ReplicaSet controller is refused pods over a ResourceQuota, an autoscaler owns
// the Deployment's replicas, a pod terminates past its grace period. Every wait is for an eventual
// state with a generous deadline; no assertion depends on how long something took.

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import type {ExplainResult} from '../../src/explain/types.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cliAsync, ROOT} from './helpers.js'

type Obj = {kind?: string; metadata?: {name?: string}; [k: string]: unknown}

const servers: ApiServer[] = []

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

function example(file: string): Obj[] {
  return (parse(readFileSync(join(ROOT, 'examples', file), 'utf8'), {version: '1.1'}) as {items: Obj[]}).items
}

async function serve(objects: unknown[]): Promise<ApiServer> {
  const s = await startApiServer({objects, simulate: {podReadyAfterMs: 300, terminateAfterMs: 300}})
  servers.push(s)
  return s
}

function envOf(server: ApiServer): NodeJS.ProcessEnv {
  return {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir, COLUMNS: '80'}
}

async function eventually<T>(probe: () => T | undefined | false, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = probe()
    if (v !== undefined && v !== false) return v
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

async function explainJson(args: string[], env?: NodeJS.ProcessEnv) {
  const r = await cliAsync(['explain', ...args, '-o', 'json'], env ? {env} : {})
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  return (JSON.parse(r.stdout) as ExplainResult).items[0]!
}

/** Sets a field on the pod template of every Deployment and ReplicaSet of `items`. */
function withPodSpec(items: Obj[], field: string, value: unknown): Obj[] {
  return items.map((o) => {
    if (o.kind !== 'Deployment' && o.kind !== 'ReplicaSet') return o
    const copy = structuredClone(o) as {spec: {template: {spec: Record<string, unknown>}}}
    copy.spec.template.spec[field] = value
    return copy as unknown as Obj
  })
}

/** The Deployments' Progressing condition as if the controller had recorded progress just now. */
function progressedNow(items: Obj[]): Obj[] {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')
  return items.map((o) => {
    if (o.kind !== 'Deployment') return o
    const copy = structuredClone(o) as {status: {conditions: Array<Record<string, unknown>>}}
    for (const c of copy.status.conditions) if (c.type === 'Progressing') c.lastUpdateTime = now
    return copy as unknown as Obj
  })
}

describe('Unschedulable', () => {
  const file = 'unschedulable.yaml'
  const args = ['web', '-f', `examples/${file}`, '-n', 'demo', '--now', '2026-11-29T10:00:00Z']

  it('files: the scheduler message, the request behind it, and the FailedScheduling event', async () => {
    const e = await explainJson(args)
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'Unschedulable'})
    expect(e.blockers).toEqual([
      expect.objectContaining({
        code: 'Unschedulable',
        hard: true,
        object: {kind: 'Pod', name: 'web-8655456779-x7k2p'},
        container: 'web',
        since: '2026-11-29T09:55:00Z',
        message:
          'cannot be scheduled: 0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod. It requests cpu 4 (container web).',
      }),
    ])
    expect(e.events?.map((x) => [x.reason, x.count])).toEqual([['FailedScheduling', 6]])
    const text = await cliAsync(['explain', ...args], {env: {COLUMNS: '80'}})
    const screen = text.stdout.split('\n').slice(0, 24).join('\n')
    expect(screen).toContain('Verdict: Stalled (Unschedulable)')
    expect(screen).toContain('It requests cpu 4 (container')
    expect(screen).toContain('resources.requests.cpu: 250m -> 4')
  })

  it('rollout watch -f: the simulator keeps the refused template Unschedulable, so the deadline passes', async () => {
    const r = await cliAsync(['rollout', 'watch', ...args, '-o', 'json'])
    const lines = r.stdout.trim().split('\n')
    expect(JSON.parse(lines.at(-1) ?? '{}')).toMatchObject({
      kind: 'Summary',
      outcome: 'deadlineExceeded',
      end: '2026-11-29T10:05:01Z',
      complete: false,
    })
  })

  it('live: the simulated scheduler leaves a pod whose nodeSelector no node matches Unschedulable', async () => {
    const items = withPodSpec(
      progressedNow(example(file)).filter(
        (o) => o.kind !== 'Event' && o.metadata?.name !== 'web-8655456779-x7k2p',
      ),
      'nodeSelector',
      {disktype: 'ssd'},
    )
    const server = await serve(items)
    const message =
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    await eventually(
      () =>
        server.store
          .list('events', 'demo')
          .some((x) => x.reason === 'FailedScheduling' && x.message === message),
      'a FailedScheduling event',
    )
    const e = await explainJson(['web', '-n', 'demo'], envOf(server))
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'Unschedulable'})
    expect(e.blockers.map((b) => [b.code, b.object.kind, b.message])).toEqual([
      ['Unschedulable', 'Pod', `cannot be scheduled: ${message}`],
    ])
    expect(e.events?.map((x) => [x.reason, x.object.kind, x.message])).toEqual([
      ['FailedScheduling', 'Pod', message],
    ])
    expect(server.requests.filter((q) => q.method !== 'GET')).toEqual([])
  })
})

/** The objects without their ReplicaFailure conditions (the ReplicaSet's, and the Deployment's copy). */
function withoutReplicaFailure(items: Obj[]): Obj[] {
  return items.map((o) => {
    if (o.kind !== 'ReplicaSet' && o.kind !== 'Deployment') return o
    const copy = structuredClone(o) as {status: {conditions?: Array<{type: string}>}}
    copy.status.conditions = copy.status.conditions?.filter((c) => c.type !== 'ReplicaFailure')
    return copy as unknown as Obj
  })
}

describe('FailedCreate and ReplicaFailure', () => {
  const file = 'quota-exceeded.yaml'
  const args = ['checkout', '-n', 'demo', '--now', '2026-11-29T10:00:00Z']
  const fromFile = (f: string) => [...args, '-f', f]
  const refused =
    'pods "checkout-567db7bc9f-w9fxq" is forbidden: exceeded quota: compute, requested: cpu=500m, used: cpu=2, limited: cpu=2'

  it('files: the ReplicaFailure condition with the quota message; the ResourceQuota is read without a note', async () => {
    const e = await explainJson(fromFile(`examples/${file}`))
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'ReplicaFailure'})
    expect(e.blockers).toEqual([
      expect.objectContaining({
        code: 'ReplicaFailure',
        hard: true,
        object: {kind: 'ReplicaSet', name: 'checkout-567db7bc9f'},
        message: `cannot create pods: FailedCreate: ${refused}`,
        since: '2026-11-29T09:56:00Z',
      }),
    ])
    expect(e.deadEnds.map((d) => d.code)).toEqual(['MaxUnavailableZeroStuck', 'QuotaOrFailedCreate'])
    const text = await cliAsync(['explain', ...fromFile(`examples/${file}`)], {env: {COLUMNS: '80'}})
    expect(text.stderr).toBe('')
    const screen = text.stdout.split('\n').slice(0, 24).join('\n')
    expect(screen).toContain('Verdict: Stalled (ReplicaFailure)')
    expect(screen).toContain('exceeded\n  quota: compute, requested: cpu=500m, used: cpu=2, limited: cpu=2.')
  })

  it('files: without the condition, the FailedCreate events of a ReplicaSet that lacks pods say it', async () => {
    const items = withoutReplicaFailure(example(file))
    const input = JSON.stringify({apiVersion: 'v1', kind: 'List', items})
    const r = await cliAsync(['explain', ...fromFile('-'), '-o', 'json'], {input})
    expect(r.stderr).toBe('')
    const e = (JSON.parse(r.stdout) as ExplainResult).items[0]!
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'FailedCreate'})
    expect(e.blockers).toEqual([
      expect.objectContaining({
        code: 'FailedCreate',
        hard: true,
        object: {kind: 'ReplicaSet', name: 'checkout-567db7bc9f'},
        message: `cannot create pods: ${refused.replace('w9fxq', 'fj2lt')} (FailedCreate event x9, last at 2026-11-29T09:59:12Z)`,
        since: '2026-11-29T09:56:00Z',
      }),
    ])
    expect(e.deadEnds.map((d) => d.code)).toContain('QuotaOrFailedCreate')
    // A ReplicaSet that has all its pods: the same events are history.
    const complete = items.map((o) =>
      o.kind === 'ReplicaSet' && o.metadata?.name === 'checkout-567db7bc9f'
        ? ({...o, spec: {...(o.spec as object), replicas: 0}} as Obj)
        : o,
    )
    const r2 = await cliAsync(['explain', ...fromFile('-'), '-o', 'json'], {
      input: JSON.stringify({apiVersion: 'v1', kind: 'List', items: complete}),
    })
    const e2 = (JSON.parse(r2.stdout) as ExplainResult).items[0]!
    expect(e2.blockers.map((b) => b.code)).not.toContain('FailedCreate')
  })

  it('rollout watch -f: the simulated API server refuses the surge pod over the quota, so the deadline passes', async () => {
    const r = await cliAsync(['rollout', 'watch', ...fromFile(`examples/${file}`), '-o', 'json'])
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {kind?: string; events?: Array<{reason: string; message: string}>})
    expect(lines.at(-1)).toMatchObject({kind: 'Summary', outcome: 'deadlineExceeded', complete: false})
    const refused = lines.flatMap((l) => l.events ?? []).find((e) => e.reason === 'FailedCreate')
    expect(refused?.message).toMatch(
      /^Error creating: pods "checkout-567db7bc9f-[a-z0-9]{5}" is forbidden: exceeded quota: compute, requested: cpu=500m, used: cpu=2, limited: cpu=2$/,
    )
  })

  it('live: the API server refuses pods over the quota and the ReplicaSet controller records it', async () => {
    const items = withoutReplicaFailure(progressedNow(example(file))).filter((o) => o.kind !== 'Event')
    const server = await serve(items)
    const rs = await eventually(() => {
      const o = server.store.get('replicasets', 'demo', 'checkout-567db7bc9f') as
        | {status?: {conditions?: Array<{type: string; message?: string}>}}
        | undefined
      return o?.status?.conditions?.find((c) => c.type === 'ReplicaFailure')
    }, 'the ReplicaFailure condition')
    expect(rs.message).toMatch(
      /^pods "checkout-567db7bc9f-[a-z0-9]{5}" is forbidden: exceeded quota: compute, requested: cpu=500m, used: cpu=2, limited: cpu=2$/,
    )
    const e = await explainJson(args.slice(0, 3), envOf(server))
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'ReplicaFailure'})
    expect(e.blockers.map((b) => [b.code, b.object.name, b.message])).toEqual([
      ['ReplicaFailure', 'checkout-567db7bc9f', `cannot create pods: FailedCreate: ${rs.message}`],
    ])
    const failed = e.events?.filter((x) => x.reason === 'FailedCreate') ?? []
    expect(failed.length).toBeGreaterThan(0)
    expect(failed[0]?.message).toMatch(
      /^Error creating: pods "checkout-567db7bc9f-[a-z0-9]{5}" is forbidden: exceeded quota: compute/,
    )
    expect(server.requests.filter((q) => q.method !== 'GET')).toEqual([])
  })
})

describe('HorizontalPodAutoscaler', () => {
  const file = 'autoscaler-rollout.yaml'
  const args = ['frontend', '-n', 'demo', '--now', '2026-11-29T10:00:00Z']

  function expectAutoscaler(e: ExplainResult['items'][number]) {
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'ProportionalScaling'})
    expect(e.autoscaler).toMatchObject({
      name: 'frontend',
      apiVersion: 'autoscaling/v2',
      minReplicas: 4,
      maxReplicas: 20,
      currentReplicas: 8,
      desiredReplicas: 12,
      lastScaleTime: '2026-11-29T09:59:30Z',
      metrics: ['cpu 100% of requests (target 70%)'],
      others: [],
    })
    expect(e.autoscaler?.message).toContain('HorizontalPodAutoscaler frontend owns spec.replicas (12)')
    const fight = e.deadEnds.find((d) => d.code === 'AutoscalerFightsRollout')
    expect(fight?.objects).toEqual(['HorizontalPodAutoscaler/frontend', 'Deployment/frontend'])
    expect(fight?.message).toContain('(10 now, maxSurge 3; 2 of the new ReplicaSet')
    expect(fight?.message).toContain('(this pass: frontend-65bf845d77 6 → 9, frontend-5ff97b9db5 4 → 6)')
  }

  it('files: min/max/current/desired, the owner of spec.replicas, and the surge it counts', async () => {
    expectAutoscaler(await explainJson([...args, '-f', `examples/${file}`]))
    const text = await cliAsync(['explain', ...args, '-f', `examples/${file}`], {env: {COLUMNS: '80'}})
    expect(text.stderr).toBe('')
    const screen = text.stdout.split('\n').slice(0, 24).join('\n')
    expect(screen).toContain(
      'Autoscaler\n  HorizontalPodAutoscaler frontend owns spec.replicas (12): min 4, max 20,',
    )
    expect(screen).toContain('(dead end AutoscalerFightsRollout)')
  })

  it('files: an autoscaler of another Deployment, or no rollout under way, changes nothing', async () => {
    const items = example(file).map((o) =>
      o.kind === 'HorizontalPodAutoscaler'
        ? ({
            ...o,
            spec: {
              ...(o.spec as object),
              scaleTargetRef: {apiVersion: 'apps/v1', kind: 'Deployment', name: 'other'},
            },
          } as Obj)
        : o,
    )
    const r = await cliAsync(['explain', ...args, '-f', '-', '-o', 'json'], {
      input: JSON.stringify({apiVersion: 'v1', kind: 'List', items}),
    })
    const e = (JSON.parse(r.stdout) as ExplainResult).items[0]!
    expect(e.autoscaler).toBeNull()
    expect(e.deadEnds.map((d) => d.code)).not.toContain('AutoscalerFightsRollout')
    const steady = await explainJson([
      'web',
      '-n',
      'demo',
      '--now',
      '2026-11-29T10:00:00Z',
      '-f',
      'examples/steady.yaml',
    ])
    expect(steady.autoscaler).toBeNull()
  })

  it('live: the autoscalers of the namespace are listed (read-only) and read as from files', async () => {
    const server = await startApiServer({objects: example(file)})
    servers.push(server)
    expectAutoscaler(await explainJson(args, envOf(server)))
    expect(server.requests.filter((q) => q.method !== 'GET')).toEqual([])
    expect(server.requests.map((q) => q.path)).toContain(
      '/apis/autoscaling/v2/namespaces/demo/horizontalpodautoscalers',
    )
  })
})

describe('TerminatingPastGrace', () => {
  const file = 'stuck-terminating.yaml'
  const pod = 'ledger-6854b65659-r7c2k'

  it('files: a pod a grace period past its deletion, with its finalizer named, holds Recreate', async () => {
    const args = ['ledger', '-n', 'demo', '--now', '2026-11-29T10:00:00Z', '-f', `examples/${file}`]
    const e = await explainJson(args)
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'TerminatingPastGrace'})
    expect(e.blockers).toEqual([
      expect.objectContaining({
        code: 'TerminatingPastGrace',
        hard: false,
        object: {kind: 'Pod', name: pod},
        replicaSet: 'ledger-6854b65659',
        since: '2026-11-29T09:51:00Z',
        message:
          'still terminating 9m30s after its deletion was due (2026-11-29T09:50:30Z, grace period 30s; stuck since 2026-11-29T09:51:00Z): finalizer ledger.example.com/flush-journal still holds it: whatever owns it has not removed it',
      }),
    ])
    // Within the grace period after the deletion was due, it is only Terminating.
    const early = await explainJson([...args.slice(0, 3), '--now', '2026-11-29T09:51:00Z', ...args.slice(5)])
    expect(early.blockers.map((b) => b.code)).toEqual(['Terminating'])
    expect(early.verdict).toMatchObject({code: 'Progressing', reason: 'OldPodsTerminating'})
    const text = await cliAsync(['explain', ...args], {env: {COLUMNS: '80'}})
    const screen = text.stdout.split('\n').slice(0, 24).join('\n')
    expect(screen).toContain('Verdict: Stalled (TerminatingPastGrace)')
    expect(screen).toContain('finalizer ledger.example.com/flush-journal')
  })

  it('live: a pod on a node whose kubelet does not run stays terminating after the ReplicaSet controller deletes it', async () => {
    const items = example(file).map((o) => {
      if (o.kind !== 'Pod') return o
      const copy = structuredClone(o) as {metadata: Record<string, unknown>}
      delete copy.metadata.deletionTimestamp
      delete copy.metadata.deletionGracePeriodSeconds
      return copy as unknown as Obj
    })
    const server = await startApiServer({
      objects: items,
      simulate: {podReadyAfterMs: 300, terminateAfterMs: 300, nodesWithoutKubelet: ['worker-2']},
    })
    servers.push(server)
    const deleted = await eventually(() => {
      const p = server.store.get('pods', 'demo', pod) as {metadata: {deletionTimestamp?: string}} | undefined
      return p?.metadata.deletionTimestamp
    }, 'the ReplicaSet controller to delete the old pod')
    // The clock 90 s after the deletion was due: more than its grace period (30 s) overdue.
    const later = new Date(Date.parse(deleted) + 90_000).toISOString().replace(/\.\d{3}Z$/, 'Z')
    const e = await explainJson(['ledger', '-n', 'demo', '--now', later], envOf(server))
    expect(e.verdict).toMatchObject({code: 'Stalled', reason: 'TerminatingPastGrace'})
    expect(e.blockers.map((b) => [b.code, b.object.name])).toEqual([['TerminatingPastGrace', pod]])
    expect(e.blockers[0]?.message).toMatch(
      new RegExp(
        `^still terminating 90s after its deletion was due \\(${deleted}, grace period 30s; stuck since [0-9TZ:-]+\\): finalizer ledger.example.com/flush-journal still holds it`,
      ),
    )
    expect(server.requests.filter((q) => q.method !== 'GET')).toEqual([])
  })
})
