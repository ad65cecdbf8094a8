// Which of the bundle's code caches a command line uses (src/startup/code-cache.cjs): one per
// command, so that what one command compiled is not deserialized by another at every start. And
// the text it compiles for a file: the wrapper that dist/bundle.cjs and client-node's chunk carry,
// or Node's around any other.

import {readdirSync, readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {runInThisContext} from 'node:vm'
import {describe, expect, it} from 'vitest'

const require = createRequire(import.meta.url)
const {variantOf, wrapped, WRAPPED_HEAD, WRAPPED_TAIL} = require('../../src/startup/code-cache.cjs') as {
  variantOf: (argv: string[], commands: string[]) => string
  wrapped: (content: string) => string
  WRAPPED_HEAD: string
  WRAPPED_TAIL: string
}
const COMMANDS = ['completion', 'dry-run sync', 'explain', 'rollout record', 'rollout watch', 'run']

describe('the code cache variant of a command line', () => {
  it('is the command the leading words name, the longest one', () => {
    expect(variantOf(['dry-run', 'sync', '-f', 'x.yaml'], COMMANDS)).toBe('dry-run-sync')
    expect(variantOf(['explain', 'web', '-n', 'demo'], COMMANDS)).toBe('explain')
    expect(variantOf(['rollout', 'watch', 'web'], COMMANDS)).toBe('rollout-watch')
    expect(variantOf(['run', '--once'], COMMANDS)).toBe('run')
  })

  it('is root for no command: --version, nothing, an unknown or partial word', () => {
    expect(variantOf(['--version'], COMMANDS)).toBe('root')
    expect(variantOf([], COMMANDS)).toBe('root')
    expect(variantOf(['explian'], COMMANDS)).toBe('root')
    expect(variantOf(['dry-run'], COMMANDS)).toBe('root')
  })

  it('keeps help apart, and completion', () => {
    expect(variantOf(['--help'], COMMANDS)).toBe('root+help')
    expect(variantOf(['dry-run', 'sync', '-h'], COMMANDS)).toBe('dry-run-sync+help')
    expect(variantOf(['help', 'explain'], COMMANDS)).toBe('explain+help')
    expect(variantOf(['__complete', 'dry-run', ''], COMMANDS)).toBe('complete')
  })
})

describe('the text compiled for a file', () => {
  /** Compiles as code-cache.cjs does and runs the function with a module of its own. */
  const load = (content: string) => {
    const module = {exports: {} as Record<string, unknown>}
    runInThisContext(wrapped(content))(module.exports, require, module, '/x.cjs', '/')
    return module.exports
  }

  it("is the bundle's own function expression, a slice of its text, not a second wrapper", () => {
    const text = `${WRAPPED_HEAD}\nexports.answer = 42\n${WRAPPED_TAIL}\n//# sourceMappingURL=bundle.cjs.map\n`
    const source = wrapped(text)
    expect(source.startsWith(WRAPPED_HEAD)).toBe(true)
    expect(source.endsWith('})')).toBe(true)
    expect(text.startsWith(source)).toBe(true)
    expect(load(text)).toEqual({answer: 42})
  })

  it("is Node's wrapper around any other file, and around a bundle whose tail is missing", () => {
    expect(load('exports.answer = 43')).toEqual({answer: 43})
    expect(wrapped(`${WRAPPED_HEAD}\nexports.answer = 44\n})`)).not.toBe(
      `${WRAPPED_HEAD}\nexports.answer = 44\n})`,
    )
  })

  it("is the function expression in client-node's chunk too, the other large file", () => {
    const chunks = join(import.meta.dirname, '..', '..', 'dist', 'chunks')
    const kube = readdirSync(chunks).filter((f) => /^kube-[A-Z0-9]+\.cjs$/.test(f))
    expect(kube).toHaveLength(1)
    const text = readFileSync(join(chunks, kube[0]), 'utf8')
    const source = wrapped(text)
    expect(source.startsWith(WRAPPED_HEAD)).toBe(true)
    expect(text.startsWith(source)).toBe(true)
    expect(source.length).toBeGreaterThan(text.length - 200)
  })

  it("runs the built bundle the same way through Node's own wrapper (no code cache)", () => {
    const dist = join(import.meta.dirname, '..', '..', 'dist', 'bundle.cjs')
    const text = readFileSync(dist, 'utf8')
    expect(wrapped(text).length).toBeLessThan(text.length)
    const own = {exports: {} as Record<string, unknown>}
    runInThisContext(require('node:module').wrap(text))(own.exports, require, own, dist, join(dist, '..'))
    expect(typeof own.exports.load).toBe('function')
  })
})
