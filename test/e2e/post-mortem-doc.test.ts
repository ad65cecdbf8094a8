// docs/post-mortem.md runs as written: each `kubectl deployctl ...` block is run through the built CLI
// on the shipped recording, exits 0, and prints the lines its output block shows, in that order
// (`...` stands for lines left out).

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {cli, ROOT} from './helpers.js'

interface Step {
  command: string
  expected: string[]
}

/** Each ```sh block of one `kubectl deployctl` command and the ```text block after it. */
function steps(markdown: string): Step[] {
  const out: Step[] = []
  const blocks = [...markdown.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1],
    body: m[2] ?? '',
  }))
  blocks.forEach((b, i) => {
    if (b.lang !== 'sh') return
    const next = blocks[i + 1]
    if (next?.lang !== 'text') throw new Error(`no output block after ${b.body}`)
    out.push({command: b.body.trim(), expected: next.body.replace(/\n$/, '').split('\n')})
  })
  return out
}

/** Whether `expected` (with `...` gaps) are lines of `actual`, in order; the first line missing otherwise. */
function missing(actual: string[], expected: string[]): string | undefined {
  let at = 0
  let gap = true
  for (const line of expected) {
    if (line === '...') {
      gap = true
      continue
    }
    const found = gap ? actual.indexOf(line, at) : actual[at] === line ? at : -1
    if (found < 0) return line
    at = found + 1
    gap = false
  }
  return undefined
}

const doc = readFileSync(join(ROOT, 'docs/post-mortem.md'), 'utf8')

describe('docs/post-mortem.md', () => {
  const all = steps(doc)

  it('has the walkthrough of the shipped recording', () => {
    expect(all.length).toBe(5)
    for (const s of all) expect(s.command).toContain('-f examples/post-mortem.ndjson')
  })

  for (const step of all) {
    it(step.command, () => {
      const args = step.command.split(/\s+/)
      expect(args.slice(0, 2)).toEqual(['kubectl', 'deployctl'])
      const r = cli(args.slice(2), {env: {COLUMNS: '100'}})
      expect(r.code).toBe(0)
      expect(missing(r.stdout.trimEnd().split('\n'), step.expected)).toBeUndefined()
    })
  }
})
