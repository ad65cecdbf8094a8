// `explain` through the BUILT command line on every bundled example at a fixed --now: the verdict,
// the numbers, the blockers and the next actions from -o json, and the text report against the
// reviewed golden files in test/golden/explain (UPDATE_GOLDEN=1 rewrites them; read the diff).

import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import type {ExplainResult, Explanation} from '../../src/explain/types.js'
import {cli, ROOT, tempFiles} from './helpers.js'

/** Each example with the selection and clock of its scenario (see examples/README.md). */
const EXAMPLES: Record<string, string[]> = {
  'autoscaler-rollout': ['-n', 'demo', '--now', '2026-11-29T10:00:00Z'],
  'bad-image-12': ['-n', 'demo', '--now', '2026-11-29T10:00:00Z'],
  'deadline-exceeded': ['-n', 'demo', '--now', '2026-11-29T10:10:00Z'],
  'hand-written': ['--now', '2026-11-29T10:00:00Z'],
  'history-limit': ['-n', 'demo', '--now', '2026-11-29T10:00:00Z'],
  multi: ['-A', '--now', '2026-11-29T10:00:00Z'],
  'new-deployment': ['-n', 'demo', '--now', '2026-11-29T10:00:01Z'],
  paused: ['-n', 'demo', '--now', '2026-11-29T10:00:00Z'],
  'paused-complete': ['-n', 'demo', '--now', '2026-11-29T10:00:00Z'],
  'quota-exceeded': ['-n', 'demo', '--now', '2026-11-29T10:00:00Z'],
  recreate: ['-n', 'demo', '--now', '2026-11-29T10:01:15Z'],
  rollback: ['-n', 'demo', '--now', '2026-11-29T10:00:00Z'],
  'rolling-update': ['-n', 'demo', '--now', '2026-11-29T10:00:10Z'],
  'scale-down': ['-n', 'demo', '--now', '2026-11-29T10:00:00Z'],
  'scale-mid-rollout': ['-n', 'demo', '--now', '2026-11-29T10:00:25Z'],
  steady: ['-n', 'demo', '--now', '2026-11-29T10:00:00Z'],
  'stuck-image-pull': ['-n', 'demo', '--now', '2026-11-29T10:00:00Z'],
  'stuck-terminating': ['-n', 'demo', '--now', '2026-11-29T10:00:00Z'],
  unschedulable: ['-n', 'demo', '--now', '2026-11-29T10:00:00Z'],
}

const GOLDEN = join(ROOT, 'test/golden/explain')
const TEXT_ENV = {NO_COLOR: '1', COLUMNS: '100'}

function explainJson(example: string): ExplainResult {
  const r = cli(['explain', '-f', `examples/${example}.yaml`, ...(EXAMPLES[example] ?? []), '-o', 'json'])
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  return JSON.parse(r.stdout) as ExplainResult
}

function one(example: string): Explanation {
  const result = explainJson(example)
  expect(result.items).toHaveLength(1)
  return result.items[0]!
}

const codes = (list: Array<{code: string}>) => list.map((x) => x.code)
const actions = (e: Explanation) =>
  e.next.actions.map((a) => `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.name}`)
const step = (e: Explanation, name: string) => e.pass.steps.find((s) => s.step === name)

it('covers every bundled example', () => {
  const bundled = readdirSync(join(ROOT, 'examples'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''))
    .sort()
  expect(Object.keys(EXAMPLES).sort()).toEqual(bundled)
})

