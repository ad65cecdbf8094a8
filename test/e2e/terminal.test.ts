// Terminal escape injection (issue 20): a cluster's or a file's strings reach text output with their
// control characters escaped (`\x1b`), never raw, in tables, explain's report, line mode, the ink
// view and stderr; JSON and YAML keep them exactly; the ink view honours NO_COLOR.

import {spawnSync} from 'node:child_process'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import type {SyncResult} from '../../src/pass/result.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {deployment} from '../objects.js'
import {BIN, cliAsync, limiter, ROOT, tempFiles} from './helpers.js'

const SLOW = {timeout: 300_000}
const slot = limiter(3)
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => slot(() => cliAsync(args, {env}))

/** OSC 52 (writes the clipboard), BEL, a screen clear and a colour. */
const EVIL = 'nginx:1.27\u001b]52;c;ZXZpbA==\u0007\u001b[2J\u001b[31m'
/** An SGR colour sequence; OSC or BEL. */
const ESC = '\u001b'
const SGR = new RegExp(`${ESC}\\[[0-9;]*m`)
const OSC_OR_BEL = new RegExp(`${ESC}\\]|\u0007`)
const FORGED = 'oops\ndeployment "web" successfully rolled out'
const NOW = '2026-11-29T10:05:00Z'

/** No raw ESC, BEL or other C0/C1 control besides newline and tab (and CR from a pty). */
function expectNoControl(text: string, allowed = '\n\t'): void {
  const control = (c: string) =>
    c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f)
  const bad = [...text].filter((c) => control(c) && !allowed.includes(c))
  expect(bad.map((c) => c.charCodeAt(0).toString(16))).toEqual([])
}

function evilDeployment(namespace = 'default') {
  const d = deployment({namespace, image: EVIL, replicas: 2})
  d.metadata.uid = `uid-${namespace}-web`
  d.metadata.creationTimestamp = '2026-11-29T10:00:00Z'
  d.metadata.generation = 1
  return d
}

const files = tempFiles({
  'web.json': JSON.stringify({apiVersion: 'v1', kind: 'List', items: [evilDeployment()]}),
})
const FILE = `${files}/web.json`

describe.concurrent('files', SLOW, () => {
  it('rollout watch --line-mode: a pod event quoting the image is one line, escaped', async () => {
    const r = await cli([
      'rollout',
      'watch',
      'web',
      '--line-mode',
      '-f',
      FILE,
      '--now',
      NOW,
      '--fail-new-pods',
      '1',
      '--max-time',
      '1m',
    ])
    expect(r.stdout).toContain('Failed to pull image "nginx:1.27\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\x1b[31m"')
    expectNoControl(r.stdout)
    expectNoControl(r.stderr)
  })

  it('-o json and -o yaml keep the string exactly', async () => {
    const [json, yaml] = await Promise.all([
      cli(['dry-run', 'sync', '-f', FILE, '--now', NOW, '-o', 'json']),
      cli(['dry-run', 'sync', '-f', FILE, '--now', NOW, '-o', 'yaml']),
    ])
    const image = (doc: SyncResult) =>
      (doc.items[0]!.actions[0]!.object as {spec: {template: {spec: {containers: {image: string}[]}}}}).spec
        .template.spec.containers[0]!.image
    expect(image(JSON.parse(json.stdout) as SyncResult)).toBe(EVIL)
    expect(image(parseYaml(yaml.stdout) as SyncResult)).toBe(EVIL)
  })

  it.runIf(spawnSync('script', ['--version']).status === 0)(
    'the ink view on a terminal: escaped strings, and no colour with NO_COLOR',
    async () => {
      const run = (env: NodeJS.ProcessEnv) => {
        const command = `'${process.execPath}' '${BIN}' rollout watch web -f '${FILE}' --now ${NOW} --fail-new-pods 1 --max-time 1m`
        const e: NodeJS.ProcessEnv = {...process.env, TERM: 'xterm-256color', NODE_ENV: 'production', ...env}
        delete e.CI
        delete e.CONTINUOUS_INTEGRATION
        return spawnSync('script', ['-qec', command, '/dev/null'], {
          cwd: ROOT,
          env: e,
          encoding: 'utf8',
          timeout: 60_000,
        })
      }
      const plain = run({NO_COLOR: '1'})
      // The view was drawn (ink's own cursor moves), with the image escaped.
      expect(plain.stdout).toContain('\u001b[2K')
      expect(plain.stdout).toContain('\\x1b]52;c;')
      expect(plain.stdout).not.toMatch(OSC_OR_BEL)
      expect(plain.stdout).not.toMatch(SGR)
      const colored = run({NO_COLOR: '', FORCE_COLOR: ''})
      expect(colored.stdout).toMatch(SGR)
      expect(colored.stdout).not.toMatch(OSC_OR_BEL)
    },
  )
})

