// The test API server's ResourceQuota admission of pods: upstream's message, usage recomputed from
// the namespace's pods (terminal pods and pods a grace period past their deletion not charged).

import {describe, expect, it} from 'vitest'
import {admitPod} from './quota.js'
import type {Obj} from './util.js'

const NOW = Date.parse('2026-11-29T10:00:00Z')

function pod(name: string, cpu: string, extra: Obj = {}): Obj {
  return {
    metadata: {name, namespace: 'demo', ...(extra.metadata as Obj | undefined)},
    spec: {
      containers: [{name: 'app', resources: {requests: {cpu, memory: '256Mi'}, limits: {memory: '256Mi'}}}],
    },
    status: {phase: 'Running', ...(extra.status as Obj | undefined)},
  }
}

const quota = (hard: Obj, extra: Obj = {}): Obj => ({metadata: {name: 'compute'}, spec: {hard, ...extra}})

describe('admitPod', () => {
  const running = ['a', 'b', 'c', 'd'].map((n) => pod(n, '500m'))

  it("refuses a pod over the quota with the admission plugin's message", () => {
    const err = admitPod(pod('web-x', '500m'), [quota({cpu: '2', pods: '10'})], running, NOW)
    expect(err?.code).toBe(403)
    expect(err?.message).toBe(
      'pods "web-x" is forbidden: exceeded quota: compute, requested: cpu=500m, used: cpu=2, limited: cpu=2',
    )
  })

  it('names every exceeded resource, sorted, and nothing else', () => {
    const err = admitPod(
      pod('web-x', '500m'),
      [quota({'limits.memory': '1Gi', 'requests.cpu': '2', pods: '10'})],
      running,
      NOW,
    )
    expect(err?.message).toBe(
      'pods "web-x" is forbidden: exceeded quota: compute, requested: limits.memory=256Mi,requests.cpu=500m, used: limits.memory=1Gi,requests.cpu=2, limited: limits.memory=1Gi,requests.cpu=2',
    )
  })

  it('admits within the quota; terminal pods and pods stuck terminating are not charged', () => {
    expect(admitPod(pod('web-x', '500m'), [quota({cpu: '2500m'})], running, NOW)).toBeUndefined()
    const done = pod('e', '500m', {status: {phase: 'Succeeded'}})
    const stuck = pod('f', '500m', {
      metadata: {deletionTimestamp: '2026-11-29T09:00:30Z', deletionGracePeriodSeconds: 30},
    })
    const leaving = pod('g', '500m', {
      metadata: {deletionTimestamp: '2026-11-29T09:59:50Z', deletionGracePeriodSeconds: 30},
    })
    expect(
      admitPod(pod('web-x', '500m'), [quota({cpu: '2500m'})], [...running, done, stuck], NOW),
    ).toBeUndefined()
    expect(admitPod(pod('web-x', '500m'), [quota({cpu: '2500m'})], [...running, leaving], NOW)?.code).toBe(
      403,
    )
  })

  it('leaves quotas with scopes and quotas that track nothing a pod uses alone', () => {
    expect(
      admitPod(pod('web-x', '500m'), [quota({cpu: '1'}, {scopes: ['BestEffort']})], running, NOW),
    ).toBeUndefined()
    expect(admitPod(pod('web-x', '500m'), [quota({services: '1'})], running, NOW)).toBeUndefined()
  })
})
