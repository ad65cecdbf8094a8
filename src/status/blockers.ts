// What keeps pods from becoming available, read from the pods of the new ReplicaSet (and the old
// ones while they shut down): container waiting reasons, scheduling, readiness, minReadySeconds,
// the ReplicaSets' ReplicaFailure conditions; and the recent Warning events when they are given.

import type {Pod, PodCondition} from '../controller/api/types.js'
import {formatTime, humanDuration, parseTime, relative, seconds} from '../util/duration.js'
import type {ReplicaSetInfo, RolloutContext} from './context.js'
import {eventObject, eventsAbout} from './event-index.js'
import {type Blocker, type BlockerCode, type EventRow, HARD_BLOCKERS, type KubeEvent} from './types.js'

const HARD = new Set<string>(HARD_BLOCKERS)

/** Container waiting reasons that are failures, with the code explain reports them under. */
const FAILING_WAIT: Record<string, BlockerCode> = {
  ImagePullBackOff: 'ImagePullBackOff',
  ErrImagePull: 'ErrImagePull',
  InvalidImageName: 'InvalidImageName',
  ErrImageNeverPull: 'ErrImageNeverPull',
  CrashLoopBackOff: 'CrashLoopBackOff',
  CreateContainerConfigError: 'CreateContainerConfigError',
  CreateContainerError: 'CreateContainerError',
  RunContainerError: 'RunContainerError',
}

/** Waiting reasons of a container that is simply starting. */
const STARTING_WAIT = new Set(['ContainerCreating', 'PodInitializing'])

function blocker(
  code: BlockerCode,
  object: Blocker['object'],
  message: string,
  extra: Partial<Omit<Blocker, 'code' | 'hard' | 'object' | 'message'>> = {},
): Blocker {
  return {
    code,
    hard: HARD.has(code),
    object,
    replicaSet: null,
    container: null,
    image: null,
    message,
    restarts: null,
    lastExitCode: null,
    since: null,
    until: null,
    ...extra,
  }
}

function deletionText(t: string, now: number): string {
  const ms = parseTime(t)
  return ms === undefined ? t : `${t} (${relative(ms, now)})`
}

function podCondition(pod: Pod, type: string): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type)
}

/**
 * The requests behind the scheduler's `Insufficient <resource>` reasons (upstream: NodeResourcesFit's
 * "Insufficient %v"): `cpu 4 (container web)`, as the pod spec writes them.
 */
function scarceRequests(pod: Pod, message: string): {text: string; container: string} | null {
  const scarce = new Set([...message.matchAll(/Insufficient ([\w./-]*[\w/-])/g)].map((m) => m[1]!))
  const parts: string[] = []
  let first: string | null = null
  for (const c of pod.spec?.containers ?? []) {
    const requests = (c.resources as {requests?: Record<string, unknown>} | undefined)?.requests ?? {}
    for (const r of scarce) {
      if (requests[r] === undefined) continue
      parts.push(`${r} ${String(requests[r])} (container ${c.name})`)
      first ??= c.name
    }
  }
  return first === null ? null : {text: parts.join(', '), container: first}
}

