// The exact YAML reader loads only when a text needs it (src/cluster/load/index.ts). This file
// must not import it (nor ./from-text.ts): each vitest file has its own modules, so it starts
// without it, as the CLI does.

import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {beforeEach, describe, expect, it, vi} from 'vitest'

/** The loader as a fresh process has it: each test gets new modules, without the exact reader. */
async function freshLoader() {
  const {loadWorld} = await import('../../src/cluster/load/index.js')
  const {exactReaderLoaded} = await import('../../src/cluster/load/yaml-fast.js')
  return {loadWorld, exactReaderLoaded}
}

beforeEach(() => {
  vi.resetModules()
})

const dir = mkdtempSync(join(tmpdir(), 'deployctl-lazy-'))
function file(name: string, text: string): string {
  const p = join(dir, name)
  writeFileSync(p, text)
  return p
}

const rs = (name: string, extra = '') => `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: ${name}
  namespace: demo${extra}
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
`

describe('the exact YAML reader, on demand', () => {
  it('is not loaded for YAML the fast path reads; then loaded for a field line', async () => {
    const {loadWorld, exactReaderLoaded} = await freshLoader()
    const plain = await loadWorld([file('plain.yaml', rs('a'))])
    expect(plain.replicaSets.map((r) => r.metadata.name)).toEqual(['a'])
    expect(exactReaderLoaded()).toBe(false)

    // An invalid field in strict mode: the message names the field's own line, which only the exact
    // reader knows (the object's line is 1); the load starts over once it is loaded.
    const badReplicas = rs('b').replace('replicas: 1', 'replicas: -1')
    let message = ''
    let stdinReads = 0
    await loadWorld(['-'], {
      stdin: async () => {
        stdinReads++
        return badReplicas
      },
    }).catch((err: Error) => {
      message = err.message
    })
    expect(message).toMatch(/^STDIN:7: ReplicaSet demo\/b: spec\.replicas: Invalid value: -1/)
    expect(stdinReads).toBe(1)
    expect(exactReaderLoaded()).toBe(true)
  })

  it('prints each warning once when the load starts over', async () => {
    const {loadWorld, exactReaderLoaded} = await freshLoader()
    expect(exactReaderLoaded()).toBe(false)
    const warnings: string[] = []
    const bad = rs('c').replace('replicas: 1', 'replicas: -1')
    const text = `${rs('ok')}---\n${bad}`
    const line = text.split('\n').findIndex((l) => l.includes('replicas: -1')) + 1
    expect(line).toBe(24)
    const w = await loadWorld([file('warn.yaml', text)], {
      validate: 'warn',
      warn: (line) => warnings.push(line),
    })
    expect(w.replicaSets).toHaveLength(2)
    expect(exactReaderLoaded()).toBe(true)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/warn\.yaml:24: ReplicaSet demo\/c: spec\.replicas: Invalid value: -1/)
  })

  it('still prints the warnings that came before an error', async () => {
    const {loadWorld} = await freshLoader()
    const warnings: string[] = []
    // A JSON object with an invalid field (a warning under --validate warn; JSON needs no exact
    // reader for its line), then a YAML file with a syntax error (an error from the exact reader).
    const bad = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {name: 'j', namespace: 'demo'},
      spec: {replicas: -1},
    }
    const first = file('first.json', JSON.stringify(bad))
    const second = file('second.yaml', 'kind: Pod\nmetadata: {name: [\n')
    const err = await loadWorld([first, second], {
      validate: 'warn',
      warn: (line) => warnings.push(line),
    }).catch((e: Error) => e)
    expect(String(err)).toMatch(/second\.yaml:\d+:\d+: /)
    expect(warnings).toHaveLength(4)
    expect(warnings[0]).toMatch(/first\.json:1: ReplicaSet demo\/j: spec\.replicas: Invalid value: -1/)
  })

  it('reads YAML the fast path leaves (an anchor) through the exact reader', async () => {
    const {loadWorld, exactReaderLoaded} = await freshLoader()
    const anchored = rs('d')
      .replace('matchLabels: {app: web}', 'matchLabels: &l {app: web}')
      .replace('labels: {app: web}', 'labels: *l')
    const w = await loadWorld([file('anchor.yaml', anchored)])
    expect(w.replicaSets[0]?.spec?.template?.metadata?.labels).toEqual({app: 'web'})
    expect(exactReaderLoaded()).toBe(true)
  })
})
