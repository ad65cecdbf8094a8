// The release, end to end: `npm run package` once per run (scripts/package/), then the linux amd64
// executable out of its archive, on a PATH without Node: the same answers as the npm build on the
// examples, --version, explain, the ink view (the one ES module part, unpacked at first use), live
// calls over TLS with a client certificate and with an exec credential plugin, and completion
// through the real kubectl with the archive's kubectl_complete-deployctl. The krew manifest is
// checked against the archives it names.

import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cli, cliAsync, ROOT, type RunResult} from './helpers.js'

const SLOW = {timeout: 600_000}
const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string}
const TAG = `v${pjson.version}`

let work: string
let release: string
let bin: string
/** A PATH with the archive's two executables and kubectl, and no node. */
let path: string
let manifest: {built: Array<{os: string; arch: string; archive: string; sha256: string; node: string}>}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'deployctl-release-'))
  release = join(work, 'release')
  // Every platform: the cross-built ones are only checked for shape here, but a packaging change
  // that breaks them shows now rather than on release day.
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'scripts/package/index.mjs'), '--out', release, '--quiet'],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: {...process.env, NODE_ENV: 'production'},
    },
  )
  if (r.status !== 0) throw new Error(`npm run package failed:\n${r.stderr}`)
  manifest = JSON.parse(readFileSync(join(release, 'release.json'), 'utf8'))
  bin = join(work, 'bin')
  mkdirSync(bin)
  execFileSync('tar', ['-xzf', join(release, `kubectl-deployctl_${TAG}_linux_amd64.tar.gz`), '-C', bin])
  const kubectl = execFileSync('sh', ['-c', 'command -v kubectl'], {encoding: 'utf8'}).trim()
  symlinkSync(kubectl, join(bin, 'kubectl'))
  path = bin
}, SLOW.timeout)

afterAll(() => {
  if (work) rmSync(work, {recursive: true, force: true})
})

/** The executable with only the release's directory on the PATH (and HOME for its cache). */
function binary(args: string[], env: NodeJS.ProcessEnv = {}): RunResult {
  const r = spawnSync(join(bin, 'kubectl-deployctl'), args, {
    cwd: ROOT,
    encoding: 'utf8',
    env: {PATH: path, HOME: work, NO_COLOR: '1', ...env},
    timeout: 60_000,
  })
  return {code: r.status, stdout: r.stdout, stderr: r.stderr}
}

function binaryAsync(args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(bin, 'kubectl-deployctl'), args, {
      cwd: ROOT,
      env: {PATH: path, HOME: work, NO_COLOR: '1', ...env},
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c
    })
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stdout, stderr})
    })
  })
}

