// progress.go: upstream's progress_test.go (requeueStuckDeployment with an injected clock, the
// syncRolloutStatus table) with the condition times asserted for real: upstream's time checks
// compare the test's own fields and never look at the controller's output.

import {describe, expect, it} from 'vitest'
import type {Deployment, DeploymentCondition, ReplicaSet} from '../../../src/controller/api/types.js'
import {requeueStuckDeployment, syncRolloutStatus} from '../../../src/controller/progress.js'
import {iso, newHarness, newUID, rs, withStatus} from './fixtures.js'

const MaxInt32 = 2147483647
const testTime = '2017-02-15T18:49:00Z'

// upstream: currentDeployment — Recreate (so maxUnavailable is 0), status without ready replicas.
function currentDeployment(
  pds: number | undefined,
  replicas: number,
  statusReplicas: number,
  updated: number,
  available: number,
  conditions: DeploymentCondition[],
): Deployment {
  const d: Deployment = {
    metadata: {name: 'progress-test', namespace: 'default', uid: newUID('d')},
    spec: {
      replicas,
      selector: {matchLabels: {foo: 'bar'}},
      strategy: {type: 'Recreate'},
      template: {metadata: {labels: {foo: 'bar'}}},
    },
    status: {replicas: statusReplicas, updatedReplicas: updated, availableReplicas: available},
  }
  if (pds !== undefined) d.spec.progressDeadlineSeconds = pds
  if (conditions.length > 0) d.status!.conditions = conditions.map((c) => ({...c}))
  return d
}

const rsWithAvailable = (name: string, spec: number, statusReplicas: number, available: number) =>
  withStatus(rs(name, spec, undefined), {replicas: statusReplicas, available})

describe('requeueStuckDeployment', () => {
  const stuck: DeploymentCondition = {
    type: 'Progressing',
    status: 'True',
    lastUpdateTime: testTime,
    lastTransitionTime: testTime,
  }
  const failed: DeploymentCondition = {
    type: 'Progressing',
    status: 'False',
    reason: 'ProgressDeadlineExceeded',
  }
  type Want = {after: number; requeue: 'none' | 'rateLimited' | number}
  const cases: Array<[string, Deployment, [number, number, number], string, Want]> = [
    [
      'nil progressDeadlineSeconds',
      currentDeployment(undefined, 4, 3, 3, 2, []),
      [3, 3, 2],
      '18:49:30',
      {after: -1, requeue: 'none'},
    ],
    [
      'infinite progressDeadlineSeconds',
      currentDeployment(MaxInt32, 4, 3, 3, 2, []),
      [3, 3, 2],
      '18:49:30',
      {after: -1, requeue: 'none'},
    ],
    [
      'no Progressing condition',
      currentDeployment(60, 4, 3, 3, 2, []),
      [3, 3, 2],
      '18:49:30',
      {after: -1, requeue: 'none'},
    ],
    [
      'complete deployment',
      currentDeployment(60, 3, 3, 3, 3, []),
      [3, 3, 3],
      '18:49:30',
      {after: -1, requeue: 'none'},
    ],
    [
      'complete deployment with a Progressing condition',
      currentDeployment(60, 3, 3, 3, 3, [stuck]),
      [3, 3, 3],
      '18:49:30',
      {after: -1, requeue: 'none'},
    ],
    [
      'already failed',
      currentDeployment(60, 3, 3, 3, 0, [failed]),
      [3, 3, 0],
      '18:49:30',
      {after: -1, requeue: 'none'},
    ],
    [
      'stuck, 30s to the deadline',
      currentDeployment(60, 3, 3, 3, 1, [stuck]),
      [3, 3, 1],
      '18:49:30',
      {after: 30, requeue: 31},
    ],
    [
      'stuck, exactly 1s to the deadline',
      currentDeployment(60, 3, 3, 3, 1, [stuck]),
      [3, 3, 1],
      '18:49:59',
      {after: 1, requeue: 2},
    ],
    [
      'stuck, less than a second to the deadline',
      currentDeployment(60, 3, 3, 3, 1, [stuck]),
      [3, 3, 1],
      '18:49:59.001',
      {after: 0, requeue: 'rateLimited'},
    ],
    [
      'stuck, at the deadline',
      currentDeployment(60, 3, 3, 3, 1, [stuck]),
      [3, 3, 1],
      '18:50:00',
      {after: 0, requeue: 'rateLimited'},
    ],
    [
      'stuck, 1s past the deadline',
      currentDeployment(60, 3, 3, 3, 1, [stuck]),
      [3, 3, 1],
      '18:50:01',
      {after: 0, requeue: 'rateLimited'},
    ],
    [
      'stuck, 60s past the deadline',
      currentDeployment(60, 3, 3, 3, 1, [stuck]),
      [3, 3, 1],
      '18:51:00',
      {after: 0, requeue: 'rateLimited'},
    ],
  ]
  for (const [name, d, [replicas, updatedReplicas, availableReplicas], at, want] of cases) {
    it(name, () => {
      const h = newHarness({}, {now: Date.parse(`2017-02-15T${at}Z`)})
      const got = requeueStuckDeployment(h.ctx, d, {replicas, updatedReplicas, availableReplicas})
      expect(got).toBe(want.after)
      if (want.requeue === 'none') expect(h.requeues).toEqual([])
      else if (want.requeue === 'rateLimited') expect(h.requeues).toEqual([{kind: 'rateLimited'}])
      else expect(h.requeues).toEqual([{kind: 'after', seconds: want.requeue}])
    })
  }
})

