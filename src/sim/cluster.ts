// The cluster around the Deployment controller, as the simulator (and a test API server) needs it:
// the API objects of one namespace, the scheduler and kubelet (pod lifecycle model) and the
// ReplicaSet controller model, advanced together to a given instant. Everything the Deployment
// controller does goes through the objects: update() hands them back after a pass.

import {deepEqual} from '../cluster/json.js'
import {DEFAULT_NAMESPACE, deterministicUid, namespaceOf} from '../cluster/memory.js'
import type {ClusterObject, World} from '../cluster/world.js'
import type {Deployment, IntOrString, Pod, ReplicaSet, ReplicaSetStatus} from '../controller/api/types.js'
import {specReplicas} from '../controller/controller-utils.js'
import {parseFeatureGates} from '../controller/features.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {deploymentReplicas, maxSurge} from '../controller/util/deployment-util.js'
import {getScaledValueFromIntOrPercent} from '../controller/util/intstr.js'
import {replicaSetsOf} from '../status/observe.js'
import {isPodActive, nodeOf, podsOwnedBy} from '../status/pods.js'
import type {SimAction, SimEvent} from '../status/update.js'
import {formatTime} from '../util/duration.js'
import {NodeFit} from './fit.js'
import {
  advancePod,
  DEFAULT_TIMINGS,
  type FailureMode,
  failFromNow,
  feasibleNodes,
  type KubeletContext,
  NodeLoad,
  nextPodEventAt,
  type PodPlan,
  type PodTimings,
  planForInputPod,
  planForNewPod,
  requeueAt,
  terminatePod,
} from './pods.js'
import {quotaRefusal} from './quota.js'
import {generateName, Random, seedOf} from './random.js'
import {
  type ManageDecision,
  type ManageError,
  manageReplicas,
  nextAvailableAt,
  podFromTemplate,
  rankedForDeletion,
  relatedPodsOf,
  replicaSetStatus,
} from './replicaset.js'

export interface ClusterOptions {
  namespace?: string
  /** The clock at which the input objects were observed, epoch ms. */
  start: number
  gates?: FeatureGates
  timings?: Partial<PodTimings>
  /**
   * Keep this many pods of the newest ReplicaSet of Deployment `failingDeployment` failing: a count,
   * or a percentage of its spec.replicas (rounded up).
   */
  failNewPods?: IntOrString
  failingDeployment?: string
  /** The generator's seed (pod names); default: derived from the namespace. */
  seed?: number
  /**
   * Pods of other namespaces bound to the world's nodes: they take room the scheduler cannot give
   * (the world's own namespace's pods are counted from the world).
   */
  occupied?: readonly Pod[]
}

/** What one advance() did. */
export interface ClusterStep {
  actions: SimAction[]
  events: SimEvent[]
  /** A ReplicaSet's status changed (its informer event would queue the owning Deployment). */
  replicaSetsChanged: boolean
  /** Pods disappeared (upstream's deletePod handler looks at Recreate Deployments then). */
  podsGone: boolean
}

export class SimulatedCluster {
  readonly namespace: string
  private readonly gates: FeatureGates
  private readonly timings: PodTimings
  private readonly random: Random
  private readonly nodes: string[]
  private readonly failNewPods?: IntOrString
  private readonly failingDeployment?: string
  private failuresAssigned = 0
  private readonly plans = new Map<string, PodPlan>()
  /**
   * The pods one created pod object stands for: 1 while the pods to model fit in MAX_POD_OBJECTS,
   * else the size of a cohort of identical pods (same ReplicaSet, created at the same instant),
   * which move through the model together, so that the work follows the waves, not the pods.
   */
  readonly cohort: number
  /** The size of each pod object standing for more than one pod, by name. */
  private readonly weights = new Map<string, number>()
  /** The namespace's ResourceQuotas: the API server's admission refuses pods over them. */
  private readonly quotas: ClusterObject[]
  /**
   * The world's Node objects, when it has any: the scheduler then places pods on their room
   * (sim/fit.ts), and a pod that fits nowhere waits until a pod leaves a node. Without them, three
   * made-up nodes of unlimited room.
   */
  private readonly nodeObjects: readonly ClusterObject[] | undefined
  private readonly occupied: readonly Pod[]

