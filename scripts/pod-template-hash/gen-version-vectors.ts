// Golden vectors for the minors other than 1.36, written by this repository's own go-spew printer
// over each minor's type table (no Go, no upstream code runs):
//  - every template of the Go-computed 1.36 vectors (vectors.json) that the minor's types can hold
//    (no key its core/v1 does not declare), referenced by name;
//  - 120 random templates from the seeded generator walking the minor's own table (so its own
//    types, such as 1.35's WorkloadReference, are exercised).
// The unit test re-derives each shared template's text from the Go-checked 1.36 text by the type
// tables' difference (docs/fidelity.md says what that proves and what it does not).
//
//   npx tsx scripts/pod-template-hash/gen-version-vectors.ts [--random 120]

import {createHash} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {parseArgs} from 'node:util'
import {
  computePodTemplateHash,
  hashTypeDataFor,
  podTemplateSpew,
} from '../../src/controller/util/pod-template-hash.js'
import {unknownTemplateFields} from '../../src/controller/util/template-fields.js'
import type {KubeMinor} from '../../src/controller/version.js'
import {randomTemplateGenerator} from './random-template.js'

const {values: opts} = parseArgs({options: {random: {type: 'string', default: '120'}}})
const dir = join(import.meta.dirname, '../../test/fixtures/pod-template-hash')
const go = JSON.parse(readFileSync(join(dir, 'vectors.json'), 'utf8')) as {
  vectors: Array<{name: string; template: unknown}>
}
const COLLISIONS = [0, 1, 2147483647]
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

for (const minor of [33, 34, 35] as KubeMinor[]) {
  const seed = 20261200 + minor
  const vector = (template: unknown) => {
    const text = podTemplateSpew(template, minor)
    return {
      spewLength: Buffer.byteLength(text),
      spewSha256: sha256(text),
      hash: computePodTemplateHash(template, undefined, minor),
      collisions: Object.fromEntries(
        COLLISIONS.map((c) => [String(c), computePodTemplateHash(template, c, minor)]),
      ),
    }
  }
  const vectors: object[] = []
  let shared = 0
  for (const v of go.vectors) {
    if (unknownTemplateFields(v.template, minor).length > 0) continue
    vectors.push({name: v.name, from: 'v1.36', ...vector(v.template)})
    shared++
  }
  const next = randomTemplateGenerator(hashTypeDataFor(minor), seed)
  const count = Number(opts.random)
  for (let i = 0; i < count; i++) {
    const template = next()
    vectors.push({name: `random #${i} (seed ${seed})`, template, ...vector(template)})
  }
  const out = {
    kubernetes: `1.${minor}`,
    source: hashTypeDataFor(minor).source,
    derivation:
      'TypeScript go-spew printer over this minor’s type table (scripts/pod-template-hash/gen-version-vectors.ts); not computed by Go',
    collisionCounts: COLLISIONS,
    vectors,
  }
  const file = join(dir, `vectors-v1.${minor}.json`)
  writeFileSync(file, `${JSON.stringify(out)}\n`)
  console.error(`1.${minor}: ${shared} shared with 1.36, ${count} random -> ${file}`)
}
