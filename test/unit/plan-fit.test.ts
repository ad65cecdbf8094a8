// plan's surge fit (src/sim/fit.ts): the new pods a rollout adds placed on the nodes as
// kube-scheduler's filters pass them.

import {describe, expect, it} from 'vitest'
import type {PodTemplateSpec} from '../../src/controller/api/types.js'
import {surgeFit} from '../../src/sim/fit.js'

const node = (name: string, cpu: string, extra: Record<string, unknown> = {}) => ({
  metadata: {name, labels: {'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux'}},
  spec: {...extra},
  status: {allocatable: {cpu, memory: '8Gi', pods: '110'}},
})
const template = (spec: Record<string, unknown> = {}): PodTemplateSpec =>
  ({
    spec: {containers: [{name: 'app', image: 'a', resources: {requests: {cpu: '1'}}}], ...spec},
  }) as PodTemplateSpec
const bound = (nodeName: string, cpu: string) => ({
  spec: {nodeName, containers: [{name: 'c', resources: {requests: {cpu}}}]},
  status: {phase: 'Running'},
})

describe('surgeFit', () => {
  it('three nodes with 1 CPU free each and a surge of 4 one-CPU pods: 3 of 4 fit, Insufficient cpu', () => {
    const nodes = [node('n1', '2'), node('n2', '2'), node('n3', '1500m')]
    const pods = [
      bound('n1', '1'),
      bound('n2', '1'),
      bound('n3', '500m'),
      {spec: {nodeName: 'n1'}, status: {phase: 'Succeeded'}},
    ]
    expect(surgeFit(template(), 4, nodes, pods)).toEqual({
      needed: 4,
      fit: 3,
      nodes: 3,
      reason: '0/3 nodes are available: 3 Insufficient cpu.',
    })
    expect(surgeFit(template(), 3, nodes, pods)).toEqual({needed: 3, fit: 3, nodes: 3})
  })

  it('counts taints, unschedulable nodes, nodeSelector and required node affinity as the scheduler does', () => {
    const nodes = [
      node('n1', '4', {taints: [{key: 'dedicated', value: 'db', effect: 'NoSchedule'}]}),
      node('n2', '4', {unschedulable: true}),
      node('n3', '4'),
    ]
    const r = surgeFit(template({nodeSelector: {'kubernetes.io/os': 'windows'}}), 1, nodes, [])
    expect(r.reason).toBe(
      "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {dedicated: db}, 1 node(s) were unschedulable.",
    )
    const tolerant = template({
      tolerations: [{key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule'}],
    })
    expect(surgeFit(tolerant, 8, nodes, []).fit).toBe(8)
    const affinity = template({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {matchExpressions: [{key: 'kubernetes.io/hostname', operator: 'In', values: ['n3']}]},
            ],
          },
        },
      },
    })
    expect(surgeFit(affinity, 5, nodes, [])).toMatchObject({fit: 4, nodes: 3})
  })
})
