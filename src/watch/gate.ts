// The rollout gate on a live cluster: waits for every target Deployment (named, selected, or defined
// by manifests) until each is done by kubectl's rule or failed by the status model's dead ends (fail
// fast), or --timeout passes. One informer per resource type and namespace scope (Deployments,
// ReplicaSets, pods), never a watch per Deployment; a change marks only the Deployment it belongs
// to (through owner references, by index), whose state is read again by the status model.

import type {ApiClient} from '../cluster/live/api.js'
import {Informer, objectKey} from '../cluster/live/cache/informer.js'
import {SharedParts} from '../cluster/live/cache/trim.js'
import type {Connection} from '../cluster/live/kubeconfig.js'
import {collectionPath, objectPath} from '../cluster/live/read.js'
import type {KubeEvent} from '../cluster/world.js'
import type {Deployment, KubeObject, Pod, ReplicaSet} from '../controller/api/types.js'
import {getControllerOf} from '../controller/controller-utils.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {
  type GateFailureDetails,
  type GateJudgement,
  type GateOptions,
  type GateRow,
  gateRow,
  judgeGate,
  nextJudgementAt,
  warningRows,
} from '../status/gate.js'
import type {DeploymentRef} from '../status/item.js'
import {observe} from '../status/observe.js'
import {formatTime} from '../util/duration.js'
import {type LongTimer, setLongTimeout} from '../util/timer.js'

export interface GateTargets {
  /** Namespaces to watch; undefined: every namespace (-A). */
  namespaces: string[] | undefined
  /** The Deployments to wait for; undefined: every Deployment in scope (matching labelSelector). */
  keys?: DeploymentRef[]
  /** -l: which Deployments of the scope. */
  labelSelector?: string
}

export interface LiveGateOptions {
  api: ApiClient
  conn: Connection
  targets: GateTargets
  judge: GateOptions
  /** ms; 0 waits forever. */
  timeoutMs: number
  /** A Deployment missing when the gate starts fails it instead of being waited for. */
  requireExisting: boolean
  gates: FeatureGates & {values: Record<string, boolean>}
  /** The last lines of a failing container's log to read (0: none). */
  logLines: number
  /** At most one update this often (ms). */
  minFrameMs?: number
  warn?: (line: string) => void
  debug?: (line: string) => void
}

/** What the gate hands its outputs at each change. */
export interface GateUpdate {
  time: number
  elapsed: number
  /** Every target's row, in target order. */
  rows: GateRow[]
  /** The rows that changed since the last update (phase, reason, counts). */
  changed: GateRow[]
}

export interface GateEnd {
  rows: GateRow[]
  time: number
  elapsed: number
  /** --timeout passed with some not decided: its length (ms). */
  timedOut?: number
  interrupted?: boolean
  /** No Deployment matched -l / -A: kubectl's "No resources found" message. */
  nothingSelected?: string
  /** 0 all done, 1 one failed or the timeout passed, 130 interrupted. */
  code: number
}

interface Tracked {
  ref: DeploymentRef
  key: string
  row: GateRow
  final: boolean
  seen: boolean
  first?: {time: number; available: number}
  unobserved?: {generation: number; since: number}
  /** When time alone may change its judgement next (a deadline, a grace period ends); epoch ms. */
  dueAt?: number
  details?: Promise<void>
}

const OWNER = 'owner'

/** The index of owned objects: the controller's uid, or `orphan/NAMESPACE` for objects without one. */
function ownerIndex(o: KubeObject): string[] {
  const ref = getControllerOf(o.metadata)
  return [ref?.uid ? ref.uid : `orphan/${o.metadata.namespace ?? ''}`]
}

interface Scope {
  deployments: Informer<Deployment>
  replicaSets: Informer<ReplicaSet>
  pods: Informer<Pod>
}

export class LiveGate {
  private readonly scopes = new Map<string, Scope>()
  private readonly tracked = new Map<string, Tracked>()
  private readonly byUid = new Map<string, string>()
  private readonly dirty = new Set<string>()
  /** The targets whose row was handed out once: the first row of each is news. */
  private readonly shown = new Set<string>()
  private readonly start = Date.now()
  private lastEmit = 0
  private pending: NodeJS.Timeout | undefined
  /** Armed for the earliest dueAt of the targets not decided. */
  private timer: {handle: NodeJS.Timeout; at: number} | undefined
  private timeout: LongTimer | undefined
  private synced = false
  /** Equal parts of the first lists' objects, shared until the caches have synced. */
  private parts: SharedParts | undefined = new SharedParts()
  private ended = false
  private working = false
  private again = false
  private failure: unknown
  private finish: (end: GateEnd) => void = () => {}
  private onUpdate: (u: GateUpdate) => void = () => {}

