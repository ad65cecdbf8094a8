// `rollout watch NAME -f TIMELINE --replay`: a recording played back as the live watch would have
// shown it (the same updates, on the recorded clock), and at every recorded change of the
// Deployment's world the ported controller's pass (through the status model, which runs one pass of
// the pass layer) on the world as it stood just before. Where the ReplicaSet writes the recording
// holds differ from those the port would have made, a Divergence says so with a reason code
// (docs/replay.md):
//
//   OtherWriter    a ReplicaSet was resized or created, the port would not have made that write, and
//                  no ScalingReplicaSet event of the Deployment controller names it: a manual edit
//                  (kubectl scale rs, kubectl edit) or another controller
//   DifferentSize  the Deployment controller scaled a ReplicaSet (its event says so) to a size the
//                  port would not: the port would size it otherwise
//   EarlyWrite     the Deployment controller made a write the port makes only on a later world (had
//                  the write not been made yet), before the next ReplicaSet write
//   ExtraWrite     a write the port would not make around then at all (a deletion, or the controller's)
//   LateWrite      the port would have made a write and the recording holds it, but only after the
//                  port had wanted it for longer than the grace (10s): a controller behind on its work
//   MissingWrite   the port would have scaled, created or deleted a ReplicaSet for longer than the
//                  grace, and the recording never holds that write (the next write of the ReplicaSet
//                  is another, or none comes)
//
// The controller acts on its informers' caches, which can trail the recorder's by a few changes: a
// write agrees when the port makes it on any world since the controller's previous write of that
// Deployment's ReplicaSets, not only the one just before.

import type {Timeline, TimelineChange} from '../cluster/timeline/read.js'
import type {KubeEvent, World} from '../cluster/world.js'
import type {Deployment, Pod, ReplicaSet} from '../controller/api/types.js'
import type {FeatureGates} from '../controller/interfaces.js'
import {labelSelectorAsSelector} from '../controller/util/labels.js'
import type {DeploymentResult} from '../pass/result.js'
import {observeRollout} from '../status/index.js'
import {observe} from '../status/observe.js'
import type {Actor, Divergence, SimEvent, WatchUpdate} from '../status/update.js'
import {endOf, type LiveEnd} from './live.js'

/** How long the port may want a write the recording does not show before it is late (or missing). */
export const MISSING_GRACE_MS = 10_000
/** How far around a write a ScalingReplicaSet event of the controller is looked for. */
const EVENT_WINDOW_MS = 5_000
/** At most this many earlier worlds are tried for a write (the controller's cache lag). */
const WINDOW = 64

export interface ReplayOptions {
  timeline: Timeline
  namespace: string
  name: string
  gates: FeatureGates & {values: Record<string, boolean>}
  /** Updates before this instant are not handed out (the world and the checks still run from the start). */
  from?: number
  settled?: boolean
  pausedOk?: boolean
  /** Also describe the next pass's writes in words (the interactive view). */
  describeNext?: boolean
}

export interface ReplayResult {
  updates: WatchUpdate[]
  /** The Deployment as recorded at each update (the recording's object: do not change it). */
  deployments: Deployment[]
  divergences: Divergence[]
  /** How the rollout stood at the end of the recording, as the live watch would have ended. */
  end: LiveEnd
}

/** A ReplicaSet write: made by someone in the recording, or one the port's pass would make. */
interface RsWrite {
  verb: 'create' | 'scale' | 'delete'
  name: string
  /** The size written (create, scale); undefined for delete. */
  size?: number
  /** The size before (scale). */
  from?: number
}

const describe = (w: RsWrite): string =>
  w.verb === 'create'
    ? `create replicaset ${w.name} with ${w.size} replica${w.size === 1 ? '' : 's'}`
    : w.verb === 'delete'
      ? `delete replicaset ${w.name}`
      : `scale replicaset ${w.name}${w.from !== undefined ? ` from ${w.from}` : ''} to ${w.size}`

const same = (a: RsWrite, b: RsWrite): boolean => a.verb === b.verb && a.name === b.name && a.size === b.size

