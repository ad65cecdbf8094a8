#!/usr/bin/env node
// `npm run bench`: whole-process wall time (median of N runs after a warm-up) and peak RSS of the
// CLI against baselines measured in the same run, printed as ratios. Never part of `npm test`.
//
//   npm run bench [-- --runs 5 --sizes 100,1000,5000 --quick --no-controller --no-timeline]
//   npm run bench -- --file-mode [--runs 9]: only file mode's rows (JSON.parse, dry-run sync and
//     kubectl at 1,000; JSON.parse and dry-run sync at 5,000), for repeated runs on a loaded machine
//   npm run bench -- --start-up [--runs 31]: only the start-up rows (the npm build, the executable
//     when release/ has its linux amd64 archive, kubectl version --client, node -e 0)
//   npm run bench -- --namespaces [--runs 5]: only the one-namespace rows (issue 30 item 3: 2,000
//     Deployments in one namespace and over 40, 5,000 in one and over 50), in turns
// Every row has its median wall time and its median CPU time (user+sys, from GNU time): on the
// shared 2-core machine wall time follows the load, CPU time much less.
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
// --name value, or --name alone for true.
const argv = process.argv.slice(2)
const args = Object.fromEntries(
  argv.flatMap((a, i) => {
    if (!a.startsWith('--')) return []
    const next = argv[i + 1]
    return [[a.slice(2), next === undefined || next.startsWith('--') ? 'true' : next]]
  }),
)
const quick = args.quick === 'true'
const fileMode = args['file-mode'] === 'true'
const startUpOnly = args['start-up'] === 'true'
const namespacesOnly = args.namespaces === 'true'
const RUNS = Number(args.runs ?? (quick ? 3 : 5))
const SIZES = (args.sizes ?? (quick ? '100,1000' : fileMode ? '1000,5000' : '100,1000,5000'))
  .split(',')
  .map(Number)
const generator = [
  join(root, '..', 'shared', 'bench', 'gen-cluster.mjs'),
  '/work/shared/bench/gen-cluster.mjs',
].find(existsSync)
if (!generator) {
  console.error('error: ../shared/bench/gen-cluster.mjs not found')
  process.exit(1)
}
const cli = join(root, 'bin', 'run.cjs')
if (!existsSync(join(root, 'oclif.manifest.json'))) {
  console.error(
    'error: build first (npm run build): the benchmark measures the shipped build with its manifest',
  )
  process.exit(1)
}
const kubectl = ['/usr/lib/google-cloud-sdk/bin/kubectl.1.32', '/usr/bin/kubectl'].find(existsSync)
const dir = mkdtempSync(join(tmpdir(), 'deployctl-bench-'))
// The snapshots take ~300 MB: gone when the run ends, however it ends.
process.on('exit', () => rmSync(dir, {recursive: true, force: true}))

function generate(n, format, namespaces) {
  const file = join(dir, `snap-${n}${namespaces ? `-ns${namespaces}` : ''}.${format}`)
  const spread = namespaces ? ['--namespaces', String(namespaces)] : []
  const r = spawnSync(
    process.execPath,
    [generator, '--deployments', String(n), ...spread, '--format', format, '--now', '2026-01-01T00:00:00Z'],
    {maxBuffer: 1 << 30},
  )
  if (r.status !== 0) throw new Error(`generator failed: ${r.stderr}`)
  writeFileSync(file, r.stdout)
  return file
}

/** One run: wall ms from spawn to exit; peak RSS in KB and CPU (user+sys) ms from GNU time. */
function once(cmd, env = process.env) {
  const rssFile = join(dir, 'rss')
  const t0 = performance.now()
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', '-o', rssFile, ...cmd], {
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 26,
    env,
  })
  const ms = performance.now() - t0
  if (r.status !== 0)
    throw new Error(`${cmd.join(' ')} exited ${r.status}: ${String(r.stderr).slice(0, 400)}`)
  const [rssKB, user, sys] = readFileSync(rssFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number)
  return {ms, rssKB, cpuMs: (user + sys) * 1000}
}

