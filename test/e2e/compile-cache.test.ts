// The build-time V8 code cache (src/startup/compile-cache.ts), tested on the built module: on a
// small stand-in for dist/ for what V8 accepts and refuses, and on the real build for what a call
// of the shipped CLI gets.

import {spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {cli, ROOT} from './helpers.js'

const MODULE = join(ROOT, 'dist', 'startup', 'compile-cache.cjs')

interface Run {
  stdout: string
  stderr: string
  status: number | null
  hits: string[]
  misses: string[]
}

/** Runs `main` (a file under `dist`) in a fresh node with the cache installed; returns its stats. */
function runWithCache(dist: string, main: string, mode: 'read' | 'write', env: NodeJS.ProcessEnv = {}): Run {
  const script = `
    const stats = require(${JSON.stringify(MODULE)}).installCompileCache(${JSON.stringify(dist)}, ${JSON.stringify(mode)})
    process.on('exit', () => process.stderr.write('\\nSTATS' + JSON.stringify(stats) + '\\n'))
    require(${JSON.stringify(join(dist, main))})
  `
  const r = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    env: {...process.env, NODE_DISABLE_COMPILE_CACHE: '', ...env},
  })
  const line = /\nSTATS(.*)\n/.exec(r.stderr)
  const {hits, misses} = JSON.parse(line?.[1] ?? '{"hits":[],"misses":[]}')
  return {stdout: r.stdout, stderr: r.stderr.replace(/\nSTATS.*\n/, ''), status: r.status, hits, misses}
}

function fakeDist(): string {
  const dist = mkdtempSync(join(tmpdir(), 'deployctl-cc-'))
  writeFileSync(
    join(dist, 'main.cjs'),
    `const {sum} = require('./lib.cjs')
     console.log(sum([1, 2, 3]), require('node:path').basename(__filename), require.resolve('./lib.cjs') === __dirname + '/lib.cjs')
     if (process.env.THROW) require('./lib.cjs').fail()\n`,
  )
  writeFileSync(
    join(dist, 'lib.cjs'),
    `exports.sum = (xs) => xs.reduce((a, b) => a + b, 0)\nexports.fail = () => {\n  throw new Error('boom')\n}\n`,
  )
  return dist
}