  deployments: Deployment[]
  replicaSets: ReplicaSet[]
  pods: Pod[]

  constructor(world: World, options: ClusterOptions) {
    this.namespace = options.namespace ?? DEFAULT_NAMESPACE
    this.gates = options.gates ?? parseFeatureGates(undefined)
    this.timings = {...DEFAULT_TIMINGS, ...options.timings}
    this.random = new Random(options.seed ?? seedOf(this.namespace))
    if (options.failNewPods !== undefined) this.failNewPods = options.failNewPods
    if (options.failingDeployment !== undefined) this.failingDeployment = options.failingDeployment
    const inNamespace = <T extends Deployment | ReplicaSet | Pod>(list: readonly T[]) =>
      list.filter((o) => namespaceOf(o) === this.namespace)
    this.deployments = inNamespace(world.deployments)
    this.replicaSets = inNamespace(world.replicaSets)
    this.pods = inNamespace(world.pods)
    this.quotas = (world.quotas ?? []).filter(
      (q) => (q.metadata.namespace ?? DEFAULT_NAMESPACE) === this.namespace,
    )
    this.nodeObjects = world.nodes && world.nodes.length > 0 ? world.nodes : undefined
    this.occupied = (options.occupied ?? []).filter((p) => namespaceOf(p) !== this.namespace)
    const seen = [...new Set(this.pods.map(nodeOf).filter((n) => n !== ''))].sort()
    this.nodes = this.nodeObjects
      ? this.nodeObjects.map((n) => n.metadata.name ?? '')
      : seen.length > 0
        ? seen
        : ['node-1', 'node-2', 'node-3']
    for (const pod of this.pods) {
      const plan = planForInputPod(pod, options.start, this.timings)
      // With the nodes known, a pod the scheduler left Unschedulable is the model's to place again.
      const retried: PodPlan =
        this.nodeObjects && plan.stage === 'unschedulable'
          ? {stage: 'unscheduled', createdAt: plan.createdAt, nextAt: options.start}
          : plan
      this.plans.set(pod.metadata.name ?? '', retried)
    }
    this.cohort = cohortSize(this.deployments, this.replicaSets, this.pods.length)
    this.failInputPods(options.start)
  }

  /** The objects as they stand. */
  world(): World {
    return {
      deployments: [...this.deployments],
      replicaSets: [...this.replicaSets],
      pods: [...this.pods],
      sources: new WeakMap(),
    }
  }

  /** Takes the objects back after someone else (the Deployment controller) wrote some. */
  update(world: Pick<World, 'deployments' | 'replicaSets' | 'pods'>): void {
    this.deployments = [...world.deployments]
    this.replicaSets = [...world.replicaSets]
    this.pods = [...world.pods]
  }

  /** Runs the scheduler and kubelet, then one sync of every ReplicaSet, at t. */
  advance(t: number): ClusterStep {
    const actions: SimAction[] = []
    const events: SimEvent[] = []
    const bound = this.nodeObjects ? this.boundPods() : 0
    const podsGone = this.runKubelet(t, actions, events)
    const replicaSetsChanged = this.runReplicaSetController(t, actions, events)
    if (this.nodeObjects && this.boundPods() < bound) this.requeueUnschedulable(t)
    return {actions, events, replicaSetsChanged, podsGone}
  }

  /** The pods bound to a node, by weight (their removal frees room). */
  private boundPods(): number {
    let n = 0
    for (const p of this.pods) if (nodeOf(p) !== '') n += this.weight(p)
    return n
  }

