// The start-up check of `run` against the test API server: what counts as another Deployment
// controller at work. Only the kube-controller-manager Lease (which a namespace's user cannot write)
// stops the start; managedFields only warn; Events, which anyone may post, are not evidence at all.

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

function deployment(name: string, ns: string, managedFields: Array<Record<string, unknown>>) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name, namespace: ns, managedFields},
    spec: {
      replicas: 1,
      selector: {matchLabels: {app: name}},
      template: {metadata: {labels: {app: name}}, spec: {containers: [{name: 'c', image: 'nginx'}]}},
    },
  }
}

const kcmStatusWrite = (ago: number) => ({
  manager: 'kube-controller-manager',
  operation: 'Update',
  subresource: 'status',
  apiVersion: 'apps/v1',
  time: at(ago),
  fieldsType: 'FieldsV1',
  fieldsV1: {'f:status': {}},
})

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

  it('is not stopped, nor warned, by ScalingReplicaSet events of deployment-controller: anyone may post those', async () => {
    const forged = [event('a', {ago: 1000, ns: 'other'}), event('b', {ago: 20_000})]
    expect(await check(forged, null)).toEqual({signs: [], warnings: []})
    expect(server?.requests.filter((q) => q.resource === 'events')).toEqual([])
  })

  it('only warns about Deployments whose status kube-controller-manager wrote in the last 5 minutes', async () => {
    const r = await check(
      [
        deployment('web', 'default', [kcmStatusWrite(20_000)]),
        deployment('api', 'default', [kcmStatusWrite(90_000)]),
        deployment('old', 'default', [kcmStatusWrite(6 * 60_000)]),
        deployment('ours', 'default', [{...kcmStatusWrite(1000), manager: 'kubectl-deployctl'}]),
        deployment('spec', 'default', [{...kcmStatusWrite(1000), subresource: undefined}]),
        deployment('elsewhere', 'other', [kcmStatusWrite(1000)]),
      ],
      'default',
    )
    expect(r.signs).toEqual([])
    expect(r.warnings).toEqual([
      expect.stringMatching(
        /^2 Deployments' status was written by kube-controller-manager in the last 5 minutes \(latest 20s ago: deployment default\/web\)/,
      ),
    ])
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
    server.faults.fail({verb: 'list', resource: 'deployments'}, 403, {times: 10})
    server.faults.fail({verb: 'get', resource: 'leases'}, 403, {times: 10})
    const conn = await connect({kubeconfig: server.kubeconfigPath})
    const r = await detectOtherController(new ApiClient(conn), 'default', NOW)
    expect(r.signs).toEqual([])
    expect(r.warnings).toEqual([
      expect.stringMatching(/^cannot read the kube-controller-manager Lease: .*forbidden/),
      expect.stringMatching(
        /^cannot list Deployments to check for another Deployment controller: .*forbidden/,
      ),
    ])
  })
})
