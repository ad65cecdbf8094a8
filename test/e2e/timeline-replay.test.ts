// rollout watch --replay through the built CLI, on the recordings of test/fixtures/timeline (made on
// the test API server with `run` as its controller; see test/unit/timeline-replay.test.ts).

import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {cli} from './helpers.js'

const BY_HAND = 'test/fixtures/timeline/scale-rs-by-hand.ndjson'
const ROLLOUT = 'test/fixtures/timeline/rollout.ndjson'

describe('rollout watch -f TIMELINE --replay', () => {
  it('plays a rollout in kubectl words, finds no divergence and exits 0 as the live watch did', () => {
    const r = cli(['rollout', 'watch', 'web', '-f', ROLLOUT, '--replay', '--line-mode'])
    expect(r.code).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines).toContain('web [11:28:06 +19s] Scaled down replica set web-697578869 from 3 to 2')
    expect(lines.at(-2)).toBe(
      "web [11:28:08 +21s] replay: no divergence between the recorded ReplicaSet writes and the port's",
    )
    expect(lines.at(-1)).toBe('web [11:28:08 +21s] deployment "web" successfully rolled out')
  })

  it('names the ReplicaSet scaled by hand and when, with its reason code', () => {
    const r = cli(['rollout', 'watch', 'web', '-f', BY_HAND, '--replay', '--line-mode'])
    expect(r.code).toBe(0)
    const divergences = r.stdout.split('\n').filter((l) => l.includes('] divergence '))
    expect(divergences).toEqual([
      `web [11:32:19 +1s] divergence OtherWriter: replicaset web-795767664d was scaled from 3 to 5 at 2026-12-05T11:32:19.123Z (${BY_HAND}:27) without a ScalingReplicaSet event of the deployment controller, and the port would not write it then: a manual edit or another controller`,
    ])
    expect(r.stdout).toContain(
      "replay: 1 divergence between the recorded ReplicaSet writes and the port's (1 OtherWriter)\n",
    )
  })

  it('says a write of a controller behind on its queue came late, with the delay, and does not call it missing', () => {
    // The rollout's recording with every line from the controller's first scale-down of the old
    // ReplicaSet on 15 s later: the controller made the write the port wanted, but late.
    const [head, ...rest] = readFileSync(ROLLOUT, 'utf8').trimEnd().split('\n')
    const down = rest.findIndex((l) => l.includes('"name":"web-697578869"') && l.includes('"replicas":2,'))
    expect(down).toBeGreaterThan(0)
    const shifted = rest.map((l, i) => {
      if (i < down) return l
      const v = JSON.parse(l) as {time: string}
      v.time = new Date(Date.parse(v.time) + 15_000).toISOString()
      return JSON.stringify(v)
    })
    const dir = mkdtempSync(join(tmpdir(), 'deployctl-late-'))
    try {
      const file = join(dir, 'late.ndjson')
      writeFileSync(file, `${[head, ...shifted].join('\n')}\n`)
      const r = cli(['rollout', 'watch', 'web', '-f', file, '--replay', '--line-mode'])
      expect(r.code).toBe(0)
      const wrote = (JSON.parse(shifted[down] as string) as {time: string}).time
      const divergences = r.stdout.split('\n').filter((l) => l.includes('] divergence '))
      expect(divergences).toHaveLength(1)
      expect(divergences[0]).toMatch(
        new RegExp(
          `^web \\[11:28:0\\d \\+\\d+s\\] divergence LateWrite: the deployment controller scaled replicaset web-697578869 from 3 to 2 at ${wrote.replace(/\./g, '\\.')} \\(${file.replace(/[.]/g, '\\.')}:${down + 2}\\), 1[56](\\.\\d)?s after the port would have acted: a controller behind on its work`,
        ),
      )
      expect(r.stdout).toContain(
        "replay: 1 divergence between the recorded ReplicaSet writes and the port's (1 LateWrite)\n",
      )
      expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/deployment "web" successfully rolled out$/)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('-o json: each Step carries its divergences, the End object their count', () => {
    const r = cli(['rollout', 'watch', 'web', '-f', BY_HAND, '--replay', '-o', 'json'])
    expect(r.code).toBe(0)
    const objects = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as {kind: string; divergences?: unknown})
    const end = objects.at(-1) as {kind: string; outcome: string; divergences: number}
    expect(end).toMatchObject({kind: 'End', outcome: 'complete', divergences: 1})
    const carried = objects.flatMap((o) => (Array.isArray(o.divergences) ? o.divergences : []))
    expect(carried).toMatchObject([
      {code: 'OtherWriter', replicaSet: 'web-795767664d', time: '2026-12-05T11:32:19.123Z'},
    ])
  })

  it('refuses --replay on anything but a timeline, in one line', () => {
    const r = cli(['rollout', 'watch', 'web', '-f', 'examples/rolling-update.yaml', '-n', 'demo', '--replay'])
    expect(r.code).not.toBe(0)
    expect(r.stderr.trim()).toBe(
      'error: --replay plays a recording, and examples/rolling-update.yaml is not one: give -f FILE written by rollout record (or kubectl get -w --output-watch-events -o json)',
    )
    const live = cli(['rollout', 'watch', 'web', '--replay'])
    expect(live.code).not.toBe(0)
    expect(live.stderr).toContain('--replay plays a recording')
  })
})

describe('explain -f TIMELINE --timeline-summary', () => {
  const BAD = 'test/fixtures/timeline/bad-image.ndjson'

  it('prints each rollout of the recording, naming the longest stall and the deadline', () => {
    const r = cli(['explain', 'web', '-f', BAD, '--timeline-summary'])
    expect(r.code).toBe(0)
    expect(r.stdout.split('\n')[0]).toBe('deployment default/web revision 4: exceeded its progress deadline')
    expect(r.stdout).toContain(
      '  longest stall        5.7s, 2026-12-05T11:33:32.260Z to 2026-12-05T11:33:38.002Z: ImagePullBackOff (pod/web-664f7647b8-mdbg6: ',
    )
    expect(r.stdout).toContain(
      '  progress deadline    fired at 2026-12-05T11:33:37Z, marked by the controller at 2026-12-05T11:33:38.002Z',
    )
  })

  it('-o json is a TimelineSummary document of the same rollouts', () => {
    const r = cli(['explain', '-f', 'test/fixtures/timeline/undo.ndjson', '--timeline-summary', '-o', 'json'])
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout) as {kind: string; items: {outcome: string}[]}
    expect(doc.kind).toBe('TimelineSummary')
    expect(doc.items.map((i) => i.outcome)).toEqual(['Superseded', 'Complete'])
  })

  it('refuses an input that is not a recording, in one line', () => {
    const r = cli(['explain', '-f', 'examples/rolling-update.yaml', '-n', 'demo', '--timeline-summary'])
    expect(r.code).not.toBe(0)
    expect(r.stderr.trim()).toBe(
      'error: --timeline-summary reads a recording, and examples/rolling-update.yaml is not one: give -f FILE written by rollout record (or kubectl get -w --output-watch-events -o json)',
    )
  })
})