  /** A pod left a node: the pods waiting for room go back to the scheduler's queue. */
  private requeueUnschedulable(t: number): void {
    for (const [name, plan] of this.plans) {
      const next = requeueAt(plan, t)
      if (next !== plan) this.plans.set(name, next)
    }
  }

  /** How many pods the pod object named `name` stands for (1 but in cohorts). */
  weightOf(name: string): number {
    return this.weights.get(name) ?? 1
  }

  private weight = (pod: Pod): number => this.weightOf(pod.metadata.name ?? '')

  /** `, 500 pods` for a pod object standing for a cohort; empty for one pod. */
  private many(name: string): string {
    const w = this.weightOf(name)
    return w === 1 ? '' : `, ${w} pods`
  }

  /** When the models have something to do next (a pod transition, a pod becoming available). */
  nextEventAt(now: number): number | undefined {
    let next: number | undefined
    const consider = (t: number | undefined) => {
      if (t !== undefined && (next === undefined || t < next)) next = t
    }
    for (const plan of this.plans.values()) consider(nextPodEventAt(plan))
    for (const rs of this.replicaSets) consider(nextAvailableAt(rs, podsOwnedBy(rs, this.pods), now))
    return next
  }

  // --- the kubelet and the scheduler --------------------------------------------------------------

  /** Applies the pod transitions due by t; true when a pod disappeared. */
  private runKubelet(t: number, actions: SimAction[], events: SimEvent[]): boolean {
    let gone = false
    const next: Pod[] = []
    const kubelet = this.kubelet()
    for (const pod of this.pods) {
      const name = pod.metadata.name ?? ''
      const plan = this.plans.get(name)
      const due = plan ? nextPodEventAt(plan) : undefined
      if (!plan || due === undefined || due > t) {
        next.push(pod)
        continue
      }
      const r = advancePod(pod, plan, t, kubelet)
      events.push(...r.events)
      if (r.pod === undefined) {
        gone = true
        actions.push({
          actor: 'kubelet',
          verb: 'delete',
          resource: 'pods',
          name,
          summary: `terminated, removed${this.many(name)}`,
        })
        this.plans.delete(name)
        this.weights.delete(name)
        continue
      }
      this.plans.set(name, r.plan)
      next.push(r.pod)
      if (r.notes.length > 0) {
        actions.push({
          actor: 'kubelet',
          verb: 'update',
          resource: 'pods',
          subresource: 'status',
          name,
          summary: `${r.notes.join('; ')}${this.many(name)}`,
        })
      }
    }
    this.pods = next
    return gone
  }

  /**
   * Scheduling spreads pods: the node with the fewest active pods (input nodes, or three made-up
   * ones), counted once per kubelet run, when the first pod is bound, and kept as pods are bound.
   */
  private kubelet(): KubeletContext {
    let load: NodeLoad | undefined
    let fit: NodeFit | undefined
    const nodeObjects = this.nodeObjects
    return {
      timings: this.timings,
      nodes: this.nodes,
      ...(nodeObjects
        ? {
            place: (pod: Pod) => {
              fit ??= new NodeFit(nodeObjects, [...this.pods, ...this.occupied], (p) => this.weight(p as Pod))
              return fit.place(pod, this.weight(pod))
            },
          }
        : {}),
      pickNode: (pod) => {
        load ??= new NodeLoad(this.pods, this.weight)
        const node = load.pick(feasibleNodes(pod, this.nodes))
        load.bound(node, this.weight(pod))
        return node
      },
    }
  }

  // --- the ReplicaSet controller ------------------------------------------------------------------

