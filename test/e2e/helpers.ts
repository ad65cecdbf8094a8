// Runs the BUILT command line (node bin/run.cjs) as a user would; `npm test` builds first.

import {type ChildProcess, execFile, execFileSync, spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
/** The shipped entry point, as npm links it to kubectl-deployctl. */
export const BIN = join(ROOT, 'bin/run.cjs')

export interface RunResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs at most `n` of the given tasks at once; a finished task hands its slot to the next. The e2e
 * files that start many CLI processes share two cores: more at once only make each slower.
 */
export function limiter(n: number) {
  let active = 0
  const waiting: Array<() => void> = []
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active < n) active++
    else await new Promise<void>((resolve) => waiting.push(resolve))
    try {
      return await task()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else active--
    }
  }
}

// NODE_ENV=production below: vitest sets NODE_ENV=test, and the CLI must behave as shipped.
export function cli(args: string[], options: {input?: string; env?: NodeJS.ProcessEnv} = {}): RunResult {
  if (!existsSync(join(ROOT, 'dist/commands'))) {
    throw new Error('dist/ is missing: run `npm run build` before the e2e tests (npm test does)')
  }
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    input: options.input ?? '',
    encoding: 'utf8',
    env: {...process.env, NO_COLOR: '1', DEBUG: '', NODE_ENV: 'production', ...options.env},
    timeout: 60_000,
  })
  return {code: r.status, stdout: r.stdout, stderr: r.stderr}
}

/** A throwaway self-signed RSA certificate (a CA too) and its key, as PEM files in `dir`, made by openssl. */
export function selfSignedCert(dir: string, files: {key: string; cert: string; cn: string}): void {
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', files.key, '-out', files.cert].concat([
      '-subj',
      `/CN=${files.cn}`,
      '-days',
      '1',
    ]),
    {cwd: dir, stdio: 'ignore'},
  )
}