  constructor(private readonly opts: LiveGateOptions) {
    const namespaces = opts.targets.namespaces
    for (const ns of namespaces ?? [undefined]) this.scopes.set(ns ?? '', this.scope(ns))
    for (const ref of opts.targets.keys ?? []) this.track(ref)
  }

  private scope(namespace: string | undefined): Scope {
    const common = {
      api: this.opts.api,
      conn: this.opts.conn,
      namespace,
      // The first lists' objects share their equal parts (pods of a ReplicaSet, a Deployment's
      // templates): the caches hold each once. Dropped once synced; later events are kept whole.
      transform: <T extends KubeObject>(o: T): T => (this.parts ? this.parts.share(o) : o),
      ...(this.opts.warn ? {warn: this.opts.warn} : {}),
      ...(this.opts.debug ? {debug: this.opts.debug} : {}),
    }
    const deployments = new Informer<Deployment>({
      ...common,
      resource: 'deployments',
      ...(this.opts.targets.labelSelector ? {labelSelector: this.opts.targets.labelSelector} : {}),
    })
    const replicaSets = new Informer<ReplicaSet>({
      ...common,
      resource: 'replicasets',
      indexers: {[OWNER]: ownerIndex},
    })
    const pods = new Informer<Pod>({...common, resource: 'pods', indexers: {[OWNER]: ownerIndex}})
    deployments.addEventHandler({
      add: (d) => this.deploymentChanged(d),
      update: (_o, d) => this.deploymentChanged(d),
      delete: (d) => this.deploymentChanged('tombstone' in d ? d.obj : d),
    })
    // A ReplicaSet's controller by the ReplicaSet's uid: where a pod's change leads (a plain map, not
    // an index of one-entry buckets: thousands of ReplicaSets).
    const rsOwner = new Map<string, string>()
    const rsChanged = (rs: ReplicaSet, deleted = false) => {
      const uid = rs.metadata.uid
      const owner = getControllerOf(rs.metadata)?.uid
      if (uid && owner && !deleted) rsOwner.set(uid, owner)
      else if (uid) rsOwner.delete(uid)
      this.ownedChanged(rs, (u) => this.byUid.get(u))
    }
    replicaSets.addEventHandler({
      add: (rs) => rsChanged(rs),
      update: (_o, rs) => rsChanged(rs),
      delete: (rs) => rsChanged('tombstone' in rs ? rs.obj : rs, true),
    })
    const podChanged = (p: Pod) =>
      this.ownedChanged(p, (uid) => {
        const owner = rsOwner.get(uid)
        return owner ? this.byUid.get(owner) : undefined
      })
    pods.addEventHandler({
      add: podChanged,
      update: (_o, p) => podChanged(p),
      delete: (p) => podChanged('tombstone' in p ? p.obj : p),
    })
    return {deployments, replicaSets, pods}
  }

  private track(ref: DeploymentRef): Tracked {
    const key = `${ref.namespace}/${ref.name}`
    let t = this.tracked.get(key)
    if (t) return t
    const judgement: GateJudgement = {
      phase: 'Waiting',
      reason: 'NotFound',
      message: `Waiting for deployment "${ref.name}" to be created in namespace ${ref.namespace}.`,
    }
    t = {ref, key, row: gateRow({ref, judgement}), final: false, seen: false}
    this.tracked.set(key, t)
    this.dirty.add(key)
    return t
  }

  private deploymentChanged(d: Deployment): void {
    const key = objectKey(d)
    if (d.metadata.uid) this.byUid.set(d.metadata.uid, key)
    // -l / -A: a Deployment that appears in scope is a target too.
    if (this.opts.targets.keys === undefined && !this.tracked.has(key)) {
      this.track({namespace: d.metadata.namespace ?? '', name: d.metadata.name ?? ''})
    }
    this.mark(key)
  }

  private ownedChanged(o: KubeObject, deploymentOf: (ownerUid: string) => string | undefined): void {
    const ref = getControllerOf(o.metadata)
    const key = ref?.uid ? deploymentOf(ref.uid) : undefined
    if (key !== undefined) {
      this.mark(key)
      return
    }
    if (ref?.uid) return
    // An orphan may be adopted by any Deployment of its namespace.
    const ns = o.metadata.namespace ?? ''
    for (const t of this.tracked.values()) if (t.ref.namespace === ns) this.mark(t.key)
  }

