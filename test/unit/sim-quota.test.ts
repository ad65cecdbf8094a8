// ResourceQuota admission of pods in the simulation (src/sim/quota.ts): the quota resource names
// the pod evaluator counts, re-created from upstream's pkg/quota/v1/evaluator/core/pods_test.go
// (TestPodEvaluatorUsage) and the admission message of plugin/pkg/admission/resourcequota.

import {describe, expect, it} from 'vitest'
import type {ClusterObject} from '../../src/cluster/world.js'
import type {Pod} from '../../src/controller/api/types.js'
import {quotaRefusal} from '../../src/sim/quota.js'

const pod = (name: string, spec: Record<string, unknown>): Pod =>
  ({metadata: {name, namespace: 'default'}, spec, status: {phase: 'Running'}}) as unknown as Pod
const container = (requests: Record<string, string>, limits?: Record<string, string>) => ({
  name: 'c',
  image: 'i',
  resources: {requests, ...(limits ? {limits} : {})},
})
const quota = (hard: Record<string, string>): ClusterObject =>
  ({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: {name: 'q', namespace: 'default'},
    spec: {hard},
  }) as ClusterObject
const gpuPod = (name: string) =>
  pod(name, {containers: [container({'nvidia.com/gpu': '1'}, {'nvidia.com/gpu': '1'})]})

describe('quotaRefusal: the resources the pod evaluator counts', () => {
  it('container extended resources: counted as requests.<name> only', () => {
    const q = quota({'requests.nvidia.com/gpu': '1'})
    expect(quotaRefusal(gpuPod('a'), [q], [], 0)).toBeUndefined()
    expect(quotaRefusal(gpuPod('b'), [q], [gpuPod('a')], 0)).toBe(
      'exceeded quota: q, requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=1, limited: requests.nvidia.com/gpu=1',
    )
    // The bare name is not a quota resource for an extended resource: nothing counted, nothing refused.
    expect(quotaRefusal(gpuPod('b'), [quota({'nvidia.com/gpu': '1'})], [gpuPod('a')], 0)).toBeUndefined()
  })

  it('container local ephemeral storage and container hugepages: bare and requests.*', () => {
    const storage = (name: string) =>
      pod(name, {containers: [container({'ephemeral-storage': '32Mi', 'hugepages-2Mi': '100Mi'})]})
    const used = [storage('a')]
    expect(quotaRefusal(storage('b'), [quota({'requests.ephemeral-storage': '40Mi'})], used, 0)).toBe(
      'exceeded quota: q, requested: requests.ephemeral-storage=32Mi, used: requests.ephemeral-storage=32Mi, limited: requests.ephemeral-storage=40Mi',
    )
    expect(quotaRefusal(storage('b'), [quota({'ephemeral-storage': '64Mi'})], used, 0)).toBeUndefined()
    expect(quotaRefusal(storage('b'), [quota({'hugepages-2Mi': '150Mi'})], used, 0)).toBe(
      'exceeded quota: q, requested: hugepages-2Mi=100Mi, used: hugepages-2Mi=100Mi, limited: hugepages-2Mi=150Mi',
    )
    expect(quotaRefusal(storage('b'), [quota({'requests.hugepages-2Mi': '200Mi'})], used, 0)).toBeUndefined()
  })

  it('count pod overhead as usage, and a sidecar beside the containers', () => {
    const q = quota({'requests.cpu': '2'})
    const overhead = pod('a', {containers: [container({cpu: '1'})], overhead: {cpu: '500m'}})
    const sidecar = pod('b', {
      containers: [container({cpu: '1'})],
      initContainers: [{...container({cpu: '500m'}), name: 's', restartPolicy: 'Always'}],
    })
    expect(quotaRefusal(sidecar, [q], [overhead], 0)).toBe(
      'exceeded quota: q, requested: requests.cpu=1500m, used: requests.cpu=1500m, limited: requests.cpu=2',
    )
  })
})