/**
 * Commands measured in turns (one run of each per round, after one warm-up run each, or e.warmUp)
 * so that the machine's drift weighs on all of them alike; their ratios compare medians of the
 * same rounds.
 */
function measureInTurns(entries, rounds) {
  for (const e of entries) for (let i = 0; i < (e.warmUp ?? 1); i++) once(e.cmd, e.env)
  const runs = entries.map(() => [])
  for (let i = 0; i < rounds; i++) {
    for (const [k, e] of entries.entries()) runs[k].push(once(e.cmd, e.env))
  }
  return entries.map((e, k) => summary(e.name, e.cmd, runs[k]))
}

function summary(name, cmd, runs) {
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b)
  const median = ms[Math.floor(ms.length / 2)]
  const rss = Math.max(...runs.map((r) => r.rssKB))
  const cpu = runs.map((r) => r.cpuMs).sort((a, b) => a - b)
  const cpuMedian = cpu[Math.floor(cpu.length / 2)]
  process.stderr.write(
    `  ${name}: ${median.toFixed(0)} ms, CPU ${cpuMedian.toFixed(0)} ms, ${(rss / 1024).toFixed(0)} MB\n`,
  )
  return {
    name,
    cmd: cmd.join(' '),
    medianMs: Math.round(median),
    minMs: Math.round(ms[0]),
    maxMs: Math.round(ms.at(-1)),
    medianCpuMs: Math.round(cpuMedian),
    peakRssMB: Math.round(rss / 1024),
  }
}

const node = process.execPath
const results = {
  date: new Date().toISOString(),
  loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
  node: process.version,
  runs: RUNS,
  measurements: {},
  ratios: {},
  sizes: {},
}
const m = results.measurements
const tool = (...a) => [node, cli, ...a]
const parseBaseline = (file) => [
  node,
  '-e',
  `JSON.parse(require('fs').readFileSync(${JSON.stringify(file)}, 'utf8'))`,
]

