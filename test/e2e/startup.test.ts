// What a file-mode call loads. Start-up time is the benchmark's business (npm run bench); these
// tests keep the decisions behind it from quietly coming undone: no ESM loader, none of the Node
// modules that only live mode, colours or DEBUG need, and the stand-ins for oclif's on-demand
// packages still doing their job when they are needed.

import {spawnSync} from 'node:child_process'
import {closeSync, mkdtempSync, openSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, cli, ROOT} from './helpers.js'

/** Runs the CLI and returns the Node-internal modules and the files it loaded. */
function loaded(args: string[]): {builtins: string[]; files: string[]; code: number | null} {
  const dir = mkdtempSync(join(tmpdir(), 'deployctl-startup-'))
  const out = join(dir, 'loaded.json')
  const preload = join(dir, 'preload.cjs')
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({
      builtins: process.moduleLoadList,
      files: Object.keys(require.cache),
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
  const {builtins, files} = JSON.parse(readFileSync(out, 'utf8')) as {builtins: string[]; files: string[]}
  return {builtins, files, code: r.status}
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
    const {builtins, files, code} = loaded(small)
    expect(code).toBe(0)
    const names = builtins.map((m) => m.replace(/^NativeModule /, ''))
    // Node's ESM loader starts only for an ES module (or an import()).
    expect(names).not.toContain('internal/modules/esm/module_job')
    for (const m of ['tty', 'net', 'crypto', 'http', 'https', 'tls']) expect(names).not.toContain(m)
    expect(files.every((f) => !f.endsWith('.mjs'))).toBe(true)
    // Everything comes from the bundle: no package is read from node_modules.
    expect(files.filter((f) => f.includes('node_modules'))).toEqual([])
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
})
