// explain --timeline-summary and the end of rollout record: each rollout of a recording, read from the
// replay's states. The fixtures are recordings of the test API server with `run` as its controller
// (see test/unit/timeline-replay.test.ts): a rolling update, a rollout of an image that never pulls
// past a 5s progress deadline, and one undone mid-way; multi.ndjson is `rollout record -A` of three
// Deployments in two namespaces rolling at once (written with delta lines).

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {mergeTimelines, parseTimelineFile} from '../../src/cluster/timeline/read.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import {renderTimelineSummary} from '../../src/render/timeline-summary.js'
import {replayTimeline, replayTimelines} from '../../src/watch/replay.js'
import {
  type RolloutSummary,
  rolloutsOfReplay,
  summarizeTimeline,
  timelineDeployments,
} from '../../src/watch/timeline-summary.js'

const gates = parseFeatureGates(undefined)
const FIXTURES = join(import.meta.dirname, '../fixtures/timeline')

async function summary(name: string) {
  const timeline = mergeTimelines([parseTimelineFile(name, readFileSync(join(FIXTURES, name), 'utf8'))])
  return summarizeTimeline({timeline, gates, deployments: timelineDeployments(timeline)})
}

describe('the summary of a recording', () => {
  it('a rolling update: start at the template change, first new pod ready, peak pods, complete', async () => {
    const [r, ...more] = await summary('rollout.ndjson')
    expect(more).toEqual([])
    expect(r).toMatchObject({
      deployment: {namespace: 'default', name: 'web'},
      revision: 2,
      start: '2026-12-05T11:28:05.049Z',
      startedBeforeRecording: false,
      end: '2026-12-05T11:28:08.154Z',
      outcome: 'Complete',
      message: 'deployment "web" successfully rolled out',
      firstNewPodReady: {pod: 'web-795767664d-vzln9', time: '2026-12-05T11:28:06.046Z', afterSeconds: 1},
      // 3 replicas, maxSurge 1: four pods at once, five with the one terminating.
      peakPods: 4,
      peakPodsWithTerminating: 5,
      deadline: {fired: false, markedAt: null},
    })
    expect(r?.longestStall?.seconds).toBeGreaterThan(0)
  })

  it('a bad image: ImagePullBackOff is the longest stall and the pod that blocked longest; the deadline fired at its time', async () => {
    const [r] = await summary('bad-image.ndjson')
    expect(r?.outcome).toBe('ProgressDeadlineExceeded')
    expect(r?.firstNewPodReady).toBeNull()
    expect(r?.longestStall?.blocker).toMatchObject({
      code: 'ImagePullBackOff',
      object: 'pod/web-664f7647b8-mdbg6',
    })
    // progressDeadlineSeconds 5 from the last progress (the new ReplicaSet at 11:33:32Z).
    expect(r?.deadline).toEqual({
      fired: true,
      at: '2026-12-05T11:33:37Z',
      markedAt: '2026-12-05T11:33:38.002Z',
    })
    expect(r?.blockedLongest[0]).toMatchObject({pod: 'web-664f7647b8-mdbg6', code: 'ImagePullBackOff'})
    const text = renderTimelineSummary(r ? [r] : [])
    expect(text).toContain('deployment default/web revision 4: exceeded its progress deadline\n')
    expect(text).toMatch(
      /\n {2}longest stall {8}5\.7s, 2026-12-05T11:33:32\.260Z to 2026-12-05T11:33:38\.002Z: ImagePullBackOff \(pod\/web-664f7647b8-mdbg6: /,
    )
    expect(text).toContain(
      '\n  progress deadline    fired at 2026-12-05T11:33:37Z, marked by the controller at 2026-12-05T11:33:38.002Z\n',
    )
  })

  it('an undo mid-way: the bad rollout superseded when the template went back, then the undo complete', async () => {
    const rollouts = await summary('undo.ndjson')
    expect(rollouts.map((r) => r.outcome)).toEqual(['Superseded', 'Complete'])
    const [bad, undo] = rollouts
    expect(bad?.end).toBe(undo?.start)
    expect(bad?.message).toBe(`superseded by a new template at ${undo?.start}`)
    expect(bad?.blockedLongest[0]?.code).toBe('ImagePullBackOff')
  })

  it('one replay for every Deployment gives what one replay per Deployment gives (multi.ndjson: 3 Deployments in 2 namespaces, delta lines)', async () => {
    // multi.ndjson: rollout record -A while web rolled, was rolled again and undone, api got an image
    // that never pulls past a 6s deadline, and shop/cart rolled and was scaled from 4 to 6 mid-way.
    for (const name of ['multi.ndjson', 'rollout.ndjson', 'undo.ndjson', 'bad-image.ndjson']) {
      const timeline = mergeTimelines([parseTimelineFile(name, readFileSync(join(FIXTURES, name), 'utf8'))])
      const deployments = timelineDeployments(timeline)
      const perDeployment: RolloutSummary[] = []
      for (const key of deployments) {
        const replay = await replayTimeline({timeline, ...key, gates})
        perDeployment.push(...rolloutsOfReplay(key, replay, timeline))
      }
      const onePass = await summarizeTimeline({timeline, gates, deployments})
      expect(onePass).toEqual(perDeployment)
      // With the checks on, the one pass replays each Deployment as its own replay does.
      const all = await replayTimelines({timeline, gates, deployments})
      for (const [i, key] of deployments.entries()) {
        expect(JSON.stringify(all[i])).toBe(JSON.stringify(await replayTimeline({timeline, ...key, gates})))
      }
    }
    const timeline = mergeTimelines([
      parseTimelineFile('multi.ndjson', readFileSync(join(FIXTURES, 'multi.ndjson'), 'utf8')),
    ])
    const rollouts = await summarizeTimeline({timeline, gates, deployments: timelineDeployments(timeline)})
    expect(
      rollouts.map((r) => `${r.deployment.namespace}/${r.deployment.name} ${r.revision} ${r.outcome}`),
    ).toEqual([
      'default/api 2 ProgressDeadlineExceeded',
      'default/web 2 Complete',
      'default/web 3 Superseded',
      'default/web 4 Complete',
      'shop/cart 2 Complete',
    ])
    expect(rollouts.find((r) => r.deployment.name === 'api')?.longestStall?.blocker?.code).toBe(
      'ImagePullBackOff',
    )
    expect(rollouts.find((r) => r.deployment.name === 'cart')?.peakPods).toBeGreaterThanOrEqual(6)
  })
})
