// rollout watch --replay: a recording played through the port. The fixtures are real recordings of
// the test API server (--simulate --pod-ready-after 1s) with `run` as its Deployment controller:
// rollout.ndjson a rolling update of web from 3 replicas, scale-rs-by-hand.ndjson a `kubectl scale
// rs/web-795767664d --replicas=5` on a finished rollout. The variants below edit a recording the way
// a different controller, or none, would have written it, and each must be reported with its code.

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {mergeTimelines, parseTimelineFile} from '../../src/cluster/timeline/read.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import {replayTimeline} from '../../src/watch/replay.js'

const gates = parseFeatureGates(undefined)
const FIXTURES = join(import.meta.dirname, '../fixtures/timeline')

function lines(name: string): string[] {
  return readFileSync(join(FIXTURES, name), 'utf8').trimEnd().split('\n')
}

function replay(name: string, text: string[]) {
  const timeline = mergeTimelines([parseTimelineFile(name, `${text.join('\n')}\n`)])
  return replayTimeline({timeline, namespace: 'default', name: 'web', gates})
}

type Line = {
  time: string
  type: string
  object: {
    kind: string
    metadata: {name: string}
    spec?: {replicas?: number}
    status?: Record<string, unknown>
    reason?: string
    message?: string
  }
}
const parse = (l: string) => JSON.parse(l) as Line

/** The index of the first line after `from` for which `pick` holds. */
function find(text: string[], pick: (l: Line) => boolean, from = 1): number {
  for (let i = from; i < text.length; i++) if (pick(parse(text[i] as string))) return i
  throw new Error('no such line')
}

const isRs = (name: string, replicas?: number) => (l: Line) =>
  l.object.kind === 'ReplicaSet' &&
  l.object.metadata.name === name &&
  (replicas === undefined || l.object.spec?.replicas === replicas)

const OLD = 'web-697578869'
const NEW = 'web-795767664d'

