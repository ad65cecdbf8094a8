// The rollout gate's judgement (fail fast on the status model's dead ends), its summary, and what
// its outputs make of the rows: JUnit XML, GitHub annotations, the live view at 40 columns.

import {describe, expect, it} from 'vitest'
import type {Deployment} from '../../src/controller/api/types.js'
import {gateViewToString} from '../../src/render/gate/app.js'
import {githubAnnotations, junitXml, rowLine, summaryLines} from '../../src/render/gate/text.js'
import {
  DEFAULT_GATE_OPTIONS,
  type GateRow,
  gateRow,
  gateSummary,
  judgeGate,
  nextJudgementAt,
  warningRows,
} from '../../src/status/gate.js'
import type {RolloutState} from '../../src/status/index.js'
import {NO_CONTROLLER_AFTER_MS, noControllerSigns} from '../../src/status/no-controller.js'
import type {Blocker} from '../../src/status/types.js'

const NOW = Date.parse('2026-12-05T12:00:00Z')
const NEW_RS = 'web-7f6e5d4c3b'

const deployment = (spec: Partial<Deployment['spec']> = {}): Deployment =>
  ({
    metadata: {name: 'web', namespace: 'shop', generation: 2},
    spec: {replicas: 2, selector: {matchLabels: {app: 'web'}}, template: {}, ...spec},
    status: {observedGeneration: 2},
  }) as Deployment

function blocker(code: Blocker['code'], extra: Partial<Blocker> = {}): Blocker {
  return {
    code,
    hard: true,
    object: {kind: 'Pod', name: `${NEW_RS}-abcde`},
    replicaSet: NEW_RS,
    container: 'app',
    image: 'nginx',
    message: `container app: ${code}`,
    restarts: null,
    lastExitCode: null,
    since: null,
    until: null,
    ...extra,
  }
}

function state(over: Partial<RolloutState> = {}): RolloutState {
  return {
    verdict: {code: 'Progressing', reason: 'PodsStarting', message: 'Waiting for 2 new pods to start.'},
    rolloutStatus: {message: 'Waiting for deployment "web" rollout to finish', done: false, error: false},
    settled: false,
    progress: {
      state: 'Running',
      progressDeadlineSeconds: 600,
      condition: null,
      conditionBefore: null,
      lastProgress: null,
      deadline: null,
      secondsLeft: 500,
      message: '',
    },
    blockers: [],
    noController: null,
    ...over,
  } as RolloutState
}

const judge = (s: RolloutState, d = deployment(), opts = {}) =>
  judgeGate(d, s, NEW_RS, NOW, {...DEFAULT_GATE_OPTIONS, ...opts})

