// `explain` against a cluster: the built CLI reads the test API server (Deployments, ReplicaSets,
// pods and Events), explains without writing anything, and lists the Warning events it found.

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import type {ExplainResult} from '../../src/explain/types.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cliAsync, ROOT} from './helpers.js'

function event(
  name: string,
  type: string,
  reason: string,
  kind: string,
  object: string,
  last: string,
  message: string,
) {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {name, namespace: 'demo'},
    involvedObject: {apiVersion: kind === 'Pod' ? 'v1' : 'apps/v1', kind, name: object, namespace: 'demo'},
    type,
    reason,
    message,
    count: 1,
    firstTimestamp: last,
    lastTimestamp: last,
    source: {component: 'kubelet'},
  }
}

let server: ApiServer
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  const list = parse(readFileSync(join(ROOT, 'examples/stuck-image-pull.yaml'), 'utf8')) as {items: unknown[]}
  const pod = 'api-6f64564f4d-blwqh'
  server = await startApiServer({
    objects: [
      ...list.items,
      event(
        'a.1',
        'Warning',
        'Failed',
        'Pod',
        pod,
        '2026-11-29T09:59:30Z',
        'Failed to pull image "registry.example.com/api:v2.1-typo": not found',
      ),
      event(
        'a.2',
        'Warning',
        'BackOff',
        'Pod',
        pod,
        '2026-11-29T09:59:50Z',
        'Back-off pulling image "registry.example.com/api:v2.1-typo"',
      ),
      event(
        'a.3',
        'Normal',
        'Scheduled',
        'Pod',
        pod,
        '2026-11-29T09:48:00Z',
        'Successfully assigned demo/api-6f64564f4d-blwqh to worker-1',
      ),
      event('b.1', 'Warning', 'BackOff', 'Pod', 'someone-else-1', '2026-11-29T09:59:59Z', 'not ours'),
    ],
  })
  env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
})

afterAll(async () => {
  await server?.close()
})

describe('explain on a live cluster', () => {
  it('reads Deployments, ReplicaSets, pods and events, and writes nothing', async () => {
    const r = await cliAsync(
      ['explain', 'deployment/api', '-n', 'demo', '--now', '2026-11-29T10:00:00Z', '-o', 'json'],
      {env},
    )
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const e = (JSON.parse(r.stdout) as ExplainResult).items[0]!
    expect(e.verdict).toMatchObject({code: 'DeadlineExceeded', reason: 'ImagePullBackOff'})
    expect(e.blockers.map((b) => b.code)).toEqual(['ErrImagePull', 'ImagePullBackOff'])
    expect(codes(e.deadEnds)).toEqual(['MaxUnavailableZeroStuck'])
    expect(e.events?.map((x) => [x.reason, x.object.name, x.lastSeen])).toEqual([
      ['BackOff', 'api-6f64564f4d-blwqh', '2026-11-29T09:59:50Z'],
      ['Failed', 'api-6f64564f4d-blwqh', '2026-11-29T09:59:30Z'],
    ])
    expect(e.next.actions.map((a) => `${a.verb} ${a.resource}/${a.subresource}`)).toEqual([
      'update deployments/status',
    ])
    expect(server.requests.filter((q) => q.method !== 'GET')).toEqual([])
    const paths = server.requests.map((q) => q.path)
    for (const kind of [
      'apis/apps/v1/namespaces/demo/deployments',
      'api/v1/namespaces/demo/pods',
      'api/v1/namespaces/demo/events',
    ]) {
      expect(paths).toContain(`/${kind}`)
    }
  })

  it('prints the Warning events in the text report', async () => {
    const r = await cliAsync(['explain', 'api', '-n', 'demo', '--now', '2026-11-29T10:00:00Z'], {
      env: {...env, COLUMNS: '100'},
    })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(
      'Warning events\n  3 of the 4 events read from the cluster concern this Deployment, its ReplicaSets or their pods (2\n  Warning, the newest at 2026-11-29T09:59:50Z).\n  Pod/api-6f64564f4d-blwqh:\n    10s  BackOff  Back-off pulling image "registry.example.com/api:v2.1-typo"\n    30s  Failed  Failed to pull image "registry.example.com/api:v2.1-typo": not found\n',
    )
  })
})

const codes = (list: Array<{code: string}>) => list.map((x) => x.code)
