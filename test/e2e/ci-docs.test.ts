// docs/commands.md's "CI" section runs as written: the commands of its GitHub Actions steps and of
// its GitLab CI job's script, each through bash as a runner runs them, with the real kubectl and the
// plugin found on the PATH as kubectl finds plugins (kubectl-deployctl: the built CLI), against the
// test API server simulating the cluster and `run` beside it. The CI services themselves are not run.

import {execFile, spawnSync} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {BIN, ROOT, RunProcess, type RunResult} from './helpers.js'

const HAS_KUBECTL = spawnSync('kubectl', ['version', '--client'], {stdio: 'ignore'}).status === 0

/** The yaml blocks of the "## CI" section of docs/commands.md. */
function ciBlocks(): unknown[] {
  const doc = readFileSync(join(ROOT, 'docs/commands.md'), 'utf8')
  const section = doc.slice(doc.indexOf('\n## CI\n'), doc.indexOf('\n## ', doc.indexOf('\n## CI\n') + 1))
  return [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1] ?? ''))
}

function deployment(name: string, image: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 2
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: app
        image: ${image}
`
}

/** A shell command as a CI runner runs it, in `cwd`, without blocking this process (the server is here). */
function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-eo', 'pipefail', '-c', command],
      {cwd, env, timeout: 120_000},
      (err, stdout, stderr) => {
        resolve({code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr})
      },
    )
  })
}

describe.skipIf(!HAS_KUBECTL)('docs/commands.md: CI', () => {
  let server: ApiServer
  let run: RunProcess
  let dir: string
  let env: NodeJS.ProcessEnv

  beforeAll(async () => {
    server = await startApiServer({simulate: {podReadyAfterMs: 500}})
    dir = mkdtempSync(join(tmpdir(), 'deployctl-ci-'))
    // kubectl finds plugins on the PATH: kubectl-deployctl runs the built CLI.
    const bin = join(dir, 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'kubectl-deployctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`)
    chmodSync(join(bin, 'kubectl-deployctl'), 0o755)
    env = {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: dir,
      KUBECONFIG: server.kubeconfigPath,
      KUBECACHEDIR: server.cacheDir,
      NO_COLOR: '1',
    }
    run = new RunProcess(['-A'], {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir})
    await run.started()
  }, 60_000)

  afterAll(async () => {
    await run?.stop('SIGTERM')
    await server?.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  }, 30_000)

  /** A checkout: k8s/ with the given Deployments. */
  function checkout(name: string, deployments: Record<string, string>): string {
    const work = join(dir, name)
    mkdirSync(join(work, 'k8s'), {recursive: true})
    for (const [d, image] of Object.entries(deployments))
      writeFileSync(join(work, 'k8s', `${d}.yaml`), deployment(d, image))
    return work
  }

  it('has a GitHub Actions and a GitLab CI snippet', () => {
    expect(ciBlocks()).toHaveLength(2)
  })

  it('GitHub Actions: the run steps pass on good manifests and write the JUnit report', async () => {
    const steps = ciBlocks()[0] as Array<{run?: string; uses?: string}>
    const commands = steps.flatMap((s) => (s.run ? [s.run] : []))
    expect(commands).toEqual([
      'kubectl apply -f k8s/',
      'kubectl deployctl rollout watch -f k8s/ --timeout 5m --junit rollout.xml',
    ])
    const work = checkout('github', {web: 'nginx:1.27', api: 'ghcr.io/shop/api:2.1'})
    for (const command of commands) {
      const r = await sh(command, work, {...env, GITHUB_ACTIONS: 'true'})
      expect({command, code: r.code, stderr: r.stderr}).toMatchObject({command, code: 0})
      expect(r.stdout).not.toContain('::error')
    }
    const junit = readFileSync(join(work, 'rollout.xml'), 'utf8')
    expect(junit).toContain('tests="2" failures="0"')
    // The artifact step uploads what the gate wrote.
    expect(steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))).toMatchObject({
      if: 'always()',
      with: {path: 'rollout.xml'},
    })
  }, 150_000)

  it('GitLab CI: the script stops at the gate when an image cannot be pulled, and the report names it', async () => {
    const job = (
      ciBlocks()[1] as {deploy: {script: string[]; artifacts: {when: string; reports: {junit: string}}}}
    ).deploy
    expect(job.artifacts).toEqual({when: 'always', reports: {junit: 'rollout.xml'}})
    const work = checkout('gitlab', {shop: 'nginx:1.27', cart: 'registry.example.invalid/shop/cart:1.4'})
    const results: RunResult[] = []
    for (const command of job.script) {
      const r = await sh(command, work, env)
      results.push(r)
      if (r.code !== 0) break // as a runner stops the script
    }
    expect(results.map((r) => r.code)).toEqual([0, 1])
    const gate = results[1] as RunResult
    expect(gate.stdout).toMatch(/^deployment default\/cart failed: (ErrImagePull|ImagePullBackOff) /m)
    expect(gate.stdout).toMatch(
      /rollout gate failed: 1 of 2 Deployments rolled out; 1 failed: default\/cart \(/,
    )
    expect(existsSync(join(work, job.artifacts.reports.junit))).toBe(true)
    const junit = readFileSync(join(work, 'rollout.xml'), 'utf8')
    expect(junit).toContain('tests="2" failures="1"')
    expect(junit).toMatch(
      /<testcase classname="deployment\.default" name="cart"[^>]*>\s*<failure type="(ErrImagePull|ImagePullBackOff)"/,
    )
  }, 150_000)
})
