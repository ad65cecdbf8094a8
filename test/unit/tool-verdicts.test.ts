// Golden tests of the two ports beside kubectl's rule: kstatus's Deployment status (cli-utils
// pkg/kstatus/status: checkGenericProperties, checkGeneration, deploymentConditions) and Argo CD's
// Deployment health (gitops-engine pkg/health: GetResourceHealth, getAppsv1DeploymentHealth), one
// case per upstream rule, then upstream's own cases (TestDeploymentStatus, TestDeploymentHealth)
// re-created, then the comparison's sentence where they part.

import {describe, expect, it} from 'vitest'
import type {Deployment, DeploymentCondition} from '../../src/controller/api/types.js'
import {toolsSummary} from '../../src/render/gate/text.js'
import {argoHealthOf} from '../../src/status/argocd.js'
import type {GateRow} from '../../src/status/gate.js'
import {kstatusOf} from '../../src/status/kstatus.js'
import {toolVerdicts} from '../../src/status/tools.js'

const progressing = (status: string, reason: string): DeploymentCondition => ({
  type: 'Progressing',
  status,
  reason,
})
const availableCond = (status: string): DeploymentCondition => ({type: 'Available', status})
const COMPLETE = [progressing('True', 'NewReplicaSetAvailable'), availableCond('True')]

/** A Deployment of 3 replicas, rolled out and available, generation 2 observed; `patch` overrides. */
function dep(
  patch: {
    metadata?: Partial<Deployment['metadata']>
    spec?: Partial<Deployment['spec']>
    status?: Deployment['status'] | null
  } = {},
): Deployment {
  const status =
    patch.status === null
      ? undefined
      : {
          observedGeneration: 2,
          replicas: 3,
          updatedReplicas: 3,
          readyReplicas: 3,
          availableReplicas: 3,
          conditions: COMPLETE,
          ...patch.status,
        }
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name: 'web', namespace: 'demo', generation: 2, ...patch.metadata},
    spec: {replicas: 3, progressDeadlineSeconds: 600, template: {}, ...patch.spec},
    ...(status ? {status} : {}),
  }
}