/** The ReplicaSet writes of one pass: creates, size changes and deletes (annotation-only updates are left out). */
export function portWrites(result: DeploymentResult, before: ReadonlyMap<string, ReplicaSet>): RsWrite[] {
  const out: RsWrite[] = []
  for (const a of result.actions) {
    if (a.resource !== 'replicasets' || a.subresource !== undefined) continue
    const rs = a.object as ReplicaSet | undefined
    if (a.verb === 'create' && rs) {
      out.push({verb: 'create', name: rs.metadata.name ?? '', size: rs.spec.replicas ?? 1})
    } else if (a.verb === 'update' && rs) {
      const was = before.get(a.name)
      const from = was?.spec.replicas ?? 1
      const size = rs.spec.replicas ?? 1
      if (size !== from) out.push({verb: 'scale', name: a.name, size, from})
    } else if (a.verb === 'delete') out.push({verb: 'delete', name: a.name})
  }
  return out
}

/** A deployment-controller ScalingReplicaSet event: the ReplicaSet and the size it names. */
interface ScalingEvent {
  time: number
  namespace: string
  replicaSet: string
  to: number
}

/** A write the port wanted: since when, and (once the port stopped wanting it) until when. */
interface Wish {
  write: RsWrite
  since: number
  /** The world changed and the port stopped wanting it, after the grace: the controller's next write of the ReplicaSet tells. */
  until?: number
}

const SCALED = /replica set (\S+) (?:\(\S+\) )?(?:from \d+ )?to (\d+)/

/** Every ScalingReplicaSet event of the Deployment controller in the timeline (a count bump is one more). */
function scalingEvents(timeline: Timeline): ScalingEvent[] {
  const out: ScalingEvent[] = []
  for (const c of timeline.changes) {
    if (c.kind !== 'Event' || c.type === 'DELETED') continue
    const e = c.object as KubeEvent & {source?: {component?: string}; reportingComponent?: string}
    if (e.reason !== 'ScalingReplicaSet') continue
    const m = SCALED.exec(e.message ?? e.note ?? '')
    if (!m) continue
    out.push({
      time: c.time,
      namespace: e.metadata?.namespace ?? 'default',
      replicaSet: m[1] ?? '',
      to: Number(m[2]),
    })
  }
  return out
}

const ACTORS = new Set<string>([
  'deployment-controller',
  'replicaset-controller',
  'default-scheduler',
  'kubelet',
])

/** A recorded Event about the Deployment, one of its ReplicaSets or pods, as the view shows events. */
function simEvent(e: KubeEvent & {source?: {component?: string}; reportingComponent?: string}): SimEvent {
  const involved = e.involvedObject ?? e.regarding ?? {}
  const component = e.source?.component ?? e.reportingComponent ?? ''
  return {
    type: e.type === 'Warning' ? 'Warning' : 'Normal',
    reason: e.reason ?? '',
    object: `${involved.kind ?? 'Object'}/${involved.name ?? ''}`,
    message: e.message ?? e.note ?? '',
    source: (ACTORS.has(component) ? component : 'kubelet') as Actor,
  }
}

/** The objects of one namespace as the recording has them at the current change. */
class NamespaceWorld {
  readonly deployments = new Map<string, Deployment>()
  readonly replicaSets = new Map<string, ReplicaSet>()
  readonly pods = new Map<string, Pod>()
  /** Events by name, with the count last seen. */
  readonly events = new Map<string, KubeEvent>()

  apply(c: TimelineChange): {before: unknown} {
    const name = (c.object.metadata as {name: string}).name
    const map =
      c.kind === 'Deployment'
        ? this.deployments
        : c.kind === 'ReplicaSet'
          ? this.replicaSets
          : c.kind === 'Pod'
            ? this.pods
            : c.kind === 'Event'
              ? this.events
              : undefined
    if (!map) return {before: undefined}
    const before = map.get(name)
    if (c.type === 'DELETED') map.delete(name)
    else (map as Map<string, unknown>).set(name, c.object)
    return {before}
  }
}

/** Replays the recording for one Deployment: its updates, its divergences, and how it ended. */
export async function replayTimeline(opts: ReplayOptions): Promise<ReplayResult> {
  const [result] = await replayTimelines({
    ...opts,
    deployments: [{namespace: opts.namespace, name: opts.name}],
  })
  return result as ReplayResult
}

