// Delta lines (src/cluster/timeline/delta.ts): a change written as a JSON merge patch against the
// previous line of the same object. A recording written with them must read back as the very same
// objects as one written whole, replay and summarize the same, and stay so through --max-size
// compaction. The recordings are the real ones of test/fixtures/timeline and examples/.

import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {applyMergePatch, DeltaEncoder, mergePatchBetween} from '../../src/cluster/timeline/delta.js'
import {
  type ChangeType,
  nanoTime,
  objectKeyOf,
  type RecordedKind,
  type TimelineHeader,
} from '../../src/cluster/timeline/format.js'
import {mergeTimelines, parseTimelineFile, type Timeline} from '../../src/cluster/timeline/read.js'
import {RecordingFile} from '../../src/cluster/timeline/recording-file.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import {InputError} from '../../src/errors.js'
import {replayTimeline} from '../../src/watch/replay.js'
import {summarizeTimeline, timelineDeployments} from '../../src/watch/timeline-summary.js'

const gates = parseFeatureGates(undefined)
const FIXTURES = join(import.meta.dirname, '../fixtures/timeline')
const RECORDINGS = [
  join(FIXTURES, 'rollout.ndjson'),
  join(FIXTURES, 'bad-image.ndjson'),
  join(FIXTURES, 'undo.ndjson'),
  join(FIXTURES, 'scale-rs-by-hand.ndjson'),
  join(import.meta.dirname, '../../examples/post-mortem.ndjson'),
]

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true})
})
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'deployctl-delta-'))
  dirs.push(dir)
  return dir
}

/** Each line of a recording written again, with deltas where they are exact and shorter. */
function withDeltas(text: string): {text: string; deltas: number} {
  const [head, ...rest] = text.trimEnd().split('\n')
  const encoder = new DeltaEncoder()
  let deltas = 0
  const out = [head as string]
  for (const l of rest) {
    const v = JSON.parse(l) as {time: string; type: string; object?: unknown}
    if (v.object === undefined) {
      out.push(l)
      continue
    }
    const {line, delta} = encoder.line(Date.parse(v.time), v.type as ChangeType, v.object)
    if (delta) deltas++
    out.push(line.trimEnd())
  }
  return {text: `${out.join('\n')}\n`, deltas}
}

const read = (name: string, text: string): Timeline => mergeTimelines([parseTimelineFile(name, text)])

/** What a reader sees of each change: its time, type, kind, key and the object as JSON. */
const seen = (t: Timeline) => t.changes.map((c) => [c.time, c.type, c.kind, c.key, JSON.stringify(c.object)])

describe('JSON merge patch (RFC 7386)', () => {
  // upstream: RFC 7386 Appendix A, the test cases
  it.each([
    [{a: 'b'}, {a: 'c'}, {a: 'c'}],
    [{a: 'b'}, {b: 'c'}, {a: 'b', b: 'c'}],
    [{a: 'b'}, {a: null}, {}],
    [{a: 'b', b: 'c'}, {a: null}, {b: 'c'}],
    [{a: ['b']}, {a: 'c'}, {a: 'c'}],
    [{a: 'c'}, {a: ['b']}, {a: ['b']}],
    [{a: {b: 'c'}}, {a: {b: 'd', c: null}}, {a: {b: 'd'}}],
    [{a: [{b: 'c'}]}, {a: [1]}, {a: [1]}],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{a: 'b'}, ['c'], ['c']],
    [{a: 'foo'}, null, null],
    [{a: 'foo'}, 'bar', 'bar'],
    [{e: null}, {a: 1}, {e: null, a: 1}],
    [[1, 2], {a: 'b', c: null}, {a: 'b'}],
    [{}, {a: {bb: {ccc: null}}}, {a: {bb: {}}}],
  ])('%j patched with %j is %j', (target, patch, result) => {
    expect(applyMergePatch(target, patch)).toEqual(result)
  })

  it('leaves the target as it was and shares what the patch does not touch', () => {
    const target = {metadata: {name: 'a', labels: {x: '1'}}, spec: {replicas: 1}, status: {n: 1}}
    const copy = structuredClone(target)
    const out = applyMergePatch(target, {status: {n: 2}}) as typeof target
    expect(target).toEqual(copy)
    expect(out.status).toEqual({n: 2})
    expect(out.metadata).toBe(target.metadata)
    expect(out.spec).toBe(target.spec)
  })

  it('makes no patch where applying one would not give back the object exactly', () => {
    // A key that appears before others would come last; a value that becomes null would go.
    expect(mergePatchBetween({a: 1, c: 3}, {a: 1, b: 2, c: 3})).toBeUndefined()
    expect(mergePatchBetween({a: 1}, {a: null})).toBeUndefined()
    expect(mergePatchBetween({a: 1}, {a: 1, b: {c: null}})).toBeUndefined()
    expect(mergePatchBetween({a: 1, b: [1]}, {a: 2, b: [1, 2], c: 3})).toEqual({a: 2, b: [1, 2], c: 3})
    expect(mergePatchBetween({a: {b: 1, c: 2}}, {a: {b: 1}})).toEqual({a: {c: null}})
  })
})

