// kubectl's habits through the built binary: -h and `help COMMAND` everywhere, "did you mean" for
// unknown commands and flags, and one error style (`error: ...`, never oclif's ` ›   Error:`).

import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {BIN, cli, ROOT, tempFiles} from './helpers.js'

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {flags: Record<string, unknown>}>
}
/** Every command, as typed: `dry-run sync`. */
const COMMANDS = Object.keys(manifest.commands).map((id) => id.split(':'))

/**
 * `WORDS --help` with the default environment, run once per file: several tests below hold other
 * forms (-h, help COMMAND, the root's TOPICS) to it, and it takes a CLI process each time.
 */
const helpOf = (() => {
  const seen = new Map<string, ReturnType<typeof cli>>()
  return (words: string[]) => {
    const key = words.join(' ')
    let r = seen.get(key)
    if (!r) {
      r = cli([...words, '--help'])
      seen.set(key, r)
    }
    return r
  }
})()

describe('-h and help', () => {
  it('-h is --help on the root and on every command', () => {
    expect(COMMANDS.length).toBeGreaterThanOrEqual(6)
    for (const words of [[], ...COMMANDS]) {
      const short = cli([...words, '-h'])
      const long = helpOf(words)
      expect(long.code, words.join(' ')).toBe(0)
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
      expect(help.stdout).toBe(helpOf(words).stdout)
    }
    expect(cli(['help', 'dry-run']).stdout).toBe(helpOf(['dry-run']).stdout)
    expect(cli(['help']).stdout).toBe(helpOf([]).stdout)
  })

  it('the root help lists run once, as a command', () => {
    const r = helpOf([])
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
      'error: unknown command "explian" for "kubectl deployctl"\n\nDid you mean this?\n\texplain\n',
    )
  })

  it('suggests within a topic, and a nested command by its last word', () => {
    const synk = cli(['dry-run', 'synk', '-f', 'x.yaml'])
    expect(synk.code).toBe(2)
    expect(synk.stderr).toBe(
      'error: unknown command "synk" for "kubectl deployctl dry-run"\n\nDid you mean this?\n\tsync\n',
    )
    expect(cli(['sync']).stderr).toContain('\tdry-run sync\n')
    expect(cli(['rollout', 'wacth']).stderr).toContain('\twatch\n')
  })

  it('a word close to no command: one error line', () => {
    for (const args of [['nope'], ['help', 'nope'], ['nope', '--help']]) {
      const r = cli(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr).toBe(
        `error: unknown command "nope" for "kubectl deployctl" (see 'kubectl deployctl --help')\n`,
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

describe('40 columns', () => {
  /** Every line fits, or is one word that cannot be broken (a path, a URL). */
  function expectFits(text: string, width: number, what: string): void {
    for (const line of text.split('\n')) {
      if ([...line].length <= width) continue
      // -o's label lists its formats as one word (the completion reads them from it).
      const rest = line.trim().replace(/^-o, (?=--output=)/, '')
      expect(rest, `${what}: ${JSON.stringify(line)}`).not.toMatch(/\s/)
    }
  }
  /**
   * The words of a text, in order: the same at any width when no word is cut (`\` continues a
   * long example command on the next line).
   */
  const words = (text: string) => text.split(/\s+/).filter((w) => w !== '' && w !== '\\')

  it('help wraps at word boundaries to COLUMNS', () => {
    for (const args of [[], ...COMMANDS]) {
      const narrow = cli([...args, '--help'], {env: {COLUMNS: '40'}})
      const wide = cli([...args, '--help'], {env: {COLUMNS: '300'}})
      expect(narrow.code).toBe(0)
      expectFits(narrow.stdout, 40, args.join(' ') || 'root')
      expect(words(narrow.stdout)).toEqual(words(wide.stdout))
      // The narrow help does wrap what the wide one keeps on a line.
      expect(narrow.stdout.split('\n').length).toBeGreaterThan(wide.stdout.split('\n').length)
    }
  })
})

describe('40 columns: text and tables', () => {
  /**
   * Every word of the narrow text is a word of the unwrapped one, or pieces of one that break only
   * after punctuation (`registry.example.com/` + `api:v2`): no word is cut anywhere else.
   */
  function expectWholeWords(narrow: string, wide: string, what: string): void {
    const words = new Set(wide.split(/\s+/))
    let piece = ''
    for (const word of narrow.split(/\s+/).filter((w) => w !== '')) {
      piece += word
      if (words.has(piece)) piece = ''
      else expect(piece, `${what}: ${piece}`).toMatch(/[.,;:/@]$/)
    }
    expect(piece, what).toBe('')
  }

  const NOW = ['--now', '2026-11-29T10:00:10Z']
  it.each(['new-deployment.yaml', 'rolling-update.yaml', 'stuck-image-pull.yaml', 'multi.yaml'])(
    'dry-run sync and explain wrap %s to COLUMNS at word boundaries',
    (example) => {
      for (const command of [['dry-run', 'sync'], ['explain']]) {
        const args = [...command, '-f', join(ROOT, 'examples', example), '-A', ...NOW]
        const what = `${command.join(' ')} ${example}`
        const narrow = cli(args, {env: {COLUMNS: '40'}})
        const wide = cli(args, {env: {COLUMNS: '1000'}})
        expect(narrow.code, what).toBe(wide.code)
        // Prose fits; a table row whose columns cannot fit even with a column split out may run longer.
        for (const line of narrow.stdout.split('\n')) {
          if ([...line].length > 40) expect(line.trim(), `${what}: ${line}`).toMatch(/^\S+$|\S {2,}\S/)
        }
        expectWholeWords(narrow.stdout, wide.stdout, what)
        expect(narrow.stdout, what).not.toBe(wide.stdout)
      }
    },
  )
})

describe('a progress line for long work, on a terminal only', () => {
  const SCRIPT = '/usr/bin/script'
  // Over 8 MB: the progress line is shown before parsing starts (a file that size takes ~1 s).
  const dir = tempFiles({})
  const big = join(dir, 'big.yaml')
  const one = readFileSync(join(ROOT, 'examples/rolling-update.yaml'), 'utf8')
  const docs: string[] = []
  for (let n = 0, size = 0; size < 8.5 * 1024 * 1024; n++) {
    // Each copy in its own namespace, with uids of its own (duplicate uids are refused).
    const doc = one
      .replaceAll('namespace: demo', `namespace: ns${n}`)
      .replace(/uid: ([0-9a-f-]{32})[0-9a-f]{4}\b/g, (_, u) => `uid: ${u}${n.toString(16).padStart(4, '0')}`)
    docs.push(doc)
    size += doc.length
  }
  writeFileSync(big, docs.join('\n---\n'))
  const args = ['dry-run', 'sync', '-f', big, '-n', 'ns1', '--now', '2026-11-29T10:00:10Z', '-o', 'name']

  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  it('never when stderr is not a terminal', () => {
    const r = cli(args)
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('deployment.apps/web\n')
    expect(r.stderr).toBe('')
  })

  it.skipIf(!existsSync(SCRIPT))('on a terminal: names the file, and is erased before the output', () => {
    const command = `stty cols 100 rows 30; ${[process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ')}`
    const r = spawnSync(SCRIPT, ['-qec', command, '/dev/null'], {
      encoding: 'utf8',
      env: {...process.env, NO_COLOR: '1', TERM: 'xterm', NODE_ENV: 'production'},
      timeout: 120_000,
    })
    expect(r.status).toBe(0)
    // The line, drawn and redrawn in place with \r, then blanked, then the output.
    expect(r.stdout).toMatch(/\r[|/\\-] reading \S*big\.yaml \(8\.\d MB\)/)
    const erased = r.stdout.lastIndexOf('\r ')
    expect(erased).toBeGreaterThan(r.stdout.lastIndexOf('reading'))
    expect(r.stdout.slice(erased)).toMatch(/^\r +\r(\r?\n)?deployment\.apps\/web\r?\n$/)
  })
})