describe('explain -o json on the examples', () => {
  it('stuck-image-pull: the deadline fires now; maxUnavailable 0 holds every old pod', () => {
    const e = one('stuck-image-pull')
    expect(e.verdict).toMatchObject({code: 'DeadlineExceeded', reason: 'ImagePullBackOff'})
    expect(e.rolloutStatus.message).toBe(
      'Waiting for deployment "api" rollout to finish: 2 out of 3 new replicas have been updated...',
    )
    expect(e.pass.fenceposts).toMatchObject({
      maxSurge: {written: '50%', resolved: 2, rounding: '50% of 3 = 1.5, rounded up → 2'},
      maxUnavailable: {written: 0, resolved: 0},
      maxTotalPods: 5,
      minAvailable: 3,
    })
    expect(step(e, 'scaleUp')?.numbers).toMatchObject({currentPods: 5, maxTotalPods: 5, budget: 0})
    expect(step(e, 'scaleDown')?.numbers).toEqual({
      oldPods: 3,
      allPods: 5,
      minAvailable: 3,
      newUnavailable: 2,
      budget: 0,
    })
    expect(e.progress).toMatchObject({
      state: 'FiresThisPass',
      lastProgress: '2026-11-29T09:48:01Z',
      deadline: '2026-11-29T09:58:01Z',
      secondsLeft: -119,
    })
    expect(e.blockers.map((b) => [b.code, b.object.name, b.image])).toEqual([
      ['ErrImagePull', 'api-6f64564f4d-4wgmn', 'registry.example.com/api:v2.1-typo'],
      ['ImagePullBackOff', 'api-6f64564f4d-blwqh', 'registry.example.com/api:v2.1-typo'],
    ])
    expect(codes(e.deadEnds)).toEqual(['MaxUnavailableZeroStuck'])
    expect(actions(e)).toEqual(['update deployments/status api'])
    expect(e.next.actions[0]?.change).toBe(
      'Progressing: True (ReplicaSetUpdated) -> False (ProgressDeadlineExceeded)',
    )
    expect(e.next.requeue).toBeNull()
  })

  it('deadline-exceeded: already failed; kubectl rollout status errors', () => {
    const e = one('deadline-exceeded')
    expect(e.verdict).toMatchObject({code: 'DeadlineExceeded', reason: 'ImagePullBackOff'})
    expect(e.rolloutStatus).toEqual({
      message: 'error: deployment "api" exceeded its progress deadline',
      done: false,
      error: true,
    })
    expect(e.progress.state).toBe('Exceeded')
    expect(codes(e.deadEnds)).toEqual(['MaxUnavailableZeroStuck'])
    expect(e.next.actions).toEqual([])
  })

  it('hand-written: defaults resolve to surge 1, unavailable 0; the first ReplicaSet is created', () => {
    const e = one('hand-written')
    expect(e.deployment).toEqual({namespace: 'default', name: 'hello'})
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'NewReplicaSetCreated'})
    expect(e.pass.fenceposts).toMatchObject({
      maxSurge: {resolved: 1, rounding: '25% of 1 = 0.25, rounded up → 1'},
      maxUnavailable: {resolved: 0, rounding: '25% of 1 = 0.25, rounded down → 0'},
    })
    expect(actions(e)[0]).toMatch(/^create replicasets hello-/)
  })

  it('history-limit: deletes revisions 2-4, keeps revision 1 for its stale status', () => {
    const e = one('history-limit')
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'OldReplicasPending'})
    expect(e.pass.cleanup).toMatchObject({
      revisionHistoryLimit: 2,
      oldReplicaSets: 6,
      excess: 4,
      deletes: ['web-6bdc546d9c', 'web-65fc6ccf56', 'web-68484fdf94'],
      skipped: [
        {replicaSet: 'web-9dc7579b6', reason: 'status.replicas is 1: the ReplicaSet still reports pods'},
      ],
      waits: null,
    })
    expect(e.replicaSets.map((r) => r.revision)).toEqual(['7', '6', '5', '4', '3', '2', '1'])
    expect(actions(e)).toEqual([
      'delete replicasets web-6bdc546d9c',
      'delete replicasets web-65fc6ccf56',
      'delete replicasets web-68484fdf94',
      'update deployments/status web',
    ])
  })

  it('multi: six Deployments in two namespaces', () => {
    const result = explainJson('multi')
    const by = Object.fromEntries(
      result.items.map((e) => [`${e.deployment.namespace}/${e.deployment.name}`, e]),
    )
    expect(
      Object.fromEntries(Object.entries(by).map(([k, e]) => [k, `${e.verdict.code}/${e.verdict.reason}`])),
    ).toEqual({
      'demo/api': 'Progressing/PodsNotReady',
      'demo/web': 'Complete/RolloutComplete',
      'shop/cart-cache': 'Complete/RolloutComplete',
      'shop/checkout': 'DeadlineExceeded/CrashLoopBackOff',
      'shop/frontend': 'Complete/RolloutComplete',
      'shop/reports': 'Complete/RolloutComplete',
    })
    expect(by['demo/api']?.next.requeue).toEqual({kind: 'after', seconds: 582})
    expect(by['demo/api']?.blockers.map((b) => b.code)).toEqual(['NotReady'])
    expect(by['shop/checkout']?.blockers[0]).toMatchObject({
      code: 'CrashLoopBackOff',
      restarts: 6,
      lastExitCode: 1,
    })
    expect(codes(by['shop/checkout']?.deadEnds ?? [])).toEqual(['MaxUnavailableZeroStuck'])
    expect(by['shop/reports']?.pass.fenceposts).toMatchObject({replicas: 0, maxTotalPods: 0, minAvailable: 0})
    for (const e of result.items) expect(e.next.actions).toEqual([])
  })

  it('new-deployment: creates revision 1 with 3 replicas inside the surge limit', () => {
    const e = one('new-deployment')
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'NewReplicaSetCreated'})
    expect(e.rolloutStatus.message).toBe('Waiting for deployment spec update to be observed...')
    expect(step(e, 'createNewReplicaSet')).toMatchObject({
      outcome: 'creates web-cc544bdcc with 3 replicas (revision 1)',
      numbers: {replicas: 3, existingPods: 0, specReplicas: 3, maxTotalPods: 4},
    })
    expect(actions(e)).toEqual([
      'create replicasets web-cc544bdcc',
      'update deployments/status web',
      'update deployments/status web',
    ])
    expect(e.next.events.map((x) => x.message)).toEqual(['Scaled up replica set web-cc544bdcc from 0 to 3'])
  })

  it('paused: the template change waits; no deadline will fire', () => {
    const e = one('paused')
    expect(e.verdict).toMatchObject({code: 'Paused', reason: 'PausedWithPendingTemplate'})
    expect(e.pass.checks.find((c) => c.check === 'paused')?.answer).toBe('yes')
    expect(e.progress.state).toBe('Paused')
    expect(codes(e.deadEnds)).toEqual(['PausedWithPendingTemplate', 'DeadlineWillNotFire'])
    expect(e.next.actions).toEqual([])
  })

  it('paused-complete: kubectl done, kstatus InProgress, Argo CD Suspended, each saying why', () => {
    const e = one('paused-complete')
    expect(e.verdict).toMatchObject({code: 'Paused', reason: 'Paused'})
    expect(e.tools).toEqual({
      kubectl: {status: 'Done', message: 'deployment "web" successfully rolled out', outcome: 'done'},
      kstatus: {
        status: 'InProgress',
        reason: 'ReplicaSetNotAvailable',
        message: 'ReplicaSet not Available',
        outcome: 'waiting',
      },
      argocd: {status: 'Suspended', message: 'Deployment is paused', outcome: 'suspended'},
      agree: false,
      disagreement: expect.stringContaining('Argo CD says Suspended, as it does for every paused Deployment'),
    })
    expect(e.tools.disagreement).toContain('it is Unknown/DeploymentPaused')
  })

  it('scale-down: kubectl and Argo CD done, kstatus waits for the extra pods to go', () => {
    const e = one('scale-down')
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'ExtraPodsPending'})
    expect([e.tools.kubectl.status, e.tools.kstatus.status, e.tools.argocd.status]).toEqual([
      'Done',
      'InProgress',
      'Healthy',
    ])
    expect(e.tools.kstatus).toMatchObject({reason: 'ExtraPods', message: 'Pending termination: 2'})
    expect(e.tools.disagreement).toContain('kstatus says InProgress (Pending termination: 2) because')
  })

  it('the three tools agree on every other example', () => {
    const split = ['paused', 'paused-complete', 'scale-down']
    for (const example of Object.keys(EXAMPLES).filter((x) => !split.includes(x))) {
      for (const e of explainJson(example).items) {
        expect(e.tools.agree, `${example}: ${e.tools.disagreement}`).toBe(true)
        expect(e.tools.disagreement).toBeNull()
      }
    }
    // paused mid-change: kubectl and kstatus wait, Argo CD says Suspended.
    expect(one('paused').tools).toMatchObject({
      kubectl: {outcome: 'waiting'},
      kstatus: {status: 'InProgress', reason: 'LessUpdated'},
      argocd: {status: 'Suspended'},
      agree: false,
    })
  })

  it('recreate: waits for the terminating old pod; the skipped deadline check spins', () => {
    const e = one('recreate')
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'OldPodsTerminating'})
    expect(step(e, 'waitForOldPods')?.numbers).toEqual({oldPods: 1})
    expect(e.blockers.map((b) => [b.code, b.object.name])).toEqual([
      ['Terminating', 'db-migrator-77c9c4567b-hh9gf'],
    ])
    expect(e.progress.state).toBe('CheckSkipped')
    expect(codes(e.deadEnds)).toEqual(['DeadlineWillNotFire'])
    expect(e.next.requeue).toEqual({kind: 'rateLimited'})
    expect(e.pass.fenceposts).toBeNull()
  })

  it('rollback: copies revision 1 back and clears the annotation', () => {
    const e = one('rollback')
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'RollbackRequested'})
    expect(e.pass.checks.map((c) => c.answer)).toEqual([
      'no',
      '3',
      'no',
      'no',
      'yes',
      'not reached',
      'not reached',
    ])
    expect(step(e, 'rollback')?.outcome).toBe(
      'copies the template of revision 1 (web-57794f8f99) into the Deployment',
    )
    expect(actions(e)).toEqual(['update deployments web'])
    expect(e.next.events.map((x) => x.reason)).toEqual(['DeploymentRollback'])
  })

  it('rolling-update: one old pod may go; the deadline is requeued', () => {
    const e = one('rolling-update')
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'ScalingDown'})
    expect(e.pass.fenceposts).toMatchObject({
      maxSurge: {resolved: 1},
      maxUnavailable: {resolved: 1},
      minAvailable: 3,
    })
    expect(step(e, 'scaleDown')).toMatchObject({
      outcome: 'scales web-6b78dbb95b down 3 → 2',
      numbers: {allPods: 5, minAvailable: 3, newUnavailable: 1, budget: 1, availablePods: 4},
    })
    expect(e.blockers.map((b) => b.code)).toEqual(['ContainerCreating'])
    expect(actions(e)).toEqual(['update replicasets web-6b78dbb95b'])
    expect(e.next.requeue).toEqual({kind: 'after', seconds: 597})
    expect(e.progress).toMatchObject({state: 'Running', deadline: '2026-11-29T10:10:06Z'})
  })

  it('scale-mid-rollout: proportional shares from the max-replicas annotations', () => {
    const e = one('scale-mid-rollout')
    expect(e.verdict).toMatchObject({code: 'Progressing', reason: 'ProportionalScaling'})
    expect(e.pass.checks.find((c) => c.check === 'scalingEvent')?.detail).toContain(
      'desired-replicas annotation says 8 but spec.replicas is 12',
    )
    expect(step(e, 'proportionalScaling')?.numbers).toEqual({
      allowedSize: 15,
      current: 10,
      toAdd: 5,
      leftover: 0,
    })
    expect(step(e, 'proportionalScaling')?.shares?.map((s) => [s.replicaSet, s.from, s.to])).toEqual([
      ['web-6b78dbb95b', 6, 9],
      ['web-cc544bdcc', 4, 6],
    ])
    expect(actions(e)).toEqual([
      'update replicasets web-6b78dbb95b',
      'update replicasets web-cc544bdcc',
      'update deployments/status web',
    ])
  })

  it('steady: complete, nothing to do', () => {
    const e = one('steady')
    expect(e.verdict).toMatchObject({code: 'Complete', reason: 'RolloutComplete'})
    expect(e.rolloutStatus).toMatchObject({done: true})
    expect(e.blockers).toEqual([])
    expect(e.deadEnds).toEqual([])
    expect(e.next).toMatchObject({actions: [], requeue: null, error: null})
  })

  it('-o yaml carries the same document', () => {
    const args = ['explain', '-f', 'examples/steady.yaml', '-n', 'demo', '--now', '2026-11-29T10:00:00Z']
    const yaml = cli([...args, '-o', 'yaml'])
    expect(yaml.code).toBe(0)
    expect(parse(yaml.stdout)).toEqual(JSON.parse(cli([...args, '-o', 'json']).stdout))
  })
})

