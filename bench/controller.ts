// `npm run bench`, the controller part (bench/run.mjs runs it with tsx): `run` against the test API
// server loaded with ../shared/bench snapshots, as ratios against kubectl on the same server.
//
// - cold start: spawn to every Deployment of a 1,000-Deployment snapshot synced
//   (`--kube-api-qps 1000 --kube-api-burst 1000`), against `kubectl get deploy,rs,pods -A -o json`
//   of the same fresh server, in turns; the server in a process of its own, each process's peak
//   RSS, run's against the JSON of the objects it caches (as kubectl prints them, and on the wire);
// - reaction: the server's receipt of `kubectl set image` to the controller's first ReplicaSet
//   write (server-side times), p50/p99 over 100 changes, and run's own share of it from its --v 6
//   log (the Deployment's update event in run to the ReplicaSet POST leaving it);
// - steady state: syncs per minute on a quiet cluster, by cause;
// - dry-run namespace: `run --dry-run=client` cold, 2,000 Deployments in one namespace against the
//   same over 40 namespaces, in turns (issue 30 item 3);
// - memory: the same at 5,000 Deployments (one trial);
// - idle: requests `run` sends in 2 minutes on an idle cluster of 1,000 (a snapshot an hour old,
//   nothing due in the window; no leader election), watch renewals apart;
// - failover: Lease takeover after kill -9 and after SIGTERM (lease 4s, renew 3s, retry 1s), and
//   20 rollouts with the leader killed at seeded random moments;
// - the Lease deleted under the leader, 20 trials: writes made while another replica held it.
//
//   tsx bench/controller.ts [--quick] [--out FILE] [--only 'cold start,memory'] [--deployments N]
//                           [--runs N] [--kcm-qps]
// --deployments N: the cold start's and the memory part's cluster size (10,000: ~100,000 pods; the
// server process then needs several GB); --kcm-qps: also the cold start at kube-controller-manager's
// client limits (qps 20, burst 30).

import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import {request} from 'node:http'
import {loadavg, tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Random} from '../src/sim/random.js'
import {type ApiServer, startApiServer} from '../test/apiserver/index.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const argv = process.argv.slice(2)
const quick = argv.includes('--quick')
const outIndex = argv.indexOf('--out')
const out = outIndex >= 0 ? argv[outIndex + 1] : undefined
const onlyIndex = argv.indexOf('--only')
/** --only 'reaction,steady': run those parts. */
const only = onlyIndex >= 0 ? argv[onlyIndex + 1] : undefined
const runsIndex = argv.indexOf('--runs')
const RUNS = runsIndex >= 0 ? Number(argv[runsIndex + 1]) : quick ? 2 : 3
const KCM_QPS = argv.includes('--kcm-qps')
const IDLE_MS = quick ? 30_000 : 120_000
const sizeIndex = argv.indexOf('--deployments')
/** --deployments N: the cold start's and the memory part's cluster size (1,000 and 5,000 by default). */
const SIZE = sizeIndex >= 0 ? Number(argv[sizeIndex + 1]) : undefined
const CHANGES = quick ? 30 : 100
const STEADY_MS = quick ? 20_000 : 60_000
const FAILOVER_TRIALS = quick ? 3 : 5
const RANDOM_ROLLOUTS = quick ? 6 : 20
const LEASE_DELETED_TRIALS = quick ? 6 : 20

const cli = join(root, 'bin', 'run.cjs')
const kubectlBin = ['/usr/lib/google-cloud-sdk/bin/kubectl.1.32', '/usr/bin/kubectl'].find(existsSync)
const generator = [
  join(root, '..', 'shared', 'bench', 'gen-cluster.mjs'),
  '/work/shared/bench/gen-cluster.mjs',
].find(existsSync)
if (!generator || !kubectlBin) {
  console.error('error: needs ../shared/bench/gen-cluster.mjs and kubectl')
  process.exit(1)
}
const dir = mkdtempSync(join(tmpdir(), 'deployctl-bench-run-'))
process.on('exit', () => rmSync(dir, {recursive: true, force: true}))
const log = (line: string) => process.stderr.write(`  ${line}\n`)

/**
 * A generated snapshot's file (parsed only for the parts that serve it in this process), taken
 * `ageMs` ago: the generator dates every timestamp from its --now, and the test API server, `run`
 * and the benchmark all read the machine's clock.
 */
function snapshotFile(n: number, ageMs = 0, namespaces?: number): string {
  const file = join(
    dir,
    `snap-${n}${ageMs ? `-aged-${ageMs}` : ''}${namespaces ? `-ns-${namespaces}` : ''}.json`,
  )
  if (existsSync(file)) return file
  const fd = openSync(file, 'w')
  const r = spawnSync(
    process.execPath,
    [
      generator as string,
      '--deployments',
      String(n),
      ...(namespaces ? ['--namespaces', String(namespaces)] : []),
      '--now',
      new Date(Date.now() - ageMs).toISOString(),
    ],
    {stdio: ['ignore', fd, 'pipe']},
  )
  closeSync(fd)
  if (r.status !== 0) throw new Error(`generator failed: ${r.stderr}`)
  return file
}

function snapshot(n: number, ageMs = 0): {file: string; objects: unknown} {
  const file = snapshotFile(n, ageMs)
  return {file, objects: JSON.parse(readFileSync(file, 'utf8'))}
}

