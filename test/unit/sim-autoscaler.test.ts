// The HorizontalPodAutoscaler model (src/sim/autoscaler.ts): upstream's replica calculation, pod
// grouping and behavior. The replica_calculator_test.go cases are re-created with every sampled pod
// at the case's average utilization (the model's metrics are the status's average), which gives
// upstream's expected replicas.

import {describe, expect, it} from 'vitest'
import type {ClusterObject} from '../../src/cluster/world.js'
import type {Deployment, Pod} from '../../src/controller/api/types.js'
import {AutoscalerModel, groupPod, resourceReplicas} from '../../src/sim/autoscaler.js'

describe('resourceReplicas (upstream GetResourceReplicas)', () => {
  it('TestReplicaCalcScaleUp: 3 pods at 50% of a 30% target -> 5', () => {
    expect(resourceReplicas(3, {current: 50, target: 30}, {ready: 3, unready: 0, missing: 0})).toBe(5)
  })

  it('TestReplicaCalcScaleUpUnreadyLessScale: 2 ready at 60%, 1 unready counted as 0% -> 4', () => {
    expect(resourceReplicas(3, {current: 60, target: 30}, {ready: 2, unready: 1, missing: 0})).toBe(4)
  })

  it('TestReplicaCalcScaleUpUnreadyNoScale: 1 ready at 40%, 2 unready: the ratio turns, no change -> 3', () => {
    expect(resourceReplicas(3, {current: 40, target: 30}, {ready: 1, unready: 2, missing: 0})).toBe(3)
  })

  it('TestReplicaCalcScaleDown: 5 pods at 28% of 50% -> 3', () => {
    expect(resourceReplicas(5, {current: 28, target: 50}, {ready: 5, unready: 0, missing: 0})).toBe(3)
  })

  it('TestReplicaCalcScaleDownIncludeUnreadyPods: 3 ready at 30% of 50%, 2 unready left out on a scale-down -> 2', () => {
    expect(resourceReplicas(5, {current: 30, target: 50}, {ready: 3, unready: 2, missing: 0})).toBe(2)
  })

  it('TestReplicaCalcTolerance: 102% of 100% is within the 0.1 tolerance -> 3', () => {
    expect(resourceReplicas(3, {current: 102, target: 100}, {ready: 3, unready: 0, missing: 0})).toBe(3)
  })

  it('TestReplicaCalcMissingMetricsNoChangeEq: 1 sampled pod at 100% of 100%, 1 missing -> 2', () => {
    expect(resourceReplicas(2, {current: 100, target: 100}, {ready: 1, unready: 0, missing: 1})).toBe(2)
  })

  it('missing pods count as 0% on a scale-up and 100% on a scale-down', () => {
    // 3 at 150% of 100% and 1 missing: (450 + 0) / 4 = 112.5% -> ceil(1.125 × 4) = 5.
    expect(resourceReplicas(4, {current: 150, target: 100}, {ready: 3, unready: 0, missing: 1})).toBe(5)
    // 3 at 40% of 100% and 1 missing: (120 + 100) / 4 = 55% -> ceil(0.55 × 4) = 3.
    expect(resourceReplicas(4, {current: 40, target: 100}, {ready: 3, unready: 0, missing: 1})).toBe(3)
  })
})

describe('groupPod (upstream groupPods)', () => {
  const now = Date.parse('2026-12-05T12:10:00Z')
  const pod = (
    start: string,
    ready: 'True' | 'False',
    transition: string,
    extra: Partial<Pod['metadata']> = {},
  ): Pod => ({
    metadata: {name: 'p', creationTimestamp: start, ...extra},
    spec: {containers: []},
    status: {
      phase: 'Running',
      startTime: start,
      conditions: [{type: 'Ready', status: ready, lastTransitionTime: transition}],
    },
  })

  it('a pod being deleted is ignored; a Pending one unready; one not yet sampled missing', () => {
    expect(
      groupPod(
        pod('2026-12-05T11:00:00Z', 'True', '2026-12-05T11:00:10Z', {
          deletionTimestamp: '2026-12-05T12:09:00Z',
        }),
        'cpu',
        now,
      ),
    ).toBe('ignored')
    expect(groupPod({metadata: {name: 'p'}, status: {phase: 'Pending'}}, 'cpu', now)).toBe('unready')
    expect(groupPod(pod('2026-12-05T12:09:50Z', 'False', '2026-12-05T12:09:50Z'), 'cpu', now)).toBe('missing')
  })

  it('cpu: within the 5-minute initialization, Ready less than a metric window ago is unready; then ready', () => {
    expect(groupPod(pod('2026-12-05T12:08:00Z', 'True', '2026-12-05T12:09:50Z'), 'cpu', now)).toBe('unready')
    expect(groupPod(pod('2026-12-05T12:08:00Z', 'True', '2026-12-05T12:09:40Z'), 'cpu', now)).toBe('ready')
    // memory has no initialization period: sampled means counted.
    expect(groupPod(pod('2026-12-05T12:08:00Z', 'True', '2026-12-05T12:09:50Z'), 'memory', now)).toBe('ready')
  })
})