describe('judgeGate: done by kubectl’s rule, failed on dead ends', () => {
  it('is done when kubectl rollout status is; with --settled only once no old pod terminates', () => {
    const done = state({
      rolloutStatus: {message: 'deployment "web" successfully rolled out', done: true, error: false},
    })
    expect(judge(done)).toMatchObject({phase: 'Done', reason: 'RolloutComplete'})
    expect(judge(done, deployment(), {settled: true})).toMatchObject({
      phase: 'Progressing',
      reason: 'OldPodsTerminating',
    })
    expect(judge({...done, settled: true}, deployment(), {settled: true}).phase).toBe('Done')
  })

  it('fails at once on image pull errors and CreateContainerConfigError of a new pod, not of an old one', () => {
    for (const code of [
      'ImagePullBackOff',
      'ErrImagePull',
      'InvalidImageName',
      'CreateContainerConfigError',
    ] as const) {
      const j = judge(state({blockers: [blocker(code)]}))
      expect(j, code).toMatchObject({
        phase: 'Failed',
        reason: code,
        pod: {name: `${NEW_RS}-abcde`, container: 'app', previous: false},
      })
    }
    const old = blocker('ImagePullBackOff', {replicaSet: 'web-old'})
    expect(judge(state({blockers: [old]})).phase).toBe('Progressing')
  })

  it('fails a crash loop once a container restarted --max-restarts times, with its previous log', () => {
    const once = blocker('CrashLoopBackOff', {restarts: 1})
    expect(judge(state({blockers: [once]})).phase).toBe('Progressing')
    expect(judge(state({blockers: [once]}), deployment(), {maxRestarts: 1})).toMatchObject({
      phase: 'Failed',
      reason: 'CrashLoopBackOff',
      pod: {previous: true, hasLog: true},
    })
    expect(judge(state({blockers: [blocker('CrashLoopBackOff', {restarts: 2})]})).phase).toBe('Failed')
  })

  it('fails Unschedulable pods only after --unschedulable-grace', () => {
    const since = (ms: number) => new Date(NOW - ms).toISOString()
    expect(judge(state({blockers: [blocker('Unschedulable', {since: since(59_000)})]})).phase).toBe(
      'Progressing',
    )
    expect(judge(state({blockers: [blocker('Unschedulable', {since: since(60_000)})]})).phase).toBe('Failed')
    expect(
      judge(state({blockers: [blocker('Unschedulable', {since: since(60_000)})]}), deployment(), {
        unschedulableGraceMs: 120_000,
      }).phase,
    ).toBe('Progressing')
  })

  it('fails FailedCreate from a quota, not from other refusals that may clear', () => {
    const quota = blocker('ReplicaFailure', {
      object: {kind: 'ReplicaSet', name: NEW_RS},
      message: 'cannot create pods: FailedCreate: pods "web-x" is forbidden: exceeded quota: compute',
    })
    expect(judge(state({blockers: [quota]}))).toMatchObject({phase: 'Failed', reason: 'ReplicaFailure'})
    expect(judge(state({blockers: [quota]})).pod).toBeUndefined()
    const other = {...quota, message: 'cannot create pods: FailedCreate: admission webhook timed out'}
    expect(judge(state({blockers: [other]})).phase).toBe('Progressing')
  })

  it('fails on the progress deadline always, on a pause unless --paused-ok, and on no controller acting', () => {
    const deadline = state({
      verdict: {code: 'DeadlineExceeded', reason: 'ProgressDeadlineExceeded', message: 'no progress'},
      rolloutStatus: {
        message: 'error: deployment "web" exceeded its progress deadline',
        done: false,
        error: true,
      },
    })
    expect(judge(deadline, deployment(), {failFast: false})).toMatchObject({
      phase: 'Failed',
      reason: 'ProgressDeadlineExceeded',
    })
    const paused = state({verdict: {code: 'Paused', reason: 'PausedMidRollout', message: 'paused'}})
    expect(judge(paused, deployment({paused: true}))).toMatchObject({
      phase: 'Failed',
      reason: 'PausedMidRollout',
    })
    expect(judge(paused, deployment({paused: true}), {pausedOk: true}).phase).toBe('Done')
    const absent = state({
      noController: {
        code: 'NoControllerActing',
        sign: 'GenerationNotObserved',
        since: '',
        message: 'no controller',
      },
    })
    expect(judge(absent)).toMatchObject({phase: 'Failed', reason: 'NoControllerActing'})
  })

  it('--fail-fast=false waits for the deadline on every dead end', () => {
    const s = state({blockers: [blocker('ImagePullBackOff'), blocker('CrashLoopBackOff', {restarts: 9})]})
    expect(judge(s, deployment(), {failFast: false}).phase).toBe('Progressing')
    expect(
      judge(state({verdict: {code: 'Paused', reason: 'Paused', message: ''}}), deployment({paused: true}), {
        failFast: false,
      }).phase,
    ).toBe('Progressing')
  })
})

function row(name: string, phase: GateRow['phase'], reason: string, message = `${name}: ${reason}`): GateRow {
  return {
    ...gateRow({ref: {namespace: 'shop', name}, judgement: {phase, reason, message}}),
    replicas: {desired: 2, updated: 2, ready: phase === 'Done' ? 2 : 0, available: phase === 'Done' ? 2 : 0},
    decidedAt: '2026-12-05T11:59:56Z',
  }
}

const GATES = {values: {}}

