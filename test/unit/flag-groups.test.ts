// The flag groups' option objects (src/cli/flag-groups.ts), each completed and validated by itself,
// and a command's pass options composed of them (upstream: genericclioptions).

import {describe, expect, it} from 'vitest'
import type {IO} from '../../src/cli/base-command.js'
import {ConfigOptions, FileNameOptions, PrintOptions, SelectionOptions} from '../../src/cli/flag-groups.js'
import {PassOptions} from '../../src/cli/pass-options.js'
import {UsageError} from '../../src/errors.js'

function io(): IO & {errors: string[]} {
  const errors: string[] = []
  return {out: () => {}, err: (t) => errors.push(t), stdoutIsTTY: false, env: {}, errors}
}

describe('flag groups', () => {
  it('FileNameOptions: -f, -R and kubectl --validate spellings (true is strict, false is ignore)', () => {
    const f = new FileNameOptions()
    expect(f.isEmpty).toBe(true)
    f.complete({filename: ['a.yaml'], recursive: true, validate: 'false'})
    expect(f).toMatchObject({files: ['a.yaml'], recursive: true, validate: 'ignore', isEmpty: false})
    f.complete({recursive: false, validate: 'true'})
    expect(f.validate).toBe('strict')
  })

  it('PrintOptions: the default format, and -o outside the allowed ones is a usage error', () => {
    const p = new PrintOptions(['table', 'json'], 'table')
    p.complete({})
    expect(p.output).toEqual({kind: 'table'})
    p.complete({output: 'json', 'no-headers': true})
    expect(p.output.kind).toBe('json')
    expect(p.noHeaders).toBe(true)
    expect(() => p.complete({output: 'wide'})).toThrow(UsageError)
  })

  it('ConfigOptions: keeps the connection flags and refuses a bad --request-timeout', async () => {
    const c = new ConfigOptions()
    await c.complete({context: 'eu', 'request-timeout': '5s'})
    expect(c.connectionFlags).toMatchObject({context: 'eu', 'request-timeout': '5s'})
    await expect(new ConfigOptions().complete({'request-timeout': 'soon'})).rejects.toThrow()
  })

  it('SelectionOptions: -n given or not, and -A over -n said on stderr', async () => {
    const s = new SelectionOptions()
    await s.complete({'all-namespaces': true, namespace: 'demo', selector: 'app=web'}, [])
    expect(s.namespaceGiven).toBe(true)
    expect(s.selection).toMatchObject({
      names: [],
      namespace: 'demo',
      allNamespaces: true,
      labelSelector: 'app=web',
    })
    const out = io()
    await s.validate(out)
    expect(out.errors).toEqual(['Warning: -A/--all-namespaces overrides --namespace demo\n'])
    // kubectl: a name across all namespaces is refused.
    await s.complete({'all-namespaces': true}, ['web'])
    expect(s.namespaceGiven).toBe(false)
    await expect(s.validate(io())).rejects.toThrow(
      'a resource cannot be retrieved by name across all namespaces',
    )
  })

  it('a pass command is composed of the groups: its spec chooses the formats, not a subclass override', async () => {
    const o = new PassOptions(io(), {outputs: ['table', 'json'], defaultOutput: 'json'})
    await o.complete(
      {recursive: false, 'all-namespaces': false, validate: 'strict', filename: ['x.yaml']},
      [],
    )
    expect(o.printFlags.output.kind).toBe('json')
    expect(o.files).toBe(o.fileNames.files)
    expect(o.isLive).toBe(false)
    await expect(
      new PassOptions(io(), {outputs: ['table']}).complete(
        {recursive: false, 'all-namespaces': false, validate: 'strict', output: 'yaml'},
        [],
      ),
    ).rejects.toThrow(UsageError)
  })
})