  private mark(key: string): void {
    const t = this.tracked.get(key)
    if (!t || t.final) return
    this.dirty.add(key)
    this.schedule()
  }

  /** Waits until every target is decided, --timeout passes or stop(); `onUpdate` gets each change. */
  async run(onUpdate: (u: GateUpdate) => void): Promise<GateEnd> {
    this.onUpdate = onUpdate
    const done = new Promise<GateEnd>((resolve) => {
      this.finish = resolve
    })
    if (this.opts.timeoutMs > 0) {
      // From the start, the first lists included, as kubectl's --timeout.
      this.timeout = setLongTimeout(() => {
        void this.end({timedOut: this.opts.timeoutMs, code: 1})
      }, this.opts.timeoutMs)
    }
    try {
      const all = [...this.scopes.values()].flatMap((s) => [s.deployments, s.replicaSets, s.pods])
      const started = Promise.all(all.map((i) => i.start()))
      started.catch(() => {})
      // The timeout (or Ctrl-C) may end the gate while the first lists still run: it ends then.
      if ((await Promise.race([started.then(() => 'synced'), done.then(() => 'ended')])) === 'ended') {
        return done
      }
      this.synced = true
      this.parts = undefined
    } catch (err) {
      // The timeout (or Ctrl-C) ended it while the first lists ran: that is the end.
      if (this.ended) return done
      this.timeout?.cancel()
      await this.stopInformers()
      throw err
    }
    if (this.ended) return done
    if (this.opts.targets.keys === undefined && this.tracked.size === 0) {
      const ns = this.opts.targets.namespaces
      const message =
        ns === undefined ? 'No resources found' : `No resources found in ${ns.join(', ')} namespace.`
      await this.end({nothingSelected: message, code: 1})
      return done
    }
    for (const t of this.tracked.values()) this.dirty.add(t.key)
    void this.emit()
    const end = await done
    if (this.failure !== undefined) throw this.failure
    return end
  }

  /** Ctrl-C: ends the gate as interrupted. */
  stop(): Promise<void> {
    return this.end({interrupted: true, code: 130})
  }

  /**
   * Time alone changes grace periods and deadlines: one timer, for the earliest instant one of them
   * may change a target's judgement; then only the targets due are judged again. A quiet cluster
   * costs nothing between those instants, whatever the number of targets.
   */
  private arm(): void {
    let next: number | undefined
    for (const t of this.tracked.values()) {
      if (!t.final && t.dueAt !== undefined && (next === undefined || t.dueAt < next)) next = t.dueAt
    }
    if (this.timer && this.timer.at === next) return
    if (this.timer) clearTimeout(this.timer.handle)
    this.timer = undefined
    if (next === undefined || this.ended) return
    const at = next
    // Capped: a deadline days away is past setTimeout's range; the timer is armed again then.
    const handle = setTimeout(
      () => {
        this.timer = undefined
        const now = Date.now()
        for (const t of this.tracked.values()) {
          if (!t.final && t.dueAt !== undefined && t.dueAt <= now) this.dirty.add(t.key)
        }
        if (this.dirty.size > 0) this.schedule()
        else this.arm()
      },
      Math.min(Math.max(0, at - Date.now()), 3_600_000),
    )
    this.timer = {handle, at}
  }

  private schedule(): void {
    if (this.ended || this.pending || !this.synced) return
    if (this.working) {
      this.again = true
      return
    }
    const wait = Math.max(0, this.lastEmit + (this.opts.minFrameMs ?? 200) - Date.now())
    this.pending = setTimeout(() => {
      this.pending = undefined
      void this.emit()
    }, wait)
  }

