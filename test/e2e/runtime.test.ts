// The runtime the project is developed and tested on: the Node of the `node` devDependency, which
// npm scripts and npx put first on the PATH. Held here where it matters: the test process (the e2e
// tests start the CLI with process.execPath), `#!/usr/bin/env node` (how a shell, kubectl and
// npm's bin link start it), and bin/run.cjs turning away a Node older than package.json allows.

import {execFileSync, spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, ROOT} from './helpers.js'

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: {node: string}
  devDependencies: Record<string, string>
}
const pinned = (
  JSON.parse(readFileSync(join(ROOT, 'node_modules', 'node', 'package.json'), 'utf8')) as {version: string}
).version

/** A Node on this machine older than engines allows (the system Node here), if there is one. */
function olderNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      const v = execFileSync(candidate, ['-p', 'process.versions.node'], {encoding: 'utf8'}).trim()
      const [major, minor] = v.split('.').map(Number) as [number, number]
      if (major < 22 || (major === 22 && minor < 19)) return candidate
    } catch {}
  }
  return undefined
}
const older = olderNode()

describe('runtime', () => {
  it('is Node 24, the one the node devDependency installs', () => {
    expect(pkg.devDependencies.node).toMatch(/^\^24\./)
    expect(pinned).toMatch(/^24\./)
    expect(process.version).toBe(`v${pinned}`)
  })

  it('starts the CLI through #!/usr/bin/env node on the same Node', () => {
    const env = {...process.env, NODE_ENV: 'production', NO_COLOR: '1'}
    expect(
      execFileSync('/usr/bin/env', ['node', '-p', 'process.version'], {env, encoding: 'utf8'}).trim(),
    ).toBe(process.version)
    // oclif's --version names the Node it runs on.
    const r = spawnSync(BIN, ['--version'], {cwd: ROOT, env, encoding: 'utf8'})
    expect(r.status).toBe(0)
    expect(r.stdout).toContain(`node-v${pinned}`)
  })

  it.skipIf(older === undefined)('turns away a Node older than engines allows, in one line', () => {
    const minimum = /^>=(\d+\.\d+)$/.exec(pkg.engines.node)?.[1]
    expect(minimum).toBeDefined()
    const r = spawnSync(older!, [BIN, 'dry-run', 'sync', '-f', 'examples/rolling-update.yaml'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
    expect(r.status).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(
      new RegExp(`^error: kubectl deployctl needs Node.js ${minimum} or newer, this is v[\\d.]+\\n$`),
    )
  })
})
