// `npm run bench`, the recording part (bench/run.mjs runs it with tsx): a 10-minute recording of 50
// Deployments rolling continuously, its size, and how long it takes to replay.
//
// How it is made (honestly): on the test API server (--simulate) with `run -A --kube-api-qps=-1` as
// the Deployment controller (at the default 20 requests a second, 50 Deployments rolling at once
// wait on the client's rate limiter, 10-30 s a step, and the rollouts would pace the recording) and `rollout record -A` recording, at an accelerated clock. 50 Deployments of 3
// replicas (maxSurge and maxUnavailable 25%: one surge pod at a time); each gets a new image as
// soon as its last rollout is complete, 20 times. With pods ready 10 s after they are scheduled, a
// rollout of 3 replicas takes about 30 s: 20 back to back are what 10 minutes of continuous rolling
// hold. Here pods are ready after 1 s and terminate in 0.5 s, the recording runs as long as the
// machine needs for the 20 rollouts of every Deployment (about 80 s on a quiet one, more under
// load), and every line's receive time is then spread over 10 minutes from the recording's start
// (one factor for the whole file). Only the `time` of each line is stretched: the timestamps inside
// the objects (conditions, creation times) keep the compressed clock.
//
// The same lines through the recorder's file writer with --max-size 50MB (its compaction: the
// oldest intermediate pod, then Event, updates dropped) give the bounded recording.
//
// Measured: the file's size and lines (and the bounded one's, with what it compacted);
// `rollout watch NAME -f FILE --replay -o json` of one Deployment (wall time, peak RSS) against the
// baseline of JSON.parse of every line on the same Node; `explain -A -f FILE --timeline-summary`
// (every rollout of all 50, in one replay pass over the file).
//
//   tsx bench/timeline.ts [--quick] [--out FILE] [--keep RECORDING]

