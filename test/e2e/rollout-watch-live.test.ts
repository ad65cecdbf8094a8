// `rollout watch` live, end to end: the built CLI watches the in-memory test API server while the
// test moves the Deployment, its ReplicaSets and pods as the cluster's controllers would.

import {type ChildProcess, spawn} from 'node:child_process'
import {afterEach, describe, expect, it} from 'vitest'
import {type ApiServer, resolveResource, startApiServer} from '../apiserver/index.js'
import {BIN, cli, cliAsync, ROOT, type RunResult} from './helpers.js'

const PODS = resolveResource('pods')
const NAME = 'web'
const NS = 'default'
const LABELS = {app: NAME}
const TEMPLATE = {metadata: {labels: LABELS}, spec: {containers: [{name: 'app', image: 'nginx:1.28'}]}}
const OLD_TEMPLATE = {metadata: {labels: LABELS}, spec: {containers: [{name: 'app', image: 'nginx:1.27'}]}}
const DEPLOYMENT_UID = '0b0a1c2d-0000-4000-8000-00000000a0b1'
const AN_HOUR_AGO = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z')

type Obj = Record<string, unknown> & {metadata: Record<string, unknown>}

function deployment(progressDeadlineSeconds = 600): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: NAME,
      namespace: NS,
      uid: DEPLOYMENT_UID,
      generation: 2,
      labels: LABELS,
      annotations: {'deployment.kubernetes.io/revision': '2'},
    },
    spec: {
      replicas: 2,
      selector: {matchLabels: LABELS},
      progressDeadlineSeconds,
      strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: '25%', maxUnavailable: '25%'}},
      template: TEMPLATE,
    },
    status: {
      observedGeneration: 2,
      replicas: 2,
      updatedReplicas: 0,
      readyReplicas: 2,
      availableReplicas: 2,
      conditions: [
        {type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable'},
        {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetCreated',
          lastUpdateTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        },
      ],
    },
  }
}

function replicaSet(hash: string, revision: number, replicas: number, template: Obj['spec']): Obj {
  const t = template as {metadata: {labels: Record<string, string>}; spec: unknown}
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${NAME}-${hash}`,
      namespace: NS,
      uid: `0b0a1c2d-0000-4000-8000-${hash.padEnd(12, '0')}`,
      labels: {...LABELS, 'pod-template-hash': hash},
      annotations: {'deployment.kubernetes.io/revision': String(revision)},
      creationTimestamp: AN_HOUR_AGO,
      ownerReferences: [
        {apiVersion: 'apps/v1', kind: 'Deployment', name: NAME, uid: DEPLOYMENT_UID, controller: true},
      ],
    },
    spec: {
      replicas,
      selector: {matchLabels: {...LABELS, 'pod-template-hash': hash}},
      template: {...t, metadata: {labels: {...t.metadata.labels, 'pod-template-hash': hash}}},
    },
    status: {replicas, readyReplicas: replicas, availableReplicas: replicas},
  }
}

function pod(rs: Obj, suffix: string, ready: boolean): Obj {
  const rsMeta = rs.metadata as {name: string; uid: string; labels: Record<string, string>}
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${rsMeta.name}-${suffix}`,
      namespace: NS,
      labels: rsMeta.labels,
      creationTimestamp: AN_HOUR_AGO,
      ownerReferences: [
        {apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rsMeta.name, uid: rsMeta.uid, controller: true},
      ],
    },
    spec: {containers: [{name: 'app', image: 'nginx'}], nodeName: 'node-1'},
    status: ready
      ? {
          phase: 'Running',
          conditions: [{type: 'Ready', status: 'True', lastTransitionTime: AN_HOUR_AGO}],
          containerStatuses: [{name: 'app', ready: true, restartCount: 0, state: {running: {}}}],
        }
      : {
          phase: 'Pending',
          containerStatuses: [
            {name: 'app', ready: false, restartCount: 0, state: {waiting: {reason: 'ContainerCreating'}}},
          ],
        },
  }
}

const OLD = replicaSet('5d8f7c9b6a', 1, 2, OLD_TEMPLATE as Obj['spec'])
const NEW = replicaSet('7f6e5d4c3b', 2, 0, TEMPLATE as Obj['spec'])