  /**
   * One sync of every ReplicaSet; true when a ReplicaSet changed (its informer event queues the
   * Deployment). A sync here creates or deletes every pod the ReplicaSet is short or over, not one
   * burst of BURST_REPLICAS: upstream syncs again as soon as a burst's writes are seen, which takes
   * no virtual time, and a step per burst made the steps (and the time) grow with the pods rather
   * than with the rollout's waves. The victims of a scale-down larger than a burst are ranked once.
   */
  private runReplicaSetController(t: number, actions: SimAction[], events: SimEvent[]): boolean {
    let changed = false
    const newest = this.newestReplicaSet()
    for (const [i, rs] of this.replicaSets.entries()) {
      const name = rs.metadata.name ?? ''
      const owned = podsOwnedBy(rs, this.pods)
      const related = relatedPodsOf(rs, this.replicaSets, this.pods)
      const decision =
        this.cohort === 1
          ? manageReplicas(rs, owned, related, t, Number.POSITIVE_INFINITY)
          : this.manageCohorts(rs, owned, related, t)
      let manageError: ManageError | undefined
      const batch = this.createBatch(owned, rs === newest)
      for (let left = decision.create; left > 0; ) {
        const size = Math.min(left, this.cohort)
        left -= size
        const pod = this.createPod(rs, t, batch, size)
        if (typeof pod === 'string') {
          // upstream: RealPodControl.createPods records the refusal; the batch ends with the error.
          actions.push({
            actor: 'replicaset-controller',
            verb: 'create',
            resource: 'pods',
            name: `${name}-`,
            summary: `refused: ${pod}`,
          })
          events.push({
            type: 'Warning',
            reason: 'FailedCreate',
            object: `ReplicaSet/${name}`,
            message: `Error creating: ${pod}`,
            source: 'replicaset-controller',
          })
          manageError = {message: pod}
          break
        }
        actions.push({
          actor: 'replicaset-controller',
          verb: 'create',
          resource: 'pods',
          name: pod.metadata.name ?? '',
          summary: `created (Pending)${this.many(pod.metadata.name ?? '')}`,
        })
        events.push({
          type: 'Normal',
          reason: 'SuccessfulCreate',
          object: `ReplicaSet/${name}`,
          message: `Created pod: ${pod.metadata.name}`,
          source: 'replicaset-controller',
        })
      }
      // The victims' replacements (a terminating pod, or none), applied to the pods in one walk.
      const replaced = new Map<Pod, Pod | undefined>()
      for (const victim of decision.delete) {
        const podName = victim.metadata.name ?? ''
        const plan = this.plans.get(podName) ?? {stage: 'static' as const, createdAt: t}
        const r = terminatePod(victim, plan, t, this.timings)
        replaced.set(victim, r.pod)
        if (r.pod) this.plans.set(podName, r.plan)
        else this.plans.delete(podName)
        actions.push({
          actor: 'replicaset-controller',
          verb: 'delete',
          resource: 'pods',
          name: podName,
          summary: r.pod
            ? `terminating (was ${describeForDeletion(victim)})${this.many(podName)}`
            : `deleted at once (was ${describeForDeletion(victim)}, never scheduled)${this.many(podName)}`,
        })
        events.push({
          type: 'Normal',
          reason: 'SuccessfulDelete',
          object: `ReplicaSet/${name}`,
          message: `Deleted pod: ${podName}`,
          source: 'replicaset-controller',
        })
      }
      if (replaced.size > 0) {
        const kept: Pod[] = []
        for (const p of this.pods) {
          if (!replaced.has(p)) kept.push(p)
          else {
            const terminating = replaced.get(p)
            if (terminating) kept.push(terminating)
            else this.weights.delete(p.metadata.name ?? '')
          }
        }
        this.pods = kept
      }
      // Pods created with nothing to wait for (readyAfter 0) move on at once.
      if (decision.create > 0) this.runKubelet(t, actions, events)
      const status = replicaSetStatus(rs, podsOwnedBy(rs, this.pods), t, this.gates, manageError, this.weight)
      if (!deepEqual(status, rs.status ?? {})) {
        actions.push({
          actor: 'replicaset-controller',
          verb: 'update',
          resource: 'replicasets',
          subresource: 'status',
          name,
          summary: statusChange(rs.status ?? {}, status),
        })
        this.replicaSets[i] = {...rs, status}
        changed = true
      }
    }
    return changed
  }

