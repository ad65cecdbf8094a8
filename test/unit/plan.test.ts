// plan's parts: the field diff (lists keyed by name, the controller's equality, defaulted changes),
// time to ready from pods, the pods' requests, and the risks read from the objects.

import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadWorld} from '../../src/cluster/load/index.js'
import type {World} from '../../src/cluster/world.js'
import type {Deployment, Pod} from '../../src/controller/api/types.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import {type PlanItem, planOne} from '../../src/plan/index.js'
import {podRequests} from '../../src/plan/requests.js'
import {CHART_ROWS, renderChart} from '../../src/render/plan.js'
import {styler} from '../../src/render/style.js'
import {percentile, podReadySeconds} from '../../src/status/eta.js'
import {specChanges, templateChanges} from '../../src/status/template-diff.js'

const ROOT = join(import.meta.dirname, '../..')
const gates = parseFeatureGates(undefined)

describe('templateChanges', () => {
  const base = {
    metadata: {labels: {app: 'web', 'pod-template-hash': 'abc'}},
    spec: {
      containers: [
        {
          name: 'app',
          image: 'a:1',
          env: [
            {name: 'A', value: '1'},
            {name: 'B', value: '2'},
          ],
          resources: {requests: {cpu: '1'}},
        },
        {name: 'side', image: 's:1'},
      ],
    },
  }

  it('names containers and env vars by their name, whatever their order', () => {
    const next = structuredClone(base)
    next.spec.containers.reverse()
    const app = next.spec.containers[1] as (typeof base.spec.containers)[0]
    app.image = 'a:2'
    app.env = [
      {name: 'B', value: '3'},
      {name: 'A', value: '1'},
    ]
    expect(templateChanges(base, next)).toEqual([
      {path: 'spec.template.spec.containers[name=app].image', from: 'a:1', to: 'a:2'},
      {path: 'spec.template.spec.containers[name=app].env[name=B].value', from: '2', to: '3'},
    ])
  })

  it('sees no change where the controller sees none: the hash label, equal quantities, absent zero values', () => {
    const next = structuredClone(base) as typeof base & {spec: {hostNetwork?: boolean}}
    delete (next.metadata.labels as Record<string, string>)['pod-template-hash']
    ;(next.spec.containers[0] as {resources: unknown}).resources = {requests: {cpu: '1000m'}}
    next.spec.hostNetwork = false
    expect(templateChanges(base, next)).toEqual([])
  })

  it('reports an added container whole, and marks what the input did not write as defaulted', () => {
    const next = structuredClone(base)
    next.spec.containers.push({name: 'new', image: 'n:1', imagePullPolicy: 'IfNotPresent'} as never)
    const raw = structuredClone(next)
    delete (raw.spec.containers[2] as Record<string, unknown>).imagePullPolicy
    ;(next.spec as Record<string, unknown>).dnsPolicy = 'ClusterFirst'
    const changes = templateChanges(base, next, {raw})
    expect(changes).toEqual([
      {
        path: 'spec.template.spec.containers[name=new]',
        from: null,
        to: {name: 'new', image: 'n:1', imagePullPolicy: 'IfNotPresent'},
      },
      {path: 'spec.template.spec.dnsPolicy', from: null, to: 'ClusterFirst', defaulted: true},
    ])
  })

  it('keys ports by containerPort when they have no names', () => {
    const a = {spec: {containers: [{name: 'app', ports: [{containerPort: 80, protocol: 'TCP'}]}]}}
    const b = {spec: {containers: [{name: 'app', ports: [{containerPort: 80, protocol: 'UDP'}]}]}}
    expect(templateChanges(a, b).map((c) => c.path)).toEqual([
      'spec.template.spec.containers[name=app].ports[containerPort=80].protocol',
    ])
  })

  it('specChanges leaves the template out', () => {
    expect(
      specChanges(
        {replicas: 3, template: base, strategy: {rollingUpdate: {maxSurge: '25%'}}},
        {replicas: 3, template: {}, strategy: {rollingUpdate: {maxSurge: 0}}},
      ),
    ).toEqual([{path: 'spec.strategy.rollingUpdate.maxSurge', from: '25%', to: 0}])
  })
})

