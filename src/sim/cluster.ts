// The cluster around the Deployment controller, as the simulator (and a test API server) needs it:
// the API objects of one namespace, the scheduler and kubelet (pod lifecycle model) and the
// ReplicaSet controller model, advanced together to a given instant. Everything the Deployment
// controller does goes through the objects: update() hands them back after a pass.

import {deepEqual} from '../cluster/json.js'
import {DEFAULT_NAMESPACE, deterministicUid, namespaceOf} from '../cluster/memory.js'
import type {ClusterObject, World} from '../cluster/world.js'
import type {Deployment, IntOrString, Pod, ReplicaSet, ReplicaSetStatus} from '../controller/api/types.js'
import {parseFeatureGates} from '../controller/features.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {deploymentReplicas} from '../controller/util/deployment-util.js'
import {getScaledValueFromIntOrPercent} from '../controller/util/intstr.js'
import {replicaSetsOf} from '../status/observe.js'
import {isPodActive, nodeOf, podsOwnedBy} from '../status/pods.js'
import type {SimAction, SimEvent} from '../status/update.js'
import {formatTime} from '../util/duration.js'
import {
  advancePod,
  DEFAULT_TIMINGS,
  type FailureMode,
  failFromNow,
  feasibleNodes,
  type KubeletContext,
  leastLoadedNode,
  nextPodEventAt,
  type PodPlan,
  type PodTimings,
  planForInputPod,
  planForNewPod,
  terminatePod,
} from './pods.js'
import {quotaRefusal} from './quota.js'
import {generateName, Random, seedOf} from './random.js'
import {
  type ManageError,
  manageReplicas,
  nextAvailableAt,
  podFromTemplate,
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
  /** The namespace's ResourceQuotas: the API server's admission refuses pods over them. */
  private readonly quotas: ClusterObject[]

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
    const seen = [...new Set(this.pods.map(nodeOf).filter((n) => n !== ''))].sort()
    this.nodes = seen.length > 0 ? seen : ['node-1', 'node-2', 'node-3']
    for (const pod of this.pods) {
      this.plans.set(pod.metadata.name ?? '', planForInputPod(pod, options.start, this.timings))
    }
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
    const podsGone = this.runKubelet(t, actions, events)
    const replicaSetsChanged = this.runReplicaSetController(t, actions, events)
    return {actions, events, replicaSetsChanged, podsGone}
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
    for (const pod of this.pods) {
      const name = pod.metadata.name ?? ''
      const plan = this.plans.get(name)
      const due = plan ? nextPodEventAt(plan) : undefined
      if (!plan || due === undefined || due > t) {
        next.push(pod)
        continue
      }
      const r = advancePod(pod, plan, t, this.kubelet(next))
      events.push(...r.events)
      if (r.pod === undefined) {
        gone = true
        this.plans.delete(name)
        actions.push({
          actor: 'kubelet',
          verb: 'delete',
          resource: 'pods',
          name,
          summary: 'terminated, removed',
        })
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
          summary: r.notes.join('; '),
        })
      }
    }
    this.pods = next
    return gone
  }

  /** Scheduling spreads pods: the node with the fewest active pods (input nodes, or three made-up ones). */
  private kubelet(placed: Pod[]): KubeletContext {
    return {
      timings: this.timings,
      // `placed` and this.pods overlap while the kubelet walks the list; each pod counts once.
      nodes: this.nodes,
      pickNode: (pod) => leastLoadedNode(feasibleNodes(pod, this.nodes), [...placed, ...this.pods]),
    }
  }

  // --- the ReplicaSet controller ------------------------------------------------------------------

  /** One sync of every ReplicaSet; true when a ReplicaSet changed (its informer event queues the Deployment). */
  private runReplicaSetController(t: number, actions: SimAction[], events: SimEvent[]): boolean {
    let changed = false
    const newest = this.newestReplicaSet()
    for (const [i, rs] of this.replicaSets.entries()) {
      const name = rs.metadata.name ?? ''
      const owned = podsOwnedBy(rs, this.pods)
      const decision = manageReplicas(rs, owned, relatedPodsOf(rs, this.replicaSets, this.pods), t)
      let manageError: ManageError | undefined
      for (let n = 0; n < decision.create; n++) {
        const pod = this.createPod(rs, t, rs === newest)
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
          summary: 'created (Pending)',
        })
        events.push({
          type: 'Normal',
          reason: 'SuccessfulCreate',
          object: `ReplicaSet/${name}`,
          message: `Created pod: ${pod.metadata.name}`,
          source: 'replicaset-controller',
        })
      }
      for (const victim of decision.delete) {
        const podName = victim.metadata.name ?? ''
        const plan = this.plans.get(podName) ?? {stage: 'static' as const, createdAt: t}
        const r = terminatePod(victim, plan, t, this.timings)
        if (r.pod) {
          this.plans.set(podName, r.plan)
          this.pods = this.pods.map((p) => (p === victim ? (r.pod as Pod) : p))
        } else {
          this.plans.delete(podName)
          this.pods = this.pods.filter((p) => p !== victim)
        }
        actions.push({
          actor: 'replicaset-controller',
          verb: 'delete',
          resource: 'pods',
          name: podName,
          summary: r.pod
            ? `terminating (was ${describeForDeletion(victim)})`
            : `deleted at once (was ${describeForDeletion(victim)}, never scheduled)`,
        })
        events.push({
          type: 'Normal',
          reason: 'SuccessfulDelete',
          object: `ReplicaSet/${name}`,
          message: `Deleted pod: ${podName}`,
          source: 'replicaset-controller',
        })
      }
      // Pods created with nothing to wait for (readyAfter 0) move on at once.
      if (decision.create > 0) this.runKubelet(t, actions, events)
      const status = replicaSetStatus(rs, podsOwnedBy(rs, this.pods), t, this.gates, manageError)
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

  /** A new pod of `rs`, or the API server's refusal of it (ResourceQuota admission). */
  private createPod(rs: ReplicaSet, t: number, newest: boolean): Pod | string {
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
    const refused = quotaRefusal(pod, this.quotas, this.pods, t)
    if (refused !== undefined) return `pods "${name}" is forbidden: ${refused}`
    const failure = newest ? this.nextFailure(rs) : undefined
    const plan = planForNewPod(t, this.timings, failure, pod)
    // A template the scheduler refused (a pod of the input left Unschedulable) is refused again.
    const refusal = podsOwnedBy(rs, this.pods)
      .map((p) => this.plans.get(p.metadata.name ?? '')?.refusal)
      .find((r) => r !== undefined)
    this.plans.set(name, refusal !== undefined ? {...plan, refusal} : plan)
    this.pods = [...this.pods, pod]
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
  private nextFailure(rs: ReplicaSet): FailureMode | undefined {
    const target = this.failingTarget()
    if (target === 0) return undefined
    const failing = podsOwnedBy(rs, this.pods).filter(
      (p) => isPodActive(p) && this.plans.get(p.metadata.name ?? '')?.failure !== undefined,
    )
    if (failing.length >= target) return undefined
    const mode: FailureMode = this.failuresAssigned % 2 === 0 ? 'ImagePullBackOff' : 'CrashLoopBackOff'
    this.failuresAssigned++
    return mode
  }

  /** `--fail-new-pods` also applies to the newest ReplicaSet's input pods that are not ready yet. */
  private failInputPods(start: number): void {
    const rs = this.newestReplicaSet()
    if (!rs || this.failNewPods === undefined) return
    for (const pod of podsOwnedBy(rs, this.pods)) {
      const name = pod.metadata.name ?? ''
      const plan = this.plans.get(name)
      if (!plan || plan.failure !== undefined || (plan.stage !== 'unscheduled' && plan.stage !== 'creating'))
        continue
      const failure = this.nextFailure(rs)
      if (!failure) return
      this.plans.set(name, failFromNow(plan, failure, start))
    }
  }
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