describe('the release', SLOW, () => {
  it('has an archive per platform with a Node 24 runtime, and names the one without', () => {
    const files = readdirSync(release).sort()
    expect(files).toEqual(
      [
        'deployctl.yaml',
        `kubectl-deployctl_${TAG}_darwin_amd64.tar.gz`,
        `kubectl-deployctl_${TAG}_linux_amd64.tar.gz`,
        `kubectl-deployctl_${TAG}_linux_arm64.tar.gz`,
        `kubectl-deployctl_${TAG}_windows_amd64.zip`,
        'release.json',
      ].sort(),
    )
    for (const b of manifest.built) expect(b.node).toMatch(/^24\./)
    const notBuilt = (manifest as unknown as {notBuilt: Array<{os: string; arch: string; reason: string}>})
      .notBuilt
    expect(notBuilt.map((p) => `${p.os}/${p.arch}`)).toEqual(['darwin/arm64'])
    // The README names it too.
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toMatch(/darwin\/arm64[^\n]*not (yet )?built/i)
  })

  it('tar.gz archives hold the executable, the completion helper and the licences, with their modes', () => {
    for (const [os, arch] of [
      ['linux', 'amd64'],
      ['linux', 'arm64'],
      ['darwin', 'amd64'],
    ]) {
      const listing = execFileSync(
        'tar',
        ['-tvzf', join(release, `kubectl-deployctl_${TAG}_${os}_${arch}.tar.gz`)],
        {encoding: 'utf8'},
      )
      const entries = Object.fromEntries(
        listing
          .trim()
          .split('\n')
          .map((l) => {
            const parts = l.split(/\s+/)
            return [parts.at(-1), parts[0]]
          }),
      )
      expect(entries).toEqual({
        'kubectl-deployctl': '-rwxr-xr-x',
        'kubectl_complete-deployctl': '-rwxr-xr-x',
        LICENSE: '-rw-r--r--',
        'LICENSE.node': '-rw-r--r--',
      })
    }
    // The completion helper finds the executable beside it by parameter expansion, no dirname process.
    const helper = readFileSync(join(bin, 'kubectl_complete-deployctl'), 'utf8')
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${0%/*}, not a template
    expect(helper).toContain('${0%/*}')
    expect(helper).not.toMatch(/\bdirname\b/)
  })

  it('a cross-built executable holds nothing of the build that made it: no temporary path, commands in id order', () => {
    // What would make two packagings of one commit differ: the SEA blob names its main script by
    // the path it was given, and oclif writes the manifest's commands in the order they loaded.
    // (The linux amd64 executable's start-up snapshot differs from run to run all the same.)
    const dir = mkdtempSync(join(work, 'arm64-'))
    execFileSync('tar', ['-xzf', join(release, `kubectl-deployctl_${TAG}_linux_arm64.tar.gz`), '-C', dir])
    const exe = readFileSync(join(dir, 'kubectl-deployctl'))
    expect(exe.indexOf('NODE_SEA_BLOB')).toBeGreaterThan(0)
    expect(exe.indexOf('deployctl-package-')).toBe(-1)
    const ids = Object.keys(
      (JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: object}).commands,
    )
    expect(ids).toEqual([...ids].sort())
    expect(ids.length).toBeGreaterThan(5)
  })

  it('the Windows zip holds kubectl-deployctl.exe, a PE executable, and the .cmd completion helper', async () => {
    const yauzl = (await import('yauzl')).default
    const zip = join(release, `kubectl-deployctl_${TAG}_windows_amd64.zip`)
    const names: string[] = []
    let exeHead: Buffer | undefined
    await new Promise<void>((resolve, reject) => {
      yauzl.open(zip, {lazyEntries: true}, (err, z) => {
        if (err || !z) return reject(err)
        z.on('entry', (e: {fileName: string}) => {
          names.push(e.fileName)
          if (e.fileName !== 'kubectl-deployctl.exe') return z.readEntry()
          z.openReadStream(e as never, (err2, stream) => {
            if (err2 || !stream) return reject(err2)
            stream.once('data', (c: Buffer) => {
              exeHead = c.subarray(0, 2)
              stream.destroy()
              z.readEntry()
            })
          })
        })
        z.on('end', resolve)
        z.readEntry()
      })
    })
    expect(names.sort()).toEqual([
      'LICENSE',
      'LICENSE.node',
      'kubectl-deployctl.exe',
      'kubectl_complete-deployctl.cmd',
    ])
    expect(exeHead?.toString('latin1')).toBe('MZ')
  })

  it('deployctl.yaml is a krew Plugin whose platforms match the archives and their sha256', () => {
    const doc = parseYaml(readFileSync(join(release, 'deployctl.yaml'), 'utf8'))
    expect(doc.apiVersion).toBe('krew.googlecontainertools.github.com/v1alpha2')
    expect(doc.kind).toBe('Plugin')
    expect(doc.metadata).toEqual({name: 'deployctl'})
    expect(doc.spec.version).toBe(TAG)
    expect(doc.spec.version).toMatch(/^v\d+\.\d+\.\d+/)
    // krew's index asks for one; it is package.json's.
    expect(doc.spec.homepage).toBe('https://github.com/kubectl-deployctl/kubectl-deployctl')
    expect(doc.spec.shortDescription.length).toBeGreaterThan(10)
    expect(doc.spec.shortDescription.length).toBeLessThanOrEqual(50)
    expect(doc.spec.description.length).toBeGreaterThan(50)
    expect(doc.spec.caveats).toContain('kubectl_complete-deployctl')
    const selectors = doc.spec.platforms.map(
      (p: {selector: {matchLabels: Record<string, string>}}) => p.selector.matchLabels,
    )
    expect(selectors).toEqual([
      {os: 'linux', arch: 'amd64'},
      {os: 'linux', arch: 'arm64'},
      {os: 'darwin', arch: 'amd64'},
      {os: 'windows', arch: 'amd64'},
    ])
    for (const p of doc.spec.platforms) {
      const {os, arch} = p.selector.matchLabels
      const archive = `kubectl-deployctl_${TAG}_${os}_${arch}.${os === 'windows' ? 'zip' : 'tar.gz'}`
      expect(p.uri).toMatch(new RegExp(`^https://.+/${TAG}/${archive.replace(/\./g, '\\.')}$`))
      const sha = createHash('sha256')
        .update(readFileSync(join(release, archive)))
        .digest('hex')
      expect(p.sha256).toBe(sha)
      expect(p.bin).toBe(os === 'windows' ? 'kubectl-deployctl.exe' : 'kubectl-deployctl')
      expect(p.files.map((f: {from: string}) => f.from)).toEqual(
        expect.arrayContaining([
          p.bin,
          'LICENSE',
          os === 'windows' ? 'kubectl_complete-deployctl.cmd' : 'kubectl_complete-deployctl',
        ]),
      )
      for (const f of p.files) expect(f.to).toBe('.')
    }
  })

  it('the release URL can be set for another home (DEPLOYCTL_RELEASE_URL)', () => {
    const out = join(work, 'other')
    const r = spawnSync(
      process.execPath,
      [join(ROOT, 'scripts/package/index.mjs'), '--out', out, '--quiet', '--platforms', 'darwin/arm64'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: {...process.env, DEPLOYCTL_RELEASE_URL: 'https://example.test/dl/{version}/{file}'},
      },
    )
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const rel = JSON.parse(readFileSync(join(out, 'release.json'), 'utf8'))
    expect(rel.releaseUrl).toBe('https://example.test/dl/{version}/{file}')
    expect(rel.built).toEqual([])
  })
})

describe('the linux amd64 executable, without Node on the PATH', SLOW, () => {
  it('runs where no node can be found', () => {
    const r = spawnSync('/bin/sh', ['-c', 'command -v node'], {env: {PATH: path}})
    expect(r.status).not.toBe(0)
    expect(statSync(join(bin, 'kubectl-deployctl')).size).toBeGreaterThan(50 * 2 ** 20)
  })

  it('runs no code the environment names: NODE_OPTIONS (--require, --import) and OPENSSL_CONF are ignored (issue 28)', () => {
    const marker = join(work, 'env-code-ran')
    const script = join(work, 'x.cjs')
    writeFileSync(script, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran')\n`)
    // An OpenSSL configuration that loads a provider: a shared library, code (none exists here, so
    // a Node that reads it aborts at start-up).
    const openssl = join(work, 'openssl.cnf')
    writeFileSync(
      openssl,
      'nodejs_conf = init\nopenssl_conf = init\n[init]\nproviders = p\n[p]\nx = x\n[x]\nmodule = /nonexistent/x.so\nactivate = 1\n',
    )
    // The same environment makes a plain node run the script, and abort on the configuration.
    const node = spawnSync(process.execPath, ['-e', '0'], {env: {NODE_OPTIONS: `--require ${script}`}})
    expect(node.status).toBe(0)
    expect(existsSync(marker)).toBe(true)
    rmSync(marker)
    expect(spawnSync(process.execPath, ['-e', '0'], {env: {OPENSSL_CONF: openssl}}).status).not.toBe(0)
    for (const env of [
      {NODE_OPTIONS: `--require ${script}`},
      {NODE_OPTIONS: `--import ${script}`},
      {OPENSSL_CONF: openssl},
    ]) {
      const r = binary(['--version'], env)
      expect(r.stderr).toBe('')
      expect(r.stdout).toMatch(/^kubectl-deployctl\//)
      expect(r.code).toBe(0)
      expect(existsSync(marker)).toBe(false)
    }
  })

  it('--version names the Node 24 inside', () => {
    const r = binary(['--version'])
    expect(r.stderr).toBe('')
    const linux = manifest.built.find((b) => b.os === 'linux' && b.arch === 'amd64')
    expect(r.stdout.trim()).toBe(`kubectl-deployctl/${pjson.version} linux-x64 node-v${linux?.node}`)
  })

  it('dry-run sync -o json gives the npm build answers on every example', () => {
    const examples = readdirSync(join(ROOT, 'examples')).filter((f) => /\.ya?ml$/.test(f))
    expect(examples.length).toBeGreaterThan(3)
    for (const f of examples) {
      const args = [
        'dry-run',
        'sync',
        '-f',
        join('examples', f),
        '-A',
        '-o',
        'json',
        '--now',
        '2026-11-29T10:05:00Z',
      ]
      const npm = cli(args)
      const exe = binary(args)
      expect({file: f, code: exe.code, stdout: exe.stdout}).toEqual({
        file: f,
        code: npm.code,
        stdout: npm.stdout,
      })
      expect(exe.stdout).toContain('"kind": "SyncResult"')
    }
  })

  it('explain and the table output match the npm build', () => {
    for (const args of [
      [
        'explain',
        'api',
        '-f',
        'examples/stuck-image-pull.yaml',
        '-n',
        'demo',
        '--now',
        '2026-11-29T10:00:00Z',
      ],
      [
        'dry-run',
        'sync',
        '-f',
        'examples/rolling-update.yaml',
        '-n',
        'demo',
        '-o',
        'wide',
        '--now',
        '2026-11-29T10:00:10Z',
      ],
    ]) {
      const npm = cli(args)
      const exe = binary(args)
      expect(exe.stdout).toBe(npm.stdout)
      expect(exe.code).toBe(npm.code)
      expect(exe.stdout.length).toBeGreaterThan(100)
    }
  })

  it('a bad input fails as in the npm build: same message, same exit code', () => {
    const args = ['dry-run', 'sync', '-f', 'examples/no-such-file.yaml']
    const npm = cli(args)
    const exe = binary(args)
    expect(exe.code).toBe(npm.code)
    expect(exe.code).not.toBe(0)
    expect(exe.stderr).toBe(npm.stderr)
  })

  it('the ink view (its ES module part unpacked once into a private cache) runs on a terminal', () => {
    const cache = join(work, 'xdg-cache')
    const run = () =>
      spawnSync(
        'script',
        [
          '-qec',
          `${join(bin, 'kubectl-deployctl')} rollout watch web -f examples/rolling-update.yaml -n demo --now 2026-11-29T10:00:10Z`,
          '/dev/null',
        ],
        {
          cwd: ROOT,
          encoding: 'utf8',
          env: {
            PATH: `${path}:/usr/bin:/bin`,
            HOME: work,
            XDG_CACHE_HOME: cache,
            TERM: 'xterm',
            COLUMNS: '100',
            LINES: '40',
          },
          timeout: 60_000,
        },
      )
    const r = run()
    expect(r.stdout).toContain('successfully rolled out')
    // Nothing of Node's own on the terminal (issue 25, item 3): the ink part's import() goes through
    // an API Node 24 calls experimental, and its warning would land over the view.
    expect(r.stdout).not.toContain('ExperimentalWarning')
    expect(r.stdout).not.toContain('(node:')
    expect(r.status).toBe(0)
    const dirs = readdirSync(join(cache, 'kubectl-deployctl'))
    expect(dirs).toHaveLength(1)
    expect(dirs[0]).toMatch(/^esm-[0-9a-f]{32}$/)
    expect(statSync(join(cache, 'kubectl-deployctl')).mode & 0o077).toBe(0)
    // A second start uses what the first unpacked.
    expect(run().status).toBe(0)
    expect(readdirSync(join(cache, 'kubectl-deployctl'))).toEqual(dirs)
  })
})

describe('the executable against the test API server over TLS', SLOW, () => {
  let server: ApiServer
  let dir: string
  let kubeconfig: string
  const TOKEN = 'exec-plugin-token-9d1f'

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'deployctl-binary-tls-'))
    // A CA and a client certificate it signed: the server accepts only connections that present it.
    const ssl = (args: string[]) => execFileSync('openssl', args, {cwd: dir, stdio: 'ignore'})
    ssl(
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
      ].concat(['-subj', '/CN=deployctl-test-ca', '-keyout', 'ca.key', '-out', 'ca.crt']),
    )
    ssl([
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=deployctl-binary-user',
      '-keyout',
      'client.key',
      '-out',
      'client.csr',
    ])
    ssl([
      'x509',
      '-req',
      '-in',
      'client.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '1',
      '-out',
      'client.crt',
    ])
    server = await startApiServer({
      tls: true,
      clientCA: readFileSync(join(dir, 'ca.crt'), 'utf8'),
      requireToken: TOKEN,
      objects: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: {name: 'web', namespace: 'shop', labels: {app: 'web'}},
          spec: {
            replicas: 2,
            selector: {matchLabels: {app: 'web'}},
            template: {
              metadata: {labels: {app: 'web'}},
              spec: {containers: [{name: 'app', image: 'nginx:1.27'}]},
            },
          },
        },
      ],
    })
    const b64 = (f: string) => readFileSync(join(dir, f)).toString('base64')
    // The exec plugin is a shell script (nothing on this PATH runs node) that hands out the token and
    // the client certificate, as ExecCredential's status may.
    const credential = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: {
        token: TOKEN,
        clientCertificateData: readFileSync(join(dir, 'client.crt'), 'utf8'),
        clientKeyData: readFileSync(join(dir, 'client.key'), 'utf8'),
      },
    })
    // One line (JSON escapes the PEM line breaks), no single quote in it: printf is a shell builtin.
    const plugin = join(dir, 'plugin.sh')
    writeFileSync(plugin, `#!/bin/sh\nprintf '%s' '${credential}'\n`, {mode: 0o755})
    kubeconfig = join(dir, 'config')
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
clusters:
- name: tls
  cluster:
    server: ${server.url}
    certificate-authority-data: ${Buffer.from(server.caPem ?? '').toString('base64')}
- name: no-ca
  cluster:
    server: ${server.url}
users:
- name: exec
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ${plugin}
      interactiveMode: Never
- name: cert-and-token
  user:
    client-certificate-data: ${b64('client.crt')}
    client-key-data: ${b64('client.key')}
    token: ${TOKEN}
- name: cert-and-exec
  user:
    client-certificate-data: ${b64('client.crt')}
    client-key-data: ${b64('client.key')}
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ${plugin}
      interactiveMode: Never
- name: no-cert
  user:
    token: ${TOKEN}
contexts:
- {name: tls, context: {cluster: tls, user: exec, namespace: shop}}
- {name: cert-and-token, context: {cluster: tls, user: cert-and-token, namespace: shop}}
- {name: cert-and-exec, context: {cluster: tls, user: cert-and-exec, namespace: shop}}
- {name: no-cert, context: {cluster: tls, user: no-cert, namespace: shop}}
- {name: no-ca, context: {cluster: no-ca, user: cert-and-token, namespace: shop}}
current-context: tls
`,
    )
  })

  afterAll(async () => {
    await server?.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  })

  it("prints nothing of Node's own, live or on files (issue 25, item 3)", async () => {
    for (const args of [
      ['--version'],
      ['dry-run', 'sync', '--now', '2026-11-29T10:05:00Z'],
      ['explain', '--now', '2026-11-29T10:05:00Z'],
      ['rollout', 'watch', 'web', '--line-mode', '--timeout', '1s'],
      ['explain', '-f', 'examples/stuck-image-pull.yaml', '--now', '2026-11-29T10:05:00Z'],
      ['completion', 'bash'],
      ['__complete', 'explain', ''],
    ]) {
      const r = await binaryAsync(args, {KUBECONFIG: kubeconfig})
      expect(r.stderr, args.join(' ')).not.toContain('(node:')
      expect(r.stderr, args.join(' ')).not.toContain('Warning: ')
      expect(r.stdout.length, args.join(' ')).toBeGreaterThan(0)
    }
  })

  it('verifies the server, and presents the client certificate and token an exec plugin gives', async () => {
    const before = server.requests.length
    const r = await binaryAsync(['dry-run', 'sync', '-o', 'json', '--now', '2026-11-29T10:05:00Z'], {
      KUBECONFIG: kubeconfig,
    })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.items.map((x: {deployment: {name: string}}) => x.deployment)).toEqual([
      {namespace: 'shop', name: 'web'},
    ])
    const seen = server.requests.slice(before)
    expect(seen.length).toBeGreaterThan(0)
    for (const q of seen) {
      expect(q.clientCN).toBe('deployctl-binary-user')
      expect(q.authorization).toBe(`Bearer ${TOKEN}`)
    }
    // The same pass as the npm build's.
    const npm = await cliAsync(['dry-run', 'sync', '-o', 'json', '--now', '2026-11-29T10:05:00Z'], {
      env: {KUBECONFIG: kubeconfig},
    })
    expect(r.stdout).toBe(npm.stdout)
  })

  it("keeps client-node's compiled code in its private cache: the next live call prints the same, and a cache V8 rejects is made again", async () => {
    const args = ['dry-run', 'sync', '-o', 'json', '--now', '2026-11-29T10:05:00Z']
    const first = await binaryAsync(args, {KUBECONFIG: kubeconfig})
    expect(first.code).toBe(0)
    const cache = join(work, '.cache', 'kubectl-deployctl')
    const late = () =>
      readdirSync(cache).filter((f) =>
        /^late~[0-9a-f]{16}-kube-[A-Z0-9]+\.cjs-v24\.[0-9.]+-[0-9a-f]+\.cache$/.test(f),
      )
    // One per V8 flag set: this call's (a short call's), and V8's own tiering's for the `rollout
    // watch` above.
    expect(late().length).toBeGreaterThanOrEqual(1)
    const files = late().map((f) => join(cache, f))
    for (const f of files) expect(statSync(f).mode & 0o077).toBe(0)
    const again = await binaryAsync(args, {KUBECONFIG: kubeconfig})
    expect(again).toEqual(first)
    for (const f of files) writeFileSync(f, 'not a code cache')
    expect(await binaryAsync(args, {KUBECONFIG: kubeconfig})).toEqual(first)
    expect(files.filter((f) => readFileSync(f, 'utf8') === 'not a code cache').length).toBeLessThan(
      files.length,
    )
  })

  it('a client certificate and a token from the kubeconfig itself', async () => {
    const before = server.requests.length
    const r = await binaryAsync(['dry-run', 'sync', '--context', 'cert-and-token', '-o', 'name'], {
      KUBECONFIG: kubeconfig,
    })
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe('deployment.apps/web\n')
    for (const q of server.requests.slice(before)) {
      expect(q.clientCN).toBe('deployctl-binary-user')
      expect(q.authorization).toBe(`Bearer ${TOKEN}`)
    }
  })

  it('NODE_EXTRA_CA_CERTS still applies while NODE_OPTIONS does not (issue 28)', async () => {
    const ca = join(dir, 'server-ca.crt')
    writeFileSync(ca, server.caPem ?? '')
    const marker = join(dir, 'required-ran')
    const script = join(dir, 'x.cjs')
    writeFileSync(script, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran')\n`)
    const args = ['dry-run', 'sync', '--context', 'no-ca', '-o', 'name']
    const without = await binaryAsync(args, {KUBECONFIG: kubeconfig})
    expect(without.code).toBe(1)
    // kubectl's words for a server it cannot verify (src/errors.ts errorText).
    expect(without.stderr).toMatch(/^Unable to connect to the server: .*certificate/)
    const r = await binaryAsync(args, {
      KUBECONFIG: kubeconfig,
      NODE_EXTRA_CA_CERTS: ca,
      NODE_OPTIONS: `--require ${script}`,
    })
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe('deployment.apps/web\n')
    expect(existsSync(marker)).toBe(false)
  })

  it('runs no exec plugin for a user that has a client certificate, as client-go (so no token here)', async () => {
    // upstream: exec Authenticator.UpdateTransportConfig returns early when the config has cert auth.
    const r = await binaryAsync(['dry-run', 'sync', '--context', 'cert-and-exec'], {KUBECONFIG: kubeconfig})
    expect(r.code).toBe(1)
    expect(r.stderr).toBe('error: You must be logged in to the server (Unauthorized)\n')
  })

  it('a connection without the client certificate is refused, with a one-line error', async () => {
    const r = await binaryAsync(['dry-run', 'sync', '--context', 'no-cert'], {KUBECONFIG: kubeconfig})
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/^Unable to connect to the server: tls: /)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })

  it('completion through kubectl: subcommands, then namespaces and Deployments from the server', async () => {
    // Not spawnSync: the server answers from this process.
    const kubectl = (args: string[]) =>
      new Promise<{stdout: string}>((resolve, reject) => {
        const child = spawn(join(bin, 'kubectl'), ['__complete', 'deployctl', ...args], {
          env: {PATH: path, HOME: work, KUBECONFIG: kubeconfig},
        })
        let stdout = ''
        child.stdout.setEncoding('utf8').on('data', (c: string) => {
          stdout += c
        })
        child.on('error', reject)
        child.on('close', () => resolve({stdout}))
      })
    const top = await kubectl([''])
    expect(top.stdout.split('\n').map((l) => l.split('\t')[0])).toEqual(
      expect.arrayContaining(['dry-run', 'explain', 'reconcile-once', 'rollout', 'run']),
    )
    expect(top.stdout.trim().split('\n').at(-1)).toBe(':4')
    const ns = await kubectl(['explain', '-n', ''])
    expect(ns.stdout.split('\n')).toEqual(expect.arrayContaining(['shop']))
    const names = await kubectl(['explain', '-n', 'shop', 'deployment/'])
    expect(names.stdout).toBe('deployment/web\n:4\n')
  })
})

// Neither Debian nor the npm registry packages krew, so on these machines the manifest is checked by
// the shape and checksum tests above; where krew is installed, it installs the plugin itself.
const hasKrew = spawnSync('kubectl', ['krew', 'version'], {stdio: 'ignore'}).status === 0

describe.skipIf(!hasKrew)('krew (installed here)', SLOW, () => {
  it('installs the plugin from the manifest and the linux amd64 archive', () => {
    const r = spawnSync(
      'kubectl',
      [
        'krew',
        'install',
        `--manifest=${join(release, 'deployctl.yaml')}`,
        `--archive=${join(release, `kubectl-deployctl_${TAG}_linux_amd64.tar.gz`)}`,
      ],
      {encoding: 'utf8', env: {...process.env, KREW_ROOT: join(work, 'krew')}},
    )
    expect(r.status).toBe(0)
    expect(existsSync(join(work, 'krew', 'bin', 'kubectl-deployctl'))).toBe(true)
  })
})
