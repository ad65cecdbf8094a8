// The moving cluster of the test API server (`--simulate`): a ReplicaSet controller, a scheduler and
// a kubelet, and the garbage collector's orphan cleanup, acting on the server's store in real time.
// The decisions are src/sim's models (the same ones `rollout watch -f` advances on a virtual clock):
// this file only watches the store, schedules timers for the models' next transitions and writes
// their results with the registry's semantics (status subresource, graceful pod deletion, events).

import type {Pod, ReplicaSet} from '../../src/controller/api/types.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import type {FeatureGates} from '../../src/controller/interfaces.js'
import {NodeFit} from '../../src/sim/fit.js'
import {
  advancePod,
  DEFAULT_TIMINGS,
  feasibleNodes,
  type KubeletContext,
  leastLoadedNode,
  nextPodEventAt,
  type PodPlan,
  type PodTimings,
  planForInputPod,
  requeueAt,
  terminatePod,
} from '../../src/sim/pods.js'
import {
  calculateStatus,
  type ManageError,
  manageReplicas,
  nextAvailableAt,
  podFromTemplate,
  relatedPodsOf,
  statusToWrite,
} from '../../src/sim/replicaset.js'
import {nodeOf, podsOwnedBy} from '../../src/status/pods.js'
import type {SimEvent} from '../../src/status/update.js'
import type {ApiError} from './errors.js'
import type {Change} from './store.js'
import {isObj, metaOf, type Obj, str} from './util.js'

export interface SimulateOptions {
  /** From a pod's creation to Running and Ready (default 1000 ms). */
  podReadyAfterMs?: number
  /** From a pod's deletion to its removal (default 1000 ms). */
  terminateAfterMs?: number
  /** From scheduling to ErrImagePull for an image on a `.invalid` host (default: podReadyAfterMs). */
  pullErrorAfterMs?: number
  /** From ErrImagePull to ImagePullBackOff (default: podReadyAfterMs). */
  pullBackoffAfterMs?: number
  /** The nodes pods are scheduled to (default node-1, node-2, node-3). */
  nodes?: string[]
  /**
   * A GPU node pool besides them (default none, as in a cluster without GPUs): nodes alike but for
   * one nvidia.com/gpu each, which a pod requesting a GPU needs (src/sim/nodes.ts).
   */
  gpuNodes?: string[]
  /**
   * Nodes whose kubelet does not run (default none), as upstream's integration tests bind pods to
   * `fake-node`: a pod created bound to one keeps the status clients give it, and a graceful delete
   * leaves it terminating until a delete with a grace period of 0.
   */
  nodesWithoutKubelet?: string[]
  /** kube-controller-manager feature gates, as `--feature-gates` takes them. */
  featureGates?: string
}

/** What the simulated cluster may do to the server: reads, and writes with the registry's semantics. */
export interface ClusterAccess {
  list(resource: 'pods' | 'replicasets' | 'nodes', namespace?: string): Obj[]
  get(kind: {apiVersion: string; kind: string}, namespace: string, name: string): Obj | undefined
  /** POST, as a client: generateName, bookkeeping, defaults, validation, fault injection. */
  create(resource: 'pods' | 'events', namespace: string, obj: Obj): Obj
  /** PUT …/status, as a client (resourceVersion precondition, status strategy, validation, faults). */
  updateStatus(resource: 'pods' | 'replicasets', obj: Obj): Obj
  /** The scheduler's binding: spec.nodeName and the status the kubelet reports with it. */
  bind(namespace: string, name: string, node: string, status: unknown): void
  /** Whether the server serves this kind (the garbage collector can only judge owners it can look up). */
  serves(kind: {apiVersion: string; kind: string}): boolean
  /** DELETE, as a client: graceful for pods (background propagation), faults. */
  delete(kind: {apiVersion: string; kind: string}, namespace: string, name: string): void
  /** The kubelet's final removal of a terminated pod. */
  remove(namespace: string, name: string): void
  /** Removes the owner references whose owner is gone (the garbage collector's patch). */
  setOwnerReferences(
    kind: {apiVersion: string; kind: string},
    namespace: string,
    name: string,
    refs: Obj[],
  ): void
}