describe('syncRolloutStatus', () => {
  const now = Date.parse('2017-02-15T19:00:00Z')
  const nowT = iso(now)
  const replicaSetUpdated: DeploymentCondition = {
    type: 'Progressing',
    status: 'True',
    lastUpdateTime: testTime,
    lastTransitionTime: testTime,
    reason: 'ReplicaSetUpdated',
    message: 'ReplicaSet "foo" is progressing.',
  }
  const newRSAvailable: DeploymentCondition = {
    type: 'Progressing',
    status: 'True',
    lastUpdateTime: testTime,
    lastTransitionTime: testTime,
    reason: 'NewReplicaSetAvailable',
    message: 'ReplicaSet "foo" has successfully progressed.',
  }
  const failedTimedOut: DeploymentCondition = {
    type: 'Progressing',
    status: 'False',
    reason: 'ProgressDeadlineExceeded',
  }
  const availableTrue: DeploymentCondition = {
    type: 'Available',
    status: 'True',
    lastUpdateTime: nowT,
    lastTransitionTime: nowT,
    reason: 'MinimumReplicasAvailable',
    message: 'Deployment has minimum availability.',
  }
  const availableFalse: DeploymentCondition = {
    type: 'Available',
    status: 'False',
    lastUpdateTime: nowT,
    lastTransitionTime: nowT,
    reason: 'MinimumReplicasUnavailable',
    message: 'Deployment does not have minimum availability.',
  }
  const progressing = (
    status: string,
    reason: string,
    message: string,
    lastUpdateTime: string,
    lastTransitionTime: string,
  ): DeploymentCondition => ({
    type: 'Progressing',
    status,
    lastUpdateTime,
    lastTransitionTime,
    reason,
    message,
  })

  interface Case {
    name: string
    d: Deployment
    allRSs: ReplicaSet[]
    newRS?: ReplicaSet
    want: DeploymentCondition[]
  }
  const cases = (): Case[] => [
    {
      name: 'no progress deadline: the Progressing condition is removed',
      d: currentDeployment(undefined, 3, 2, 2, 2, [replicaSetUpdated]),
      allRSs: [rsWithAvailable('bar', 0, 1, 1)],
      newRS: rsWithAvailable('foo', 3, 2, 2),
      want: [availableTrue],
    },
    {
      name: 'only one active RS and no new RS: no estimate, the condition stays',
      d: currentDeployment(60, 3, 3, 3, 3, [newRSAvailable]),
      allRSs: [rsWithAvailable('bar', 3, 3, 3)],
      want: [newRSAvailable, availableTrue],
    },
    {
      name: 'progressing: lastTransitionTime kept when the condition was already True',
      d: currentDeployment(60, 3, 2, 2, 2, [replicaSetUpdated]),
      allRSs: [rsWithAvailable('bar', 0, 1, 1)],
      newRS: rsWithAvailable('foo', 3, 2, 2),
      want: [
        availableTrue,
        progressing('True', 'ReplicaSetUpdated', 'ReplicaSet "foo" is progressing.', nowT, testTime),
      ],
    },
    {
      name: 'progressing: both times updated when the condition was False',
      d: currentDeployment(60, 3, 2, 2, 2, [failedTimedOut]),
      allRSs: [rsWithAvailable('bar', 0, 1, 1)],
      newRS: rsWithAvailable('foo', 3, 2, 2),
      want: [
        availableTrue,
        progressing('True', 'ReplicaSetUpdated', 'ReplicaSet "foo" is progressing.', nowT, nowT),
      ],
    },
    {
      name: 'progressing: the condition is created when absent',
      d: currentDeployment(60, 3, 2, 2, 2, []),
      allRSs: [rsWithAvailable('bar', 0, 1, 1)],
      newRS: rsWithAvailable('foo', 3, 2, 2),
      want: [
        availableTrue,
        progressing('True', 'ReplicaSetUpdated', 'ReplicaSet "foo" is progressing.', nowT, nowT),
      ],
    },
    {
      name: 'complete: lastTransitionTime kept when the condition was already True',
      d: currentDeployment(60, 3, 3, 3, 3, [replicaSetUpdated]),
      allRSs: [],
      newRS: rsWithAvailable('foo', 3, 3, 3),
      want: [
        availableTrue,
        progressing(
          'True',
          'NewReplicaSetAvailable',
          'ReplicaSet "foo" has successfully progressed.',
          nowT,
          testTime,
        ),
      ],
    },
    {
      name: 'complete: both times updated when the condition was False',
      d: currentDeployment(60, 3, 3, 3, 3, [failedTimedOut]),
      allRSs: [],
      newRS: rsWithAvailable('foo', 3, 3, 3),
      want: [
        availableTrue,
        progressing(
          'True',
          'NewReplicaSetAvailable',
          'ReplicaSet "foo" has successfully progressed.',
          nowT,
          nowT,
        ),
      ],
    },
    {
      name: 'complete: the condition is created when absent',
      d: currentDeployment(60, 3, 3, 3, 3, []),
      allRSs: [],
      newRS: rsWithAvailable('foo', 3, 3, 3),
      want: [
        availableTrue,
        progressing(
          'True',
          'NewReplicaSetAvailable',
          'ReplicaSet "foo" has successfully progressed.',
          nowT,
          nowT,
        ),
      ],
    },
    {
      name: 'complete without a new RS names the Deployment',
      d: currentDeployment(60, 0, 3, 3, 3, [replicaSetUpdated]),
      allRSs: [rsWithAvailable('foo', 0, 0, 0)],
      want: [
        availableTrue,
        progressing(
          'True',
          'NewReplicaSetAvailable',
          'Deployment "progress-test" has successfully progressed.',
          nowT,
          testTime,
        ),
      ],
    },
    {
      name: 'timed out: no progress since the deadline',
      d: currentDeployment(60, 3, 2, 2, 2, [replicaSetUpdated]),
      allRSs: [],
      newRS: rsWithAvailable('foo', 3, 2, 2),
      want: [
        availableFalse,
        progressing(
          'False',
          'ProgressDeadlineExceeded',
          'ReplicaSet "foo" has timed out progressing.',
          nowT,
          nowT,
        ),
      ],
    },
    {
      name: 'timed out: an existing timed-out condition is left as it is',
      d: currentDeployment(60, 3, 2, 2, 2, [failedTimedOut]),
      allRSs: [],
      newRS: rsWithAvailable('foo', 3, 2, 2),
      want: [failedTimedOut, availableFalse],
    },
  ]
  for (const c of cases()) {
    it(c.name, async () => {
      const h = newHarness({deployments: [c.d]}, {now})
      const all = c.newRS ? [...c.allRSs, c.newRS] : c.allRSs
      await syncRolloutStatus(h.ctx, all, c.newRS, c.d)
      expect(c.d.status?.conditions).toEqual(c.want)
      expect(h.verbs()).toEqual(['update deployments/status'])
      expect(h.storedDeployment('progress-test')?.status?.conditions).toEqual(c.want)
      expect(h.requeues).toEqual([])
    })
  }

  it('writes nothing and requeues for the deadline when nothing changed', async () => {
    const at = Date.parse('2017-02-15T18:49:30Z')
    const d = currentDeployment(60, 3, 3, 3, 1, [
      replicaSetUpdated,
      {...availableFalse, lastUpdateTime: testTime, lastTransitionTime: testTime},
    ])
    d.status = {...d.status, unavailableReplicas: 2, terminatingReplicas: 0}
    const h = newHarness({deployments: [d]}, {now: at})
    const newRS = rsWithAvailable('foo', 3, 3, 1)
    await syncRolloutStatus(h.ctx, [newRS], newRS, d)
    expect(h.verbs()).toEqual([])
    expect(h.requeues).toEqual([{kind: 'after', seconds: 31}])
  })

  it("copies the new RS's ReplicaFailure condition first, and drops it once gone", async () => {
    const failure = (reason: string) => ({
      type: 'ReplicaFailure',
      status: 'True',
      reason,
      message: `pods failed: ${reason}`,
      lastTransitionTime: testTime,
    })
    const d = currentDeployment(undefined, 3, 3, 3, 3, [])
    const h = newHarness({deployments: [d]}, {now})
    const oldRS = rsWithAvailable('old', 0, 0, 0)
    oldRS.status!.conditions = [failure('OldQuota')]
    const newRS = rsWithAvailable('foo', 3, 3, 3)
    newRS.status!.conditions = [failure('FailedCreate')]
    await syncRolloutStatus(h.ctx, [oldRS, newRS], newRS, d)
    expect(d.status?.conditions).toEqual([
      availableTrue,
      {
        type: 'ReplicaFailure',
        status: 'True',
        lastUpdateTime: testTime,
        lastTransitionTime: testTime,
        reason: 'FailedCreate',
        message: 'pods failed: FailedCreate',
      },
    ])
    await syncRolloutStatus(
      h.ctx,
      [oldRS, rsWithAvailable('foo', 3, 3, 3)],
      rsWithAvailable('foo', 3, 3, 3),
      d,
    )
    expect(d.status?.conditions?.map((c) => c.reason)).toEqual(['MinimumReplicasAvailable', 'OldQuota'])
    await syncRolloutStatus(h.ctx, [rsWithAvailable('foo', 3, 3, 3)], undefined, d)
    expect(d.status?.conditions).toEqual([availableTrue])
  })
})
