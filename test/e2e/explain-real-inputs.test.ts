// explain (and the passes) on the inputs people actually have, through the BUILT command line:
// partial snapshots, namespace mistakes (issue 19).

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse, stringify} from 'yaml'
import type {ExplainResult} from '../../src/explain/types.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cli, cliAsync, ROOT, tempFiles} from './helpers.js'

const NOW = ['--now', '2026-11-29T10:00:00Z']
const STUCK = 'examples/stuck-image-pull.yaml'

interface Obj {
  kind: string
  metadata: {name: string}
}

/** The stuck example's objects of the given kinds, as one YAML List in a temporary file. */
function stuckSlice(kinds: string[]): string {
  const list = parse(readFileSync(join(ROOT, STUCK), 'utf8')) as {items: Obj[]}
  const items = list.items.filter((o) => kinds.includes(o.kind))
  const dir = tempFiles({'slice.yaml': stringify({apiVersion: 'v1', kind: 'List', items})})
  return join(dir, 'slice.yaml')
}

const SNAPSHOT = 'kubectl get deploy,rs,pods,events -n demo -o yaml'

describe('partial input', () => {
  it('a Deployment without its ReplicaSets: explain says IncompleteInput first, with the command', () => {
    const file = stuckSlice(['Deployment'])
    const r = cli(['explain', 'api', '-f', file, '-n', 'demo', ...NOW])
    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines[0]).toBe('deployment demo/api')
    expect(lines[1]).toBe('Verdict: IncompleteInput (MissingReplicaSets)')
    const text = r.stdout.replace(/\s+/g, ' ')
    expect(text).toContain('deployment demo/api is at revision 2 and its status counts 5 replicas')
    expect(text).toContain(`Get a complete snapshot: ${SNAPSHOT}`)
    const json = JSON.parse(cli(['explain', 'api', '-f', file, '-n', 'demo', ...NOW, '-o', 'json']).stdout)
    expect((json as ExplainResult).items[0]?.verdict).toMatchObject({
      code: 'IncompleteInput',
      reason: 'MissingReplicaSets',
    })
  })

  it('ReplicaSets without their pods: IncompleteInput (MissingPods)', () => {
    const file = stuckSlice(['Deployment', 'ReplicaSet'])
    const r = cli(['explain', 'api', '-f', file, '-n', 'demo', ...NOW, '-o', 'json'])
    expect(r.code).toBe(0)
    const e = (JSON.parse(r.stdout) as ExplainResult).items[0]!
    expect(e.verdict.code).toBe('IncompleteInput')
    expect(e.verdict.reason).toBe('MissingPods')
    expect(e.verdict.message).toContain('report 5 pods but the input holds none of them')
    expect(e.blockers.map((b) => b.code)).toEqual(['NoPodsInInput'])
  })

  it('dry-run sync warns on stderr; --exit-code exits 2', () => {
    const file = stuckSlice(['Deployment'])
    const plain = cli(['dry-run', 'sync', '-f', file, '-n', 'demo', ...NOW])
    expect(plain.code).toBe(0)
    expect(plain.stderr).toMatch(/^warning: The input is incomplete: deployment demo\/api is at revision 2/)
    expect(plain.stderr).toContain(SNAPSHOT)
    expect(plain.stdout).toContain('create   replicasets')
    const gated = cli(['dry-run', 'sync', '-f', file, '-n', 'demo', ...NOW, '--exit-code'])
    expect(gated.code).toBe(2)
    expect(gated.stderr).toContain('warning: The input is incomplete')
  })

  it('reconcile-once warns on stderr', () => {
    const r = cli(['reconcile-once', '-f', stuckSlice(['Deployment']), '-n', 'demo', ...NOW, '-o', 'name'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('warning: The input is incomplete: deployment demo/api')
    expect(r.stdout).toContain('deployment.apps/api')
  })

  it('a complete snapshot, and a RollingUpdate pass without pods, warn about nothing', () => {
    const whole = cli(['dry-run', 'sync', '-f', STUCK, '-n', 'demo', ...NOW, '--exit-code'])
    expect(whole.stderr).toBe('')
    expect(whole.code).toBe(1)
    const noPods = cli([
      'dry-run',
      'sync',
      '-f',
      stuckSlice(['Deployment', 'ReplicaSet']),
      '-n',
      'demo',
      ...NOW,
    ])
    expect(noPods.stderr).toBe('')
    const explained = cli(['explain', '-f', STUCK, '-n', 'demo', ...NOW, '-o', 'json'])
    expect((JSON.parse(explained.stdout) as ExplainResult).items[0]?.verdict.code).toBe('DeadlineExceeded')
  })
})

describe('namespace mistakes', () => {
  const NOTHING =
    'No resources found in default namespace.\nThe files hold Deployments in namespace demo: use -n demo or -A.\n'
  const NAMED =
    'error: deployments.apps "api" not found\nThe files hold deployment api in namespace demo: use -n demo.\n'

  it('nothing selected: every command names the namespace; dry-run sync --exit-code exits 2', () => {
    const WRONG = ['-n', 'default']
    const gated = cli(['dry-run', 'sync', '-f', STUCK, ...WRONG, ...NOW, '--exit-code'])
    expect(gated.stderr).toBe(NOTHING)
    expect(gated.code).toBe(2)
    expect(cli(['dry-run', 'sync', '-f', STUCK, ...WRONG, ...NOW]).code).toBe(0)
    const explained = cli(['explain', '-f', STUCK, ...WRONG, ...NOW])
    expect(explained.stderr).toBe(NOTHING)
    expect(explained.stdout).toBe('')
    expect(cli(['reconcile-once', '-f', STUCK, ...WRONG, ...NOW, '-o', 'name']).stderr).toBe(NOTHING)
    // -A, the right -n, and no -n (the files' own namespaces, as kubectl get -f) are not mistakes.
    expect(cli(['explain', '-f', STUCK, '-A', ...NOW, '-o', 'name']).stderr).toBe('')
    for (const args of [['explain'], ['dry-run', 'sync'], ['reconcile-once']]) {
      const r = cli([...args, '-f', STUCK, ...NOW, '-o', 'name'])
      expect(r.stderr, args.join(' ')).toBe('')
      expect(r.stdout.split('\n')[0], args.join(' ')).toBe('deployment.apps/api')
    }
  })

  it('a named Deployment in another namespace: the same hint from every command', () => {
    for (const args of [
      ['explain', 'api'],
      ['explain', 'deployment/api'],
      ['dry-run', 'sync', 'api', '--exit-code'],
      ['reconcile-once', 'api', '-o', 'yaml'],
      ['rollout', 'watch', 'api'],
    ]) {
      const r = cli([...args, '-f', STUCK, '-n', 'default', ...NOW])
      expect(r.stderr, args.join(' ')).toBe(NAMED)
      expect(r.code, args.join(' ')).toBe(args.includes('--exit-code') ? 2 : 1)
      expect(r.stdout).toBe('')
    }
    // A name that is nowhere keeps kubectl's NotFound as it is.
    expect(cli(['explain', 'nope', '-f', STUCK, ...NOW]).stderr).toBe(
      'error: deployments.apps "nope" not found\n',
    )
  })

  describe('on a cluster', () => {
    let server: ApiServer
    let env: NodeJS.ProcessEnv
    beforeAll(async () => {
      const list = parse(readFileSync(join(ROOT, STUCK), 'utf8')) as {items: unknown[]}
      server = await startApiServer({objects: list.items})
      env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
    })
    afterAll(async () => {
      await server?.close()
    })

    it('--now +10m is relative to the current time', async () => {
      const before = Math.floor(Date.now() / 1000) * 1000
      const r = await cliAsync(['explain', '-n', 'demo', '--now', '+10m', '-o', 'json'], {env})
      const after = Date.now()
      const now = Date.parse((JSON.parse(r.stdout) as ExplainResult).now)
      expect(now).toBeGreaterThanOrEqual(before + 600_000)
      expect(now).toBeLessThanOrEqual(after + 600_000)
      expect(r.stderr).toMatch(/^note: --now \+10m is \S+Z, 10m after the current time \(\S+Z\)\n$/)
    })

    it('says where the cluster has Deployments, for a selection and for a name', async () => {
      const cluster =
        'No resources found in default namespace.\nThe cluster has Deployments in namespace demo: use -n demo or -A.\n'
      const gated = await cliAsync(['dry-run', 'sync', ...NOW, '--exit-code'], {env})
      expect(gated.stderr).toBe(cluster)
      expect(gated.code).toBe(2)
      expect((await cliAsync(['explain', ...NOW], {env})).stderr).toBe(cluster)
      const named = await cliAsync(['explain', 'api', ...NOW], {env})
      expect(named.stderr).toBe(
        'Error from server (NotFound): deployments.apps "api" not found\nThe cluster has deployment api in namespace demo: use -n demo.\n',
      )
      expect(named.code).toBe(1)
      const watched = await cliAsync(['rollout', 'watch', 'api', '--timeout', '5s'], {env})
      expect(watched.stderr).toBe(
        'Error from server (NotFound): deployments.apps "api" not found\nThe cluster has deployment api in namespace demo: use -n demo.\n',
      )
      expect(watched.code).toBe(1)
    })
  })
})

describe('events from files', () => {
  const EVENTS = 'test/fixtures/events/stuck-image-pull-events.yaml'

  it("core/v1 and events.k8s.io/v1 Events in -f input are read as a cluster's are, and named", () => {
    const r = cli(['explain', 'api', '-f', STUCK, '-f', EVENTS, '-n', 'demo', ...NOW, '-o', 'json'])
    expect(r.stderr).toBe('')
    const e = (JSON.parse(r.stdout) as ExplainResult).items[0]!
    expect(e.eventSource).toEqual({
      from: 'files',
      total: 3,
      concerning: 3,
      warnings: 2,
      newest: '2026-11-29T09:59:50Z',
    })
    expect(e.events?.map((x) => [x.reason, x.object.name, x.count, x.lastSeen])).toEqual([
      ['BackOff', 'api-6f64564f4d-4wgmn', 40, '2026-11-29T09:59:50Z'],
      ['Failed', 'api-6f64564f4d-blwqh', 4, '2026-11-29T09:59:30Z'],
    ])
    const text = cli(['explain', 'api', '-f', STUCK, '-f', EVENTS, '-n', 'demo', ...NOW])
    expect(text.stdout.replace(/\s+/g, ' ')).toContain(
      'Warning events All 3 events concern this rollout: 2 Warning, newest 2026-11-29T09:59:50Z. 10s (x40 over 11m) BackOff Pod/api-6f64564f4d-4wgmn: Back-off pulling image',
    )
    // Without Events in the files, explain says nothing about events (null), as before.
    const none = JSON.parse(cli(['explain', 'api', '-f', STUCK, '-n', 'demo', ...NOW, '-o', 'json']).stdout)
    expect((none as ExplainResult).items[0]?.events).toBeNull()
  })

  it('an Unhealthy event in the files makes a not-ready pod a ReadinessProbeFailing blocker', () => {
    const list = parse(readFileSync(join(ROOT, 'examples/multi.yaml'), 'utf8')) as {items: Obj[]}
    const pod = list.items.find((o) => o.kind === 'Pod' && /not ready|NotReady/.test(JSON.stringify(o)))
    const plain = JSON.parse(cli(['explain', '-f', 'examples/multi.yaml', '-A', ...NOW, '-o', 'json']).stdout)
    const notReady = (plain as ExplainResult).items
      .flatMap((e) => e.blockers.map((b) => ({d: e.deployment, b})))
      .find((x) => x.b.code === 'NotReady')
    expect(notReady, JSON.stringify(pod?.metadata)).toBeDefined()
    const {d, b} = notReady!
    const dir = tempFiles({
      'events.yaml': stringify({
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: {name: `${b.object.name}.probe`, namespace: d.namespace},
        regarding: {kind: 'Pod', name: b.object.name, namespace: d.namespace},
        type: 'Warning',
        reason: 'Unhealthy',
        note: 'Readiness probe failed: HTTP probe failed with statuscode: 503',
        eventTime: '2026-11-29T09:59:00.000000Z',
      }),
    })
    const r = cli([
      'explain',
      '-f',
      'examples/multi.yaml',
      '-f',
      join(dir, 'events.yaml'),
      '-A',
      ...NOW,
      '-o',
      'json',
    ])
    expect(r.stderr).toBe('')
    const e = (JSON.parse(r.stdout) as ExplainResult).items.find((x) => x.deployment.name === d.name)!
    const probe = e.blockers.find((x) => x.object.name === b.object.name)
    expect(probe).toMatchObject({code: 'ReadinessProbeFailing', hard: true})
    expect(probe?.message).toBe(
      'readiness probe fails: Readiness probe failed: HTTP probe failed with statuscode: 503',
    )
    expect(e.verdict.code).toBe('Stalled')
  })

  it('an Event that is not one is refused with its file and line', () => {
    const dir = tempFiles({
      'bad.yaml':
        'apiVersion: v1\nkind: Event\nmetadata: {name: x, namespace: demo}\ninvolvedObject: pod/x\n',
    })
    const r = cli(['explain', '-f', join(dir, 'bad.yaml'), '-n', 'demo', ...NOW])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      `error: ${join(dir, 'bad.yaml')}:4: Event x: involvedObject: Invalid value: "pod/x": expected an object\n`,
    )
  })
})

