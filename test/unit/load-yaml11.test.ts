// The fast YAML path's table of YAML 1.1 plain scalars (src/cluster/load/yaml11.ts) against the
// tags of the `yaml` package that the exact reader uses: same tests in the same order, same values.

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {Document, isScalar, type ScalarTag} from 'yaml'
import {YAML_OPTIONS} from '../../src/cluster/load/yaml.js'
import {IMPLICIT_SCALARS} from '../../src/cluster/load/yaml11.js'

const doc = new Document(null, YAML_OPTIONS)
const tags = doc.schema.tags.filter(
  (t): t is ScalarTag & {test: RegExp} => t.default === true && t.test instanceof RegExp,
)

/** What the exact reader makes of a plain scalar: the first tag that matches, else a string. */
function exact(source: string): unknown {
  const tag = tags.find((t) => t.test.test(source))
  if (!tag) return source
  const v = tag.resolve(
    source,
    (msg) => {
      throw new Error(msg)
    },
    doc.options,
  )
  return isScalar(v) ? v.value : v
}

function table(source: string): unknown {
  const s = IMPLICIT_SCALARS.find((t) => t.test.test(source))
  return s ? s.resolve(source) : source
}

describe('YAML 1.1 plain scalars', () => {
  it('has the exact reader tags, in its order', () => {
    expect(IMPLICIT_SCALARS.map((s) => s.test.source)).toEqual(tags.map((t) => t.test.source))
  })

  it.each([
    '',
    '~',
    'null',
    'Null',
    'NULL',
    'nULL',
    'y',
    'Y',
    'yes',
    'On',
    'oN',
    'off',
    'n',
    'FALSE',
    '0',
    '-0',
    '+0',
    '00',
    '0644',
    '0o17',
    '0O17',
    '-0o17',
    '0o',
    '0o_7',
    '0X1f',
    '0B101',
    '0B',
    '.',
    '-.',
    '._',
    'e5',
    '.e5',
    '09',
    '0b101',
    '-0b1_0',
    '0x1F',
    '-0xff',
    '0x',
    '1_000',
    '-1_0',
    '+12',
    '1e3',
    '1.5e-3',
    '-.5E+2',
    '.5',
    '1.',
    '-1.',
    '1_0.0_1',
    '.inf',
    '-.Inf',
    '+.INF',
    '.nan',
    '.NaN',
    'NaN',
    '1:30',
    '1:30.5',
    '2026-01-02',
    '12345678901234567890',
    '0.1.2',
    '1e',
    '+',
    '-',
    '.',
    '_1',
  ])('reads %j as the exact reader does', (source) => {
    expect(Object.is(table(source), exact(source)) || table(source) === exact(source)).toBe(true)
  })

  it('reads generated number-like scalars as the exact reader does (property)', () => {
    const ch = fc.constantFrom(...'0123456789_-+.eExXbBoO:aAfFinIN~ylnt'.split(''))
    fc.assert(
      fc.property(
        fc.array(ch, {maxLength: 12}).map((cs) => cs.join('')),
        (source) => {
          const a = table(source)
          const b = exact(source)
          expect(Object.is(a, b) || a === b).toBe(true)
        },
      ),
      {seed: 20261130, numRuns: 5000},
    )
  })
})