describe('explain text output', () => {
  for (const example of Object.keys(EXAMPLES)) {
    it(`${example} matches its reviewed golden file`, () => {
      const r = cli(['explain', '-f', `examples/${example}.yaml`, ...(EXAMPLES[example] ?? [])], {
        env: TEXT_ENV,
      })
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      const file = join(GOLDEN, `${example}.txt`)
      if (process.env.UPDATE_GOLDEN === '1') {
        mkdirSync(GOLDEN, {recursive: true})
        writeFileSync(file, r.stdout)
      }
      expect(existsSync(file), `${file} is missing: run with UPDATE_GOLDEN=1 and review it`).toBe(true)
      expect(r.stdout).toBe(readFileSync(file, 'utf8'))
      for (const line of r.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100)
      expect(r.stdout).not.toContain('\u001b[')
    })
  }

  // Issue 25 item 4: twelve pods in the same state are one blocker, and their 36 Warning events
  // are grouped as kubectl describe counts repeats (`2s (x168 over 3m55s)`); -o json keeps them all.
  it('groups the blockers and events of 12 pods that cannot pull their image', () => {
    const args = ['explain', 'web', '-f', 'examples/bad-image-12.yaml', ...(EXAMPLES['bad-image-12'] ?? [])]
    const text = cli(args, {env: TEXT_ENV})
    expect(text.code).toBe(0)
    const lines = text.stdout.trimEnd().split('\n')
    expect(lines.length).toBeLessThanOrEqual(60)
    // A terminal's usual 80 columns too (COLUMNS is the width explain wraps to off a terminal).
    const narrow = cli(args, {env: {...TEXT_ENV, COLUMNS: '80'}})
    expect(narrow.code).toBe(0)
    const narrowLines = narrow.stdout.trimEnd().split('\n')
    expect(narrowLines.length).toBeLessThanOrEqual(60)
    for (const line of narrowLines) expect(line.length, line).toBeLessThanOrEqual(80)
    const blockers = lines.slice(lines.indexOf('Blockers') + 1, lines.indexOf('Warning events') - 1)
    expect(blockers[0]).toMatch(
      /^ {2}ImagePullBackOff\/ErrImagePull 12 pods \(web-754cf8b797-7fkzd and 11 more\): /,
    )
    expect(blockers.filter((l) => /^ {2}\S/.test(l))).toHaveLength(1)
    expect(text.stdout).toContain('2s (x168 over 3m55s)  Failed  Error: ImagePullBackOff')
    expect(text.stdout).toContain('12 pods (Pod/web-754cf8b797-mz3dv and 11 more):')

    const e = one('bad-image-12')
    expect(e.blockers).toHaveLength(12)
    expect(new Set(e.blockers.map((b) => b.object.name)).size).toBe(12)
    expect(e.events).toHaveLength(36)
    expect(e.events?.every((ev) => ev.type === 'Warning')).toBe(true)
    expect(e.events?.reduce((n, ev) => n + ev.count, 0)).toBe(12 * (5 + 5 + 14))
  })

  it('wraps to COLUMNS', () => {
    const r = cli(
      ['explain', '-f', 'examples/stuck-image-pull.yaml', '-n', 'demo', '--now', '2026-11-29T10:00:00Z'],
      {
        env: {NO_COLOR: '1', COLUMNS: '72'},
      },
    )
    expect(r.code).toBe(0)
    // Prose (indented) wraps; tables keep their natural width once nothing more can wrap.
    const prose = r.stdout.split('\n').filter((l) => l.startsWith(' '))
    for (const line of prose) expect(line.length, line).toBeLessThanOrEqual(72)
    expect(r.stdout).toContain('NAME             IMAGES')
  })
})

