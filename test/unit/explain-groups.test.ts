// explain's grouping of repeated blockers and events (src/render/explain-groups.ts): what counts as
// "the same" and kubectl describe's interval.

import {describe, expect, it} from 'vitest'
import {eventInterval, groupBlockers, groupCodes, groupEvents} from '../../src/render/explain-groups.js'
import type {Blocker, EventRow} from '../../src/status/types.js'

const NOW = Date.parse('2026-11-29T10:00:00Z')

function podBlocker(
  name: string,
  code: Blocker['code'],
  message: string,
  extra: Partial<Blocker> = {},
): Blocker {
  return {
    code,
    hard: true,
    object: {kind: 'Pod', name},
    replicaSet: 'web-abc',
    container: 'app',
    image: 'app:1',
    message,
    restarts: null,
    lastExitCode: null,
    since: null,
    until: null,
    ...extra,
  }
}

function event(name: string, message: string, count: number, first: string, last: string): EventRow {
  return {
    type: 'Warning',
    reason: 'BackOff',
    message,
    object: {kind: 'Pod', name},
    count,
    firstSeen: first,
    lastSeen: last,
  }
}

describe('groupBlockers', () => {
  it('groups pods whose blocker differs only in names and numbers, naming the first', () => {
    const crash = (name: string, restarts: number) =>
      podBlocker(
        name,
        'CrashLoopBackOff',
        `container app keeps crashing: ${restarts} restarts; last exit code 1 (Error) at 2026-11-29T09:5${restarts}:00Z`,
        {
          restarts,
          lastExitCode: 1,
        },
      )
    const groups = groupBlockers([crash('web-abc-1', 3), crash('web-abc-2', 5), crash('web-abc-3', 4)])
    expect(groups).toHaveLength(1)
    expect(groups[0]!.first.object.name).toBe('web-abc-1')
    expect(groups[0]!.members).toHaveLength(3)
  })

  it('keeps apart different exit codes, containers, images and ReplicaSets', () => {
    const base = (name: string, extra: Partial<Blocker>) =>
      podBlocker(name, 'CrashLoopBackOff', 'container app keeps crashing', extra)
    const groups = groupBlockers([
      base('a', {lastExitCode: 1}),
      base('b', {lastExitCode: 137}),
      base('c', {container: 'sidecar'}),
      base('d', {image: 'app:2'}),
      base('e', {replicaSet: 'web-old'}),
    ])
    expect(groups).toHaveLength(5)
  })

  it('treats ErrImagePull and ImagePullBackOff of one image as one problem, naming the pod with the registry error', () => {
    const groups = groupBlockers([
      podBlocker(
        'web-abc-1',
        'ImagePullBackOff',
        'container app cannot pull image app:1: Back-off pulling image "app:1"',
      ),
      podBlocker('web-abc-2', 'ErrImagePull', 'container app cannot pull image app:1: not found'),
      podBlocker(
        'web-abc-3',
        'ImagePullBackOff',
        'container app cannot pull image app:1: Back-off pulling image "app:1"',
      ),
    ])
    expect(groups).toHaveLength(1)
    expect(groups[0]!.first.object.name).toBe('web-abc-2')
    expect(groupCodes(groups[0]!)).toBe('ImagePullBackOff/ErrImagePull')
  })

  it('a kubelet message naming its own pod (name_namespace(uid)) still groups', () => {
    const msg = (n: string, uid: string) =>
      `back-off 5m0s restarting failed container=app pod=${n}_demo(${uid})`
    const groups = groupBlockers([
      podBlocker('web-abc-x1', 'CreateContainerError', msg('web-abc-x1', '0c1d-aa')),
      podBlocker('web-abc-y2', 'CreateContainerError', msg('web-abc-y2', '9f3e-bb')),
    ])
    expect(groups).toHaveLength(1)
  })
})

describe('groupEvents', () => {
  it('adds up the counts and spans the first and last sightings', () => {
    const groups = groupEvents([
      event('p1', 'Back-off pulling image "app:1"', 14, '2026-11-29T09:56:05Z', '2026-11-29T09:59:58Z'),
      event('p2', 'Back-off pulling image "app:1"', 10, '2026-11-29T09:56:03Z', '2026-11-29T09:59:40Z'),
      event('p2', 'Error: ErrImagePull', 5, '2026-11-29T09:56:04Z', '2026-11-29T09:59:30Z'),
    ])
    expect(groups).toHaveLength(2)
    expect(groups[0]).toMatchObject({
      count: 24,
      firstSeen: '2026-11-29T09:56:03Z',
      lastSeen: '2026-11-29T09:59:58Z',
    })
    expect(groups[0]!.objects.map((o) => o.name)).toEqual(['p1', 'p2'])
    expect(eventInterval(groups[0]!, NOW)).toBe('2s (x24 over 3m57s)')
  })

  it("prints kubectl describe's interval: the age alone for a single sighting", () => {
    expect(
      eventInterval({count: 1, firstSeen: '2026-11-29T09:56:00Z', lastSeen: '2026-11-29T09:56:00Z'}, NOW),
    ).toBe('4m')
    expect(
      eventInterval({count: 36, firstSeen: '2026-11-29T09:56:00Z', lastSeen: '2026-11-29T09:59:00Z'}, NOW),
    ).toBe('60s (x36 over 4m)')
    expect(eventInterval({count: 2, firstSeen: null, lastSeen: null}, NOW)).toBe(
      '<unknown> (x2 over <unknown>)',
    )
  })
})
