// The pieces explain prints with: kubectl's duration format, kubectl's rollout status message,
// prose wrapping and tables that fit a width.

import {describe, expect, it} from 'vitest'
import type {Deployment} from '../../src/controller/api/types.js'
import {wrap} from '../../src/render/explain.js'
import {fitOrSplit, wrapCell} from '../../src/render/explain-table.js'
import {rolloutStatus} from '../../src/status/rollout-status.js'
import {age, relative, seconds} from '../../src/util/duration.js'

const S = 1000
const M = 60 * S
const _H = 60 * M

describe('ages and relative moments (HumanDuration itself: duration.test.ts)', () => {
  it('ages, relative moments and second counts', () => {
    const now = Date.parse('2026-11-29T10:00:00Z')
    expect(age('2026-11-29T09:54:50Z', now)).toBe('5m10s')
    expect(age(undefined, now)).toBe('<unknown>')
    expect(relative(now + 9 * M + 47 * S, now)).toBe('in 9m47s')
    expect(relative(now - 2 * M, now)).toBe('2m ago')
    expect(relative(now + 400, now)).toBe('now')
    expect(seconds(600)).toBe('10m')
    expect(seconds(45)).toBe('45s')
    expect(seconds(5400)).toBe('1h30m')
    expect(seconds(597.5)).toBe('9m58s')
  })
})

function dep(o: {
  generation?: number
  observed?: number
  replicas?: number
  status?: Deployment['status']
}): Deployment {
  return {
    metadata: {name: 'web', generation: o.generation ?? 2},
    spec: {replicas: o.replicas ?? 3, template: {}},
    status: {observedGeneration: o.observed ?? 2, ...(o.status ?? {})},
  }
}

describe('rolloutStatus (kubectl DeploymentStatusViewer)', () => {
  it('waits for the spec to be observed', () => {
    expect(rolloutStatus(dep({generation: 3, observed: 2}))).toEqual({
      message: 'Waiting for deployment spec update to be observed...',
      done: false,
      error: false,
    })
  })

  it('fails once the progress deadline is exceeded', () => {
    const d = dep({
      status: {conditions: [{type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded'}]},
    })
    expect(rolloutStatus(d)).toEqual({
      message: 'error: deployment "web" exceeded its progress deadline',
      done: false,
      error: true,
    })
  })

  it('counts updated, old and available replicas in that order', () => {
    expect(rolloutStatus(dep({status: {updatedReplicas: 1, replicas: 4}})).message).toBe(
      'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...',
    )
    expect(rolloutStatus(dep({status: {updatedReplicas: 3, replicas: 5}})).message).toBe(
      'Waiting for deployment "web" rollout to finish: 2 old replicas are pending termination...',
    )
    expect(
      rolloutStatus(dep({status: {updatedReplicas: 3, replicas: 3, availableReplicas: 2}})).message,
    ).toBe('Waiting for deployment "web" rollout to finish: 2 of 3 updated replicas are available...')
    expect(rolloutStatus(dep({status: {updatedReplicas: 3, replicas: 3, availableReplicas: 3}}))).toEqual({
      message: 'deployment "web" successfully rolled out',
      done: true,
      error: false,
    })
  })
})

describe('wrapping', () => {
  it('wraps prose at spaces with a hanging indent, keeping double spaces', () => {
    expect(wrap('one two three four five', 14, '  ', '    ')).toBe('  one two\n    three four\n    five')
    expect(wrap('Normal  Scaled  up', 40, '  ')).toBe('  Normal  Scaled  up')
    expect(wrap('averyveryverylongword x', 10)).toBe('averyveryverylongword\nx')
  })

  it('wraps cells after separators, cutting only what cannot break', () => {
    expect(wrapCell('registry.example.com/api:v2.1-typo', 21)).toBe('registry.example.com/\napi:v2.1-typo')
    expect(wrapCell('a -> b; c -> d', 8)).toBe('a -> b;\nc -> d')
    // Never cut inside a word: one longer than the width stays whole on its line.
    expect(wrapCell('abcdefghij', 4)).toBe('abcdefghij')
    expect(wrapCell('a NewReplicaSetCreated b', 8)).toBe('a\nNewReplicaSetCreated\nb')
  })
})

describe('fitOrSplit', () => {
  const head = ['NAME', 'SIZE', 'IMAGES']
  const rows = [['web-abc', '3', 'registry.example.com/team/web:1.2.3']]

  it('keeps a table that fits as kubectl prints it', async () => {
    const t = await fitOrSplit(head, rows, {width: 100, wrapColumn: 2})
    expect(t.table).toBe('NAME      SIZE   IMAGES\nweb-abc   3      registry.example.com/team/web:1.2.3')
    expect(t.split).toBeUndefined()
  })

  it('wraps the chosen column when that fits', async () => {
    const t = await fitOrSplit(head, rows, {width: 40, wrapColumn: 2, minWrapWidth: 10})
    expect(t.table.split('\n').every((l) => l.length <= 40)).toBe(true)
    expect(t.table).toContain('registry.example.com/')
  })

  it('moves the column into a table of its own when it would get too narrow', async () => {
    const t = await fitOrSplit(head, rows, {width: 30, wrapColumn: 2, minWrapWidth: 20, keyColumn: 0})
    expect(t.table).toBe('NAME      SIZE\nweb-abc   3')
    expect(t.split).toBe('NAME      IMAGES\nweb-abc   registry.example.\n          com/team/web:1.2.3')
  })
})
