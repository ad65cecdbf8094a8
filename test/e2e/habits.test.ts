// kubectl's habits through the built binary: -h and `help COMMAND` everywhere, "did you mean" for
// unknown commands and flags, and one error style (`error: ...`, never oclif's ` ›   Error:`).

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {cli, ROOT} from './helpers.js'

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {flags: Record<string, unknown>}>
}
/** Every command, as typed: `dry-run sync`. */
const COMMANDS = Object.keys(manifest.commands).map((id) => id.split(':'))

describe('-h and help', () => {
  it('-h is --help on the root and on every command', () => {
    expect(COMMANDS.length).toBeGreaterThanOrEqual(6)
    for (const words of [[], ...COMMANDS]) {
      const short = cli([...words, '-h'])
      const long = cli([...words, '--help'])
      expect(short.code, words.join(' ')).toBe(0)
      expect(short.stderr).toBe('')
      expect(short.stdout).toContain('USAGE')
      expect(short.stdout).toBe(long.stdout)
    }
  })

  it("help COMMAND is the command's --help, for commands in topics too", () => {
    for (const words of COMMANDS) {
      const help = cli(['help', ...words])
      expect(help.code, words.join(' ')).toBe(0)
      expect(help.stdout).toContain(`kubectl deployctl ${words.join(' ')}`)
      expect(help.stdout).toBe(cli([...words, '--help']).stdout)
    }
    expect(cli(['help', 'dry-run']).stdout).toBe(cli(['dry-run', '--help']).stdout)
    expect(cli(['help']).stdout).toBe(cli(['--help']).stdout)
  })

  it('the root help lists run once, as a command', () => {
    const r = cli(['--help'])
    expect(r.stdout.match(/^ {2}run\b/gm)).toHaveLength(1)
    const topics = r.stdout.slice(r.stdout.indexOf('TOPICS'), r.stdout.indexOf('COMMANDS'))
    expect(topics).toContain('dry-run')
    expect(topics).toContain('rollout')
    expect(topics).not.toMatch(/^ {2}run\b/m)
  })
})

describe('unknown commands and flags', () => {
  it("suggests the command meant, in cobra's words, with exit 2", () => {
    const r = cli(['explian', 'api'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(
      'error: unknown command "explian" for "kubectl-deployctl"\n\nDid you mean this?\n\texplain\n',
    )
  })

  it('suggests within a topic, and a nested command by its last word', () => {
    const synk = cli(['dry-run', 'synk', '-f', 'x.yaml'])
    expect(synk.code).toBe(2)
    expect(synk.stderr).toBe(
      'error: unknown command "synk" for "kubectl-deployctl dry-run"\n\nDid you mean this?\n\tsync\n',
    )
    expect(cli(['sync']).stderr).toContain('\tdry-run sync\n')
    expect(cli(['rollout', 'wacth']).stderr).toContain('\twatch\n')
  })

  it('a word close to no command: one error line', () => {
    for (const args of [['nope'], ['help', 'nope'], ['nope', '--help']]) {
      const r = cli(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr).toBe(
        `error: unknown command "nope" for "kubectl-deployctl" (see 'kubectl-deployctl --help')\n`,
      )
    }
  })

  it('an unknown flag names the flags close to it, on every command', () => {
    for (const words of COMMANDS) {
      const flags = Object.keys(manifest.commands[words.join(':')]?.flags ?? {})
      const real = flags.find((f) => f.length >= 6 && f !== 'help')
      if (!real) continue
      // One letter dropped from a real flag.
      const typo = `--${real.slice(0, 2)}${real.slice(3)}`
      const r = cli([...words, typo])
      expect(r.code, `${words.join(' ')} ${typo}`).toBe(2)
      expect(r.stderr).toMatch(new RegExp(`^error: unknown flag: ${typo} \\(did you mean [^)]*--${real}\\b`))
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
    }
    expect(cli(['explain', '--namspace', 'x']).stderr).toBe(
      'error: unknown flag: --namspace (did you mean --namespace?)\n',
    )
    expect(cli(['explain', '--zzzzzz']).stderr).toBe('error: unknown flag: --zzzzzz (see --help)\n')
  })

  it("never prints oclif's error style", () => {
    for (const args of [
      ['explian'],
      ['help', 'explian'],
      ['dry-run', 'nope'],
      ['--bogus'],
      ['explain', '--bogus'],
      ['explain', '-f'],
      ['rollout'],
      ['completion', 'tcsh'],
    ]) {
      const r = cli(args)
      expect(r.stderr, args.join(' ')).not.toContain('›')
      expect(r.stderr, args.join(' ')).not.toMatch(/^\s+at /m)
      if (r.code !== 0) expect(r.stderr, args.join(' ')).toMatch(/^error: /)
    }
  })
})