  private async emit(): Promise<void> {
    if (this.ended || this.working) return
    this.working = true
    this.lastEmit = Date.now()
    const changed: GateRow[] = []
    try {
      const keys = [...this.dirty]
      this.dirty.clear()
      let judged = 0
      for (const key of keys) {
        if (this.ended) return
        const t = this.tracked.get(key)
        if (!t || t.final) continue
        const before = t.row
        await this.judge(t)
        if (++judged % 25 === 0) await new Promise((r) => setImmediate(r))
        if (!this.shown.has(key) || rowChanged(before, t.row)) changed.push(t.row)
        this.shown.add(key)
      }
    } catch (err) {
      this.failure = err
      this.working = false
      await this.end({code: 1})
      return
    }
    this.working = false
    if (this.ended) return
    const now = Date.now()
    if (changed.length > 0) {
      this.onUpdate({time: now, elapsed: now - this.start, rows: this.rows(), changed})
    }
    if ([...this.tracked.values()].every((t) => t.final)) {
      await Promise.all([...this.tracked.values()].map((t) => t.details))
      const failed = [...this.tracked.values()].some((t) => t.row.phase === 'Failed')
      await this.end({code: failed ? 1 : 0})
      return
    }
    if (this.again || this.dirty.size > 0) {
      this.again = false
      this.schedule()
    }
    this.arm()
  }

  private rows(): GateRow[] {
    return [...this.tracked.values()].map((t) => t.row)
  }

  /** Reads one target's state again and decides whether it is done or failed. */
  private async judge(t: Tracked): Promise<void> {
    const now = Date.now()
    const scope = this.scopes.get(t.ref.namespace) ?? this.scopes.get('')
    const d = scope?.deployments.get(t.key)
    if (!scope || !d) {
      if (t.seen) {
        this.decide(t, now, {
          phase: 'Failed',
          reason: 'Deleted',
          message: `deployment "${t.ref.name}" was deleted while the gate waited for it.`,
        })
      } else if (this.opts.requireExisting) {
        this.decide(t, now, {
          phase: 'Failed',
          reason: 'NotFound',
          message: `Error from server (NotFound): deployments.apps "${t.ref.name}" not found (--require-existing).`,
        })
      }
      return
    }
    t.seen = true
    const replicaSets = [
      ...scope.replicaSets.byIndex(OWNER, d.metadata.uid ?? '\u0000'),
      ...scope.replicaSets.byIndex(OWNER, `orphan/${t.ref.namespace}`),
    ]
    const pods = [
      ...replicaSets.flatMap((rs) => scope.pods.byIndex(OWNER, rs.metadata.uid ?? '\u0000')),
      ...scope.pods.byIndex(OWNER, `orphan/${t.ref.namespace}`),
    ]
    const generation = d.metadata.generation ?? 0
    if (generation > (d.status?.observedGeneration ?? 0)) {
      if (t.unobserved?.generation !== generation) t.unobserved = {generation, since: now}
    } else t.unobserved = undefined
    const {observeRollout} = await import('../status/index.js')
    // The informers' objects are never changed in place (an event replaces one): the pass reads
    // them without a copy of every ReplicaSet and pod at each judgement.
    const hints = t.unobserved ? {generationUnobservedSince: t.unobserved.since} : {}
    const {state} = await observeRollout(
      {deployment: d, replicaSets, pods, immutable: true},
      {now, gates: this.opts.gates, hints},
    )
    const observation = observe(d, replicaSets, pods, now)
    const newRS = observation.replicaSets.find((r) => r.new)?.name
    const judgement = judgeGate(d, state, newRS, now, this.opts.judge)
    // Judged again when its objects change, or when time alone may change the judgement.
    t.dueAt = nextJudgementAt(d, state, now, this.opts.judge, hints)
    const available = observation.replicaSets.find((r) => r.new)?.available ?? 0
    t.first ??= {time: now, available}
    const eta = etaOf(t.first, now, available, observation.deployment.replicas, judgement.phase)
    t.row = gateRow({
      ref: t.ref,
      observation,
      state,
      judgement,
      ...(eta !== undefined ? {eta} : {}),
    })
    if (judgement.phase === 'Done' || judgement.phase === 'Failed') this.decide(t, now, judgement, t.row)
  }

  private decide(t: Tracked, now: number, judgement: GateJudgement, row?: GateRow): void {
    t.final = true
    t.row = {...(row ?? gateRow({ref: t.ref, judgement})), decidedAt: formatTime(now)}
    if (judgement.phase === 'Failed') t.details = this.details(t, judgement)
  }

