// `rollout watch` on files through the BUILT command line: line mode and NDJSON, exit codes 0 and 1,
// usage errors. Piped output is not a terminal, so the ink view is never started here.

import {describe, expect, it} from 'vitest'
import {cli} from './helpers.js'

const EXAMPLE = ['-f', 'examples/rolling-update.yaml', '-n', 'demo']
const NOW = ['--now', '2026-11-29T10:00:10Z']

describe('rollout watch, line mode', () => {
  it('plays the rolling update to completion in kubectl words and exits 0', () => {
    const r = cli(['rollout', 'watch', 'web', ...EXAMPLE, ...NOW, '--line-mode'])
    // The file holds a snapshot: simulated, and said so on stderr.
    expect(r.stderr).toBe(
      'rollout watch: the files hold a snapshot (objects with status, ReplicaSets or pods): simulating deployment "web" on a virtual clock (--live waits for it on the cluster instead)\n',
    )
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(
      `${[
        'web [10:00:10 +0s] Waiting for deployment "web" rollout to finish: 2 out of 4 new replicas have been updated...',
        'web [10:00:10 +0s] Scaled down replica set web-6b78dbb95b from 3 to 2',
        'web [10:00:10 +0s] Scaled up replica set web-cc544bdcc from 2 to 3',
        'web [10:00:10 +0s] Waiting for deployment "web" rollout to finish: 3 out of 4 new replicas have been updated...',
        'web [10:00:16 +6s] Scaled down replica set web-6b78dbb95b from 2 to 1',
        'web [10:00:16 +6s] Scaled up replica set web-cc544bdcc from 3 to 4',
        'web [10:00:16 +6s] Waiting for deployment "web" rollout to finish: 1 old replicas are pending termination...',
        'web [10:00:20 +10s] Scaled down replica set web-6b78dbb95b from 1 to 0',
        'web [10:00:20 +10s] Waiting for deployment "web" rollout to finish: 3 of 4 updated replicas are available...',
        'web [10:00:26 +16s] summary: took 16s, at most 6 pods, at least 3 available, progress deadline not exceeded, as kube-controller-manager v1.37',
        'web [10:00:26 +16s] deployment "web" successfully rolled out',
      ].join('\n')}\n`,
    )
  })

  it('prints lines, without escape codes, whenever stdout is not a terminal', () => {
    const r = cli(['rollout', 'watch', 'deployment/web', ...EXAMPLE, ...NOW])
    expect(r.code).toBe(0)
    expect(r.stdout).not.toContain('\u001b')
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(
      'web [10:00:26 +16s] deployment "web" successfully rolled out',
    )
  })

  it('ends with the progress deadline error and exits 1 when a new pod keeps failing', () => {
    const r = cli(['rollout', 'watch', 'web', ...EXAMPLE, ...NOW, '--line-mode', '--fail-new-pods', '1'])
    expect(r.code).toBe(1)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines).toContain('web [10:00:15 +5s] pod/web-cc544bdcc-zzqph: Failed: Error: ImagePullBackOff')
    expect(lines.at(-1)).toBe('web [10:10:31 +10m] error: deployment "web" exceeded its progress deadline')
  })

  it('stops at --max-time with exit 1, as kubectl --timeout does', () => {
    const r = cli([
      'rollout',
      'watch',
      'web',
      ...EXAMPLE,
      ...NOW,
      '--line-mode',
      '--fail-new-pods',
      '50%',
      '--max-time',
      '2m',
    ])
    expect(r.code).toBe(1)
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(
      'web [10:02:10 +2m] error: timed out waiting for the condition',
    )
  })

  it('starts the clock at the newest timestamp in the files by default', () => {
    const r = cli(['rollout', 'watch', 'web', ...EXAMPLE, '--line-mode'])
    expect(r.code).toBe(0)
    expect(r.stdout.split('\n')[0]).toMatch(/^web \[10:00:06 \+0s\] /)
  })

  it('gives the same output on every run', () => {
    const args = ['rollout', 'watch', 'web', ...EXAMPLE, '--line-mode', '--fail-new-pods', '2']
    expect(cli(args).stdout).toBe(cli(args).stdout)
  })

  it('reports a paused Deployment that cannot progress and exits 1', () => {
    const r = cli(['rollout', 'watch', 'worker', '-f', 'examples/paused.yaml', '-n', 'demo', '--line-mode'])
    expect(r.code).toBe(1)
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /error: deployment "worker" rollout cannot progress: the Deployment is paused$/,
    )
  })
})

