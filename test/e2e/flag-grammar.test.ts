// kubectl's (pflag's) grammar for boolean flags, on every boolean flag of every command, through the
// built CLI. The commands and their flags come from the oclif manifest, so a flag added later is in
// the table without anyone listing it. (The other spellings strconv.ParseBool takes, 1, t, TRUE, 0,
// F..., are held by test/unit/pflag.test.ts on the same code.) What each command received is read from the flag log that -v 1
// prints (`FLAG: --name="value"`, as kube-controller-manager logs its flags); the effect of the flags
// whose effect shows in the output is asserted on the output itself.

import {readFileSync, renameSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cli, cliAsync, limiter, ROOT, tempFiles} from './helpers.js'

interface ManifestFlag {
  type: 'boolean' | 'option'
  char?: string
  allowNo?: boolean
  hidden?: boolean
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {hidden?: boolean; flags: Record<string, ManifestFlag>}>
}

/** Every command with boolean flags: its words (`dry-run sync`) and its boolean flags. */
const TABLE = Object.entries(manifest.commands)
  .filter(([, c]) => !c.hidden)
  .map(([id, c]) => ({
    words: id.split(':'),
    booleans: Object.entries(c.flags)
      .filter(([, f]) => f.type === 'boolean' && !f.hidden)
      .map(([name, f]) => ({name, char: f.char})),
    takesV: 'v' in c.flags,
  }))
  .filter((c) => c.booleans.length > 0)

// No cluster anywhere: a command that wants one stops after parsing, with an error.
const dir = tempFiles({})
const env = {KUBECONFIG: join(dir, 'missing-kubeconfig'), HOME: dir, KUBERNETES_SERVICE_HOST: ''}
const run = limiter(2)
const made = [dir]
afterAll(() => {
  for (const d of made) rmSync(d, {recursive: true, force: true})
})

/** The values the command received, from its -v 1 flag log. */
function flagLog(stderr: string): Map<string, string> {
  const values = new Map<string, string>()
  for (const m of stderr.matchAll(/FLAG: --([a-z0-9-]+)=("(?:[^"\\]|\\.)*")/g)) {
    values.set(m[1] as string, JSON.parse(m[2] as string) as string)
  }
  return values
}

describe('every boolean flag of every command takes --x, --x=true and --x=false (pflag)', () => {
  it('the table covers the commands kubectl users reach for', () => {
    const ids = TABLE.map((c) => c.words.join(' '))
    for (const id of ['explain', 'dry-run sync', 'reconcile-once', 'plan', 'rollout watch', 'run']) {
      expect(ids).toContain(id)
    }
    for (const c of TABLE) expect(c.takesV, `${c.words.join(' ')} has -v for the flag log`).toBe(true)
  })

  const forms: Array<{form: string; arg: (flag: string) => string; want: string}> = [
    {form: '--x', arg: (f) => `--${f}`, want: 'true'},
    {form: '--x=true', arg: (f) => `--${f}=true`, want: 'true'},
    {form: '--x=false', arg: (f) => `--${f}=false`, want: 'false'},
  ]

  for (const c of TABLE) {
    const id = c.words.join(' ')
    it(`${id}: ${c.booleans.map((b) => b.name).join(', ')}`, async () => {
      const results = await Promise.all(
        forms.map((f) =>
          run(() =>
            cliAsync([...c.words, ...c.booleans.map((b) => f.arg(b.name)), '-v', '1'], {env}).then((r) => ({
              ...f,
              r,
            })),
          ),
        ),
      )
      for (const {form, want, r} of results) {
        const got = flagLog(r.stderr)
        for (const b of c.booleans) expect(got.get(b.name), `${id} ${form} for --${b.name}`).toBe(want)
        // Nothing was left over as an argument: `--x=false` is not `--x false`.
        expect(r.stderr, `${id} ${form}`).not.toMatch(
          /"false" not found|Unexpected argument|"true" not found/,
        )
      }
    })

    const shorts = c.booleans.filter((b) => b.char !== undefined)
    if (shorts.length > 0) {
      it(`${id}: shorthands ${shorts.map((b) => `-${b.char}`).join(', ')} alone, =true and =false`, async () => {
        for (const [arg, want] of [
          [(ch: string) => `-${ch}`, 'true'],
          [(ch: string) => `-${ch}=true`, 'true'],
          [(ch: string) => `-${ch}=false`, 'false'],
        ] as const) {
          const r = await run(() =>
            cliAsync([...c.words, ...shorts.map((b) => arg(b.char as string)), '-v', '1'], {env}),
          )
          const got = flagLog(r.stderr)
          for (const b of shorts) expect(got.get(b.name), `${id} ${arg('X')} for --${b.name}`).toBe(want)
        }
      })
    }
  }
})