function pod(created: string, ready: string | undefined, restarts = 0): Pod {
  return {
    metadata: {name: `p-${created}`, creationTimestamp: created},
    spec: {},
    status: {
      conditions: ready ? [{type: 'Ready', status: 'True', lastTransitionTime: ready}] : [],
      containerStatuses: [{name: 'c', restartCount: restarts}],
    },
  } as unknown as Pod
}

describe('time to ready', () => {
  it('counts pods that became ready without a restart, and takes nearest-rank percentiles', () => {
    const t = podReadySeconds([
      pod('2026-01-01T00:00:00Z', '2026-01-01T00:00:04Z'),
      pod('2026-01-01T00:00:00Z', '2026-01-01T00:00:10Z'),
      pod('2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z', 2),
      pod('2026-01-01T00:00:00Z', undefined),
    ])
    expect(t).toEqual({readySeconds: [4, 10], pods: 4, restarted: 1, notReady: 1})
    expect(percentile(t.readySeconds, 50)).toBe(4)
    expect(percentile(t.readySeconds, 90)).toBe(10)
    expect(percentile([], 50)).toBeUndefined()
  })

  it('sums requests of containers, or the largest init container when it asks more', () => {
    expect(
      podRequests({
        spec: {
          containers: [
            {name: 'a', resources: {requests: {cpu: '250m', memory: '64Mi'}}},
            {name: 'b', resources: {requests: {cpu: '0.5', memory: '64Mi'}}},
          ],
          initContainers: [{name: 'i', resources: {requests: {cpu: '2', memory: '1Mi'}}}],
        },
      }),
    ).toEqual({cpuMillicores: 2000, memoryBytes: 128 * 2 ** 20})
  })
})

async function steady(): Promise<World> {
  return loadWorld([join(ROOT, 'examples/steady.yaml')], {warn: () => {}})
}

async function planOf(
  world: World,
  edit: (d: Deployment) => void,
  raw?: unknown,
  cluster?: object,
): Promise<PlanItem> {
  const proposed = structuredClone(world.deployments[0] as Deployment)
  edit(proposed)
  return planOne(
    world,
    {deployment: proposed, raw: raw ?? structuredClone(proposed)},
    {
      now: Date.parse('2026-11-29T10:00:00Z'),
      nowGiven: false,
      gates,
      ...(cluster ? {cluster} : {}),
    },
  )
}