export interface ReplayManyOptions extends Omit<ReplayOptions, 'namespace' | 'name'> {
  deployments: readonly {namespace: string; name: string}[]
  /** Check the recorded ReplicaSet writes against the port's (false: updates only, as the summary reads them). */
  divergences?: boolean
}

/**
 * Replays the recording for several Deployments in one pass over it: each change is applied once to
 * its namespace's world and handed to the replays of that namespace's Deployments. Each result is
 * what replayTimeline gives for that Deployment alone.
 */
export async function replayTimelines(opts: ReplayManyOptions): Promise<ReplayResult[]> {
  const {timeline} = opts
  const checks = opts.divergences ?? true
  const byNamespace = new Map<string, {world: NamespaceWorld; replays: DeploymentReplay[]}>()
  const scaling = checks ? scalingEvents(timeline) : []
  const replays = opts.deployments.map((key) => {
    let ns = byNamespace.get(key.namespace)
    if (!ns) {
      ns = {world: new NamespaceWorld(), replays: []}
      byNamespace.set(key.namespace, ns)
    }
    const r = new DeploymentReplay(opts, key.namespace, key.name, ns.world, scaling, checks)
    ns.replays.push(r)
    return r
  })
  const changes = timeline.changes
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i] as TimelineChange
    // The first list: what was there before the recording began, one object at a time. Its partial
    // worlds are no state of the cluster: the first update is the world once it is all listed.
    const listing = c.type === 'ADDED' && c.time <= timeline.start
    const listingGoesOn = listing && (changes[i + 1]?.time ?? Number.POSITIVE_INFINITY) <= timeline.start
    const ns = (c.object.metadata as {namespace?: string}).namespace ?? 'default'
    const here = c.kind === 'HorizontalPodAutoscaler' ? undefined : byNamespace.get(ns)
    if (checks) for (const r of replays) if (r.world !== here?.world) r.settle(c.time, false)
    if (!here) continue
    // Most changes concern one Deployment of the namespace: the others only keep track, synchronously.
    for (const r of here.replays) if (r.beforeChange(c)) await r.startAt()
    const {before} = here.world.apply(c)
    for (const r of here.replays) {
      const d = r.afterChange(c, before, listing, listingGoesOn)
      if (d) await r.step(c, d, before, listing)
    }
  }
  return replays.map((r) => r.finish())
}

/** The replay of one Deployment, fed the changes of its namespace in order. */
class DeploymentReplay {
  private readonly updates: WatchUpdate[] = []
  private readonly deployments: Deployment[] = []
  private readonly divergences: Divergence[] = []
  private readonly from: number
  private start: number | undefined
  private seen = false
  private lastState: WatchUpdate | undefined
  /** When the recording last held a write of one of the Deployment's ReplicaSets. */
  private lastWrite = Number.NEGATIVE_INFINITY
  /** The port's writes on each world since the controller's previous ReplicaSet write (newest last). */
  private recent: {time: number; writes: RsWrite[]}[] = []
  /** The port's writes on the current world. */
  private current: RsWrite[] = []
  /** What the port wants and the recording has not shown yet, by ReplicaSet: since when. */
  private readonly wishes = new Map<string, Wish>()
  /**
   * Wishes the port dropped after wanting them past the grace (the world moved on), by ReplicaSet:
   * a late controller may still make them from its stale cache (LateWrite); a different next write
   * of the ReplicaSet, or none, makes them MissingWrite.
   */
  private readonly lapsed = new Map<string, Wish[]>()
  /** Writes no world so far explains, waiting for a later one that does (EarlyWrite). */
  private pending: Pending[] = []
  private unobserved: {generation: number; since: number} | undefined
  private readonly newEvents: SimEvent[] = []
  /** Divergences found and not yet handed out: the next update (at or after their time) carries them. */
  private unattached: Divergence[] = []
  private readonly selected = {
    d: undefined as Deployment | undefined,
    key: undefined as string | undefined,
    mine: (_o: Labeled): boolean => false,
    replicaSets: new Map<string, ReplicaSet>(),
    pods: new Map<string, Pod>(),
  }
  /** The Deployment before the change being applied. */
  private d0: Deployment | undefined

