import {describe, expect, it} from 'vitest'
import type {IO} from '../../src/cli/base-command.js'
import {PassInput, parseClock, parseNow} from '../../src/cli/pass-options.js'
import {FeatureGateError} from '../../src/controller/features.js'
import {exitCodeFor, InputError, UsageError} from '../../src/errors.js'

function io(): IO & {errors: string[]} {
  const errors: string[] = []
  return {out: () => {}, err: (t) => errors.push(t), stdoutIsTTY: false, env: {}, errors}
}

const flags = {recursive: false, 'all-namespaces': false, validate: 'strict'}

describe('--now (parseNow: RFC 3339 as Go reads it)', () => {
  const cases: Array<{name: string; given: string; want: string}> = [
    {name: 'UTC', given: '2026-11-29T10:05:00Z', want: '2026-11-29T10:05:00.000Z'},
    {name: 'lower-case t and z', given: '2026-11-29t10:05:00z', want: '2026-11-29T10:05:00.000Z'},
    {name: 'a positive offset', given: '2026-11-29T11:05:00+01:00', want: '2026-11-29T10:05:00.000Z'},
    {
      name: 'a negative half-hour offset',
      given: '2026-11-29T05:35:00-04:30',
      want: '2026-11-29T10:05:00.000Z',
    },
    {name: 'a fraction of a second', given: '2026-11-29T10:05:00.25Z', want: '2026-11-29T10:05:00.250Z'},
    {name: 'a leap day', given: '2028-02-29T00:00:00Z', want: '2028-02-29T00:00:00.000Z'},
  ]
  it.each(cases)('$name: $given', ({given, want}) => {
    expect(new Date(parseNow(given)).toISOString()).toBe(want)
  })

  it.each([
    '',
    'now',
    '2026-11-29',
    '2026-11-29 10:05:00Z',
    '2026-11-29T10:05Z',
    '2026-02-30T00:00:00Z',
    '2026-11-29T24:00:00Z',
    '2026-11-29T10:05:00+25:00',
    '2026-11-29T10:05:00',
    '10m',
    '+',
    '+-5m',
    '++5m',
    '+5d',
  ])('rejects %j as a usage error', (text) => {
    expect(() => parseNow(text)).toThrow(UsageError)
  })

  it.each([
    ['+10m', 600_000],
    ['-1h', -3_600_000],
    ['+1h30m', 5_400_000],
    ['-90s', -90_000],
  ])('reads %j as a duration from the anchor', (text, offsetMs) => {
    expect(parseClock(text)).toEqual({kind: 'relative', offsetMs, text})
  })
})

describe('PassInput', () => {
  it('completes flags into a selection, a clock and feature gates', async () => {
    const o = new PassInput(io())
    await o.complete(
      {
        ...flags,
        filename: ['a.yaml'],
        namespace: 'demo',
        now: '2026-11-29T10:05:00Z',
        'feature-gates': 'DeploymentReplicaSetTerminatingReplicas=false',
        validate: 'false',
      },
      ['deploy/web'],
    )
    expect(o.selection).toEqual({
      names: ['web'],
      namespace: 'demo',
      allNamespaces: false,
      labelSelector: undefined,
    })
    expect(o.now).toBe(Date.parse('2026-11-29T10:05:00Z'))
    expect(o.gates.enabled('DeploymentReplicaSetTerminatingReplicas')).toBe(false)
    expect(o.validate).toBe('ignore')
  })

  it('defaults the clock to the current whole second', async () => {
    const o = new PassInput(io())
    const before = Date.now()
    await o.complete({...flags, filename: ['a.yaml']}, [])
    expect(o.now % 1000).toBe(0)
    expect(Math.abs(o.now - before)).toBeLessThan(2000)
  })

  it('reads a cluster without -f, and checks the selection', async () => {
    const o = new PassInput(io())
    await o.complete({...flags}, [])
    await o.validateOptions()
    expect(o.isLive).toBe(true)
    await expect(
      (async () => {
        const bad = new PassInput(io())
        await bad.complete({...flags, 'request-timeout': 'soon'}, [])
      })(),
    ).rejects.toThrow(
      new UsageError('invalid --request-timeout "soon": want a duration such as 30s, 1m or 500ms'),
    )
    const named = new PassInput(io())
    await named.complete({...flags, filename: ['a.yaml'], 'all-namespaces': true}, ['web'])
    await expect(named.validateOptions()).rejects.toThrow(UsageError)
  })

  it('warns when -A overrides -n', async () => {
    const out = io()
    const o = new PassInput(out)
    await o.complete({...flags, filename: ['a.yaml'], 'all-namespaces': true, namespace: 'demo'}, [])
    await o.validateOptions()
    expect(out.errors.join('')).toContain('-A/--all-namespaces overrides --namespace demo')
  })
})

describe('exitCodeFor', () => {
  it('gives usage errors 2 and everything else 1', () => {
    expect(exitCodeFor(new UsageError('x'))).toBe(2)
    expect(exitCodeFor(new FeatureGateError('x'))).toBe(2)
    expect(exitCodeFor(new InputError('x'))).toBe(1)
    expect(exitCodeFor(new Error('x'))).toBe(1)
  })
})

describe('PassInput progress line', () => {
  class Exposed extends PassInput {
    line() {
      return this.progress()
    }
  }
  const terminal = (stderr: {isTTY?: boolean}, env: NodeJS.ProcessEnv = {}) => {
    const o = io()
    return {o, options: new Exposed({...o, env, stderrTerminal: {...stderr, columns: 80}})}
  }

  it('on a terminal stderr, drawn on stderr', () => {
    const {o, options} = terminal({isTTY: true})
    const p = options.line()
    p.set('reading x.yaml')
    p.showNow()
    p.stop()
    expect(o.errors[0]).toBe('\r| reading x.yaml')
  })

  it('never with stderr in a pipe, with TERM=dumb, or with -v (its log lines share stderr)', async () => {
    const cases = [terminal({isTTY: false}), terminal({}), terminal({isTTY: true}, {TERM: 'dumb'})]
    const verbose = terminal({isTTY: true})
    await verbose.options.complete({...flags, filename: ['a.yaml'], v: 4}, [])
    for (const {o, options} of [...cases, verbose]) {
      const p = options.line()
      p.showNow()
      p.stop()
      expect(o.errors).toEqual([])
    }
  })
})