/** A ReplicaSet's failed syncs are retried as upstream's queue does: 5 ms doubling, up to 1000 s. */
const RETRY_BASE_MS = 5
const RETRY_MAX_MS = 1_000_000
/** upstream: controller.SlowStartInitialBatchSize */
const SLOW_START_INITIAL_BATCH = 1

/** The nodes pods are scheduled to when the options name none. */
export const DEFAULT_SIMULATED_NODES = ['node-1', 'node-2', 'node-3']

/** Every simulated node: the general ones, then the GPU pool. */
export function simulatedNodeNames(options: SimulateOptions): string[] {
  return [...(options.nodes ?? DEFAULT_SIMULATED_NODES), ...(options.gpuNodes ?? [])]
}

const POD = {apiVersion: 'v1', kind: 'Pod'}
const REPLICA_SET = {apiVersion: 'apps/v1', kind: 'ReplicaSet'}

type Source = 'kubelet' | 'default-scheduler' | 'replicaset-controller'

export class SimulatedCluster {
  readonly timings: PodTimings
  private readonly gates: FeatureGates
  private readonly nodes: string[]
  private readonly kubeletRuns: (node: string) => boolean
  /** The lifecycle plan of every pod, by uid. */
  private readonly plans = new Map<string, PodPlan>()
  private readonly dirtyReplicaSets = new Set<string>()
  private readonly orphanCandidates = new Set<string>()
  private readonly failures = new Map<string, number>()
  private readonly retries = new Map<string, number>()
  /** When a ready pod of a ReplicaSet with minReadySeconds becomes available, by ReplicaSet. */
  private readonly availabilityChecks = new Map<string, number>()
  private flushScheduled = false
  private timer: {handle: NodeJS.Timeout; at: number} | undefined
  private eventSeq = 0
  private stopped = false
  private paused = false

  constructor(
    private readonly access: ClusterAccess,
    options: SimulateOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    const readyAfter = options.podReadyAfterMs ?? 1000
    this.timings = {
      ...DEFAULT_TIMINGS,
      readyAfter,
      terminateAfter: options.terminateAfterMs ?? 1000,
      pullErrorAfter: options.pullErrorAfterMs ?? readyAfter,
      pullBackoffAfter: options.pullBackoffAfterMs ?? readyAfter,
    }
    this.gates = parseFeatureGates(options.featureGates)
    this.nodes = simulatedNodeNames(options)
    const withoutKubelet = new Set(options.nodesWithoutKubelet ?? [])
    this.kubeletRuns = (node) => !withoutKubelet.has(node)
  }

