// What a file-mode call loads. Start-up time is the benchmark's business (npm run bench); these
// tests keep the decisions behind it from quietly coming undone: no ES module, none of the Node
// modules that only live mode, colours or DEBUG need, the stand-ins for oclif's on-demand packages
// still doing their job when they are needed, and the code cache (Node's compile cache beside it)
// switched on.

import {spawnSync} from 'node:child_process'
import {closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, cli, ROOT} from './helpers.js'

interface Loaded {
  builtins: string[]
  /** Every module file Node loaded, with the format it loaded it as (commonjs, module, json...). */
  modules: Array<{url: string; format: string}>
  code: number | null
}

/** Runs the CLI and returns the Node-internal modules and the files it loaded. */
function loaded(args: string[]): Loaded {
  const dir = mkdtempSync(join(tmpdir(), 'deployctl-startup-'))
  const out = join(dir, 'loaded.json')
  const preload = join(dir, 'preload.cjs')
  // Node's module hooks see CommonJS and ES modules alike (process.moduleLoadList no longer
  // tells: Node 24 starts with its ESM loader's modules already in the snapshot).
  writeFileSync(
    preload,
    `const modules = []
    require('node:module').registerHooks({
      load(url, context, nextLoad) {
        const r = nextLoad(url, context)
        if (url.startsWith('file:')) modules.push({url, format: r.format})
        return r
      },
    })
    process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({
      builtins: process.moduleLoadList,
      modules,
    })))\n`,
  )
  // Output to files, as in `> out.json 2> err.txt`: a pipe would be a net.Socket and load net itself
  // (oclif reads stderr's window size at start-up).
  const stdout = openSync(join(dir, 'stdout'), 'w')
  const r = spawnSync(process.execPath, ['--require', preload, BIN, ...args], {
    cwd: ROOT,
    stdio: ['ignore', stdout, stdout],
    env: {...process.env, NODE_ENV: 'production', DEBUG: '', NO_COLOR: '1'},
  })
  closeSync(stdout)
  const {builtins, modules} = JSON.parse(readFileSync(out, 'utf8')) as Omit<Loaded, 'code'>
  rmSync(dir, {recursive: true, force: true})
  return {builtins, modules, code: r.status}
}

const small = [
  'dry-run',
  'sync',
  '-f',
  join(ROOT, 'examples', 'rolling-update.yaml'),
  '-n',
  'demo',
  '-o',
  'json',
]