describe('kstatus (cli-utils pkg/kstatus/status)', () => {
  // Each row: the rule, the object, then status, reason and message as kstatus gives them.
  const rules: Array<[string, Deployment, string, string | null, string]> = [
    [
      'checkGenericProperties: a deletionTimestamp is Terminating before anything else',
      dep({metadata: {deletionTimestamp: '2026-11-29T10:00:00Z', generation: 3}}),
      'Terminating',
      null,
      'Resource scheduled for deletion',
    ],
    [
      'checkGeneration: observedGeneration behind',
      dep({metadata: {generation: 3}}),
      'InProgress',
      'LatestGenerationNotObserved',
      'Deployment generation is 3, but latest observed generation is 2',
    ],
    [
      'checkGeneration: observedGeneration ahead counts too (any difference)',
      dep({metadata: {generation: 1}}),
      'InProgress',
      'LatestGenerationNotObserved',
      'Deployment generation is 1, but latest observed generation is 2',
    ],
    [
      'checkGenericProperties: a Reconciling condition True decides',
      dep({
        status: {conditions: [{type: 'Reconciling', status: 'True', reason: 'Busy', message: 'working'}]},
      }),
      'InProgress',
      'Busy',
      'working',
    ],
    [
      'checkGenericProperties: a Stalled condition True decides',
      dep({status: {conditions: [{type: 'Stalled', status: 'True', reason: 'Stuck', message: 'gave up'}]}}),
      'Failed',
      'Stuck',
      'gave up',
    ],
    [
      'deploymentConditions: ProgressDeadlineExceeded fails, whatever the counts',
      dep({status: {conditions: [progressing('False', 'ProgressDeadlineExceeded'), availableCond('True')]}}),
      'Failed',
      'ProgressDeadlineExceeded',
      'Progress deadline exceeded',
    ],
    [
      'deploymentConditions: LessReplicas',
      dep({status: {replicas: 2}}),
      'InProgress',
      'LessReplicas',
      'Replicas: 2/3',
    ],
    [
      'deploymentConditions: LessUpdated',
      dep({status: {updatedReplicas: 1}}),
      'InProgress',
      'LessUpdated',
      'Updated: 1/3',
    ],
    [
      'deploymentConditions: ExtraPods (status.replicas above spec.replicas)',
      dep({status: {replicas: 5}}),
      'InProgress',
      'ExtraPods',
      'Pending termination: 2',
    ],
    [
      'deploymentConditions: LessAvailable',
      dep({status: {availableReplicas: 2}}),
      'InProgress',
      'LessAvailable',
      'Available: 2/3',
    ],
    [
      'deploymentConditions: LessReady',
      dep({status: {readyReplicas: 2}}),
      'InProgress',
      'LessReady',
      'Ready: 2/3',
    ],
    [
      'deploymentConditions: the Progressing condition must read NewReplicaSetAvailable',
      dep({status: {conditions: [progressing('True', 'ReplicaSetUpdated'), availableCond('True')]}}),
      'InProgress',
      'ReplicaSetNotAvailable',
      'ReplicaSet not Available',
    ],
    [
      'deploymentConditions: ...unless progressDeadlineSeconds is MaxInt32',
      dep({spec: {progressDeadlineSeconds: 2147483647}, status: {conditions: [availableCond('True')]}}),
      'Current',
      null,
      'Deployment is available. Replicas: 3',
    ],
    [
      'deploymentConditions: the Available condition must be True',
      dep({status: {conditions: [progressing('True', 'NewReplicaSetAvailable'), availableCond('False')]}}),
      'InProgress',
      'DeploymentNotAvailable',
      'Deployment not Available',
    ],
    [
      'deploymentConditions: spec.replicas defaults to 1',
      dep({spec: {replicas: undefined}, status: {replicas: 0, updatedReplicas: 0}}),
      'InProgress',
      'LessReplicas',
      'Replicas: 0/1',
    ],
    ['deploymentConditions: all ok', dep(), 'Current', null, 'Deployment is available. Replicas: 3'],
  ]
  it.each(rules)('%s', (_rule, d, status, reason, message) => {
    expect(kstatusOf(d)).toEqual({status, reason, message})
  })

  // upstream: TestDeploymentStatus (status_compute_test.go), its objects re-created: no spec at all,
  // so no progressDeadlineSeconds and spec.replicas 1.
  const bare = (status: Deployment['status'] | undefined): Deployment =>
    ({kind: 'Deployment', metadata: {name: 'test', generation: 1}, spec: {}, status}) as unknown as Deployment
  const counts = {
    observedGeneration: 1,
    updatedReplicas: 1,
    readyReplicas: 1,
    availableReplicas: 1,
    replicas: 1,
  }
  it.each([
    ['depNoStatus', bare(undefined), 'InProgress', 'LessReplicas'],
    ['depOK', bare({...counts, conditions: COMPLETE}), 'Current', null],
    [
      'depNotProgressing',
      {
        ...bare({...counts, conditions: [progressing('False', 'Some reason'), availableCond('True')]}),
        spec: {progressDeadlineSeconds: 45},
      } as Deployment,
      'InProgress',
      'ReplicaSetNotAvailable',
    ],
    ['depNoProgressDeadlineSeconds', bare({...counts, conditions: [availableCond('True')]}), 'Current', null],
    [
      'depNotAvailable',
      bare({...counts, conditions: [progressing('True', 'NewReplicaSetAvailable'), availableCond('False')]}),
      'InProgress',
      'DeploymentNotAvailable',
    ],
  ])('TestDeploymentStatus/%s', (_name, d, status, reason) => {
    expect(kstatusOf(d)).toMatchObject({status, reason})
  })
})