const servers: ApiServer[] = []
async function serve(objects: unknown[], simulate = false): Promise<ApiServer> {
  const s = await startApiServer({
    objects,
    ...(simulate ? {simulate: {podReadyAfterMs: 300, terminateAfterMs: 300}} : {}),
  })
  servers.push(s)
  return s
}

/** Where a server answers: one served in this process, or one in a process of its own. */
interface Served {
  kubeconfigPath: string
  url: string
}

/**
 * The test API server in a process of its own (`test/apiserver/main.ts --load FILE`): the bench
 * holds no copy of the objects, and each process's peak RSS is its own.
 */
class ServerProcess implements Served {
  kubeconfigPath = ''
  url = ''
  readonly child: ChildProcess
  readonly exited: Promise<number | null>
  private out = ''

  private constructor(file: string) {
    this.child = spawn(
      process.execPath,
      [
        '--max-old-space-size=16384',
        '--import',
        'tsx',
        join(root, 'test', 'apiserver', 'main.ts'),
        '--load',
        file,
      ],
      {cwd: root, stdio: ['ignore', 'pipe', 'inherit']},
    )
    this.child.stdout?.setEncoding('utf8').on('data', (c: string) => {
      this.out += c
    })
    this.exited = new Promise((r) => this.child.on('close', (code) => r(code)))
  }

  static async start(file: string): Promise<ServerProcess> {
    const s = new ServerProcess(file)
    const t0 = performance.now()
    while (!/kubeconfig: (\S+)\n/.test(s.out)) {
      if (s.child.exitCode !== null) throw new Error(`the test API server exited ${s.child.exitCode}`)
      await sleep(50)
    }
    s.url = /listening on (\S+)/.exec(s.out)?.[1] as string
    s.kubeconfigPath = /kubeconfig: (\S+)/.exec(s.out)?.[1] as string
    log(`server process up in ${round((performance.now() - t0) / 1000, 1)} s (${file})`)
    return s
  }

  memory(): {peakKB: number; rssKB: number} {
    return procMemory(this.child.pid as number)
  }

  async close(): Promise<void> {
    this.child.kill('SIGTERM')
    await this.exited
  }
}

/** Peak and current resident set (kB) from /proc. */
function procMemory(pid: number): {peakKB: number; rssKB: number} {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0)
  return {peakKB: kb('VmHWM'), rssKB: kb('VmRSS')}
}

/** User + system CPU seconds of a live process so far. */
function procCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** Bytes of the compact JSON pages a client lists of deploy, rs and pods (limit 500, as run). */
async function wireBytes(server: Served): Promise<number> {
  let total = 0
  for (const path of ['/apis/apps/v1/deployments', '/apis/apps/v1/replicasets', '/api/v1/pods']) {
    let token = ''
    do {
      const url = `${server.url}${path}?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`
      const body = await new Promise<Buffer>((resolveBody, reject) => {
        request(url, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolveBody(Buffer.concat(chunks)))
          res.on('error', reject)
        })
          .on('error', reject)
          .end()
      })
      total += body.length
      token = (JSON.parse(body.toString('utf8')) as {metadata?: {continue?: string}}).metadata?.continue ?? ''
    } while (token)
  }
  return total
}

function envOf(server: Served): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KUBECONFIG: server.kubeconfigPath,
    KUBECACHEDIR: mkdtempSync(join(dir, 'kcache-')),
    NODE_ENV: 'production',
  }
}

/** `kubectl get deploy,rs,pods -A -o json`: time, peak RSS (GNU time) and the bytes it printed. */
async function kubectlGet(server: Served): Promise<{ms: number; peakKB: number; bytes: number}> {
  const outFile = join(dir, 'kubectl-get.json')
  const timeFile = join(dir, 'kubectl-get.time')
  const fd = openSync(outFile, 'w')
  const t0 = performance.now()
  const code = await new Promise<number | null>((resolvePromise) => {
    const child = spawn(
      '/usr/bin/time',
      ['-f', '%M', '-o', timeFile, kubectlBin as string, 'get', 'deploy,rs,pods', '-A', '-o', 'json'],
      {env: envOf(server), stdio: ['ignore', fd, 'inherit']},
    )
    child.on('close', resolvePromise)
  })
  const ms = performance.now() - t0
  closeSync(fd)
  if (code !== 0) throw new Error(`kubectl get exited ${code}`)
  const bytes = statSync(outFile).size
  rmSync(outFile)
  return {ms, peakKB: Number(readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)), bytes}
}

