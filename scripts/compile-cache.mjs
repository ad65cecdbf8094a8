#!/usr/bin/env node
// Build step after the bundle and the manifest: runs representative commands on the bundled
// examples with the compile cache in `write` mode, so that dist/compile-cache/ holds the bytecode
// of what a call runs (src/startup/compile-cache.ts). Each run starts from the cache the previous
// one wrote, so the last files hold everything any of the runs compiled. Failing commands fail
// the build: they would mean the bundle is broken.
import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseAllDocuments} from 'yaml'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
const example = (name) => join(root, 'examples', name)
const now = ['--now', '2026-11-29T10:05:00Z']

// JSON input goes through other functions than YAML input: one run reads a List from stdin.
const items = parseAllDocuments(readFileSync(example('rolling-update.yaml'), 'utf8')).map((d) => d.toJS())
const jsonList = JSON.stringify({apiVersion: 'v1', kind: 'List', items})

const runs = [
  {args: ['--help']},
  {args: ['dry-run', 'sync', '--help']},
  {
    args: [
      'rollout',
      'watch',
      'web',
      '-f',
      example('rolling-update.yaml'),
      '-n',
      'demo',
      '--line-mode',
      ...now,
    ],
  },
  {args: ['reconcile-once', '-f', example('new-deployment.yaml'), '-n', 'demo', '-o', 'yaml', ...now]},
  {args: ['explain', '-f', example('stuck-image-pull.yaml'), '-n', 'demo', ...now]},
  {args: ['explain', '-f', example('rolling-update.yaml'), '-n', 'demo', '-o', 'json', ...now]},
  {args: ['dry-run', 'sync', '-f', '-', '-n', 'demo', '-o', 'json', ...now], input: jsonList},
  {args: ['dry-run', 'sync', '-f', example('rolling-update.yaml'), '-n', 'demo', ...now]},
  {args: ['dry-run', 'sync', '-f', example('rolling-update.yaml'), '-n', 'demo', '-o', 'json', ...now]},
]

const entry = `
const {installCompileCache} = require(${JSON.stringify(join(dist, 'startup', 'compile-cache.cjs'))})
installCompileCache(${JSON.stringify(dist)}, 'write')
require(${JSON.stringify(join(dist, 'main.cjs'))}).execute({dir: ${JSON.stringify(join(root, 'bin'))}, args: JSON.parse(process.env.ARGS)})
`
for (const run of runs) {
  const r = spawnSync(process.execPath, ['-e', entry], {
    cwd: root,
    input: run.input ?? '',
    encoding: 'utf8',
    env: {
      ...process.env,
      ARGS: JSON.stringify(run.args),
      NODE_ENV: 'production',
      NO_COLOR: '1',
      NODE_DISABLE_COMPILE_CACHE: '',
    },
  })
  if (r.status !== 0) {
    console.error(
      `compile cache: \`kubectl-deployctl ${run.args.join(' ')}\` failed (${r.status}):\n${r.stderr}`,
    )
    process.exit(1)
  }
}