describe('Argo CD health (gitops-engine pkg/health)', () => {
  const rules: Array<[string, Deployment, string, string]> = [
    [
      'GetResourceHealth: an object being deleted is Progressing',
      dep({metadata: {deletionTimestamp: '2026-11-29T10:00:00Z'}, spec: {paused: true}}),
      'Progressing',
      'Pending deletion',
    ],
    [
      'GetResourceHealth: ...unless Argo CD holds it with its hook finalizer',
      dep({
        metadata: {
          deletionTimestamp: '2026-11-29T10:00:00Z',
          finalizers: ['argocd.argoproj.io/hook-finalizer'],
        },
      }),
      'Healthy',
      '',
    ],
    [
      'getAppsv1DeploymentHealth: paused is Suspended, whatever the counts',
      dep({spec: {paused: true}, status: {updatedReplicas: 0}}),
      'Suspended',
      'Deployment is paused',
    ],
    [
      'getAppsv1DeploymentHealth: generation not observed',
      dep({metadata: {generation: 3}}),
      'Progressing',
      'Waiting for rollout to finish: observed deployment generation less than desired generation',
    ],
    [
      'getAppsv1DeploymentHealth: no status is generation 2 > 0',
      dep({status: null}),
      'Progressing',
      'Waiting for rollout to finish: observed deployment generation less than desired generation',
    ],
    [
      'getAppsv1DeploymentHealth: ProgressDeadlineExceeded is Degraded',
      dep({status: {updatedReplicas: 1, conditions: [progressing('False', 'ProgressDeadlineExceeded')]}}),
      'Degraded',
      'Deployment "web" exceeded its progress deadline',
    ],
    [
      'getAppsv1DeploymentHealth: new replicas not all updated',
      dep({status: {updatedReplicas: 1}}),
      'Progressing',
      'Waiting for rollout to finish: 1 out of 3 new replicas have been updated...',
    ],
    [
      'getAppsv1DeploymentHealth: old replicas pending termination',
      dep({status: {replicas: 4}}),
      'Progressing',
      'Waiting for rollout to finish: 1 old replicas are pending termination...',
    ],
    [
      'getAppsv1DeploymentHealth: updated replicas not all available',
      dep({status: {availableReplicas: 2}}),
      'Progressing',
      'Waiting for rollout to finish: 2 of 3 updated replicas are available...',
    ],
    [
      'getAppsv1DeploymentHealth: conditions other than the deadline are not read',
      dep({status: {conditions: [progressing('True', 'ReplicaSetUpdated'), availableCond('False')]}}),
      'Healthy',
      '',
    ],
    ['getAppsv1DeploymentHealth: all ok', dep(), 'Healthy', ''],
  ]
  it.each(rules)('%s', (_rule, d, status, message) => {
    expect(argoHealthOf(d)).toEqual({status, message})
  })

  // upstream: TestDeploymentHealth (health_test.go), its four objects re-created in their essentials.
  const guestbook = (patch: Parameters<typeof dep>[0] = {}) =>
    dep({
      metadata: {name: 'guestbook-ui', generation: 4, ...patch.metadata},
      spec: {replicas: 1, ...patch.spec},
      status: {
        observedGeneration: 4,
        replicas: 2,
        updatedReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
        conditions: [availableCond('True'), progressing('True', 'ReplicaSetUpdated')],
        ...patch.status,
      },
    })
  it.each([
    [
      'nginx.yaml',
      dep({
        metadata: {generation: 1},
        spec: {replicas: 1},
        status: {
          observedGeneration: 1,
          replicas: 1,
          updatedReplicas: 1,
          readyReplicas: 1,
          availableReplicas: 1,
        },
      }),
      'Healthy',
    ],
    ['deployment-progressing.yaml', guestbook(), 'Progressing'],
    ['deployment-suspended.yaml', guestbook({spec: {paused: true}}), 'Suspended'],
    [
      'deployment-degraded.yaml',
      guestbook({
        status: {conditions: [availableCond('True'), progressing('False', 'ProgressDeadlineExceeded')]},
      }),
      'Degraded',
    ],
  ])('TestDeploymentHealth/%s', (_name, d, status) => {
    expect(argoHealthOf(d).status).toBe(status)
  })
})

