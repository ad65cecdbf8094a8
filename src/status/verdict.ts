// The verdict: one code (Complete, Progressing, Stalled, DeadlineExceeded, Paused, Deleting,
// Invalid) with a stable reason and a few plain sentences.

import {
  DeploymentProgressing,
  RecreateStrategyType,
  RollingUpdateStrategyType,
} from '../controller/api/types.js'
import {getRollbackTo} from '../controller/rollback.js'
import {
  deploymentComplete,
  deploymentReplicas,
  getDeploymentCondition,
  RevisionAnnotation,
  TimedOutReason,
} from '../controller/util/deployment-util.js'
import {isSelectEverythingLiteral, labelSelectorAsSelector} from '../controller/util/labels.js'
import {seconds} from '../util/duration.js'
import type {RolloutContext} from './context.js'
import {minReadyOutlastsDeadline} from './progress.js'
import type {ScaleRecord} from './replicasets.js'
import {selectorOf} from './replicasets.js'
import {
  type Blocker,
  HARD_BLOCKERS,
  type ProgressClock,
  SOFT_BLOCKERS,
  type Verdict,
  type VerdictCode,
} from './types.js'

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** Blockers in the order of HARD_BLOCKERS then SOFT_BLOCKERS: the first is the cause to name. */
function byImportance(blockers: Blocker[]): Blocker[] {
  const order: string[] = [...HARD_BLOCKERS, ...SOFT_BLOCKERS]
  return [...blockers].sort((a, b) => order.indexOf(a.code) - order.indexOf(b.code))
}

const IMAGE_CODES = new Set(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'ErrImageNeverPull'])

/** One sentence naming what the blockers of `code` do to the rollout. */
export function causeSentence(code: string, blockers: Blocker[]): string {
  const group = IMAGE_CODES.has(code)
    ? blockers.filter((b) => IMAGE_CODES.has(b.code))
    : blockers.filter((b) => b.code === code)
  const podCount = new Set(group.filter((b) => b.object.kind === 'Pod').map((b) => b.object.name)).size
  const newPods = plural(podCount, 'new pod')
  const one = podCount === 1
  const verb = (singular: string, many: string) => (one ? singular : many)
  const first = group[0]
  switch (code) {
    case 'ImagePullBackOff':
    case 'ErrImagePull':
    case 'InvalidImageName':
    case 'ErrImageNeverPull': {
      const images = [...new Set(group.map((b) => b.image ?? '?'))].join(', ')
      const codes = [...new Set(group.map((b) => b.code))].join(', ')
      return `${newPods} cannot pull ${images} (${codes}).`
    }
    case 'CrashLoopBackOff': {
      const exit = first?.lastExitCode != null ? `, last exit code ${first.lastExitCode}` : ''
      return `${newPods} ${verb('keeps', 'keep')} crashing (container ${first?.container}: ${plural(first?.restarts ?? 0, 'restart')}${exit}).`
    }
    case 'CreateContainerConfigError':
    case 'CreateContainerError':
    case 'RunContainerError':
      return `${newPods} cannot start container ${first?.container} (${code}): ${first?.message.replace(/^[^:]*: /, '')}`
    case 'Unschedulable':
      return `${newPods} cannot be scheduled: ${first?.message.replace(/^cannot be scheduled: /, '')}`
    case 'ReplicaFailure':
    case 'FailedCreate':
      return `The new ReplicaSet ${first?.message}.`
    case 'ReadinessProbeFailing':
      return `The readiness probe of ${newPods} fails.`
    case 'NotReady':
      return `${newPods} ${verb('runs but is', 'run but are')} not ready.`
    case 'MinReadySeconds':
      return `${newPods} ${verb('is ready and waits', 'are ready and wait')} out minReadySeconds (available ${first?.until ?? 'later'}).`
    case 'ContainerCreating':
    case 'Pending':
    case 'ContainerWaiting':
      return `${newPods} ${verb('is', 'are')} starting.`
    default:
      return first ? `${first.object.name}: ${first.message}.` : ''
  }
}

function deadlineSentence(progress: ProgressClock): string {
  switch (progress.state) {
    case 'Running':
      return `Unless that changes, the progress deadline marks the rollout as failed at ${progress.deadline} (in ${seconds(progress.secondsLeft ?? 0)}).`
    case 'Passed':
      return 'The progress deadline has passed: the next rollout pass marks the rollout as failed.'
    case 'NoDeadline':
    case 'Paused':
    case 'CheckSkipped':
      return 'No progress deadline will mark it as failed (see the dead ends).'
    default:
      return ''
  }
}