  constructor(
    private readonly opts: Omit<ReplayOptions, 'namespace' | 'name'>,
    private readonly namespace: string,
    private readonly name: string,
    readonly world: NamespaceWorld,
    /** The controller's ScalingReplicaSet events of the whole recording, every namespace, in time order. */
    private readonly events: ScalingEvent[],
    private readonly checks: boolean,
  ) {
    this.from = opts.from ?? Number.NEGATIVE_INFINITY
  }

  private byController(w: RsWrite, t: number): boolean {
    return (
      w.size !== undefined &&
      this.events.some(
        (e) =>
          e.namespace === this.namespace &&
          e.replicaSet === w.name &&
          e.to === w.size &&
          Math.abs(e.time - t) <= EVENT_WINDOW_MS,
      )
    )
  }

  /**
   * The Deployment controller's ReplicaSet writes for other Deployments (its ScalingReplicaSet
   * events) in (from, to]: a controller that made them while this one's write waited was busy.
   */
  private othersServed(from: number, to: number): number {
    let n = 0
    for (const e of this.events) {
      if (e.time <= from) continue
      if (e.time > to) break
      if (e.namespace !== this.namespace || !this.selected.replicaSets.has(e.replicaSet)) n++
    }
    return n
  }

  /** Why a write came late (or never), in words, with what the recording shows of the controller meanwhile. */
  private lateness(since: number, to: number, never = false): string {
    const others = this.othersServed(since, to)
    if (others > 0)
      return `; meanwhile the deployment controller made ${others} ReplicaSet write${others === 1 ? '' : 's'} for other Deployments (its ScalingReplicaSet events): a controller behind on its work queue (more Deployments to sync than its workers clear, starved of CPU, or throttled by its client's rate limit)`
    return never
      ? ': no Deployment controller acting (down, not the leader), or one that stops earlier than upstream'
      : ": a controller behind on its work (starved of CPU, throttled by its client's rate limit, or stopped for a while)"
  }

  /** A wish the port held past the grace that the recording never shows. */
  private missing(
    rs: string,
    w: Wish,
    end: number,
    instead?: {write: RsWrite; change: TimelineChange},
  ): void {
    const wanted = Math.round(((w.until ?? end) - w.since) / 1000)
    const after = instead
      ? `the next write of it, at ${iso(instead.change.time)} (${where(instead.change)}), is another (${describe(instead.write)})`
      : `the recording holds no such write in the ${Math.round((end - w.since) / 1000)}s after`
    this.diverge({
      time: w.since,
      code: 'MissingWrite',
      replicaSet: rs,
      message: `the port would ${describe(w.write)} from ${iso(w.since)} on${w.until !== undefined ? ` (for ${wanted}s, until the world changed)` : ''}; ${after}${w.until === undefined && !instead ? this.lateness(w.since, end, true) : ''}`,
    })
  }

  private diverge(d: Divergence): void {
    if (d.time < this.from) return
    this.divergences.push(d)
    this.unattached.push(d)
  }

  settle(now: number, final: boolean): void {
    // A wish past the grace waits for the ReplicaSet's next recorded write (LateWrite when it is the
    // one wanted); at the end of the recording the ones still open never came.
    if (final) {
      for (const [rs, w] of this.wishes) if (now - w.since > MISSING_GRACE_MS) this.missing(rs, w, now)
      this.wishes.clear()
      for (const [rs, ws] of this.lapsed) for (const w of ws) this.missing(rs, w, now)
      this.lapsed.clear()
    }
    this.pending = this.pending.filter((p) => {
      if (!final && now - p.time <= MISSING_GRACE_MS) return true
      this.resolveUnexplained(p)
      return false
    })
  }

