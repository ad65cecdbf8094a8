// `npm run bench`, the rollout gate part (bench/run.mjs runs it with tsx): the gate over the 500
// Deployments of a ../shared/bench snapshot served by the test API server (`rollout watch -A`), against
// the one-Deployment watch (`rollout watch NAME`) on the same server, in turns: peak RSS and wall
// time. Issue 26 item 9: the gate stays within 2x the one-Deployment watch's memory plus the
// objects' own size (the JSON the server sends for them).
//
//   tsx bench/gate.ts [--quick] [--out FILE] [--deployments 500]

import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {startApiServer} from '../test/apiserver/index.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const argv = process.argv.slice(2)
const flag = (name: string) => {
  const i = argv.indexOf(name)
  return i >= 0 ? argv[i + 1] : undefined
}
const quick = argv.includes('--quick')
const out = flag('--out')
const DEPLOYMENTS = Number(flag('--deployments') ?? 500)
const RUNS = quick ? 2 : 3
const cli = join(root, 'bin', 'run.cjs')
const generator = [
  join(root, '..', 'shared', 'bench', 'gen-cluster.mjs'),
  '/work/shared/bench/gen-cluster.mjs',
].find(existsSync)
if (!generator) {
  console.error('error: needs ../shared/bench/gen-cluster.mjs')
  process.exit(1)
}
const dir = mkdtempSync(join(tmpdir(), 'deployctl-bench-gate-'))
process.on('exit', () => rmSync(dir, {recursive: true, force: true}))

interface Obj {
  kind?: string
  metadata?: {name?: string; namespace?: string}
}

const gen = spawnSync(
  process.execPath,
  [generator, '--deployments', String(DEPLOYMENTS), '--now', new Date().toISOString()],
  {maxBuffer: 1 << 30},
)
if (gen.status !== 0) throw new Error(`generator failed: ${gen.stderr}`)
const text = gen.stdout.toString('utf8')
const items = (JSON.parse(text) as {items: Obj[]}).items
const server = await startApiServer({objects: items})
const env = {
  ...process.env,
  KUBECONFIG: server.kubeconfigPath,
  KUBECACHEDIR: mkdtempSync(join(dir, 'kcache-')),
  NODE_ENV: 'production',
  NO_COLOR: '1',
}
const first = items.find((o) => o.kind === 'Deployment')
const objectsMB = Buffer.byteLength(text) / (1 << 20)

/** One run, asynchronously (the server answers from this process): wall ms and peak RSS (GNU time). */
function once(
  args: string[],
  check?: (lastLine: string) => string | undefined,
): Promise<{ms: number; rssMB: number}> {
  const rssFile = join(dir, 'rss')
  const t0 = performance.now()
  return new Promise((resolvePromise, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, cli, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c
    })
    child.on('close', (code) => {
      // 0: all done; 1: some Deployment of the snapshot failed or the timeout passed. Both measure.
      if (code !== 0 && code !== 1) {
        reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.slice(0, 400)}`))
        return
      }
      const wrong = check?.(stdout.trim().split('\n').at(-1) ?? '')
      if (wrong) {
        reject(new Error(`${args.join(' ')}: ${wrong}\n${stderr.slice(0, 400)}`))
        return
      }
      const kb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1))
      resolvePromise({ms: performance.now() - t0, rssMB: kb / 1024})
    })
  })
}

const single = [
  'rollout',
  'watch',
  first?.metadata?.name ?? '',
  '-n',
  first?.metadata?.namespace ?? 'default',
  '--timeout',
  '5s',
  '-o',
  'json',
]
const gate = ['rollout', 'watch', '-A', '--timeout', '20s', '-o', 'json', '--log-lines', '0']
const runs: Record<'single' | 'gate', Array<{ms: number; rssMB: number}>> = {single: [], gate: []}
const deployments = items.filter((o) => o.kind === 'Deployment').length
/** The gate's last line is its result, with every Deployment of the snapshot in it. */
const gateCheck = (line: string) => {
  try {
    const total = (JSON.parse(line) as {counts?: {total?: number}}).counts?.total
    return total === deployments
      ? undefined
      : `the gate's result counts ${total} Deployments, not ${deployments}`
  } catch {
    return `the gate's last line is not its result: ${line.slice(0, 200)}`
  }
}
const singleCheck = (line: string) =>
  line.includes('"kind":"End"') ? undefined : `no End object: ${line.slice(0, 200)}`
await once(single, singleCheck)
await once(gate, gateCheck)
for (let i = 0; i < RUNS; i++) {
  runs.single.push(await once(single, singleCheck))
  runs.gate.push(await once(gate, gateCheck))
}
await server.close()
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const peak = (xs: Array<{rssMB: number}>) => Math.max(...xs.map((x) => x.rssMB))
const result = {
  deployments: DEPLOYMENTS,
  objectsMB: Math.round(objectsMB * 10) / 10,
  single: {
    medianMs: Math.round(median(runs.single.map((r) => r.ms))),
    peakRssMB: Math.round(peak(runs.single)),
  },
  gate: {medianMs: Math.round(median(runs.gate.map((r) => r.ms))), peakRssMB: Math.round(peak(runs.gate))},
  // The issue's bound: gate RSS / (2 x one-Deployment watch RSS + the objects' size); target <= 1.
  ratio: Math.round((peak(runs.gate) / (2 * peak(runs.single) + objectsMB)) * 100) / 100,
}
process.stderr.write(`  gate: ${JSON.stringify(result)}\n`)
if (out) writeFileSync(out, JSON.stringify(result))
else console.log(JSON.stringify(result, null, 2))