describe('plan risks', () => {
  it('a resources change: the peak asks for one more pod of the new template', async () => {
    const item = await planOf(await steady(), (d) => {
      const c = d.spec.template.spec?.containers?.[0] as unknown as {resources: unknown}
      c.resources = {requests: {cpu: '200m', memory: '256Mi'}}
    })
    expect(item.newReplicaSet).toBe('create')
    expect(item.extraAtPeak).toEqual({pods: 1, cpuMillicores: 200, memoryBytes: 256 * 2 ** 20})
  })

  it('names a paused Deployment, a selector change, and both fenceposts at 0', async () => {
    const item = await planOf(await steady(), (d) => {
      d.spec.paused = true
      d.spec.selector = {matchLabels: {app: 'web', tier: 'front'}}
      d.spec.template.metadata = {labels: {app: 'web', tier: 'front'}}
      d.spec.strategy = {type: 'RollingUpdate', rollingUpdate: {maxSurge: 0, maxUnavailable: '10%'}}
    })
    expect(item.risks.map((r) => r.code)).toEqual(['Paused', 'SelectorChange', 'NoSurgeNoUnavailable'])
    expect(item.simulation.outcome).toBe('stalled')
    expect(item.estimate).toBeNull()
  })

  it('an autoscaler and spec.replicas written: the apply resets its count; left out: no risk', async () => {
    const world = await steady()
    const hpa = {
      metadata: {name: 'web', namespace: 'demo'},
      spec: {scaleTargetRef: {kind: 'Deployment', name: 'web'}},
      status: {desiredReplicas: 3},
    }
    const cluster = {autoscalers: [hpa]}
    const written = await planOf(
      world,
      (d) => {
        d.spec.replicas = 2
      },
      undefined,
      cluster,
    )
    expect(written.risks.map((r) => r.code)).toEqual(['AutoscalerReplicas'])
    const raw = structuredClone(world.deployments[0]) as {spec: Record<string, unknown>}
    delete raw.spec.replicas
    const omitted = await planOf(
      world,
      (d) => {
        d.spec.replicas = 1
      },
      raw,
      cluster,
    )
    expect(omitted.risks).toEqual([])
    // The apply leaves spec.replicas alone when PROPOSED does not write it.
    expect(omitted.otherChanges).toEqual([])
  })

  it('a quota without room for the surge pod', async () => {
    const quota = {
      metadata: {name: 'q', namespace: 'demo'},
      status: {hard: {pods: '3', 'requests.cpu': '2'}, used: {pods: '3', 'requests.cpu': '1'}},
    }
    const item = await planOf(
      await steady(),
      (d) => {
        ;(d.spec.template.spec?.containers?.[0] as {image: string}).image = 'nginx:1.28'
      },
      undefined,
      {quotas: [quota]},
    )
    expect(item.risks).toEqual([
      {
        code: 'QuotaHeadroom',
        message: expect.stringContaining('ResourceQuota q leaves 0 of pods and the peak needs 1 more'),
      },
    ])
  })

  it('a quota on an extended resource: requests.nvidia.com/gpu without room for the surge pod', async () => {
    const quota = {
      metadata: {name: 'gpus', namespace: 'demo'},
      status: {hard: {'requests.nvidia.com/gpu': '3'}, used: {'requests.nvidia.com/gpu': '3'}},
    }
    const item = await planOf(
      await steady(),
      (d) => {
        const c = d.spec.template.spec?.containers?.[0] as {image: string; resources?: unknown}
        c.image = 'nginx:1.28'
        c.resources = {requests: {cpu: '250m', 'nvidia.com/gpu': '1'}, limits: {'nvidia.com/gpu': '1'}}
      },
      undefined,
      {quotas: [quota]},
    )
    // The old pods request no GPU: the peak's one new pod adds one.
    expect(item.extraAtPeak).toMatchObject({pods: 1, resources: {'nvidia.com/gpu': 1}})
    expect(item.risks).toEqual([
      {
        code: 'QuotaHeadroom',
        message:
          'ResourceQuota gpus leaves 0 of requests.nvidia.com/gpu and the peak needs 1 more: pods beyond the quota are refused and the rollout stalls',
      },
    ])
  })

  it('a pod slower than the progress deadline', async () => {
    const item = await planOf(await steady(), (d) => {
      ;(d.spec.template.spec?.containers?.[0] as {image: string}).image = 'nginx:1.28'
      d.spec.progressDeadlineSeconds = 4
    })
    expect(item.risks.map((r) => r.code)).toEqual(['ProgressDeadline'])
  })
})

describe('explain: why a new ReplicaSet', () => {
  it("lists the template changes from the previous revision to the new ReplicaSet, with plan's diff", async () => {
    const {explainWorld} = await import('../../src/explain/index.js')
    const world = await loadWorld([join(ROOT, 'examples/rolling-update.yaml')], {warn: () => {}})
    const {result} = await explainWorld(
      world,
      {namespace: 'demo'},
      {now: Date.parse('2026-11-29T10:00:10Z'), gates},
    )
    expect(result.items[0]?.templateDiff).toEqual({
      from: {replicaSet: 'web-6b78dbb95b', revision: 1},
      to: {replicaSet: 'web-cc544bdcc', revision: 2},
      changes: [
        {path: 'spec.template.spec.containers[name=nginx].image', from: 'nginx:1.26', to: 'nginx:1.27'},
      ],
    })
    const quiet = await explainWorld(
      await steady(),
      {namespace: 'demo'},
      {now: Date.parse('2026-11-29T10:00:00Z'), gates},
    )
    expect(quiet.result.items[0]?.templateDiff).toBeNull()
  })
})