  /** Plans the pods already stored and syncs every ReplicaSet once. */
  start(): void {
    const now = this.now()
    for (const pod of this.access.list('pods')) {
      this.plans.set(uidOf(pod), planForInputPod(pod as unknown as Pod, now, this.timings, this.kubeletRuns))
      this.orphanCandidates.add(keyOf('pods', pod))
    }
    for (const rs of this.access.list('replicasets')) {
      this.dirtyReplicaSets.add(nsName(rs))
      this.orphanCandidates.add(keyOf('replicasets', rs))
    }
    this.scheduleFlush()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer.handle)
    this.timer = undefined
  }

  /**
   * Holds the moving cluster still (tests): no pod advances and no ReplicaSet syncs until resume();
   * changes are still recorded, and what fell due meanwhile happens then. A test that checks a
   * state of the store and pauses in the same synchronous step knows the state its client reads.
   */
  pause(): void {
    this.paused = true
    if (this.timer) clearTimeout(this.timer.handle)
    this.timer = undefined
  }

  resume(): void {
    if (!this.paused) return
    this.paused = false
    this.scheduleFlush()
  }

  /** The store's change feed: what each controller's informer would deliver. */
  observe(c: Change): void {
    if (this.stopped) return
    const resource = c.def.resource
    if (resource !== 'pods' && resource !== 'replicasets') return
    const o = c.object
    if (c.type !== 'DELETED') this.orphanCandidates.add(keyOf(resource, o))
    if (resource === 'replicasets') {
      this.dirtyReplicaSets.add(nsName(o))
    } else {
      const uid = uidOf(o)
      if (c.type === 'DELETED') {
        this.plans.delete(uid)
        // A pod left its node: the pods waiting for room go back to the scheduler's queue.
        if (nodeOf(o as unknown as Pod) !== '') {
          const now = this.now()
          for (const [k, plan] of this.plans) {
            const next = requeueAt(plan, now)
            if (next !== plan) this.plans.set(k, next)
          }
        }
      } else if (!this.plans.has(uid)) this.plans.set(uid, this.planForCreatedPod(o))
      else if (c.type === 'MODIFIED' && metaOf(o).deletionTimestamp != null) {
        // Deleted through a path other than the pod DELETE this server routes to terminate().
        const plan = this.plans.get(uid) as PodPlan
        if (plan.goneAt === undefined && !plan.unattended)
          this.plans.set(uid, {...plan, goneAt: this.now() + this.timings.terminateAfter})
      }
      // upstream: the ReplicaSet controller's addPod/updatePod/deletePod enqueue the pod's controller.
      const owner = controllerRefOf(o)
      if (owner && owner.kind === 'ReplicaSet')
        this.dirtyReplicaSets.add(`${metaOf(o).namespace}/${owner.name}`)
      if (c.previous && c.type !== 'ADDED') {
        const before = controllerRefOf(c.previous)
        if (before && before.kind === 'ReplicaSet' && before.name !== owner?.name) {
          this.dirtyReplicaSets.add(`${metaOf(o).namespace}/${before.name}`)
        }
      }
    }
    this.scheduleFlush()
  }

  /**
   * The API server's answer to a pod DELETE (pod strategy CheckGracefulDelete): the pod with its
   * deletionTimestamp, to be stored, or undefined when it goes at once (never scheduled, or a grace
   * period of 0). The kubelet then removes it terminateAfter later.
   */
  terminate(pod: Obj, gracePeriodSeconds?: number): Obj | undefined {
    if (metaOf(pod).deletionTimestamp != null && gracePeriodSeconds !== 0) return pod
    const uid = uidOf(pod)
    const now = this.now()
    const plan =
      this.plans.get(uid) ?? planForInputPod(pod as unknown as Pod, now, this.timings, this.kubeletRuns)
    const r = terminatePod(pod as unknown as Pod, plan, now, this.timings, gracePeriodSeconds)
    if (!r.pod) {
      this.plans.delete(uid)
      return undefined
    }
    this.plans.set(uid, r.plan)
    this.scheduleFlush()
    return r.pod as unknown as Obj
  }

  /** The earliest moment a model has something to do (for tests). */
  nextDueAt(): number | undefined {
    return this.nextEventAt(this.now())
  }

  // --- the loop -------------------------------------------------------------------------------------

  private scheduleFlush(): void {
    if (this.flushScheduled || this.stopped || this.paused) return
    this.flushScheduled = true
    setImmediate(() => {
      this.flushScheduled = false
      this.flush()
    })
  }

  /** Runs what is due: orphan cleanup, the kubelet's transitions, the dirty ReplicaSets' syncs. */
  private flush(): void {
    if (this.stopped || this.paused) return
    const now = this.now()
    this.collectOrphans()
    this.runKubelet(now)
    for (const due of [this.retries, this.availabilityChecks]) {
      for (const [key, at] of due) {
        if (at > now) continue
        due.delete(key)
        this.dirtyReplicaSets.add(key)
      }
    }
    const keys = [...this.dirtyReplicaSets]
    this.dirtyReplicaSets.clear()
    for (const key of keys) this.syncReplicaSet(key, now)
    this.arm(now)
  }

  private arm(now: number): void {
    const next = this.nextEventAt(now)
    if (this.timer && (next === undefined || this.timer.at !== next)) {
      clearTimeout(this.timer.handle)
      this.timer = undefined
    }
    if (next === undefined || this.timer || this.stopped) return
    const handle = setTimeout(
      () => {
        this.timer = undefined
        this.flush()
      },
      Math.max(0, next - now),
    )
    handle.unref?.()
    this.timer = {handle, at: next}
  }

  private nextEventAt(now: number): number | undefined {
    let next: number | undefined
    const consider = (t: number | undefined) => {
      if (t !== undefined && (next === undefined || t < next)) next = t
    }
    for (const plan of this.plans.values()) consider(nextPodEventAt(plan))
    for (const at of this.retries.values()) consider(at)
    // upstream: the ReplicaSet controller requeues a ReplicaSet when a pod's minReadySeconds pass.
    // The pods are read (copied) only in the namespaces of such ReplicaSets: this runs after every
    // change, and copying every pod of a large cluster each time was most of the server's work.
    const podsIn = new Map<string, Pod[]>()
    this.availabilityChecks.clear()
    for (const rs of this.access.list('replicasets') as unknown as ReplicaSet[]) {
      if ((rs.spec.minReadySeconds ?? 0) === 0) continue
      const ns = rs.metadata.namespace ?? ''
      let pods = podsIn.get(ns)
      if (!pods) {
        pods = this.access.list('pods', ns) as unknown as Pod[]
        podsIn.set(ns, pods)
      }
      const at = nextAvailableAt(rs, podsOwnedBy(rs, pods), now)
      if (at === undefined) continue
      this.availabilityChecks.set(`${rs.metadata.namespace ?? ''}/${rs.metadata.name ?? ''}`, at)
      consider(at)
    }
    return next
  }

  // --- the scheduler and the kubelet ----------------------------------------------------------------

  /** A pod someone just created: its plan starts now (creationTimestamp has whole seconds only). */
  private planForCreatedPod(o: Obj): PodPlan {
    const now = this.now()
    const pod = o as unknown as Pod
    const fresh = {...pod, metadata: {...pod.metadata, creationTimestamp: new Date(now).toISOString()}}
    const plan = planForInputPod(fresh, now, this.timings, this.kubeletRuns)
    // A template the scheduler refused (a sibling left Unschedulable) is refused again.
    const owner = controllerRefOf(o)
    if (!owner || plan.refusal !== undefined) return plan
    const siblings = (this.access.list('pods', pod.metadata.namespace) as unknown as Pod[]).filter(
      (p) => p.metadata.uid !== pod.metadata.uid && controllerRefOf(p as unknown as Obj)?.name === owner.name,
    )
    const refusal = siblings
      .map((p) => this.plans.get(p.metadata.uid ?? '')?.refusal)
      .find((r) => r !== undefined)
    return refusal !== undefined ? {...plan, refusal} : plan
  }

  private runKubelet(now: number): void {
    const pods = this.access.list('pods') as unknown as Pod[]
    // The simulated nodes' Node objects: the scheduler places pods on their room (src/sim/fit.ts),
    // kept across this run as pods are bound.
    const nodeObjects = this.access
      .list('nodes')
      .filter((n) => this.nodes.includes(str(metaOf(n).name) ?? ''))
    let fit: NodeFit | undefined
    for (const pod of pods) {
      const uid = pod.metadata.uid ?? ''
      const plan = this.plans.get(uid)
      const due = plan ? nextPodEventAt(plan) : undefined
      if (!plan || due === undefined || due > now) continue
      const ctx: KubeletContext = {
        timings: this.timings,
        nodes: this.nodes,
        pickNode: (p) =>
          leastLoadedNode(feasibleNodes(p, this.nodes), this.access.list('pods') as unknown as Pod[]),
        ...(nodeObjects.length > 0
          ? {
              place: (p: Pod) => {
                fit ??= new NodeFit(nodeObjects, this.access.list('pods'))
                return fit.place(p)
              },
            }
          : {}),
      }
      const r = advancePod(pod, plan, now, ctx)
      const ns = pod.metadata.namespace ?? ''
      const name = pod.metadata.name ?? ''
      this.plans.set(uid, r.plan)
      if (r.pod === undefined) {
        this.plans.delete(uid)
        this.access.remove(ns, name)
        continue
      }
      try {
        if (nodeOf(r.pod) !== nodeOf(pod)) this.access.bind(ns, name, nodeOf(r.pod), r.pod.status)
        else this.access.updateStatus('pods', r.pod as unknown as Obj)
      } catch {
        // The pod changed or went meanwhile; its next event replans it.
        continue
      }
      for (const e of r.events) this.postEvent(e, this.fresh(POD, ns, name) ?? (r.pod as unknown as Obj), now)
    }
  }

  // --- the ReplicaSet controller --------------------------------------------------------------------

  /** upstream: syncReplicaSet — manageReplicas, then calculateStatus and updateReplicaSetStatus. */
  private syncReplicaSet(key: string, now: number): void {
    const [ns = '', name = ''] = key.split('/')
    const rsObj = this.access.get(REPLICA_SET, ns, name)
    if (!rsObj) {
      this.failures.delete(key)
      return
    }
    const rs = rsObj as unknown as ReplicaSet
    const all = () => this.access.list('pods', ns) as unknown as Pod[]
    let manageError: ManageError | undefined
    if (rs.metadata.deletionTimestamp == null) {
      const pods = all()
      const owned = podsOwnedBy(rs, pods)
      const siblings = this.access.list('replicasets', ns) as unknown as ReplicaSet[]
      const decision = manageReplicas(rs, owned, relatedPodsOf(rs, siblings, pods), now)
      manageError =
        decision.create > 0
          ? this.createPods(rs, decision.create, now)
          : this.deletePods(rs, decision.delete, now)
    }
    const status = calculateStatus(rs, podsOwnedBy(rs, all()), now, this.gates, manageError)
    const toWrite = statusToWrite(rs, status)
    let failed = manageError !== undefined
    if (toWrite) {
      try {
        this.access.updateStatus('replicasets', {...rsObj, status: toWrite})
      } catch {
        failed = true
      }
    }
    // upstream: processNextWorkItem — Forget on success, AddRateLimited on error.
    if (!failed) {
      this.failures.delete(key)
      return
    }
    const n = this.failures.get(key) ?? 0
    this.failures.set(key, n + 1)
    this.retries.set(key, now + Math.min(RETRY_BASE_MS * 2 ** n, RETRY_MAX_MS))
  }

  /**
   * upstream: manageReplicas' creation in slow-start batches (1, 2, 4, ...): a batch with a failure
   * ends the creation; the first error is returned. Events as RealPodControl records them.
   */
  private createPods(rs: ReplicaSet, count: number, now: number): ManageError | undefined {
    const ns = rs.metadata.namespace ?? ''
    let remaining = count
    for (
      let batch = Math.min(remaining, SLOW_START_INITIAL_BATCH);
      batch > 0;
      batch = Math.min(2 * batch, remaining)
    ) {
      let error: ManageError | undefined
      for (let i = 0; i < batch; i++) {
        try {
          const created = this.access.create('pods', ns, podFromTemplate(rs) as unknown as Obj)
          this.rsEvent(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${str(metaOf(created).name)}`, now)
        } catch (err) {
          const message = errorText(err)
          this.rsEvent(rs, 'Warning', 'FailedCreate', `Error creating: ${message}`, now)
          error ??= {message}
        }
      }
      if (error) return error
      remaining -= batch
    }
    return undefined
  }

  /** upstream: manageReplicas' deletion of the chosen pods, through the API (so, gracefully). */
  private deletePods(rs: ReplicaSet, victims: Pod[], now: number): ManageError | undefined {
    const ns = rs.metadata.namespace ?? ''
    let error: ManageError | undefined
    for (const pod of victims) {
      const podName = pod.metadata.name ?? ''
      try {
        this.access.delete(POD, ns, podName)
        this.rsEvent(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${podName}`, now)
      } catch (err) {
        if ((err as ApiError).code === 404) continue
        const message = errorText(err)
        this.rsEvent(rs, 'Warning', 'FailedDelete', `Error deleting: ${message}`, now)
        error ??= {message: `unable to delete pods: ${message}`}
      }
    }
    return error
  }

  // --- the garbage collector ------------------------------------------------------------------------

  /**
   * The garbage collector's part for owners that are gone: a dependent whose every owner reference
   * names an object that no longer exists (or exists with another uid) is deleted in the background;
   * one with some owners left loses the dangling references. (`kubectl apply` of a snapshot creates
   * its objects with new uids, so the snapshot's ReplicaSets and pods are collected, as in a cluster.)
   */
  private collectOrphans(): void {
    const keys = [...this.orphanCandidates]
    this.orphanCandidates.clear()
    for (const key of keys) {
      const [resource, ns = '', name = ''] = key.split('|')
      const kind = resource === 'pods' ? POD : REPLICA_SET
      const o = this.access.get(kind, ns, name)
      if (!o) continue
      const refs = ownerRefsOf(o)
      if (refs.length === 0) continue
      // upstream: an owner whose kind the RESTMapper cannot resolve makes attemptToDeleteItem fail
      // and requeue: the dependent is neither deleted nor patched.
      const kinds = refs.map((ref) => ({apiVersion: str(ref.apiVersion) ?? '', kind: str(ref.kind) ?? ''}))
      if (!kinds.every((k) => this.access.serves(k))) continue
      const solid = refs.filter((ref) => {
        const owner = this.access.get(
          {apiVersion: str(ref.apiVersion) ?? '', kind: str(ref.kind) ?? ''},
          ns,
          str(ref.name) ?? '',
        )
        return owner !== undefined && metaOf(owner).uid === ref.uid
      })
      try {
        if (solid.length === 0) this.access.delete(kind, ns, name)
        else if (solid.length < refs.length) this.access.setOwnerReferences(kind, ns, name, solid)
      } catch {
        // Gone or changed meanwhile: its own change event brings it back if it still matters.
      }
    }
  }

  // --- events ---------------------------------------------------------------------------------------

  private rsEvent(
    rs: ReplicaSet,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    now: number,
  ): void {
    const e: SimEvent = {
      type,
      reason,
      message,
      object: `ReplicaSet/${rs.metadata.name}`,
      source: 'replicaset-controller',
    }
    this.postEvent(e, rs as unknown as Obj, now)
  }

  /** A core/v1 Event as the component's event recorder posts it. */
  private postEvent(e: SimEvent, involved: Obj, now: number): void {
    const md = metaOf(involved)
    const ns = str(md.namespace) ?? 'default'
    const name = str(md.name) ?? ''
    const node = isObj(involved.spec) ? (str(involved.spec.nodeName) ?? '') : ''
    const source = e.source as Source
    const time = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z')
    // upstream: record.makeEvent names events <object>.<unix nanoseconds in hex>.
    const nanos = BigInt(now) * 1_000_000n + BigInt(this.eventSeq++ % 1_000_000)
    const event: Obj = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {name: `${name}.${nanos.toString(16)}`, namespace: ns},
      involvedObject: {
        apiVersion: str(involved.apiVersion) ?? (e.object.startsWith('Pod/') ? 'v1' : 'apps/v1'),
        kind: e.object.slice(0, e.object.indexOf('/')),
        namespace: ns,
        name,
        uid: md.uid,
        resourceVersion: md.resourceVersion,
        ...(e.fieldPath ? {fieldPath: e.fieldPath} : {}),
      },
      reason: e.reason,
      message: e.message,
      type: e.type,
      source: source === 'kubelet' && node ? {component: source, host: node} : {component: source},
      reportingComponent: source,
      reportingInstance:
        source === 'kubelet' ? node : source === 'default-scheduler' ? 'default-scheduler' : '',
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
    }
    try {
      this.access.create('events', ns, event)
    } catch {
      // An event recorder drops what it cannot post.
    }
  }

  private fresh(kind: {apiVersion: string; kind: string}, ns: string, name: string): Obj | undefined {
    return this.access.get(kind, ns, name)
  }
}

function uidOf(o: Obj): string {
  return str(metaOf(o).uid) ?? ''
}

function nsName(o: Obj): string {
  const md = metaOf(o)
  return `${str(md.namespace) ?? ''}/${str(md.name) ?? ''}`
}

function keyOf(resource: string, o: Obj): string {
  const md = metaOf(o)
  return `${resource}|${str(md.namespace) ?? ''}|${str(md.name) ?? ''}`
}

function ownerRefsOf(o: Obj): Obj[] {
  const refs = metaOf(o).ownerReferences
  return Array.isArray(refs) ? refs.filter(isObj) : []
}

function controllerRefOf(o: Obj): {kind: string; name: string} | undefined {
  const ref = ownerRefsOf(o).find((r) => r.controller === true)
  return ref ? {kind: str(ref.kind) ?? '', name: str(ref.name) ?? ''} : undefined
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