describe('AutoscalerModel (upstream normalizeDesiredReplicasWithBehaviors)', () => {
  const start = Date.parse('2026-12-05T12:00:00Z')
  const hpa = (current: number, behavior?: object): ClusterObject => ({
    metadata: {name: 'web', namespace: 'default'},
    spec: {
      scaleTargetRef: {kind: 'Deployment', name: 'web'},
      minReplicas: 1,
      maxReplicas: 100,
      metrics: [
        {type: 'Resource', resource: {name: 'cpu', target: {type: 'Utilization', averageUtilization: 50}}},
      ],
      ...(behavior ? {behavior} : {}),
    },
    status: {
      currentMetrics: [{type: 'Resource', resource: {name: 'cpu', current: {averageUtilization: current}}}],
    },
  })
  const deployment = (replicas: number): Deployment =>
    ({metadata: {name: 'web'}, spec: {replicas, selector: {}, template: {}}}) as unknown as Deployment
  const ready = (n: number): Pod[] =>
    Array.from({length: n}, (_, i) => ({
      metadata: {name: `p${i}`, creationTimestamp: '2026-12-05T10:00:00Z'},
      spec: {containers: []},
      status: {
        phase: 'Running',
        startTime: '2026-12-05T10:00:00Z',
        conditions: [{type: 'Ready', status: 'True', lastTransitionTime: '2026-12-05T10:00:10Z'}],
      },
    }))

  it('the default scale-up limit: the larger of 4 pods and 100% per 15 s (10 -> 20 when 50 are asked for)', () => {
    const a = new AutoscalerModel(hpa(250), start, 10)
    expect(a.nextSyncAt()).toBe(start + 15_000)
    expect(a.sync(start + 15_000, deployment(10), ready(10), () => 1)).toMatchObject({
      desired: 50,
      replicas: 20,
    })
  })

  it('a scale-up policy of 2 pods per 60 s remembers its own scale events', () => {
    const a = new AutoscalerModel(
      hpa(250, {scaleUp: {policies: [{type: 'Pods', value: 2, periodSeconds: 60}]}}),
      start,
      10,
    )
    expect(a.sync(start + 15_000, deployment(10), ready(10), () => 1)?.replicas).toBe(12)
    a.scaled(start + 15_000, 10, 12)
    // 15 s later the period still holds the +2: no more.
    expect(a.sync(start + 30_000, deployment(12), ready(12), () => 1)?.replicas).toBe(12)
  })

  it('a scale-down waits for the 300 s stabilization window, then goes', () => {
    const a = new AutoscalerModel(hpa(10), start, 10)
    expect(a.sync(start + 15_000, deployment(10), ready(10), () => 1)).toMatchObject({
      desired: 2,
      replicas: 10,
    })
    expect(a.sync(start + 300_000, deployment(10), ready(10), () => 1)?.replicas).toBe(10)
    expect(a.sync(start + 316_000, deployment(10), ready(10), () => 1)?.replicas).toBe(2)
  })

  it('minReplicas and maxReplicas bound it', () => {
    const h = hpa(500)
    ;(h.spec as {maxReplicas: number}).maxReplicas = 12
    expect(
      new AutoscalerModel(h, start, 10).sync(start + 15_000, deployment(10), ready(10), () => 1)?.replicas,
    ).toBe(12)
  })
})
