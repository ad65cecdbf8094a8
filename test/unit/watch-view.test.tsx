// The ink view of `rollout watch`, rendered with ink-testing-library and renderToString: header,
// tree, bars, blockers, events, fitting the terminal, and the app driven by a frame source.

import {join} from 'node:path'
import {render} from 'ink-testing-library'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {loadWorld} from '../../src/cluster/load/index.js'
import {frameToString, WatchApp} from '../../src/render/watch/app.js'
import {FrameBuilder, type WatchFrame} from '../../src/render/watch/frame.js'
import {
  type FrameSource,
  lastPerInstant,
  replayDelays,
  replaySource,
  type Timers,
} from '../../src/render/watch/replay.js'
import {Bar, layout, WatchView} from '../../src/render/watch/view.js'
import {simulate} from '../../src/sim/simulator.js'
import type {ReplicaSetSummary} from '../../src/status/observe.js'
import type {PodSummary} from '../../src/status/pods.js'

const ROOT = join(import.meta.dirname, '../..')
const T = Date.parse('2026-11-29T10:00:10Z')

function pod(
  name: string,
  state: PodSummary['state'],
  reason: string,
  extra: Partial<PodSummary> = {},
): PodSummary {
  return {
    name,
    state,
    reason,
    ready: state === 'ready' || state === 'available',
    available: state === 'available',
    restarts: 0,
    node: 'node-1',
    ...extra,
  }
}

function rs(over: Partial<ReplicaSetSummary>): ReplicaSetSummary {
  return {
    name: 'web-new',
    revision: 2,
    new: true,
    replicas: 0,
    current: 0,
    ready: 0,
    available: 0,
    terminating: 0,
    pods: [],
    ...over,
  }
}

