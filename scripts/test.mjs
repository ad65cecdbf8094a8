#!/usr/bin/env node
// `npm test` after the build: the type check and the lint run beside vitest rather than before it.
// On two cores the suite keeps both busy but for its first and last seconds, and tsc alone took
// ~12 s of wall before vitest started (issue 30: the whole `npm test` under 8 minutes on 2 cores).
// vitest's output is live; the other two are printed when vitest is done, in a fixed order, and the
// script fails if any of the three failed. Arguments go to vitest (`npm test -- test/e2e/x.test.ts`).
import {spawn} from 'node:child_process'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = (...p) => join(root, 'node_modules', ...p)

/** Runs a Node script; its output is kept (capture) or goes straight to ours. */
function run(name, script, args, capture) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: root,
      stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    })
    const chunks = []
    if (capture) {
      child.stdout.on('data', (d) => chunks.push(d))
      child.stderr.on('data', (d) => chunks.push(d))
    }
    child.on('error', (err) => resolve({name, code: 1, output: `${name}: ${err.message}\n`}))
    child.on('close', (code, signal) =>
      resolve({name, code: code ?? 1, signal, output: Buffer.concat(chunks).toString()}),
    )
  })
}

const checks = [
  run('typecheck (tsc --noEmit)', bin('typescript', 'bin', 'tsc'), ['--noEmit', '-p', '.'], true),
  run(
    'lint (biome check)',
    bin('@biomejs', 'biome', 'bin', 'biome'),
    ['check', 'src', 'test', 'scripts', 'bench'],
    true,
  ),
]
const tests = await run('vitest', bin('vitest', 'vitest.mjs'), ['run', ...process.argv.slice(2)], false)
let failed = tests.code !== 0
for (const r of await Promise.all(checks)) {
  const ok = r.code === 0
  failed ||= !ok
  process.stdout.write(`\n${r.name}: ${ok ? 'passed' : `FAILED (exit ${r.signal ?? r.code})`}\n`)
  if (!ok || r.output.trim() !== '')
    process.stdout.write(r.output.endsWith('\n') ? r.output : `${r.output}\n`)
}
process.exitCode = failed ? 1 : 0