describe('toolVerdicts: the three side by side', () => {
  it('agree on a complete Deployment', () => {
    const t = toolVerdicts(dep())
    expect(t).toMatchObject({
      kubectl: {status: 'Done', outcome: 'done', message: 'deployment "web" successfully rolled out'},
      kstatus: {status: 'Current', outcome: 'done'},
      argocd: {status: 'Healthy', outcome: 'done'},
      agree: true,
      disagreement: null,
    })
  })

  it('agree that a rollout past its deadline failed', () => {
    const t = toolVerdicts(
      dep({status: {updatedReplicas: 1, conditions: [progressing('False', 'ProgressDeadlineExceeded')]}}),
    )
    expect([t.kubectl.status, t.kstatus.status, t.argocd.status, t.agree]).toEqual([
      'Error',
      'Failed',
      'Degraded',
      true,
    ])
  })

  it('part on a paused, complete Deployment: kubectl done, kstatus InProgress, Argo CD Suspended', () => {
    const t = toolVerdicts(
      dep({
        spec: {paused: true},
        status: {conditions: [progressing('Unknown', 'DeploymentPaused'), availableCond('True')]},
      }),
    )
    expect([t.kubectl.outcome, t.kstatus.outcome, t.argocd.outcome]).toEqual(['done', 'waiting', 'suspended'])
    expect(t.disagreement).toBe(
      'kubectl rollout status, which reads only the counts and the deadline condition, says done; Argo CD says Suspended, as it does for every paused Deployment whatever its counts; kstatus says InProgress (ReplicaSet not Available) because it also wants the Progressing condition True with reason NewReplicaSetAvailable, and it is Unknown/DeploymentPaused, as the controller sets it on a paused Deployment.',
    )
  })

  it('part while a scale-down is not yet counted: kstatus waits for status.replicas to come down', () => {
    const t = toolVerdicts(dep({spec: {replicas: 1}}))
    expect([t.kubectl.outcome, t.kstatus.outcome, t.argocd.outcome]).toEqual(['done', 'waiting', 'done'])
    expect(t.disagreement).toBe(
      'kubectl rollout status, which reads only the counts and the deadline condition, says done; kstatus says InProgress (Pending termination: 2) because it wants status.replicas down to spec.replicas, where kubectl compares status.replicas with updatedReplicas.',
    )
  })

  it('part on a Deployment being deleted: kstatus Terminating, Argo CD Progressing, kubectl done', () => {
    const t = toolVerdicts(dep({metadata: {deletionTimestamp: '2026-11-29T10:00:00Z'}}))
    expect([t.kubectl.status, t.kstatus.status, t.argocd.status]).toEqual([
      'Done',
      'Terminating',
      'Progressing',
    ])
    expect(t.disagreement).toBe(
      'kubectl rollout status, which reads only the counts and the deadline condition, says done; Argo CD says Progressing (Pending deletion), as it does for any object being deleted; kstatus says Terminating, as it does for any object with a deletionTimestamp.',
    )
  })
})

describe("the gate's summary: the three tools", () => {
  const row = (d: Deployment | undefined): GateRow => ({
    deployment: {namespace: 'demo', name: d?.metadata.name ?? 'missing'},
    verdict: {code: 'Complete', reason: 'RolloutComplete', message: ''},
    phase: 'Done',
    reason: 'RolloutComplete',
    message: '',
    rolloutStatus: '',
    replicas: {desired: 3, updated: 3, ready: 3, available: 3},
    ...(d ? {tools: toolVerdicts(d)} : {}),
  })

  it('one line when they agree on each Deployment; a Deployment not found yet is not counted', () => {
    expect(toolsSummary([row(dep()), row(dep({metadata: {name: 'api'}})), row(undefined)])).toEqual([
      'kubectl rollout status, kstatus and Argo CD agree on each of the 2 Deployments.',
    ])
    expect(toolsSummary([row(dep())])).toEqual([
      'kubectl rollout status, kstatus and Argo CD agree on the Deployment.',
    ])
    expect(toolsSummary([row(undefined)])).toEqual([])
  })

  it('a line per Deployment where they part: the three answers and why', () => {
    const paused = dep({
      metadata: {name: 'worker'},
      spec: {paused: true},
      status: {conditions: [progressing('Unknown', 'DeploymentPaused'), availableCond('True')]},
    })
    const lines = toolsSummary([row(dep()), row(paused)])
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^deployment demo\/worker: kubectl Done, kstatus InProgress, Argo CD Suspended: kubectl rollout status, which reads only the counts/,
    )
  })
})