export function explainVerdict(
  ctx: RolloutContext,
  blockers: Blocker[],
  progress: ProgressClock,
  scaled: ScaleRecord[],
): Verdict {
  const {d, after, view, name} = ctx
  const v = (code: VerdictCode, reason: string, message: string): Verdict => ({code, reason, message})
  const undo = `kubectl rollout undo deployment/${name}`

  // Invalid: what the API server's validation would have refused, or the controller cannot handle.
  if (isSelectEverythingLiteral(d.spec.selector)) {
    return v(
      'Invalid',
      'SelectsEverything',
      'spec.selector is empty, so it would select every pod of the namespace. The controller refuses to manage such a Deployment: it only records a SelectingAll warning. Set spec.selector.matchLabels to labels of the pod template.',
    )
  }
  const selector = selectorOf(d)
  if (selector === undefined) {
    let message = ''
    try {
      labelSelectorAsSelector(d.spec.selector)
    } catch (err) {
      message = err instanceof Error ? err.message : String(err)
    }
    return v(
      'Invalid',
      'InvalidSelector',
      `spec.selector is invalid (${message}): every pass ends in this error.`,
    )
  }
  if (!selector.matches(d.spec.template.metadata?.labels)) {
    return v(
      'Invalid',
      'SelectorDoesNotMatchTemplate',
      `spec.selector (${selector.toString()}) does not select the pod template's labels: the API server refuses such a Deployment, and its ReplicaSets could never count their own pods.`,
    )
  }
  const type = d.spec.strategy?.type
  if (type !== RollingUpdateStrategyType && type !== RecreateStrategyType) {
    return v(
      'Invalid',
      'UnknownStrategy',
      `spec.strategy.type is "${type ?? ''}": the controller knows only RollingUpdate and Recreate, so every rollout pass ends in an error.`,
    )
  }

  if (d.metadata.deletionTimestamp != null) {
    const finalizers = d.metadata.finalizers ?? []
    return v(
      'Deleting',
      'BeingDeleted',
      `The Deployment is being deleted (deletionTimestamp ${d.metadata.deletionTimestamp}${finalizers.length > 0 ? `, waiting for finalizers ${finalizers.join(', ')}` : ''}). The controller only keeps its status up to date; the garbage collector removes its ReplicaSets and pods.`,
    )
  }

  const replicas = deploymentReplicas(d)
  const status = after.status ?? {}
  const updated = status.updatedReplicas ?? 0
  const available = status.availableReplicas ?? 0
  const oldPods = Math.max(0, (status.replicas ?? 0) - updated)
  const rev = view.newRS?.metadata.annotations?.[RevisionAnnotation]
  const ofRevision = rev ? ` to revision ${rev}` : ''
  const counts = `${updated} of ${replicas} replicas run the current template, ${available} available${oldPods > 0 ? `, ${plural(oldPods, 'old pod')} still counted` : ''}.`

  if (d.spec.paused) {
    if (!view.newRS) {
      return v(
        'Paused',
        'PausedWithPendingTemplate',
        `The Deployment is paused, and its pod template changed after it was paused: no ReplicaSet runs the new template, so nothing rolls out until it is resumed (kubectl rollout resume deployment/${name}).`,
      )
    }
    const oldActive = view.oldRSs.some((rs) => (rs.spec.replicas ?? 0) > 0)
    if (oldActive) {
      return v(
        'Paused',
        'PausedMidRollout',
        `The Deployment is paused in the middle of a rollout: ${counts} Nothing moves until it is resumed (kubectl rollout resume deployment/${name}).`,
      )
    }
    return v(
      'Paused',
      'Paused',
      'The Deployment is paused; every replica runs the current template. Template changes will not roll out until it is resumed.',
    )
  }

  const newName = view.newRS?.metadata.name
  const onNew = byImportance(blockers.filter((b) => b.replicaSet === newName && newName !== undefined))
  const cond = getDeploymentCondition(status, DeploymentProgressing)
  if (cond?.reason === TimedOutReason && getRollbackTo(d) === undefined) {
    const marks =
      progress.state === 'FiresThisPass' ? 'The next pass marks it as failed' : 'It is marked as failed'
    const cause = onNew[0]
    return v(
      'DeadlineExceeded',
      cause?.code ?? 'ProgressDeadlineExceeded',
      `The rollout${ofRevision} made no progress for progressDeadlineSeconds (${deadlineText(d.spec.progressDeadlineSeconds ?? 0)}). ${marks} (Progressing=False, ProgressDeadlineExceeded).${cause ? ` ${causeSentence(cause.code, onNew)}` : ''} The controller leaves the pods as they are: fix the cause, or roll back (${undo}).`,
    )
  }

  if (getRollbackTo(d) !== undefined && ctx.facts.branch() === 'rollback') {
    const target = ctx.facts.last('lastRevision') ?? ctx.facts.last('rollbackTo')
    const copied = ctx.facts.last('rollbackTemplateFrom')
    return v(
      'Progressing',
      'RollbackRequested',
      copied
        ? `A rollback to revision ${target} is requested: the next pass copies that revision's pod template back into the Deployment, and the pass after it rolls it out.`
        : `A rollback to revision ${target} is requested, but it changes nothing (see the pass): the next pass only removes the annotation.`,
    )
  }

  if (deploymentComplete(d, status)) {
    return v(
      'Complete',
      'RolloutComplete',
      replicas === 0
        ? 'Scaled to 0: no pods are wanted and none is left.'
        : replicas === 1
          ? `The replica runs the current pod template${rev ? ` (revision ${rev})` : ''} and is available.`
          : `All ${replicas} replicas run the current pod template${rev ? ` (revision ${rev})` : ''} and are available.`,
    )
  }

  const hard = onNew.filter((b) => b.hard)
  if (hard.length > 0) {
    const code = hard[0]!.code
    return v(
      'Stalled',
      code,
      `The rollout${ofRevision} cannot finish: ${causeSentence(code, hard).replace(/^The /, 'the ')} ${counts} ${deadlineSentence(progress)}`.replace(
        /\s+$/,
        '',
      ),
    )
  }
  // Recreate starts new pods only once every old pod is gone: one stuck terminating holds it for good.
  const stuckOld = blockers.filter((b) => b.code === 'TerminatingPastGrace' && b.replicaSet !== newName)
  if (stuckOld.length > 0 && d.spec.strategy?.type === RecreateStrategyType) {
    return v(
      'Stalled',
      'TerminatingPastGrace',
      `The rollout${ofRevision} cannot finish: Recreate starts new pods only once every old pod is gone, and old pod ${stuckOld[0]!.object.name} is ${stuckOld[0]!.message}. ${counts}`,
    )
  }
  const waitingMinReady = onNew.filter((b) => b.code === 'MinReadySeconds')
  if (waitingMinReady.length > 0 && minReadyOutlastsDeadline(d)) {
    return v(
      'Stalled',
      'MinReadySeconds',
      `The rollout${ofRevision} cannot finish in time: ${causeSentence('MinReadySeconds', waitingMinReady)} minReadySeconds is not shorter than the progress deadline, so the deadline runs out first.`,
    )
  }

  const reason = progressingReason(ctx, blockers, scaled)
  const stage = updated === replicas && available === replicas ? 'is almost done' : 'is under way'
  return v(
    'Progressing',
    reason.code,
    `The rollout${ofRevision} ${stage}: ${counts} ${reason.sentence}`.trim(),
  )
}