describe('explain on input the API server would refuse (--validate ignore)', () => {
  const steady = readFileSync(join(ROOT, 'examples/steady.yaml'), 'utf8')
  const run = (text: string) => {
    const dir = tempFiles({'d.yaml': text})
    const r = cli([
      'explain',
      '-f',
      join(dir, 'd.yaml'),
      '-n',
      'demo',
      '--now',
      '2026-11-29T10:00:00Z',
      '--validate',
      'ignore',
      '-o',
      'json',
    ])
    expect(r.code).toBe(0)
    return (JSON.parse(r.stdout) as ExplainResult).items[0]!
  }

  it('an empty selector is Invalid/SelectsEverything and only warns', () => {
    const e = run(
      steady.replace('    selector:\n      matchLabels:\n        app: web\n', '    selector: {}\n'),
    )
    expect(e.verdict).toMatchObject({code: 'Invalid', reason: 'SelectsEverything'})
    expect(e.next.events.map((x) => x.reason)).toEqual(['SelectingAll'])
  })

  it('an unknown strategy is Invalid/UnknownStrategy and the pass fails', () => {
    const e = run(steady.replace('type: RollingUpdate', 'type: BlueGreen'))
    expect(e.verdict).toMatchObject({code: 'Invalid', reason: 'UnknownStrategy'})
    expect(e.next).toMatchObject({
      requeue: {kind: 'rateLimited'},
      error: 'unexpected deployment strategy type: BlueGreen',
    })
  })
})

describe('explain usage', () => {
  it('is documented in --help', () => {
    const r = cli(['explain', '--help'])
    expect(r.code).toBe(0)
    for (const text of [
      '-o, --output',
      'table|wide|json|yaml|name|jsonpath=TEMPLATE',
      '--no-headers',
      'docs/explain-reasons.md',
      'kubectl deployctl explain',
    ]) {
      expect(r.stdout).toContain(text)
    }
  })

  it('names a missing Deployment as kubectl does', () => {
    const r = cli(['explain', 'nope', '-f', 'examples/steady.yaml', '-n', 'demo'])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe('error: deployments.apps "nope" not found\n')
  })

  it('points to the namespace when nothing is selected in the one given', () => {
    const r = cli(['explain', '-f', 'examples/steady.yaml', '-n', 'default', '--now', '2026-11-29T10:00:00Z'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('No resources found in default namespace.')
    expect(r.stderr).toContain('use -n demo')
  })
})
