// plan/: what applying a Deployment will do to its rollout, before it is applied. The proposed
// object (as the API server would store it) is compared with the current one the way the
// controller compares them (the pod template, EqualIgnoreHash), the rollout is simulated on the
// current world with the same simulator as `rollout watch -f`, timed by the pods the cluster has
// shown, and the risks the objects reveal are named.

import {clientSideApply} from '../cluster/apply/client.js'
import {ApplyConflictError, serverSideApply} from '../cluster/apply/managed.js'
import {defaultDeployment} from '../cluster/load/defaults.js'
import {DEFAULT_NAMESPACE, namespaceOf} from '../cluster/memory.js'
import type {ClusterObject, World} from '../cluster/world.js'
import type {Deployment, Pod, ReplicaSet} from '../controller/api/types.js'
import {RollingUpdateStrategyType} from '../controller/api/types.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {
  deploymentReplicas,
  findNewReplicaSet,
  maxSurge,
  maxUnavailable,
  RevisionAnnotation,
} from '../controller/util/deployment-util.js'
import {semanticEqual} from '../controller/util/equality.js'
import {InputError} from '../errors.js'
import {envelope, type ResultEnvelope} from '../pass/result.js'
import {type SurgeFit, surgeFit} from '../sim/fit.js'
import {DEFAULT_TIMINGS} from '../sim/pods.js'
import {type Simulation, simulate, snapshotTime} from '../sim/simulator.js'
import {percentile, podReadySeconds} from '../status/eta.js'
import {itemKey, judgeWorld} from '../status/item.js'
import {replicaSetsOf} from '../status/observe.js'
import {podCount, podsOwnedBy} from '../status/pods.js'
import {rolloutStatus} from '../status/rollout-status.js'
import {type FieldChange, specChanges, templateChanges} from '../status/template-diff.js'
import type {Verdict} from '../status/types.js'
import {formatTime} from '../util/duration.js'
import {type AutoscalerForecast, forecast} from './autoscaler.js'
import {addRequests, NO_REQUESTS, podRequests, type Requests} from './requests.js'
import {type ClusterContext, planRisks, type Risk} from './risks.js'

export type {SurgeFit} from '../sim/fit.js'
export type {FieldChange} from '../status/template-diff.js'
export type {AutoscalerForecast} from './autoscaler.js'
export type {ClusterContext, Risk} from './risks.js'

export type NewReplicaSet = 'create' | 'reuse' | 'none'

export interface PlanStep {
  /** Seconds after the change is applied. */
  atSeconds: number
  /** The ReplicaSet, or for an autoscaler's step `hpa/<name>`. */
  replicaSet: string
  revision: number
  /** `autoscaler`: a HorizontalPodAutoscaler writes the Deployment's spec.replicas (from -> to). */
  role: 'new' | 'old' | 'autoscaler'
  from: number
  to: number
}

/** One point of the rollout's shape: pods of the old and new ReplicaSets, and available ones. */
export interface PlanPoint {
  atSeconds: number
  /** Active (not terminating) pods of the old ReplicaSets, and of the new one. */
  old: number
  new: number
  /** Pods being deleted, of any ReplicaSet. */
  terminating: number
  available: number
}

export interface Estimate {
  /** The rollout's duration when each new pod takes the observed median time to ready. */
  p50Seconds: number
  /** ...and the 90th percentile. */
  p90Seconds: number
  /** Per pod, creation to available (Ready − creation, plus minReadySeconds). */
  podSeconds: {p50: number; p90: number}
  /** Pods the times come from, and their ReplicaSet. */
  samples: number
  replicaSet: string
}

