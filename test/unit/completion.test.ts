// Completion in cobra's protocol (src/completion/complete.ts), on the real oclif manifest (npm test
// builds it first) with the cluster replaced by a recording stand-in.

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {
  type ConnectionWords,
  complete,
  Directive,
  formatCompletion,
  type Lookup,
  type Manifest,
} from '../../src/completion/complete.js'

const ROOT = join(import.meta.dirname, '..', '..')
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest
const topics = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).oclif.topics

function recording() {
  const asked: Array<{what: string; conn: ConnectionWords}> = []
  const answer = (what: string, names: string[]) => async (conn: ConnectionWords) => {
    asked.push({what, conn})
    return names
  }
  const lookup: Lookup = {
    namespaces: answer('namespaces', ['default', 'demo', 'kube-system']),
    deployments: answer('deployments', ['api', 'web']),
    contexts: answer('contexts', ['prod', 'staging']),
  }
  return {asked, lookup}
}

const values = async (words: string[]) => {
  const {lookup} = recording()
  const r = await complete(manifest, topics, words, lookup)
  return {values: r.candidates.map((c) => c.value), directive: r.directive}
}

describe('completion (cobra protocol)', () => {
  it('offers the commands and topics, with their descriptions, and no files', async () => {
    const {lookup} = recording()
    const r = await complete(manifest, topics, [''], lookup)
    expect(r.candidates.map((c) => c.value)).toEqual([
      'completion',
      'dry-run',
      'explain',
      'plan',
      'reconcile-once',
      'rollout',
      'run',
      'version',
    ])
    expect(r.candidates.find((c) => c.value === 'dry-run')?.description).toBe(topics['dry-run'].description)
    expect(r.directive).toBe(Directive.NoFileComp)
    expect(formatCompletion(r).split('\n').at(-2)).toBe(':4')
  })

  it('completes inside a topic and by prefix', async () => {
    expect(await values(['dry-run', ''])).toEqual({values: ['sync'], directive: 4})
    expect(await values(['rollout', 'w'])).toEqual({values: ['watch'], directive: 4})
    expect(await values(['re'])).toEqual({values: ['reconcile-once'], directive: 4})
  })

  it('offers long and short flags with descriptions, long only after --, and not those already given', async () => {
    const {lookup} = recording()
    const r = await complete(manifest, topics, ['dry-run', 'sync', '-n', 'demo', '-'], lookup)
    const v = r.candidates.map((c) => c.value)
    expect(v).toEqual(
      expect.arrayContaining(['--filename', '-f', '--output', '-o', '--all-namespaces', '-A']),
    )
    expect(v).not.toContain('--namespace')
    expect(v).not.toContain('-n')
    expect(r.candidates.find((c) => c.value === '-o')?.description).toMatch(
      /^Output format: table; wide .*jsonpath=TEMPLATE\.$/,
    )
    const long = await values(['explain', '--o'])
    expect(long.values).toEqual(['--output'])
  })

  it('completes -o values of each command, also as --output=', async () => {
    expect(await values(['dry-run', 'sync', '-o', ''])).toEqual({
      values: ['table', 'wide', 'json', 'yaml', 'name', 'jsonpath='],
      directive: 4,
    })
    expect(await values(['explain', '--output=j'])).toEqual({
      values: ['--output=json', '--output=jsonpath='],
      directive: 4,
    })
  })

  it("asks the shell for files with kubectl's extensions after -f", async () => {
    expect(await values(['explain', '-f', ''])).toEqual({
      values: ['json', 'yaml', 'yml'],
      directive: Directive.FilterFileExt,
    })
    expect((await values(['explain', '--kubeconfig', ''])).directive).toBe(Directive.Default)
  })

  it('lists namespaces from the cluster with the --kubeconfig and --context typed so far', async () => {
    const {asked, lookup} = recording()
    const r = await complete(
      manifest,
      topics,
      ['explain', '--kubeconfig', '/tmp/k', '--context=staging', '-n', 'd'],
      lookup,
    )
    expect(r.candidates.map((c) => c.value)).toEqual(['default', 'demo'])
    expect(asked).toEqual([{what: 'namespaces', conn: {kubeconfig: '/tmp/k', context: 'staging'}}])
  })

  it('lists Deployment names of the namespace typed, plain and as deployment/NAME', async () => {
    const {asked, lookup} = recording()
    const plain = await complete(manifest, topics, ['rollout', 'watch', '-n', 'demo', ''], lookup)
    expect(plain.candidates.map((c) => c.value)).toEqual(['api', 'web'])
    expect(asked[0]).toEqual({what: 'deployments', conn: {namespace: 'demo'}})
    const typed = await complete(manifest, topics, ['explain', '-ndemo', 'deploy/w'], lookup)
    expect(typed.candidates.map((c) => c.value)).toEqual(['deploy/web'])
    expect(asked[1]?.conn).toEqual({namespace: 'demo'})
  })

  it('offers no names to a command without NAME arguments, nor with -A', async () => {
    expect(await values(['run', ''])).toEqual({values: [], directive: 4})
    expect(await values(['explain', '-A', ''])).toEqual({values: [], directive: 4})
  })

  it('a cluster that fails to answer gives no candidates, not an error', async () => {
    const failing: Lookup = {
      namespaces: () => Promise.reject(new Error('connection refused')),
      deployments: () => Promise.reject(new Error('timeout')),
      contexts: () => Promise.reject(new Error('no kubeconfig')),
    }
    expect(await complete(manifest, topics, ['explain', '-n', ''], failing)).toEqual({
      candidates: [],
      directive: 4,
    })
    expect(await complete(manifest, topics, ['explain', ''], failing)).toEqual({candidates: [], directive: 4})
  })
})
