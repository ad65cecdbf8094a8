// The start-up check of `run` against the test API server: which events and Leases count as another
// Deployment controller at work.

import {afterEach, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/cluster/live/api.js'
import {connect} from '../../src/cluster/live/kubeconfig.js'
import {detectOtherController} from '../../src/run/preflight.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'

const NOW = Date.parse('2026-11-29T10:00:00Z')
const at = (msAgo: number) => new Date(NOW - msAgo).toISOString().replace(/\.\d+Z$/, 'Z')

function event(
  name: string,
  o: {ago: number; instance?: string; component?: string; reason?: string; ns?: string},
) {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {name, namespace: o.ns ?? 'default'},
    involvedObject: {kind: 'Deployment', namespace: o.ns ?? 'default', name: 'web'},
    reason: o.reason ?? 'ScalingReplicaSet',
    message: 'Scaled up replica set web-1 from 0 to 1',
    source: {component: o.component ?? 'deployment-controller'},
    reportingComponent: o.component ?? 'deployment-controller',
    reportingInstance: o.instance ?? '',
    type: 'Normal',
    lastTimestamp: at(o.ago),
  }
}

function lease(spec: Record<string, unknown>) {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {name: 'kube-controller-manager', namespace: 'kube-system'},
    spec,
  }
}

let server: ApiServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

/** namespace null: every namespace (-A). */
async function check(objects: unknown[], namespace: string | null = 'default') {
  server = await startApiServer({objects})
  const conn = await connect({kubeconfig: server.kubeconfigPath})
  return detectOtherController(new ApiClient(conn), namespace ?? undefined, NOW)
}

describe('detectOtherController', () => {
  it('finds nothing on a quiet cluster', async () => {
    expect(await check([])).toEqual({signs: [], warnings: []})
  })

  it('ignores its own events, old ones, other reasons and other components', async () => {
    const r = await check([
      event('own', {ago: 10_000, instance: 'kubectl-deployctl'}),
      event('old', {ago: 6 * 60_000}),
      event('other-reason', {ago: 10_000, reason: 'SelectingAll'}),
      event('other-component', {ago: 10_000, component: 'replicaset-controller'}),
    ])
    expect(r.signs).toEqual([])
  })

  it("counts recent ScalingReplicaSet events of kube-controller-manager's deployment-controller", async () => {
    const r = await check([event('a', {ago: 60_000}), event('b', {ago: 20_000})])
    expect(r.signs).toHaveLength(1)
    expect(r.signs[0]).toMatch(
      /^2 ScalingReplicaSet events from deployment-controller .* \(latest 20s ago on deployment default\/web/,
    )
  })

  it('looks only in the namespace it controls, or everywhere with -A', async () => {
    const objects = [event('a', {ago: 1000, ns: 'other'})]
    expect((await check(objects, 'default')).signs).toEqual([])
    await server?.close()
    expect((await check(objects, null)).signs).toHaveLength(1)
  })

  it('counts a held Lease renewed within twice its duration (at least 30 s)', async () => {
    const held = await check([
      lease({holderIdentity: 'cp-1', leaseDurationSeconds: 15, renewTime: at(20_000)}),
    ])
    expect(held.signs).toEqual([
      expect.stringMatching(/Lease kube-system\/kube-controller-manager is held by cp-1 \(renewed 20s ago\)/),
    ])
    await server?.close()
    const stale = await check([
      lease({holderIdentity: 'cp-1', leaseDurationSeconds: 15, renewTime: at(45_000)}),
    ])
    expect(stale.signs).toEqual([])
    await server?.close()
    const released = await check([lease({holderIdentity: '', leaseDurationSeconds: 15, renewTime: at(1000)})])
    expect(released.signs).toEqual([])
  })

  it('warns instead of refusing when it may not look', async () => {
    server = await startApiServer({})
    server.faults.fail({verb: 'list', resource: 'events'}, 403, {times: 10})
    server.faults.fail({verb: 'get', resource: 'leases'}, 403, {times: 10})
    const conn = await connect({kubeconfig: server.kubeconfigPath})
    const r = await detectOtherController(new ApiClient(conn), 'default', NOW)
    expect(r.signs).toEqual([])
    expect(r.warnings).toEqual([
      expect.stringMatching(/^cannot list events to check for another Deployment controller: .*forbidden/),
      expect.stringMatching(/^cannot read the kube-controller-manager Lease: .*forbidden/),
    ])
  })
})
