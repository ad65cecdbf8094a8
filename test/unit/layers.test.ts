// The layer rule of docs/architecture.md, held on the import graph: every import of src/
// runs downward (scripts/check-layers.mjs lists the layers).

import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
// @ts-expect-error: a plain ES module script, without types
import {LAYERS, layerViolations} from '../../scripts/check-layers.mjs'

const ROOT = join(import.meta.dirname, '../..')

describe('layers', () => {
  it('no import of src/ runs from a lower layer to a higher one, or sideways', () => {
    expect(layerViolations(ROOT)).toEqual([])
  })

  it('names every top-level part of src/ in one layer', async () => {
    const {readdirSync} = await import('node:fs')
    const parts = readdirSync(join(ROOT, 'src')).filter((p: string) => p !== 'startup')
    const listed = (LAYERS as string[][]).flat()
    expect(parts.filter((p: string) => !listed.includes(p))).toEqual([])
  })
})