export interface PlanItem {
  deployment: {namespace: string; name: string}
  /**
   * Where the rollout stands right after the apply, before the controller acts (status/item.ts: the
   * verdict explain gives the same objects at the simulation's start).
   */
  verdict: Verdict
  /** False when the Deployment does not exist yet (the apply creates it). */
  exists: boolean
  rollout: boolean
  newReplicaSet: NewReplicaSet
  /** The ReplicaSet whose template the proposed one matches (reuse, none); null for create. */
  replicaSet: {name: string; revision: number} | null
  templateChanges: FieldChange[]
  otherChanges: FieldChange[]
  steps: PlanStep[]
  /** The most active pods at once: what the strategy bounds (spec.replicas + maxSurge during a rolling update). */
  peakPods: number
  /** The most pods at once counting terminating ones, as `rollout watch` reports its peak. */
  peakPodsWithTerminating: number
  minAvailable: number
  /** The requests of the peak's pods beyond those of the pods running now (from the templates' requests). */
  extraAtPeak: ExtraAtPeak
  estimate: Estimate | null
  /** Why estimate is null. */
  estimateReason?: string
  simulation: {
    /** Each new pod's time from creation to Ready: the observed median, or the simulator's default. */
    podReadyAfterSeconds: number
    terminateAfterSeconds: number
    source: 'observed' | 'default'
    /** The simulated clock's start (RFC 3339): --now, or the newest timestamp of the current objects. */
    start: string
    /** How the simulated rollout ended: complete, deadlineExceeded, stalled (paused), maxTime. */
    outcome: string
    seconds: number
    timeline: PlanPoint[]
  }
  risks: Risk[]
  /** How many of the pods the peak adds the nodes can take (null: no nodes to judge from; see surgeNote). */
  surge: SurgeFit | null
  surgeNote?: string
  /** Each HorizontalPodAutoscaler of the Deployment with a utilization to work from: its count over the rollout. */
  autoscalers: AutoscalerForecast[]
}

export type PlanResult = ResultEnvelope<'PlanResult', PlanItem>

/** A Deployment as the user proposes it: as the API server would store it, and as written. */
export interface Proposal {
  deployment: Deployment
  /** The object as written (before defaulting); undefined from a server-side dry run. */
  raw?: unknown
  /** The proposed object is what the API server returned (live dry run): used as is. */
  stored?: boolean
}

export interface PlanOptions {
  now: number
  /** Start the simulated clock at `now` (live, or --now); otherwise at the snapshot's newest timestamp. */
  nowGiven: boolean
  gates: FeatureGates & {values: Record<string, boolean>}
  /** Override of the pods' time to ready (ms); default: observed, else the simulator's 10 s. */
  readyAfter?: number
  terminateAfter?: number
  maxTime?: number
  cluster?: ClusterContext
  /** How the change is applied (default client, as `kubectl apply`). */
  apply?: ApplyMode
  /** --apply=server: the field manager, and whether to take conflicting fields. */
  serverSide?: {fieldManager: string; force: boolean}
}

type Obj = Record<string, unknown>
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** How the change is applied, as kubectl has it (docs/plan.md). */
export type ApplyMode = 'client' | 'server' | 'replace'

/**
 * The proposed object as the apply would leave it, offline. `client` (kubectl apply): the three-way
 * strategic merge of the last-applied configuration, the object as written and the current object,
 * then the API server's defaults (a defaulted field is in no last-applied configuration, so the
 * merge keeps it); what the last configuration had and the proposal lacks is deleted (and defaulted
 * again: spec.replicas goes back to 1). `replace` (kubectl replace): the proposal as the whole
 * object, defaulted. Identity, status and the revision annotation stay the current object's; the
 * generation moves when the spec changes.
 */