describe('start anywhere', () => {
  const explainJson = (args: string[]) => {
    const r = cli(['explain', ...args, '-f', STUCK, '-n', 'demo', ...NOW, '-o', 'json'])
    expect(r.stderr).toBe('')
    return (JSON.parse(r.stdout) as ExplainResult).items
  }

  it('pod/NAME (po/, pods/) finds the owning Deployment; the report starts from the pod', () => {
    const r = cli(['explain', 'pod/api-6f64564f4d-blwqh', '-f', STUCK, '-n', 'demo', ...NOW])
    expect(r.code).toBe(0)
    const [first, , , heading, verdict] = r.stdout.split('\n')
    expect(first).toBe('pod api-6f64564f4d-blwqh is in ImagePullBackOff (container api, image')
    expect(r.stdout.split('deployment demo/api\n')[0]?.replace(/\s+/g, ' ')).toBe(
      'pod api-6f64564f4d-blwqh is in ImagePullBackOff (container api, image registry.example.com/api:v2.1-typo). It belongs to ReplicaSet api-6f64564f4d (revision 2, the new one) of deployment api, whose rollout is DeadlineExceeded: ',
    )
    expect(heading).toBe('deployment demo/api')
    expect(verdict).toBe('Verdict: DeadlineExceeded (ImagePullBackOff)')
    for (const ref of ['po/api-579dd68c77-g2tj2', 'pods/api-579dd68c77-g2tj2']) {
      const [e] = explainJson([ref])
      expect(e?.deployment.name).toBe('api')
      expect(e?.startedFrom).toEqual([
        {
          kind: 'Pod',
          name: 'api-579dd68c77-g2tj2',
          replicaSet: 'api-579dd68c77',
          codes: [],
          message:
            'pod api-579dd68c77-g2tj2 is Running and ready: nothing holds it. It belongs to ReplicaSet api-579dd68c77 (revision 1, an old one) of deployment api, whose rollout is DeadlineExceeded:',
        },
      ])
    }
  })

  it('rs/NAME and replicaset/NAME; deployment/ and deploy/ start from the Deployment as before', () => {
    for (const ref of ['rs/api-6f64564f4d', 'replicaset/api-6f64564f4d']) {
      const [e] = explainJson([ref])
      expect(e?.startedFrom.map((s) => s.message)).toEqual([
        'replicaset api-6f64564f4d (revision 2, the new one) wants 2 pods: 2 created, 0 ready, 0 available. It belongs to deployment api, whose rollout is DeadlineExceeded:',
      ])
    }
    for (const ref of ['deployment/api', 'deploy/api']) {
      const items = explainJson([ref])
      expect(items.map((e) => [e.deployment.name, e.startedFrom])).toEqual([['api', []]])
    }
    // A pod and its Deployment named together: one explanation, starting from the pod.
    const both = explainJson(['deploy/api', 'pod/api-6f64564f4d-blwqh'])
    expect(both.map((e) => e.startedFrom.map((s) => s.name))).toEqual([['api-6f64564f4d-blwqh']])
  })

  it('what cannot be followed to a Deployment is one error line', () => {
    const err = (args: string[]) => cli(['explain', ...args, '-f', STUCK, '-n', 'demo', ...NOW]).stderr
    expect(err(['pod/nope'])).toBe('error: pods "nope" not found\n')
    expect(err(['rs/nope'])).toBe('error: replicasets.apps "nope" not found\n')
    expect(err(['svc/api'])).toBe(
      'error: explain starts from a Deployment, a ReplicaSet or a pod, not "svc/api" (use NAME, deployment/NAME, rs/NAME or pod/NAME)\n',
    )
    const pods = stuckSlice(['Pod'])
    expect(cli(['explain', 'pod/api-6f64564f4d-blwqh', '-f', pods, '-n', 'demo', ...NOW]).stderr).toContain(
      '\nerror: pod api-6f64564f4d-blwqh is controlled by ReplicaSet api-6f64564f4d, which the input does not hold: include it (kubectl get deploy,rs,pods -n demo -o yaml)\n',
    )
    // dry-run sync still takes Deployments only.
    expect(cli(['dry-run', 'sync', 'pod/x', '-f', STUCK, '-n', 'demo']).stderr).toBe(
      'error: only Deployments can be synced, not "pod/x" (use NAME or deployment/NAME)\n',
    )
  })
})