  /**
   * upstream: manageReplicas, over cohorts: the pods to create, and the pod objects to delete in
   * upstream's order of preference, the last one split when only part of its cohort goes (the part
   * that stays keeps the object; the part that goes becomes a new one of the same plan).
   */
  private manageCohorts(rs: ReplicaSet, owned: Pod[], related: Pod[], t: number): ManageDecision {
    const active = owned.filter(isPodActive)
    const diff = active.reduce((n, p) => n + this.weight(p), 0) - specReplicas(rs)
    if (diff <= 0) return {create: -diff, delete: []}
    const victims: Pod[] = []
    let left = diff
    for (const pod of rankedForDeletion(active, related, t)) {
      if (left === 0) break
      const w = this.weight(pod)
      if (w <= left) {
        victims.push(pod)
        left -= w
        continue
      }
      const part = this.splitCohort(pod, left)
      victims.push(part)
      left = 0
    }
    return {create: 0, delete: victims}
  }

  /** A new pod object standing for `size` of the pods of `pod`'s cohort, which keeps the rest. */
  private splitCohort(pod: Pod, size: number): Pod {
    const name = pod.metadata.name ?? ''
    const owner = pod.metadata.generateName ?? `${name}-`
    let partName = generateName(owner, this.random)
    while (this.plans.has(partName)) partName = generateName(owner, this.random)
    const part: Pod = {
      ...pod,
      metadata: {...pod.metadata, name: partName, uid: deterministicUid('pods', this.namespace, partName)},
    }
    this.weights.set(name, this.weightOf(name) - size)
    if (size > 1) this.weights.set(partName, size)
    const plan = this.plans.get(name)
    if (plan) this.plans.set(partName, {...plan})
    this.pods.push(part)
    return part
  }

  /**
   * What the pods one sync of `rs` creates share, read once per sync rather than once per pod: the
   * scheduler's refusal of the template, and how many of the newest ReplicaSet's pods fail.
   */
  private createBatch(owned: readonly Pod[], newest: boolean): CreateBatch {
    // A template the scheduler refused (a pod of the input left Unschedulable) is refused again.
    const refusal = owned
      .map((p) => this.plans.get(p.metadata.name ?? '')?.refusal)
      .find((r) => r !== undefined)
    const failing =
      newest && this.failNewPods !== undefined
        ? owned
            .filter((p) => isPodActive(p) && this.plans.get(p.metadata.name ?? '')?.failure !== undefined)
            .reduce((n, p) => n + this.weight(p), 0)
        : 0
    return {newest, refusal, failing}
  }

  /** A new pod of `rs`, or the API server's refusal of it (ResourceQuota admission). */
  private createPod(rs: ReplicaSet, t: number, batch: CreateBatch, size = 1): Pod | string {
    const rsName = rs.metadata.name ?? ''
    let name = generateName(`${rsName}-`, this.random)
    while (this.plans.has(name)) name = generateName(`${rsName}-`, this.random)
    const fromTemplate = podFromTemplate(rs)
    const pod: Pod = {
      ...fromTemplate,
      metadata: {
        ...fromTemplate.metadata,
        name,
        namespace: this.namespace,
        uid: deterministicUid('pods', this.namespace, name),
        creationTimestamp: formatTime(t),
      },
      status: {phase: 'Pending'},
    }
    const refused = this.quotas.length > 0 ? quotaRefusal(pod, this.quotas, this.pods, t) : undefined
    if (refused !== undefined) return `pods "${name}" is forbidden: ${refused}`
    const failure = batch.newest ? this.nextFailure(batch, size) : undefined
    const plan = planForNewPod(t, this.timings, failure, pod)
    this.plans.set(name, batch.refusal !== undefined ? {...plan, refusal: batch.refusal} : plan)
    if (size > 1) this.weights.set(name, size)
    // The cluster owns this array (world() and update() copy): appending in place keeps a burst linear.
    this.pods.push(pod)
    return pod
  }