describe('compile cache', () => {
  it('write mode leaves a cache per file, and read mode compiles from it with the same result', () => {
    const dist = fakeDist()
    const cold = runWithCache(dist, 'main.cjs', 'read')
    expect(cold.stdout).toBe('6 main.cjs true\n')
    expect(cold.misses.map((f) => f.slice(dist.length + 1))).toEqual(['main.cjs', 'lib.cjs'])
    expect(existsSync(join(dist, 'compile-cache', 'main.cjs.bin'))).toBe(false)

    const write = runWithCache(dist, 'main.cjs', 'write')
    expect(write.stdout).toBe('6 main.cjs true\n')
    expect(existsSync(join(dist, 'compile-cache', 'main.cjs.bin'))).toBe(true)
    expect(existsSync(join(dist, 'compile-cache', 'lib.cjs.bin'))).toBe(true)

    const warm = runWithCache(dist, 'main.cjs', 'read')
    expect(warm.stdout).toBe('6 main.cjs true\n')
    expect(warm.hits.map((f) => f.slice(dist.length + 1))).toEqual(['main.cjs', 'lib.cjs'])
    expect(warm.misses).toEqual([])
  })

  it('falls back to compiling when V8 refuses a cache: changed source, garbage bytes', () => {
    const dist = fakeDist()
    runWithCache(dist, 'main.cjs', 'write')
    writeFileSync(join(dist, 'lib.cjs'), 'exports.sum = (xs) => xs.length * 100\n')
    writeFileSync(join(dist, 'compile-cache', 'main.cjs.bin'), Buffer.from('not a code cache at all'))
    const r = runWithCache(dist, 'main.cjs', 'read')
    expect(r.stdout).toBe('300 main.cjs true\n')
    expect(r.hits).toEqual([])
    expect(r.misses).toHaveLength(2)
  })

  it('keeps file names and lines in stack traces of cached files', () => {
    const dist = fakeDist()
    runWithCache(dist, 'main.cjs', 'write')
    const r = runWithCache(dist, 'main.cjs', 'read', {THROW: '1'})
    expect(r.status).toBe(1)
    expect(r.hits).toHaveLength(2)
    expect(r.stderr).toContain('Error: boom')
    expect(r.stderr).toContain(`${join(dist, 'lib.cjs')}:3:`)
  })

  it("reaches an ES module through startup/import-esm.cjs without Node's experimental warning", () => {
    const dist = fakeDist()
    mkdirSync(join(dist, 'startup'))
    cpSync(join(ROOT, 'dist', 'startup', 'import-esm.cjs'), join(dist, 'startup', 'import-esm.cjs'))
    writeFileSync(join(dist, 'esm.mjs'), 'export const answer = 42\n')
    writeFileSync(
      join(dist, 'via-helper.cjs'),
      `require('./startup/import-esm.cjs').importFrom(__dirname, './esm.mjs').then((m) => console.log(m.answer))\n`,
    )
    runWithCache(dist, 'via-helper.cjs', 'write')

    const viaHelper = runWithCache(dist, 'via-helper.cjs', 'read')
    expect(viaHelper.stdout).toBe('42\n')
    expect(viaHelper.hits.map((f) => f.slice(dist.length + 1))).toEqual(['via-helper.cjs'])
    expect(viaHelper.stderr).toBe('')
  })

  it('is off with NODE_DISABLE_COMPILE_CACHE, as in Node 22', () => {
    const dist = fakeDist()
    runWithCache(dist, 'main.cjs', 'write')
    const r = runWithCache(dist, 'main.cjs', 'read', {NODE_DISABLE_COMPILE_CACHE: '1'})
    expect(r.stdout).toBe('6 main.cjs true\n')
    expect(r.hits).toEqual([])
    expect(r.misses).toEqual([])
  })

  it('serves every file a small-file dry-run of the shipped build loads, with the same output', () => {
    // A copy of the package (the bundle needs no node_modules): the run cannot change the real cache.
    const root = mkdtempSync(join(tmpdir(), 'deployctl-cc-pkg-'))
    for (const f of ['dist', 'package.json', 'oclif.manifest.json'])
      cpSync(join(ROOT, f), join(root, f), {recursive: true})
    const dist = join(root, 'dist')
    writeFileSync(
      join(dist, 'shim.cjs'),
      `require('./main.cjs').execute({dir: ${JSON.stringify(root)}, args: JSON.parse(process.env.ARGS)})\n`,
    )
    const example = join(ROOT, 'examples', 'rolling-update.yaml')
    const args = [
      'dry-run',
      'sync',
      '-f',
      example,
      '-n',
      'demo',
      '-o',
      'json',
      '--now',
      '2026-11-29T10:05:00Z',
    ]
    const r = runWithCache(dist, 'shim.cjs', 'read', {ARGS: JSON.stringify(args), NODE_ENV: 'production'})
    expect(r.status).toBe(0)
    // The shim is not part of the build; everything else is.
    expect(r.misses.map((f) => f.slice(dist.length + 1))).toEqual(['shim.cjs'])
    expect(r.hits.length).toBeGreaterThan(10)
    expect(r.hits.some((f) => f.includes(join('commands', 'dry-run', 'sync.cjs')))).toBe(true)
    const plain = cli(args, {env: {NODE_DISABLE_COMPILE_CACHE: '1'}})
    expect(plain.code).toBe(0)
    expect(r.stdout).toBe(plain.stdout)
    expect(JSON.parse(r.stdout).items).toHaveLength(1)
  })
})