export function appliedObject(
  current: Deployment | undefined,
  p: Proposal,
  mode: ApplyMode = 'client',
  server?: {fieldManager: string; force: boolean},
): Deployment {
  if (p.stored || !current) return structuredClone(p.deployment)
  const written = isObject(p.raw) ? withNamespace(p.raw, p.deployment.metadata.namespace) : undefined
  let out: Deployment
  if (mode === 'client' && written) {
    out = clientSideApply(written, current).result as unknown as Deployment
    defaultDeployment(out as unknown as Record<string, unknown>)
  } else if (mode === 'server' && written) {
    try {
      out = serverSideApply(current, written, {
        manager: server?.fieldManager ?? 'kubectl',
        force: server?.force === true,
      }).result as unknown as Deployment
    } catch (err) {
      if (err instanceof ApplyConflictError) {
        throw new InputError(
          `deployments.apps "${current.metadata.name ?? ''}": ${err.message} (as kubectl apply --server-side would fail: --force-conflicts takes the fields)`,
        )
      }
      throw err
    }
    defaultDeployment(out as unknown as Record<string, unknown>)
  } else {
    out = structuredClone(p.deployment)
  }
  const metadata = out.metadata
  out.metadata = {
    ...structuredClone(current.metadata),
    labels: metadata.labels,
    annotations: metadata.annotations,
  }
  if (metadata.labels === undefined) delete out.metadata.labels
  out.status = structuredClone(current.status)
  // The revision is the controller's, never the applier's.
  const revision = current.metadata.annotations?.[RevisionAnnotation]
  const annotations = {...out.metadata.annotations}
  if (revision !== undefined) annotations[RevisionAnnotation] = revision
  else delete annotations[RevisionAnnotation]
  out.metadata.annotations = annotations
  if (!semanticEqual(current.spec, out.spec)) out.metadata.generation = (current.metadata.generation ?? 0) + 1
  return out
}

/** The object as kubectl sends it: with the namespace it resolved when the file names none. */
function withNamespace(raw: Obj, namespace: string | undefined): Obj {
  const out = structuredClone(raw)
  const metadata = isObject(out.metadata) ? out.metadata : {}
  if ((metadata.namespace === undefined || metadata.namespace === '') && namespace)
    metadata.namespace = namespace
  out.metadata = metadata
  return out
}

function revisionOf(rs: ReplicaSet): number {
  const v = Number(rs.metadata.annotations?.[RevisionAnnotation] ?? '')
  return Number.isSafeInteger(v) ? v : 0
}

/** The verdict of the applied Deployment over (copies of) the current objects, at `now`. */
async function appliedVerdict(
  world: World,
  namespace: string,
  name: string,
  now: number,
  gates: PlanOptions['gates'],
): Promise<Verdict> {
  const copy: World = {
    deployments: world.deployments.map((d) => structuredClone(d)),
    replicaSets: world.replicaSets.map((rs) => structuredClone(rs)),
    pods: world.pods.map((p) => structuredClone(p)),
    sources: new WeakMap(),
  }
  const verdicts = await judgeWorld(copy, {namespace, names: [name]}, {now, gates})
  const verdict = verdicts.get(itemKey({namespace, name}))
  if (verdict === undefined) throw new Error(`no verdict for deployment ${namespace}/${name}`)
  return verdict
}

/** The plans of the proposed Deployments against `current`, as one PlanResult. */
export async function planAll(
  current: World,
  proposals: Proposal[],
  options: PlanOptions,
): Promise<PlanResult> {
  const items: PlanItem[] = []
  for (const p of proposals) items.push(await planOne(current, p, options))
  return envelope('PlanResult', options.now, options.gates, items)
}