  // --- --fail-new-pods ----------------------------------------------------------------------------

  private failing(): Deployment | undefined {
    return this.failingDeployment === undefined
      ? undefined
      : this.deployments.find((d) => d.metadata.name === this.failingDeployment)
  }

  /** The Deployment's ReplicaSet with the highest revision (the newest). */
  private newestReplicaSet(): ReplicaSet | undefined {
    const d = this.failing()
    return d ? replicaSetsOf(d, this.replicaSets)[0] : undefined
  }

  private failingTarget(): number {
    if (this.failNewPods === undefined) return 0
    const d = this.failing()
    const replicas = d ? deploymentReplicas(d) : 0
    return Math.max(0, getScaledValueFromIntOrPercent(this.failNewPods, replicas, true))
  }

  /** The failure of the next pod of the newest ReplicaSet, while fewer than the target are failing. */
  private nextFailure(batch: {failing: number}, size = 1): FailureMode | undefined {
    const target = this.failingTarget()
    if (target === 0) return undefined
    if (batch.failing >= target) return undefined
    batch.failing += size
    const mode: FailureMode = this.failuresAssigned % 2 === 0 ? 'ImagePullBackOff' : 'CrashLoopBackOff'
    this.failuresAssigned++
    return mode
  }

  /** `--fail-new-pods` also applies to the newest ReplicaSet's input pods that are not ready yet. */
  private failInputPods(start: number): void {
    const rs = this.newestReplicaSet()
    if (!rs || this.failNewPods === undefined) return
    const owned = podsOwnedBy(rs, this.pods)
    const batch = this.createBatch(owned, true)
    for (const pod of owned) {
      const name = pod.metadata.name ?? ''
      const plan = this.plans.get(name)
      if (!plan || plan.failure !== undefined || (plan.stage !== 'unscheduled' && plan.stage !== 'creating'))
        continue
      const failure = this.nextFailure(batch)
      if (!failure) return
      this.plans.set(name, failFromNow(plan, failure, start))
    }
  }
}

/** What the pods created by one sync of a ReplicaSet share (see createBatch). */
interface CreateBatch {
  newest: boolean
  refusal: string | undefined
  /** The newest ReplicaSet's active pods the model keeps failing, counted as they are created. */
  failing: number
}

/** Pod objects beyond which the simulator models pods in cohorts rather than one by one. */
export const MAX_POD_OBJECTS = 1000

/**
 * The cohort size that keeps the pod objects of a simulation near MAX_POD_OBJECTS: 1 (every pod
 * its own object) unless the namespace's Deployments and ReplicaSets ask for more pods than that.
 */
export function cohortSize(
  deployments: readonly Deployment[],
  replicaSets: readonly ReplicaSet[],
  pods: number,
): number {
  let want = pods
  for (const d of deployments) want += deploymentReplicas(d) + maxSurge(d)
  for (const rs of replicaSets) want += specReplicas(rs)
  return Math.max(1, Math.ceil(want / MAX_POD_OBJECTS))
}

function describeForDeletion(pod: Pod): string {
  const phase = pod.status?.phase ?? 'Pending'
  const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
  return `${phase}, ${ready ? 'ready' : 'not ready'}`
}

const STATUS_FIELDS = [
  ['replicas', 'replicas'],
  ['readyReplicas', 'ready'],
  ['availableReplicas', 'available'],
  ['terminatingReplicas', 'terminating'],
  ['observedGeneration', 'observedGeneration'],
] as const

function statusChange(a: ReplicaSetStatus, b: ReplicaSetStatus): string {
  const parts: string[] = []
  for (const [field, label] of STATUS_FIELDS) {
    const x = a[field] ?? 0
    const y = b[field] ?? 0
    if (x !== y) parts.push(`${label} ${x} -> ${y}`)
  }
  return parts.length > 0 ? parts.join(', ') : 'status written'
}
