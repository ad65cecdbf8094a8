// `plan` through the BUILT command line, offline (--current files): the cases of issue 18's "Done
// when", and the agreement of its simulation with what `rollout watch -f` plays for the same change.

import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {parse, stringify} from 'yaml'
import {cli, ROOT, tempFiles} from './helpers.js'

// biome-ignore lint/suspicious/noExplicitAny: test access to nested YAML
type Any = any

interface Item {
  deployment: {namespace: string; name: string}
  rollout: boolean
  newReplicaSet: string
  replicaSet: {name: string; revision: number} | null
  templateChanges: Array<{path: string; from: unknown; to: unknown; defaulted?: boolean}>
  otherChanges: Array<{path: string; from: unknown; to: unknown}>
  steps: Array<{atSeconds: number; replicaSet: string; role: string; from: number; to: number}>
  peakPods: number
  peakPodsWithTerminating: number
  minAvailable: number
  estimate: {p50Seconds: number; p90Seconds: number} | null
  simulation: {podReadyAfterSeconds: number; seconds: number; outcome: string}
  risks: Array<{code: string; message: string}>
}

function plan(
  args: string[],
  input?: string,
): {code: number | null; doc: {kind: string; apiVersion: string; items: Item[]}; stderr: string} {
  const r = cli(['plan', ...args, '-o', 'json', '--exit-code'], input === undefined ? {} : {input})
  expect(r.stderr).toBe('')
  return {code: r.code, doc: JSON.parse(r.stdout), stderr: r.stderr}
}

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, {recursive: true, force: true})
})

/** steady.yaml's Deployment (the first object of the List) with its image changed. */
function steadyWithImage(image: string): string {
  const text = readFileSync(join(ROOT, 'examples/steady.yaml'), 'utf8')
  return text.replace('image: nginx:1.27', `image: ${image}`).replace('generation: 1', 'generation: 2')
}