process.stderr.write(`snapshots in ${dir}\n`)
const now = ['--now', '2026-01-01T00:05:00Z']
const controllerOnly = args['controller-only'] === 'true'
for (const n of controllerOnly || startUpOnly || namespacesOnly ? [] : SIZES) {
  const json = generate(n, 'json')
  results.sizes[n] = {jsonBytes: statSync(json).size}
  // Each size's commands in turns, as the start-up ones below: their ratios compare runs of the same
  // rounds rather than minutes apart.
  const entries = [
    {key: `parse-${n}`, name: `JSON.parse baseline, ${n}`, cmd: parseBaseline(json)},
    {
      key: `dry-run-${n}`,
      name: `dry-run sync -A, ${n}`,
      cmd: tool('dry-run', 'sync', '-A', '-f', json, '-o', 'json', ...now),
    },
  ]
  if (!fileMode && existsSync(join(root, 'dist', 'commands', 'explain.cjs'))) {
    entries.push({
      key: `explain-${n}`,
      name: `explain -A, ${n}`,
      cmd: tool('explain', '-A', '-f', json, '-o', 'json', ...now),
    })
    // The fleet gate (issue 19): one row per Deployment, within 1.5x of dry-run sync.
    entries.push({
      key: `summary-${n}`,
      // --fail-on invalid: the gate's path, with an exit 0 (the generator writes no invalid Deployment).
      name: `explain -A --summary --fail-on invalid, ${n}`,
      cmd: tool('explain', '-A', '--summary', '--fail-on', 'invalid', '-f', json, '-o', 'json', ...now),
    })
  }
  if (!fileMode && n === 1000 && existsSync(join(root, 'dist', 'commands', 'explain.cjs'))) {
    // 1,000 Deployments of one namespace sharing `app: shared`: explain must stay linear (issue 20, finding 8).
    const shared = join(dir, `snap-${n}-shared.json`)
    const gen = spawnSync(
      process.execPath,
      [generator, '--deployments', String(n), '--namespaces', '1', '--now', '2026-01-01T00:00:00Z'],
      {maxBuffer: 1 << 30},
    )
    const rewrite = spawnSync(process.execPath, [join(root, 'bench', 'shared-selector.mjs')], {
      input: gen.stdout,
      maxBuffer: 1 << 30,
    })
    if (gen.status !== 0 || rewrite.status !== 0) throw new Error('shared-selector snapshot failed')
    writeFileSync(shared, rewrite.stdout)
    entries.push(
      {
        key: `dry-run-shared-${n}`,
        name: `dry-run sync -A, ${n} sharing one selector`,
        cmd: tool('dry-run', 'sync', '-A', '-f', shared, '-o', 'json', ...now),
      },
      {
        key: `explain-shared-${n}`,
        name: `explain -A, ${n} sharing one selector`,
        cmd: tool('explain', '-A', '-f', shared, '-o', 'json', ...now),
      },
    )
  }
  if (n === 1000 && !fileMode) {
    const yaml = generate(n, 'yaml')
    results.sizes[n].yamlBytes = statSync(yaml).size
    entries.push({
      key: `dry-run-yaml-${n}`,
      name: `dry-run sync -A (YAML), ${n}`,
      cmd: tool('dry-run', 'sync', '-A', '-f', yaml, '-o', 'json', ...now),
    })
  }
  if (n === 1000 && kubectl) {
    const cmd = [kubectl, 'label', '--local', '-f', json, 'x=y', '-o', 'json']
    entries.push({key: `kubectl-${n}`, name: `kubectl label --local, ${n}`, cmd})
  }
  const runs = measureInTurns(entries, RUNS)
  entries.forEach((e, k) => {
    m[e.key] = runs[k]
  })
}
// Many Deployments in one namespace (issue 30 item 3): finding a Deployment's ReplicaSets must cost
// what it owns, not what its namespace holds. The same 2,000 in one namespace and over 40, and the
// same 5,000 in one and over 50 (the issue's figures), in turns.
if (!controllerOnly && !quick && !fileMode && !startUpOnly) {
  const entries = []
  for (const ns of [1, 40]) {
    const file = generate(2000, 'json', ns)
    entries.push(
      {
        key: `dry-run-2000-ns${ns}`,
        name: `dry-run sync -A, 2000 in ${ns} namespace(s)`,
        cmd: tool('dry-run', 'sync', '-A', '-f', file, '-o', 'json', ...now),
      },
      {
        key: `summary-2000-ns${ns}`,
        name: `explain -A --summary, 2000 in ${ns} namespace(s)`,
        cmd: tool('explain', '-A', '--summary', '-f', file, '-o', 'json', ...now),
      },
      // The whole explanation too: its selector overlaps are per namespace (no target of its own).
      {
        key: `explain-2000-ns${ns}`,
        name: `explain -A, 2000 in ${ns} namespace(s)`,
        cmd: tool('explain', '-A', '-f', file, '-o', 'json', ...now),
      },
    )
  }
  const one5000 = generate(5000, 'json', 1)
  const spread5000 = generate(5000, 'json', 50)
  entries.push(
    {
      key: 'dry-run-5000-ns1',
      name: 'dry-run sync -A, 5000 in one namespace',
      cmd: tool('dry-run', 'sync', '-A', '-f', one5000, '-o', 'json', ...now),
    },
    {
      key: 'summary-5000-ns1',
      name: 'explain -A --summary, 5000 in one namespace',
      cmd: tool('explain', '-A', '--summary', '-f', one5000, '-o', 'json', ...now),
    },
    {
      key: 'dry-run-5000-ns50',
      name: 'dry-run sync -A, 5000 over 50 namespaces',
      cmd: tool('dry-run', 'sync', '-A', '-f', spread5000, '-o', 'json', ...now),
    },
    {
      key: 'summary-5000-ns50',
      name: 'explain -A --summary, 5000 over 50 namespaces',
      cmd: tool('explain', '-A', '--summary', '-f', spread5000, '-o', 'json', ...now),
    },
  )
  const runs = measureInTurns(entries, RUNS)
  entries.forEach((e, k) => {
    m[e.key] = runs[k]
  })
}