async function seed(progressDeadlineSeconds?: number): Promise<ApiServer> {
  return startApiServer({
    objects: [
      deployment(progressDeadlineSeconds),
      OLD,
      NEW,
      pod(OLD, 'aaaaa', true),
      pod(OLD, 'bbbbb', true),
    ],
  })
}

/** Replaces an object's fields (status and spec merged at the top level) as a controller would. */
function update(server: ApiServer, resource: string, name: string, change: (o: Obj) => Obj): void {
  const cur = server.store.get(resource, NS, name) as Obj | undefined
  if (!cur) throw new Error(`${resource}/${name} is missing`)
  server.store.put(change(structuredClone(cur)))
}

function status(server: ApiServer, resource: string, name: string, s: Record<string, unknown>): void {
  update(server, resource, name, (o) => ({...o, status: {...(o.status as object), ...s}}))
}

function scale(server: ApiServer, rs: Obj, replicas: number): void {
  update(server, 'replicasets', rs.metadata.name as string, (o) => ({
    ...o,
    spec: {...(o.spec as object), replicas},
  }))
}

/** The rollout half-way: one new pod not ready yet (no change to the verdict's numbers). */
function stepOne(server: ApiServer): void {
  scale(server, NEW, 1)
  server.store.put(pod(NEW, 'ccccc', false))
  status(server, 'replicasets', NEW.metadata.name as string, {replicas: 1})
  status(server, 'deployments', NAME, {replicas: 3, updatedReplicas: 1})
}

/** The rest of the rollout: new pods ready, old ReplicaSet scaled to 0 and its pods gone. */
function finish(server: ApiServer): void {
  server.store.put(pod(NEW, 'ccccc', true))
  server.store.put(pod(NEW, 'ddddd', true))
  scale(server, NEW, 2)
  status(server, 'replicasets', NEW.metadata.name as string, {
    replicas: 2,
    readyReplicas: 2,
    availableReplicas: 2,
  })
  scale(server, OLD, 0)
  for (const s of ['aaaaa', 'bbbbb']) {
    server.store.remove(PODS, NS, `${OLD.metadata.name}-${s}`)
  }
  status(server, 'replicasets', OLD.metadata.name as string, {
    replicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
  })
  status(server, 'deployments', NAME, {
    replicas: 2,
    updatedReplicas: 2,
    readyReplicas: 2,
    availableReplicas: 2,
  })
}

class Watch {
  private readonly child: ChildProcess
  stdout = ''
  stderr = ''
  readonly exited: Promise<RunResult>

  constructor(server: ApiServer, args: string[], name = NAME) {
    this.child = spawn(process.execPath, [BIN, 'rollout', 'watch', name, ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        NO_COLOR: '1',
        DEBUG: '',
        KUBECONFIG: server.kubeconfigPath,
        KUBECACHEDIR: server.cacheDir,
      },
    })
    this.child.stdout?.setEncoding('utf8').on('data', (c: string) => {
      this.stdout += c
    })
    this.child.stderr?.setEncoding('utf8').on('data', (c: string) => {
      this.stderr += c
    })
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 40_000)
    this.exited = new Promise((resolve, reject) => {
      this.child.on('error', reject)
      this.child.on('close', (code) => {
        clearTimeout(killer)
        resolve({code, stdout: this.stdout, stderr: this.stderr})
      })
    })
  }

  /** Resolves once the first update is out (every informer has synced). */
  async started(): Promise<void> {
    await waitFor(() => this.stdout.length > 0 || this.child.exitCode !== null, 20_000, 'the first update')
    if (this.stdout.length === 0) throw new Error(`rollout watch did not start:\n${this.stderr}`)
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal)
  }
}

