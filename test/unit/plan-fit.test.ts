// plan's surge fit (src/sim/fit.ts): the new pods a rollout adds placed on the nodes as
// kube-scheduler's filters pass them.

import {describe, expect, it} from 'vitest'
import type {PodTemplateSpec} from '../../src/controller/api/types.js'
import {type FitOptions, insufficientResources, NodeFit, surgeFit} from '../../src/sim/fit.js'
import {amountsOf, podResourceRequests} from '../../src/sim/requests.js'

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

// Re-created from upstream's pkg/scheduler/framework/plugins/noderesources/fit_test.go (TestEnoughRequests,
// TestStorageRequests): one node with allocatable cpu 10m, memory 20, pods 32, example.com/aaa 5,
// ephemeral-storage 20, hugepages-2Mi 5, and one pod already bound there requesting `used`.
describe('NodeResourcesFit: fitsRequest over every requested resource', () => {
  const A = 'example.com/aaa'
  const B = 'example.com/bbb'
  const IO_A = 'kubernetes.io/something'
  const IO_B = 'subdomain.kubernetes.io/something'
  const HUGE = 'hugepages-2Mi'
  type R = Record<string, number>
  /** A resource list as a pod spec writes it (cpu in millicores here, as upstream's MilliCPU). */
  const list = (r: R) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'cpu' ? `${v}m` : String(v)]))
  const c = (r: R, extra: Record<string, unknown> = {}) => ({
    name: 'c',
    resources: {requests: list(r)},
    ...extra,
  })
  const pod = (containers: R[], init: R[] = [], extra: Record<string, unknown> = {}) => ({
    containers: containers.map((r) => c(r)),
    initContainers: init.map((r) => c(r)),
    ...extra,
  })
  const node = {
    allocatable: amountsOf({cpu: '10m', memory: '20', [A]: '5', 'ephemeral-storage': '20', [HUGE]: '5'}),
    pods: 31,
  }
  const check = (spec: unknown, used: R, options: FitOptions = {}) =>
    insufficientResources(
      podResourceRequests(spec),
      {...node, requested: podResourceRequests(pod([used]))},
      1,
      options,
    )
  const reasons = (spec: unknown, used: R, options?: FitOptions) => check(spec, used, options)?.reasons ?? []

  const cases: Array<[string, unknown, R, string[], FitOptions?]> = [
    ['no resources requested always fits', pod([{}]), {cpu: 10, memory: 20}, []],
    [
      'too many resources fails',
      pod([{cpu: 1, memory: 1}]),
      {cpu: 10, memory: 20},
      ['Insufficient cpu', 'Insufficient memory'],
    ],
    [
      'too many resources fails due to init container cpu',
      pod([{cpu: 1, memory: 1}], [{cpu: 3, memory: 1}]),
      {cpu: 8, memory: 19},
      ['Insufficient cpu'],
    ],
    [
      'too many resources fails due to highest init container cpu',
      pod(
        [{cpu: 1, memory: 1}],
        [
          {cpu: 3, memory: 1},
          {cpu: 2, memory: 1},
        ],
      ),
      {cpu: 8, memory: 19},
      ['Insufficient cpu'],
    ],
    [
      'too many resources fails due to init container memory',
      pod([{cpu: 1, memory: 1}], [{cpu: 1, memory: 3}]),
      {cpu: 9, memory: 19},
      ['Insufficient memory'],
    ],
    [
      "init container fits because it's the max, not sum, of containers and init containers",
      pod([{cpu: 1, memory: 1}], [{cpu: 1, memory: 1}]),
      {cpu: 9, memory: 19},
      [],
    ],
    ['both resources fit', pod([{cpu: 1, memory: 1}]), {cpu: 5, memory: 5}, []],
    ['one resource memory fits', pod([{cpu: 2, memory: 1}]), {cpu: 9, memory: 5}, ['Insufficient cpu']],
    ['one resource cpu fits', pod([{cpu: 1, memory: 2}]), {cpu: 5, memory: 19}, ['Insufficient memory']],
    ['equal edge case', pod([{cpu: 5, memory: 1}]), {cpu: 5, memory: 19}, []],
    [
      'equal edge case for init container',
      pod([{cpu: 4, memory: 1}], [{cpu: 5, memory: 1}]),
      {cpu: 5, memory: 19},
      [],
    ],
    ['extended resource fits', pod([{[A]: 1}]), {}, []],
    ['extended resource fits for init container', pod([{}], [{[A]: 1}]), {}, []],
    [
      'extended resource capacity enforced',
      pod([{cpu: 1, memory: 1, [A]: 10}]),
      {[A]: 0},
      [`Insufficient ${A}`],
    ],
    [
      'extended resource capacity enforced for init container',
      pod([{}], [{cpu: 1, memory: 1, [A]: 10}]),
      {[A]: 0},
      [`Insufficient ${A}`],
    ],
    [
      'extended resource allocatable enforced',
      pod([{cpu: 1, memory: 1, [A]: 1}]),
      {[A]: 5},
      [`Insufficient ${A}`],
    ],
    [
      'extended resource allocatable enforced for multiple containers',
      pod([
        {cpu: 1, memory: 1, [A]: 3},
        {cpu: 1, memory: 1, [A]: 3},
      ]),
      {[A]: 2},
      [`Insufficient ${A}`],
    ],
    [
      'extended resource allocatable admits multiple init containers',
      pod(
        [{}],
        [
          {cpu: 1, memory: 1, [A]: 3},
          {cpu: 1, memory: 1, [A]: 3},
        ],
      ),
      {[A]: 2},
      [],
    ],
    [
      'extended resource allocatable enforced for multiple init containers',
      pod(
        [{}],
        [
          {cpu: 1, memory: 1, [A]: 6},
          {cpu: 1, memory: 1, [A]: 3},
        ],
      ),
      {[A]: 2},
      [`Insufficient ${A}`],
    ],
    [
      'extended resource allocatable enforced for unknown resource',
      pod([{cpu: 1, memory: 1, [B]: 1}]),
      {},
      [`Insufficient ${B}`],
    ],
    [
      'extended resource allocatable enforced for unknown resource for init container',
      pod([{}], [{cpu: 1, memory: 1, [B]: 1}]),
      {},
      [`Insufficient ${B}`],
    ],
    [
      'kubernetes.io resource capacity enforced',
      pod([{cpu: 1, memory: 1, [IO_A]: 10}]),
      {},
      [`Insufficient ${IO_A}`],
    ],
    [
      'kubernetes.io resource capacity enforced for init container',
      pod([{}], [{cpu: 1, memory: 1, [IO_B]: 10}]),
      {},
      [`Insufficient ${IO_B}`],
    ],
    [
      'hugepages resource capacity enforced',
      pod([{cpu: 1, memory: 1, [HUGE]: 10}]),
      {[HUGE]: 0},
      [`Insufficient ${HUGE}`],
    ],
    [
      'hugepages resource capacity enforced for init container',
      pod([{}], [{cpu: 1, memory: 1, [HUGE]: 10}]),
      {[HUGE]: 0},
      [`Insufficient ${HUGE}`],
    ],
    [
      'hugepages resource allocatable enforced for multiple containers',
      pod([
        {cpu: 1, memory: 1, [HUGE]: 3},
        {cpu: 1, memory: 1, [HUGE]: 3},
      ]),
      {[HUGE]: 2},
      [`Insufficient ${HUGE}`],
    ],
    [
      'skip checking ignored extended resource',
      pod([{cpu: 1, memory: 1, [B]: 1}]),
      {},
      [],
      {ignoredResources: [B]},
    ],
    [
      'resources + pod overhead fits',
      pod([{cpu: 1, memory: 1}], [], {overhead: {cpu: '3m', memory: '13'}}),
      {cpu: 5, memory: 5},
      [],
    ],
    [
      'requests + overhead does not fit for memory',
      pod([{cpu: 1, memory: 1}], [], {overhead: {cpu: '1m', memory: '15'}}),
      {cpu: 5, memory: 5},
      ['Insufficient memory'],
    ],
    [
      'skip checking ignored extended resource via resource groups',
      pod([{cpu: 1, memory: 1, [B]: 1, [IO_A]: 1}]),
      {},
      [`Insufficient ${IO_A}`],
      {ignoredResourceGroups: ['example.com']},
    ],
    [
      'skip checking extended resource request with quantity zero via resource groups',
      pod([{cpu: 1, memory: 1, [A]: 0}]),
      {[A]: 6},
      [],
    ],
    // TestStorageRequests
    ['empty storage requested, and pod fits', pod([{cpu: 1, memory: 1}]), {cpu: 2, memory: 10}, []],
    [
      'storage ephemeral local storage request exceeds allocatable',
      pod([{'ephemeral-storage': 25}]),
      {cpu: 2, memory: 2},
      ['Insufficient ephemeral-storage'],
    ],
    [
      'ephemeral local storage is sufficient',
      pod([{'ephemeral-storage': 5}]),
      {cpu: 2, memory: 2, 'ephemeral-storage': 10},
      [],
    ],
    ['pod fits', pod([{'ephemeral-storage': 10}]), {cpu: 2, memory: 2}, []],
  ]
  for (const [name, spec, used, want, options] of cases) {
    it(name, () => expect(reasons(spec, used, options)).toEqual(want))
  }

  it('more than the whole node has is UnschedulableAndUnresolvable: preemption cannot help', () => {
    // extended resource capacity enforced: 10 of a node's 5; storage 25 of 20.
    expect(check(pod([{cpu: 1, memory: 1, [A]: 10}]), {})?.resolvable).toBe(false)
    expect(check(pod([{'ephemeral-storage': 25}]), {})?.resolvable).toBe(false)
    expect(check(pod([{cpu: 1, memory: 1, [B]: 1}]), {})?.resolvable).toBe(false)
    // extended resource allocatable enforced: the node has 5, all taken.
    expect(check(pod([{cpu: 1, memory: 1, [A]: 1}]), {[A]: 5})?.resolvable).toBe(true)
  })

  it('Too many pods comes first, beside the insufficient resources', () => {
    const full = {...node, pods: 0, requested: {cpu: 10}}
    expect(insufficientResources(podResourceRequests(pod([{cpu: 1}])), full)).toEqual({
      reasons: ['Too many pods', 'Insufficient cpu'],
      resolvable: true,
    })
  })
})

