// Each input is read once (issue 20, finding 5), through the built binary: a named pipe, as
// `-f <(kubectl get ...)` gives, has no second time. Opening it again waits for a writer that has
// gone, and a load that starts over (to find the line of a field for a message) must not read it
// again. The writer is killed in cleanup whatever happens; a CLI that hangs is killed by the
// run's timeout, and the test then fails on the signal.

import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cliAsync, deploymentYaml, limiter, ROOT} from './helpers.js'

const NOW = '2026-11-29T10:00:00Z'
const SLOW = {timeout: 300_000}
/** Far above what a run needs; a run still going then is waiting on a pipe no one writes. */
const HANG_MS = 60_000
const slot = limiter(3)

type Run = Awaited<ReturnType<typeof run>>

const dir = mkdtempSync(join(tmpdir(), 'deployctl-fifo-'))
const writers: ChildProcess[] = []

afterAll(() => {
  for (const w of writers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL')
  rmSync(dir, {recursive: true, force: true})
})

/** A named pipe that gives `text` once, as `<(cat file)` does: the writer opens it, writes, closes. */
function fifo(name: string, text: string): string {
  const source = join(dir, `${name}.source`)
  writeFileSync(source, text)
  const path = join(dir, name)
  const made = spawnSync('mkfifo', [path])
  if (made.status !== 0) throw new Error(`mkfifo: ${made.stderr}`)
  const writer = spawn('sh', ['-c', 'exec cat "$1" > "$2"', 'sh', source, path], {stdio: 'ignore'})
  writers.push(writer)
  return path
}

function file(name: string, text: string): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

const run = (args: string[]) => slot(() => cliAsync(args, {killAfterMs: HANG_MS}))

const sync = (path: string) => ['dry-run', 'sync', '-A', '-f', path, '--now', NOW, '-o', 'json']

/** The same run on a regular file and on a pipe of the same text: the same answer, the name aside. */
async function expectSameThroughPipe(name: string, text: string): Promise<Run> {
  const [viaFile, viaPipe] = await Promise.all([
    run(sync(file(`${name}.file`, text))),
    run(sync(fifo(name, text))),
  ])
  expect(viaPipe.signal, 'killed: the CLI waited on the pipe').toBeNull()
  expect(viaFile.code).toBe(0)
  expect(viaPipe.code).toBe(0)
  expect(viaPipe.stdout).toBe(viaFile.stdout)
  expect(viaPipe.stderr).toBe(viaFile.stderr.replaceAll(`${name}.file`, name))
  return viaPipe
}

describe.concurrent('-f on a named pipe reads it once', SLOW, () => {
  it('a JSON snapshot through a pipe gives the same dry-run as the file', async () => {
    const snapshot = readFileSync(join(ROOT, 'test/fixtures/load/snapshot.json'), 'utf8')
    const r = await expectSameThroughPipe('snapshot.json', snapshot)
    expect(JSON.parse(r.stdout).kind).toBe('SyncResult')
  })

  it('a YAML snapshot whose warning needs a field line (the load starts over): the same as the file', async () => {
    // A revision annotation past int64 is warned about at its own line, which only the exact
    // YAML reader knows: the load starts over once that reader is loaded.
    const rs = `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-1
  namespace: default
  annotations:
    deployment.kubernetes.io/revision: "99999999999999999999"
spec:
  replicas: 0
  selector:
    matchLabels: {app: web, pod-template-hash: "1"}
  template:
    metadata:
      labels: {app: web, pod-template-hash: "1"}
    spec:
      containers: [{name: app, image: "nginx:1.26"}]
`
    const r = await expectSameThroughPipe('warned.yaml', `${deploymentYaml('web')}---\n${rs}`)
    expect(r.stderr).toMatch(/^warning: .*warned\.yaml:38: ReplicaSet default\/web-1: metadata\.annotations/m)
  })

  it('an invalid YAML through a pipe: the one-line error with its line, no hang', async () => {
    const bad = deploymentYaml('web').replace('replicas: 2', 'replicas: two')
    const path = fifo('bad.yaml', bad)
    const r = await run(sync(path))
    expect(r.signal, 'killed: the CLI waited on the pipe').toBeNull()
    expect(r.stderr).toBe(
      `error: ${path}:12: Deployment default/web: spec.replicas: Invalid value: "two": expected an integer\n`,
    )
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
  })
})