describe('plan, offline', () => {
  it('an image change starts a rollout: a new ReplicaSet, peak 4, an ETA from the example pods (exit 1)', () => {
    const {code, doc} = plan(['-f', 'examples/plan/web-image.yaml', '--current', 'examples/steady.yaml'])
    expect(code).toBe(1)
    expect(doc.kind).toBe('PlanResult')
    expect(doc.apiVersion).toBe('deployctl.kubectl.io/v1alpha3')
    const [item] = doc.items
    expect(item?.rollout).toBe(true)
    expect(item?.newReplicaSet).toBe('create')
    expect(item?.templateChanges).toEqual([
      {path: 'spec.template.spec.containers[name=nginx].image', from: 'nginx:1.27', to: 'nginx:1.28'},
    ])
    expect(item?.peakPods).toBe(4)
    expect(item?.estimate?.p50Seconds).toBeGreaterThan(0)
    // Each pod of the example took 5 s from creation to Ready.
    expect(item?.simulation.podReadyAfterSeconds).toBe(5)
    expect(item?.minAvailable).toBe(3)
  })

  it('answers on 2147483647 replicas (issue 28: it ran 9 minutes into 1.6 GB)', () => {
    const dir = tempFiles({
      'huge.yaml': steadyWithImage('nginx:1.28').replace('replicas: 3\n', 'replicas: 2147483647\n'),
    })
    dirs.push(dir)
    const {code, doc} = plan(['-f', join(dir, 'huge.yaml'), '--current', 'examples/steady.yaml'])
    expect(code).toBe(1)
    const [item] = doc.items
    expect(item?.otherChanges).toContainEqual({path: 'spec.replicas', from: 3, to: 2147483647})
    // spec.replicas + maxSurge overflows int32 in the controller, as upstream's: no new pod is created.
    expect(item?.simulation.outcome).toBe('deadlineExceeded')
    expect(item?.peakPods).toBe(2147483647)
    expect(item?.steps[0]).toMatchObject({role: 'old', from: 3, to: 2147483647})
  })

  it('a replicas-only change rolls nothing out: no template change, the current ReplicaSet (exit 0)', () => {
    const {code, doc} = plan(['-f', 'examples/plan/web-replicas.yaml', '--current', 'examples/steady.yaml'])
    expect(code).toBe(0)
    const [item] = doc.items
    expect(item?.rollout).toBe(false)
    expect(item?.newReplicaSet).toBe('none')
    expect(item?.templateChanges).toEqual([])
    expect(item?.otherChanges).toEqual([{path: 'spec.replicas', from: 3, to: 5}])
    expect(item?.steps.map((s) => [s.from, s.to])).toEqual([[3, 5]])
  })

  it('the old image proposed back mid-rollout reuses revision 1 (exit 1)', () => {
    const {code, doc} = plan([
      '-f',
      'examples/plan/web-rollback.yaml',
      '--current',
      'examples/rolling-update.yaml',
    ])
    expect(code).toBe(1)
    const [item] = doc.items
    expect(item?.newReplicaSet).toBe('reuse')
    expect(item?.replicaSet).toEqual({name: 'web-6b78dbb95b', revision: 1})
    expect(item?.risks.map((r) => r.code)).toContain('MidRollout')
  })

  it('reads PROPOSED from stdin and names the change in the table', () => {
    const text = readFileSync(join(ROOT, 'examples/plan/web-image.yaml'), 'utf8')
    const r = cli(['plan', '-f', '-', '--current', 'examples/steady.yaml'], {input: text})
    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines[0]).toMatch(/^deployment\.apps\/web: ROLLOUT/)
    expect(r.stdout).toMatch(
      /spec\.template\.spec\.containers\[name=nginx\]\.image\s+nginx:1\.27\s+->\s+nginx:1\.28/,
    )
    expect(r.stdout).toMatch(/^Peak: 4 pods/m)
    // NO_COLOR: a plain ASCII chart.
    expect(r.stdout).toContain('Pods over 15s: # new')
    expect(r.stdout).not.toContain('\u001b')
  })

  it('-o wide adds the pods after each step and keeps long values whole', () => {
    // A list value is printed as JSON, cut at 60 characters in the table.
    const args80 = Array.from({length: 8}, (_, i) => `--flag-${i}=on`)
    const long = JSON.stringify(args80)
    const proposed = steadyWithImage('nginx:1.28').replace(
      'image: nginx:1.28',
      `image: nginx:1.28\n          args: ${long}`,
    )
    const dir = tempFiles({'proposed.yaml': proposed})
    dirs.push(dir)
    const args = ['plan', '-f', join(dir, 'proposed.yaml'), '--current', 'examples/steady.yaml']
    const narrow = cli(args)
    const wide = cli([...args, '-o', 'wide'])
    expect(wide.code).toBe(0)
    expect(narrow.stdout).not.toContain(long)
    expect(wide.stdout).toContain(long)
    // The first step creates one new pod beside the three old ones; the last leaves three new.
    expect(wide.stdout).toMatch(/^ {2}\+0s .*scale up +then 3 old, 1 new, 3 available$/m)
    expect(wide.stdout).toMatch(/^ {2}\+15s .*scale down +then 0 old, 3 new, 1 terminating, 3 available$/m)
    expect(narrow.stdout).not.toContain(' available\n  +')
  })

  it('errors are one line, exit 2 under --exit-code', () => {
    const r = cli(['plan', '--current', 'examples/steady.yaml', '--exit-code'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('error: -f PROPOSED is required: the files you are about to apply (- for stdin)\n')
    const missing = cli([
      'plan',
      'api',
      '-f',
      'examples/plan/web-image.yaml',
      '--current',
      'examples/steady.yaml',
      '--exit-code',
    ])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe('error: deployments.apps "api" not found in examples/plan/web-image.yaml\n')
  })

  it('agrees with rollout watch -f on the same change: steps, peak, minimum available, duration', () => {
    const dir = tempFiles({'changed.yaml': steadyWithImage('nginx:1.28')})
    dirs.push(dir)
    const {doc} = plan(['-f', 'examples/plan/web-image.yaml', '--current', 'examples/steady.yaml'])
    const item = doc.items[0] as Item
    const watch = cli([
      'rollout',
      'watch',
      'web',
      '-f',
      join(dir, 'changed.yaml'),
      '-n',
      'demo',
      '--pod-ready-after',
      `${item.simulation.podReadyAfterSeconds}s`,
      '-o',
      'json',
    ])
    expect(watch.code).toBe(0)
    const lines = watch.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const summary = lines.at(-1)
    expect(summary.kind).toBe('Summary')
    expect(item.peakPodsWithTerminating).toBe(summary.peakPods)
    expect(item.minAvailable).toBe(summary.minAvailable)
    expect(item.simulation.seconds).toBe(summary.duration)
    // The watch's scale steps, read from its ReplicaSets step by step.
    const steps: Array<[number, string, number, number]> = []
    let previous = new Map<string, number>()
    for (const [i, step] of lines.slice(0, -1).entries()) {
      const now = new Map<string, number>()
      for (const rs of step.replicaSets as Array<{name: string; replicas: number}>) {
        now.set(rs.name, rs.replicas)
        const before = previous.get(rs.name) ?? 0
        if (i > 0 && before !== rs.replicas) steps.push([step.t, rs.name, before, rs.replicas])
      }
      previous = now
    }
    expect(steps.length).toBeGreaterThan(2)
    expect(item.steps.map((s) => [s.atSeconds, s.replicaSet, s.from, s.to])).toEqual(steps)
  })

  it('marks a template change that only defaulting makes (--apply=replace); kubectl apply keeps the field', () => {
    // The current template says 45 s; PROPOSED leaves terminationGracePeriodSeconds out, so with
    // kubectl replace the API server's default (30 s) is what changes it.
    // (The Deployment and its ReplicaSet alike: the rollout of 45 s is complete.)
    const current = readFileSync(join(ROOT, 'examples/steady.yaml'), 'utf8').replaceAll(
      '        terminationGracePeriodSeconds: 30\n  status:',
      '        terminationGracePeriodSeconds: 45\n  status:',
    )
    const dir = tempFiles({'current.yaml': current})
    dirs.push(dir)
    const args = ['-f', 'examples/plan/web-replicas.yaml', '--current', join(dir, 'current.yaml')]
    const replaced = plan([...args, '--apply=replace']).doc.items[0] as Item
    expect(replaced.templateChanges).toEqual([
      {path: 'spec.template.spec.terminationGracePeriodSeconds', from: 45, to: 30, defaulted: true},
    ])
    expect(replaced.rollout).toBe(true)
    // kubectl apply (the default) deletes only what the last-applied configuration had: the
    // current object has none, so the field another writer set stays.
    const applied = plan(args).doc.items[0] as Item
    expect(applied.templateChanges).toEqual([])
    expect(applied.rollout).toBe(false)
  })
})

/**
 * issue 27 case (3): steady.yaml grown to 8 replicas (8 Ready pods, the ReplicaSet counting them
 * available), maxSurge 0, maxUnavailable 1, minReadySeconds 1; `image` changes the template.
 */
function eightReplicas(image?: string): string {
  const list = parse(readFileSync(join(ROOT, 'examples/steady.yaml'), 'utf8')) as {items: Any[]}
  const [d, rs, ...pods] = list.items
  d.spec.replicas = 8
  d.spec.minReadySeconds = 1
  d.spec.strategy = {type: 'RollingUpdate', rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}
  if (image) {
    d.spec.template.spec.containers[0].image = image
    d.metadata.generation = 2
  }
  Object.assign(d.status, {replicas: 8, readyReplicas: 8, availableReplicas: 8, updatedReplicas: 8})
  rs.spec.replicas = 8
  rs.spec.minReadySeconds = 1
  rs.metadata.annotations['deployment.kubernetes.io/desired-replicas'] = '8'
  rs.metadata.annotations['deployment.kubernetes.io/max-replicas'] = '8'
  Object.assign(rs.status, {replicas: 8, readyReplicas: 8, availableReplicas: 8, fullyLabeledReplicas: 8})
  const more = Array.from({length: 8}, (_, i) => {
    const p = structuredClone(pods[i % pods.length])
    p.metadata.name = `web-cc544bdcc-p${i}`
    p.metadata.uid = `uid-p${i}`
    return p
  })
  return stringify({apiVersion: 'v1', kind: 'List', items: [d, rs, ...more]})
}

describe('minAvailable with minReadySeconds (issue 27 case 3)', () => {
  it('8 replicas, maxSurge 0, maxUnavailable 1, minReadySeconds 1: at least 7 available, plan and rollout watch -f alike', () => {
    const dir = tempFiles({
      'current.yaml': eightReplicas(),
      'changed.yaml': eightReplicas('nginx:1.28'),
      'proposed.yaml': stringify(
        (parse(eightReplicas('nginx:1.28')) as {items: unknown[]}).items[0] as Record<string, unknown>,
      ),
    })
    dirs.push(dir)
    const {code, doc} = plan(['-f', join(dir, 'proposed.yaml'), '--current', join(dir, 'current.yaml')])
    expect(code).toBe(1)
    const item = doc.items[0] as Item
    expect(item.minAvailable).toBe(7)
    const watched = cli([
      'rollout',
      'watch',
      'web',
      '-f',
      join(dir, 'changed.yaml'),
      '-n',
      'demo',
      '--line-mode',
    ])
    expect(watched.code).toBe(0)
    expect(watched.stdout).toContain('at least 7 available')
  })
})

describe('a Deployment without ReplicaSets yet (issue 27 case 7)', () => {
  it('plans its first ReplicaSet, with no MidRollout, the clock at now when the files carry no timestamp', () => {
    const before = Math.floor(Date.now() / 1000) * 1000
    const {code, doc} = plan([
      '-f',
      'examples/plan/web-image.yaml',
      '--current',
      'examples/plan/web-image.yaml',
    ])
    const after = Date.now()
    expect(code).toBe(1)
    const item = doc.items[0] as Item & {simulation: {start: string}}
    expect(item.newReplicaSet).toBe('create')
    expect(item.templateChanges).toEqual([])
    expect(item.risks).toEqual([])
    expect(item.steps.map((s) => [s.role, s.from, s.to])).toEqual([['new', 0, 3]])
    const start = Date.parse(item.simulation.start)
    expect(start).toBeGreaterThanOrEqual(before)
    expect(start).toBeLessThanOrEqual(after)
    const table = cli([
      'plan',
      '-f',
      'examples/plan/web-image.yaml',
      '--current',
      'examples/plan/web-image.yaml',
    ])
    expect(table.stdout.split('\n')[0]).toMatch(
      /^deployment\.apps\/web: ROLLOUT — the Deployment has no ReplicaSet yet: its first, web-[a-z0-9]+, starts 3 pods$/,
    )
  })
})

describe('many Deployments: plan -f DIR -R (issue 27 item 8)', () => {
  it('a row per Deployment, the details below, exit 1 when any rolls out', () => {
    const steady = readFileSync(join(ROOT, 'examples/steady.yaml'), 'utf8')
    const api = steady.replaceAll('web', 'api').replaceAll('uid: ', 'uid: x')
    const dir = tempFiles({'current.yaml': `${steady}\n---\n${api}`})
    dirs.push(dir)
    const proposed = tempFiles({})
    dirs.push(proposed)
    mkdirSync(join(proposed, 'sub'))
    writeFileSync(
      join(proposed, 'web.yaml'),
      readFileSync(join(ROOT, 'examples/plan/web-image.yaml'), 'utf8'),
    )
    writeFileSync(
      join(proposed, 'sub/api.yaml'),
      readFileSync(join(ROOT, 'examples/plan/web-replicas.yaml'), 'utf8').replaceAll('web', 'api'),
    )
    const args = ['plan', '-f', proposed, '-R', '--current', join(dir, 'current.yaml'), '--exit-code']
    const r = cli(args)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(1)
    const lines = r.stdout.split('\n')
    expect(lines[0]).toMatch(/^NAMESPACE +NAME +ROLLOUT +REPLICASET +PEAK +MIN-AVAILABLE +ETA +RISKS$/)
    expect(lines.slice(1, 3).map((l) => l.split(/ {2,}/).slice(0, 3))).toEqual([
      ['demo', 'api', 'no'],
      ['demo', 'web', 'yes (create)'],
    ])
    expect(r.stdout).toContain('deployment.apps/api: no rollout')
    expect(r.stdout).toContain('deployment.apps/web: ROLLOUT')
    // Only the replicas change: nothing rolls out, exit 0.
    rmSync(join(proposed, 'web.yaml'))
    expect(cli(args).code).toBe(0)
  })
})

describe('will the surge fit (issue 27 item 6)', () => {
  it('nodes in the snapshot: SurgeUnschedulable with the scheduler reason; without nodes a note', () => {
    const steady = readFileSync(join(ROOT, 'examples/steady.yaml'), 'utf8')
    const nodes = ['node-1', 'node-2', 'node-3'].map((name) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {name, labels: {'kubernetes.io/hostname': name}},
      status: {allocatable: {cpu: '500m', memory: '1Gi', pods: '110'}},
    }))
    const proposed = readFileSync(join(ROOT, 'examples/plan/web-image.yaml'), 'utf8').replace(
      'image: nginx:1.28',
      'image: nginx:1.28\n        resources: {requests: {cpu: "1"}}',
    )
    expect(proposed).toContain('requests')
    const dir = tempFiles({
      'current.yaml': `${steady}\n---\n${stringify({apiVersion: 'v1', kind: 'List', items: nodes})}`,
      'proposed.yaml': proposed,
    })
    dirs.push(dir)
    const {doc} = plan(['-f', join(dir, 'proposed.yaml'), '--current', join(dir, 'current.yaml')])
    const item = doc.items[0] as Item & {surge: unknown}
    expect(item.surge).toEqual({
      needed: 1,
      fit: 0,
      nodes: 3,
      reason: '0/3 nodes are available: 3 Insufficient cpu.',
      // 1 CPU asked of nodes with 500m allocatable: no node could take it even empty.
      unresolvable: true,
    })
    expect(item.risks.find((r) => r.code === 'SurgeUnschedulable')?.message).toMatch(
      /^0 of 1 surge pods fit on the 3 nodes \(.*\): no node can take one however many old pods leave/,
    )
    const table = cli(['plan', '-f', join(dir, 'proposed.yaml'), '--current', 'examples/steady.yaml'])
    expect(table.stdout).toContain('Surge: not checked — no nodes to fit the surge on')
  })
})

describe('a risk names the real cause (issue 27 item 7)', () => {
  it('new pods no node can take: the progress deadline risk says scheduling, not slowness', () => {
    const proposed = readFileSync(join(ROOT, 'examples/plan/web-image.yaml'), 'utf8').replace(
      /^ {4}spec:$/m,
      '    spec:\n      nodeSelector: {disktype: ssd}',
    )
    const dir = tempFiles({'proposed.yaml': proposed})
    dirs.push(dir)
    const {doc} = plan(['-f', join(dir, 'proposed.yaml'), '--current', 'examples/steady.yaml'])
    const risk = (doc.items[0] as Item).risks.find((r) => r.code === 'ProgressDeadline')
    expect(risk?.message).toMatch(
      /^the new pods cannot be scheduled \(0\/3 nodes are available: 3 node\(s\) didn't match Pod's node affinity\/selector\./,
    )
  })
})