describe('podResourceRequests (upstream resourcehelper.PodRequests)', () => {
  it('sidecars (restartable init containers) add to the sum and run beside later init containers', () => {
    // upstream TestPodResourceRequests "restartable init container": containers 1, sidecar 1, init 2
    // after it: max(1 + 1, 1 + 2) = 3.
    const spec = {
      containers: [{name: 'app', resources: {requests: {cpu: '1'}}}],
      initContainers: [
        {name: 'sidecar', restartPolicy: 'Always', resources: {requests: {cpu: '1'}}},
        {name: 'init', resources: {requests: {cpu: '2'}}},
      ],
    }
    expect(podResourceRequests(spec)).toEqual({cpu: 3000})
  })

  it('pod-level requests replace the containers own for cpu and memory; other names stay the containers', () => {
    const spec = {
      resources: {requests: {cpu: '2', memory: '1Gi'}},
      containers: [{name: 'app', resources: {requests: {cpu: '500m', 'nvidia.com/gpu': '1'}}}],
    }
    expect(podResourceRequests(spec)).toEqual({cpu: 2000, memory: 1024 ** 3, 'nvidia.com/gpu': 1})
  })

  it('counts extended resources, hugepages and ephemeral-storage; ignores names the scheduler does not count', () => {
    const spec = {
      containers: [
        {
          name: 'app',
          resources: {
            requests: {'nvidia.com/gpu': '1', 'hugepages-2Mi': '4Mi', 'ephemeral-storage': '10Gi', foo: '3'},
          },
        },
      ],
    }
    expect(podResourceRequests(spec)).toEqual({
      'nvidia.com/gpu': 1,
      'hugepages-2Mi': 4 * 1024 ** 2,
      'ephemeral-storage': 10 * 1024 ** 3,
    })
  })
})