import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import {copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {
  type ChangeType,
  changeLine,
  objectKeyOf,
  type RecordedKind,
  relistLine,
  type TimelineHeader,
} from '../src/cluster/timeline/format.js'
import {parseTimelineFile} from '../src/cluster/timeline/read.js'
import {RecordingFile} from '../src/cluster/timeline/recording-file.js'
import type {Deployment} from '../src/controller/api/types.js'
import {type ApiServer, startApiServer} from '../test/apiserver/index.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const argv = process.argv.slice(2)
const quick = argv.includes('--quick')
const outIndex = argv.indexOf('--out')
const out = outIndex >= 0 ? argv[outIndex + 1] : undefined
/** --keep FILE: a copy of the (stretched) recording, to look into afterwards. */
const keepIndex = argv.indexOf('--keep')
const keep = keepIndex >= 0 ? argv[keepIndex + 1] : undefined
const cli = join(root, 'bin', 'run.cjs')

/** Pod timings are divided by it (ready after 1 s instead of 10 s). */
const SPEED = 10
const DEPLOYMENTS = quick ? 10 : 50
const REPLICAS = 3
/** Rollouts of each Deployment, back to back: about 30 s each at 1x. */
const ROLLOUTS = quick ? 4 : 20
const RECORDED_MS = (quick ? 2 : 10) * 60_000
const READY_MS = 10_000
const TERMINATE_MS = 5_000

const dir = mkdtempSync(join(tmpdir(), 'deployctl-bench-timeline-'))
process.on('exit', () => rmSync(dir, {recursive: true, force: true}))
const log = (line: string) => process.stderr.write(`  ${line}\n`)

async function api(server: ApiServer, method: string, path: string, body?: unknown, type?: string) {
  const res = await fetch(server.url + path, {
    method,
    headers: {
      Authorization: `Bearer ${server.token}`,
      'Content-Type': type ?? 'application/json',
      Accept: 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.json() as Promise<unknown>
}

function deployment(i: number): unknown {
  const name = `app-${String(i).padStart(2, '0')}`
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name, namespace: 'default', labels: {app: name}},
    spec: {
      replicas: REPLICAS,
      selector: {matchLabels: {app: name}},
      template: {
        metadata: {labels: {app: name}},
        spec: {
          containers: [{name: 'app', image: 'registry.example.com/app:1.0', ports: [{containerPort: 8080}]}],
        },
      },
    },
  }
}

/** Complete as kubectl judges it: observed, every replica updated and available, no old one left. */
function complete(d: Deployment): boolean {
  const s = d.status ?? {}
  const want = d.spec.replicas ?? 1
  return (
    (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
    (s.updatedReplicas ?? 0) === want &&
    (s.replicas ?? 0) === want &&
    (s.availableReplicas ?? 0) === want
  )
}

function start(
  args: string[],
  env: NodeJS.ProcessEnv,
): {child: ChildProcess; done: Promise<number | null>; err: () => string} {
  const child = spawn(process.execPath, [cli, ...args], {
    env: {...process.env, ...env},
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let err = ''
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    err += c
  })
  const done = new Promise<number | null>((r) => child.on('close', (code) => r(code)))
  return {child, done, err: () => err}
}

async function until(probe: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Wall ms and peak RSS (GNU time) of one run of the CLI. */
function measure(args: string[]) {
  return timed([cli, ...args])
}

/** The baseline: a Node script on the same Node. */
function measureNode(script: string) {
  return timed(['-e', script])
}

function timed(nodeArgs: string[]): {ms: number; peakRssMB: number; code: number | null; stdout: string} {
  const rss = join(dir, 'rss')
  const t0 = performance.now()
  const r = spawnSync('/usr/bin/time', ['-f', '%M', '-o', rss, process.execPath, ...nodeArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 1 << 30,
    encoding: 'utf8',
  })
  const ms = Math.round(performance.now() - t0)
  const kb = Number(readFileSync(rss, 'utf8').trim().split('\n').at(-1))
  return {ms, peakRssMB: Math.round(kb / 1024), code: r.status, stdout: r.stdout}
}

/**
 * The recording as `rollout record --max-size` would have written it: its lines appended, in order,
 * to the recorder's own file writer (the same compaction). Undefined error: it stayed under.
 */
function bound(
  from: string,
  to: string,
  maxBytes: number,
): {file: string; error?: string; compacted?: unknown} {
  const [head, ...lines] = readFileSync(from, 'utf8').trimEnd().split('\n')
  const sink = new RecordingFile(to, maxBytes, JSON.parse(head as string) as TimelineHeader)
  sink.open()
  // A delta line names its object by uid: the key is the one of the object's whole line before it.
  const keyOfUid = new Map<string, string>()
  try {
    for (const l of lines) {
      const v = JSON.parse(l) as {
        time: string
        type: ChangeType | 'RELIST'
        kind?: RecordedKind
        uid?: string
        object?: {kind: RecordedKind; metadata: {namespace?: string; name?: string; uid?: string}}
      }
      const time = Date.parse(v.time)
      if (v.type === 'RELIST') {
        sink.append(`${l}\n`, {kind: 'RELIST', type: 'RELIST', time})
        continue
      }
      const kind = (v.object?.kind ?? v.kind) as RecordedKind
      let key = v.uid === undefined ? undefined : keyOfUid.get(v.uid)
      if (v.object) {
        key = objectKeyOf(kind, v.object)
        if (v.object.metadata.uid) keyOfUid.set(v.object.metadata.uid, key)
      }
      sink.append(`${l}\n`, {kind, type: v.type, time, key, delta: v.object === undefined})
    }
  } catch (err) {
    return {file: to, error: err instanceof Error ? err.message : String(err)}
  } finally {
    sink.close()
  }
  const header = JSON.parse(readFileSync(to, 'utf8').split('\n')[0] as string) as {compacted?: unknown}
  return {file: to, compacted: header.compacted ?? null}
}

/** The size of the same recording with every line whole (as `rollout record --no-delta` writes it). */
function wholeBytes(file: string): number {
  const text = readFileSync(file, 'utf8')
  const timeline = parseTimelineFile(file, text)
  let bytes = Buffer.byteLength(text.slice(0, text.indexOf('\n') + 1))
  for (const c of timeline.changes) bytes += Buffer.byteLength(changeLine(c.time, c.type, c.object))
  for (const g of timeline.gaps) bytes += Buffer.byteLength(relistLine(g.to ?? g.from, g.kind, g.from))
  return bytes
}

/** The divergences of a replay's -o json (its Steps'), by code, then a few in full. */
function divergencesIn(stdout: string): {byCode: Record<string, number>; first: unknown[]} {
  const byCode: Record<string, number> = {}
  const first: unknown[] = []
  for (const l of stdout.trimEnd().split('\n')) {
    const v = JSON.parse(l) as {divergences?: {code: string}[]}
    // The End line carries their count, the Steps the divergences.
    for (const d of Array.isArray(v.divergences) ? v.divergences : []) {
      byCode[d.code] = (byCode[d.code] ?? 0) + 1
      if (first.length < 5) first.push(d)
    }
  }
  return {byCode, first}
}

/** The divergence count of a replay's -o json (its End object). */
function divergencesOf(stdout: string): number | null {
  const end = JSON.parse(stdout.trimEnd().split('\n').at(-1) ?? '{}') as {divergences?: number}
  return end.divergences ?? null
}

/**
 * Spreads a recording's receive times over RECORDED_MS from its start (one factor for the whole
 * file, computed from the first file unless given); returns the factor.
 */
function stretch(from: string, to: string, given?: number): number {
  const lines = readFileSync(from, 'utf8').trimEnd().split('\n')
  const header = JSON.parse(lines[0] as string) as {start: string}
  const t0 = Date.parse(header.start)
  const last = JSON.parse(lines.at(-1) as string) as {time: string}
  const factor = given ?? RECORDED_MS / Math.max(1, Date.parse(last.time) - t0)
  const at = (t: string) => new Date(t0 + (Date.parse(t) - t0) * factor).toISOString()
  const out = [lines[0] as string]
  for (const l of lines.slice(1)) {
    const v = JSON.parse(l) as {time: string; since?: string}
    v.time = at(v.time)
    if (v.since) v.since = at(v.since)
    out.push(JSON.stringify(v))
  }
  writeFileSync(to, `${out.join('\n')}\n`)
  return factor
}

async function record(): Promise<{file: string; rollouts: number; realMs: number; factor: number}> {
  const server = await startApiServer({
    simulate: {podReadyAfterMs: READY_MS / SPEED, terminateAfterMs: TERMINATE_MS / SPEED},
  })
  const env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
  const run = start(['run', '-A', '--kube-api-qps=-1'], env)
  let recorder: ReturnType<typeof start> | undefined
  try {
    await until(() => run.err().includes('caches synced'), 'run to start', 30_000)
    for (let i = 0; i < DEPLOYMENTS; i++)
      await api(server, 'POST', '/apis/apps/v1/namespaces/default/deployments', deployment(i))
    const list = () => server.store.list('deployments', 'default') as unknown as Deployment[]
    await until(() => list().length === DEPLOYMENTS && list().every(complete), 'the first rollouts', 120_000)
    const raw = join(dir, 'raw.ndjson')
    const began = Date.now()
    recorder = start(['rollout', 'record', '-A', '-O', raw], env)
    await until(
      () => {
        try {
          return statSync(raw).size > 0
        } catch {
          return false
        }
      },
      'the recording to begin',
      30_000,
    )
    // Every Deployment gets a new image as soon as its rollout is complete, ROLLOUTS times.
    let rollouts = 0
    const version = new Map<string, number>()
    const finished = () =>
      list().every((d) => complete(d) && (version.get(d.metadata.name ?? '') ?? 0) >= ROLLOUTS)
    while (!finished()) {
      for (const d of list()) {
        const name = d.metadata.name ?? ''
        const image = d.spec.template.spec?.containers?.[0]?.image ?? ''
        if (!complete(d) || !image.endsWith(`:1.${version.get(name) ?? 0}`)) continue
        if ((version.get(name) ?? 0) >= ROLLOUTS) continue
        const next = (version.get(name) ?? 0) + 1
        version.set(name, next)
        rollouts++
        await api(
          server,
          'PATCH',
          `/apis/apps/v1/namespaces/default/deployments/${name}`,
          {
            spec: {
              template: {spec: {containers: [{name: 'app', image: `registry.example.com/app:1.${next}`}]}},
            },
          },
          'application/strategic-merge-patch+json',
        )
      }
      await new Promise((r) => setTimeout(r, 50))
    }
    // The last changes (old pods going) settle, then Ctrl-C ends the recording.
    await new Promise((r) => setTimeout(r, TERMINATE_MS / SPEED + 1000))
    recorder.child.kill('SIGINT')
    if ((await recorder.done) !== 0) throw new Error(`rollout record failed: ${recorder.err()}`)
    const realMs = Date.now() - began
    const file = join(dir, 'recording.ndjson')
    const factor = stretch(raw, file)
    return {file, rollouts, realMs, factor}
  } finally {
    recorder?.child.kill('SIGKILL')
    run.child.kill('SIGTERM')
    await run.done
    await server.close()
  }
}

log(
  `recording ${DEPLOYMENTS} Deployments rolling ${ROLLOUTS} times each, pods ready after ${READY_MS / SPEED} ms`,
)
const rec = await record()
if (keep) copyFileSync(rec.file, keep)
const bytes = statSync(rec.file).size
const bounded = bound(rec.file, join(dir, 'bounded.ndjson'), 50e6)
const boundedBytes = bounded.error ? 0 : statSync(bounded.file).size
const lines = readFileSync(rec.file, 'utf8').trimEnd().split('\n').length - 1
const whole = wholeBytes(rec.file)
log(`written whole (--no-delta): ${(whole / 1e6).toFixed(1)} MB`)
log(
  `${lines} lines, ${(bytes / 1e6).toFixed(1)} MB (with --max-size 50MB: ${bounded.error ?? `${(boundedBytes / 1e6).toFixed(1)} MB`}), ${rec.rollouts} rollouts started`,
)
const parse = measureNode(
  `for (const l of require('fs').readFileSync(${JSON.stringify(rec.file)}, 'utf8').split('\\n')) if (l) JSON.parse(l)`,
)
log(`JSON.parse of every line: ${parse.ms} ms`)
const replay = measure(['rollout', 'watch', 'app-00', '-f', rec.file, '--replay', '-o', 'json'])
log(
  `replay of one Deployment: ${replay.ms} ms, exit ${replay.code}, ${divergencesOf(replay.stdout)} divergences ${JSON.stringify(divergencesIn(replay.stdout).byCode)} (times stretched x${rec.factor.toFixed(2)}: a LateWrite's delay too)`,
)
const boundedReplay = bounded.error
  ? undefined
  : measure(['rollout', 'watch', 'app-00', '-f', bounded.file, '--replay', '-o', 'json'])
const summary = measure(['explain', '-A', '-f', rec.file, '--timeline-summary', '-o', 'json'])
log(`summary of all: ${summary.ms} ms, exit ${summary.code}`)
const result = {
  deployments: DEPLOYMENTS,
  replicas: REPLICAS,
  recordedMinutes: RECORDED_MS / 60_000,
  podReadyAfterMs: READY_MS / SPEED,
  realSeconds: Math.round(rec.realMs / 1000),
  timeStretch: Number(rec.factor.toFixed(2)),
  rolloutsStarted: rec.rollouts,
  lines,
  sizeMB: Number((bytes / 1e6).toFixed(1)),
  sizeWholeMB: Number((whole / 1e6).toFixed(1)),
  bounded: bounded.error
    ? {error: bounded.error}
    : {
        sizeMB: Number((boundedBytes / 1e6).toFixed(1)),
        compacted: bounded.compacted,
        replayDivergences: boundedReplay ? divergencesOf(boundedReplay.stdout) : null,
      },
  parseBaseline: {ms: parse.ms, peakRssMB: parse.peakRssMB},
  replayOne: {
    ms: replay.ms,
    peakRssMB: replay.peakRssMB,
    code: replay.code,
    divergences: divergencesOf(replay.stdout),
    found: divergencesIn(replay.stdout),
  },
  summaryAll: {ms: summary.ms, peakRssMB: summary.peakRssMB, code: summary.code},
}
if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`)
else console.log(JSON.stringify(result, null, 2))
