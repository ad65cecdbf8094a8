// Issue 31 on the moving test cluster (the test API server with --simulate --pod-ready-after 1s, and
// `run` as its Deployment controller): `rollout record` beside the real kubectl records a good
// rollout, a bad image past its deadline, an undo mid-way and a scale mid-way; each recording
// replays through the port with no divergence and exits as the rollout ended; a ReplicaSet scaled by
// hand is the one divergence of its recording; explain --at reads the world mid-way; the summary names
// what stalled the bad rollout and when its deadline fired. Every wait is for an eventual state.

import {existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {changeLine} from '../../src/cluster/timeline/format.js'
import {parseTimelineFile} from '../../src/cluster/timeline/read.js'
import type {Deployment, ReplicaSet} from '../../src/controller/api/types.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cli, eventually, KUBECTL, kubectlAsync, type RunResult, startCli} from './helpers.js'

const suite = KUBECTL ? describe : describe.skip

interface Line {
  time: string
  type: string
  object: {
    kind: string
    metadata: {name: string; ownerReferences?: {name: string}[]}
    spec?: {replicas?: number}
  }
}

/** The recording's header and its changes, each with its whole object (delta lines applied). */
function recorded(file: string): {header: {start: string}; lines: Line[]} {
  const read = parseTimelineFile(file, readFileSync(file, 'utf8'))
  const lines = read.changes.map((c) => ({
    time: new Date(c.time).toISOString(),
    type: c.type,
    object: c.object,
  }))
  return {header: read.header as {start: string}, lines: lines as unknown as Line[]}
}

/** Each ReplicaSet's spec.replicas of a Deployment as recorded up to and including `t`. */
function sizesAt(lines: Line[], deployment: string, t: number): Record<string, number> {
  const sizes: Record<string, number> = {}
  for (const l of lines) {
    if (Date.parse(l.time) > t) break
    const o = l.object
    if (o.kind !== 'ReplicaSet' || o.metadata.ownerReferences?.[0]?.name !== deployment) continue
    if (l.type === 'DELETED') delete sizes[o.metadata.name]
    else sizes[o.metadata.name] = o.spec?.replicas ?? 0
  }
  return sizes
}

suite('post-mortems of rollouts recorded on the moving test cluster', () => {
  let server: ApiServer
  let env: NodeJS.ProcessEnv
  let run: ReturnType<typeof startCli>
  let dir: string

  beforeAll(async () => {
    server = await startApiServer({simulate: {podReadyAfterMs: 1000, terminateAfterMs: 500}})
    dir = mkdtempSync(join(tmpdir(), 'deployctl-postmortem-'))
    env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: join(dir, 'kcache')}
    run = startCli(['run'], {env, killAfterMs: 600_000})
    await eventually(() => run.stderr().includes('caches synced'), 'run to start', 30_000)
  }, 40_000)

  afterAll(async () => {
    run?.child.kill('SIGTERM')
    await run?.done
    await server?.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  }, 30_000)

  const kubectl = async (...args: string[]) => {
    const r = await kubectlAsync(env, ...args)
    expect({args, code: r.code, stderr: r.stderr}).toEqual({args, code: 0, stderr: ''})
    return r
  }

  /** A Deployment of `replicas` nginx pods, rolled out. */
  async function deploy(name: string, replicas: number, patch?: unknown): Promise<void> {
    await kubectl('create', 'deployment', name, '--image=nginx:1.27', `--replicas=${replicas}`)
    if (patch) await kubectl('patch', `deploy/${name}`, '-p', JSON.stringify(patch))
    await kubectl('rollout', 'status', `deploy/${name}`, '--timeout=60s')
  }

  /** `rollout record NAME -O FILE ARGS` while `action` runs, once the recording has listed. */
  async function record(
    name: string,
    args: string[],
    action: () => Promise<unknown>,
  ): Promise<{result: RunResult; file: string}> {
    const file = join(dir, `${name}.ndjson`)
    const rec = startCli(['rollout', 'record', name, '-O', file, ...args], {env, killAfterMs: 120_000})
    await eventually(
      () => {
        try {
          return statSync(file).size > 0 && readFileSync(file, 'utf8').split('\n').length > 2
        } catch {
          return false
        }
      },
      'the recording to begin',
      30_000,
    )
    await action()
    const result = await rec.done
    return {result, file}
  }

  const replay = (name: string, file: string) =>
    cli(['rollout', 'watch', name, '-f', file, '--replay', '--line-mode'])

  it('a good rollout: recorded until done (exit 0), explained mid-way with the sizes of then, replayed with no divergence', async () => {
    await deploy('web', 4)
    const {result, file} = await record('web', ['--until-done'], () =>
      kubectl('set', 'image', 'deploy/web', 'nginx=nginx:1.28'),
    )
    expect(result.stderr).toContain('every rollout done')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^deployment default\/web revision 2: complete\n/)
    // Changes of objects already in the file are delta lines (merge patches), read back whole below.
    expect(readFileSync(file, 'utf8')).toMatch(
      /^\{"time":"[^"]+","type":"MODIFIED","kind":"Pod","uid":"[^"]+","patch":\{/m,
    )

    // Mid-way: just after the controller's first scale-down of the old ReplicaSet.
    const {header, lines} = recorded(file)
    const firstDown = lines.find(
      (l) => l.object.kind === 'ReplicaSet' && l.type === 'MODIFIED' && (l.object.spec?.replicas ?? 4) < 4,
    ) as Line
    const mid = Date.parse(firstDown.time)
    const expected = sizesAt(lines, 'web', mid)
    expect(Object.keys(expected)).toHaveLength(2)
    const at = `+${mid - Date.parse(header.start)}ms`
    const explained = cli(['explain', 'web', '-f', file, '--at', at, '-o', 'json'])
    expect(explained.code).toBe(0)
    const item = (
      JSON.parse(explained.stdout) as {
        items: {verdict: {code: string}; replicaSets: {name: string; desired: number}[]}[]
      }
    ).items[0]
    expect(item?.verdict.code).not.toBe('Complete')
    expect(Object.fromEntries(item?.replicaSets.map((r) => [r.name, r.desired]) ?? [])).toEqual(expected)
    const text = cli(['explain', 'web', '-f', file, '--at', at])
    expect(text.stderr).toContain(`note: --at ${at} is ${new Date(mid).toISOString()}`)

    const r = replay('web', file)
    expect(r.stdout).toContain("replay: no divergence between the recorded ReplicaSet writes and the port's")
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/deployment "web" successfully rolled out$/)
    expect(r.code).toBe(0)
  }, 90_000)

  it('a bad image past its deadline: exit 1, no divergence, and the summary names ImagePullBackOff and the deadline time', async () => {
    await deploy('bad', 2, {spec: {progressDeadlineSeconds: 6}})
    const {result, file} = await record('bad', ['--until-done'], () =>
      kubectl('set', 'image', 'deploy/bad', 'nginx=registry.example.invalid/app:v2'),
    )
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/^deployment default\/bad revision 2: exceeded its progress deadline\n/)
    expect(result.stdout).toMatch(/\n {2}longest stall {8}[\d.]+s, \S+ to \S+: ImagePullBackOff \(pod\/bad-/)
    // The deadline: the last progress the controller recorded (Progressing's lastUpdateTime) plus 6s.
    const {lines} = recorded(file)
    const progressed = lines
      .filter((l) => l.object.kind === 'Deployment')
      .map((l) =>
        (l.object as unknown as Deployment).status?.conditions?.find((c) => c.type === 'Progressing'),
      )
      .filter((c) => c?.reason === 'NewReplicaSetCreated' || c?.reason === 'ReplicaSetUpdated')
      .at(-1)
    const deadline = new Date(Date.parse(progressed?.lastUpdateTime ?? '') + 6000)
      .toISOString()
      .replace('.000Z', 'Z')
    expect(result.stdout).toContain(
      `\n  progress deadline    fired at ${deadline}, marked by the controller at `,
    )

    const r = replay('bad', file)
    expect(r.stdout).toContain('replay: no divergence')
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /error: deployment "bad" exceeded its progress deadline$/,
    )
    expect(r.code).toBe(1)
  }, 90_000)

  it('an undo mid-rollout: the bad rollout superseded, the undo complete, no divergence', async () => {
    await deploy('undo', 3)
    const {result, file} = await record('undo', ['--until-done'], async () => {
      await kubectl('set', 'image', 'deploy/undo', 'nginx=registry.example.invalid/app:v3')
      await eventually(
        () =>
          server.store
            .list('pods', 'default')
            .some((p) => JSON.stringify(p).includes('ErrImagePull') && JSON.stringify(p).includes('undo-')),
        'a new pod that cannot pull',
        30_000,
      )
      await kubectl('rollout', 'undo', 'deploy/undo')
    })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('deployment default/undo revision 2: superseded by a newer template\n')
    expect(result.stdout).toContain('deployment default/undo revision 3: complete\n')
    const r = replay('undo', file)
    expect(r.stdout).toContain('replay: no divergence')
    expect(r.code).toBe(0)
  }, 90_000)

  it('a scale during a rollout: proportional scaling replays with no divergence (recorded --no-delta: every line whole)', async () => {
    await deploy('grow', 3)
    const {result, file} = await record('grow', ['--until-done', '--no-delta'], async () => {
      await kubectl('set', 'image', 'deploy/grow', 'nginx=nginx:1.28')
      await kubectl('scale', 'deploy/grow', '--replicas=8')
    })
    expect(result.code).toBe(0)
    const [, ...lines] = readFileSync(file, 'utf8').trimEnd().split('\n')
    expect(
      lines.filter((l) => !/^\{"time":"[^"]+","type":"(ADDED|MODIFIED|DELETED)","object":\{/.test(l)),
    ).toEqual([])
    expect(lines.some((l) => l.includes('"type":"MODIFIED"'))).toBe(true)
    const r = replay('grow', file)
    expect(r.stdout).toContain('replay: no divergence')
    expect(r.stdout).toContain('deployment "grow" successfully rolled out')
    expect(r.code).toBe(0)
  }, 90_000)

  it('delta lines and --no-delta: two recorders beside one rollout hold the same objects, and a recording replays, summarizes and explains the same written either way', async () => {
    await deploy('twin', 3)
    const started = (file: string) => () => {
      try {
        return statSync(file).size > 0 && readFileSync(file, 'utf8').split('\n').length > 2
      } catch {
        return false
      }
    }
    const deltaFile = join(dir, 'twin.ndjson')
    const wholeFile = join(dir, 'twin-no-delta.ndjson')
    const a = startCli(['rollout', 'record', 'twin', '-O', deltaFile, '--until-done'], {
      env,
      killAfterMs: 120_000,
    })
    const b = startCli(['rollout', 'record', 'twin', '-O', wholeFile, '--until-done', '--no-delta'], {
      env,
      killAfterMs: 120_000,
    })
    await eventually(started(deltaFile), 'the delta recording to begin', 30_000)
    await eventually(started(wholeFile), 'the --no-delta recording to begin', 30_000)
    // A third recorder on a file one of them writes is refused at once, and changes nothing.
    const third = cli(['rollout', 'record', 'twin', '-O', deltaFile, '--duration', '5s'], {env})
    expect(third.stderr).toBe(
      `error: ${deltaFile} is being recorded by another process (pid ${a.child.pid}): give another -O FILE, or remove ${deltaFile}.lock if that process is not a recorder\n`,
    )
    expect(third.code).toBe(1)
    await kubectl('set', 'image', 'deploy/twin', 'nginx=nginx:1.28')
    const [ra, rb] = await Promise.all([a.done, b.done])
    expect([ra.code, rb.code]).toEqual([0, 0])
    expect(existsSync(`${deltaFile}.lock`)).toBe(false)
    const deltaText = readFileSync(deltaFile, 'utf8')
    const [, ...wholeLines] = readFileSync(wholeFile, 'utf8').trimEnd().split('\n')
    expect(deltaText).toContain('"patch":{')
    expect(wholeLines.filter((l) => !l.includes('"object":{'))).toEqual([])

    // The writers: each object's recorded versions are the same in both files. The recorders start
    // and stop a few ms apart, so one may lack an object's first or last versions: the versions
    // both hold, aligned on the first of them, must be equal, and most must be shared.
    const versions = (file: string, text: string) => {
      const byUid = new Map<string, string[]>()
      for (const c of parseTimelineFile(file, text).changes) {
        const uid = (c.object.metadata as {uid: string}).uid
        byUid.set(uid, [
          ...(byUid.get(uid) ?? []),
          c.type === 'DELETED' ? 'DELETED' : JSON.stringify(c.object),
        ])
      }
      return byUid
    }
    const fromDelta = versions(deltaFile, deltaText)
    const fromWhole = versions(wholeFile, readFileSync(wholeFile, 'utf8'))
    const rolled = [...fromDelta.values()].flat().filter((v) => v.includes('"image":"nginx:1.28"')).length
    expect(rolled).toBeGreaterThan(3)
    let shared = 0
    let all = 0
    for (const uid of new Set([...fromDelta.keys(), ...fromWhole.keys()])) {
      let x = fromDelta.get(uid) ?? []
      let y = fromWhole.get(uid) ?? []
      all += Math.max(x.length, y.length)
      if (x.length === 0 || y.length === 0) continue
      if (x.indexOf(y[0] as string) > 0) x = x.slice(x.indexOf(y[0] as string))
      else if (y.indexOf(x[0] as string) > 0) y = y.slice(y.indexOf(x[0] as string))
      const n = Math.min(x.length, y.length)
      shared += n
      expect({uid, versions: x.slice(0, n)}).toEqual({uid, versions: y.slice(0, n)})
    }
    expect(shared).toBeGreaterThan(all * 0.9)

    // The readers: the delta recording, and the same changes written whole (as --no-delta writes
    // them: one changeLine each), give the same output, byte for byte, through every command.
    const [head, ...rest] = deltaText.trimEnd().split('\n')
    const parsed = parseTimelineFile(deltaFile, deltaText)
    expect(parsed.changes).toHaveLength(rest.length)
    const sameChanges = join(dir, 'twin-whole.ndjson')
    expect(parsed.gaps).toEqual([])
    writeFileSync(
      sameChanges,
      `${head}\n${parsed.changes.map((c) => changeLine(c.time, c.type, c.object)).join('')}`,
    )
    expect(readFileSync(sameChanges, 'utf8')).not.toContain('"patch":')
    const mid = Math.round((parsed.changes.at(-1)?.time ?? 0) / 2 + (parsed.changes[0]?.time ?? 0) / 2)
    const commands = [
      ['rollout', 'watch', 'twin', '--replay', '--line-mode'],
      ['rollout', 'watch', 'twin', '--replay', '-o', 'json'],
      ['explain', 'twin', '--timeline-summary', '-o', 'json'],
      ['explain', 'twin', '--at', new Date(mid).toISOString(), '-o', 'json'],
      ['dry-run', 'sync', 'twin', '--at', new Date(mid).toISOString()],
    ]
    for (const args of commands) {
      const x = cli([...args, '-f', deltaFile])
      const y = cli([...args, '-f', sameChanges])
      expect({
        args,
        code: y.code,
        stdout: y.stdout.replaceAll(sameChanges, deltaFile),
        stderr: y.stderr.replaceAll(sameChanges, deltaFile),
      }).toEqual({
        args,
        code: x.code,
        stdout: x.stdout,
        stderr: x.stderr,
      })
      expect(x.stdout.length).toBeGreaterThan(0)
    }
    const r = replay('twin', deltaFile)
    expect(r.stdout).toContain('replay: no divergence')
    expect(r.code).toBe(0)
    // Each recorder's own file replays with no divergence and ends as the rollout did.
    const w = replay('twin', wholeFile)
    expect(w.stdout).toContain('replay: no divergence')
    expect(w.stdout.trimEnd().split('\n').at(-1)).toMatch(/deployment "twin" successfully rolled out$/)
    expect(w.code).toBe(0)
  }, 90_000)

  it('a ReplicaSet scaled by hand while recording is the one divergence, naming it and its time', async () => {
    await deploy('hand', 3)
    const rs = (server.store.list('replicasets', 'default') as unknown as ReplicaSet[]).find((x) =>
      x.metadata.name?.startsWith('hand-'),
    ) as ReplicaSet
    const name = rs.metadata.name as string
    const {result, file} = await record('hand', ['--duration', '4s'], () =>
      kubectl('scale', `rs/${name}`, '--replicas=5'),
    )
    expect(result.code).toBe(0)
    const {lines} = recorded(file)
    const byHand = lines.find((l) => l.object.kind === 'ReplicaSet' && l.object.spec?.replicas === 5) as Line
    const r = replay('hand', file)
    const divergences = r.stdout.split('\n').filter((l) => l.includes('] divergence '))
    expect(divergences).toHaveLength(1)
    expect(divergences[0]).toContain(
      `divergence OtherWriter: replicaset ${name} was scaled from 3 to 5 at ${new Date(Date.parse(byHand.time)).toISOString()}`,
    )
    expect(r.stdout).toContain('replay: 1 divergence')
    expect(r.code).toBe(0)
  }, 90_000)
})