describe('a relative clock', () => {
  const NEWEST = '2026-11-29T09:48:02Z'
  const note = (text: string, at: string, side: string) =>
    `note: --now ${text} is ${at}, ${text.slice(1)} ${side} the snapshot's newest timestamp (${NEWEST})\n`

  it("with files: from the snapshot's newest timestamp, on every command that takes --now", () => {
    const explained = cli(['explain', 'api', '-f', STUCK, '-n', 'demo', '--now', '+10m', '-o', 'json'])
    expect(explained.stderr).toBe(note('+10m', '2026-11-29T09:58:02Z', 'after'))
    const e = JSON.parse(explained.stdout) as ExplainResult
    expect(e.now).toBe('2026-11-29T09:58:02Z')
    // 10m after the last progress (09:48:01) the deadline is 1s away.
    expect(e.items[0]?.progress.secondsLeft).toBe(-1)
    const synced = cli(['dry-run', 'sync', '-f', STUCK, '-n', 'demo', '--now', '-1h', '-o', 'json'])
    expect(synced.stderr).toBe(note('-1h', '2026-11-29T08:48:02Z', 'before'))
    expect(JSON.parse(synced.stdout).now).toBe('2026-11-29T08:48:02Z')
    const reconciled = cli(['reconcile-once', '-f', STUCK, '-n', 'demo', '--now', '+1h30m', '-o', 'name'])
    expect(reconciled.stderr).toBe(note('+1h30m', '2026-11-29T11:18:02Z', 'after'))
    const watched = cli([
      'rollout',
      'watch',
      'api',
      '-f',
      STUCK,
      '-n',
      'demo',
      '--now',
      '+1m',
      '--max-time',
      '1m',
    ])
    expect(watched.stderr).toBe(
      `${note('+1m', '2026-11-29T09:49:02Z', 'after')}rollout watch: the files hold a snapshot (objects with status, ReplicaSets or pods): simulating deployment "api" on a virtual clock (--live waits for it on the cluster instead)\n`,
    )
    expect(watched.stdout.split('\n')[0]).toMatch(/^api \[09:49:02 \+0s\] /)
  })

  it('a duration without a sign is refused, naming both forms', () => {
    const r = cli(['explain', '-f', STUCK, '-n', 'demo', '--now', '10m'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(
      'error: invalid --now "10m": want an RFC 3339 time such as 2026-11-29T10:05:00Z, or a duration relative to the current time (or, with -f, to the snapshot\'s newest timestamp) such as +10m or -1h\n',
    )
  })
})

describe('a fleet gate: explain -A --summary --fail-on', () => {
  const MULTI = ['-f', 'examples/multi.yaml', '-A', ...NOW]

  it('-o wide adds what kubectl rollout status, kstatus and Argo CD say; JSON has them in .tools', () => {
    const SCALE_DOWN = 'examples/scale-down.yaml'
    const at = ['-n', 'demo', '--now', '2026-11-29T10:00:00Z']
    const wide = (file: string) =>
      cli(['explain', '--summary', '-f', file, ...at, '-o', 'wide', '--no-headers'])
    expect(
      cli(['explain', '--summary', '-f', 'examples/paused-complete.yaml', ...at, '-o', 'wide']).stdout,
    ).toBe(
      [
        'DEPLOYMENT   VERDICT   READY   UPDATED   AVAILABLE   DEADLINE   TOOLS    KUBECTL   KSTATUS      ARGOCD',
        'demo/web     Paused    3/3     3         3           paused     differ   Done      InProgress   Suspended',
        '',
      ].join('\n'),
    )
    expect(wide(SCALE_DOWN).stdout).toMatch(
      /^demo\/web +Progressing \(ExtraPodsPending\) .* differ +Done +InProgress +Healthy\n$/,
    )
    expect(wide('examples/deadline-exceeded.yaml').stdout).toMatch(
      /^demo\/api +DeadlineExceeded .* agree +Error +Failed +Degraded\n$/,
    )
    const json = cli(['explain', '--summary', '-f', SCALE_DOWN, ...at, '-o', 'json'])
    const item = (JSON.parse(json.stdout) as {items: Array<{tools: Record<string, unknown>}>}).items[0]!
    expect(item.tools).toMatchObject({
      kubectl: {status: 'Done'},
      kstatus: {status: 'InProgress', reason: 'ExtraPods', message: 'Pending termination: 2'},
      argocd: {status: 'Healthy', message: ''},
      agree: false,
    })
    expect(
      cli([
        'explain',
        '--summary',
        '-f',
        SCALE_DOWN,
        ...at,
        '-o',
        'jsonpath={.items[0].tools.kstatus.status}',
      ]).stdout,
    ).toBe('InProgress')
  })

  it('one line per Deployment; --fail-on stuck,deadline exits 1 naming the matches', () => {
    const r = cli(['explain', '--summary', ...MULTI, '--fail-on', 'stuck,deadline'])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe(
      [
        'DEPLOYMENT        VERDICT                               READY   UPDATED   AVAILABLE   DEADLINE                          TOOLS',
        'demo/api          Progressing (PodsNotReady)            3/3     1         3           in 9m41s (2026-11-29T10:09:41Z)   agree',
        'demo/web          Complete (RolloutComplete)            2/2     2         2           -                                 agree',
        'shop/cart-cache   Complete (RolloutComplete)            1/1     1         1           -                                 agree',
        'shop/checkout     DeadlineExceeded (CrashLoopBackOff)   2/2     1         2           exceeded                          agree',
        'shop/frontend     Complete (RolloutComplete)            3/3     3         3           -                                 agree',
        'shop/reports      Complete (RolloutComplete)            0/0     0         0           -                                 agree',
        '',
      ].join('\n'),
    )
    expect(r.stderr).toBe(
      '--fail-on stuck,deadline: 1 of 6 Deployments match: shop/checkout (stuck, deadline)\n',
    )
    // Nothing matches: 0; the full report gates the same way.
    expect(cli(['explain', '--summary', ...MULTI, '--fail-on', 'incomplete,invalid']).code).toBe(0)
    expect(cli(['explain', ...MULTI, '--fail-on', 'stuck', '-o', 'name']).code).toBe(1)
    expect(cli(['explain', ...MULTI, '-o', 'name']).code).toBe(0)
  })

  it('-o json gives the same rows, with the states each matches', () => {
    const r = cli(['explain', '--summary', ...MULTI, '-o', 'json'])
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout) as {
      kind: string
      items: Array<{
        deployment: {namespace: string; name: string}
        verdict: {code: string; reason: string; message: string}
        matches: string[]
      }>
    }
    expect(doc.kind).toBe('ExplainSummary')
    expect(
      doc.items.map(
        (x) => `${x.deployment.namespace}/${x.deployment.name} ${x.verdict.code} ${x.matches.join(',')}`,
      ),
    ).toEqual([
      'demo/api Progressing ',
      'demo/web Complete ',
      'shop/cart-cache Complete ',
      'shop/checkout DeadlineExceeded stuck,deadline',
      'shop/frontend Complete ',
      'shop/reports Complete ',
    ])
    expect(doc.items[0]).toMatchObject({
      ready: 3,
      desired: 3,
      updated: 1,
      available: 3,
      deadline: {state: 'Running', at: '2026-11-29T10:09:41Z', secondsLeft: 581},
    })
    // The same verdict, whole, as explain -o json gives it for the same Deployment.
    const full = JSON.parse(cli(['explain', ...MULTI, '-o', 'json']).stdout) as typeof doc
    expect(doc.items.map((x) => x.verdict)).toEqual(full.items.map((x) => x.verdict))
    expect(doc.items[0]?.verdict.message).not.toBe('')
  })

  it('incomplete input and a wrong namespace fail the gate; a bad state name is a usage error', () => {
    const partial = cli([
      'explain',
      '--summary',
      '-f',
      stuckSlice(['Deployment']),
      '-A',
      ...NOW,
      '--fail-on',
      'incomplete',
    ])
    expect(partial.code).toBe(1)
    expect(partial.stdout).toContain('demo/api     IncompleteInput (MissingReplicaSets)')
    const typo = cli(['explain', '--summary', '-f', STUCK, '-n', 'default', ...NOW, '--fail-on', 'stuck'])
    expect(typo.code).toBe(1)
    expect(typo.stderr).toContain('use -n demo or -A')
    const bad = cli(['explain', '--summary', ...MULTI, '--fail-on', 'stuck,late'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe(
      'error: invalid --fail-on "stuck,late": want a comma-separated list of stuck, deadline, incomplete, invalid\n',
    )
  })

  it('Deployments sharing one selector: one overlap per Deployment, not one per pair', () => {
    const n = 40
    const items: unknown[] = []
    for (let i = 0; i < n; i++) {
      const name = `d${String(i).padStart(2, '0')}`
      items.push({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name,
          namespace: 'demo',
          uid: `00000000-0000-4000-8000-0000000000${String(i).padStart(2, '0')}`,
        },
        spec: {
          replicas: 1,
          selector: {matchLabels: {app: 'shared'}},
          template: {
            metadata: {labels: {app: 'shared'}},
            spec: {containers: [{name: 'c', image: `img:${i}`}]},
          },
        },
      })
    }
    const dir = tempFiles({'shared.yaml': stringify({apiVersion: 'v1', kind: 'List', items})})
    const r = cli(['explain', '-f', join(dir, 'shared.yaml'), '-n', 'demo', ...NOW, '-o', 'json'])
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout) as ExplainResult
    expect(doc.items).toHaveLength(n)
    for (const e of doc.items) {
      const overlaps = e.deadEnds.filter((x) => x.code === 'OverlappingSelector')
      expect(overlaps).toHaveLength(1)
      expect(overlaps[0]?.objects).toHaveLength(5)
      expect(overlaps[0]?.message).toContain(
        `This Deployment and ${n - 1} others of the namespace select each other's pods`,
      )
      expect(overlaps[0]?.message).toContain(' and 34 more.')
    }
  })
})

// Issue 25 item 9: a Deployment's YAML as people post it in issues, without its ReplicaSets. Its own
// status names the new ReplicaSet and carries the ReplicaSet's ReplicaFailure (the controller copies
// it): explain says the input is incomplete and still names the quota that refuses the pods.
describe('snapshots people post', () => {
  const explain = (file: string, namespace: string, now: string) => {
    const args = ['explain', '-f', join('test/fixtures/posted', file), '-n', namespace, '--now', now]
    const json = cli([...args, '-o', 'json'])
    expect(json.code).toBe(0)
    const text = cli(args, {env: {NO_COLOR: '1', COLUMNS: '100'}})
    expect(text.code).toBe(0)
    return {e: (JSON.parse(json.stdout) as ExplainResult).items[0]!, text: text.stdout.replace(/\s+/g, ' ')}
  }

  it('kuberay#639: ReplicaFailure FailedCreate exceeded quota, the ReplicaSet its status names missing', () => {
    const {e, text} = explain('kuberay-639-quota.yaml', 'default', '2022-10-18T03:17:02Z')
    expect(e.verdict).toMatchObject({code: 'IncompleteInput', reason: 'MissingReplicaSets'})
    expect(e.verdict.message).toContain(
      'its status names nginx-deployment-79499496f5: Progressing True NewReplicaSetCreated',
    )
    expect(e.verdict.message).toContain('exceeded quota: quota,')
    expect(e.verdict.message).toContain(
      '(ResourceQuota quota: kubectl describe resourcequota quota -n default)',
    )
    expect(e.blockers).toEqual([
      expect.objectContaining({
        code: 'ReplicaFailure',
        hard: true,
        object: {kind: 'Deployment', name: 'nginx-deployment'},
      }),
    ])
    expect(text).toContain('Verdict: IncompleteInput (MissingReplicaSets)')
    expect(text).toContain(
      'ReplicaFailure Deployment nginx-deployment: its status says its ReplicaSet cannot create pods: FailedCreate: pods "nginx-deployment-79499496f5-ndzdk" is forbidden: exceeded quota: quota,',
    )
  })

  it('statusbay#124: the same with the progress deadline passed still names the quota', () => {
    const {e, text} = explain('statusbay-124-quota-deadline.yaml', 'pe', '2020-02-24T21:50:00Z')
    expect(e.verdict).toMatchObject({code: 'IncompleteInput', reason: 'MissingReplicaSets'})
    expect(e.verdict.message).toContain(
      'its status names statusbay-ui-58775bb447: Progressing False ProgressDeadlineExceeded',
    )
    expect(e.verdict.message).toContain('exceeded quota: pe-quota,')
    expect(e.rolloutStatus).toMatchObject({error: true})
    expect(e.blockers.map((b) => [b.code, b.object.kind])).toEqual([['ReplicaFailure', 'Deployment']])
    expect(text).toContain('(ResourceQuota pe-quota: kubectl describe resourcequota pe-quota -n pe)')
  })

  it('a ReplicaSet the status names but the input lacks is IncompleteInput even when others are given', () => {
    const list = parse(readFileSync(join(ROOT, STUCK), 'utf8')) as {items: Obj[]}
    const items = list.items.filter((o) => !(o.kind === 'ReplicaSet' && o.metadata.name === 'api-6f64564f4d'))
    const dir = tempFiles({'slice.yaml': stringify({apiVersion: 'v1', kind: 'List', items})})
    const r = cli(['explain', 'api', '-f', join(dir, 'slice.yaml'), '-n', 'demo', ...NOW, '-o', 'json'])
    const e = (JSON.parse(r.stdout) as ExplainResult).items[0]!
    expect(e.verdict).toMatchObject({code: 'IncompleteInput', reason: 'MissingReplicaSets'})
    expect(e.verdict.message).toContain(
      'the status of deployment demo/api names ReplicaSet api-6f64564f4d (Progressing True ReplicaSetUpdated), which the input lacks',
    )
  })

  it('a manifest without status: the status step says this pass starts the progress clock', () => {
    const r = cli([
      'explain',
      '-f',
      'examples/new-deployment.yaml',
      '-n',
      'demo',
      '--now',
      '2026-11-29T10:00:01Z',
      '-o',
      'json',
    ])
    const e = (JSON.parse(r.stdout) as ExplainResult).items[0]!
    const status = e.pass.steps.find((s) => s.step === 'status')
    expect(status?.outcome).toBe('starts the progress clock')
    expect(status?.detail).not.toContain('nothing moved since it was written')
    expect(status?.detail).toContain('This pass writes Progressing=True, NewReplicaSetCreated')
    expect(e.next.actions.filter((a) => a.subresource === 'status').length).toBeGreaterThan(0)
  })
})