const isTerminal = (pod: Pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed'

/**
 * A pod still there a whole grace period after its deletion was due: deletionTimestamp (the time of
 * the delete plus its grace period) plus deletionGracePeriodSeconds lies before now. upstream:
 * QuotaV1Pod stops charging such a pod ("stuck terminating (for example, a node is lost)").
 * Finalizers hold a pod until their owners remove them; without any, the pod's kubelet has not
 * confirmed its containers stopped.
 */
function pastGrace(pod: Pod, rsName: string, now: number): Blocker | undefined {
  const due = parseTime(pod.metadata.deletionTimestamp)
  const grace = pod.metadata.deletionGracePeriodSeconds
  if (due === undefined || grace == null) return undefined
  const stuckAt = due + grace * 1000
  if (now <= stuckAt) return undefined
  const finalizers = pod.metadata.finalizers ?? []
  const node = typeof pod.spec?.nodeName === 'string' ? pod.spec.nodeName : ''
  const why =
    finalizers.length > 0
      ? `finalizer${finalizers.length === 1 ? '' : 's'} ${finalizers.join(', ')} still ${finalizers.length === 1 ? 'holds' : 'hold'} it: whatever owns ${finalizers.length === 1 ? 'it' : 'them'} has not removed ${finalizers.length === 1 ? 'it' : 'them'}`
      : node !== ''
        ? `no finalizers, so the kubelet of node ${node} has not confirmed that its containers stopped: a node that is down or unreachable never does (kubectl get node ${node})`
        : 'no finalizers and no node'
  return blocker(
    'TerminatingPastGrace',
    {kind: 'Pod', name: pod.metadata.name ?? ''},
    `still terminating ${humanDuration(now - due)} after its deletion was due (${pod.metadata.deletionTimestamp}, grace period ${grace}s; stuck since ${formatTime(stuckAt)}): ${why}`,
    {replicaSet: rsName, since: formatTime(stuckAt)},
  )
}

/** The problems of one pod of the new ReplicaSet, most telling first. */
export function podBlockers(pod: Pod, rsName: string, minReadySeconds: number, now: number): Blocker[] {
  const name = pod.metadata.name ?? ''
  const object = {kind: 'Pod' as const, name}
  const base = {replicaSet: rsName}
  if (pod.metadata.deletionTimestamp != null) {
    const grace = pod.metadata.deletionGracePeriodSeconds
    const stuck = pastGrace(pod, rsName, now)
    if (stuck) return [stuck]
    return [
      blocker(
        'Terminating',
        object,
        `being deleted: due to be gone by ${deletionText(pod.metadata.deletionTimestamp, now)}${grace != null ? `, grace period ${grace}s` : ''}`,
        {...base, since: pod.metadata.deletionTimestamp},
      ),
    ]
  }
  if (isTerminal(pod)) return []
  const scheduled = podCondition(pod, 'PodScheduled')
  if (scheduled?.status === 'False') {
    const code = scheduled.reason === 'Unschedulable' ? 'Unschedulable' : 'Pending'
    const msg = scheduled.message ?? scheduled.reason ?? 'not scheduled'
    const wanted = code === 'Unschedulable' ? scarceRequests(pod, msg) : null
    return [
      blocker(
        code,
        object,
        code === 'Unschedulable'
          ? `cannot be scheduled: ${msg}${wanted ? `${msg.endsWith('.') ? '' : '.'} It requests ${wanted.text}.` : ''}`
          : `not scheduled yet: ${msg}`,
        {
          ...base,
          container: wanted?.container ?? null,
          since: scheduled.lastTransitionTime ?? null,
        },
      ),
    ]
  }
  if (pod.status?.phase === 'Pending' && scheduled === undefined && pod.spec?.nodeName == null) {
    return [
      blocker('Pending', object, 'not scheduled yet', {
        ...base,
        since: pod.metadata.creationTimestamp ?? null,
      }),
    ]
  }

  const found: Blocker[] = []
  const images = new Map((pod.spec?.containers ?? []).map((c) => [c.name, c.image ?? null]))
  for (const c of pod.spec?.initContainers ?? []) images.set(c.name, c.image ?? null)
  const statuses = [
    ...(pod.status?.initContainerStatuses ?? []).map((s) => ({s, init: true})),
    ...(pod.status?.containerStatuses ?? []).map((s) => ({s, init: false})),
  ]
  for (const {s, init} of statuses) {
    const label = init ? `init container ${s.name}` : `container ${s.name}`
    const image = s.image || images.get(s.name) || null
    const waiting = s.state?.waiting
    const reason = waiting?.reason ?? ''
    const extra = {...base, container: s.name, image}
    if (FAILING_WAIT[reason]) {
      const code = FAILING_WAIT[reason]!
      if (code === 'CrashLoopBackOff') {
        const last = s.lastState?.terminated
        const exit = last?.exitCode ?? null
        const lastText =
          last !== undefined
            ? `; last exit code ${exit ?? '?'}${last.reason ? ` (${last.reason})` : ''}${last.finishedAt ? ` at ${last.finishedAt}` : ''}`
            : ''
        found.push(
          blocker(code, object, `${label} keeps crashing: ${s.restartCount ?? 0} restarts${lastText}`, {
            ...extra,
            restarts: s.restartCount ?? 0,
            lastExitCode: exit,
          }),
        )
      } else {
        const what =
          code === 'ImagePullBackOff' || code === 'ErrImagePull'
            ? `cannot pull image ${image ?? '?'}`
            : reason
        found.push(
          blocker(code, object, `${label} ${what}${waiting?.message ? `: ${waiting.message}` : ''}`, extra),
        )
      }
    } else if (STARTING_WAIT.has(reason)) {
      found.push(
        blocker('ContainerCreating', object, `${label} is starting (${reason})`, {
          ...extra,
          since: pod.status?.startTime ?? pod.metadata.creationTimestamp ?? null,
        }),
      )
    } else if (reason !== '') {
      found.push(
        blocker(
          'ContainerWaiting',
          object,
          `${label} is waiting: ${reason}${waiting?.message ? `: ${waiting.message}` : ''}`,
          extra,
        ),
      )
    }
  }
  if (found.length > 0) return found

  const ready = podCondition(pod, 'Ready')
  if (ready?.status === 'True') {
    if (minReadySeconds <= 0) return []
    const since = parseTime(ready.lastTransitionTime)
    if (since === undefined) return []
    const availableAt = since + minReadySeconds * 1000
    // upstream IsPodAvailable: available once readiness + minReadySeconds lies strictly before now.
    if (availableAt < now) return []
    return [
      blocker(
        'MinReadySeconds',
        object,
        `ready since ${formatTime(since)}, but minReadySeconds is ${minReadySeconds} (${seconds(minReadySeconds)}): available after ${formatTime(availableAt)} (${relative(availableAt, now)})`,
        {...base, since: formatTime(since), until: formatTime(availableAt)},
      ),
    ]
  }
  const running = (pod.status?.containerStatuses ?? []).filter((s) => s.state?.running && !s.ready)
  const containersReady = podCondition(pod, 'ContainersReady')
  const msg = containersReady?.message ?? ready?.message ?? 'not ready'
  const detail =
    running.length > 0
      ? `running since ${running[0]!.state?.running?.startedAt ?? '?'} but not ready (${msg}): its readiness probe has not passed yet`
      : `not ready (${msg})`
  return [
    blocker('NotReady', object, detail, {
      ...base,
      container: running[0]?.name ?? null,
      since: ready?.lastTransitionTime ?? null,
    }),
  ]
}

/** The ReplicaFailure condition of a ReplicaSet (FailedCreate: quota, admission, ...). */
function replicaFailure(info: ReplicaSetInfo): Blocker | undefined {
  const c = info.rs.status?.conditions?.find((x) => x.type === 'ReplicaFailure' && x.status === 'True')
  if (!c) return undefined
  return blocker(
    'ReplicaFailure',
    {kind: 'ReplicaSet', name: info.rs.metadata.name ?? ''},
    `cannot create pods: ${c.reason ?? 'ReplicaFailure'}${c.message ? `: ${c.message}` : ''}`,
    {replicaSet: info.rs.metadata.name ?? null, since: c.lastTransitionTime ?? null},
  )
}

/**
 * Without the ReplicaFailure condition (e.g. a snapshot of the ReplicaSet taken before its status
 * was written), the replicaset-controller's Warning FailedCreate events say the same: upstream
 * RealPodControl.createPods records "Error creating: %v" for each refused pod. Only while the
 * ReplicaSet still lacks pods: once it has them all, the events (kept for an hour) are history.
 */
function failedCreateEvent(info: ReplicaSetInfo, ctx: RolloutContext): Blocker | undefined {
  const rs = info.rs
  if (!ctx.events || (rs.status?.replicas ?? 0) >= (rs.spec.replicas ?? 1)) return undefined
  const name = rs.metadata.name ?? ''
  const failed = eventsAbout(ctx.events, ctx.namespace, 'ReplicaSet', new Set([name]))
    .filter((e) => e.type === 'Warning' && e.reason === 'FailedCreate')
    .sort((a, b) => (parseTime(eventTime(b)) ?? 0) - (parseTime(eventTime(a)) ?? 0))
  const e = failed[0]
  if (!e) return undefined
  const count = e.series?.count ?? e.count ?? 1
  const text = eventMessage(e).replace(/^Error creating: /, '')
  return blocker(
    'FailedCreate',
    {kind: 'ReplicaSet', name},
    `cannot create pods: ${text} (FailedCreate event${count > 1 ? ` x${count}` : ''}, last at ${eventTime(e) ?? '?'})`,
    {replicaSet: name, since: e.firstTimestamp ?? eventTime(e)},
  )
}

/** The ResourceQuota an admission refusal names (`exceeded quota: NAME, requested: ...`), or null. */
export function quotaNamed(message: string): string | null {
  return /exceeded quota: ([^,\s]+)/.exec(message)?.[1] ?? null
}

/**
 * The Deployment's own ReplicaFailure condition, for input that lacks its new ReplicaSet (a posted
 * `kubectl get deploy -o yaml`): the controller copies the ReplicaSet's condition there (upstream:
 * calculateStatus with getReplicaFailures), so it still says why pods are not created, and which
 * ResourceQuota refuses them.
 */
export function deploymentReplicaFailure(ctx: RolloutContext): Blocker | undefined {
  const c = ctx.d.status?.conditions?.find((x) => x.type === 'ReplicaFailure' && x.status === 'True')
  if (!c) return undefined
  const text = `${c.reason ?? 'ReplicaFailure'}${c.message ? `: ${c.message}` : ''}`
  const quota = quotaNamed(c.message ?? '')
  const where = quota
    ? ` (ResourceQuota ${quota}: kubectl describe resourcequota ${quota} -n ${ctx.namespace})`
    : ''
  return blocker(
    'ReplicaFailure',
    {kind: 'Deployment', name: ctx.name},
    `its status says its ReplicaSet cannot create pods: ${text}${where}`,
    {since: c.lastTransitionTime ?? null},
  )
}

const activePod = (p: Pod) => !isTerminal(p)

export function explainBlockers(ctx: RolloutContext): Blocker[] {
  const {view, d, now, result} = ctx
  const out: Blocker[] = []
  const newInfo = view.all.find((i) => i.role === 'new')
  const minReady = d.spec.minReadySeconds ?? 0
  if (newInfo) {
    const failure = replicaFailure(newInfo) ?? failedCreateEvent(newInfo, ctx)
    if (failure) out.push(failure)
    const rsName = newInfo.rs.metadata.name ?? ''
    for (const pod of sortPods(newInfo.pods)) out.push(...podBlockers(pod, rsName, minReady, now))
  } else {
    const failure = deploymentReplicaFailure(ctx)
    if (failure) out.push(failure)
  }
  for (const info of view.all.filter((i) => i.role === 'old')) {
    const failure = replicaFailure(info)
    if (failure) out.push({...failure, hard: false})
  }
  // Old pods: the ones shutting down, and under Recreate every old pod the new ones wait for.
  const recreateWaits = result.path.includes('rolloutRecreate') && ctx.facts.last('oldPodsRunning') === true
  for (const info of view.all.filter((i) => i.role === 'old')) {
    const rsName = info.rs.metadata.name ?? ''
    for (const pod of sortPods(info.pods)) {
      const object = {kind: 'Pod' as const, name: pod.metadata.name ?? ''}
      if (pod.metadata.deletionTimestamp != null) {
        out.push(...podBlockers(pod, rsName, 0, now))
      } else if (recreateWaits && activePod(pod)) {
        out.push(
          blocker(
            'OldPodRunning',
            object,
            `old pod still ${pod.status?.phase ?? 'present'}: Recreate waits until it is gone`,
            {
              replicaSet: rsName,
            },
          ),
        )
      }
    }
  }
  if (!podsInInput(ctx)) {
    const reported = view.claimed.reduce((n, rs) => n + (rs.status?.replicas ?? 0), 0)
    out.push(
      blocker(
        'NoPodsInInput',
        {kind: 'Deployment', name: ctx.name},
        `the ReplicaSets report ${reported} ${reported === 1 ? 'pod' : 'pods'} but the input holds none of them, so what blocks them is unknown: include the pods (kubectl get deploy,rs,pods -o yaml)`,
      ),
    )
  }
  return withReadinessEvents(out, ctx)
}

/** false when the ReplicaSets report pods that the input does not hold. */
export function podsInInput(ctx: RolloutContext): boolean {
  const pods = ctx.view.all.filter((i) => i.role !== 'not owned').reduce((n, i) => n + i.pods.length, 0)
  const reported = ctx.view.claimed.reduce((n, rs) => n + (rs.status?.replicas ?? 0), 0)
  return pods > 0 || reported === 0
}

function sortPods(pods: Pod[]): Pod[] {
  return [...pods].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))
}

