// `npm run apiserver -- --port 0 [--host H] [--load FILE]... [--tls] [--require-token T] [--log] [--kube-version 1.35]
//  [--simulate [--pod-ready-after 1s] [--terminate-after 1s]]`
// Starts the test API server, prints `listening on URL` and `kubeconfig: PATH`, runs until SIGINT/SIGTERM.

import {readFileSync} from 'node:fs'
import {parseAllDocuments} from 'yaml'
import {parseDuration} from '../../src/util/duration.js'
import {startApiServer} from './server.js'
import type {SimulateOptions} from './simulate.js'

function usage(msg: string): never {
  process.stderr.write(
    `${msg}\nusage: npm run apiserver -- [--port N] [--host H] [--load FILE]... [--tls] [--require-token T] [--log] [--kube-version 1.35] [--simulate [--pod-ready-after 1s] [--terminate-after 1s]]\n`,
  )
  process.exit(2)
}

function load(file: string): unknown[] {
  const text = readFileSync(file, 'utf8')
  const out: unknown[] = []
  for (const doc of parseAllDocuments(text, {version: '1.1'})) {
    if (doc.errors.length) usage(`${file}: ${doc.errors[0]?.message}`)
    const v: unknown = doc.toJS()
    if (v !== null && v !== undefined) out.push(v)
  }
  return out
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
      objects.push(...load(value()))
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
    case '-h':
    case '--help':
      usage('test API server')
      break
    default:
      usage(`unknown argument ${a}`)
  }
}

if (!simulate && Object.keys(simulation).length > 0)
  usage('--pod-ready-after and --terminate-after need --simulate')
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
