// Gives the ReplicaSets (and their pods) in examples/ the names kube-controller-manager would have
// given them: for each ReplicaSet with a pod-template-hash label, the hash of its template without
// that label, with its Deployment's collisionCount. Every other file that quotes an old name
// (golden outputs, tests, the README) gets the same replacement, so a version bump that changes
// every hash is one command:
//
//   npx tsx scripts/pod-template-hash/rehash-examples.ts [--dry-run]
//
// The v1.36 vectors then no longer cover the examples' current templates until they are checked again outside the repository (scripts/pod-template-hash/README.md).

import {execFileSync} from 'node:child_process'
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {loadWorldFromText} from '../../src/cluster/load/from-text.js'
import {computeHash} from '../../src/controller/controller-utils.js'

const repo = join(import.meta.dirname, '../..')
const dryRun = process.argv.includes('--dry-run')
const LABEL = 'pod-template-hash'

const renames = new Map<string, string>()
for (const file of readdirSync(join(repo, 'examples')).filter((f) => f.endsWith('.yaml'))) {
  const world = loadWorldFromText(readFileSync(join(repo, 'examples', file), 'utf8'), `examples/${file}`)
  for (const rs of world.replicaSets) {
    const old = rs.metadata.labels?.[LABEL]
    if (!old) continue
    const template = structuredClone(rs.spec.template)
    delete template.metadata?.labels?.[LABEL]
    const owner = rs.metadata.ownerReferences?.find((r) => r.controller)
    const d = world.deployments.find(
      (x) => x.metadata.name === owner?.name && x.metadata.namespace === rs.metadata.namespace,
    )
    const hash = computeHash(template, d?.status?.collisionCount)
    const known = renames.get(old)
    if (known !== undefined && known !== hash) throw new Error(`${file}: ${old} maps to ${known} and ${hash}`)
    if (old !== hash) renames.set(old, hash)
    console.error(`${file}: ${rs.metadata.namespace}/${rs.metadata.name}: ${old} -> ${hash}`)
  }
}

if (renames.size > 0) {
  const pattern = new RegExp(`\\b(${[...renames.keys()].join('|')})\\b`, 'g')
  const files = execFileSync('git', ['-C', repo, 'ls-files'], {encoding: 'utf8'})
    .split('\n')
    .filter((f) => f && !f.startsWith('src/') && !f.startsWith('test/fixtures/pod-template-hash/'))
  let changed = 0
  for (const f of files) {
    const path = join(repo, f)
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch {
      continue
    }
    const next = text.replace(pattern, (h) => renames.get(h)!)
    if (next !== text) {
      changed++
      console.error(`${dryRun ? 'would rewrite' : 'rewrote'} ${f}`)
      if (!dryRun) writeFileSync(path, next)
    }
  }
  console.error(`rehash-examples: ${renames.size} hashes renamed in ${changed} files`)
} else console.error('rehash-examples: every example name is already what the controller would choose')