function kubectl(server: Served, ...args: string[]): Promise<{code: number | null; ms: number}> {
  const t0 = performance.now()
  return new Promise((resolvePromise) => {
    const child = spawn(kubectlBin as string, args, {
      env: envOf(server),
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    child.on('close', (code) => resolvePromise({code, ms: performance.now() - t0}))
  })
}

/** `run` in the background; its --v 2 log read line by line. */
class Controller {
  readonly child: ChildProcess
  readonly started = performance.now()
  readonly synced = new Map<string, number>()
  syncs = 0
  /** Syncs whose log says why the key was queued (--v 4). */
  explained = 0
  readonly causes = new Map<string, number>()
  private buf = ''
  stderr = ''
  /** With keepLines: the log's lines with their klog time (ms into the day; klog's header has millisecond resolution). */
  readonly lines: {at: number; text: string}[] = []
  keepLines = false
  readonly exited: Promise<number | null>

  constructor(server: Served, args: string[]) {
    this.child = spawn(process.execPath, [cli, 'run', '-A', '--force', ...args], {
      env: envOf(server),
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    this.child.stderr?.setEncoding('utf8').on('data', (c: string) => this.read(c))
    this.exited = new Promise((r) => this.child.on('close', (code) => r(code)))
  }

  private read(chunk: string): void {
    this.buf += chunk
    if (this.stderr.length < 20_000) this.stderr += chunk
    let nl = this.buf.indexOf('\n')
    while (nl >= 0) {
      const line = this.buf.slice(0, nl)
      this.buf = this.buf.slice(nl + 1)
      nl = this.buf.indexOf('\n')
      if (this.keepLines) {
        const t = /^[IWE]\d{4} (\d\d):(\d\d):(\d\d)\.(\d{6}) /.exec(line)
        if (t) {
          const [h, m, sec, us] = t.slice(1).map(Number) as [number, number, number, number]
          this.lines.push({at: ((h * 60 + m) * 60 + sec) * 1000 + us / 1000, text: line})
        }
      }
      const m = / synced deployment (\S+) in /.exec(line)
      if (m) {
        this.syncs++
        if (!this.synced.has(m[1] as string)) this.synced.set(m[1] as string, performance.now())
      }
      const q = /queued by: (.*)$/.exec(line)
      if (q) {
        this.explained++
        for (const cause of (q[1] as string).split('; ')) {
          const kind = cause.replace(/ \S+\/\S+/, '').replace(/after .*$/, 'after …')
          this.causes.set(kind, (this.causes.get(kind) ?? 0) + 1)
        }
      }
    }
  }

  async until(cond: () => boolean, what: string, ms = 300_000): Promise<void> {
    const deadline = performance.now() + ms
    while (!cond()) {
      if (this.child.exitCode !== null)
        throw new Error(`run exited ${this.child.exitCode}: ${this.stderr.slice(-2000)}`)
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await sleep(10)
    }
  }

  /** Peak and current resident set (kB) from /proc. */
  memory(): {peakKB: number; rssKB: number} {
    return procMemory(this.child.pid as number)
  }

  cpuSeconds(): number {
    return procCpuSeconds(this.child.pid as number)
  }

  async stop(): Promise<void> {
    this.child.kill('SIGTERM')
    await this.exited
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Resolves once the server has seen no write for ms. */
async function quiet(server: ApiServer, ms: number): Promise<void> {
  for (;;) {
    const last = server.writes.at(-1)?.time ?? 0
    const idle = Date.now() - last
    if (idle >= ms) return
    await sleep(ms - idle)
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number
}
const round = (x: number, d = 0) => Number(x.toFixed(d))
const deploymentCount = (objects: unknown) =>
  (objects as {items: {kind: string}[]}).items.filter((o) => o.kind === 'Deployment').length

const results: Record<string, unknown> = {}

/** Client-side limits of the cold start: the issue's (qps 1000), and kube-controller-manager's with --kcm-qps. */
const QPS_1000 = ['--kube-api-qps=1000', '--kube-api-burst=1000']

interface Trial {
  kubectlMs: number
  kubectlPeakKB: number
  kubectlBytes: number
  wireBytes: number
  runMs: number
  runCpuSeconds: number
  runPeakKB: number
  runRssAfterSyncKB: number
  serverPeakKB: number
  kcmRunMs?: number
}

/**
 * One fresh server process: the objects' wire size (first trial), kubectl get, then run (kubectl
 * writes nothing, so run finds the snapshot as kubectl did); with --kcm-qps a second fresh server
 * for run at kube-controller-manager's limits.
 */
async function coldTrial(file: string, n: number, measureWire: boolean): Promise<Trial> {
  let server = await ServerProcess.start(file)
  const wire = measureWire ? await wireBytes(server) : 0
  const k = await kubectlGet(server)
  log(
    `kubectl get: ${round(k.ms)} ms, peak RSS ${round(k.peakKB / 1024)} MB, ${round(k.bytes / 2 ** 20)} MB printed`,
  )
  const c = new Controller(server, ['--v=2', ...QPS_1000])
  await c.until(() => c.synced.size >= n, `${n} deployments synced`, 3_600_000)
  const runMs = Math.max(...c.synced.values()) - c.started
  const runCpuSeconds = c.cpuSeconds()
  await sleep(2000)
  const mem = c.memory()
  await c.stop()
  const trial: Trial = {
    kubectlMs: k.ms,
    kubectlPeakKB: k.peakKB,
    kubectlBytes: k.bytes,
    wireBytes: wire,
    runMs,
    runCpuSeconds,
    runPeakKB: mem.peakKB,
    runRssAfterSyncKB: mem.rssKB,
    serverPeakKB: server.memory().peakKB,
  }
  await server.close()
  log(
    `run: ${round(runMs)} ms to ${n} synced, ${runCpuSeconds} s CPU, peak RSS ${round(mem.peakKB / 1024)} MB`,
  )
  if (KCM_QPS) {
    server = await ServerProcess.start(file)
    const d = new Controller(server, ['--v=2'])
    await d.until(() => d.synced.size >= n, `${n} deployments synced`, 3_600_000)
    trial.kcmRunMs = Math.max(...d.synced.values()) - d.started
    await d.stop()
    await server.close()
  }
  return trial
}

function deploymentsIn(file: string): number {
  // Counted without parsing: the generator indents each item's own fields by 6 spaces (a
  // ReplicaSet's owner reference names its Deployment deeper down).
  const text = readFileSync(file, 'latin1')
  const needle = '\n      "kind": "Deployment"'
  let n = 0
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) n++
  return n
}

async function coldRow(size: number, runs: number): Promise<Record<string, unknown>> {
  const file = snapshotFile(size)
  const bytes = statSync(file).size
  const n = deploymentsIn(file)
  const trials: Trial[] = []
  for (let i = 0; i < runs; i++) trials.push(await coldTrial(file, n, i === 0))
  const med = (f: (t: Trial) => number) => median(trials.map(f))
  const mb = (b: number) => round(b / 2 ** 20)
  const kubectlBytes = trials[0]?.kubectlBytes as number
  const wire = trials[0]?.wireBytes as number
  const runPeak = med((t) => t.runPeakKB) * 1024
  return {
    deployments: n,
    trials: runs,
    loadAverage: loadavg().map((x) => round(x, 1)),
    kubectlGetMs: round(med((t) => t.kubectlMs)),
    runToAllSyncedMs: round(med((t) => t.runMs)),
    // Issue 30: at most half of kubectl get's time, with --kube-api-qps 1000 --kube-api-burst 1000.
    // The median of the trials' own ratios (each trial's kubectl and run share a server and a minute).
    ratio: round(median(trials.map((t) => t.runMs / t.kubectlMs)), 2),
    ratiosByTrial: trials.map((t) => round(t.runMs / t.kubectlMs, 2)),
    runCpuSeconds: med((t) => t.runCpuSeconds),
    ...(KCM_QPS ? {runToAllSyncedKcmQpsMs: round(med((t) => t.kcmRunMs as number))} : {}),
    snapshotMB: mb(bytes),
    kubectlJsonMB: mb(kubectlBytes),
    wireJsonMB: mb(wire),
    runPeakRssMB: round(runPeak / 2 ** 20),
    runRssAfterSyncMB: round(med((t) => t.runRssAfterSyncKB) / 1024),
    // Issue 30: peak RSS within 2.5x the JSON of the objects run caches (as kubectl prints them);
    // also against the compact JSON the server sends.
    runPeakRssPerKubectlJsonByte: round(runPeak / kubectlBytes, 2),
    runPeakRssPerWireJsonByte: round(runPeak / wire, 2),
    kubectlPeakRssMB: round(med((t) => t.kubectlPeakKB) / 1024),
    serverPeakRssMB: round(med((t) => t.serverPeakKB) / 1024),
  }
}

async function coldStart(): Promise<void> {
  const row = await coldRow(SIZE ?? 1000, RUNS)
  log(`cold start @${row.deployments}: ${JSON.stringify(row)}`)
  results.coldStart = row
}

/**
 * `run --dry-run=client` cold, 2,000 Deployments in one namespace against the same 2,000 over 40
 * (issue 30 item 3): each sync's store once held its whole namespace's ReplicaSets (n x m). One
 * server process per snapshot (a client dry run writes nothing, so each serves every turn), runs in
 * turns; to every Deployment synced, and the CPU time run took by then.
 */
async function dryRunNamespace(): Promise<void> {
  const n = 2000
  const rows: Record<string, {ms: number[]; cpu: number[]}> = {
    one: {ms: [], cpu: []},
    spread: {ms: [], cpu: []},
  }
  const one = await ServerProcess.start(snapshotFile(n, 0, 1))
  const spread = await ServerProcess.start(snapshotFile(n, 0, 40))
  try {
    for (let i = 0; i < RUNS; i++) {
      for (const [name, server] of [
        ['one', one],
        ['spread', spread],
      ] as const) {
        const c = new Controller(server, ['--v=2', '--dry-run=client', ...QPS_1000])
        await c.until(() => c.synced.size >= n, `${n} deployments synced`, 3_600_000)
        const ms = Math.max(...c.synced.values()) - c.started
        const cpu = c.cpuSeconds()
        await c.stop()
        rows[name]?.ms.push(ms)
        rows[name]?.cpu.push(cpu)
        log(
          `run --dry-run=client, ${name === 'one' ? 'one namespace' : '40 namespaces'}: ${round(ms)} ms, ${cpu} s CPU`,
        )
      }
    }
  } finally {
    await one.close()
    await spread.close()
  }
  const r = rows as Record<'one' | 'spread', {ms: number[]; cpu: number[]}>
  results.dryRunClientOneNamespace = {
    deployments: n,
    trials: RUNS,
    loadAverage: loadavg().map((x) => round(x, 1)),
    oneNamespaceMs: round(median(r.one.ms)),
    over40NamespacesMs: round(median(r.spread.ms)),
    oneNamespaceCpuSeconds: median(r.one.cpu),
    over40NamespacesCpuSeconds: median(r.spread.cpu),
    // Issue 30: one namespace within 1.5x the same Deployments spread (the turns' own ratios).
    ratioWall: round(median(r.one.ms.map((x, i) => x / (r.spread.ms[i] as number))), 2),
    ratioCpu: round(median(r.one.cpu.map((x, i) => x / (r.spread.cpu[i] as number))), 2),
  }
  log(`dry-run client one namespace: ${JSON.stringify(results.dryRunClientOneNamespace)}`)
}

/**
 * `run`'s own share of one reaction, from its --v 6 log: the informer handing it the Deployment's
 * update (handlers' "updating deployment") to the ReplicaSet POST leaving it (the POST's log line
 * comes with the response: its time less the round trip it reports), and the watch leg before it
 * (the server's change to that event). Undefined if not logged.
 */
async function runShare(
  c: Controller,
  from: number,
  namespace: string,
  name: string,
  changeAt: number,
): Promise<{runMs: number; postRoundTripMs: number; deliveryMs: number} | undefined> {
  const post = new RegExp(
    `^\\S+ \\S+ POST /apis/apps/v1/namespaces/${namespace}/replicasets(\\?\\S*)? 201 in (\\d+) milliseconds`,
  )
  const deadline = performance.now() + 2000
  for (;;) {
    const lines = c.lines.slice(from)
    const p = lines.findIndex((l) => post.test(l.text))
    if (p >= 0) {
      const event = lines
        .slice(0, p)
        .find((l) => l.text.endsWith(` updating deployment ${namespace}/${name}`))
      if (!event) return undefined
      const postLine = lines[p] as {at: number; text: string}
      const roundTrip = Number(post.exec(postLine.text)?.[2])
      // The server's change in the same local ms-of-day as klog's header.
      const c0 = new Date(changeAt)
      const changeOfDay =
        ((c0.getHours() * 60 + c0.getMinutes()) * 60 + c0.getSeconds()) * 1000 + c0.getMilliseconds()
      return {
        runMs: postLine.at - roundTrip - event.at,
        postRoundTripMs: roundTrip,
        deliveryMs: event.at - changeOfDay,
      }
    }
    if (performance.now() > deadline) return undefined
    await sleep(5)
  }
}

async function reaction(): Promise<void> {
  const snap = snapshot(1000)
  const server = await serve([snap.objects])
  const n = deploymentCount(snap.objects)
  // --v 6: each request and each informer event is logged, for run's own share (runShare).
  const c = new Controller(server, ['--v=6'])
  await c.until(() => c.synced.size >= n, 'initial sync')
  // Quiet: no sync for a second.
  for (let last = -1; last !== c.syncs; ) {
    last = c.syncs
    await sleep(1000)
  }
  c.keepLines = true
  const shares: number[] = []
  const roundTrips: number[] = []
  const deliveries: number[] = []
  type D = {
    metadata: {name: string; namespace: string}
    spec: {paused?: boolean; strategy?: {type?: string}; template: {spec: {containers: {name: string}[]}}}
  }
  const candidates = (server.store.list('deployments') as unknown as D[])
    .filter(
      // A Recreate rollout creates its new ReplicaSet only once the old pods are gone, which never
      // happens on this frozen server; a paused one not at all.
      (d) => !d.spec.paused && d.spec.strategy?.type !== 'Recreate',
    )
    .slice(0, CHANGES)
  const latencies: number[] = []
  for (const [i, d] of candidates.entries()) {
    const {namespace, name} = d.metadata
    const container = d.spec.template.spec.containers[0]?.name as string
    // A steady cluster: nothing written for half a second, so the client's token bucket is full.
    await quiet(server, 500)
    const from = server.writes.length
    const fromLine = c.lines.length
    const r = await kubectl(
      server,
      'set',
      'image',
      '-n',
      namespace,
      `deployment/${name}`,
      `${container}=bench.example/img:${i}`,
    )
    if (r.code !== 0) throw new Error(`kubectl set image failed for ${namespace}/${name}`)
    const deadline = performance.now() + 10_000
    let rsWrite: (typeof server.writes)[number] | undefined
    let change: (typeof server.writes)[number] | undefined
    while (!rsWrite && performance.now() < deadline) {
      const recent = server.writes.slice(from)
      change ??= recent.find(
        (w) => w.resource === 'deployments' && w.name === name && !w.writer.includes('deployment-controller'),
      )
      // The new ReplicaSet: the Deployment's name, a dash and the new template's hash.
      rsWrite = recent.find(
        (w) =>
          w.resource === 'replicasets' &&
          w.type === 'ADDED' &&
          w.namespace === namespace &&
          w.name.startsWith(`${name}-`) &&
          w.writer.includes('deployment-controller'),
      )
      if (!rsWrite) await sleep(1)
    }
    if (!rsWrite || !change) throw new Error(`no ReplicaSet write after set image on ${namespace}/${name}`)
    latencies.push(rsWrite.time - change.time)
    const share = await runShare(c, fromLine, namespace, name, change.time)
    if (share) {
      shares.push(share.runMs)
      roundTrips.push(share.postRoundTripMs)
      deliveries.push(share.deliveryMs)
    }
  }
  await c.stop()
  await server.close()
  const row = {
    changes: latencies.length,
    p50Ms: round(pct(latencies, 50), 1),
    p99Ms: round(pct(latencies, 99), 1),
    maxMs: round(Math.max(...latencies), 1),
    // run's own share: event in run -> ReplicaSet POST sent (klog times, 1 ms resolution).
    runShare: {
      measured: shares.length,
      p50Ms: round(pct(shares, 50), 1),
      p99Ms: round(pct(shares, 99), 1),
      maxMs: round(Math.max(...shares), 1),
    },
    // The server's change to the update event in run's handler (the watch leg), and the POST's
    // round trip as run logs it: the rest of the total.
    eventDeliveryP99Ms: round(pct(deliveries, 99), 1),
    postRoundTripP99Ms: round(pct(roundTrips, 99), 1),
    loadAverage: round(loadavg()[0] as number, 1),
  }
  log(`set image -> first ReplicaSet write: ${JSON.stringify(row)}`)
  results.setImageToReplicaSetWrite = row
}

async function steady(): Promise<void> {
  const snap = snapshot(1000)
  const server = await serve([snap.objects])
  const n = deploymentCount(snap.objects)
  const c = new Controller(server, ['--v=4'])
  await c.until(() => c.synced.size >= n, 'initial sync')
  // Let the writes of the first pass come back as informer events and settle.
  for (let last = -1; last !== c.syncs; ) {
    last = c.syncs
    await sleep(3000)
  }
  const before = c.syncs
  const explainedBefore = c.explained
  c.causes.clear()
  await sleep(STEADY_MS)
  const syncs = c.syncs - before
  const withoutCause = syncs - (c.explained - explainedBefore)
  await c.stop()
  await server.close()
  const row = {
    deployments: n,
    windowSeconds: STEADY_MS / 1000,
    syncs,
    syncsPerMinute: round((syncs * 60_000) / STEADY_MS, 1),
    syncsWithoutCause: withoutCause,
    causes: Object.fromEntries(c.causes),
  }
  log(`steady cluster: ${JSON.stringify(row)}`)
  results.steady = row
}

async function memory(): Promise<void> {
  const row = await coldRow(SIZE ?? 5000, 1)
  log(`memory with ${row.deployments} deployments cached: ${JSON.stringify(row)}`)
  results.memory5000 = row
}

/**
 * Progress deadlines of the cluster as it stands: how many have passed without the Deployment
 * saying so (ProgressDeadlineExceeded), and the first one still to come (ms from `at`).
 */
function progressDeadlines(server: ApiServer, at: number): {overdue: number; nextInMs: number} {
  type D = {
    spec: {progressDeadlineSeconds?: number; paused?: boolean}
    status?: {conditions?: {type?: string; status?: string; reason?: string; lastUpdateTime?: string}[]}
  }
  let overdue = 0
  let next = Number.POSITIVE_INFINITY
  for (const d of server.store.list('deployments') as unknown as D[]) {
    const p = d.status?.conditions?.find((c) => c.type === 'Progressing')
    // upstream: the deadline is checked only while a rollout is in progress and not paused
    // (util.HasProgressDeadline, DeploymentProgressing's callers); a complete rollout's
    // NewReplicaSetAvailable condition never times out.
    if (p?.status !== 'True' || p.reason === 'NewReplicaSetAvailable' || d.spec.paused) continue
    if (d.spec.progressDeadlineSeconds === undefined || !p.lastUpdateTime) continue
    const due = Date.parse(p.lastUpdateTime) + d.spec.progressDeadlineSeconds * 1000 - at
    if (due <= 0) overdue++
    else next = Math.min(next, due)
  }
  return {overdue, nextInMs: next}
}

/**
 * Requests `run` (no leader election) sends in IDLE_MS on an idle cluster of 1,000: a snapshot
 * taken an hour ago on which nothing has moved since (the test API server runs no kubelet), so
 * every progress deadline and minReadySeconds it implies has passed before `run` starts. `run`
 * writes those in its first pass; the window opens once its syncs have stopped for 5 s, and the
 * row says how many deadlines are overdue then (0) and when the next one falls (those of the
 * rollouts `run`'s first pass started: 10 minutes later). Every request in the window is counted by verb and path; watch renewals
 * apart: a reflector renews its watch when the server ends it after the timeout it asked for
 * (5-10 minutes, client-go's minWatchTimeout), so a window may see some as client-go's would.
 */
async function idle(): Promise<void> {
  const snap = snapshot(1000, 3600_000)
  const server = await serve([snap.objects])
  const n = deploymentCount(snap.objects)
  const c = new Controller(server, ['--v=2'])
  await c.until(() => c.synced.size >= n, 'initial sync')
  for (let last = -1; last !== c.syncs; ) {
    last = c.syncs
    await sleep(5000)
  }
  const from = server.requests.length
  const windowStart = Date.now()
  const due = progressDeadlines(server, windowStart)
  // The watches open at the window's start and when the server will end them.
  const mine = (q: (typeof server.requests)[number]) => q.userAgent?.includes('deployctl') ?? false
  const isWatch = (q: (typeof server.requests)[number]) => q.query.watch === 'true' || q.query.watch === '1'
  const openWatches = new Map<string, number>()
  for (const q of server.requests.slice(0, from))
    if (mine(q) && isWatch(q)) openWatches.set(q.path, q.time + Number(q.query.timeoutSeconds ?? 0) * 1000)
  const renewalsDue = [...openWatches.values()].filter((end) => end < windowStart + IDLE_MS).length
  const syncsBefore = c.syncs
  await sleep(IDLE_MS)
  const sent = server.requests.slice(from).filter(mine)
  const byKind = new Map<string, number>()
  let deadlineWrites = 0
  let watchRenewals = 0
  for (const q of sent) {
    if (isWatch(q)) {
      watchRenewals++
      continue
    }
    const k = `${q.method} ${q.path.replace(/namespaces\/[^/]+/, 'namespaces/*').replace(/(deployments|replicasets|pods|events)\/[^/]+/, '$1/*')}`
    byKind.set(k, (byKind.get(k) ?? 0) + 1)
    const conditions = (q.body as {status?: {conditions?: {type?: string; reason?: string}[]}} | undefined)
      ?.status?.conditions
    if (conditions?.some((c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded'))
      deadlineWrites++
  }
  await c.stop()
  await server.close()
  const row = {
    deployments: n,
    windowSeconds: IDLE_MS / 1000,
    snapshotAgeSeconds: 3600,
    overdueDeadlinesAtStart: due.overdue,
    nextDeadlineInSeconds: round(due.nextInMs / 1000),
    requests: sent.length - watchRenewals,
    progressDeadlineWrites: deadlineWrites,
    byKind: Object.fromEntries(byKind),
    watchRenewals,
    watchRenewalsDueByTimeouts: renewalsDue,
    watches: [...openWatches.entries()].map(([path, end]) => ({
      path,
      endsInSeconds: round((end - windowStart) / 1000),
    })),
    syncs: c.syncs - syncsBefore,
    loadAverage: round(loadavg()[0] as number, 1),
  }
  log(`idle: ${JSON.stringify(row)}`)
  results.idle = row
}

const TIMINGS = [
  '--leader-elect',
  '--leader-elect-lease-duration=4s',
  '--leader-elect-renew-deadline=3s',
  '--leader-elect-retry-period=1s',
]

function holder(server: ApiServer): string {
  const l = server.store.get('leases', 'kube-system', 'kubectl-deployctl') as
    | {spec?: {holderIdentity?: string}}
    | undefined
  return l?.spec?.holderIdentity ?? ''
}

class Replica extends Controller {
  identity = ''
  constructor(server: ApiServer) {
    super(server, [...TIMINGS, '--log-format=json', '--v=2'])
    this.child.stderr?.on('data', (c: string) => {
      const m = /"msg":"Leader election","identity":"([^"]+)"/.exec(c)
      if (m) this.identity = m[1] as string
    })
  }
}

async function failover(): Promise<void> {
  const server = await serve([], true)
  let live = [new Replica(server), new Replica(server)]
  const times: Record<'SIGKILL' | 'SIGTERM', number[]> = {SIGKILL: [], SIGTERM: []}
  for (let i = 0; i < 2 * FAILOVER_TRIALS; i++) {
    const signal = i % 2 === 0 ? 'SIGKILL' : 'SIGTERM'
    await live[0]?.until(
      () => live.every((r) => r.identity !== '') && live.some((r) => r.identity === holder(server)),
      'a leader',
    )
    // Leader and standby both up for a few renewals.
    await sleep(2500)
    const leader = live.find((r) => r.identity === holder(server)) as Replica
    const t0 = performance.now()
    leader.child.kill(signal)
    while (holder(server) === leader.identity || holder(server) === '') await sleep(5)
    times[signal].push(performance.now() - t0)
    await leader.exited
    live = [...live.filter((r) => r !== leader), new Replica(server)]
  }
  await Promise.all(live.map((r) => r.stop()))
  await server.close()
  const stats = (xs: number[]) => ({
    min: round(Math.min(...xs)),
    median: round(median(xs)),
    max: round(Math.max(...xs)),
  })
  const row = {trials: FAILOVER_TRIALS, killMinus9Ms: stats(times.SIGKILL), sigtermMs: stats(times.SIGTERM)}
  log(`failover (lease 4s, renew 3s, retry 1s): ${JSON.stringify(row)}`)
  results.failover = row
}

async function randomKills(): Promise<void> {
  const server = await serve([], true)
  const random = new Random(2026)
  let live = [new Replica(server), new Replica(server)]
  const t0 = performance.now()
  if ((await kubectl(server, 'create', 'deployment', 'web', '--image=nginx:1.0', '--replicas=4')).code !== 0)
    throw new Error('create failed')
  if ((await kubectl(server, 'rollout', 'status', 'deployment/web', '--timeout=120s')).code !== 0)
    throw new Error('first rollout failed')
  let converged = 0
  for (let i = 1; i <= RANDOM_ROLLOUTS; i++) {
    while (!live.some((r) => r.identity !== '' && r.identity === holder(server))) await sleep(20)
    const leader = live.find((r) => r.identity === holder(server)) as Replica
    await kubectl(server, 'set', 'image', 'deployment/web', `nginx=nginx:1.${i}`)
    await sleep(random.int(1500))
    leader.child.kill(i % 2 === 1 ? 'SIGKILL' : 'SIGTERM')
    await leader.exited
    live = [...live.filter((r) => r !== leader), new Replica(server)]
    if ((await kubectl(server, 'rollout', 'status', 'deployment/web', '--timeout=120s')).code === 0)
      converged++
  }
  type RS = {metadata: {labels?: Record<string, string>}; spec?: {replicas?: number}}
  const sets = server.store.list('replicasets', 'default') as unknown as RS[]
  const hashes = new Set(sets.map((s) => s.metadata.labels?.['pod-template-hash']))
  await Promise.all(live.map((r) => r.stop()))
  await server.close()
  const row = {
    rollouts: RANDOM_ROLLOUTS,
    converged,
    replicaSets: sets.length,
    duplicateReplicaSets: sets.length - hashes.size,
    activeReplicaSets: sets.filter((s) => (s.spec?.replicas ?? 0) > 0).length,
    seconds: round((performance.now() - t0) / 1000),
  }
  log(`random leader kills: ${JSON.stringify(row)}`)
  results.randomKills = row
}

/**
 * Issue 28: the Lease deleted under the leader during a rollout, just after it renewed, its next
 * renewal held at the server 0-2.5 s (so the standby's polls find the Lease missing first). Counts
 * the writes a replica made while the Lease named another holder (must be 0).
 */
async function leaseDeleted(): Promise<void> {
  const server = await serve([], true)
  const live = [new Replica(server), new Replica(server)]
  const t0 = performance.now()
  if ((await kubectl(server, 'create', 'deployment', 'web', '--image=nginx:1.0', '--replicas=4')).code !== 0)
    throw new Error('create failed')
  if ((await kubectl(server, 'rollout', 'status', 'deployment/web', '--timeout=120s')).code !== 0)
    throw new Error('first rollout failed')
  const delays = [0, 500, 1000, 1500, 2000, 2500]
  const badByTrial: number[] = []
  let takeovers = 0
  let converged = 0
  let exits = 0
  for (let i = 1; i <= LEASE_DELETED_TRIALS; i++) {
    // A replica that lost the Lease exits 1, as kube-controller-manager does: start another.
    for (const [k, r] of live.entries()) {
      if (r.child.exitCode === null) continue
      exits++
      live[k] = new Replica(server)
    }
    while (!live.some((r) => r.identity !== '' && r.identity === holder(server))) await sleep(20)
    const before = holder(server)
    const from = server.writes.length
    await kubectl(server, 'set', 'image', 'deployment/web', `nginx=nginx:2.${i}`)
    const seen = server.requests.length
    while (
      !server.requests
        .slice(seen)
        .some((q) => q.method === 'PUT' && q.resource === 'leases' && q.userAgent?.endsWith(before))
    )
      await sleep(10)
    const delayMs = delays[(i - 1) % delays.length] as number
    if (delayMs > 0) server.faults.add({verb: 'update', resource: 'leases', delayMs})
    await kubectl(server, 'delete', 'lease', '-n', 'kube-system', 'kubectl-deployctl')
    if ((await kubectl(server, 'rollout', 'status', 'deployment/web', '--timeout=120s')).code === 0)
      converged++
    while (holder(server) === '') await sleep(20)
    if (holder(server) !== before) takeovers++
    badByTrial.push(writesWhileAnotherHolds(server.writes.slice(from), before))
    log(
      `trial ${i} (renewal held ${delayMs} ms): ${badByTrial.at(-1)} writes while another held the Lease; holder ${holder(server) === before ? 'kept' : 'changed'}`,
    )
  }
  await Promise.all(live.map((r) => r.stop()))
  await server.close()
  const row = {
    trials: LEASE_DELETED_TRIALS,
    trialsWithWritesWhileAnotherHeld: badByTrial.filter((n) => n > 0).length,
    writesWhileAnotherHeld: badByTrial.reduce((a, b) => a + b, 0),
    takeovers,
    replicaExits: exits,
    converged,
    seconds: round((performance.now() - t0) / 1000),
  }
  log(`Lease deleted under the leader: ${JSON.stringify(row)}`)
  results.leaseDeleted = row
}

/** Writes by a deployment-controller client while the Lease named someone else (`holder`: at the start). */
function writesWhileAnotherHolds(writes: ApiServer['writes'], holderAtStart: string): number {
  let current = holderAtStart
  let bad = 0
  for (const w of writes) {
    if (w.resource === 'leases' && w.name === 'kubectl-deployctl') {
      current = w.holder ?? ''
      continue
    }
    const m = / deployment-controller (\S+)$/.exec(w.writer)
    if (m && current !== '' && m[1] !== current) bad++
  }
  return bad
}

try {
  for (const [name, fn] of [
    ['cold start', coldStart],
    ['dry-run namespace', dryRunNamespace],
    ['reaction', reaction],
    ['steady', steady],
    ['memory', memory],
    ['idle', idle],
    ['failover', failover],
    ['random kills', randomKills],
    ['lease deleted', leaseDeleted],
  ] as const) {
    if (only && !only.split(',').includes(name)) continue
    process.stderr.write(`controller: ${name}\n`)
    await fn()
  }
} finally {
  await Promise.all(servers.map((s) => s.close()))
}
const text = `${JSON.stringify(results, null, 2)}\n`
if (out) writeFileSync(out, text)
else process.stdout.write(text)
process.exit(0)