  /** A failed Deployment's Warning events and its failing container's last log lines. */
  private async details(t: Tracked, judgement: GateJudgement): Promise<void> {
    const failure: GateFailureDetails = {events: []}
    if (judgement.pod) failure.pod = judgement.pod
    const scope = this.scopes.get(t.ref.namespace) ?? this.scopes.get('')
    const d = scope?.deployments.get(t.key)
    const objects = new Set<string>([`Deployment/${t.ref.name}`])
    if (scope && d) {
      for (const rs of scope.replicaSets.byIndex(OWNER, d.metadata.uid ?? '\u0000')) {
        objects.add(`ReplicaSet/${rs.metadata.name}`)
        for (const p of scope.pods.byIndex(OWNER, rs.metadata.uid ?? '\u0000'))
          objects.add(`Pod/${p.metadata.name}`)
      }
    }
    try {
      failure.events = warningRows(await this.warnings(t.ref.namespace), objects)
    } catch (err) {
      this.opts.debug?.(`listing events failed: ${err instanceof Error ? err.message : String(err)}`)
    }
    const pod = judgement.pod
    if (pod?.hasLog && this.opts.logLines > 0) {
      const container = pod.container ?? this.firstContainer(scope, t.ref.namespace, pod.name)
      try {
        const text = await this.opts.api.request<string>({
          method: 'GET',
          path: objectPath('pods', t.ref.namespace, pod.name, 'log'),
          query: {
            ...(container ? {container} : {}),
            tailLines: this.opts.logLines,
            ...(pod.previous ? {previous: true} : {}),
          },
          text: true,
        })
        const lines = (text ?? '').split('\n')
        if (lines.at(-1) === '') lines.pop()
        failure.log = {
          lines: lines.slice(-this.opts.logLines),
          previous: pod.previous,
          container: container ?? '',
        }
      } catch (err) {
        failure.logError = err instanceof Error ? err.message : String(err)
      }
    }
    t.row = {...t.row, failure}
  }

  /** A namespace's Warning events: one list for the Deployments that fail together. */
  private warnings(namespace: string): Promise<KubeEvent[]> {
    let list = this.warningLists.get(namespace)
    if (!list) {
      list = this.opts.api
        .request<{items?: KubeEvent[]}>({
          method: 'GET',
          path: collectionPath('events', namespace),
          query: {fieldSelector: 'type=Warning'},
        })
        .then((l) => l.items ?? [])
      this.warningLists.set(namespace, list)
      // Events keep coming: a Deployment failing later reads them again.
      setTimeout(() => this.warningLists.delete(namespace), 1000).unref()
    }
    return list
  }

  private readonly warningLists = new Map<string, Promise<KubeEvent[]>>()

  private firstContainer(scope: Scope | undefined, namespace: string, pod: string): string | undefined {
    return scope?.pods.get(`${namespace}/${pod}`)?.spec?.containers?.[0]?.name
  }

  private async end(end: Omit<GateEnd, 'rows' | 'time' | 'elapsed'>): Promise<void> {
    if (this.ended) return
    this.ended = true
    clearTimeout(this.pending)
    clearTimeout(this.timer?.handle)
    this.timer = undefined
    this.timeout?.cancel()
    await this.stopInformers()
    await Promise.all([...this.tracked.values()].map((t) => t.details))
    if (!this.synced) {
      // Ended before the first lists did: nothing is known of any target, found or not.
      const judgement: GateJudgement = {
        phase: 'Waiting',
        reason: 'Listing',
        message:
          "The gate ended while the cluster's Deployments, ReplicaSets and pods were still being listed.",
      }
      for (const t of this.tracked.values()) t.row = gateRow({ref: t.ref, judgement})
    }
    const now = Date.now()
    this.finish({...end, rows: this.rows(), time: now, elapsed: now - this.start})
  }

  private async stopInformers(): Promise<void> {
    await Promise.all(
      [...this.scopes.values()].flatMap((s) => [s.deployments.stop(), s.replicaSets.stop(), s.pods.stop()]),
    )
  }
}

/** The time left at the pace so far (new available pods per ms since the gate first saw it). */
function etaOf(
  first: {time: number; available: number},
  now: number,
  available: number,
  replicas: number,
  phase: string,
): number | undefined {
  if (phase === 'Done') return 0
  const gained = available - first.available
  const spent = now - first.time
  if (gained <= 0 || spent <= 0) return undefined
  return Math.max(0, ((replicas - available) * spent) / gained)
}

function rowChanged(a: GateRow, b: GateRow): boolean {
  return (
    a.phase !== b.phase ||
    a.reason !== b.reason ||
    a.replicas.desired !== b.replicas.desired ||
    a.replicas.updated !== b.replicas.updated ||
    a.replicas.ready !== b.replicas.ready ||
    a.replicas.available !== b.replicas.available
  )
}
