// The flag groups' option objects (src/cli/flag-groups.ts), each completed and validated by itself,
// and a command's pass options composed of them (upstream: genericclioptions).

import {describe, expect, it, vi} from 'vitest'
import type {IO} from '../../src/cli/base-command.js'
import {DryRunSyncOptions} from '../../src/cli/dry-run-sync.js'
import {ExplainOptions} from '../../src/cli/explain.js'
import {ConfigOptions, FileNameOptions, PrintOptions, SelectionOptions} from '../../src/cli/flag-groups.js'
import {PassInput} from '../../src/cli/pass-options.js'
import {PlanOptions} from '../../src/cli/plan.js'
import {ReconcileOnceOptions} from '../../src/cli/reconcile-once.js'
import {RolloutRecordOptions} from '../../src/cli/rollout-record.js'
import {RolloutWatchOptions} from '../../src/cli/rollout-watch.js'
import {RunOptions} from '../../src/cli/run.js'
import {TimelineOptions} from '../../src/cli/timeline-options.js'
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
})

// Each command's options hold the group objects as fields (upstream: kubectl's options structs hold
// PrintFlags, ConfigFlags and FilenameOptions), and the pass input they hold reads the same objects.
describe('command options composed of the flag groups', () => {
  const base = {recursive: false, 'all-namespaces': false, validate: 'strict'}
  // biome-ignore lint/suspicious/noExplicitAny: the options of different commands, driven alike
  type Made = {name: string; options: any; flags: Record<string, unknown>; args?: string[]}
  const commands = (): Made[] => [
    {name: 'explain', options: new ExplainOptions(io()), flags: {...base}},
    {name: 'plan', options: new PlanOptions(io()), flags: {...base, filename: ['p.yaml']}},
    {name: 'dry-run sync', options: new DryRunSyncOptions(io()), flags: {...base}},
    {
      name: 'reconcile-once',
      options: new ReconcileOnceOptions(io()),
      flags: {...base, 'dry-run': 'none', retries: 0, 'record-events': true},
    },
    {name: 'rollout watch', options: new RolloutWatchOptions(io()), flags: {...base}, args: ['web']},
  ]

  it.each(commands())(
    '$name holds the shared groups, and its PassInput reads those very objects',
    ({options}) => {
      expect(options.configFlags).toBeInstanceOf(ConfigOptions)
      expect(options.selectionFlags).toBeInstanceOf(SelectionOptions)
      expect(options.printFlags).toBeInstanceOf(PrintOptions)
      expect(options.timeline).toBeInstanceOf(TimelineOptions)
      expect(options.input).toBeInstanceOf(PassInput)
      expect(options.input.configFlags).toBe(options.configFlags)
      expect(options.input.selectionFlags).toBe(options.selectionFlags)
      expect(options.input.timeline).toBe(options.timeline)
      // plan's -f is PROPOSED: the input reads its --current files.
      expect(options.input.fileNames).toBe(
        options instanceof PlanOptions ? options.current : options.fileNames,
      )
      expect(options.input.fileNames).toBeInstanceOf(FileNameOptions)
    },
  )

  it('a group is completed once, by its own code, for every command that holds it', async () => {
    const made = [
      ...commands(),
      {
        name: 'run',
        options: new RunOptions(io()),
        flags: {
          ...base,
          'concurrent-deployment-syncs': 5,
          'dry-run': 'none',
          'once-synced': false,
          force: false,
        },
      },
      {
        name: 'rollout record',
        options: new RolloutRecordOptions(io()),
        flags: {
          ...base,
          'output-file': 'x',
          'until-done': false,
          'max-size': '1Mi',
          redact: true,
          delta: true,
        },
      },
    ]
    const config = vi.spyOn(ConfigOptions.prototype, 'complete')
    const selection = vi.spyOn(SelectionOptions.prototype, 'complete')
    try {
      for (const {name, options, flags, args} of made) {
        config.mockClear()
        selection.mockClear()
        await options.complete({...flags, context: 'eu'}, args ?? [])
        expect(config.mock.contexts, name).toEqual([options.configFlags])
        expect(selection.mock.contexts, name).toEqual([options.selectionFlags])
        expect(options.configFlags.connectionFlags.context, name).toBe('eu')
      }
    } finally {
      config.mockRestore()
      selection.mockRestore()
    }
    // So one group's rule holds everywhere: a bad --request-timeout is the same usage error.
    for (const {name, options, flags, args} of made) {
      await expect(options.complete({...flags, 'request-timeout': 'soon'}, args ?? []), name).rejects.toThrow(
        'invalid --request-timeout "soon"',
      )
    }
  })

  it('each command chooses its -o formats by the PrintOptions it makes, not a subclass override', async () => {
    const explain = new ExplainOptions(io())
    await explain.complete({...base, output: 'wide'}, [])
    expect(explain.printFlags.output.kind).toBe('wide')
    await expect(new RolloutWatchOptions(io()).complete({...base, output: 'wide'}, ['web'])).rejects.toThrow(
      UsageError,
    )
  })

  it('the rollout gate is made of the very objects rollout watch holds', async () => {
    const watch = new RolloutWatchOptions(io())
    await watch.complete({...base, 'all-namespaces': true, timeout: '5m', 'log-lines': 3}, [])
    const gate = await watch.rolloutGate()
    expect(gate.printFlags).toBe(watch.printFlags)
    expect(gate.selectionFlags).toBe(watch.selectionFlags)
    expect(gate.contextsFlags).toBe(watch.contextsFlags)
    expect(gate.input).toBe(watch.input)
    expect(gate.wait).toBe(watch.wait)
    expect(gate.report).toBe(watch.report)
    expect(gate.wait.timeoutMs).toBe(300_000)
    expect(gate.report.logLines).toBe(3)
  })

  it('explain over several contexts: each context an input of its own connection and selection groups', async () => {
    const explain = new ExplainOptions(io())
    await explain.complete({...base, namespace: 'demo', context: 'a'}, [])
    const b = explain.input.forContext('b')
    expect(b.configFlags).not.toBe(explain.configFlags)
    expect(b.configFlags.connectionFlags.context).toBe('b')
    expect(explain.configFlags.connectionFlags.context).toBe('a')
    b.selection = {...b.selection, namespace: 'other'}
    expect(explain.input.selection.namespace).toBe('demo')
    expect(b.fileNames).toBe(explain.fileNames)
    expect(b.now).toBe(explain.input.now)
  })

  it('PassInput with no groups given makes its own', async () => {
    const o = new PassInput(io())
    await o.complete({...base, filename: ['x.yaml']}, [])
    expect(o.files).toBe(o.fileNames.files)
    expect(o.isLive).toBe(false)
  })
})
