// The random-template case of issue 29 item 5, counted with a given copy of src/cluster/validation
// (to compare releases of this repository: `git show REV:src/cluster/validation/...` into a
// directory beside a link to src/controller, then --validation that directory):
//  - cases: 260 random Deployments of test/unit/validation-arbitrary.ts (seed 295), valid by
//    construction and then broken by random mutations; per rule, how many broke it and how many of
//    those the validation let through (no error at the broken field), and how many valid ones it
//    refused;
//  - vectors: the random pod templates of the 1.36 golden vectors (random-template.ts, mostly
//    nonsense values) that load as files: how many have a volumeMount naming no volume of the pod
//    and how many of those it let through.
// Prints the counts as JSON.
//
//   npx tsx scripts/validation/random-templates.ts [--validation <dir of src/cluster/validation>]

import {readFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'
import fc from 'fast-check'
import {defaultDeployment} from '../../src/cluster/load/defaults.js'
import {loadWorldFromText} from '../../src/cluster/load/from-text.js'
import {compareQuantities, decodedQuantity} from '../../src/controller/util/quantity.js'
import {caseArb} from '../../test/unit/validation-arbitrary.js'

type Obj = Record<string, unknown>
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
/** The list's objects in place (a non-object entry as {}), so that indexes stay the input's. */
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map((x) => (isObject(x) ? x : {})) : [])

const {values: opts} = parseArgs({options: {validation: {type: 'string'}}})
const dir = resolve(opts.validation ?? join(import.meta.dirname, '../../src/cluster/validation'))
const validation = (await import(pathToFileURL(join(dir, 'index.ts')).href)) as {
  validateDeployment(d: Obj): Array<{path: Array<string | number | {key: string}>}>
}
const fixture = join(import.meta.dirname, '../../test/fixtures/pod-template-hash/vectors.json')
const vectors = (JSON.parse(readFileSync(fixture, 'utf8')) as {vectors: Array<{name: string; template: Obj}>})
  .vectors
const random = vectors.filter((v) => v.name.startsWith('random #'))

function deployment(template: Obj): Obj {
  const t: Obj = isObject(template) ? structuredClone(template) : {}
  t.metadata = {...(isObject(t.metadata) ? t.metadata : {}), labels: {app: 'r'}}
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name: 'r', namespace: 'default'},
    spec: {selector: {matchLabels: {app: 'r'}}, template: t},
  }
}

/** Paths (as text) where the template breaks each of the two rules, by an independent reading. */
function breaches(spec: Obj): {mounts: string[]; requests: string[]} {
  const volumes = new Set(list(spec.volumes).map((v) => v.name))
  const mounts: string[] = []
  const requests: string[] = []
  for (const kind of ['containers', 'initContainers']) {
    list(spec[kind]).forEach((c, i) => {
      list(c.volumeMounts).forEach((m, j) => {
        if (!volumes.has(m.name ?? '')) mounts.push(`${kind}.${i}.volumeMounts.${j}.name`)
      })
      const r = isObject(c.resources) ? c.resources : {}
      const req = isObject(r.requests) ? r.requests : {}
      const lim = isObject(r.limits) ? r.limits : {}
      for (const k of Object.keys(req)) {
        if (lim[k] === undefined) continue
        try {
          if (compareQuantities(decodedQuantity(String(req[k])), decodedQuantity(String(lim[k]))) > 0)
            requests.push(`${kind}.${i}.resources.requests`)
        } catch {}
      }
    })
  }
  return {mounts, requests: [...new Set(requests)]}
}

const counts = {random: random.length, loads: 0, accepted: 0, mountNoVolume: 0, mountNoVolumeLetThrough: 0}
for (const v of random) {
  const d = deployment(v.template)
  try {
    // Decoding only (types, quantities): validation is measured below with the module given.
    loadWorldFromText(JSON.stringify(d), 'r.json', {validate: 'ignore'})
  } catch {
    continue
  }
  counts.loads++
  defaultDeployment(d)
  const errs = validation.validateDeployment(d)
  if (errs.length === 0) counts.accepted++
  const at = new Set(
    errs.map((e) =>
      e.path
        .slice(3)
        .map((p) => (typeof p === 'object' ? p.key : String(p)))
        .join('.'),
    ),
  )
  const tspec = ((d.spec as Obj).template as Obj).spec
  const b = breaches(isObject(tspec) ? tspec : {})
  if (b.mounts.length > 0) {
    counts.mountNoVolume++
    if (!b.mounts.every((p) => at.has(p))) counts.mountNoVolumeLetThrough++
  }
}
const fieldText = (p: Array<string | number | {key: string}>) => {
  let out = ''
  for (const e of p) {
    if (typeof e === 'number') out += `[${e}]`
    else if (typeof e === 'string') out += out === '' ? e : `.${e}`
    else out += `[${e.key}]`
  }
  return out
}
const rules: Record<string, {broken: number; letThrough: number}> = {}
let validRefused = 0
let valid = 0
for (const c of fc.sample(caseArb, {numRuns: 260, seed: 295})) {
  const d = structuredClone(c.deployment)
  defaultDeployment(d)
  const fields = new Set(validation.validateDeployment(d).map((e) => fieldText(e.path)))
  if (c.mutations.length === 0) {
    valid++
    if (fields.size > 0) validRefused++
  }
  for (const m of c.mutations) {
    const r = (rules[m.rule] ??= {broken: 0, letThrough: 0})
    r.broken++
    if (!fields.has(m.field)) r.letThrough++
  }
}
console.log(JSON.stringify({cases: {total: 260, valid, validRefused, rules}, vectors: counts}, null, 1))