describe('a file-mode call', () => {
  it('loads CommonJS only, and none of what live mode, colours or DEBUG need', () => {
    const {builtins, modules, code} = loaded(small)
    expect(code).toBe(0)
    const names = builtins.map((m) => m.replace(/^NativeModule /, ''))
    for (const m of ['tty', 'net', 'crypto', 'http', 'https', 'tls']) expect(names).not.toContain(m)
    // oclif's fs/promises, readline and lilconfig (which reads fs.promises) wait behind stand-ins:
    // fs/promises alone brings readline's internals and the fs watchers, ~11 modules.
    for (const m of ['fs/promises', 'internal/fs/promises', 'readline', 'internal/readline/interface'])
      expect(names).not.toContain(m)
    // dist/ comes as one bundle (scripts/bundle.mjs, pass 3), behind the stand-ins for the files
    // that bin/run.cjs and oclif require by name: a file costs Node's loader ~0.13 ms.
    const dist = modules.filter((m) => m.url.includes('/dist/')).map((m) => m.url.replace(/^.*\/dist\//, ''))
    expect(dist).toContain('bundle.cjs')
    // Five, and esbuild's helpers chunk (~3.5 KB), which shell completion shares outside the bundle.
    expect(dist.length).toBeLessThanOrEqual(6)
    expect(modules.filter((m) => m.format !== 'commonjs')).toEqual([])
    // Everything comes from the bundle: no package is read from node_modules.
    expect(modules.filter((m) => m.url.includes('node_modules'))).toEqual([])
  })

  it('shell completion from the manifest reads no bundle: three small files of dist/', () => {
    const {modules, code} = loaded(['__complete', 'dry-run', 'sync', '--o'])
    expect(code).toBe(0)
    const dist = modules.filter((m) => m.url.includes('/dist/')).map((m) => m.url.replace(/^.*\/dist\//, ''))
    expect(dist).toContain('completion/main.cjs')
    expect(dist).not.toContain('bundle.cjs')
    expect(dist.filter((f) => f.startsWith('chunks/kube-'))).toEqual([])
  })

  it('still prints oclif debug lines under DEBUG, through the real debug package', () => {
    const r = cli(['--version'], {env: {DEBUG: 'oclif:main'}})
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/oclif:main process\.argv/)
  })

  it('still colours help when colours are forced, through the real supports-color', () => {
    const r = cli(['--help'], {env: {NO_COLOR: '', FORCE_COLOR: '1'}})
    expect(r.code).toBe(0)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: an ANSI escape is what is looked for
    expect(r.stdout).toMatch(/\u001b\[1mVERSION/)
  })

  it("keeps the bundle's code, with the functions a call compiled, in a code cache beside Node's compile cache", () => {
    const tmp = mkdtempSync(join(tmpdir(), 'deployctl-cc-'))
    try {
      const {NODE_COMPILE_CACHE: _, ...rest} = process.env
      const run = (env: NodeJS.ProcessEnv = {}) => {
        const r = spawnSync(process.execPath, [BIN, ...small, '--now', '2026-11-29T10:05:00Z'], {
          cwd: ROOT,
          encoding: 'utf8',
          env: {...rest, TMPDIR: tmp, NODE_ENV: 'production', NO_COLOR: '1', ...env},
        })
        expect(r.stderr).toBe('')
        expect(r.status).toBe(0)
        return r.stdout
      }
      const base = join(tmp, 'node-compile-cache')
      /** The code cache's files (src/startup/code-cache.cjs): one directory per Node version and build. */
      const cacheFiles = () => {
        let dirs: string[]
        try {
          dirs = readdirSync(base).filter((d) => d.startsWith('kubectl-deployctl-'))
        } catch {
          return []
        }
        return dirs.flatMap((d) => readdirSync(join(base, d)).map((f) => join(base, d, f)))
      }
      // Without the code cache, Node's own loader runs dist/bundle.cjs, which is written as the
      // module wrapper around its code calling itself (scripts/bundle.mjs): the same output.
      const plain = run({NODE_DISABLE_COMPILE_CACHE: '1'})
      expect(cacheFiles()).toEqual([])

      const first = run()
      expect(first).toBe(plain)
      expect(JSON.parse(first).kind).toBe('SyncResult')
      const files = cacheFiles()
      // The bundle's cache is per command: what `dry-run sync` compiled is no load on `--version`.
      expect(files.some((f) => f.endsWith('bundle.cjs~dry-run-sync'))).toBe(true)
      expect(files.some((f) => f.endsWith('bundle.cjs~root'))).toBe(false)
      // A call with the cache prints the same; a cache V8 rejects (here, not a cache at all) is
      // made again, and the call still prints the same.
      expect(run()).toBe(first)
      for (const f of files) writeFileSync(f, 'not a code cache')
      expect(run()).toBe(first)
      expect(files.filter((f) => readFileSync(f, 'utf8') === 'not a code cache')).toEqual([])
      const version = spawnSync(process.execPath, [BIN, '--version'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: {...rest, TMPDIR: tmp, NODE_ENV: 'production'},
      })
      expect(version.status).toBe(0)
      expect(cacheFiles().some((f) => f.endsWith('bundle.cjs~root'))).toBe(true)

      // `run` keeps V8's own tiering (bin/run.cjs), other calls a short call's, and V8 rejects a
      // cache made under other flags: alternating the two must not make either rewrite the
      // other's caches (dist/main.cjs, which every call loads, was rewritten at every turn).
      const runHelp = () =>
        expect(
          spawnSync(process.execPath, [BIN, 'run', '--help'], {
            cwd: ROOT,
            encoding: 'utf8',
            env: {...rest, TMPDIR: tmp, NODE_ENV: 'production'},
          }).status,
        ).toBe(0)
      runHelp()
      run()
      const contents = () => new Map(cacheFiles().map((f) => [f, readFileSync(f).toString('base64')]))
      const before = contents()
      runHelp()
      run()
      runHelp()
      expect(contents()).toEqual(before)
    } finally {
      rmSync(tmp, {recursive: true, force: true})
    }
  })
})