describe.concurrent('a cluster', SLOW, () => {
  let server: ApiServer
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    const event = (namespace: string) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {name: 'web.1', namespace},
      type: 'Warning',
      reason: 'Bad\u001b[31mReason',
      message: FORGED,
      involvedObject: {kind: 'Deployment', name: 'web', namespace, uid: `uid-${namespace}-web`},
      firstTimestamp: '2026-11-29T10:00:01Z',
      lastTimestamp: '2026-11-29T10:00:01Z',
      count: 1,
    })
    server = await startApiServer({
      objects: ['t-explain', 't-table', 't-error', 't-watch'].flatMap((ns) => [
        evilDeployment(ns),
        event(ns),
      ]),
    })
    env = {KUBECONFIG: server.kubeconfigPath}
  }, 120_000)
  afterAll(async () => {
    await server?.close()
  })

  it("explain: a Warning event's reason and message escaped, no forged line", async () => {
    const r = await cli(['explain', 'web', '-n', 't-explain', '--now', NOW], {...env, COLUMNS: '300'})
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Bad\\x1b[31mReason')
    expect(r.stdout).toContain('oops\\ndeployment "web" successfully rolled out')
    expect(r.stdout).not.toMatch(/^deployment "web" successfully rolled out/m)
    expectNoControl(r.stdout)
  })

  it("reconcile-once's table: the server's error in the RESULT cell escaped", async () => {
    server.faults.fail({namespace: 't-table', verb: 'create', resource: 'replicasets'}, 403, {
      user: `bob\u001b]52;c;eA==\u0007\nerror: forged`,
    })
    const r = await cli(['reconcile-once', '-n', 't-table', '--now', NOW, '--no-record-events'], env)
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('failed: replicasets.apps "web-')
    expect(r.stdout).toContain('User "bob\\x1b]52;c;eA==\\x07\\nerror: forged"')
    expect(r.stderr).toContain('User "bob\\x1b]52;c;eA==\\x07\\nerror: forged"')
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
    expectNoControl(r.stdout)
    expectNoControl(r.stderr)
  })

  it("the server's error text on stderr: one line, escaped", async () => {
    server.faults.fail({namespace: 't-error', verb: 'list', resource: 'replicasets'}, 403, {
      user: `bob\u001b]52;c;eA==\u0007\nerror: forged`,
    })
    const r = await cli(['dry-run', 'sync', '-n', 't-error'], env)
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      'Error from server (Forbidden): replicasets.apps is forbidden: User "bob\\x1b]52;c;eA==\\x07\\nerror: forged" cannot list resource "replicasets" in API group "apps" in the namespace "t-error"\n',
    )
  })

  it('rollout watch --line-mode live: the event is one escaped line', async () => {
    const r = await cli(['rollout', 'watch', 'web', '-n', 't-watch', '--line-mode', '--timeout', '2s'], env)
    expect(r.code).toBe(1)
    expectNoControl(r.stdout)
    expectNoControl(r.stderr)
    expect(r.stdout).not.toMatch(/^deployment "web" successfully rolled out/m)
  })
})