/** With events, a pod whose readiness probe is reported failing is a failure, not a wait. */
function withReadinessEvents(blockers: Blocker[], ctx: RolloutContext): Blocker[] {
  if (!ctx.events) return blockers
  return blockers.map((b) => {
    if (b.code !== 'NotReady') return b
    const e = eventsAbout(ctx.events ?? [], ctx.namespace, 'Pod', new Set([b.object.name])).find(
      (x) =>
        x.type === 'Warning' && x.reason === 'Unhealthy' && /readiness probe failed/i.test(eventMessage(x)),
    )
    if (!e) return b
    return {
      ...b,
      code: 'ReadinessProbeFailing',
      hard: true,
      message: `readiness probe fails: ${eventMessage(e)}`,
    }
  })
}

// --- events ------------------------------------------------------------------------------------------

function eventMessage(e: KubeEvent): string {
  return e.note ?? e.message ?? ''
}

/** When the event was first seen (eventTime, else firstTimestamp, as kubectl describe reads it). */
function eventFirstTime(e: KubeEvent): string | null {
  const t = e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp ?? null
  const ms = parseTime(t)
  return ms === undefined ? t : formatTime(ms)
}

/** When the event was last seen, as RFC 3339 in whole seconds (MicroTime's fraction dropped). */
function eventTime(e: KubeEvent): string | null {
  const t =
    e.series?.lastObservedTime ??
    e.lastTimestamp ??
    e.eventTime ??
    e.firstTimestamp ??
    e.metadata?.creationTimestamp ??
    null
  const ms = parseTime(t)
  return ms === undefined ? t : formatTime(ms)
}

