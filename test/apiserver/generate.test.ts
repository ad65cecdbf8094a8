// `npm run apiserver -- --generate N`: a synthetic cluster to measure at scale (issue 30 item 5),
// written by the generator the benchmarks use (../shared/bench/gen-cluster.mjs, beside the project).

import {spawn, spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '../..')
const tsx = join(ROOT, 'node_modules/.bin/tsx')
const main = join(ROOT, 'test/apiserver/main.ts')
const GENERATOR = [join(ROOT, '../shared/bench/gen-cluster.mjs'), '/work/shared/bench/gen-cluster.mjs'].some(
  existsSync,
)

describe('npm run apiserver -- --generate', () => {
  it('refuses counts that are not whole numbers, and --namespaces without --generate', () => {
    const bad = spawnSync(tsx, [main, '--generate', 'many'], {encoding: 'utf8'})
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain('--generate: want a whole number of at least 1, got "many"')
    const alone = spawnSync(tsx, [main, '--namespaces', '3'], {encoding: 'utf8'})
    expect(alone.status).toBe(2)
    expect(alone.stderr).toContain('--namespaces and --seed need --generate N')
  })

  // The generator lives beside the project (../shared), not in it: without it there is nothing to run.
  it.skipIf(!GENERATOR)(
    'serves N Deployments over the namespaces asked for, with their ReplicaSets and pods',
    async () => {
      const child = spawn(
        tsx,
        [main, '--port', '0', '--generate', '30', '--namespaces', '3', '--seed', '7'],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      )
      try {
        let out = ''
        child.stdout.setEncoding('utf8').on('data', (c: string) => {
          out += c
        })
        const deadline = Date.now() + 60_000
        let url: string | undefined
        while (!(url = /listening on (\S+)/.exec(out)?.[1])) {
          if (Date.now() > deadline) throw new Error('the server did not start')
          await new Promise((r) => setTimeout(r, 50))
        }
        const list = async (path: string) =>
          ((await (await fetch(`${url}${path}`)).json()) as {items: Array<{metadata: {namespace: string}}>})
            .items
        const deployments = await list('/apis/apps/v1/deployments')
        expect(deployments).toHaveLength(30)
        expect(new Set(deployments.map((d) => d.metadata.namespace)).size).toBe(3)
        expect((await list('/apis/apps/v1/replicasets')).length).toBeGreaterThanOrEqual(30)
        expect((await list('/api/v1/pods')).length).toBeGreaterThan(30)
      } finally {
        child.kill('SIGTERM')
        await new Promise((r) => child.once('close', r))
      }
    },
    90_000,
  )
})