describe('surgeFit with an extended resource', () => {
  const gpuTemplate = {
    spec: {
      containers: [
        {name: 'app', image: 'a', resources: {requests: {cpu: '2', memory: '10Gi', 'nvidia.com/gpu': '1'}}},
      ],
    },
  } as PodTemplateSpec
  const big = (name: string, gpus?: string) => ({
    metadata: {name, labels: {'kubernetes.io/hostname': name}},
    spec: {},
    status: {allocatable: {cpu: '4', memory: '16Gi', pods: '110', ...(gpus ? {'nvidia.com/gpu': gpus} : {})}},
  })

  it('no node advertises nvidia.com/gpu: nothing fits, Insufficient nvidia.com/gpu on every node', () => {
    expect(surgeFit(gpuTemplate, 1, [big('n1'), big('n2'), big('n3')], [])).toEqual({
      needed: 1,
      fit: 0,
      nodes: 3,
      reason: '0/3 nodes are available: 3 Insufficient nvidia.com/gpu.',
      // No node has one to free: old pods leaving does not help.
      unresolvable: true,
    })
  })

  it('a GPU node: the pod goes there, and its GPU is taken for the next one', () => {
    const nodes = [big('n1'), big('n2'), big('gpu-1', '1')]
    expect(surgeFit(gpuTemplate, 2, nodes, [])).toEqual({
      needed: 2,
      fit: 1,
      nodes: 3,
      // On the GPU node every resource short is named: 10Gi of memory is taken of its 16Gi too.
      reason: '0/3 nodes are available: 1 Insufficient memory, 3 Insufficient nvidia.com/gpu.',
    })
    const running = {spec: {nodeName: 'gpu-1', ...gpuTemplate.spec}, status: {phase: 'Running'}}
    expect(surgeFit(gpuTemplate, 1, nodes, [running])).toMatchObject({fit: 0})
    expect(surgeFit(gpuTemplate, 1, nodes, [running]).unresolvable).toBeUndefined()
    expect(surgeFit(gpuTemplate, 1, [...nodes, big('gpu-2', '1')], [running]).fit).toBe(1)
  })

  it('NodeFit: preemption is not helpful where no node has the resource, may be where it is taken', () => {
    const none = new NodeFit([big('n1'), big('n2')], []).place(gpuTemplate)
    expect(none).toEqual({
      reasons: '0/2 nodes are available: 2 Insufficient nvidia.com/gpu.',
      refusal:
        '0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
      unresolvable: true,
    })
    const running = {spec: {nodeName: 'gpu-1', ...gpuTemplate.spec}, status: {phase: 'Running'}}
    const taken = new NodeFit([big('n1'), big('gpu-1', '1')], [running]).place(gpuTemplate)
    expect('refusal' in taken && taken.refusal).toBe(
      '0/2 nodes are available: 1 Insufficient memory, 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.',
    )
  })
})