function frame(over: Partial<WatchFrame> = {}): WatchFrame {
  return {
    name: 'web',
    namespace: 'demo',
    strategy: 'RollingUpdate',
    maxSurge: 1,
    maxUnavailable: 1,
    revision: 2,
    replicas: 4,
    verdict: {code: 'Progressing', reason: 'ScalingUp', tone: 'busy'},
    status: 'Waiting for deployment "web" rollout to finish: 3 out of 4 new replicas have been updated...',
    time: T,
    elapsed: 65_000,
    deadline: {at: T + 535_000, remaining: 535_000},
    eta: 40_000,
    replicaSets: [
      rs({
        replicas: 3,
        current: 3,
        ready: 1,
        available: 1,
        pods: [
          pod('web-new-aaaaa', 'available', 'Running'),
          pod('web-new-bbbbb', 'failing', 'CrashLoopBackOff', {
            restarts: 3,
            message: 'back-off 40s restarting failed container=app',
          }),
          pod('web-new-ccccc', 'creating', 'ContainerCreating', {node: 'node-2'}),
        ],
      }),
      rs({
        name: 'web-old',
        revision: 1,
        new: false,
        replicas: 2,
        current: 2,
        ready: 2,
        available: 2,
        terminating: 1,
        pods: [
          pod('web-old-ddddd', 'terminating', 'Terminating'),
          pod('web-old-eeeee', 'available', 'Running'),
          pod('web-old-fffff', 'available', 'Running'),
        ],
      }),
      rs({name: 'web-older', revision: 0, new: false}),
    ],
    blockers: ['2 new pods not available: CrashLoopBackOff (3 restarts), ContainerCreating'],
    events: [
      {
        time: T,
        type: 'Normal',
        reason: 'ScalingReplicaSet',
        object: 'Deployment/web',
        message: 'Scaled up replica set web-new from 2 to 3',
        source: 'deployment-controller',
      },
      {
        time: T,
        type: 'Warning',
        reason: 'BackOff',
        object: 'Pod/web-new-bbbbb',
        message: 'Back-off restarting failed container app',
        source: 'kubelet',
      },
    ],
    ...over,
  }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('WatchView', () => {
  it('draws the header, the revision tree with bars and pod reasons, blockers and events', () => {
    const {lastFrame} = render(<WatchView frame={frame()} columns={110} />)
    expect(lastFrame()).toBe(
      [
        'deployment demo/web  RollingUpdate maxSurge 1 maxUnavailable 1  revision 2',
        '↻ Progressing/ScalingUp  elapsed 65s (10:00:10)  deadline in 8m55s  ETA ~40s',
        'Waiting for deployment "web" rollout to finish: 3 out of 4 new replicas have been updated...',
        '',
        '▸ revision 2  web-new new',
        '    desired ██████░░░░ 3  current ██████░░░░ 3  ready ██░░░░░░░░ 1  available ██░░░░░░░░ 1',
        '    ● web-new-aaaaa Running                       node-1',
        '    ✖ web-new-bbbbb CrashLoopBackOff (3 restarts) node-1     back-off 40s restarting failed container=app',
        '    ○ web-new-ccccc ContainerCreating             node-2',
        '▸ revision 1  web-old',
        '    desired ████░░░░░░ 2  current ████░░░░░░ 2  ready ████░░░░░░ 2  available ████░░░░░░ 2  ⊘ 1',
        '    ⊘ web-old-ddddd Terminating node-1',
        '    ● web-old-eeeee Running     node-1',
        '    ● web-old-fffff Running     node-1',
        '▸ revision 0  web-older 0 pods',
        '',
        'waiting on',
        '  · 2 new pods not available: CrashLoopBackOff (3 restarts), ContainerCreating',
        '',
        'events',
        '  10:00:10 Normal  ScalingReplicaSet Deployment/web Scaled up replica set web-new from 2 to 3',
        '  10:00:10 Warning BackOff Pod/web-new-bbbbb Back-off restarting failed container app',
      ].join('\n'),
    )
  })

  it('shows the outcome and the summary instead of the countdown once the watch ended', () => {
    const done = frame({
      verdict: {code: 'DeadlineExceeded', reason: 'CrashLoopBackOff', tone: 'bad'},
      status: 'error: deployment "web" exceeded its progress deadline',
      deadline: undefined,
      outcome: {
        kind: 'deadlineExceeded',
        message: 'error: deployment "web" exceeded its progress deadline',
        summary: {duration: 661_000, peakPods: 6, minAvailable: 3, deadlineExceeded: true},
      },
    })
    const text = frameToString(done, 110)
    expect(text.split('\n').slice(0, 3)).toEqual([
      'deployment demo/web  RollingUpdate maxSurge 1 maxUnavailable 1  revision 2',
      '✖ DeadlineExceeded/CrashLoopBackOff  elapsed 65s (10:00:10)',
      'error: deployment "web" exceeded its progress deadline',
    ])
    // The verdict line is not repeated; the summary closes the frame.
    expect(text.match(/exceeded its progress deadline/g)).toHaveLength(1)
    expect(text.split('\n').at(-1)).toBe(
      'took 11m · at most 6 pods · at least 3 available · progress deadline exceeded',
    )
  })

  it('cuts lines to the width and fits the frame in the terminal height, failing pods first', () => {
    const many = frame({
      replicaSets: [
        rs({
          replicas: 10,
          current: 10,
          pods: Array.from({length: 10}, (_, i) =>
            i === 7
              ? pod(`web-new-${i}`, 'failing', 'ImagePullBackOff')
              : pod(`web-new-${i}`, 'available', 'Running'),
          ),
        }),
      ],
    })
    const text = frameToString(many, 60, 16)
    const lines = text.split('\n')
    expect(lines.length).toBeLessThanOrEqual(15)
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60)
    expect(text).toContain('web-new-7 ImagePullBackOff')
    expect(text).toMatch(/… and \d+ more pods/)
    // 16 rows: 10 for the header, tree heads, blockers and the last newline; 2 events; 2 pod lines.
    expect(layout(many, 16, false)).toEqual({podLimit: 2, events: 2})
    expect(text).toContain('… and 9 more pods')
  })

  it('draws bars in proportion', () => {
    expect(render(<Bar value={3} max={4} width={8} color="green" />).lastFrame()).toBe('██████░░')
    expect(render(<Bar value={0} max={0} width={4} color="green" />).lastFrame()).toBe('░░░░')
  })
})