const small = join(root, 'examples', 'rolling-update.yaml')
// -n demo: the examples' namespace, so that the pass has a Deployment to sync.
const smallRun = tool(
  'dry-run',
  'sync',
  '-f',
  small,
  '-n',
  'demo',
  '-o',
  'json',
  '--now',
  '2026-11-29T10:05:00Z',
)
// The single executable (npm run package): linux amd64, out of its archive, when there is one.
const pkgVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version
const archive = join(root, 'release', `kubectl-deployctl_v${pkgVersion}_linux_amd64.tar.gz`)
let exe
if (process.platform === 'linux' && process.arch === 'x64' && existsSync(archive)) {
  mkdirSync(join(dir, 'exe'))
  spawnSync('tar', ['-xzf', archive, '-C', join(dir, 'exe')])
  exe = join(dir, 'exe', 'kubectl-deployctl')
} else {
  process.stderr.write(
    'no release/ archive for linux amd64 (npm run package): the executable is not measured\n',
  )
}
// Right after the archive is unpacked, the executable's first calls can spend ~0.3 s in the kernel
// bringing its 141 MB file's pages in (page faults); a user pays that once, so it is left out of
// the medians: each executable row is run this many times before the rounds.
const EXE_WARM_UP = 5
const startUp = [
  {key: 'version', name: '--version', cmd: tool('--version')},
  {key: 'help', name: '--help', cmd: tool('--help')},
  {key: 'small', name: 'dry-run sync (small file)', cmd: smallRun},
  ...(exe
    ? [
        {
          key: 'exeSmall',
          name: 'executable: dry-run sync (small file)',
          cmd: [exe, ...smallRun.slice(2)],
          warmUp: EXE_WARM_UP,
        },
        {key: 'exeVersion', name: 'executable: --version', cmd: [exe, '--version'], warmUp: EXE_WARM_UP},
      ]
    : []),
  ...(kubectl
    ? [{key: 'kubectlVersion', name: 'kubectl version --client', cmd: [kubectl, 'version', '--client']}]
    : []),
  {key: 'nodeNoop', name: 'node -e 0', cmd: [node, '-e', '0']},
]
// These machines set NODE_EXTRA_CA_CERTS, which makes every node process read a CA bundle at start
// (kubectl does not); the same three runs without it show what a user's machine would.
if (process.env.NODE_EXTRA_CA_CERTS) {
  const {NODE_EXTRA_CA_CERTS: _, ...env} = process.env
  startUp.push({
    key: 'smallNoCA',
    name: 'dry-run sync (small file), no NODE_EXTRA_CA_CERTS',
    cmd: smallRun,
    env,
  })
  if (kubectl) {
    const cmd = [kubectl, 'version', '--client']
    startUp.push({
      key: 'kubectlVersionNoCA',
      name: 'kubectl version --client, no NODE_EXTRA_CA_CERTS',
      cmd,
      env,
    })
  }
  startUp.push({key: 'nodeNoopNoCA', name: 'node -e 0, no NODE_EXTRA_CA_CERTS', cmd: [node, '-e', '0'], env})
}
const startUpRuns =
  controllerOnly || fileMode || namespacesOnly ? [] : measureInTurns(startUp, Math.max(RUNS, 15))
startUp.forEach((e, k) => {
  if (startUpRuns[k]) m[e.key] = startUpRuns[k]
})