describe('rollout watch -o json', () => {
  function ndjson(stdout: string): Array<Record<string, unknown>> {
    return stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
  }

  it('prints one Step object per timeline entry and a final Summary, exit 0', () => {
    const r = cli(['rollout', 'watch', 'web', ...EXAMPLE, ...NOW, '-o', 'json'])
    expect(r.code).toBe(0)
    const objects = ndjson(r.stdout)
    const steps = objects.slice(0, -1)
    expect(steps.every((o) => o.kind === 'Step')).toBe(true)
    expect(steps[0]).toMatchObject({step: 0, t: 0, time: '2026-11-29T10:00:10Z', actions: []})
    expect(steps[1]).toMatchObject({
      step: 1,
      actions: [
        {actor: 'deployment-controller', verb: 'update', resource: 'replicasets', summary: 'replicas 3 -> 2'},
      ],
      events: [
        {
          type: 'Normal',
          reason: 'ScalingReplicaSet',
          message: 'Scaled down replica set web-6b78dbb95b from 3 to 2',
        },
      ],
    })
    // Each step's ReplicaSet sizes never exceed replicas + maxSurge = 5 nor drop availability below 3.
    for (const s of steps) {
      const sets = s.replicaSets as Array<{replicas: number; available: number}>
      expect(sets.reduce((n, x) => n + x.replicas, 0)).toBeLessThanOrEqual(5)
      expect(sets.reduce((n, x) => n + x.available, 0)).toBeGreaterThanOrEqual(3)
    }
    expect(objects.at(-1)).toMatchObject({
      kind: 'Summary',
      outcome: 'complete',
      duration: 16,
      peakPods: 6,
      minAvailable: 3,
      deadlineExceeded: false,
      complete: true,
    })
  })

  it('summarises a missed deadline and exits 1', () => {
    const r = cli(['rollout', 'watch', 'web', ...EXAMPLE, ...NOW, '-o', 'json', '--fail-new-pods', '1'])
    expect(r.code).toBe(1)
    const last = ndjson(r.stdout).at(-1)
    expect(last).toMatchObject({
      kind: 'Summary',
      outcome: 'deadlineExceeded',
      message: 'error: deployment "web" exceeded its progress deadline',
      duration: 621,
      deadlineExceeded: true,
      complete: false,
    })
  })
})

describe('rollout watch errors', () => {
  it('rejects bad flags and arguments with exit 2', () => {
    const cases: Array<[string[], RegExp]> = [
      [['--pod-ready-after', '10'], /invalid --pod-ready-after "10"/],
      [['--terminate-after', '-1s'], /invalid --terminate-after "-1s"/],
      [['--max-time', '0'], /invalid --max-time "0"/],
      [['--fail-new-pods', 'half'], /invalid --fail-new-pods value "half"/],
      [['--speed', 'fast'], /invalid --speed "fast"/],
      [['api'], /rollout watch follows one Deployment, got 2/],
    ]
    for (const [extra, message] of cases) {
      const r = cli(['rollout', 'watch', 'web', ...EXAMPLE, ...extra])
      expect(r.code, extra.join(' ')).toBe(2)
      expect(r.stderr).toMatch(message)
      expect(r.stdout).toBe('')
    }
    const none = cli(['rollout', 'watch', ...EXAMPLE])
    expect(none.code).toBe(2)
    expect(none.stderr).toBe('error: a Deployment NAME is required\n')
  })

  it('fails with exit 1 when the Deployment is not in the files, or without files', () => {
    const r = cli(['rollout', 'watch', 'web', '-f', 'examples/rolling-update.yaml', '-n', 'default'])
    expect(r.code).toBe(1)
    // The files hold it in demo: the error says so (issue 19, namespace mistakes).
    expect(r.stderr).toBe(
      'error: deployments.apps "web" not found\nThe files hold deployment web in namespace demo: use -n demo.\n',
    )
    // Without files it watches the cluster: with no kubeconfig it says so.
    const live = cli(['rollout', 'watch', 'web'], {env: {KUBECONFIG: '', HOME: '/nonexistent'}})
    expect(live.code).toBe(1)
    expect(live.stderr).toMatch(/^error: no kubeconfig found/)
  })

  it('is listed and documented', () => {
    const r = cli(['rollout', 'watch', '--help'])
    expect(r.code).toBe(0)
    for (const text of [
      '--fail-new-pods',
      '--pod-ready-after',
      '--line-mode',
      'kubectl deployctl rollout watch',
    ]) {
      expect(r.stdout).toContain(text)
    }
  })
})