describe('the chart (issue 28)', () => {
  const chart = (peak: number) =>
    renderChart(
      [
        {atSeconds: 0, old: peak, new: 0, terminating: 0, available: peak},
        {atSeconds: 10, old: 0, new: peak, terminating: 0, available: peak},
      ],
      10,
      {width: 20, fancy: false, style: styler(false)},
    ).split('\n')

  it('draws one row per pod up to CHART_ROWS pods', () => {
    expect(chart(3)).toHaveLength(1 + 3 + 2)
    expect(chart(CHART_ROWS)).toHaveLength(1 + CHART_ROWS + 2)
  })

  it('draws CHART_ROWS rows of several pods each above, never one row per pod', () => {
    const lines = chart(2147483647)
    expect(lines).toHaveLength(1 + CHART_ROWS + 2)
    expect(lines[1]).toMatch(/^2147483660 \|\*+$/)
    expect(lines[CHART_ROWS]).toMatch(/^ 107374183 \|o+#+$/)
  })
})

describe('an autoscaler over the rollout (issue 27 item 5)', () => {
  const hpa = (current: number) => ({
    metadata: {name: 'web', namespace: 'demo'},
    spec: {
      scaleTargetRef: {apiVersion: 'apps/v1', kind: 'Deployment', name: 'web'},
      minReplicas: 2,
      maxReplicas: 20,
      metrics: [
        {type: 'Resource', resource: {name: 'cpu', target: {type: 'Utilization', averageUtilization: 80}}},
      ],
    },
    status: {
      currentReplicas: 3,
      desiredReplicas: 3,
      currentMetrics: [{type: 'Resource', resource: {name: 'cpu', current: {averageUtilization: current}}}],
    },
  })
  const newImage = (d: Deployment) => {
    ;(d.spec.template.spec?.containers?.[0] as {image: string}).image = 'nginx:1.28'
  }

  // minReadySeconds 30: the surge pod is Ready (and sampled 15 s later) before it is available, so
  // the old pods are still there: the autoscaler counts 4 ready pods for a Deployment of 3.
  const slowAvailable = (d: Deployment) => {
    newImage(d)
    d.spec.minReadySeconds = 30
  }

  it('above its target, it counts the surge pod too and asks for more: the simulated Deployment grows, AutoscalerAmplifies', async () => {
    const item = await planOf(await steady(), slowAvailable, undefined, {autoscalers: [hpa(90)]})
    // +15 s: the surge pod is Ready but not yet sampled (cpu's initialization: unready), so on a
    // scale-up it counts as 0% and the ratio turns: no change. +30 s: 4 sampled pods at 90% of 80%:
    // ceil(1.125 × 4) = 5, within the default scale-up limit (max(3 + 4, 2 × 3)).
    const hpaSteps = item.steps.filter((x) => x.role === 'autoscaler').map((x) => [x.atSeconds, x.from, x.to])
    // Each sync counts every sampled pod, surge ones too, at 90% of 80%: ceil(1.125 × pods). The
    // model keeps each pod at the utilization the status reports (it does not spread a fixed load
    // over more pods), so the count ratchets up to maxReplicas while the rollout runs.
    expect(hpaSteps).toEqual([
      [30, 3, 5], // 4 pods: 3 old, the surge pod sampled 15 s after it became Ready
      [60, 5, 8], // 7 pods
      [90, 8, 12], // 10 pods
      [120, 12, 15], // 13 pods
      [150, 15, 17], // 15 pods
      [180, 17, 20], // 17 pods: ceil(19.1), bounded by maxReplicas 20
    ])
    // The Deployment controller spreads each new size over its ReplicaSets at once (proportional scaling).
    expect(item.steps.filter((x) => x.atSeconds === 30).map((x) => [x.role, x.from, x.to])).toEqual([
      ['autoscaler', 3, 5],
      ['new', 1, 2],
      ['old', 3, 5],
      ['old', 5, 4],
      ['new', 2, 3],
    ])
    expect(item.autoscalers).toMatchObject([{name: 'web', now: 4, peak: {atSeconds: 180, replicas: 20}}])
    expect(item.risks.find((r) => r.code === 'AutoscalerAmplifies')?.message).toContain(
      'it would ask for 20 replicas (4 without the surge)',
    )
    // The rollout ends at the autoscaler's count, not the manifest's 3.
    expect(item.steps.at(-1)).toMatchObject({role: 'new', to: 20})
    expect(item.simulation.outcome).toBe('complete')
  })

  it('with room to spare it does not: a scale-down waits for its 300 s stabilization window', async () => {
    const item = await planOf(await steady(), slowAvailable, undefined, {autoscalers: [hpa(40)]})
    expect(item.autoscalers).toMatchObject([{name: 'web', now: 2, steps: []}])
    expect(item.steps.filter((x) => x.role === 'autoscaler')).toEqual([])
    expect(item.risks.map((r) => r.code)).not.toContain('AutoscalerAmplifies')
  })
})
