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