  private resolveUnexplained(p: Pending): void {
    const {write, time, change, near} = p
    this.diverge(
      near
        ? {
            time,
            code: 'DifferentSize',
            replicaSet: write.name,
            message: `${pastTense(write, p.controller)} at ${iso(time)} (${where(change)}); the port would ${describe(near)}`,
          }
        : {
            time,
            code: 'ExtraWrite',
            replicaSet: write.name,
            message: `${pastTense(write, p.controller)} at ${iso(time)} (${where(change)}); the port would not write that ReplicaSet then`,
          },
    )
  }

  /** Before `c` is applied to the world: with --at, the world as it stood then is the first update. */
  beforeChange(c: TimelineChange): boolean {
    const {selected, from, opts} = this
    const d0 = this.world.deployments.get(this.name)
    this.d0 = d0
    return this.start === undefined && c.time > from && from >= opts.timeline.start && !!d0 && !!selected.d
  }

  /** The first update of a replay from --at: the world as it stood then. */
  async startAt(): Promise<void> {
    const {selected, from, opts} = this
    const d0 = this.d0
    if (d0) {
      const replicaSets = [...selected.replicaSets.values()]
      const pods = [...selected.pods.values()]
      const {state} = await observeRollout(
        {deployment: d0, replicaSets, pods, immutable: true},
        {now: from, gates: opts.gates},
      )
      this.start = from
      this.updates.push({
        time: from,
        elapsed: 0,
        observation: observe(d0, replicaSets, pods, from),
        events: [],
        state,
      })
      this.deployments.push(d0)
    }
  }

  /** After `c` is applied to the world (`before`: the object it replaced). */
  afterChange(
    c: TimelineChange,
    before: unknown,
    listing: boolean,
    listingGoesOn: boolean,
  ): Deployment | undefined {
    const {world, name, selected} = this
    const d = world.deployments.get(name) ?? this.d0
    if (!d) return undefined
    if (d !== selected.d) {
      // The Deployment's own objects, kept as changes come: rebuilt only when its selector changes.
      const key = JSON.stringify(d.spec.selector ?? null)
      if (key !== selected.key) {
        const sel = safeSelector(d)
        selected.mine = (o) => sel.matches(o.metadata.labels)
        selected.key = key
        selected.replicaSets = new Map([...world.replicaSets].filter(([, rs]) => selected.mine(rs)))
        selected.pods = new Map([...world.pods].filter(([, p]) => selected.mine(p)))
      }
      selected.d = d
    }
    const mine = selected.mine
    if (c.kind === 'ReplicaSet' || c.kind === 'Pod') {
      const own = (c.kind === 'ReplicaSet' ? selected.replicaSets : selected.pods) as Map<string, unknown>
      const objectName = (c.object.metadata as {name: string}).name
      if (c.type !== 'DELETED' && mine(c.object as never)) own.set(objectName, c.object)
      else own.delete(objectName)
    }
    let relevant = c.kind === 'Deployment' ? (c.object.metadata as {name?: string}).name === name : false
    if (c.kind === 'ReplicaSet' || c.kind === 'Pod') relevant = mine(c.object as never)
    if (c.kind === 'Event') {
      const e = c.object as KubeEvent
      const involved = e.involvedObject ?? e.regarding ?? {}
      relevant =
        (involved.kind === 'Deployment' && involved.name === name) ||
        (involved.kind === 'ReplicaSet' && isMine(world.replicaSets.get(involved.name ?? ''), mine)) ||
        (involved.kind === 'Pod' && isMine(world.pods.get(involved.name ?? ''), mine))
      const prev = before as KubeEvent | undefined
      if (relevant && !listing && (!prev || (e.count ?? 1) > (prev.count ?? 1)))
        this.newEvents.push(simEvent(e))
    }
    if (this.checks) this.settle(c.time, false)
    if (listingGoesOn || (!relevant && !listing)) return undefined
    return d
  }