describe('WatchApp', () => {
  /** A source the test pushes frames through. */
  function manualSource() {
    let push: (f: WatchFrame) => void = () => {}
    let end: () => void = () => {}
    let unsubscribed = false
    const source: FrameSource = {
      subscribe(onFrame, onEnd) {
        push = onFrame
        end = onEnd
        return () => {
          unsubscribed = true
        }
      },
    }
    return {source, push: (f: WatchFrame) => push(f), end: () => end(), unsubscribed: () => unsubscribed}
  }

  const tick = () => new Promise((r) => setTimeout(r, 20))

  /** Waits (up to 5s) until `check` holds: ink renders on its own schedule. */
  async function until(check: () => boolean): Promise<void> {
    for (let i = 0; i < 250 && !check(); i++) await tick()
  }

  it('redraws on each frame and exits after showing the last one', async () => {
    const s = manualSource()
    const app = render(<WatchApp source={s.source} columns={110} rows={40} footer="replay · q to quit" />)
    await tick()
    expect(app.lastFrame()).toBe('')
    s.push(frame())
    await tick()
    expect(app.lastFrame()).toContain('3 out of 4 new replicas have been updated')
    expect(app.lastFrame()?.split('\n').at(-1)).toBe('replay · q to quit')
    s.push(
      frame({
        status: 'deployment "web" successfully rolled out',
        verdict: {code: 'Complete', reason: 'RolloutComplete', tone: 'good'},
      }),
    )
    s.end()
    await until(() => s.unsubscribed())
    // On unmount ink 8 also writes a newline and an empty write barrier: the last frame drawn is
    // the last one with text.
    const last = app.frames.findLast((f) => f.trim() !== '') ?? ''
    expect(last).toContain('✔ Complete')
    expect(last).not.toContain('q to quit')
    expect(s.unsubscribed()).toBe(true)
  })

  it('stops on q and says it was interrupted', async () => {
    const s = manualSource()
    const onInterrupt = vi.fn()
    const app = render(<WatchApp source={s.source} onInterrupt={onInterrupt} />)
    s.push(frame())
    await tick()
    app.stdin.write('q')
    await tick()
    expect(onInterrupt).toHaveBeenCalledOnce()
    expect(s.unsubscribed()).toBe(true)
  })

  it('replays a simulated rollout frame by frame', async () => {
    const world = await loadWorld([join(ROOT, 'examples/rolling-update.yaml')])
    const sim = await simulate(world, {namespace: 'demo', name: 'web', start: T})
    const builder = new FrameBuilder()
    const frames = sim.timeline.map((e) => builder.push(e))
    frames[frames.length - 1] = builder.finish({kind: 'complete', message: sim.summary.message}) as WatchFrame
    const timers: Timers = {
      setTimeout: (fn) => setTimeout(fn, 1),
      clearTimeout: (h) => clearTimeout(h as number),
    }
    const app = render(
      <WatchApp
        source={replaySource(
          frames,
          replayDelays(
            frames.map((f) => f.time),
            'auto',
          ),
          timers,
        )}
        columns={110}
      />,
    )
    await until(() => (app.lastFrame() ?? '').includes('Complete'))
    expect(new Set(app.frames).size).toBeGreaterThan(2)
    expect(app.lastFrame()).toContain('✔ Complete/RolloutComplete  elapsed 16s (10:00:26)')
    expect(app.lastFrame()).toContain('deployment "web" successfully rolled out')
  })
})

describe('replay timing', () => {
  it('plays any timeline in a few seconds at auto speed, 20 frames a second at most', () => {
    const times = [0, 0, 0, 1_000, 10_000, 10_000, 600_000]
    const delays = replayDelays(times, 'auto')
    expect(delays[0]).toBe(0)
    for (const d of delays.slice(1)) expect(d).toBeGreaterThanOrEqual(20)
    const total = delays.reduce((a, b) => a + b, 0)
    expect(total).toBeGreaterThan(2_900)
    expect(total).toBeLessThan(6_500)
  })

  it('keeps the last frame of each virtual instant', () => {
    const frames = [0, 0, 5, 5, 5, 9].map((time, i) => ({time, i}))
    expect(lastPerInstant(frames).map((f) => f.i)).toEqual([1, 4, 5])
  })

  it('follows the virtual clock at an explicit speed', () => {
    expect(replayDelays([0, 0, 10_000, 70_000], 10)).toEqual([0, 50, 1_000, 6_000])
  })

  it('schedules frames with the given delays and ends after a hold', () => {
    vi.useFakeTimers()
    const seen: string[] = []
    const source = replaySource([frame({status: 'a'}), frame({status: 'b'})], [0, 500], undefined, 300)
    source.subscribe(
      (f) => seen.push(f.status),
      () => seen.push('end'),
    )
    expect(seen).toEqual(['a'])
    vi.advanceTimersByTime(499)
    expect(seen).toEqual(['a'])
    vi.advanceTimersByTime(1)
    expect(seen).toEqual(['a', 'b'])
    vi.advanceTimersByTime(300)
    expect(seen).toEqual(['a', 'b', 'end'])
  })
})
