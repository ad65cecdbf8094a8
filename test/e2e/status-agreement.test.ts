// explain and rollout watch read one status model: for the same Deployment at the same --now they
// print the same verdict, reason code, progress clock (deadline, seconds left, message) and kubectl
// rollout status line, on files (the simulation's first step is the input as loaded) and live (the
// test API server runs no controller, so the live watch's first update is the objects as stored).
// The same model says when no controller acts (issue 14, item 5): on files and live alike.

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import type {ExplainResult, Explanation} from '../../src/explain/types.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cliAsync, ROOT} from './helpers.js'

interface Case {
  name: string
  given: {file: string; namespace: string; deployment: string; now: string}
  /** What both must say (the agreement itself is checked for every case). */
  want: {verdict: string; noController: boolean}
}

const cases: Case[] = [
  {
    name: 'a rolling update under way',
    given: {file: 'rolling-update.yaml', namespace: 'demo', deployment: 'web', now: '2026-11-29T10:00:10Z'},
    want: {verdict: 'Progressing/ScalingDown', noController: false},
  },
  {
    name: 'a stuck image pull, the deadline firing now',
    given: {file: 'stuck-image-pull.yaml', namespace: 'demo', deployment: 'api', now: '2026-11-29T10:00:00Z'},
    want: {verdict: 'DeadlineExceeded/ImagePullBackOff', noController: false},
  },
  {
    name: 'the same, 62 hours later: no controller marked the deadline',
    given: {file: 'stuck-image-pull.yaml', namespace: 'demo', deployment: 'api', now: '2026-12-02T00:48:00Z'},
    want: {verdict: 'DeadlineExceeded/ImagePullBackOff', noController: true},
  },
]

interface Step {
  kind: string
  status: string
  verdict: {code: string; reason: string; message: string}
  progress: {state: string; deadline: string | null; secondsLeft: number | null; message: string}
  noController: {code: string; message: string} | null
}

function firstStep(stdout: string): Step {
  const steps = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Step)
  const first = steps.find((s) => s.kind === 'Step')
  if (!first) throw new Error(`no Step in:\n${stdout}`)
  return first
}

function explanation(stdout: string): Explanation {
  const doc = JSON.parse(stdout) as ExplainResult
  const e = doc.items[0]
  if (!e) throw new Error(`no explanation in:\n${stdout}`)
  return e
}

/** The two readings agree, and say what the case wants. */
function expectAgreement(e: Explanation, step: Step, want: Case['want']): void {
  expect(step.verdict).toEqual(e.verdict)
  expect(`${step.verdict.code}/${step.verdict.reason}`).toBe(want.verdict)
  expect(step.progress).toEqual({
    state: e.progress.state,
    deadline: e.progress.deadline,
    secondsLeft: e.progress.secondsLeft,
    message: e.progress.message,
  })
  expect(step.status).toBe(e.rolloutStatus.message)
  const dead = e.deadEnds.find((d) => d.code === 'NoControllerActing')
  expect(dead !== undefined).toBe(want.noController)
  expect(step.noController !== null).toBe(want.noController)
  if (dead) expect(step.noController?.message).toBe(dead.message)
}

describe('explain and rollout watch agree on files', () => {
  it.each(cases)('$name', async ({given, want}) => {
    const common = [given.deployment, '-f', join(ROOT, 'examples', given.file), '-n', given.namespace]
    const [explain, watch] = await Promise.all([
      cliAsync(['explain', ...common, '--now', given.now, '-o', 'json']),
      cliAsync(['rollout', 'watch', ...common, '--now', given.now, '-o', 'json', '--max-time', '1s']),
    ])
    expect(explain.stderr).toBe('')
    expectAgreement(explanation(explain.stdout), firstStep(watch.stdout), want)
  })

  it('line mode says once that no controller seems to act', async () => {
    const {given} = cases[2]!
    const r = await cliAsync([
      'rollout',
      'watch',
      given.deployment,
      '-f',
      join(ROOT, 'examples', given.file),
      '-n',
      given.namespace,
      '--now',
      given.now,
      '--line-mode',
      '--max-time',
      '1s',
    ])
    const warnings = r.stdout.split('\n').filter((l) => l.includes('warning: No Deployment controller'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('the progress deadline passed 2d14h ago')
  })
})

describe('explain and rollout watch agree on a live cluster without a controller', () => {
  let server: ApiServer
  let env: NodeJS.ProcessEnv

  beforeAll(async () => {
    const objects = [...new Set(cases.map((c) => c.given.file))].flatMap(
      (f) => (parse(readFileSync(join(ROOT, 'examples', f), 'utf8')) as {items: unknown[]}).items,
    )
    server = await startApiServer({objects})
    env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
  })

  afterAll(async () => {
    await server?.close()
  })

  it.each(cases)('$name', async ({given, want}) => {
    const common = [given.deployment, '-n', given.namespace, '--now', given.now, '-o', 'json']
    const [explain, watch] = await Promise.all([
      cliAsync(['explain', ...common], {env}),
      cliAsync(['rollout', 'watch', ...common, '--timeout', '1s'], {env}),
    ])
    expect(explain.stderr).toBe('')
    expectAgreement(explanation(explain.stdout), firstStep(watch.stdout), want)
  })
})