  /** A change of the Deployment's world (or the end of the first list): checks, then the update. */
  async step(c: TimelineChange, d: Deployment, before: unknown, listing: boolean): Promise<void> {
    const {world, name, selected, opts} = this

    // A recorded ReplicaSet write of this Deployment (not the first list): does the port agree?
    if (this.checks && c.kind === 'ReplicaSet' && !listing && ownedBy(c.object as unknown as ReplicaSet, d))
      this.checkWrite(c, before as ReplicaSet | undefined)

    // The world after this change: the state the view shows, and the port's pass on it.
    const replicaSets = [...selected.replicaSets.values()]
    const pods = [...selected.pods.values()]
    const now = c.time
    const generation = d.metadata.generation ?? 0
    if (generation > (d.status?.observedGeneration ?? 0)) {
      if (this.unobserved?.generation !== generation) this.unobserved = {generation, since: now}
    } else this.unobserved = undefined
    if (!world.deployments.has(name)) {
      this.seen = true
      this.lastState = undefined
      return
    }
    this.seen = true
    // The recording's objects are never changed (the pass writes copies): no copy of them first.
    const {state, context} = await observeRollout(
      {deployment: d, replicaSets, pods, immutable: true},
      {
        now,
        gates: opts.gates,
        hints: this.unobserved ? {generationUnobservedSince: this.unobserved.since} : {},
      },
    )
    if (this.checks) await this.checkPort(d, replicaSets, pods, context.result, now)

    if (now < this.from) {
      this.newEvents.length = 0
      return
    }
    this.start ??= now
    const update: WatchUpdate = {
      time: now,
      elapsed: now - this.start,
      observation: observe(d, replicaSets, pods, now),
      events: this.newEvents.splice(0),
      state,
    }
    if (this.unattached.length > 0) {
      update.divergences = this.unattached
      this.unattached = []
    }
    if (opts.describeNext && !state.rolloutStatus.done) {
      const {nextInWords} = await import('../explain/next.js')
      update.next = nextInWords(context, state.progress.state)
    }
    this.updates.push(update)
    this.deployments.push(d)
    this.lastState = update
  }

  /** A recorded ReplicaSet write: agrees with a world since the previous write, or is pending or a divergence. */
  private checkWrite(c: TimelineChange, before: ReplicaSet | undefined): void {
    const write = recordedWrite(c, before)
    if (!write) return
    // The writes no world explained so far stay unexplained: from here on the recorded world
    // holds what the controller did after them, and the port's later wishes follow from that.
    for (const p of this.pending) this.resolveUnexplained(p)
    this.pending = []
    this.checkLate(c, write)
    this.lastWrite = c.time
    const candidates = [...this.recent, {time: c.time, writes: this.current}]
    const agrees = candidates.some((x) => x.writes.some((w) => same(w, write)))
    if (agrees) {
      const matched = candidates.filter((x) => x.writes.some((w) => same(w, write)))
      this.recent = [matched.at(-1) as {time: number; writes: RsWrite[]}]
      return
    }
    const controller = this.byController(write, c.time)
    const near = candidates
      .flatMap((x) => x.writes)
      .reverse()
      .find((w) => w.name === write.name)
    if (!controller && write.verb !== 'delete') {
      this.diverge({
        time: c.time,
        code: 'OtherWriter',
        replicaSet: write.name,
        message: `replicaset ${write.name} was ${write.verb === 'create' ? `created with ${write.size} replicas` : `scaled from ${write.from} to ${write.size}`} at ${iso(c.time)} (${where(c)}) without a ScalingReplicaSet event of the deployment controller, and the port would ${near ? describe(near) : 'not write it then'}: a manual edit or another controller`,
      })
    } else {
      this.pending.push({
        write,
        time: c.time,
        change: c,
        controller,
        ...(near ? {near} : {}),
        ...(before ? {before} : {}),
      })
    }
    this.recent = []
  }

