#!/usr/bin/env node
// The layer rule of src/ (docs/architecture.md): data flows one way, so a module imports only from
// its own folder or from a lower layer, never upward and never sideways into a sibling of the same
// layer. `node scripts/check-layers.mjs` prints each import that breaks the rule and exits 1;
// test/unit/layers.test.ts runs the same check, so the rule stays true.

import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'

/** Lowest first. A part is a top-level folder (or file) of src/. */
export const LAYERS = [
  ['util', 'errors.ts'],
  ['controller'],
  ['cluster'],
  ['pass'],
  ['status'],
  ['sim', 'explain', 'run'],
  ['watch', 'plan'],
  ['render'],
  ['cli', 'completion'],
  ['commands', 'main.ts'],
]

/** Parts that stand apart: they import nothing else of src/, and nothing imports them. */
export const STANDALONE = ['startup']

/** Parts that import nothing of src/ beyond themselves and these (the pure port: no I/O, no flags). */
const ISOLATED = new Map([
  ['controller', ['util']],
  ['util', []],
  ['errors.ts', []],
])

const rank = new Map(LAYERS.flatMap((parts, i) => parts.map((p) => [p, i])))

function partOf(srcRel) {
  const first = srcRel.split('/')[0]
  // A top-level module: `errors.js` in an import is src/errors.ts.
  return first === srcRel ? first.replace(/\.js$/, '.ts') : first
}

function* sourceFiles(dir) {
  for (const e of readdirSync(dir, {withFileTypes: true})) {
    const p = join(dir, e.name)
    if (e.isDirectory()) yield* sourceFiles(p)
    else if (/\.(ts|tsx|cjs|mjs)$/.test(e.name)) yield p
  }
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s*['"]([^'"]+)['"]/gm

/** The imports of src/ that break the layer rule, as `from -> to: why`. */
export function layerViolations(root) {
  const src = resolve(root, 'src')
  const problems = []
  for (const file of sourceFiles(src)) {
    const from = relative(src, file)
    const fromPart = partOf(from)
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3]
      if (!spec?.startsWith('.')) continue
      const to = relative(src, resolve(dirname(file), spec))
      if (to.startsWith('..')) {
        problems.push(`${from} -> ${spec}: imports from outside src/`)
        continue
      }
      const toPart = partOf(to)
      if (toPart === fromPart) continue
      const why = judge(fromPart, toPart)
      if (why) problems.push(`src/${from} -> src/${to.replace(/\.(js|ts|tsx)$/, '')}: ${why}`)
    }
  }
  return problems
}

function judge(fromPart, toPart) {
  if (STANDALONE.includes(fromPart) || STANDALONE.includes(toPart))
    return `${fromPart} and ${toPart} stand apart`
  const allowed = ISOLATED.get(fromPart)
  if (allowed && !allowed.includes(toPart))
    return `${fromPart} imports nothing outside itself${allowed.length > 0 ? ` but ${allowed.join(', ')}` : ''}`
  if (allowed) return undefined
  const a = rank.get(fromPart)
  const b = rank.get(toPart)
  if (a === undefined) return `${fromPart} is not in the layer list (scripts/check-layers.mjs)`
  if (b === undefined) return `${toPart} is not in the layer list (scripts/check-layers.mjs)`
  if (b > a) return `${fromPart} (layer ${a}) imports upward from ${toPart} (layer ${b})`
  if (b === a) return `${fromPart} and ${toPart} are siblings of one layer`
  return undefined
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = layerViolations(resolve(dirname(new URL(import.meta.url).pathname), '..'))
  for (const p of problems) console.log(p)
  if (problems.length > 0) {
    console.log(`${problems.length} import(s) break the layer rule`)
    process.exit(1)
  }
  console.log('layers: every import runs downward')
}