describe('a recording with delta lines', () => {
  it.each(RECORDINGS)('reads back as the same objects as written whole, and is smaller: %s', (file) => {
    const text = readFileSync(file, 'utf8')
    const d = withDeltas(text)
    expect(d.deltas).toBeGreaterThan(0)
    expect(d.text.length).toBeLessThan(text.length)
    expect(seen(read(file, d.text))).toEqual(seen(read(file, text)))
  })

  it.each(RECORDINGS)('replays and summarizes as written whole: %s', async (file) => {
    const text = readFileSync(file, 'utf8')
    const whole = read(file, text)
    const delta = read(file, withDeltas(text).text)
    const keys = timelineDeployments(whole)
    expect(keys.length).toBeGreaterThan(0)
    for (const key of keys) {
      const a = await replayTimeline({timeline: whole, ...key, gates})
      const b = await replayTimeline({timeline: delta, ...key, gates})
      expect(JSON.stringify(b)).toBe(JSON.stringify(a))
    }
    const s = (timeline: Timeline) => summarizeTimeline({timeline, gates, deployments: keys})
    expect(await s(delta)).toEqual(await s(whole))
  })

  it('says which line a patch has nothing to apply to, or is no patch', () => {
    const [head, ...rest] = withDeltas(readFileSync(RECORDINGS[0] as string, 'utf8'))
      .text.trimEnd()
      .split('\n')
    const at = rest.findIndex((l) => l.includes('"patch":'))
    const orphan = [head, ...rest.slice(at)].join('\n')
    expect(() => parseTimelineFile('t.ndjson', orphan)).toThrow(InputError)
    expect(() => parseTimelineFile('t.ndjson', orphan)).toThrow(
      /^t\.ndjson:2: uid: no earlier line of object \S+ for the patch to apply to$/,
    )
    const bad = [head, ...rest.slice(0, at), (rest[at] as string).replace(/"patch":.*\}$/, '"patch":[1]}')]
    expect(() => parseTimelineFile('t.ndjson', bad.join('\n'))).toThrow(
      new RegExp(`^t\\.ndjson:${at + 2}: patch: Invalid value: expected a JSON merge patch \\(an object\\)$`),
    )
    // A kubectl stream holds whole objects only.
    const stream = rest.slice(0, at + 1).map((l) => l.replace(/^\{"time":"[^"]*",/, '{'))
    expect(() => parseTimelineFile('w.json', stream.join('\n'))).toThrow(
      new RegExp(`^w\\.json:${at + 1}: patch: a delta line is only read in a recording of rollout record$`),
    )
  })

  it('keeps a line whole when its object has no uid, and after the object is deleted and made again', () => {
    const encoder = new DeltaEncoder()
    const pod = (rv: string, uid?: string) => ({
      kind: 'Pod',
      metadata: {name: 'p', namespace: 'default', ...(uid ? {uid} : {}), resourceVersion: rv},
      status: {phase: 'Pending', note: 'x'.repeat(100)},
    })
    expect(encoder.line(1, 'ADDED', pod('1')).delta).toBe(false)
    expect(encoder.line(2, 'MODIFIED', pod('2')).delta).toBe(false)
    expect(encoder.line(3, 'ADDED', pod('3', 'u1')).delta).toBe(false)
    const modified = encoder.line(4, 'MODIFIED', pod('4', 'u1'))
    expect(modified).toEqual({
      line: `{"time":"${nanoTime(4)}","type":"MODIFIED","kind":"Pod","uid":"u1","patch":{"metadata":{"resourceVersion":"4"}}}\n`,
      delta: true,
    })
    expect(encoder.line(5, 'DELETED', pod('5', 'u1')).delta).toBe(true)
    expect(encoder.line(6, 'ADDED', pod('6', 'u1')).delta).toBe(false)
    expect(new DeltaEncoder(false).line(4, 'MODIFIED', pod('4', 'u1')).delta).toBe(false)
  })
})

describe('--max-size with delta lines', () => {
  const header: TimelineHeader = {
    apiVersion: 'deployctl.kubectl.io/v1alpha1',
    kind: 'Timeline',
    selection: {namespace: 'default'},
    start: nanoTime(0),
    kinds: ['Deployment', 'ReplicaSet', 'Pod', 'Event'],
    redacted: true,
    trimmed: 'managedFields',
  }
  const pod = (name: string, n: number) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name, namespace: 'default', uid: `uid-${name}`, resourceVersion: String(n)},
    spec: {containers: [{name: 'app', image: 'nginx', args: ['x'.repeat(300)]}]},
    status: {phase: n < 5 ? 'Pending' : 'Running', restarts: n, note: `${'y'.repeat(n % 7)}`},
  })

  /** Writes pods a..e through the encoder and a RecordingFile of `max` bytes; returns what is read back. */
  function record(path: string, max: number) {
    const file = new RecordingFile(path, max, header)
    const encoder = new DeltaEncoder()
    file.open()
    let t = 1000
    const put = (type: ChangeType, o: ReturnType<typeof pod>) => {
      t += 10
      const {line, delta} = encoder.line(t, type, o)
      file.append(line, {kind: o.kind as RecordedKind, type, time: t, key: objectKeyOf('Pod', o), delta})
    }
    const names = ['a', 'b', 'c', 'd', 'e']
    for (const name of names) put('ADDED', pod(name, 1))
    for (let i = 2; i < 40; i++) for (const name of names) put('MODIFIED', pod(name, i))
    put('DELETED', pod('a', 40))
    file.close()
    return {file, text: readFileSync(path, 'utf8')}
  }

  it('writes the line after a dropped one against the line that stays before it, and reads back every kept state', () => {
    const dir = tempDir()
    const bounded = record(join(dir, 'bounded.ndjson'), 12_000)
    const whole = record(join(dir, 'whole.ndjson'), 1e9)
    expect(bounded.file.bytes).toBeLessThanOrEqual(12_000)
    expect(Buffer.byteLength(bounded.text)).toBe(bounded.file.bytes)
    const b = read('bounded.ndjson', bounded.text)
    expect(b.header?.compacted?.podUpdates).toBeGreaterThan(0)
    expect(bounded.text).toContain('"patch":')
    // Every state the bounded file keeps is the state the whole file has at that time.
    const states = new Map(
      read('whole.ndjson', whole.text).changes.map((c) => [`${c.key}@${c.time}`, JSON.stringify(c.object)]),
    )
    for (const c of b.changes) expect(JSON.stringify(c.object)).toBe(states.get(`${c.key}@${c.time}`))
    // Creations, deletions and the latest states stay.
    const pods = b.changes.filter((c) => c.key === 'Pod/default/b')
    expect(pods[0]?.type).toBe('ADDED')
    expect(pods.at(-1)?.object.metadata).toMatchObject({resourceVersion: '39'})
    expect(b.changes.at(-1)?.type).toBe('DELETED')
  })

  it('is written again under the bound as the recorder goes on', () => {
    const path = join(tempDir(), 't.ndjson')
    writeFileSync(path, '')
    const {file} = record(path, 6_000)
    expect(file.bytes).toBeLessThanOrEqual(6_000)
  })
})
