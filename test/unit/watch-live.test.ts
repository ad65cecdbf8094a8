import {describe, expect, it} from 'vitest'
import type {Deployment, Pod, ReplicaSet} from '../../src/controller/api/types.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import {frameToString} from '../../src/render/watch/app.js'
import {FrameBuilder} from '../../src/render/watch/frame.js'
import {endJson, updateJson} from '../../src/render/watch/ndjson.js'
import {observe} from '../../src/status/observe.js'
import {analyze} from '../../src/watch/analysis.js'
import {endOf, labelSelectorOf} from '../../src/watch/live.js'

const UID = 'd-uid'
const NOW = Date.parse('2026-11-30T00:00:00Z')

function deployment(status: Record<string, unknown>, spec: Record<string, unknown> = {}): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name: 'web', namespace: 'default', uid: UID, generation: 2},
    spec: {
      replicas: 2,
      selector: {matchLabels: {app: 'web'}},
      template: {metadata: {labels: {app: 'web'}}, spec: {containers: [{name: 'app', image: 'nginx:2'}]}},
      ...spec,
    },
    status: {observedGeneration: 2, ...status},
  } as Deployment
}

const oldRS = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: {
    name: 'web-old',
    namespace: 'default',
    uid: 'rs-old',
    labels: {app: 'web'},
    annotations: {'deployment.kubernetes.io/revision': '1'},
    ownerReferences: [{apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: UID, controller: true}],
  },
  spec: {
    replicas: 0,
    selector: {matchLabels: {app: 'web'}},
    template: {metadata: {labels: {app: 'web'}}, spec: {containers: [{name: 'app', image: 'nginx:1'}]}},
  },
} as ReplicaSet

const terminating = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-old-x',
    namespace: 'default',
    labels: {app: 'web'},
    deletionTimestamp: '2026-11-30T00:00:00Z',
    ownerReferences: [
      {apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-old', uid: 'rs-old', controller: true},
    ],
  },
  spec: {containers: []},
  status: {phase: 'Running'},
} as unknown as Pod

const COMPLETE = {replicas: 2, updatedReplicas: 2, availableReplicas: 2, readyReplicas: 2}
const opts = {settled: false, pausedOk: false}

describe('endOf: when a live watch ends, by kubectl rollout status rules', () => {
  it('is complete when updated, current and available all reach the spec', () => {
    const end = endOf(observe(deployment(COMPLETE), [], [], NOW), opts)
    expect(end).toEqual({
      outcome: {kind: 'complete', message: 'deployment "web" successfully rolled out'},
      code: 0,
    })
    expect(endOf(observe(deployment({...COMPLETE, availableReplicas: 1}), [], [], NOW), opts)).toBeUndefined()
    expect(endOf(observe(deployment({...COMPLETE, replicas: 3}), [], [], NOW), opts)).toBeUndefined()
    expect(
      endOf(observe(deployment({...COMPLETE, observedGeneration: 1}), [], [], NOW), opts),
    ).toBeUndefined()
  })

  it('--settled waits for old pods that are still terminating', () => {
    const o = observe(deployment(COMPLETE), [oldRS], [terminating], NOW)
    expect(endOf(o, opts)?.code).toBe(0)
    expect(endOf(o, {...opts, settled: true})).toBeUndefined()
  })

  it('ends with kubectl error line on ProgressDeadlineExceeded', () => {
    const d = deployment({
      replicas: 2,
      updatedReplicas: 1,
      conditions: [{type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded'}],
    })
    expect(endOf(observe(d, [], [], NOW), opts)).toEqual({
      outcome: {kind: 'deadlineExceeded', message: 'error: deployment "web" exceeded its progress deadline'},
      code: 1,
    })
  })

  it('a paused Deployment ends the watch only with --paused-ok', () => {
    const o = observe(deployment({replicas: 2, updatedReplicas: 0}, {paused: true}), [], [], NOW)
    expect(endOf(o, opts)).toBeUndefined()
    expect(endOf(o, {...opts, pausedOk: true})).toEqual({
      outcome: {kind: 'paused', message: 'deployment "web" is paused'},
      code: 0,
    })
  })
})

describe('labelSelectorOf', () => {
  it('narrows the informers to matchLabels, and watches everything for expressions', () => {
    expect(labelSelectorOf(deployment({}))).toBe('app=web')
    expect(
      labelSelectorOf(
        deployment(
          {},
          {selector: {matchLabels: {app: 'web'}, matchExpressions: [{key: 'x', operator: 'Exists'}]}},
        ),
      ),
    ).toBeUndefined()
  })
})

describe('live NDJSON', () => {
  it('writes an update as a Step and the end as an End object', () => {
    const observation = observe(deployment(COMPLETE), [oldRS], [], NOW)
    const step = updateJson({time: NOW, elapsed: 1500, observation, events: []}, 3)
    expect(step).toMatchObject({kind: 'Step', step: 3, t: 1.5, time: '2026-11-30T00:00:00Z', actions: []})
    expect(step).not.toHaveProperty('pass')
    expect(endJson({kind: 'timeout', message: 'error: timed out'}, NOW + 250, 2250)).toEqual({
      kind: 'End',
      outcome: 'timeout',
      message: 'error: timed out',
      time: '2026-11-30T00:00:00.250Z',
      t: 2.25,
      complete: false,
    })
  })
})

describe('explain in the live view', () => {
  it('shows explain blockers and the next pass instead of the frame own guesses', async () => {
    const d = deployment(
      {replicas: 0, updatedReplicas: 0},
      {strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}},
    )
    const analysis = await analyze(d, [], [], NOW, parseFeatureGates(undefined))
    expect(analysis?.verdict).toMatch(/^\w+\/\w+/)
    expect(analysis?.next.some((n) => n.startsWith('create replicasets '))).toBe(true)
    const frame = new FrameBuilder().push({
      time: NOW,
      elapsed: 0,
      observation: observe(d, [], [], NOW),
      events: [],
      ...(analysis ? {analysis} : {}),
    })
    expect(frame.explain?.next).toEqual(analysis?.next)
    expect(frameToString(frame, 120)).toContain(`next pass (${analysis?.verdict})`)
  })
})
