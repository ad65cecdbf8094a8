// `rollout watch` as a CI gate, end to end: the test API server simulates the cluster (pods ready
// after 1s), the built CLI runs beside it as the Deployment controller (`run`), the real kubectl
// applies a directory of manifests, and the gate waits for what the directory defines.

import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Pod} from '../../src/controller/api/types.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {BIN, cliAsync, kubectlAsync, ROOT, RunProcess, waitFor} from './helpers.js'

const HAS_KUBECTL = spawnSync('kubectl', ['version', '--client'], {stdio: 'ignore'}).status === 0

/** A manifest as one applies it: no namespace (the gate takes -n, as kubectl apply does), no status. */
function manifest(name: string, image: string, extra = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 2
  progressDeadlineSeconds: 600
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: app
        image: ${image}
${extra}`
}

/** An image on a `.invalid` host: the simulated kubelet never pulls it. */
const BAD_IMAGE = 'registry.example.invalid/shop/cart:1.4'

/**
 * XML well-formedness, as far as JUnit readers need it: one root, tags nested and closed, attribute
 * values quoted, only the five entities. Returns the elements as [name, attributes] in document order.
 */
function parseXml(text: string): Array<{name: string; attrs: Record<string, string>; text?: string}> {
  const body = text.replace(/^<\?xml[^?]*\?>\s*/, '')
  const stack: string[] = []
  const out: Array<{name: string; attrs: Record<string, string>; text?: string}> = []
  const re = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/gy
  let roots = 0
  let pos = 0
  for (let m = re.exec(body); m !== null; m = re.exec(body)) {
    pos = re.lastIndex
    if (m[5] !== undefined) {
      if (stack.length === 0 && m[5].trim() !== '') throw new Error(`text outside the root: ${m[5]}`)
      if (/&(?!(amp|lt|gt|quot|apos);)/.test(m[5])) throw new Error(`bad entity in ${m[5]}`)
      const last = out.at(-1)
      if (last) last.text = (last.text ?? '') + m[5]
      continue
    }
    const [, close, name = '', attrText = '', selfClose] = m
    if (close) {
      if (stack.pop() !== name) throw new Error(`</${name}> closes nothing open`)
      continue
    }
    if (stack.length === 0) roots++
    const attrs: Record<string, string> = {}
    for (const a of attrText.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
      if (/&(?!(amp|lt|gt|quot|apos);)/.test(a[2] ?? '')) throw new Error(`bad entity in ${a[2]}`)
      attrs[a[1] ?? ''] = a[2] ?? ''
    }
    out.push({name, attrs})
    if (!selfClose) stack.push(name)
  }
  if (pos !== body.length) throw new Error(`not XML at ${body.slice(pos, pos + 40)}`)
  if (stack.length > 0) throw new Error(`unclosed ${stack.join(', ')}`)
  if (roots !== 1) throw new Error(`${roots} root elements`)
  return out
}

describe.skipIf(!HAS_KUBECTL)('rollout watch as a CI gate', () => {
  let server: ApiServer
  let run: RunProcess
  let dir: string
  let env: NodeJS.ProcessEnv

  beforeAll(async () => {
    server = await startApiServer({simulate: {podReadyAfterMs: 1000}})
    env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
    run = new RunProcess(['-A'], env)
    await run.started()
    dir = mkdtempSync(join(tmpdir(), 'deployctl-gate-'))
    for (const ns of ['shop', 'crash']) {
      expect((await kubectlAsync(env, 'create', 'namespace', ns)).code).toBe(0)
    }
  }, 60_000)

  afterAll(async () => {
    await run?.stop('SIGTERM')
    await server?.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  }, 30_000)

  it('fails fast on the Deployment whose image cannot be pulled, names it and the two done; passes once it is fixed', async () => {
    const k8s = join(dir, 'k8s')
    spawnSync('mkdir', ['-p', k8s])
    writeFileSync(join(k8s, 'web.yaml'), manifest('web', 'nginx:1.27'))
    writeFileSync(join(k8s, 'api.yaml'), manifest('api', 'ghcr.io/shop/api:2.1'))
    writeFileSync(join(k8s, 'cart.yaml'), manifest('cart', BAD_IMAGE))
    const applied = await kubectlAsync(env, 'apply', '-n', 'shop', '-f', k8s)
    expect(applied.stderr).toBe('')
    expect(applied.code).toBe(0)
    const junit = join(dir, 'gate.xml')
    const gate = await cliAsync(
      ['rollout', 'watch', '-f', k8s, '-n', 'shop', '--timeout', '5m', '--junit', junit],
      {env: {...env, GITHUB_ACTIONS: 'true'}, killAfterMs: 90_000},
    )
    expect(gate.signal).toBeNull()
    expect(gate.code).toBe(1)
    // The choice of a live gate, said once on stderr.
    expect(gate.stderr).toContain(
      'rollout watch: the files hold 3 Deployment manifests (no status): waiting for them on the cluster in namespace shop (--simulate simulates them instead)\n',
    )
    const lines = gate.stdout.split('\n')
    expect(lines).toContainEqual(
      expect.stringMatching(
        / deployment shop\/web done 2\/2 ready, 2 updated: deployment "web" successfully rolled out$/,
      ),
    )
    expect(lines).toContainEqual(expect.stringMatching(/ deployment shop\/api done 2\/2 ready, 2 updated/))
    expect(lines).toContainEqual(
      expect.stringMatching(
        / deployment shop\/cart FAILED 0\/2 ready, \d updated: (ErrImagePull|ImagePullBackOff): .*cannot pull registry\.example\.invalid\/shop\/cart:1\.4/,
      ),
    )
    // The report: verdict and cause, the failing pod, the Warning events grouped.
    expect(gate.stdout).toMatch(
      /^deployment shop\/cart failed: (ErrImagePull|ImagePullBackOff) \(verdict Stalled\/(ErrImagePull|ImagePullBackOff)\)$/m,
    )
    expect(gate.stdout).toMatch(/^ {2}pod: cart-[a-z0-9]+-[a-z0-9]+ \(container app\)$/m)
    expect(gate.stdout).toMatch(/^ {2}Warning events:\n {4}Failed \S+( \(x\d+ over \S+\))? Pod\/cart-/m)
    expect(gate.stdout).toContain('rollout gate failed: 2 of 3 Deployments rolled out; 1 failed: shop/cart (')
    // GitHub Actions: one annotation per failed Deployment.
    const annotations = lines.filter((l) => l.startsWith('::error'))
    expect(annotations).toHaveLength(1)
    expect(annotations[0]).toMatch(
      /^::error title=deployment shop\/cart failed%3A (ErrImagePull|ImagePullBackOff)::The rollout/,
    )
    expect(gate.stderr).toMatch(/^error: 2 of 3 Deployments rolled out; 1 failed: shop\/cart \(/m)

    // JUnit: well-formed, three testcases, one failure with the cause.
    const xml = parseXml(readFileSync(junit, 'utf8'))
    expect(xml[0]).toMatchObject({name: 'testsuites', attrs: {tests: '3', failures: '1', errors: '0'}})
    const cases = xml.filter((e) => e.name === 'testcase')
    expect(cases.map((c) => `${c.attrs.classname}/${c.attrs.name}`).sort()).toEqual([
      'deployment.shop/api',
      'deployment.shop/cart',
      'deployment.shop/web',
    ])
    const failures = xml.filter((e) => e.name === 'failure')
    expect(failures).toHaveLength(1)
    expect(failures[0]?.attrs.type).toMatch(/^(ErrImagePull|ImagePullBackOff)$/)
    expect(failures[0]?.text).toContain('deployment shop/cart failed:')

    // -o json: NDJSON events, the last line the RolloutGateResult with the three items.
    const json = await cliAsync(
      ['rollout', 'watch', '-f', k8s, '-n', 'shop', '--timeout', '5m', '-o', 'json'],
      {
        env,
        killAfterMs: 90_000,
      },
    )
    expect(json.code).toBe(1)
    const docs = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    const result = docs.at(-1) as {
      kind: string
      result: string
      items: Array<{
        deployment: {namespace: string; name: string}
        verdict: {code: string}
        phase: string
        reason: string
      }>
    }
    expect(docs.slice(0, -1).every((d) => d.kind === 'RolloutGateEvent')).toBe(true)
    expect(result.kind).toBe('RolloutGateResult')
    expect(result.result).toBe('Failed')
    expect(result.items.map((i) => [i.deployment.name, i.phase, i.verdict.code])).toEqual([
      ['cart', 'Failed', 'Stalled'],
      ['api', 'Done', 'Complete'],
      ['web', 'Done', 'Complete'],
    ])

    // The image fixed: the gate passes.
    writeFileSync(join(k8s, 'cart.yaml'), manifest('cart', 'ghcr.io/shop/cart:1.4'))
    expect((await kubectlAsync(env, 'apply', '-n', 'shop', '-f', k8s)).code).toBe(0)
    const fixed = await cliAsync(['rollout', 'watch', '-f', k8s, '-n', 'shop', '--timeout', '5m'], {
      env: {...env, GITHUB_ACTIONS: 'true'},
      killAfterMs: 90_000,
    })
    expect(fixed.stderr).not.toContain('error')
    expect(fixed.code).toBe(0)
    expect(fixed.stdout).toMatch(
      / deployment shop\/cart done 2\/2 ready, 2 updated: deployment "cart" successfully rolled out$/m,
    )
    expect(fixed.stdout).toContain('rollout gate passed: 3 of 3 Deployments rolled out.\n')
    expect(fixed.stdout).not.toContain('::error')
  }, 240_000)

  it('on a terminal: one live table, honest at 40 columns, without colour under NO_COLOR', async () => {
    // The three Deployments of the first test, all done by now.
    const run = (extra: NodeJS.ProcessEnv) => {
      const command = `stty cols 40 rows 20; '${process.execPath}' '${BIN}' rollout watch web api cart -n shop --timeout 1m`
      const e: NodeJS.ProcessEnv = {
        ...process.env,
        ...env,
        TERM: 'xterm-256color',
        NODE_ENV: 'production',
        ...extra,
      }
      delete e.CI
      delete e.CONTINUOUS_INTEGRATION
      return new Promise<{code: number | null; stdout: string}>((resolvePromise) => {
        const child = spawn('script', ['-qec', command, '/dev/null'], {cwd: ROOT, env: e})
        let stdout = ''
        child.stdout.setEncoding('utf8').on('data', (c: string) => {
          stdout += c
        })
        child.on('close', (code) => resolvePromise({code, stdout}))
      })
    }
    const plain = await run({NO_COLOR: '1'})
    expect(plain.code).toBe(0)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: SGR sequences are what is looked for
    const SGR = /\u001b\[[0-9;]*m/
    expect(plain.stdout).not.toMatch(SGR)
    // ink drew the table (its cursor moves); every line of it fits 40 columns.
    expect(plain.stdout).toContain('\u001b[2K')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: dropping the cursor moves to read the text
    const text = plain.stdout.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split(/\r?\n|\r/)
    const table = text.filter((l) => /^[✔✖↻…] /.test(l))
    expect(table.length).toBeGreaterThanOrEqual(3)
    expect(table.every((l) => [...l].length <= 40)).toBe(true)
    expect(text).toContainEqual(expect.stringMatching(/^3\/3 done · /))
    expect(text).toContainEqual(expect.stringMatching(/^✔ cart +2\/2 +2 +RolloutComplete$/))
    expect(plain.stdout).toContain('rollout gate passed: 3 of 3 Deployments rolled out.')
    const colored = await run({NO_COLOR: '', FORCE_COLOR: ''})
    expect(colored.stdout).toMatch(SGR)
  }, 60_000)

  it('fails a crash-looping Deployment with CrashLoopBackOff and the last lines of its previous container', async () => {
    const file = join(dir, 'worker.yaml')
    writeFileSync(
      file,
      `${manifest('worker', 'busybox:1.36', "        command: [sh, -c, 'echo connecting to db:5432; echo retrying in 1s; echo fatal: password authentication failed; exit 3']\n")}---
apiVersion: v1
kind: Service
metadata: {name: worker}
spec:
  selector: {app: worker}
  ports: [{port: 80}]
`,
    )
    expect((await kubectlAsync(env, 'apply', '-n', 'crash', '-f', file)).code).toBe(0)
    // As CI runs it: the gate starts before any pod has crashed and fails at the first judgement
    // that finds a new pod with --max-restarts (2) restarts.
    const early = cliAsync(['rollout', 'watch', '-f', file, '-n', 'crash', '--log-lines', '2'], {
      env,
      killAfterMs: 120_000,
    })
    // The two pods were created a few milliseconds apart, so the simulated kubelet restarts them a few
    // milliseconds apart: whether the early gate's judgement comes before or after the second pod's
    // second crash is timing, not behaviour. For the exact report, the cluster is held still once both
    // pods crash-loop with 2 restarts (checked and paused in one synchronous step), and the gate and
    // the one-Deployment watch below read those very objects.
    const crashing = await waitFor(
      () => {
        const pods = server.store
          .list('pods', 'crash')
          .map((o) => o as unknown as Pod)
          .filter((p) => p.metadata.name?.startsWith('worker-'))
        const looping = pods.filter(
          (p) =>
            p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff' &&
            (p.status.containerStatuses[0].restartCount ?? 0) >= 2,
        )
        if (pods.length !== 2 || looping.length !== 2) return undefined
        server.simulation?.pause()
        return looping
      },
      90_000,
      'both worker pods in CrashLoopBackOff with 2 restarts',
    )
    try {
      const restarts = [...new Set(crashing.map((p) => p.status?.containerStatuses?.[0]?.restartCount))]
      const first = await early
      expect(first.code).toBe(1)
      expect(first.stdout).toMatch(
        /^deployment crash\/worker failed: CrashLoopBackOff \(verdict Stalled\/CrashLoopBackOff\)$/m,
      )
      // One pod or both, as the cluster stood at its judgement; the first crash loop it saw had 2 restarts.
      expect(first.stdout).toMatch(
        /(1 new pod keeps|2 new pods keep) crashing \(container app: 2 restarts, last exit code 3\)/,
      )
      expect(first.stdout).toContain(
        '  log of container app (previous instance, last 2 lines):\n    | retrying in 1s\n    | fatal: password authentication failed\n',
      )

      const gate = await cliAsync(['rollout', 'watch', '-f', file, '-n', 'crash', '--log-lines', '2'], {
        env,
        killAfterMs: 60_000,
      })
      expect(gate.code).toBe(1)
      expect(gate.stdout).toMatch(
        /^deployment crash\/worker failed: CrashLoopBackOff \(verdict Stalled\/CrashLoopBackOff\)$/m,
      )
      expect(gate.stdout).toMatch(
        new RegExp(
          `The rollout to revision 1 cannot finish: 2 new pods keep crashing \\(container app: (${restarts.join('|')}) restarts, last exit code 3\\)`,
        ),
      )
      // --log-lines 2: the last two lines of the previous instance.
      expect(gate.stdout).toContain(
        '  log of container app (previous instance, last 2 lines):\n    | retrying in 1s\n    | fatal: password authentication failed\n',
      )
      // One group for the same back-off of both pods.
      expect(gate.stdout).toMatch(
        /^ {4}BackOff \S+ \(x\d+ over \S+\) Pod\/worker-\S+ and 1 more: Back-off restarting failed container app in pod /m,
      )
      // The one-Deployment watch fails fast on the same dead end (its view unchanged otherwise).
      const one = await cliAsync(['rollout', 'watch', 'worker', '-n', 'crash', '--line-mode'], {env})
      expect(one.code).toBe(1)
      expect(one.stderr).toMatch(
        /^error: deployment "worker" failed: CrashLoopBackOff: The rollout to revision 1 cannot finish: 2 new pods keep crashing/m,
      )
    } finally {
      server.simulation?.resume()
    }
  }, 150_000)

  it('fails an Unschedulable Deployment once --unschedulable-grace has passed, with nothing else changing', async () => {
    // No node has the label: the pods stay Unschedulable and their objects stop changing; only the
    // gate's timer for the end of the grace can fail it (no periodic re-judging).
    const file = join(dir, 'nowhere.yaml')
    writeFileSync(file, manifest('nowhere', 'nginx:1.27', '      nodeSelector: {disk: none}\n'))
    expect((await kubectlAsync(env, 'apply', '-n', 'shop', '-f', file)).code).toBe(0)
    const gate = await cliAsync(
      ['rollout', 'watch', '-f', file, '-n', 'shop', '--unschedulable-grace', '3s', '--timeout', '1m'],
      {env, killAfterMs: 90_000},
    )
    expect(gate.code).toBe(1)
    expect(gate.stdout).toMatch(/^deployment shop\/nowhere failed: Unschedulable /m)
    expect(gate.stdout).not.toContain('timed out')
    expect((await kubectlAsync(env, 'delete', '-n', 'shop', '-f', file)).code).toBe(0)
  }, 120_000)

  it('waits for a Deployment that does not exist yet, or fails with --require-existing', async () => {
    const missing = await cliAsync(['rollout', 'watch', 'ghost', 'web', '-n', 'shop', '--require-existing'], {
      env,
    })
    expect(missing.code).toBe(1)
    expect(missing.stdout).toContain('deployment shop/ghost failed: NotFound')
    expect(missing.stdout).toMatch(/ deployment shop\/web done /)
    const waiting = await cliAsync(['rollout', 'watch', 'ghost', 'web', '-n', 'shop', '--timeout', '2s'], {
      env,
    })
    expect(waiting.code).toBe(1)
    expect(waiting.stdout).toMatch(
      / deployment shop\/ghost waiting: Waiting for deployment "ghost" to be created in namespace shop\.$/m,
    )
    expect(waiting.stdout).toContain(
      'rollout gate timed out: timed out after 2s: 1 of 2 Deployments rolled out; still waiting for shop/ghost (NotFound).',
    )
  }, 60_000)

  it('refuses what it cannot do with exit 2', async () => {
    const both = await cliAsync(['rollout', 'watch', '-f', dir, '--live', '--simulate'], {env})
    expect(both.code).toBe(2)
    expect(both.stderr).toBe('error: --live and --simulate cannot be used together\n')
    // Input the gate cannot read is 2 as well: 1 says a Deployment failed.
    const missing = await cliAsync(['rollout', 'watch', '-f', join(dir, 'no-such-dir')], {env})
    expect(missing.stderr).toBe(`error: the path "${join(dir, 'no-such-dir')}" does not exist\n`)
    expect(missing.code).toBe(2)
    const unreachable = await cliAsync(['rollout', 'watch', 'web', 'api', '--server', 'http://127.0.0.1:9'], {
      env,
    })
    expect(unreachable.code).toBe(2)
    const yaml = await cliAsync(['rollout', 'watch', '-l', 'app=web', '-n', 'shop', '-o', 'yaml'], {env})
    expect(yaml.code).toBe(2)
    expect(yaml.stderr).toMatch(/^error: -o yaml is for one Deployment/)
  })
})