function progressingReason(
  ctx: RolloutContext,
  blockers: Blocker[],
  scaled: ScaleRecord[],
): {code: string; sentence: string} {
  const {view, d, after} = ctx
  const branch = ctx.facts.branch()
  const created = scaled.find((s) => s.created)
  const moves = (list: ScaleRecord[]) => list.map((s) => `${s.name} ${s.from} → ${s.to}`).join(', ')
  if (created) {
    const fact = ctx.facts.last('newReplicaSet')
    return {
      code: 'NewReplicaSetCreated',
      sentence: `The next pass creates ReplicaSet ${created.name}${fact ? ` (revision ${fact.revision})` : ''} with ${plural(created.to, 'replica')}.`,
    }
  }
  if ((branch === 'scalingEvent' || branch === 'paused') && scaled.length > 0) {
    return {
      code: 'ProportionalScaling',
      sentence: `spec.replicas changed to ${deploymentReplicas(d)}: the next pass resizes the ReplicaSets in proportion (${moves(scaled)}).`,
    }
  }
  const newName = view.newRS?.metadata.name
  const ups = scaled.filter((s) => s.name === newName && s.to > s.from)
  if (ups.length > 0) return {code: 'ScalingUp', sentence: `The next pass scales up ${moves(ups)}.`}
  const downs = scaled.filter((s) => s.name !== newName && s.to < s.from)
  if (downs.length > 0) return {code: 'ScalingDown', sentence: `The next pass scales down ${moves(downs)}.`}

  const newPods = (codes: string[]) =>
    new Set(
      blockers
        .filter((b) => b.replicaSet === newName && codes.includes(b.code) && b.object.kind === 'Pod')
        .map((b) => b.object.name),
    ).size
  const oldGoing = blockers.filter(
    (b) =>
      (b.code === 'Terminating' || b.code === 'TerminatingPastGrace' || b.code === 'OldPodRunning') &&
      b.replicaSet !== newName,
  )
  if (oldGoing.length > 0) {
    const stuck = oldGoing.filter((b) => b.code === 'TerminatingPastGrace').length
    const past =
      stuck > 0 ? ` (${stuck} stuck terminating past ${stuck === 1 ? 'its' : 'their'} grace period)` : ''
    return {
      code: 'OldPodsTerminating',
      sentence:
        d.spec.strategy?.type === RecreateStrategyType
          ? `Waiting for ${plural(oldGoing.length, 'old pod')} to stop${past}: Recreate starts new pods only once every old one is gone.`
          : `Waiting for ${plural(oldGoing.length, 'old pod')} to stop${past}.`,
    }
  }
  const starting = newPods(['ContainerCreating', 'Pending', 'ContainerWaiting'])
  if (starting > 0)
    return {code: 'PodsStarting', sentence: `Waiting for ${plural(starting, 'new pod')} to start.`}
  const notReady = newPods(['NotReady'])
  if (notReady > 0) {
    return {code: 'PodsNotReady', sentence: `Waiting for ${plural(notReady, 'new pod')} to become ready.`}
  }
  const minReady = blockers.filter((b) => b.code === 'MinReadySeconds' && b.replicaSet === newName)
  if (minReady.length > 0) {
    const last = minReady
      .map((b) => b.until ?? '')
      .sort()
      .at(-1)
    return {
      code: 'MinReadySeconds',
      sentence: `${plural(minReady.length, 'new pod')} ${minReady.length === 1 ? 'is' : 'are'} ready and ${minReady.length === 1 ? 'waits' : 'wait'} out minReadySeconds (${d.spec.minReadySeconds}s) before counting as available, the last at ${last}.`,
    }
  }
  const status = after.status ?? {}
  const old = (status.replicas ?? 0) - (status.updatedReplicas ?? 0)
  // Mid-rollout, old pods stay by design; they are what the rollout waits for only at its end.
  if (old > 0 && (status.updatedReplicas ?? 0) >= deploymentReplicas(d)) {
    const which = view.oldRSs.filter((rs) => (rs.status?.replicas ?? 0) > 0).map((rs) => rs.metadata.name)
    return {
      code: 'OldReplicasPending',
      sentence: `Waiting for ${plural(old, 'old replica')} to go: ${which.join(', ')} still ${which.length === 1 ? 'reports' : 'report'} pods in its status.`,
    }
  }
  // Scaled down: the new ReplicaSet already wants fewer, but still counts the pods its controller
  // has yet to delete (kstatus's "Pending termination"; kubectl rollout status already says done).
  const newRS = view.newRS
  const excess = (newRS?.status?.replicas ?? 0) - (newRS?.spec?.replicas ?? 0)
  if (newRS && old === 0 && excess > 0) {
    return {
      code: 'ExtraPodsPending',
      sentence: `${newRS.metadata.name} still reports ${plural(newRS.status?.replicas ?? 0, 'pod')} for its ${plural(newRS.spec?.replicas ?? 0, 'replica')}: waiting for the ReplicaSet controller to remove ${excess}.`,
    }
  }
  if ((d.metadata.generation ?? 0) > (d.status?.observedGeneration ?? 0)) {
    return {
      code: 'SpecChangeNotObserved',
      sentence: 'The controller has not observed the latest spec yet; the next pass does.',
    }
  }
  const unknown = blockers.some((b) => b.code === 'NoPodsInInput')
  return {
    code: 'WaitingForPods',
    sentence: unknown
      ? 'Waiting for the new pods to become available (the input holds no pods to tell what holds them).'
      : 'Waiting for the new pods to become available.',
  }
}

/** `600s, 10m`, or just `5s` where the two spellings are the same. */
function deadlineText(pds: number): string {
  const human = seconds(pds)
  return human === `${pds}s` ? human : `${pds}s, ${human}`
}