export async function planOne(current: World, p: Proposal, options: PlanOptions): Promise<PlanItem> {
  const namespace = namespaceOf(p.deployment) || DEFAULT_NAMESPACE
  const name = p.deployment.metadata.name ?? ''
  const before = current.deployments.find((d) => namespaceOf(d) === namespace && d.metadata.name === name)
  const applied = appliedObject(before, p, options.apply, options.serverSide)
  const owned = before ? replicaSetsOf(before, current.replicaSets) : []
  const currentRS = before ? findNewReplicaSet(before, [...owned]) : undefined
  const matched = findNewReplicaSet(applied, [...owned])
  const newReplicaSet: NewReplicaSet =
    matched === undefined ? 'create' : currentRS !== undefined && matched === currentRS ? 'none' : 'reuse'
  const rawTemplate = isObject(p.raw) && isObject(p.raw.spec) ? p.raw.spec.template : undefined
  const diffOptions = p.raw !== undefined ? {raw: rawTemplate} : {}
  const fromTemplate = before?.spec.template
  const changes = before ? templateChanges(fromTemplate, applied.spec.template, diffOptions) : []
  const other = before
    ? specChanges(before.spec, applied.spec, p.raw !== undefined && isObject(p.raw) ? {raw: p.raw.spec} : {})
    : []

  // Time to ready, from the pods of the current ReplicaSet.
  const basis = currentRS
  const times = basis ? podReadySeconds(podsOwnedBy(basis, current.pods)) : undefined
  const minReady = applied.spec.minReadySeconds ?? 0
  const p50 = times ? percentile(times.readySeconds, 50) : undefined
  const p90 = times ? percentile(times.readySeconds, 90) : undefined
  const observed = p50 !== undefined && p90 !== undefined
  const readyAfter = options.readyAfter ?? (observed ? p50 * 1000 : DEFAULT_TIMINGS.readyAfter)
  const terminateAfter = options.terminateAfter ?? DEFAULT_TIMINGS.terminateAfter

  const nodes = options.cluster?.nodes ?? []
  const world: World = {
    deployments: [...current.deployments.filter((d) => d !== before), applied],
    replicaSets: current.replicaSets,
    pods: current.pods,
    sources: new WeakMap(),
    // With the nodes, the simulated scheduler places pods on their room: the steps wait for it.
    ...(nodes.length > 0 ? {nodes: nodes as ClusterObject[]} : {}),
    // An autoscaler of the Deployment syncs in the simulation and writes its spec.replicas.
    autoscalers: (options.cluster?.autoscalers ?? []) as ClusterObject[],
    // The namespace's ResourceQuotas: the simulated API server refuses pods over them, as the
    // cluster's admission will (usage from the pods, whatever the quotas' status says).
    quotas: (options.cluster?.quotas ?? []) as ClusterObject[],
  }
  const occupied = (options.cluster?.pods ?? current.pods) as Pod[]
  const start = options.nowGiven ? options.now : (snapshotTime(current, namespace) ?? options.now)
  const run = (ready: number) =>
    simulate(world, {
      namespace,
      name,
      start,
      gates: options.gates,
      timings: {readyAfter: ready, terminateAfter},
      ...(nodes.length > 0 ? {occupied} : {}),
      ...(options.maxTime !== undefined ? {maxTime: options.maxTime} : {}),
    })
  const sim = await run(readyAfter)
  const slow = observed && options.readyAfter === undefined && p90 !== p50 ? await run(p90 * 1000) : sim

  const templates = new Map<string, Requests>(
    owned.map((rs) => [rs.metadata.name ?? '', podRequests(rs.spec.template)]),
  )
  const proposedRequests = podRequests(applied.spec.template)
  const shape = shapeOf(sim, templates, proposedRequests)

  let estimate: Estimate | null = null
  let estimateReason: string | undefined
  if (!observed) {
    estimateReason = basis
      ? `no pod of ReplicaSet ${basis.metadata.name} became Ready without a restart: the simulation assumes ${readyAfter / 1000}s from creation to Ready`
      : `no current ReplicaSet with pods to time: the simulation assumes ${readyAfter / 1000}s from creation to Ready`
  } else if (!sim.summary.complete || !slow.summary.complete) {
    estimateReason = `the simulated rollout does not complete (${(slow.summary.complete ? sim : slow).summary.outcome}): ${(slow.summary.complete ? sim : slow).summary.message}`
  } else {
    estimate = {
      p50Seconds: sim.summary.duration / 1000,
      p90Seconds: slow.summary.duration / 1000,
      podSeconds: {p50: p50 + minReady, p90: p90 + minReady},
      samples: times?.readySeconds.length ?? 0,
      replicaSet: basis?.metadata.name ?? '',
    }
  }
  const verdict = await appliedVerdict(world, namespace, name, start, options.gates)
  const item: PlanItem = {
    deployment: {namespace, name},
    verdict,
    exists: before !== undefined,
    rollout: newReplicaSet !== 'none',
    newReplicaSet,
    replicaSet: matched ? {name: matched.metadata.name ?? '', revision: revisionOf(matched)} : null,
    templateChanges: changes,
    otherChanges: other,
    steps: shape.steps,
    peakPods: shape.peakPods,
    peakPodsWithTerminating: sim.summary.peakPods,
    minAvailable: sim.summary.minAvailable,
    extraAtPeak: shape.extraAtPeak,
    estimate,
    ...(estimateReason !== undefined ? {estimateReason} : {}),
    simulation: {
      podReadyAfterSeconds: readyAfter / 1000,
      terminateAfterSeconds: terminateAfter / 1000,
      source: options.readyAfter === undefined && observed ? 'observed' : 'default',
      start: formatTime(start),
      outcome: sim.summary.outcome,
      seconds: sim.summary.duration / 1000,
      timeline: shape.timeline,
    },
    risks: [],
    surge: null,
    autoscalers: [],
  }
  for (const hpa of options.cluster?.autoscalers ?? []) {
    const ref = (hpa.spec ?? {}) as {scaleTargetRef?: {kind?: string; name?: string}}
    if ((hpa.metadata?.namespace ?? DEFAULT_NAMESPACE) !== namespace) continue
    if (ref.scaleTargetRef?.kind !== 'Deployment' || ref.scaleTargetRef.name !== name) continue
    const f = forecast(hpa, deploymentReplicas(applied), shape.steps, shape.timeline)
    if (f) item.autoscalers.push(f)
  }
  if (nodes.length > 0) {
    item.surge = surgeFit(
      applied.spec.template,
      item.extraAtPeak.pods,
      nodes,
      options.cluster?.pods ?? current.pods,
    )
  } else {
    item.surgeNote =
      options.cluster?.nodesNote ??
      'no nodes to fit the surge on (give the snapshot its nodes: kubectl get nodes -o yaml)'
  }
  item.risks = planRisks({
    item,
    before,
    applied,
    raw: p.raw,
    owned,
    currentRS,
    slow,
    cluster: options.cluster,
    resolved: {
      surge: applied.spec.strategy?.type === RollingUpdateStrategyType ? maxSurge(applied) : undefined,
      unavailable:
        applied.spec.strategy?.type === RollingUpdateStrategyType ? maxUnavailable(applied) : undefined,
    },
    replicas: deploymentReplicas(applied),
    // A Deployment without ReplicaSets yet has no rollout in flight: the controller makes its first.
    currentDone: before && owned.length > 0 ? rolloutStatus(before).done : true,
  })
  for (const f of item.autoscalers) {
    const replicas = deploymentReplicas(applied)
    if (!item.rollout || f.peak.replicas <= Math.max(f.now, replicas)) continue
    const m = f.metrics.map((x) => `${x.current}% ${x.resource} of a ${x.target}% target`).join(', ')
    item.risks.push({
      code: 'AutoscalerAmplifies',
      message: `HorizontalPodAutoscaler ${f.name} counts the rollout's new pods too: at +${f.peak.atSeconds}s, ${f.peak.pods} pods at ${m}, it would ask for ${f.peak.replicas} replicas (${f.now} without the surge): the Deployment grows during the rollout, and its surge with it (kubernetes#72775)`,
    })
  }
  const fit = item.surge
  if (fit && fit.fit < fit.needed) {
    item.risks.push({
      code: 'SurgeUnschedulable',
      message: fit.unresolvable
        ? `${fit.fit} of ${fit.needed} surge pods fit on the ${fit.nodes} nodes (${fit.reason ?? ''}): no node can take one however many old pods leave, so the rest stay Pending until nodes that can are added, and the rollout waits for them`
        : `${fit.fit} of ${fit.needed} surge pods fit on the ${fit.nodes} nodes (${fit.reason ?? ''}): the rest stay Pending until old pods are gone or nodes are added, and the rollout waits for them`,
    })
  }
  return item
}