/** The events of the Deployment, its ReplicaSets and their pods (any type); empty without events. */
export function concerningEvents(ctx: RolloutContext): KubeEvent[] {
  if (!ctx.events) return []
  const owned = ctx.view.all.filter((i) => i.role !== 'not owned')
  const rsNames = new Set(owned.map((i) => i.rs.metadata.name ?? ''))
  const podNames = new Set(owned.flatMap((i) => i.pods.map((p) => p.metadata.name ?? '')))
  return [
    ...eventsAbout(ctx.events, ctx.namespace, 'Deployment', new Set([ctx.name])),
    ...eventsAbout(ctx.events, ctx.namespace, 'ReplicaSet', rsNames),
    ...eventsAbout(ctx.events, ctx.namespace, 'Pod', podNames),
  ]
}

/** The newest time among events (series, last, event time, first, creation), or null. */
export function newestEventTime(events: readonly KubeEvent[]): string | null {
  let best: string | null = null
  let bestMs = Number.NEGATIVE_INFINITY
  for (const e of events) {
    const t = eventTime(e)
    const ms = parseTime(t)
    if (ms !== undefined && ms > bestMs) {
      bestMs = ms
      best = t
    }
  }
  return best
}

/** Warning events of the Deployment, its ReplicaSets and their pods, newest first. */
export function warningEvents(ctx: RolloutContext): EventRow[] | null {
  if (!ctx.events) return null
  const relevant = concerningEvents(ctx).filter((e) => e.type === 'Warning')
  return newestFirst(relevant.map(eventRow))
}

/** An event as explain lists it (core/v1 and events.k8s.io/v1 alike). */
export function eventRow(e: KubeEvent): EventRow {
  return {
    type: e.type ?? '',
    reason: e.reason ?? '',
    message: eventMessage(e),
    object: {kind: eventObject(e).kind ?? '', name: eventObject(e).name ?? ''},
    count: e.series?.count ?? e.count ?? 1,
    firstSeen: eventFirstTime(e),
    lastSeen: eventTime(e),
  }
}

export function newestFirst(rows: EventRow[]): EventRow[] {
  return rows.sort((a, b) => (parseTime(b.lastSeen) ?? 0) - (parseTime(a.lastSeen) ?? 0))
}
