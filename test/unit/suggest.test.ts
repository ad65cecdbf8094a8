import {describe, expect, it} from 'vitest'
import {
  levenshtein,
  suggestionsFor,
  unknownCommand,
  unknownCommandMessage,
  unknownFlagMessage,
} from '../../src/cli/suggest.js'

const tree = {
  commandIDs: ['completion', 'explain', 'reconcile-once', 'run', 'dry-run:sync', 'rollout:watch'],
  topics: ['dry-run', 'rollout'],
}

describe('suggestions (cobra: SuggestionsFor)', () => {
  it('levenshtein counts insertions, deletions and substitutions, ignoring case', () => {
    expect(levenshtein('explian', 'explain')).toBe(2)
    expect(levenshtein('Explain', 'explain')).toBe(0)
    expect(levenshtein('', 'abc')).toBe(3)
    expect(levenshtein('kitten', 'sitting')).toBe(3)
  })

  it('suggests by distance 2 or prefix, closest first', () => {
    expect(suggestionsFor('explian', ['explain', 'run', 'completion'])).toEqual(['explain'])
    expect(suggestionsFor('re', ['reconcile-once', 'rollout', 'run'])).toEqual(['reconcile-once'])
    expect(suggestionsFor('rn', ['reconcile-once', 'rollout', 'run'])).toEqual(['run'])
    expect(suggestionsFor('zzzz', ['run'])).toEqual([])
    expect(suggestionsFor('--nw', ['--now', '--as', '--v'])).toEqual(['--now'])
    expect(suggestionsFor('--o', ['--output', '--now'])).toEqual(['--output'])
  })

  it('finds the first word that names no command, under its parent', () => {
    expect(unknownCommand(['explain', 'x'], tree)).toBeUndefined()
    expect(unknownCommand(['dry-run'], tree)).toBeUndefined()
    expect(unknownCommand(['dry-run', 'sync', '-f', 'x'], tree)).toBeUndefined()
    expect(unknownCommand(['explian', 'api'], tree)).toEqual({
      word: 'explian',
      parent: [],
      suggestions: ['explain'],
    })
    expect(unknownCommand(['dry-run', 'synk'], tree)).toEqual({
      word: 'synk',
      parent: ['dry-run'],
      suggestions: ['sync'],
    })
    expect(unknownCommand(['watch'], tree)?.suggestions).toEqual(['rollout watch'])
  })

  it("words cobra's messages", () => {
    expect(unknownCommandMessage('k', {word: 'x', parent: ['dry-run'], suggestions: ['sync']})).toBe(
      'unknown command "x" for "k dry-run"\n\nDid you mean this?\n\tsync\n',
    )
    expect(unknownCommandMessage('k', {word: 'x', parent: [], suggestions: []})).toBe(
      `unknown command "x" for "k" (see 'k --help')`,
    )
    const flags = {namespace: {char: 'n'}, now: {}, output: {char: 'o'}}
    expect(unknownFlagMessage(['--namspace'], flags)).toBe(
      'unknown flag: --namspace (did you mean --namespace?)',
    )
    expect(unknownFlagMessage(['--outptu=json'], flags)).toBe(
      'unknown flag: --outptu (did you mean --output?)',
    )
    expect(unknownFlagMessage(['--n', '--x'], flags)).toBe(
      'unknown flags: --n, --x (did you mean --now or --namespace?)',
    )
  })
})
