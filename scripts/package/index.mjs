#!/usr/bin/env node
// `npm run package`: one executable per platform (Node's single-executable applications, no Node
// needed on the machine), an archive of each, and the krew manifest, in release/:
//
//   npm run package [-- --out DIR] [--platforms linux/amd64,windows/amd64] [--release-url TEMPLATE]
//     [--jobs N]
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
//
// The platforms are packaged side by side, --jobs at a time (the machine's cores by default),
// each in a worker thread (platform.mjs): 71 s -> 45 s on 2 cores for the four built here.
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {availableParallelism, tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'
import {Worker} from 'node:worker_threads'
import {krewManifest} from './krew.mjs'
import {ensureRuntime, hostPackage, PLATFORMS} from './runtimes.mjs'
import {seaBundle} from './sea-bundle.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const {values: opts} = parseArgs({
  options: {
    out: {type: 'string', default: join(root, 'release')},
    platforms: {type: 'string'},
    'release-url': {type: 'string'},
    quiet: {type: 'boolean', default: false},
    'keep-work': {type: 'boolean', default: false},
    jobs: {type: 'string', default: String(availableParallelism())},
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

const jobCount = Number(opts.jobs)
if (!Number.isInteger(jobCount) || jobCount < 1)
  throw new Error(`--jobs ${opts.jobs}: expected a whole number, 1 or more`)
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

const notBuilt = platforms.filter((p) => !p.npm)
for (const p of notBuilt) log(`${p.os}/${p.arch}: not built: ${p.missing}`)
// Runtimes and bundles first, one at a time (they are cached and shared); then the platforms.
const jobs = []
const mtime = releaseTime().getTime()
for (const p of platforms.filter((q) => q.npm)) {
  const runtime = ensureRuntime(p.npm, p.version, log)
  // The blob is made by the same Node release as the runtime it goes into, running here.
  const native = p.npm === host
  const builder = native ? runtime : ensureRuntime(host, p.version, log)
  jobs.push({
    p: {os: p.os, arch: p.arch, version: p.version},
    runtime,
    builder,
    native,
    bundle: await bundle(native),
    dir: join(work, `${p.os}-${p.arch}`),
    out,
    root,
    tag,
    version: pjson.version,
    mtime,
    quiet: opts.quiet,
  })
}
const built = await inParallel(jobs, jobCount)
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

/** SOURCE_DATE_EPOCH when set (reproducible builds), else the last commit's time. */
function releaseTime() {
  const epoch =
    process.env.SOURCE_DATE_EPOCH ??
    execFileSync('git', ['log', '-1', '--format=%ct'], {cwd: root, encoding: 'utf8'}).trim()
  return new Date(Number(epoch) * 1000)
}

/**
 * Each job in a worker thread of its own (platform.mjs), at most `n` at once; the entries in the
 * jobs' order, whatever order they finish in. The first failure stops the packaging.
 */
async function inParallel(list, n) {
  const entries = new Array(list.length)
  let next = 0
  async function lane() {
    while (next < list.length) {
      const i = next++
      entries[i] = await new Promise((resolvePromise, reject) => {
        const worker = new Worker(new URL('./platform.mjs', import.meta.url), {workerData: {job: list[i]}})
        worker.once('message', (m) =>
          m.error
            ? reject(new Error(`${list[i].p.os}/${list[i].p.arch}: ${m.error}`))
            : resolvePromise(m.entry),
        )
        worker.once('error', reject)
        worker.once('exit', (code) =>
          reject(new Error(`${list[i].p.os}/${list[i].p.arch}: worker exited ${code}`)),
        )
      })
    }
  }
  await Promise.all(Array.from({length: Math.min(n, list.length)}, lane))
  return entries
}