describe('--x false leaves false as an argument, as pflag does', () => {
  it('explain: false becomes a Deployment name', () => {
    const r = cli(['explain', '--summary', 'false', '-f', 'examples/steady.yaml', '-n', 'demo'])
    expect(r.stderr).toContain('deployments.apps "false" not found')
    expect(r.code).toBe(1)
  })

  it('run, which takes no argument: an unexpected argument', () => {
    const r = cli(['run', '--leader-elect', 'false'], {env})
    expect(r.stderr).toMatch(/^error: .*false/)
    expect(r.code).toBe(2)
  })
})

describe('a value strconv.ParseBool refuses', () => {
  it('is a usage error in kubectl words, on every command with a boolean flag', async () => {
    for (const c of TABLE) {
      const b = c.booleans[0]!
      const r = await run(() => cliAsync([...c.words, `--${b.name}=maybe`], {env}))
      const name = b.char ? `-${b.char}, --${b.name}` : `--${b.name}`
      expect(r.stderr, c.words.join(' ')).toBe(
        `error: invalid argument "maybe" for "${name}" flag: strconv.ParseBool: parsing "maybe": invalid syntax\n`,
      )
      expect(r.code).toBe(2)
    }
  })
})

describe('the values take effect', () => {
  const at = ['--now', '2026-11-29T10:00:00Z']

  it('explain --summary=false is the report, --summary=true the one-line table', () => {
    const base = ['explain', '-f', 'examples/steady.yaml', '-n', 'demo', ...at]
    const off = cli([...base, '--summary=false'])
    const on = cli([...base, '--summary=true'])
    expect(off.stdout).toMatch(/^deployment demo\/web\nVerdict: /)
    expect(on.stdout).toMatch(/^DEPLOYMENT +VERDICT/)
    expect(cli([...base, '--summary']).stdout).toBe(on.stdout)
  })

  it('--no-headers=false keeps the header row, --no-headers=true drops it (the issue: "false" was a name)', () => {
    const base = ['explain', '--summary', '-f', 'examples/steady.yaml', '-n', 'demo', ...at]
    const keep = cli([...base, '--no-headers=false'])
    expect(keep.code).toBe(0)
    expect(keep.stdout).toMatch(/^DEPLOYMENT/)
    expect(cli([...base, '--no-headers=true']).stdout).toMatch(/^demo\/web /)
  })

  it('-A=false and --all-namespaces=false keep the namespace; -A takes all', () => {
    const base = ['explain', '--summary', '-f', 'examples/multi.yaml', '-n', 'demo', ...at, '-o', 'name']
    const demo = cli([...base, '--all-namespaces=false'])
    const all = cli([...base, '-A'])
    expect(demo.code).toBe(0)
    expect(cli([...base, '-A=false']).stdout).toBe(demo.stdout)
    expect(all.stdout.split('\n').length).toBeGreaterThan(demo.stdout.split('\n').length)
  })

  it('dry-run sync --exit-code=false exits 0 on a change, --exit-code=true 1', () => {
    const base = ['dry-run', 'sync', '-f', 'examples/new-deployment.yaml', '-n', 'demo', ...at]
    expect(cli([...base, '--exit-code=false']).code).toBe(0)
    expect(cli([...base, '--exit-code=true']).code).toBe(1)
    expect(cli([...base, '--exit-code']).code).toBe(1)
  })

  it('-R=false reads a directory without its subdirectories, -R with them', () => {
    const tree = tempFiles({})
    made.push(tree)
    // A directory inside the directory: a temporary one moved there.
    renameSync(
      tempFiles({'web.yaml': readFileSync(join(ROOT, 'examples/steady.yaml'), 'utf8')}),
      join(tree, 'sub'),
    )
    const base = ['explain', '--summary', '-f', tree, '-A', ...at, '-o', 'name']
    expect(cli([...base, '-R=false']).stdout).toBe('')
    expect(cli([...base, '-R']).stdout).toContain('deployment.apps/web')
  })
})
