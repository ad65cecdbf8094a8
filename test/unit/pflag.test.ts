// kubectl's grammar for boolean flags (spf13/pflag), as cli/pflag.ts takes them out of a command
// line before oclif parses the rest. Cases after pflag's bool_test.go (TestBoolP, the
// NoOptDefVal cases) and strconv.ParseBool's table.

import {describe, expect, it} from 'vitest'
import {type FlagSpec, parseBool, pflagBooleans} from '../../src/cli/pflag.js'

const flags: Record<string, FlagSpec> = {
  'all-namespaces': {type: 'boolean', char: 'A'},
  recursive: {type: 'boolean', char: 'R'},
  'no-headers': {type: 'boolean'},
  'record-events': {type: 'boolean', allowNo: true},
  'exit-code': {type: 'boolean'},
  namespace: {type: 'option', char: 'n'},
  filename: {type: 'option', char: 'f'},
  output: {type: 'option', char: 'o'},
}

const parse = (...argv: string[]) => pflagBooleans(argv, flags)

describe('strconv.ParseBool', () => {
  it('accepts exactly its spellings', () => {
    for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) expect(parseBool(t)).toBe(true)
    for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) expect(parseBool(f)).toBe(false)
    for (const bad of ['', 'yes', 'no', 'tRUE', 'on', '2', ' true']) expect(parseBool(bad)).toBeUndefined()
  })
})

describe('pflag boolean grammar', () => {
  it('--x, --x=true and --x=false; every ParseBool spelling', () => {
    expect(parse('--exit-code')).toEqual({argv: [], booleans: {'exit-code': true}})
    expect(parse('--exit-code=true')).toEqual({argv: [], booleans: {'exit-code': true}})
    expect(parse('--exit-code=false')).toEqual({argv: [], booleans: {'exit-code': false}})
    for (const t of ['1', 't', 'T', 'TRUE', 'True'])
      expect(parse(`--exit-code=${t}`).booleans).toEqual({'exit-code': true})
    for (const f of ['0', 'f', 'F', 'FALSE', 'False'])
      expect(parse(`--exit-code=${f}`).booleans).toEqual({'exit-code': false})
  })

  it('--x false leaves false as an argument (NoOptDefVal: a boolean never takes the next word)', () => {
    expect(parse('--no-headers', 'false', 'web')).toEqual({
      argv: ['false', 'web'],
      booleans: {'no-headers': true},
    })
  })

  it('--no-headers is the flag of that name, not a negation', () => {
    expect(parse('--no-headers=false').booleans).toEqual({'no-headers': false})
  })

  it("oclif's --no-NAME stays for the flags that offered it", () => {
    expect(parse('--no-record-events').booleans).toEqual({'record-events': false})
    expect(parse('--no-record-events=false').booleans).toEqual({'record-events': true})
    expect(parse('--record-events=false').booleans).toEqual({'record-events': false})
    // A flag that never offered --no- keeps it unknown, for oclif's "unknown flag" error.
    expect(parse('--no-exit-code')).toEqual({argv: ['--no-exit-code'], booleans: {}})
  })

  it('shorthands: -A, -A=false, groups, and a group that ends in an option flag', () => {
    expect(parse('-A').booleans).toEqual({'all-namespaces': true})
    expect(parse('-A=false').booleans).toEqual({'all-namespaces': false})
    expect(parse('-A=0').booleans).toEqual({'all-namespaces': false})
    expect(parse('-AR')).toEqual({argv: [], booleans: {'all-namespaces': true, recursive: true}})
    expect(parse('-ARf', 'x.yaml')).toEqual({
      argv: ['-f', 'x.yaml'],
      booleans: {'all-namespaces': true, recursive: true},
    })
    expect(parse('-Afx.yaml')).toEqual({argv: ['-fx.yaml'], booleans: {'all-namespaces': true}})
    expect(parse('-AR=false').booleans).toEqual({'all-namespaces': true, recursive: false})
  })

  it('the last occurrence wins', () => {
    expect(parse('-A', '--all-namespaces=false').booleans).toEqual({'all-namespaces': false})
    expect(parse('--all-namespaces=false', '-A').booleans).toEqual({'all-namespaces': true})
  })

  it("an option flag's value is never read as a boolean flag", () => {
    expect(parse('-n', 'demo', '-A=f')).toEqual({argv: ['-n', 'demo'], booleans: {'all-namespaces': false}})
    expect(parse('-o', 'json', 'web')).toEqual({argv: ['-o', 'json', 'web'], booleans: {}})
    expect(parse('--namespace', '-x')).toEqual({argv: ['--namespace', '-x'], booleans: {}})
    expect(parse('--namespace=--exit-code')).toEqual({argv: ['--namespace=--exit-code'], booleans: {}})
  })

  it('-- ends the flags; - is an argument; unknown flags are left for oclif', () => {
    expect(parse('-A', '--', '--exit-code=false', '-A')).toEqual({
      argv: ['--', '--exit-code=false', '-A'],
      booleans: {'all-namespaces': true},
    })
    expect(parse('-f', '-', '-A')).toEqual({argv: ['-f', '-'], booleans: {'all-namespaces': true}})
    expect(parse('--nope=false', '-Z')).toEqual({argv: ['--nope=false', '-Z'], booleans: {}})
    expect(parse('-AZ')).toEqual({argv: ['-Z'], booleans: {'all-namespaces': true}})
  })

  it('a value ParseBool refuses is a usage error worded as kubectl words it', () => {
    expect(() => parse('--all-namespaces=maybe')).toThrow(
      'invalid argument "maybe" for "-A, --all-namespaces" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    )
    expect(() => parse('--exit-code=')).toThrow(
      'invalid argument "" for "--exit-code" flag: strconv.ParseBool: parsing "": invalid syntax',
    )
    try {
      parse('-A=yes')
    } catch (err) {
      expect((err as {exitCode?: number}).exitCode).toBe(2)
    }
    expect.assertions(3)
  })
})
