// `npm run apiserver -- --port 0 [--host H] [--load FILE]... [--generate N [--namespaces M] [--seed S]]
//  [--tls] [--require-token T] [--log] [--kube-version 1.35] [--simulate [--pod-ready-after 1s] [--terminate-after 1s] [--gpu-nodes N]]`
// --generate serves a synthetic cluster of N Deployments with their ReplicaSets and pods (about 14
// objects per Deployment), written by ../shared/bench/gen-cluster.mjs, the generator the benchmarks use.
// Starts the test API server, prints `listening on URL` and `kubeconfig: PATH`, runs until SIGINT/SIGTERM.

import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseAllDocuments} from 'yaml'
import {parseDuration} from '../../src/util/duration.js'
import {startApiServer} from './server.js'
import type {SimulateOptions} from './simulate.js'

function usage(msg: string): never {
  process.stderr.write(
    `${msg}\nusage: npm run apiserver -- [--port N] [--host H] [--load FILE]... [--generate N [--namespaces M] [--seed S]] [--tls] [--require-token T] [--log] [--kube-version 1.35] [--simulate [--pod-ready-after 1s] [--terminate-after 1s] [--gpu-nodes N]]\n`,
  )
  process.exit(2)
}

function load(file: string): unknown[] {
  const text = readFileSync(file, 'utf8')
  if (/^\s*[{[]/.test(text)) {
    // JSON (a snapshot, kubectl get -o json): one JSON.parse, not a YAML document tree of it (which
    // takes ~40x the file's size in memory). Ill-formed JSON falls through to YAML's messages.
    try {
      return [JSON.parse(text) as unknown]
    } catch {}
  }
  const out: unknown[] = []
  for (const doc of parseAllDocuments(text, {version: '1.1'})) {
    if (doc.errors.length) usage(`${file}: ${doc.errors[0]?.message}`)
    const v: unknown = doc.toJS()
    if (v !== null && v !== undefined) out.push(v)
  }
  return out
}

/** A synthetic cluster of `deployments` Deployments (a kind: List). */
function generate(deployments: number, namespaces: number | undefined, seed: number | undefined): unknown {
  const here = dirname(fileURLToPath(import.meta.url))
  // Beside the project, as bench/ finds it (a worktree elsewhere finds it under /work).
  const candidates = [
    join(here, '..', '..', '..', 'shared', 'bench', 'gen-cluster.mjs'),
    '/work/shared/bench/gen-cluster.mjs',
  ]
  const generator = candidates.find(existsSync)
  if (!generator) usage(`--generate needs ${candidates[0]} (the shared benchmark generator)`)
  const r = spawnSync(
    process.execPath,
    [
      generator,
      '--deployments',
      String(deployments),
      ...(namespaces === undefined ? [] : ['--namespaces', String(namespaces)]),
      ...(seed === undefined ? [] : ['--seed', String(seed)]),
      '--now',
      new Date().toISOString(),
    ],
    {maxBuffer: 2 ** 31 - 1, stdio: ['ignore', 'pipe', 'inherit']},
  )
  if (r.status !== 0) usage(`--generate: the generator exited ${r.status}`)
  // The List itself (the server seeds its items): 100,000 items spread into a call's arguments
  // would overflow the stack.
  return JSON.parse(r.stdout.toString('utf8')) as unknown
}

const args = process.argv.slice(2)
let port = 0
let host = '127.0.0.1'
let tls = false
let requireToken: string | undefined
let logRequests = false
let kubeVersion: string | undefined
let simulate = false
const simulation: SimulateOptions = {}
let generated: {deployments: number; namespaces?: number; seed?: number} | undefined
const count = (flag: string, v: string, min: number): number => {
  const n = Number(v)
  if (!Number.isSafeInteger(n) || n < min)
    usage(`${flag}: want a whole number of at least ${min}, got "${v}"`)
  return n
}
const objects: unknown[] = []
const duration = (flag: string, v: string): number => {
  const ms = parseDuration(v)
  if (ms === undefined) usage(`${flag}: invalid duration "${v}" (want e.g. 1s, 500ms, 1m30s)`)
  return ms
}
for (let i = 0; i < args.length; i++) {
  const a = args[i] as string
  const [flag, inline] = a.includes('=') ? (a.split(/=(.*)/s) as [string, string]) : [a, undefined]
  const value = (): string => {
    const v = inline ?? args[++i]
    if (v === undefined) usage(`${flag} needs a value`)
    return v
  }
  switch (flag) {
    case '--port':
      port = Number(value())
      if (!Number.isInteger(port) || port < 0 || port > 65535) usage(`bad --port ${port}`)
      break
    case '--host':
      host = value()
      break
    case '--load':
      for (const doc of load(value())) objects.push(doc)
      break
    case '--generate':
      generated = {...generated, deployments: count(flag, value(), 1)}
      break
    case '--namespaces':
      generated = {deployments: 0, ...generated, namespaces: count(flag, value(), 1)}
      break
    case '--seed':
      generated = {deployments: 0, ...generated, seed: count(flag, value(), 0)}
      break
    case '--tls':
      tls = true
      break
    case '--require-token':
      requireToken = value()
      break
    case '--log':
      logRequests = true
      break
    case '--kube-version':
      kubeVersion = value()
      break
    case '--simulate':
      simulate = true
      break
    case '--pod-ready-after':
      simulation.podReadyAfterMs = duration(flag, value())
      break
    case '--terminate-after':
      simulation.terminateAfterMs = duration(flag, value())
      break
    case '--gpu-nodes':
      // A GPU node pool beside node-1..3: gpu-1..gpu-N, one nvidia.com/gpu each.
      simulation.gpuNodes = Array.from({length: count(flag, value(), 0)}, (_, i) => `gpu-${i + 1}`)
      break
    case '-h':
    case '--help':
      usage('test API server')
      break
    default:
      usage(`unknown argument ${a}`)
  }
}

if (generated) {
  if (generated.deployments === 0) usage('--namespaces and --seed need --generate N')
  objects.push(generate(generated.deployments, generated.namespaces, generated.seed))
}
if (!simulate && Object.keys(simulation).length > 0)
  usage('--pod-ready-after, --terminate-after and --gpu-nodes need --simulate')
const server = await startApiServer({
  kubeVersion,
  port,
  host,
  tls,
  objects,
  requireToken,
  logRequests,
  ...(simulate ? {simulate: simulation} : {}),
})
process.stdout.write(`listening on ${server.url}\nkubeconfig: ${server.kubeconfigPath}\n`)
const stop = (): void => {
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
}
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
