// A timeline as -f input: the recording's header and lines, kubectl's watch streams (times from the
// objects), the world at --at, what an incomplete timeline says, and errors with file and line.

import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {loadWorld} from '../../src/cluster/load/index.js'
import {parseAt} from '../../src/cluster/load/timeline.js'
import {
  changeLine,
  headerLine,
  nanoTime,
  relistLine,
  type TimelineHeader,
} from '../../src/cluster/timeline/format.js'
import {objectTime} from '../../src/cluster/timeline/read.js'
import {InputError} from '../../src/errors.js'
import {deployment, pod, replicaSet} from '../objects.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true})
})

function file(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'deployctl-timeline-'))
  dirs.push(dir)
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

const T0 = Date.parse('2026-12-04T10:00:00Z')
const header = (over: Partial<TimelineHeader> = {}): TimelineHeader => ({
  apiVersion: 'deployctl.kubectl.io/v1alpha1',
  kind: 'Timeline',
  selection: {namespace: 'demo', names: ['web']},
  start: nanoTime(T0 + 50),
  kinds: ['Deployment', 'ReplicaSet', 'Pod', 'Event', 'HorizontalPodAutoscaler'],
  redacted: true,
  trimmed: 'managedFields',
  ...over,
})

const d = deployment({namespace: 'demo', defaulted: true, metadata: {uid: 'd-uid'}})
const labels = {app: 'web', 'pod-template-hash': '1'}
const rs = (replicas: number) =>
  replicaSet({
    name: 'web-1',
    owner: d,
    replicas,
    status: {replicas},
    labels,
    spec: {template: {metadata: {labels}, spec: {containers: [{name: 'app', image: 'nginx:1.27'}]}}},
  })

/** web's ReplicaSet at 3, scaled to 5 two seconds in, one pod deleted at +3s. */
function recording(over: Partial<TimelineHeader> = {}): string {
  const p = podOf('web-1-a')
  return [
    headerLine(header(over)),
    changeLine(T0 + 10, 'ADDED', d),
    changeLine(T0 + 20, 'ADDED', rs(3)),
    changeLine(T0 + 30, 'ADDED', p),
    changeLine(T0 + 2000, 'MODIFIED', rs(5)),
    changeLine(T0 + 3000, 'DELETED', p),
  ].join('')
}

const quiet = {warn: () => {}}

function podOf(name: string, creationTimestamp?: string) {
  const p = pod({name, owner: rs(3), ...(creationTimestamp ? {metadata: {creationTimestamp}} : {})})
  return {...p, spec: {containers: [{name: 'app', image: 'nginx:1.27'}]}}
}