  /**
   * A recorded write of a ReplicaSet the port wanted to write: made more than the grace after the
   * port first wanted a write of it (this one, or one before it that the world has since made moot),
   * a LateWrite; wishes held past the grace that it does not make are MissingWrite.
   */
  private checkLate(c: TimelineChange, write: RsWrite): void {
    const open = this.wishes.get(write.name)
    this.wishes.delete(write.name)
    const all = [...(this.lapsed.get(write.name) ?? []), ...(open ? [open] : [])]
    this.lapsed.delete(write.name)
    const overdue = (w: Wish) => (w.until ?? c.time) - w.since > MISSING_GRACE_MS
    const i = all.findLastIndex((w) => same(w.write, write))
    for (const w of all.slice(i + 1)) if (overdue(w)) this.missing(write.name, w, c.time, {write, change: c})
    const matched = all[i]
    if (!matched) return
    // A late controller acts on the world of when it gets to it: the writes the port would have made
    // on the way there are skipped, and the lateness counts from the first of them.
    const first = all.slice(0, i).find(overdue) ?? matched
    // The writes of one pass come one request after another (a cleanup deletes ReplicaSets in
    // turn), where the port's come at once: one that follows the controller's previous write
    // within the grace is part of the same late act, not late again.
    if (c.time - Math.max(first.since, this.lastWrite) <= MISSING_GRACE_MS) return
    const controller = this.byController(write, c.time)
    const delay = Math.round((c.time - first.since) / 100) / 10
    const skipped =
      first === matched ? '' : ` (it wanted to ${describe(first.write)} first, from ${iso(first.since)} on)`
    this.diverge({
      time: first.since,
      code: 'LateWrite',
      replicaSet: write.name,
      message: `${pastTense(write, controller)} at ${iso(c.time)} (${where(c)}), ${delay}s after the port would have acted${skipped}${this.lateness(first.since, c.time)}`,
    })
  }

  /** The port's writes on this world: kept for the next recorded write; pending writes it makes come early. */
  private async checkPort(
    d: Deployment,
    replicaSets: ReplicaSet[],
    pods: Pod[],
    result: DeploymentResult,
    now: number,
  ): Promise<void> {
    const {namespace, name, opts} = this
    const byName = new Map(replicaSets.map((rs) => [rs.metadata.name ?? '', rs]))
    this.current = portWrites(result, byName)
    this.recent.push({time: now, writes: this.current})
    if (this.recent.length > WINDOW) this.recent.splice(0, this.recent.length - WINDOW)
    // An unexplained write the port makes on a later world, had it not been made yet: it came early.
    const early = new Set<Pending>()
    for (const p of this.pending) {
      const world = withoutWrite(d, replicaSets, pods, p.write, p.before)
      const {runPasses} = await import('../pass/run.js')
      const outcome = await runPasses(world, {namespace, names: [name]}, {now, gates: opts.gates})
      const item = outcome.result.items[0]
      const was = new Map(world.replicaSets.map((rs) => [rs.metadata.name ?? '', rs]))
      if (item && portWrites(item, was).some((w) => same(w, p.write))) early.add(p)
    }
    this.pending = this.pending.filter((p) => {
      if (!early.has(p)) return true
      this.diverge({
        time: p.time,
        code: 'EarlyWrite',
        replicaSet: p.write.name,
        message: `${pastTense(p.write, p.controller)} at ${iso(p.time)} (${where(p.change)}); the port makes that write only from ${iso(now)}, ${Math.round((now - p.time) / 100) / 10}s later`,
      })
      return false
    })
    for (const [rs, had] of [...this.wishes]) {
      if (this.current.some((w) => same(w, had.write))) continue
      // The port wants something else of it now, or nothing: past the grace, the wish lapses.
      this.wishes.delete(rs)
      if (now - had.since > MISSING_GRACE_MS) {
        const list = this.lapsed.get(rs) ?? []
        list.push({...had, until: now})
        this.lapsed.set(rs, list)
      }
    }
    for (const w of this.current)
      if (!this.wishes.has(w.name)) this.wishes.set(w.name, {write: w, since: now})
  }

  /** The end of the recording: what is still unexplained, and how the rollout stood. */
  finish(): ReplayResult {
    if (this.checks) this.settle(this.opts.timeline.end, true)
    this.divergences.sort((a, b) => a.time - b.time)
    const last = this.updates.at(-1)
    if (last && this.unattached.length > 0)
      last.divergences = [...(last.divergences ?? []), ...this.unattached]
    const end = endOfReplay(this.lastState, this.seen, this.name, this.opts)
    return {updates: this.updates, deployments: this.deployments, divergences: this.divergences, end}
  }
}

type Labeled = {metadata: {labels?: Record<string, string>}}

