// Property: over random Deployments, valid by construction and then broken by any set of the
// mutations in ./validation-arbitrary.ts, validation refuses exactly the broken ones, naming the
// field each mutation broke: no valid template refused, no broken one accepted.

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {defaultDeployment} from '../../src/cluster/load/defaults.js'
import {formatPath, validateDeployment} from '../../src/cluster/validation/index.js'
import {caseArb, MUTATIONS, shapeArb, validDeployment} from './validation-arbitrary.js'

function fieldsOf(d: Record<string, unknown>): string[] {
  const o = structuredClone(d)
  defaultDeployment(o)
  return validateDeployment(o).map((e) => formatPath(e.path))
}

describe('validation over random templates', () => {
  it('accepts every valid template', () => {
    fc.assert(
      fc.property(shapeArb, (shape) => {
        expect(fieldsOf(validDeployment(shape))).toEqual([])
      }),
      {numRuns: 300, seed: 29_5},
    )
  })

  it('refuses a template exactly when a rule is broken, at each broken field', () => {
    fc.assert(
      fc.property(caseArb, ({deployment, mutations}) => {
        const fields = fieldsOf(deployment)
        expect(fields.length > 0).toBe(mutations.length > 0)
        for (const m of mutations) expect(fields, m.rule).toContain(m.field)
      }),
      {numRuns: 500, seed: 29_5},
    )
  })

  it('every mutation alone breaks its rule on a minimal template', () => {
    for (const make of MUTATIONS) {
      const d = validDeployment({
        containers: [{ports: 0, mounts: [], cpu: undefined, memoryMi: undefined, probe: undefined, env: 0}],
        volumes: 0,
        replicas: 1,
        strategy: 'RollingUpdate',
        maxSurge: 1,
        maxUnavailable: 1,
      })
      const m = make(d)
      m.apply(d)
      expect(fieldsOf(d), m.rule).toContain(m.field)
    }
  })
})