/**
 * What the peak's pods request beyond the pods running now: cpu and memory, and `resources`, the
 * others (ephemeral-storage, extended resources such as nvidia.com/gpu, hugepages) when any is more.
 */
export interface ExtraAtPeak {
  pods: number
  cpuMillicores: number
  memoryBytes: number
  resources?: Record<string, number>
}

/** What the peak requests beyond the start of the resources other than cpu and memory, when any is more. */
function extraOther(peak: Requests, start: Requests): {resources?: Record<string, number>} {
  const more = Object.entries(peak.other ?? {})
    .map(([k, v]) => [k, v - (start.other?.[k] ?? 0)] as const)
    .filter(([, v]) => v > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
  return more.length > 0 ? {resources: Object.fromEntries(more)} : {}
}

/** The steps, the chart's points and the extra requests at the peak, read from the timeline. */
function shapeOf(
  sim: Simulation,
  templates: Map<string, Requests>,
  proposed: Requests,
): {steps: PlanStep[]; timeline: PlanPoint[]; peakPods: number; extraAtPeak: ExtraAtPeak} {
  const steps: PlanStep[] = []
  const timeline: PlanPoint[] = []
  let previous = new Map<string, number>()
  let startPods = 0
  let startRequests = NO_REQUESTS
  let peak = {pods: -1, requests: NO_REQUESTS}
  let replicasBefore = sim.timeline[0]?.observation.deployment.replicas
  sim.timeline.forEach((entry, i) => {
    const at = entry.elapsed / 1000
    const wanted = entry.observation.deployment.replicas
    if (i > 0 && replicasBefore !== undefined && wanted !== replicasBefore) {
      const by = entry.events.find((e) => e.reason === 'SuccessfulRescale')?.object.split('/')[1]
      if (by !== undefined) {
        steps.push({
          atSeconds: at,
          replicaSet: `hpa/${by}`,
          revision: 0,
          role: 'autoscaler',
          from: replicasBefore,
          to: wanted,
        })
      }
    }
    replicasBefore = wanted
    const replicas = new Map<string, number>()
    let old = 0
    let fresh = 0
    let terminating = 0
    let available = 0
    let requests = NO_REQUESTS
    for (const rs of entry.observation.replicaSets) {
      replicas.set(rs.name, rs.replicas)
      const active = podCount(
        rs.pods.filter((p) => p.state !== 'terminating' && p.state !== 'succeeded' && p.state !== 'failed'),
      )
      terminating += podCount(rs.pods.filter((p) => p.state === 'terminating'))
      if (rs.new) fresh += active
      else old += active
      available += rs.available
      requests = addRequests(requests, templates.get(rs.name) ?? proposed, active)
      const before = previous.get(rs.name) ?? 0
      if (i > 0 && before !== rs.replicas) {
        steps.push({
          atSeconds: at,
          replicaSet: rs.name,
          revision: rs.revision,
          role: rs.new ? 'new' : 'old',
          from: before,
          to: rs.replicas,
        })
      }
    }
    previous = replicas
    const pods = old + fresh
    if (i === 0) {
      startPods = pods
      startRequests = requests
    }
    if (pods > peak.pods) peak = {pods, requests}
    // One point per instant, and only when a count moved.
    const last = timeline[timeline.length - 1]
    const point = {atSeconds: at, old, new: fresh, terminating, available}
    if (last && last.atSeconds === at) timeline[timeline.length - 1] = point
    else if (
      !last ||
      last.old !== old ||
      last.new !== fresh ||
      last.terminating !== terminating ||
      last.available !== available
    )
      timeline.push(point)
  })
  return {
    steps,
    timeline,
    peakPods: Math.max(0, peak.pods),
    extraAtPeak: {
      pods: Math.max(0, peak.pods - startPods),
      cpuMillicores: Math.max(0, peak.requests.cpuMillicores - startRequests.cpuMillicores),
      memoryBytes: Math.max(0, peak.requests.memoryBytes - startRequests.memoryBytes),
      ...extraOther(peak.requests, startRequests),
    },
  }
}