/** A recorded write no world has explained yet. */
interface Pending {
  write: RsWrite
  time: number
  change: TimelineChange
  controller: boolean
  near?: RsWrite
  /** The ReplicaSet before the write (undefined for a creation). */
  before?: ReplicaSet
}

const where = (c: TimelineChange) => `${c.file}:${c.line}`

function endOfReplay(
  last: WatchUpdate | undefined,
  seen: boolean,
  name: string,
  opts: Pick<ReplayOptions, 'settled' | 'pausedOk'>,
): LiveEnd {
  if (!last) {
    const message = seen
      ? `error: deployment "${name}" was deleted`
      : `Error from server (NotFound): deployments.apps "${name}" not found in the recording`
    return {outcome: {kind: 'deleted', message}, code: 1}
  }
  const ended = endOf(last.observation, last.state, {
    settled: opts.settled ?? false,
    pausedOk: opts.pausedOk ?? false,
  })
  if (ended) return ended
  return {
    outcome: {
      kind: 'interrupted',
      message: `error: the recording ends before deployment "${name}" rollout finished: ${last.state.rolloutStatus.message}`,
    },
    code: 1,
  }
}

/**
 * The world as it would be had a recorded write not been made yet: a scaled ReplicaSet at its former
 * size, a created one (and its pods) absent, a deleted one back. Copies: the pass may not touch the
 * recording's objects.
 */
function withoutWrite(
  d: Deployment,
  replicaSets: readonly ReplicaSet[],
  pods: readonly Pod[],
  write: RsWrite,
  before: ReplicaSet | undefined,
): World {
  let rss = replicaSets.filter((rs) => rs.metadata.name !== write.name).map((rs) => structuredClone(rs))
  let ps = pods
  const now = replicaSets.find((rs) => rs.metadata.name === write.name)
  if (write.verb === 'scale' && now) {
    const rs = structuredClone(now)
    rs.spec.replicas = write.from
    rss.push(rs)
  } else if (write.verb === 'delete' && before) rss.push(structuredClone(before))
  else if (write.verb === 'create' && now) {
    const uid = now.metadata.uid
    ps = pods.filter((p) => !p.metadata.ownerReferences?.some((r) => r.uid === uid))
  }
  rss = rss.sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
  return {
    deployments: [structuredClone(d)],
    replicaSets: rss,
    pods: ps.map((p) => structuredClone(p)),
    sources: new WeakMap(),
  }
}

function safeSelector(d: Deployment) {
  try {
    return labelSelectorAsSelector(d.spec.selector)
  } catch {
    return {matches: () => false}
  }
}

function isMine(
  o: {metadata: {labels?: Record<string, string>}} | undefined,
  mine: (o: {metadata: {labels?: Record<string, string>}}) => boolean,
): boolean {
  return o !== undefined && mine(o)
}

function ownedBy(rs: ReplicaSet, d: Deployment): boolean {
  const ref = rs.metadata.ownerReferences?.find((r) => r.controller === true)
  return ref === undefined ? true : ref.kind === 'Deployment' && ref.uid === d.metadata.uid
}

/** The write a recorded ReplicaSet change is: a creation, a size change or a deletion; undefined otherwise. */
function recordedWrite(c: TimelineChange, before: ReplicaSet | undefined): RsWrite | undefined {
  const rs = c.object as unknown as ReplicaSet
  const name = rs.metadata.name ?? ''
  if (c.type === 'DELETED') return {verb: 'delete', name}
  if (c.type === 'ADDED' || !before) return {verb: 'create', name, size: rs.spec.replicas ?? 1}
  const from = before.spec.replicas ?? 1
  const size = rs.spec.replicas ?? 1
  return size === from ? undefined : {verb: 'scale', name, size, from}
}

/** The recorded write in words: by the Deployment controller when its event names it. */
function pastTense(w: RsWrite, controller: boolean): string {
  const what =
    w.verb === 'create'
      ? `created replicaset ${w.name} with ${w.size} replica${w.size === 1 ? '' : 's'}`
      : w.verb === 'delete'
        ? `deleted replicaset ${w.name}`
        : `scaled replicaset ${w.name} from ${w.from} to ${w.size}`
  return controller ? `the deployment controller ${what}` : `someone ${what}`
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}
