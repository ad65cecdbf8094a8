// `completion bash` through a real bash: the script asks `kubectl-deployctl __complete` (the npm
// build here, on the PATH as a user would have it) and fills COMPREPLY as bash's completion would.

import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, cli, ROOT} from './helpers.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'deployctl-completion-'))
  writeFileSync(join(dir, 'kubectl-deployctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
    mode: 0o755,
  })
  const script = cli(['completion', 'bash'])
  expect(script.code).toBe(0)
  writeFileSync(join(dir, 'completion.bash'), script.stdout)
})

afterAll(() => rmSync(dir, {recursive: true, force: true}))

/** COMPREPLY after completing the last of `words` (bash's COMP_WORDS, split as bash splits). */
function reply(words: string[]): string[] {
  const r = spawnSync(
    'bash',
    [
      '--norc',
      '-c',
      `source ${JSON.stringify(join(dir, 'completion.bash'))}
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
__kubectl_deployctl_complete
printf '%s\\n' "\${COMPREPLY[@]}"`,
      'bash',
      ...words,
    ],
    {cwd: ROOT, encoding: 'utf8', env: {PATH: `${dir}:/usr/bin:/bin`, HOME: dir}, timeout: 60_000},
  )
  expect(r.stderr).toBe('')
  return r.stdout.split('\n').filter((l) => l !== '')
}

describe('completion bash', () => {
  it('registers itself for kubectl-deployctl and completes commands and subcommands', () => {
    expect(cli(['completion', 'bash']).stdout).toMatch(
      /^complete -o default -F __kubectl_deployctl_complete kubectl-deployctl$/m,
    )
    expect(reply(['kubectl-deployctl', ''])).toEqual([
      'completion',
      'dry-run',
      'explain',
      'plan',
      'reconcile-once',
      'rollout',
      'run',
      'version',
    ])
    expect(reply(['kubectl-deployctl', 'dry-run', 'sy'])).toEqual(['sync'])
  })

  it('completes flag values, also after "=" (which bash splits off)', () => {
    expect(reply(['kubectl-deployctl', 'explain', '-o', ''])).toEqual([
      'table',
      'wide',
      'json',
      'yaml',
      'name',
      'jsonpath=',
    ])
    expect(reply(['kubectl-deployctl', 'explain', '--output', '=', 'j'])).toEqual(['json', 'jsonpath='])
  })

  it('zsh and fish scripts ask the same __complete', () => {
    for (const shell of ['zsh', 'fish']) {
      const r = cli(['completion', shell])
      expect(r.code).toBe(0)
      expect(r.stdout).toContain('__complete')
      expect(r.stdout).toContain('kubectl-deployctl')
    }
    const bad = cli(['completion', 'tcsh'])
    expect(bad.code).not.toBe(0)
  })
})
