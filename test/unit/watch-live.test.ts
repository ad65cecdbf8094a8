import {describe, expect, it} from 'vitest'
import type {Deployment, Pod, ReplicaSet} from '../../src/controller/api/types.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import {nextInWords} from '../../src/explain/next.js'
import {frameToString} from '../../src/render/watch/app.js'
import {FrameBuilder} from '../../src/render/watch/frame.js'
import {endJson, updateJson} from '../../src/render/watch/ndjson.js'
import {observeRollout} from '../../src/status/index.js'
import {observe} from '../../src/status/observe.js'
import {endOf, labelSelectorOf} from '../../src/watch/live.js'
import {deployment as build} from '../objects.js'

const UID = 'd-uid'
const NOW = Date.parse('2026-11-30T00:00:00Z')

function deployment(status: Record<string, unknown>, spec: Record<string, unknown> = {}): Deployment {
  return build({
    replicas: 2,
    image: 'nginx:2',
    metadata: {uid: UID, generation: 2, labels: undefined},
    // As the API server defaults it: the status model judges objects as a cluster serves them.
    spec: {
      strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: '25%', maxUnavailable: '25%'}},
      ...spec,
    },
    status: {observedGeneration: 2, ...status},
  })
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
const gates = parseFeatureGates(undefined)

/** The observation and the status model's state of the objects at NOW, as a live watch builds them. */
async function at(d: Deployment, replicaSets: ReplicaSet[] = [], pods: Pod[] = []) {
  const {state, context} = await observeRollout({deployment: d, replicaSets, pods}, {now: NOW, gates})
  return {observation: observe(d, replicaSets, pods, NOW), state, context}
}

async function endAt(d: Deployment, o = opts, replicaSets: ReplicaSet[] = [], pods: Pod[] = []) {
  const {observation, state} = await at(d, replicaSets, pods)
  return endOf(observation, state, o)
}

describe('endOf: when a live watch ends, by kubectl rollout status rules', () => {
  it('is complete when updated, current and available all reach the spec', async () => {
    expect(await endAt(deployment(COMPLETE))).toEqual({
      outcome: {kind: 'complete', message: 'deployment "web" successfully rolled out'},
      code: 0,
    })
    expect(await endAt(deployment({...COMPLETE, availableReplicas: 1}))).toBeUndefined()
    expect(await endAt(deployment({...COMPLETE, replicas: 3}))).toBeUndefined()
    expect(await endAt(deployment({...COMPLETE, observedGeneration: 1}))).toBeUndefined()
  })

  it('--settled waits for old pods that are still terminating', async () => {
    expect((await endAt(deployment(COMPLETE), opts, [oldRS], [terminating]))?.code).toBe(0)
    expect(
      await endAt(deployment(COMPLETE), {...opts, settled: true}, [oldRS], [terminating]),
    ).toBeUndefined()
  })

  it('ends with kubectl error line on ProgressDeadlineExceeded', async () => {
    const d = deployment({
      replicas: 2,
      updatedReplicas: 1,
      conditions: [{type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded'}],
    })
    expect(await endAt(d)).toEqual({
      outcome: {kind: 'deadlineExceeded', message: 'error: deployment "web" exceeded its progress deadline'},
      code: 1,
    })
  })

  it('a paused Deployment ends the watch only with --paused-ok', async () => {
    const d = deployment({replicas: 2, updatedReplicas: 0}, {paused: true})
    expect(await endAt(d)).toBeUndefined()
    expect(await endAt(d, {...opts, pausedOk: true})).toEqual({
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
  it('writes an update as a Step and the end as an End object', async () => {
    const {observation, state} = await at(deployment(COMPLETE), [oldRS])
    const step = updateJson({time: NOW, elapsed: 1500, observation, events: [], state}, 3)
    expect(step).toMatchObject({
      kind: 'Step',
      step: 3,
      t: 1.5,
      time: '2026-11-30T00:00:00Z',
      actions: [],
      verdict: {code: 'Progressing', reason: 'NewReplicaSetCreated'},
      progress: {state: 'NoDeadline'},
      settled: true,
      noController: null,
    })
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

describe('the status model in the live view', () => {
  it('shows the state blockers and the next pass, with the verdict as explain names it', async () => {
    const d = deployment(
      {replicas: 0, updatedReplicas: 0},
      {strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}},
    )
    const {observation, state, context} = await at(d)
    const next = nextInWords(context, state.progress.state)
    expect(next.some((n) => n.startsWith('create replicasets '))).toBe(true)
    const frame = new FrameBuilder().push({time: NOW, elapsed: 0, observation, events: [], state, next})
    expect(frame.next).toEqual(next)
    expect(frame.verdict).toEqual({code: 'Progressing', reason: 'NewReplicaSetCreated', tone: 'busy'})
    const text = frameToString(frame, 120)
    expect(text).toContain('Progressing/NewReplicaSetCreated')
    expect(text).toContain('next pass')
  })
})

describe('the three tools in the live view', () => {
  it("shows the status model's kubectl, kstatus and Argo CD answers, all three or two at 40 columns, and where they part", async () => {
    // Paused after a finished rollout: kubectl done, kstatus InProgress, Argo CD Suspended.
    const d = deployment(
      {
        ...COMPLETE,
        conditions: [{type: 'Progressing', status: 'Unknown', reason: 'DeploymentPaused'}],
      },
      {paused: true},
    )
    const {observation, state} = await at(d, [oldRS])
    const frame = new FrameBuilder(5, {tools: true}).push({
      time: NOW,
      elapsed: 0,
      observation,
      events: [],
      state,
    })
    // The state's own answers, not a second computation.
    expect(frame.tools).toBe(state.tools)
    expect(
      new FrameBuilder().push({time: NOW, elapsed: 0, observation, events: [], state}).tools,
    ).toBeUndefined()
    const wide = frameToString(frame, 120).split('\n')
    expect(wide).toContain('kubectl Done, kstatus InProgress, Argo CD Suspended')
    expect(wide).toContainEqual(expect.stringMatching(/^they disagree: kubectl rollout status, which reads/))
    const narrow = frameToString(frame, 40, 30).split('\n')
    expect(narrow.every((l) => [...l].length <= 40)).toBe(true)
    expect(narrow).toContain('kstatus InProgress, Argo CD Suspended')
    expect(narrow).toContainEqual(expect.stringMatching(/^they disagree: .*…$/))
    // The frame still fits its rows with the two lines more.
    expect(frameToString(frame, 40, 12).split('\n').length).toBeLessThanOrEqual(12)
  })
})
