// One temporary root for a whole test run: every temp directory the tests, the CLI they spawn and
// kubectl create goes under it (TMPDIR, which os.tmpdir() and mktemp read, is inherited by the
// workers and their child processes), and teardown removes it, so a run leaves nothing in /tmp
// even when a test is interrupted before its own clean-up.

import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

export function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'deployctl-test-'))
  const before = process.env.TMPDIR
  process.env.TMPDIR = root
  return () => {
    if (before === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = before
    rmSync(root, {recursive: true, force: true})
  }
}
