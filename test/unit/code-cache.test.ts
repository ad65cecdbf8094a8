// Which of the bundle's code caches a command line uses (src/startup/code-cache.cjs): one per
// command, so that what one command compiled is not deserialized by another at every start.

import {createRequire} from 'node:module'
import {describe, expect, it} from 'vitest'

const {variantOf} = createRequire(import.meta.url)('../../src/startup/code-cache.cjs') as {
  variantOf: (argv: string[], commands: string[]) => string
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