describe('rollout watch --replay', () => {
  it('finds no divergence in a rollout the port would have made write for write, and ends as the watch did', async () => {
    const r = await replay('rollout.ndjson', lines('rollout.ndjson'))
    expect(r.divergences).toEqual([])
    expect(r.end.code).toBe(0)
    expect(r.end.outcome.message).toBe('deployment "web" successfully rolled out')
    // The updates are the rollout's states on the recorded clock, from the first list to the end.
    expect(r.updates[0]?.time).toBe(Date.parse('2026-12-05T11:27:46.643Z'))
    expect(r.updates.at(-1)?.time).toBe(Date.parse('2026-12-05T11:28:08.154Z'))
    const sizes = r.updates.map((u) =>
      u.observation.replicaSets.map((rs) => `${rs.name}=${rs.replicas}`).join(' '),
    )
    expect(sizes).toContain(`${NEW}=2 ${OLD}=2`)
    // The recorded events of the rollout come with the update of their instant; those of the list do not.
    const scaled = r.updates.flatMap((u) => u.events).filter((e) => e.reason === 'ScalingReplicaSet')
    expect(scaled.map((e) => e.message)).toEqual([
      `Scaled up replica set ${NEW} from 0 to 1`,
      `Scaled down replica set ${OLD} from 3 to 2`,
      `Scaled up replica set ${NEW} from 1 to 2`,
      `Scaled down replica set ${OLD} from 2 to 1`,
      `Scaled up replica set ${NEW} from 2 to 3`,
      `Scaled down replica set ${OLD} from 1 to 0`,
    ])
  })

  it('reports a ReplicaSet scaled by hand as OtherWriter, naming it and the time, and nothing else', async () => {
    const text = lines('scale-rs-by-hand.ndjson')
    const at = find(text, isRs(NEW, 5))
    const r = await replay('scale-rs-by-hand.ndjson', text)
    expect(r.divergences).toHaveLength(1)
    const d = r.divergences[0]
    expect(d?.code).toBe('OtherWriter')
    expect(d?.replicaSet).toBe(NEW)
    expect(d?.time).toBe(Date.parse(parse(text[at] as string).time))
    expect(d?.message).toContain(
      `scaled from 3 to 5 at ${new Date(d?.time ?? 0).toISOString()} (scale-rs-by-hand.ndjson:${at + 1})`,
    )
    // The controller's scale back to 3 is what the port does too; the rollout ends complete.
    expect(r.end.code).toBe(0)
  })

  it('reports DifferentSize when the controller (its event says so) sized a ReplicaSet otherwise', async () => {
    const text = lines('rollout.ndjson')
    // The first scale-up of the new ReplicaSet (1 -> 2) written as 1 -> 3, event included.
    const i = find(text, isRs(NEW, 2))
    text[i] = (text[i] as string).replace('"replicas":2', '"replicas":3')
    const e = find(
      text,
      (l) =>
        l.object.reason === 'ScalingReplicaSet' && (l.object.message ?? '').includes(`${NEW} from 1 to 2`),
    )
    text[e] = (text[e] as string).replace(`${NEW} from 1 to 2`, `${NEW} from 1 to 3`)
    const r = await replay('rollout.ndjson', text)
    const first = r.divergences[0]
    expect(first?.code).toBe('DifferentSize')
    expect(first?.replicaSet).toBe(NEW)
    expect(first?.message).toContain(`the deployment controller scaled replicaset ${NEW} from 1 to 3`)
    expect(first?.message).toContain(`the port would scale replicaset ${NEW} from 1 to 2`)
  })

  it('reports EarlyWrite when the controller scaled down before the new pod it counted on was available', async () => {
    const text = lines('rollout.ndjson')
    // The new ReplicaSet's status saying its first pod is available, moved after the old one's scale-down.
    const status = find(text, (l) => isRs(NEW, 1)(l) && l.object.status?.availableReplicas === 1)
    const down = find(text, isRs(OLD, 2), status)
    const [moved] = text.splice(status, 1)
    text.splice(down, 0, moved as string)
    const r = await replay('rollout.ndjson', text)
    expect(r.divergences.map((d) => [d.code, d.replicaSet])).toEqual([['EarlyWrite', OLD]])
    expect(r.divergences[0]?.message).toContain(
      `the deployment controller scaled replicaset ${OLD} from 3 to 2`,
    )
  })

  it('reports MissingWrite when the port would have scaled and the recording shows no write for longer than the grace', async () => {
    const text = lines('rollout.ndjson')
    // Cut the recording once the first new pod is available; then only a late event of another object.
    const status = find(text, (l) => isRs(NEW, 1)(l) && l.object.status?.availableReplicas === 1)
    const cut = text.slice(0, status + 1)
    const last = parse(cut.at(-1) as string)
    const late = new Date(Date.parse(last.time) + 30_000).toISOString()
    cut.push(
      JSON.stringify({
        time: late,
        type: 'ADDED',
        object: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: {name: 'other.1', namespace: 'default'},
          involvedObject: {kind: 'Pod', name: 'other'},
          reason: 'Pulled',
          message: 'x',
        },
      }),
    )
    const r = await replay('rollout.ndjson', cut)
    expect(r.divergences.map((d) => [d.code, d.replicaSet])).toEqual([['MissingWrite', OLD]])
    expect(r.divergences[0]?.time).toBe(Date.parse(last.time))
    expect(r.divergences[0]?.message).toContain(`the port would scale replicaset ${OLD} from 3 to 2`)
    // The recording ends mid-rollout: not a success.
    expect(r.end.code).toBe(1)
    expect(r.end.outcome.message).toContain('the recording ends before deployment "web" rollout finished')
  })

  it('reports LateWrite, not MissingWrite, when the controller made the write the port wanted only after the grace', async () => {
    // A controller behind on its queue: every line from its first scale-down of the old ReplicaSet
    // on comes 15 s later, the write and its ScalingReplicaSet event included.
    const text = lines('rollout.ndjson')
    const status = find(text, (l) => isRs(NEW, 1)(l) && l.object.status?.availableReplicas === 1)
    const down = find(text, isRs(OLD, 2), status)
    const wanted = Date.parse(parse(text[down - 1] as string).time)
    for (let i = down; i < text.length; i++) {
      const l = JSON.parse(text[i] as string) as {time: string}
      l.time = new Date(Date.parse(l.time) + 15_000).toISOString()
      text[i] = JSON.stringify(l)
    }
    const wrote = parse(text[down] as string).time
    const r = await replay('rollout.ndjson', text)
    expect(r.divergences.map((d) => [d.code, d.replicaSet])).toEqual([['LateWrite', OLD]])
    const d = r.divergences[0]
    // The time is when the port would have acted; the message says when the controller did, and how late.
    expect(d?.time).toBe(wanted)
    const delay = Math.round((Date.parse(wrote) - wanted) / 100) / 10
    expect(d?.message).toBe(
      `the deployment controller scaled replicaset ${OLD} from 3 to 2 at ${wrote} (rollout.ndjson:${down + 1}), ${delay}s after the port would have acted: a controller behind on its work (starved of CPU, throttled by its client's rate limit, or stopped for a while)`,
    )
    // The rollout still ends as it did.
    expect(r.end.code).toBe(0)
  })

  it('counts the writes of one late pass as one act: a cleanup deleting ReplicaSets in turn is one LateWrite', async () => {
    // A second old ReplicaSet (0 replicas, kept as history) in the first list; after the rollout,
    // revisionHistoryLimit 0: the port deletes both old ReplicaSets at once, the controller deletes
    // them 12 s later, one request after the other (1.5 s apart).
    const text = lines('rollout.ndjson')
    const old = parse(text[2] as string)
    const extra = JSON.parse(JSON.stringify(old)) as Line & {
      object: {metadata: {uid: string; annotations: Record<string, string>}}
    }
    extra.object.metadata.name = 'web-5d4c9b8f7'
    extra.object.metadata.uid = '11111111-2222-3333-4444-555555555555'
    extra.object.metadata.annotations['deployment.kubernetes.io/revision'] = '0'
    extra.object.spec = {...extra.object.spec, replicas: 0}
    extra.object.status = {replicas: 0, observedGeneration: 1}
    text.splice(
      3,
      0,
      JSON.stringify(extra).replaceAll('697578869', '5d4c9b8f7').replace('nginx:1.28', 'nginx:1.26'),
    )
    const last = JSON.parse(text.at(-1) as string) as Line & {
      object: {
        metadata: {generation: number}
        spec: {revisionHistoryLimit: number}
        status: {observedGeneration: number}
      }
    }
    const end = Date.parse(last.time)
    const at = (ms: number) => new Date(end + ms).toISOString()
    last.time = at(1000)
    last.object.metadata.generation += 1
    last.object.status.observedGeneration = last.object.metadata.generation
    last.object.spec.revisionHistoryLimit = 0
    text.push(JSON.stringify(last))
    for (const [ms, rs] of [
      [13_000, extra],
      [14_500, old],
    ] as const) {
      text.push(JSON.stringify({time: at(ms), type: 'DELETED', object: rs.object}))
    }
    const r = await replay('rollout.ndjson', text)
    expect(r.divergences.map((d) => [d.code, d.replicaSet])).toEqual([['LateWrite', 'web-5d4c9b8f7']])
    expect(r.divergences[0]?.time).toBe(end + 1000)
    expect(r.divergences[0]?.message).toContain(
      `someone deleted replicaset web-5d4c9b8f7 at ${at(13_000)} (rollout.ndjson:${text.length - 1}), 12s after the port would have acted`,
    )
  })

  it('starts handing out updates at --at, and says when the Deployment is not in the recording', async () => {
    const text = lines('rollout.ndjson')
    const timeline = mergeTimelines([parseTimelineFile('rollout.ndjson', `${text.join('\n')}\n`)])
    const from = Date.parse('2026-12-05T11:28:07Z')
    const r = await replayTimeline({timeline, namespace: 'default', name: 'web', gates, from})
    // The first update is the world as it stood at --at, then one per change after it.
    expect(r.updates[0]?.time).toBe(from)
    expect(r.updates[1]?.time).toBeGreaterThan(from)
    expect(r.updates[0]?.elapsed).toBe(0)
    const missing = await replayTimeline({timeline, namespace: 'default', name: 'api', gates})
    expect(missing.end.code).toBe(1)
    expect(missing.end.outcome.message).toContain('deployments.apps "api" not found in the recording')
  })
})

describe('rollout watch --replay on a terminal', () => {
  it('shows the divergences found so far in the view, under their heading', async () => {
    const {FrameBuilder} = await import('../../src/render/watch/frame.js')
    const {frameToString} = await import('../../src/render/watch/app.js')
    const r = await replay('scale-rs-by-hand.ndjson', lines('scale-rs-by-hand.ndjson'))
    const builder = new FrameBuilder()
    const frames = r.updates.map((u) => builder.push(u))
    const before = frames[0]
    const after = frames.at(-1)
    expect(before?.divergences).toBeUndefined()
    expect(after?.divergences?.map((d) => d.code)).toEqual(['OtherWriter'])
    const text = frameToString(after as NonNullable<typeof after>, 200, 60)
    expect(text).toContain('divergences from the port')
    expect(text).toContain(`11:32:19 OtherWriter replicaset ${NEW} was scaled from 3 to 5`)
  })
})
