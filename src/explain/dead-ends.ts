// Known dead ends: situations the controller will not get out of by itself, each with a code.

import {DeploymentReplicaFailure} from '../controller/api/types.js'
import {filterActiveReplicaSets} from '../controller/controller-utils.js'
import {
  deploymentComplete,
  FailedRSCreateReason,
  getDeploymentCondition,
  getReplicaCountForReplicaSets,
  isRollingUpdate,
  maxUnavailable,
} from '../controller/util/deployment-util.js'
import type {RolloutContext} from '../status/context.js'
import {kstatusOf} from '../status/kstatus.js'
import {minReadyOutlastsDeadline} from '../status/progress.js'
import {selectorOf} from '../status/replicasets.js'
import {rolloutStatus} from '../status/rollout-status.js'
import type {Blocker, DeadEnd, ProgressClock} from '../status/types.js'
import {seconds} from '../util/duration.js'
import {foreignOf, overlapOf} from './overlaps.js'
import type {Fenceposts} from './types.js'

export function explainDeadEnds(
  ctx: RolloutContext,
  blockers: Blocker[],
  progress: ProgressClock,
  fenceposts: Fenceposts | null,
): DeadEnd[] {
  const {d, after, view, facts} = ctx
  const out: DeadEnd[] = []
  const complete = deploymentComplete(d, after.status ?? {})
  const deleting = d.metadata.deletionTimestamp != null
  const newName = view.newRS?.metadata.name
  const hardOnNew = blockers.filter((b) => b.hard && newName !== undefined && b.replicaSet === newName)

  if (!complete && !deleting && isRollingUpdate(d) && maxUnavailable(d) === 0 && hardOnNew.length > 0) {
    const oldPods = getReplicaCountForReplicaSets(filterActiveReplicaSets(view.oldRSs))
    if (oldPods > 0) {
      const codes = [...new Set(hardOnNew.map((b) => b.code))].join(', ')
      const written = fenceposts?.maxUnavailable.written
      const how =
        typeof written === 'string'
          ? `maxUnavailable ${written} resolves to 0 (${fenceposts?.maxUnavailable.rounding})`
          : 'maxUnavailable is 0'
      out.push({
        code: 'MaxUnavailableZeroStuck',
        message: `${how}: no old pod may go before a new pod is available, and the new pods cannot become available (${codes}). The ${oldPods} old ${oldPods === 1 ? 'pod keeps' : 'pods keep'} serving and the rollout stays where it is until the cause is fixed or the Deployment is rolled back (kubectl rollout undo deployment/${ctx.name}).`,
        objects: [`ReplicaSet/${newName}`],
      })
    }
  }

  const failure = blockers.find(
    (b) => (b.code === 'ReplicaFailure' || b.code === 'FailedCreate') && b.replicaSet === newName,
  )
  const progressing = getDeploymentCondition(after.status, 'Progressing')
  const dFailure = getDeploymentCondition(after.status, DeploymentReplicaFailure)
  if (failure) {
    out.push({
      code: 'QuotaOrFailedCreate',
      message: `The new ReplicaSet ${newName} ${failure.message}. The ReplicaSet controller keeps retrying but the API server refuses the pods: raise the quota or lower the requests, or change what the admission check rejects.`,
      objects: [`ReplicaSet/${newName}`],
    })
  } else if (progressing?.reason === FailedRSCreateReason || dFailure?.status === 'True') {
    const c = progressing?.reason === FailedRSCreateReason ? progressing : dFailure
    out.push({
      code: 'QuotaOrFailedCreate',
      message: `${c?.reason ?? 'ReplicaFailure'}: ${c?.message ?? ''}`.trim(),
      objects: [`Deployment/${ctx.name}`],
    })
  }

  if (d.spec.paused && !deleting && !view.newRS) {
    const images = (d.spec.template.spec?.containers ?? []).map((c) => c.image ?? '').join(', ')
    out.push({
      code: 'PausedWithPendingTemplate',
      message: `The Deployment is paused and no ReplicaSet runs its current pod template (${images}): the change waits until it is resumed (kubectl rollout resume deployment/${ctx.name}).`,
      objects: [`Deployment/${ctx.name}`],
    })
  }

  if (!complete && !deleting) {
    let why: string | undefined
    if (progress.state === 'NoDeadline') why = 'progressDeadlineSeconds is not set'
    else if (progress.state === 'Paused') why = 'the Deployment is paused'
    else if (progress.state === 'CheckSkipped') {
      why =
        'Progressing still says NewReplicaSetAvailable, which the deadline check never counts as stuck, until the controller records progress or a new ReplicaSet'
    }
    if (why) {
      out.push({
        code: 'DeadlineWillNotFire',
        message: `The rollout is not complete, but no deadline will mark it as failed: ${why}. ${
          rolloutStatus(d).done
            ? `kubectl rollout status already says done (it reads only the Deployment's counts)${
                kstatusOf(d).status === 'Current'
                  ? ', and so does kstatus.'
                  : `; kstatus says ${kstatusOf(d).status}, so a waiter on it (Helm 4's --wait, Flux) waits until its own timeout, with no deadline to fail it first.`
              }`
            : 'If it never completes, nothing reports a failure: kubectl rollout status and CI jobs waiting on it wait forever.'
        }`,
        objects: [`Deployment/${ctx.name}`],
      })
    }
  }

  const minReady = d.spec.minReadySeconds ?? 0
  const pds = d.spec.progressDeadlineSeconds ?? 0
  if (!complete && !deleting && minReadyOutlastsDeadline(d)) {
    out.push({
      code: 'MinReadySecondsExceedsDeadline',
      message: `minReadySeconds (${minReady}, ${seconds(minReady)}) is not shorter than progressDeadlineSeconds (${pds}): after the last pod turns ready nothing counts as progress for longer than the deadline, so the rollout is marked as failed before it can complete.`,
      objects: [`Deployment/${ctx.name}`],
    })
  }

  const overlap = overlapOf(ctx)
  if (overlap.count === 1) {
    const other = overlap.names[0]
    const theirs = selectorOf(ctx.others.find((o) => o.metadata.name === other) ?? d)
    const mine = selectorOf(d)
    const what =
      overlap.theyMatchMe && overlap.iMatchThem
        ? `Deployment ${other} and this one select each other's pods (selectors ${theirs?.toString()} and ${mine?.toString()}).`
        : overlap.theyMatchMe
          ? `Deployment ${other}'s selector (${theirs?.toString()}) selects this Deployment's pods.`
          : `This Deployment's selector (${mine?.toString()}) selects the pods of Deployment ${other}.`
    out.push({
      code: 'OverlappingSelector',
      message: `${what} Controllers with overlapping selectors fight: an orphaned ReplicaSet of one can be adopted by the other, and label-based tools count the pods of both.`,
      objects: [`Deployment/${other}`],
    })
  } else if (overlap.count > 1) {
    const more = overlap.count - overlap.names.length
    out.push({
      code: 'OverlappingSelector',
      message: `This Deployment and ${overlap.count} others of the namespace select each other's pods (this one's selector: ${selectorOf(d)?.toString()}): ${overlap.names.join(', ')}${more > 0 ? ` and ${more} more` : ''}. Their ReplicaSets match each other's selectors too; each controller leaves the others' alone. Controllers with overlapping selectors fight: an orphaned ReplicaSet of one can be adopted by another, and label-based tools count the pods of all of them.`,
      objects: overlap.names.map((n) => `Deployment/${n}`),
    })
  }

  // With a group of overlapping Deployments, their ReplicaSets are named by the dead end above, once.
  for (const info of foreignOf(ctx, overlap).listed) {
    out.push({
      code: 'ForeignOwnedMatchingReplicaSet',
      message: `ReplicaSet ${info.rs.metadata.name} matches this Deployment's selector but is controlled by ${info.controller}: the controller leaves it alone and does not count its pods, though label-based tools (Services, kubectl get pods -l) see them.`,
      objects: [`ReplicaSet/${info.rs.metadata.name}`],
    })
  }

  for (const name of facts.all('adopt')) {
    out.push({
      code: 'WillAdopt',
      message: `ReplicaSet ${name} has no controller and its labels match the selector: the pass makes this Deployment its controller (a patch of its ownerReferences), and from then on it is one of the Deployment's revisions, scaled and cleaned up like the others.`,
      objects: [`ReplicaSet/${name}`],
    })
  }
  for (const name of facts.all('release')) {
    out.push({
      code: 'WillRelease',
      message: `ReplicaSet ${name} is controlled by this Deployment but its labels no longer match the selector: the pass removes the ownerReference. It becomes an orphan that no Deployment scales down, and its pods keep running.`,
      objects: [`ReplicaSet/${name}`],
    })
  }
  return out
}