describe('a recording as -f input', () => {
  it('is the world at its end by default, with the moment on the World', async () => {
    const w = await loadWorld([file('t.ndjson', recording())], quiet)
    expect(w.replicaSets.map((r) => r.spec.replicas)).toEqual([5])
    expect(w.pods).toEqual([])
    expect(w.timeline?.at).toBe(T0 + 3000)
    expect(w.timeline?.timeline.start).toBe(T0 + 50)
    expect(w.timeline?.incomplete).toEqual([])
  })

  it('--at +1s, an RFC 3339 time and -500ms pick the world then', async () => {
    const path = file('t.ndjson', recording())
    const at = async (text: string) => {
      const w = await loadWorld([path], {...quiet, at: parseAt(text)})
      return {replicas: w.replicaSets[0]?.spec.replicas, pods: w.pods.length, at: w.timeline?.at}
    }
    expect(await at('+1s')).toEqual({replicas: 3, pods: 1, at: T0 + 1050})
    expect(await at('2026-12-04T10:00:02Z')).toEqual({replicas: 5, pods: 1, at: T0 + 2000})
    expect(await at('-500ms')).toEqual({replicas: 5, pods: 1, at: T0 + 2500})
  })

  it('refuses a moment outside the timeline, naming its span', async () => {
    const path = file('t.ndjson', recording())
    await expect(loadWorld([path], {...quiet, at: parseAt('+1h')})).rejects.toThrow(
      /--at \+1h \(2026-12-04T11:00:00.05Z\) is after the timeline .*t\.ndjson ends: it runs from 2026-12-04T10:00:00.01Z to 2026-12-04T10:00:03Z/,
    )
  })

  it('says what a recording lacks: a kind it could not list, a watch that expired', async () => {
    const text = `${recording({kinds: ['Deployment', 'ReplicaSet']})}${relistLine(T0 + 4000, 'ReplicaSet', T0 + 2500)}${changeLine(T0 + 5000, 'MODIFIED', rs(4))}`
    const path = file('t.ndjson', text)
    const gap = await loadWorld([path], {...quiet, at: parseAt('+3s')})
    expect(gap.timeline?.incomplete).toEqual([
      'it holds no Pod: the recorder could not list it',
      expect.stringMatching(
        /^the watch of ReplicaSets expired at 2026-12-04T10:00:02.5Z and listed them again at 2026-12-04T10:00:04Z \(.*t\.ndjson:7\): ReplicaSet changes in between are missing$/,
      ),
    ])
    const after = await loadWorld([path], quiet)
    expect(after.timeline?.incomplete).toEqual(['it holds no Pod: the recorder could not list it'])
  })

  it('names the file, line and field of a bad line', async () => {
    const bad = async (text: string) => {
      const err = await loadWorld([file('t.ndjson', text)], quiet).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(InputError)
      return (err as Error).message.replace(/^.*t\.ndjson/, 't.ndjson')
    }
    const h = headerLine(header())
    expect(await bad(`${h}{"time":"2026-12-04T10:00:00Z","type":"CHANGED","object":{}}\n`)).toBe(
      't.ndjson:2: type: Invalid value: "CHANGED": expected ADDED, MODIFIED or DELETED (or a Timeline header on the first line)',
    )
    expect(await bad(`${h}{"time":"yesterday","type":"ADDED","object":${JSON.stringify(d)}}\n`)).toBe(
      't.ndjson:2: time: Invalid value: "yesterday": expected an RFC 3339 time',
    )
    expect(await bad(`${h}\n{"time": oops}\n`)).toMatch(/^t\.ndjson:3: invalid JSON: /)
    expect(await bad(headerLine({...header(), apiVersion: 'deployctl.kubectl.io/v9' as never}))).toBe(
      't.ndjson:1: Timeline: apiVersion "deployctl.kubectl.io/v9" is not supported: deployctl.kubectl.io/v1alpha1 is expected',
    )
  })
})

describe("kubectl's watch streams as -f input", () => {
  const managed = (time: string) => ({
    metadata: {managedFields: [{manager: 'kube-controller-manager', time}]},
  })
  const stream = (...events: Array<[string, unknown]>) =>
    events.map(([type, object]) => `${JSON.stringify({type, object})}\n`).join('')

  it('takes each change time from its object (managedFields included), never earlier than the line before', () => {
    const o = {...rs(3), metadata: {...rs(3).metadata, ...managed('2026-12-04T10:00:07Z').metadata}}
    expect(objectTime(o as never)).toBe(T0 + 7000)
    expect(objectTime({metadata: {creationTimestamp: '2026-12-04T10:00:01Z'}})).toBe(T0 + 1000)
  })

  it('merges one stream per kind by time and reads the world at --at', async () => {
    const created = {...d, metadata: {...d.metadata, creationTimestamp: '2026-12-04T10:00:00Z'}}
    const at = (s: string, o: ReturnType<typeof rs>) => ({
      ...o,
      metadata: {...o.metadata, ...managed(s).metadata},
    })
    const deploys = file('deploy.json', stream(['ADDED', created]))
    const sets = file(
      'rs.json',
      stream(['ADDED', at('2026-12-04T10:00:01Z', rs(3))], ['MODIFIED', at('2026-12-04T10:00:05Z', rs(5))]),
    )
    const pods = file('pods.json', stream(['ADDED', podOf('web-1-a', '2026-12-04T10:00:02Z')]))
    const w = await loadWorld([deploys, sets, pods], {...quiet, at: parseAt('2026-12-04T10:00:04Z')})
    expect(w.replicaSets[0]?.spec.replicas).toBe(3)
    expect(w.replicaSets[0]?.metadata.managedFields).toBeUndefined()
    expect(w.timeline?.timeline.timesFromObjects).toBe(true)
    expect(w.timeline?.incomplete).toEqual([])
  })

  it('says a stream that starts mid-way, or lacks a kind, is incomplete', async () => {
    const sets = file('rs.json', stream(['MODIFIED', rs(5)]))
    const w = await loadWorld([sets], quiet)
    expect(w.timeline?.incomplete).toEqual([
      'it holds no Deployment, Pod: add kubectl get deployments -w --output-watch-events -o json, kubectl get pods -w --output-watch-events -o json',
      expect.stringMatching(
        /^it starts mid-way: the first change of ReplicaSet demo\/web-1 \(.*rs\.json:1\) is MODIFIED/,
      ),
    ])
  })
})