// plan on huge replica counts (issue 28): the simulation follows the rollout's waves, not its pods.
// steady.yaml's Deployment proposed with a new image and 100,000 (then 2147483647) replicas.
if (
  !controllerOnly &&
  !fileMode &&
  !startUpOnly &&
  !namespacesOnly &&
  existsSync(join(root, 'dist', 'commands', 'plan.cjs'))
) {
  const steady = join(root, 'examples', 'steady.yaml')
  const proposal = (replicas) => {
    const file = join(dir, `plan-${replicas}.yaml`)
    writeFileSync(
      file,
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: demo}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.28"}]}
`,
    )
    return tool('plan', '-f', file, '--current', steady, '-n', 'demo', '-o', 'json')
  }
  const planEntries = [
    {key: 'plan-3', name: 'plan, 3 replicas', cmd: proposal(3)},
    {key: 'plan-100000', name: 'plan, 100,000 replicas', cmd: proposal(100000)},
    {key: 'plan-max', name: 'plan, 2147483647 replicas', cmd: proposal(2147483647)},
  ]
  const planRuns = measureInTurns(planEntries, RUNS)
  planEntries.forEach((e, k) => {
    m[e.key] = planRuns[k]
  })
}

const r = results.ratios
const ratio = (a, b) => (m[a] && m[b] ? Number((m[a].medianMs / m[b].medianMs).toFixed(2)) : null)
for (const n of SIZES) r[`dry-run/parse @${n}`] = ratio(`dry-run-${n}`, `parse-${n}`)
r['dry-run/kubectl @1000'] = ratio('dry-run-1000', 'kubectl-1000')
r['yaml/json @1000'] = ratio('dry-run-yaml-1000', 'dry-run-1000')
r['explain --summary / dry-run @1000'] = ratio('summary-1000', 'dry-run-1000')
r['explain / dry-run, shared selector @1000'] = ratio('explain-shared-1000', 'dry-run-shared-1000')
if (SIZES.includes(5000) && m['dry-run-5000']) {
  r['growth 5000/1000'] = ratio('dry-run-5000', 'dry-run-1000')
  r['peak RSS 5000 / snapshot size'] = Number(
    ((m['dry-run-5000'].peakRssMB * 2 ** 20) / results.sizes[5000].jsonBytes).toFixed(2),
  )
  if (m['explain-5000']) r['explain growth 5000/1000'] = ratio('explain-5000', 'explain-1000')
}
r['dry-run sync: 2000 in one namespace / over 40'] = ratio('dry-run-2000-ns1', 'dry-run-2000-ns40')
r['explain --summary: 2000 in one namespace / over 40'] = ratio('summary-2000-ns1', 'summary-2000-ns40')
// The same in CPU time (user+sys), which a loaded machine moves less than wall time.
const cpuRatio = (a, b) => (m[a] && m[b] ? Number((m[a].medianCpuMs / m[b].medianCpuMs).toFixed(2)) : null)
r['  CPU: dry-run sync, 2000 in one namespace / over 40'] = cpuRatio('dry-run-2000-ns1', 'dry-run-2000-ns40')
r['  CPU: explain --summary, 2000 in one namespace / over 40'] = cpuRatio(
  'summary-2000-ns1',
  'summary-2000-ns40',
)
r['explain -A: 2000 in one namespace / over 40'] = ratio('explain-2000-ns1', 'explain-2000-ns40')
r['  CPU: explain -A, 2000 in one namespace / over 40'] = cpuRatio('explain-2000-ns1', 'explain-2000-ns40')
r['dry-run sync: 5000 in one namespace / over 50'] = ratio('dry-run-5000-ns1', 'dry-run-5000-ns50')
r['explain --summary: 5000 in one namespace / over 50'] = ratio('summary-5000-ns1', 'summary-5000-ns50')
if (m['dry-run-5000-ns1'])
  r['dry-run sync, 5000 in one namespace, s'] = Number((m['dry-run-5000-ns1'].medianMs / 1000).toFixed(1))
if (m['summary-5000-ns1'])
  r['explain --summary, 5000 in one namespace, s'] = Number(
    (m['summary-5000-ns1'].medianMs / 1000).toFixed(1),
  )
if (m['dry-run-5000-ns1'])
  r['  CPU: dry-run sync, 5000 in one namespace, s'] = Number(
    (m['dry-run-5000-ns1'].medianCpuMs / 1000).toFixed(1),
  )
if (m['summary-5000-ns1'])
  r['  CPU: explain --summary, 5000 in one namespace, s'] = Number(
    (m['summary-5000-ns1'].medianCpuMs / 1000).toFixed(1),
  )
r['start-up small file / kubectl version'] = ratio('small', 'kubectlVersion')
if (m.exeSmall) {
  r['executable: small file / kubectl version'] = ratio('exeSmall', 'kubectlVersion')
  r['executable: --version / kubectl version'] = ratio('exeVersion', 'kubectlVersion')
}
r['plan 100,000 replicas / plan 3 replicas'] = ratio('plan-100000', 'plan-3')
r['plan 2147483647 replicas / plan 3 replicas'] = ratio('plan-max', 'plan-3')
r['--version / kubectl version'] = ratio('version', 'kubectlVersion')
r['--help / kubectl version'] = ratio('help', 'kubectlVersion')
if (m.smallNoCA)
  r['start-up small file / kubectl version, no NODE_EXTRA_CA_CERTS'] = ratio(
    'smallNoCA',
    'kubectlVersionNoCA',
  )

const targets = {
  'dry-run/parse @1000': 2.0,
  // issue 30 (file mode near the floor): 2.0 of JSON.parse, 0.15 of kubectl, peak RSS 1.5x the file.
  'dry-run/kubectl @1000': 0.15,
  'yaml/json @1000': 2.5,
  'explain --summary / dry-run @1000': 1.5,
  'growth 5000/1000': 5.5,
  // issue 30: one namespace within 1.5x of the same Deployments spread out; 5,000 in one under 10 s.
  'dry-run sync: 2000 in one namespace / over 40': 1.5,
  'explain --summary: 2000 in one namespace / over 40': 1.5,
  'dry-run sync, 5000 in one namespace, s': 10,
  'explain --summary, 5000 in one namespace, s': 10,
  '  CPU: dry-run sync, 2000 in one namespace / over 40': 1.5,
  '  CPU: explain --summary, 2000 in one namespace / over 40': 1.5,
  '  CPU: dry-run sync, 5000 in one namespace, s': 10,
  '  CPU: explain --summary, 5000 in one namespace, s': 10,
  'peak RSS 5000 / snapshot size': 1.5,
  // issue 30 item 6 (was 2.0, and 1.5 for the executable, issue 15's floor; its goal was 1.2).
  'start-up small file / kubectl version': 1.5,
  'executable: small file / kubectl version': 1.3,
  // issue 28: 100,000 replicas in under 2 s, 2147483647 in under 10 s (and 200 MB).
  'plan 100,000 replicas / plan 3 replicas': 5.0,
  'plan 2147483647 replicas / plan 3 replicas': 5.0,
  '--version / kubectl version': 2.0,
  '--help / kubectl version': 2.0,
}
console.log(
  `\nkubectl-deployctl benchmark, ${results.date.slice(0, 10)}, node ${process.version}, median of ${RUNS} runs in turns (start-up: ${Math.max(RUNS, 15)})\n`,
)
console.log(
  `load average at the start: ${results.loadAverage.join(', ')}; at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}\n`,
)
console.log('| measurement | median ms | median CPU ms | peak RSS MB |\n|---|---:|---:|---:|')
for (const v of Object.values(m))
  console.log(`| ${v.name} | ${v.medianMs} | ${v.medianCpuMs} | ${v.peakRssMB} |`)
console.log('\n| ratio | value | target | met |\n|---|---:|---:|---|')
for (const [k, v] of Object.entries(r)) {
  const t = targets[k]
  if ((fileMode || startUpOnly || namespacesOnly) && v === null) continue
  console.log(
    `| ${k} | ${v ?? 'n/a'} | ${t === undefined ? '' : `≤ ${t}`} | ${t === undefined || v === null ? '' : v <= t ? 'yes' : 'NO'} |`,
  )
}
// `run` as the controller of the test API server (bench/controller.ts, TypeScript through tsx).
if (args['no-controller'] !== 'true' && !fileMode && !startUpOnly && !namespacesOnly && kubectl) {
  process.stderr.write('controller benchmark (bench/controller.ts)\n')
  const out = join(dir, 'controller.json')
  const tsx = join(root, 'node_modules', '.bin', 'tsx')
  const c = spawnSync(
    tsx,
    [join(root, 'bench', 'controller.ts'), '--out', out, ...(quick ? ['--quick'] : [])],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {...process.env, PATH: `${dirname(node)}:${process.env.PATH}`},
    },
  )
  if (c.status !== 0) throw new Error(`bench/controller.ts exited ${c.status}`)
  const ctl = JSON.parse(readFileSync(out, 'utf8'))
  results.controller = ctl
  const rows = [
    // issue 30: at most half of kubectl get's time at qps 1000, peak RSS within 2.5x the objects' JSON.
    [
      'run cold start to 1,000 synced (--kube-api-qps 1000) / kubectl get deploy,rs,pods -A -o json',
      ctl.coldStart?.ratio,
      0.5,
    ],
    [
      '  its peak RSS / the JSON kubectl prints of the objects it caches',
      ctl.coldStart?.runPeakRssPerKubectlJsonByte,
      2.5,
    ],
    [
      '  its peak RSS / the compact JSON the server sends of them',
      ctl.coldStart?.runPeakRssPerWireJsonByte,
      undefined,
    ],
    // issue 30 item 3: one namespace within 1.5x the same Deployments spread.
    [
      'run --dry-run=client cold, 2,000 in one namespace / over 40, CPU',
      ctl.dryRunClientOneNamespace?.ratioCpu,
      1.5,
    ],
    ['  the same, wall', ctl.dryRunClientOneNamespace?.ratioWall, 1.5],
    ['kubectl set image -> first ReplicaSet write, p50 ms', ctl.setImageToReplicaSetWrite?.p50Ms, undefined],
    ['kubectl set image -> first ReplicaSet write, p99 ms', ctl.setImageToReplicaSetWrite?.p99Ms, 25],
    [
      "  run's own share (event in run -> ReplicaSet POST sent), p99 ms",
      ctl.setImageToReplicaSetWrite?.runShare?.p99Ms,
      undefined,
    ],
    ['syncs per minute on a steady cluster of 1,000', ctl.steady?.syncsPerMinute, undefined],
    ['run at 5,000: cold start / kubectl get', ctl.memory5000?.ratio, 0.5],
    ['run at 5,000: peak RSS / the JSON kubectl prints', ctl.memory5000?.runPeakRssPerKubectlJsonByte, 2.5],
    ['requests sent in 2 idle minutes (1,000 Deployments, no leader election)', ctl.idle?.requests, 0],
    // A reflector renews its watch when the 5-10 minute timeout it asked for ends, as client-go's.
    [
      "  watch renewals in those 2 minutes (due by the watches' timeouts)",
      ctl.idle?.watchRenewals,
      ctl.idle?.watchRenewalsDueByTimeouts,
    ],
    ['failover after kill -9, median ms (lease 4s)', ctl.failover?.killMinus9Ms?.median, undefined],
    ['failover after SIGTERM, median ms', ctl.failover?.sigtermMs?.median, undefined],
  ]
  console.log('\n| controller (run) | value | target | met |\n|---|---:|---:|---|')
  for (const [k, v, t] of rows) {
    console.log(
      `| ${k} | ${v ?? 'n/a'} | ${t === undefined ? '' : `≤ ${t}`} | ${t === undefined || v == null ? '' : v <= t ? 'yes' : 'NO'} |`,
    )
  }
  console.log(`\nsteady-state sync causes: ${JSON.stringify(ctl.steady?.causes ?? {})}`)
  console.log(`random leader kills: ${JSON.stringify(ctl.randomKills ?? {})}`)
}
// A 10-minute recording of 50 Deployments rolling, made on the test API server at a 10x clock
// (bench/timeline.ts says how), its size and its replay (issue 31).
if (args['no-timeline'] !== 'true' && !controllerOnly && !fileMode && !startUpOnly && !namespacesOnly) {
  process.stderr.write('recording benchmark (bench/timeline.ts)\n')
  const out = join(dir, 'timeline.json')
  const tsx = join(root, 'node_modules', '.bin', 'tsx')
  const t = spawnSync(
    tsx,
    [join(root, 'bench', 'timeline.ts'), '--out', out, ...(quick ? ['--quick'] : [])],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {...process.env, PATH: `${dirname(node)}:${process.env.PATH}`},
    },
  )
  if (t.status !== 0) throw new Error(`bench/timeline.ts exited ${t.status}`)
  const tl = JSON.parse(readFileSync(out, 'utf8'))
  results.timeline = tl
  const what = `${tl.recordedMinutes}-minute recording of ${tl.deployments} Deployments rolling (${tl.lines} lines, ${tl.rolloutsStarted} rollouts; made in ${tl.realSeconds} s, times ×${tl.timeStretch})`
  const rows = [
    [`${what}, MB`, tl.sizeMB, 50],
    ['  the same with every line whole (--no-delta), MB', tl.sizeWholeMB, undefined],
    [
      '  the same recorded with --max-size 50MB, MB',
      tl.bounded.error ? `stops: ${tl.bounded.error}` : tl.bounded.sizeMB,
      tl.bounded.error ? undefined : 50,
    ],
    [
      '  pod and Event updates it compacted',
      tl.bounded.compacted ? tl.bounded.compacted.podUpdates + tl.bounded.compacted.eventUpdates : 0,
      undefined,
    ],
    [
      '  divergences in the replay of one Deployment (full / bounded)',
      `${tl.replayOne.divergences} / ${tl.bounded.replayDivergences ?? 'n/a'}`,
      undefined,
    ],
    ['  its replay of one Deployment (rollout watch --replay -o json), s', tl.replayOne.ms / 1000, 30],
    [
      '  the same / JSON.parse of every line',
      Number((tl.replayOne.ms / tl.parseBaseline.ms).toFixed(2)),
      undefined,
    ],
    ['  its summary of every rollout (explain -A --timeline-summary), s', tl.summaryAll.ms / 1000, undefined],
    ['  peak RSS of the replay, MB', tl.replayOne.peakRssMB, undefined],
  ]
  console.log('\n| recording (rollout record, replay) | value | target | met |\n|---|---:|---:|---|')
  for (const [k, v, target] of rows) {
    console.log(
      `| ${k} | ${v ?? 'n/a'} | ${target === undefined ? '' : `≤ ${target}`} | ${target === undefined || v == null ? '' : v <= target ? 'yes' : 'NO'} |`,
    )
  }
}
// The rollout gate over 500 Deployments against the one-Deployment watch (bench/gate.ts).
if (args['no-gate'] !== 'true' && !fileMode && !startUpOnly && !namespacesOnly) {
  process.stderr.write('rollout gate benchmark (bench/gate.ts)\n')
  const out = join(dir, 'gate.json')
  const g = spawnSync(
    join(root, 'node_modules', '.bin', 'tsx'),
    [join(root, 'bench', 'gate.ts'), '--out', out, ...(quick ? ['--quick'] : [])],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {...process.env, PATH: `${dirname(node)}:${process.env.PATH}`},
    },
  )
  if (g.status !== 0) throw new Error(`bench/gate.ts exited ${g.status}`)
  const gate = JSON.parse(readFileSync(out, 'utf8'))
  results.gate = gate
  console.log('\n| rollout gate | value | target | met |\n|---|---:|---:|---|')
  const rows = [
    [`rollout watch -A over ${gate.deployments} Deployments, peak RSS MB`, gate.gate.peakRssMB, undefined],
    ['rollout watch NAME (one Deployment), peak RSS MB', gate.single.peakRssMB, undefined],
    ["the objects' own size (their JSON), MB", gate.objectsMB, undefined],
    ['gate RSS / (2 x one-Deployment RSS + objects)', gate.ratio, 1],
  ]
  for (const [k, v, t] of rows) {
    console.log(
      `| ${k} | ${v ?? 'n/a'} | ${t === undefined ? '' : `≤ ${t}`} | ${t === undefined || v == null ? '' : v <= t ? 'yes' : 'NO'} |`,
    )
  }
}
mkdirSync(join(root, 'bench'), {recursive: true})
writeFileSync(join(root, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`)
console.log('\nwritten: bench/results.json')
