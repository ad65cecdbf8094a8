// What a recording writes: secret-like values redacted, objects trimmed as the caches hold them, and
// the file kept under --max-size by dropping the oldest superseded pod (then Event) updates.

import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {parseSize} from '../../src/cli/rollout-record.js'
import {
  changeLine,
  nanoTime,
  TIMELINE_API_VERSION,
  TIMELINE_KIND,
  type TimelineHeader,
} from '../../src/cluster/timeline/format.js'
import {parseTimelineFile} from '../../src/cluster/timeline/read.js'
import {RecordingFile} from '../../src/cluster/timeline/recording-file.js'
import {REDACTED, redactValue} from '../../src/cluster/timeline/redact.js'
import {recordedObject} from '../../src/cluster/timeline/trim.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true})
})

describe('redaction', () => {
  const container = {
    name: 'app',
    env: [
      {name: 'DB_PASSWORD', value: 'hunter2'},
      {name: 'GITHUB_TOKEN', value: 'ghp_x'},
      {name: 'API_KEY', value: 'k'},
      {name: 'LOG_LEVEL', value: 'debug'},
      {name: 'SECRET_FROM_REF', valueFrom: {secretKeyRef: {name: 's', key: 'k'}}},
    ],
  }

  it('replaces env values whose name looks like a secret, and only those', () => {
    const out = redactValue({spec: {template: {spec: {containers: [container]}}}}) as never as {
      spec: {template: {spec: {containers: Array<{env: Array<{name: string; value?: string}>}>}}}
    }
    expect(out.spec.template.spec.containers[0]?.env.map((e) => `${e.name}=${e.value}`)).toEqual([
      `DB_PASSWORD=${REDACTED}`,
      `GITHUB_TOKEN=${REDACTED}`,
      `API_KEY=${REDACTED}`,
      'LOG_LEVEL=debug',
      'SECRET_FROM_REF=undefined',
    ])
    // The input object is left as it was.
    expect(container.env[0]?.value).toBe('hunter2')
  })

  it('blanks everything under data, also inside the last-applied-configuration annotation', () => {
    const applied = JSON.stringify({
      kind: 'Deployment',
      data: {a: 'x'},
      spec: {template: {spec: {containers: [container]}}},
    })
    const out = redactValue({
      metadata: {annotations: {'kubectl.kubernetes.io/last-applied-configuration': applied}},
      data: {'config.yaml': 'password: x', nested: {n: 1}},
    }) as {metadata: {annotations: Record<string, string>}; data: unknown}
    expect(out.data).toEqual({'config.yaml': REDACTED, nested: {n: REDACTED}})
    const inner = JSON.parse(
      out.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'] ?? '',
    )
    expect(inner.data).toEqual({a: REDACTED})
    expect(inner.spec.template.spec.containers[0].env[0].value).toBe(REDACTED)
    expect(inner.spec.template.spec.containers[0].env[3].value).toBe('debug')
  })

  it('drops managedFields, and keeps the values with redact off', () => {
    const o = {metadata: {name: 'p', managedFields: [{manager: 'm'}]}, spec: {containers: [container]}}
    const kept = recordedObject('Pod', o, false) as typeof o
    expect(kept.metadata).toEqual({name: 'p'})
    expect(kept.spec.containers[0]?.env[0]?.value).toBe('hunter2')
  })
})