describe('nextJudgementAt: when time alone may change a judgement (the gate judges again then, not at every tick)', () => {
  const at = (ms: number) => new Date(NOW + ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
  const next = (s: RolloutState, d = deployment(), hints = {}) =>
    nextJudgementAt(d, s, NOW, DEFAULT_GATE_OPTIONS, hints)
  const running = (deadline: string) =>
    state({progress: {...state().progress, deadline, secondsLeft: (Date.parse(deadline) - NOW) / 1000}})

  it('is undefined for a Deployment only its objects can move', () => {
    expect(next(state())).toBeUndefined()
  })

  it('is a second past the progress deadline, or past an Unschedulable pod’s grace, whichever comes first', () => {
    expect(next(running(at(30_000)))).toBe(NOW + 31_000)
    const unschedulable = (since: number) =>
      state({...running(at(120_000)), blockers: [blocker('Unschedulable', {since: at(since)})]})
    // Scheduling failed 10 s ago: the 60 s grace ends in 50 s, before the deadline.
    expect(next(unschedulable(-10_000))).toBe(NOW + 51_000)
    // The grace is judged at NOW + 51 s: the gate fails it there (judgeGate's own rule).
    expect(
      judgeGate(deployment(), unschedulable(-10_000), NEW_RS, NOW + 51_000, DEFAULT_GATE_OPTIONS).phase,
    ).toBe('Failed')
    expect(judgeGate(deployment(), unschedulable(-10_000), NEW_RS, NOW, DEFAULT_GATE_OPTIONS).phase).toBe(
      'Progressing',
    )
    // Passed long ago: nothing left to wait for but the next threshold (none here).
    expect(next(running(at(-60_000)))).toBeUndefined()
  })

  it('wakes when the no-controller grace ends: an unobserved generation, a deadline left unmarked', () => {
    const unobserved = {...deployment(), metadata: {...deployment().metadata, generation: 3}} as Deployment
    const since = NOW - 60_000
    const due = next(state(), unobserved, {generationUnobservedSince: since}) as number
    expect(due).toBe(since + NO_CONTROLLER_AFTER_MS + 1000)
    // noControllerSigns agrees: none just before the grace ends, one at the instant the gate judges again.
    const hints = {generationUnobservedSince: since}
    expect(noControllerSigns(unobserved, since + NO_CONTROLLER_AFTER_MS, hints)).toBeUndefined()
    expect(noControllerSigns(unobserved, due, hints)?.sign).toBe('GenerationNotObserved')
    const stuck = {
      ...deployment({progressDeadlineSeconds: 600}),
      status: {
        observedGeneration: 2,
        replicas: 2,
        updatedReplicas: 1,
        conditions: [
          {type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', lastUpdateTime: at(-700_000)},
        ],
      },
    } as Deployment
    // Its deadline passed 100 s ago, unmarked: the sign shows 5 minutes after the deadline.
    const unmarked = next(running(at(-100_000)), stuck) as number
    expect(unmarked).toBe(NOW - 100_000 + NO_CONTROLLER_AFTER_MS + 1000)
    expect(noControllerSigns(stuck, unmarked - 1000)).toBeUndefined()
    expect(noControllerSigns(stuck, unmarked)?.sign).toBe('DeadlineNotMarked')
  })
})

describe('the gate’s summary and outputs', () => {
  const rows = [
    row('web', 'Done', 'RolloutComplete'),
    row('cart', 'Failed', 'ImagePullBackOff', 'cannot pull "x:1" <here> & 50%\nsecond line'),
    row('api', 'Done', 'RolloutComplete'),
  ]
  const failed = gateSummary(rows, {elapsed: 9000, now: NOW}, GATES)

  it('says which failed, failures first; a timeout names what it still waited for', () => {
    expect(failed).toMatchObject({
      kind: 'RolloutGateResult',
      result: 'Failed',
      message: '2 of 3 Deployments rolled out; 1 failed: shop/cart (ImagePullBackOff).',
      counts: {total: 3, done: 2, failed: 1, pending: 0},
    })
    expect(failed.items.map((r) => r.deployment.name)).toEqual(['cart', 'api', 'web'])
    const waiting = gateSummary(
      [row('web', 'Done', 'RolloutComplete'), row('db', 'Progressing', 'PodsNotReady')],
      {
        elapsed: 300_000,
        now: NOW,
        timedOut: 300_000,
      },
      GATES,
    )
    expect(waiting.result).toBe('TimedOut')
    expect(waiting.message).toBe(
      'timed out after 5m: 1 of 2 Deployments rolled out; still waiting for shop/db (PodsNotReady).',
    )
    expect(gateSummary([row('web', 'Done', 'RolloutComplete')], {elapsed: 1, now: NOW}, GATES).result).toBe(
      'Succeeded',
    )
  })

  it('JUnit: escaped, one testcase per Deployment, one failure', () => {
    const xml = junitXml(failed, 20)
    expect(xml).toContain('<testsuites name="rollout gate" tests="3" failures="1" errors="0" time="9.000">')
    expect(xml.match(/<testcase /g)).toHaveLength(3)
    expect(xml).toContain('<testcase classname="deployment.shop" name="web" time="5.000"/>')
    expect(xml).toContain(
      '<failure type="ImagePullBackOff" message="cannot pull &quot;x:1&quot; &lt;here&gt; &amp; 50%\nsecond line">',
    )
    expect(xml).not.toMatch(/<here>|& 50/)
  })

  it('GitHub: one ::error per failed Deployment, its data escaped', () => {
    expect(githubAnnotations(failed)).toEqual([
      '::error title=deployment shop/cart failed%3A ImagePullBackOff::cannot pull "x:1" <here> & 50%25%0Asecond line',
    ])
  })

  it('lines and the closing report are plain, one line each', () => {
    expect(rowLine(rows[0] as GateRow, NOW)).toBe(
      '12:00:00 deployment shop/web done 2/2 ready, 2 updated: Error from server (NotFound): deployments.apps "web" not found',
    )
    const lines = summaryLines(failed, 20)
    expect(lines[0]).toBe('deployment shop/cart failed: ImagePullBackOff (verdict Progressing/NotFound)')
    expect(lines.at(-1)).toBe(
      'rollout gate failed: 2 of 3 Deployments rolled out; 1 failed: shop/cart (ImagePullBackOff).',
    )
    expect(lines.every((l) => !l.includes('\n'))).toBe(true)
  })

  it('the view fits 40 columns: failures first, names and reasons cut with an ellipsis, no colour codes', () => {
    const many = [
      ...rows,
      {...row('a-very-long-deployment-name-indeed', 'Progressing', 'ProportionalScaling'), eta: 65_000},
    ]
    const text = gateViewToString(many, 12_000, 40)
    const lines = text.split('\n')
    expect(lines.every((l) => [...l].length <= 40)).toBe(true)
    expect(lines[0]).toBe('2/4 done, 1 failed · 12s')
    expect(lines[2]).toMatch(/^✖ cart /)
    expect(lines[3]).toMatch(/^↻ a-very-long-deploym…/)
    expect(text).toContain('ImagePul')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for escape codes
    expect(text).not.toMatch(/\u001b\[/)
    const wide = gateViewToString(many, 12_000, 100)
    expect(wide.split('\n')[1]).toMatch(/NAME +READY +UPD +PHASE +ETA +REASON/)
    expect(wide).toContain('~65s')
  })
})

describe('warningRows', () => {
  it('keeps the Warning events about the Deployment’s objects, newest first', () => {
    const ev = (name: string, reason: string, type: string, last: string) => ({
      type,
      reason,
      message: `${reason} of ${name}`,
      involvedObject: {kind: 'Pod', name},
      count: 2,
      lastTimestamp: last,
    })
    const rows = warningRows(
      [
        ev('web-1', 'BackOff', 'Warning', '2026-12-05T11:00:00Z'),
        ev('web-2', 'Failed', 'Warning', '2026-12-05T11:05:00Z'),
        ev('web-2', 'Pulled', 'Normal', '2026-12-05T11:06:00Z'),
        ev('other', 'Failed', 'Warning', '2026-12-05T11:07:00Z'),
      ],
      new Set(['Pod/web-1', 'Pod/web-2']),
    )
    expect(rows.map((r) => `${r.reason} ${r.object.name} x${r.count}`)).toEqual([
      'Failed web-2 x2',
      'BackOff web-1 x2',
    ])
  })
})