/** Writes files into a fresh temporary directory and returns its path. */
export function tempFiles(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'deployctl-e2e-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

/** A complete apps/v1 Deployment as the API server would store it, just created. */
export function deploymentYaml(name: string, namespace = 'default', extra = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${namespace}
  uid: 0b0a1c2d-0000-4000-8000-${name
    .padEnd(12, '0')
    .slice(0, 12)
    .replace(/[^0-9a-f]/g, 'a')}
  generation: 1
  creationTimestamp: "2026-11-29T10:00:00Z"
  labels:
    app: ${name}
spec:
  replicas: 2
  revisionHistoryLimit: 10
  progressDeadlineSeconds: 600
  selector:
    matchLabels:
      app: ${name}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 25%
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
      - name: app
        image: nginx:1.27
${extra}`
}

export interface StartOptions {
  /** Written to stdin, which is then closed (when given). */
  input?: string | Buffer
  /** A file descriptor to give the CLI as its stdin instead of a pipe. */
  stdinFd?: number
  env?: NodeJS.ProcessEnv
  killAfterMs?: number
  /** Node's own flags before the script (e.g. a V8 heap limit). */
  nodeArgs?: string[]
}

/**
 * The CLI started without waiting for it: `done` settles when it exits (killed after killAfterMs),
 * `stderr()` is what it has printed so far. stdin is closed after `input` when one is given.
 */
export function startCli(
  args: string[],
  options: StartOptions = {},
): {child: ChildProcess; done: Promise<RunResult & {signal: NodeJS.Signals | null}>; stderr: () => string} {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    cwd: ROOT,
    env: {...process.env, NO_COLOR: '1', DEBUG: '', NODE_ENV: 'production', ...options.env},
    stdio: [options.stdinFd ?? 'pipe', 'pipe', 'pipe'],
  })
  // The CLI may refuse input before reading all of it.
  child.stdin?.on('error', () => {})
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (c: string) => {
    stdout += c
  })
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr += c
  })
  const done = new Promise<RunResult & {signal: NodeJS.Signals | null}>((resolvePromise, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolvePromise({code, signal, stdout, stderr})
    })
  })
  if (options.input !== undefined) child.stdin?.end(options.input)
  return {child, done, stderr: () => stderr}
}

/**
 * The same as cli(), without blocking the event loop: tests that serve a test API server from
 * this process need it, or the CLI would wait for a server that cannot answer. A run still going
 * after `killAfterMs` is killed: `signal` then says so.
 */
export function cliAsync(
  args: string[],
  options: {input?: string; env?: NodeJS.ProcessEnv; killAfterMs?: number} = {},
): Promise<RunResult & {signal: NodeJS.Signals | null}> {
  return startCli(args, {...options, input: options.input ?? ''}).done
}

/** The built CLI in the background, stopped by a signal at the end of the test. */
export class RunProcess {
  private readonly child: ChildProcess
  stderr = ''
  stdout = ''
  readonly exited: Promise<RunResult>

  /** Killed after `killAfterMs` (2 minutes unless given) if the test has not stopped it by then. */
  constructor(args: string[], env: NodeJS.ProcessEnv, killAfterMs = 120_000) {
    this.child = spawn(process.execPath, [BIN, 'run', ...args], {
      cwd: ROOT,
      env: {...process.env, NO_COLOR: '1', DEBUG: '', ...env},
    })
    this.child.stdout?.setEncoding('utf8').on('data', (c: string) => {
      this.stdout += c
    })
    this.child.stderr?.setEncoding('utf8').on('data', (c: string) => {
      this.stderr += c
    })
    const killer = setTimeout(() => this.child.kill('SIGKILL'), killAfterMs)
    this.exited = new Promise((resolve, reject) => {
      this.child.on('error', reject)
      this.child.on('close', (code) => {
        clearTimeout(killer)
        resolve({code, stdout: this.stdout, stderr: this.stderr})
      })
    })
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<RunResult> {
    this.child.kill(signal)
    return this.exited
  }

  /** Resolves once the caches have synced and the workers run. */
  async started(): Promise<void> {
    await waitFor(
      () => this.stderr.includes('caches synced') || this.child.exitCode !== null,
      30_000,
      'run to start',
    )
    if (!this.stderr.includes('caches synced')) throw new Error(`run did not start:\n${this.stderr}`)
  }
}

/** Polls `probe` every 50 ms until it gives a value; throws after `timeoutMs` (run.test.ts's order of arguments). */
export function waitFor<T>(probe: () => T | undefined | false, timeoutMs: number, what: string): Promise<T> {
  return eventually(probe, what, timeoutMs)
}

/** The real kubectl: the google-cloud-sdk's 1.32 where installed, else the one on /usr/bin. */
export const KUBECTL = ['/usr/lib/google-cloud-sdk/bin/kubectl.1.32', '/usr/bin/kubectl'].find(existsSync)

/** The real kubectl, asynchronously (a test API server may answer from this process). */
export function kubectlAsync(env: NodeJS.ProcessEnv, ...args: string[]): Promise<RunResult> {
  return new Promise((resolvePromise) => {
    execFile(
      KUBECTL as string,
      args,
      {env: {...process.env, ...env}, timeout: 90_000},
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
        resolvePromise({code, stdout, stderr})
      },
    )
  })
}

/** Polls `probe` every 50 ms until it gives a value; throws after `ms`. */
export async function eventually<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  ms = 60_000,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await probe()
    if (v !== undefined && v !== false) return v
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * A kubeconfig with one context per entry, each named as its key, to a server at `url` with a bearer
 * token (the test API servers': `{url: s.url, token: s.token}`); the first is the current context.
 * For commands that cover several clusters (--context repeated, --all-contexts).
 */
export function multiContextKubeconfig(contexts: Record<string, {url: string; token: string}>): string {
  const names = Object.keys(contexts)
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: names.map((n) => ({
      name: n,
      cluster: {server: contexts[n]!.url, 'insecure-skip-tls-verify': true},
    })),
    users: names.map((n) => ({name: n, user: {token: contexts[n]!.token}})),
    contexts: names.map((n) => ({name: n, context: {cluster: n, user: n, namespace: 'default'}})),
    'current-context': names[0],
  })
}