describe('--max-size', () => {
  it('reads sizes as kubectl quantities or bytes', () => {
    expect(parseSize('256Mi')).toBe(256 * 1024 * 1024)
    expect(parseSize('50MB')).toBe(50_000_000)
    expect(parseSize('1Gi')).toBe(1024 ** 3)
    expect(parseSize('4096')).toBe(4096)
    expect(parseSize('0')).toBeUndefined()
    expect(parseSize('lots')).toBeUndefined()
  })

  const header: TimelineHeader = {
    apiVersion: 'deployctl.kubectl.io/v1alpha1',
    kind: 'Timeline',
    selection: {namespace: 'default'},
    start: nanoTime(0),
    kinds: ['Deployment', 'ReplicaSet', 'Pod', 'Event'],
    redacted: true,
    trimmed: 'managedFields',
  }
  const podAt = (name: string, n: number) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name, namespace: 'default', resourceVersion: String(n)},
    status: {phase: 'Running', note: 'x'.repeat(200)},
  })
  const rsAt = (n: number) => ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {name: 'rs', namespace: 'default'},
    spec: {replicas: n},
  })

  it('drops the oldest superseded pod updates first, keeping creations, deletions, latest states and every ReplicaSet change', () => {
    const dir = mkdtempSync(join(tmpdir(), 'deployctl-rec-'))
    dirs.push(dir)
    const path = join(dir, 't.ndjson')
    const file = new RecordingFile(path, 4000, header)
    file.open()
    let t = 1000
    const put = (
      type: 'ADDED' | 'MODIFIED' | 'DELETED',
      o: {kind: string; metadata: {name: string; namespace: string}},
    ) => {
      t += 10
      file.append(changeLine(t, type, o), {
        kind: o.kind as 'Pod',
        type,
        time: t,
        key: `${o.kind}/default/${o.metadata.name}`,
      })
    }
    put('ADDED', rsAt(1))
    put('ADDED', podAt('a', 1))
    for (let i = 2; i < 30; i++) {
      put('MODIFIED', podAt('a', i))
      if (i % 10 === 0) put('MODIFIED', rsAt(i))
    }
    put('DELETED', podAt('a', 30))
    file.close()
    expect(file.bytes).toBeLessThanOrEqual(4000)
    const text = readFileSync(path, 'utf8')
    expect(Buffer.byteLength(text)).toBe(file.bytes)
    const read = parseTimelineFile(path, text)
    expect(read.header?.compacted?.podUpdates).toBeGreaterThan(0)
    const pods = read.changes.filter((c) => c.kind === 'Pod')
    expect(pods[0]?.type).toBe('ADDED')
    expect(pods.at(-1)?.type).toBe('DELETED')
    // The newest pod updates stay; the dropped ones are the oldest.
    const versions = pods.map((c) => Number((c.object.metadata as {resourceVersion: string}).resourceVersion))
    expect(versions).toEqual([...versions].sort((a, b) => a - b))
    expect(versions.at(-2)).toBe(29)
    expect(
      read.changes
        .filter((c) => c.kind === 'ReplicaSet')
        .map((c) => (c.object.spec as {replicas: number}).replicas),
    ).toEqual([1, 10, 20])
  })

  it('stops with an error when nothing more can be dropped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'deployctl-rec-'))
    dirs.push(dir)
    const file = new RecordingFile(join(dir, 't.ndjson'), 1000, header)
    file.open()
    expect(() => {
      for (let i = 0; i < 20; i++) {
        file.append(changeLine(i, 'MODIFIED', rsAt(i)), {
          kind: 'ReplicaSet',
          type: 'MODIFIED',
          time: i,
          key: 'ReplicaSet/default/rs',
        })
      }
    }).toThrow(/reached --max-size \(1000 bytes\) and holds no more pod or Event updates to drop/)
    file.close()
  })
})

describe('one recorder per file (FILE.lock)', () => {
  const lockHeader: TimelineHeader = {
    apiVersion: TIMELINE_API_VERSION,
    kind: TIMELINE_KIND,
    context: 'test',
    server: 'https://example.test',
    selection: {namespace: 'default'},
    recorder: 'test',
    start: '2026-12-06T08:00:00.000Z',
    kinds: ['Deployment'],
    redacted: true,
    trimmed: '',
  }

  function fresh(): string {
    const dir = mkdtempSync(join(tmpdir(), 'deployctl-rec-lock-'))
    dirs.push(dir)
    return join(dir, 'web.ndjson')
  }

  it('refuses a second writer while the first holds the file, and lets one in once it is closed', () => {
    const path = fresh()
    const first = new RecordingFile(path, 1 << 20, lockHeader)
    first.open()
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(`${process.pid}\n`)
    const second = new RecordingFile(path, 1 << 20, lockHeader)
    expect(() => second.open()).toThrow(
      `${path} is being recorded by another process (pid ${process.pid}): give another -O FILE, or remove ${path}.lock if that process is not a recorder`,
    )
    // The refused writer left the file as the first wrote it.
    expect(parseTimelineFile(path, readFileSync(path, 'utf8')).header?.context).toBe('test')
    first.close()
    expect(existsSync(`${path}.lock`)).toBe(false)
    second.open()
    second.close()
    expect(readdirSync(dirname(path))).toEqual(['web.ndjson'])
  })

  it('takes over the lock of a process that is gone, not one that names no pid yet', () => {
    const path = fresh()
    // A pid that existed and is gone: a child that has exited.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    })
    writeFileSync(`${path}.lock`, `${gone.stdout}\n`)
    const file = new RecordingFile(path, 1 << 20, lockHeader)
    file.open()
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(`${process.pid}\n`)
    file.close()
    expect(existsSync(`${path}.lock`)).toBe(false)
    // Created, its pid not written yet: another recorder is taking the file.
    writeFileSync(`${path}.lock`, '')
    expect(() => file.open()).toThrow(
      `${path} is being recorded by another process: give another -O FILE, or remove ${path}.lock if that process is not a recorder`,
    )
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe('')
  })

  it('names the file when its folder cannot be written', () => {
    const path = join(fresh(), 'no-such-dir', 'web.ndjson')
    expect(() => new RecordingFile(path, 1 << 20, lockHeader).lock()).toThrow(
      new RegExp(`^cannot write the recording ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ENOENT`),
    )
  })
})