async function waitFor(probe: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

const watches = (server: ApiServer, resource: string) =>
  server.requests.filter((r) => r.verb === 'watch' && r.resource === resource).length
/** Every informer's watch is open (and can be dropped). */
async function watching(server: ApiServer): Promise<void> {
  await waitFor(
    () => ['deployments', 'replicasets', 'pods'].every((r) => watches(server, r) > 0),
    10_000,
    'the watches',
  )
  await new Promise((r) => setTimeout(r, 100))
}
const lists = (server: ApiServer, resource: string) =>
  server.requests.filter((r) => r.verb === 'list' && r.resource === resource).length

let server: ApiServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('rollout watch (live)', () => {
  it('follows a rollout to the end and exits 0 with kubectl success line', async () => {
    server = await seed()
    server.store.put({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {name: 'web-5d8f7c9b6a-aaaaa.1', namespace: NS},
      involvedObject: {kind: 'Pod', name: 'web-5d8f7c9b6a-aaaaa', namespace: NS},
      reason: 'Unhealthy',
      message: 'Readiness probe failed: HTTP probe failed with statuscode: 503',
      type: 'Warning',
      count: 1,
      source: {component: 'kubelet'},
    })
    const w = new Watch(server, ['--line-mode'])
    await w.started()
    stepOne(server)
    await waitFor(() => w.stdout.includes('1 out of 2 new replicas'), 10_000, 'the half-way line')
    finish(server)
    const r = await w.exited
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    for (const line of lines) expect(line).toMatch(/^web \[\d\d:\d\d:\d\d \+[\dhms.]+\] /)
    expect(lines[0]).toContain(
      'Waiting for deployment "web" rollout to finish: 0 out of 2 new replicas have been updated...',
    )
    expect(lines.at(-1)).toMatch(/ deployment "web" successfully rolled out$/)
    // The same kinds of lines as the simulated watch (issue 25 item 6): the scalings the controller
    // made, read from the ReplicaSets, and the summary before the last line.
    expect(lines).toContainEqual(
      expect.stringMatching(/\] Scaled up replica set web-7f6e5d4c3b from 0 to 1$/),
    )
    expect(lines).toContainEqual(
      expect.stringMatching(/\] Scaled down replica set web-5d8f7c9b6a from [12] to 0$/),
    )
    expect(lines.at(-2)).toMatch(
      /\] summary: took [\dhms.]+, at most [34] pods, at least \d+ available, progress deadline not exceeded$/,
    )
    // The three tools' answers as they change, from the status model (live only).
    expect(lines).toContainEqual(
      expect.stringMatching(/\] kubectl Waiting, kstatus InProgress, Argo CD Progressing$/),
    )
    // The test moves the counts but leaves Progressing at NewReplicaSetCreated (the controller would
    // set NewReplicaSetAvailable): kstatus, which wants that reason, keeps waiting, and says why.
    expect(lines.at(-3)).toMatch(
      /\] kubectl Done, kstatus InProgress, Argo CD Healthy: they disagree: .*kstatus says InProgress \(ReplicaSet not Available\) because it also wants the Progressing condition True with reason NewReplicaSetAvailable, and it is True\/NewReplicaSetCreated\.$/,
    )
    const kind = (line: string) =>
      /\] (Waiting|Scaled|summary|deployment "web" successfully|pod\/|warning|kubectl)/.exec(line)?.[1] ??
      line
    const simulated = cli([
      'rollout',
      'watch',
      'web',
      '-f',
      'examples/rolling-update.yaml',
      '-n',
      'demo',
      '--now',
      '2026-11-29T10:00:10Z',
      '--line-mode',
    ])
    const simulatedKinds = new Set(simulated.stdout.trim().split('\n').map(kind))
    expect(new Set(lines.map(kind).filter((k) => k !== 'pod/' && k !== 'kubectl'))).toEqual(simulatedKinds)
    // The latest Warning events of the Deployment's objects, once each.
    expect(
      lines.filter((l) =>
        l.endsWith(
          'pod/web-5d8f7c9b6a-aaaaa: Unhealthy: Readiness probe failed: HTTP probe failed with statuscode: 503',
        ),
      ),
    ).toHaveLength(1)
  })

  it('--settled waits until no old pod is terminating', async () => {
    server = await seed()
    finish(server)
    const old = pod(OLD, 'zzzzz', true)
    old.metadata.deletionTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z')
    server.store.put(old)
    const plain = await new Watch(server, ['--line-mode']).exited
    expect(plain.code).toBe(0)
    const w = new Watch(server, ['--settled', '-o', 'json'])
    await w.started()
    await new Promise((r) => setTimeout(r, 500))
    expect(w.stdout).not.toContain('"kind":"End"')
    server.store.remove(PODS, NS, 'web-5d8f7c9b6a-zzzzz')
    const r = await w.exited
    expect(r.code).toBe(0)
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>
    expect(last).toMatchObject({kind: 'End', outcome: 'complete'})
  })

  it('exits 1 with kubectl error line when the progress deadline is exceeded', async () => {
    server = await seed(2)
    const w = new Watch(server, [])
    await w.started()
    stepOne(server)
    update(server, 'deployments', NAME, (o) => {
      const s = o.status as {conditions: Record<string, unknown>[]}
      s.conditions = s.conditions.map((c) =>
        c.type === 'Progressing'
          ? {
              ...c,
              status: 'False',
              reason: 'ProgressDeadlineExceeded',
              message: 'ReplicaSet "web-7f6e5d4c3b" has timed out progressing.',
            }
          : c,
      )
      return o
    })
    const r = await w.exited
    expect(r.code).toBe(1)
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(
      / error: deployment "web" exceeded its progress deadline$/,
    )
    expect(r.stderr).toBe('error: deployment "web" exceeded its progress deadline\n')
  })

  it('exits 1 with a clear message at --timeout', async () => {
    server = await seed()
    const started = Date.now()
    const r = await new Watch(server, ['--timeout', '1500ms']).exited
    expect(r.code).toBe(1)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500)
    expect(r.stderr).toMatch(
      /^error: timed out waiting for the condition: deployment "web" rollout did not finish within 1.5s\n$/,
    )
    expect(r.stdout).toContain('0 out of 2 new replicas have been updated')
    const missing = await new Watch(server, ['-n', NS], 'nope').exited
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('Error from server (NotFound): deployments.apps "nope" not found\n')
    // Never found: the line is at +0s (it said +56y, the time since 1970).
    expect(missing.stdout).toMatch(/^nope \[\d\d:\d\d:\d\d \+0s\] Error from server \(NotFound\)/)
  })

  it('recovers from a dropped watch: resumes and still sees the rollout finish', async () => {
    server = await seed()
    const w = new Watch(server, [])
    await w.started()
    await watching(server)
    const before = watches(server, 'replicasets')
    expect(server.faults.dropWatches()).toBe(3)
    stepOne(server)
    await waitFor(() => watches(server as ApiServer, 'replicasets') > before, 10_000, 'a new watch')
    await waitFor(() => w.stdout.includes('1 out of 2 new replicas'), 10_000, 'the half-way line')
    finish(server)
    const r = await w.exited
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/deployment "web" successfully rolled out\n$/)
  })

  it('recovers from 410 Gone: lists again and sees what changed while the watch was down', async () => {
    server = await seed()
    const w = new Watch(server, [])
    await w.started()
    await watching(server)
    const listed = lists(server, 'deployments')
    expect(server.faults.dropWatches()).toBe(3)
    // While the informers back off, the rollout moves and the server forgets the history.
    stepOne(server)
    server.faults.expireWatchWindow()
    await waitFor(() => lists(server as ApiServer, 'deployments') > listed, 10_000, 'a new list')
    await waitFor(() => w.stdout.includes('1 out of 2 new replicas'), 10_000, 'the half-way line')
    finish(server)
    const r = await w.exited
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/deployment "web" successfully rolled out\n$/)
  })

  it('-o json: one parseable object per change, then an End object', async () => {
    server = await seed()
    const w = new Watch(server, ['-o', 'json'])
    await w.started()
    stepOne(server)
    await waitFor(() => w.stdout.includes('"updated":1'), 10_000, 'the half-way step')
    finish(server)
    const r = await w.exited
    expect(r.code).toBe(0)
    const objects = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(objects.length).toBeGreaterThanOrEqual(3)
    for (const o of objects.slice(0, -1)) {
      expect(o.kind).toBe('Step')
      expect((o.deployment as {name: string}).name).toBe('web')
    }
    const rs = (objects[0] as {replicaSets: {name: string; new: boolean; pods: unknown[]}[]}).replicaSets
    expect(rs.map((r) => [r.name, r.new, r.pods.length])).toEqual([
      ['web-7f6e5d4c3b', true, 0],
      ['web-5d8f7c9b6a', false, 2],
    ])
    expect(objects.at(-1)).toMatchObject({
      kind: 'End',
      outcome: 'complete',
      message: 'deployment "web" successfully rolled out',
      complete: true,
      // What the simulated Summary reports, from the changes seen.
      peakPods: expect.any(Number),
      minAvailable: expect.any(Number),
      deadlineExceeded: false,
      duration: expect.any(Number),
    })
    expect((objects.at(-1) as {peakPods: number}).peakPods).toBeGreaterThanOrEqual(3)
  })

  it('exits 130 on SIGINT, and 0 at once on a paused Deployment with --paused-ok', async () => {
    server = await seed()
    const w = new Watch(server, [])
    await w.started()
    w.kill('SIGINT')
    expect((await w.exited).code).toBe(130)
    update(server, 'deployments', NAME, (o) => ({...o, spec: {...(o.spec as object), paused: true}}))
    const pw = new Watch(server, ['--paused-ok'])
    await pw.started()
    const paused = await pw.exited
    expect(paused.code).toBe(0)
    expect(paused.stdout).toMatch(/deployment "web" is paused\n$/)
  })

  it('shows what kubectl rollout status, kstatus and Argo CD answer, as explain does: on a terminal at 40 columns without colour, and in line mode', async () => {
    // A finished rollout, then paused: kubectl says done, kstatus InProgress (the controller's
    // Progressing condition is DeploymentPaused), Argo CD Suspended: all three part.
    server = await seed()
    finish(server)
    update(server, 'deployments', NAME, (o) => ({
      ...o,
      spec: {...(o.spec as object), paused: true},
      status: {
        ...(o.status as object),
        conditions: [
          {type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable'},
          {type: 'Progressing', status: 'Unknown', reason: 'DeploymentPaused'},
        ],
      },
    }))
    const env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
    const explained = await cliAsync(['explain', NAME, '-o', 'json'], {env})
    expect(explained.code).toBe(0)
    const tools = (JSON.parse(explained.stdout) as {items: Array<{tools: {disagreement: string}}>}).items[0]
      ?.tools
    expect(tools?.disagreement).toMatch(/^kubectl rollout status, which reads only the counts/)
    // -o json: each step carries the same answers as explain's item.
    const json = await cliAsync(['rollout', 'watch', NAME, '-o', 'json'], {env})
    expect(json.code).toBe(0)
    const steps = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {kind: string; tools?: unknown})
      .filter((o) => o.kind === 'Step')
    expect(steps.length).toBeGreaterThan(0)
    for (const step of steps) expect(step.tools).toEqual(tools)

    const lines = await cliAsync(['rollout', 'watch', NAME, '--line-mode'], {env})
    expect(lines.code).toBe(0)
    expect(lines.stdout).toMatch(
      /^web \[\S+ \+\S+\] kubectl Done, kstatus InProgress, Argo CD Suspended: they disagree: (.*)$/m,
    )
    // The same sentence as explain's: one reader of the status model, not a second computation.
    expect(lines.stdout).toContain(`Argo CD Suspended: they disagree: ${tools?.disagreement}\n`)

    const onTerminal = (columns: number) => {
      const command = `stty cols ${columns} rows 30; '${process.execPath}' '${BIN}' rollout watch ${NAME}`
      const e: NodeJS.ProcessEnv = {...process.env, ...env, TERM: 'xterm-256color', NO_COLOR: '1'}
      delete e.CI
      delete e.CONTINUOUS_INTEGRATION
      return new Promise<{code: number | null; stdout: string}>((resolvePromise) => {
        const child = spawn('script', ['-qec', command, '/dev/null'], {cwd: ROOT, env: e})
        let stdout = ''
        child.stdout.setEncoding('utf8').on('data', (c: string) => {
          stdout += c
        })
        child.on('close', (code) => resolvePromise({code, stdout}))
      })
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: dropping the cursor moves to read the text
    const text = (out: string) => out.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split(/\r?\n|\r/)
    const narrow = await onTerminal(40)
    expect(narrow.code).toBe(0)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: SGR sequences are what is looked for
    expect(narrow.stdout).not.toMatch(/\u001b\[[0-9;]*m/)
    const narrowText = text(narrow.stdout)
    expect(narrowText.every((l) => [...l].length <= 40)).toBe(true)
    // kubectl's answer is the status line above; the two others in words, and the disagreement cut.
    expect(narrowText).toContain('kstatus InProgress, Argo CD Suspended')
    expect(narrowText).toContainEqual(expect.stringMatching(/^they disagree: kubectl rollout status.*…$/))
    const wide = await onTerminal(120)
    expect(wide.code).toBe(0)
    expect(text(wide.stdout)).toContain('kubectl Done, kstatus InProgress, Argo CD Suspended')
  }, 60_000)
})
