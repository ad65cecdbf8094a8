// `rollout record`: one informer per kind (Deployments, ReplicaSets, pods, Events, autoscalers) on
// the namespace (or every namespace), each change of what concerns the selected Deployments written
// as a timed line of a timeline (src/cluster/timeline). The informers list first, so the recording
// is complete from its header's start; a watch that expires lists again, and the recording says
// where (a RELIST line). --until-done ends it once every rollout it saw start is done.

import type {ApiClient} from '../cluster/live/api.js'
import {Informer, isTombstone, type Tombstone} from '../cluster/live/cache/informer.js'
import type {Connection} from '../cluster/live/kubeconfig.js'
import {DeltaEncoder} from '../cluster/timeline/delta.js'
import {
  type ChangeType,
  objectKeyOf,
  RECORDED_KINDS,
  REQUIRED_KINDS,
  RESOURCE_OF,
  type RecordedKind,
  relistLine,
  type TimelineHeader,
} from '../cluster/timeline/format.js'
import type {LineInfo} from '../cluster/timeline/recording-file.js'
import {recordedObject, TRIMMED} from '../cluster/timeline/trim.js'
import type {Deployment, KubeObject} from '../controller/api/types.js'
import {labelSelectorAsSelector, parseLabelSelector, type Selector} from '../controller/util/labels.js'
import {rolloutStatus} from '../status/rollout-status.js'

/** Where the lines go: the recording file (cluster/timeline/recording-file.ts) or a test's list. */
export interface RecordSink {
  open(header: TimelineHeader): void
  append(line: string, meta: LineInfo): void
  close(): void
}

export interface RecordOptions {
  api: ApiClient
  conn: Connection
  /** undefined: every namespace (-A). */
  namespace: string | undefined
  /** NAMEs; empty: every Deployment (of -l when given). */
  names: string[]
  labelSelector?: string
  sink: RecordSink
  /** The header's fields known before the lists (cluster, context, server version, selection). */
  header: Omit<TimelineHeader, 'start' | 'kinds' | 'redacted' | 'trimmed'>
  redact: boolean
  /** Changes of an object already written as delta lines (a merge patch); false: every line whole. */
  deltas?: boolean
  /** End once every rollout the recording saw start is done (complete, or past its deadline). */
  untilDone: boolean
  /** End after this long (ms). */
  durationMs?: number
  /** The receive clock (tests inject one). */
  now?: () => number
  /** Lines for stderr: a kind that cannot be listed, a named Deployment that is not there (yet). */
  warn?: (line: string) => void
  debug?: (line: string) => void
}

/** How each Deployment's rollout seen in the recording ended: complete or past its deadline. */
export type RolloutEnd = 'complete' | 'failed'

export interface RecordEnd {
  reason: 'done' | 'duration' | 'interrupted'
  /** 0, or 1 when --until-done ended on a rollout past its progress deadline. */
  code: number
  /** The Deployments whose rollout started in the recording, and how it ended (if it did). */
  rollouts: Map<string, RolloutEnd | undefined>
}

type Recorded = KubeObject & {metadata: NonNullable<KubeObject['metadata']>}

interface EventObject {
  involvedObject?: {kind?: string; name?: string; namespace?: string}
  metadata: {namespace?: string}
}

interface AutoscalerObject {
  metadata: {namespace?: string}
  spec?: {scaleTargetRef?: {kind?: string; name?: string}}
}

const keyOf = (o: {metadata: {namespace?: string; name?: string}}) =>
  `${o.metadata.namespace || 'default'}/${o.metadata.name ?? ''}`

export class Recorder {
  private readonly now: () => number
  private readonly informers = new Map<RecordedKind, Informer<Recorded>>()
  private readonly kinds: RecordedKind[] = []
  /** Lines received before every kind has listed: written after the header. */
  private buffered: Array<() => void> | undefined = []
  /** Selected Deployments by namespace/name, with their selectors. */
  private readonly selected = new Map<string, {d: Deployment; selector: Selector}>()
  /** `Kind/namespace/name` of every object written so far: the Events about them are recorded too. */
  private readonly recorded = new Set<string>()
  private readonly lastEventAt = new Map<RecordedKind, number>()
  private readonly labelSelector: Selector | undefined
  /** Per selected Deployment: the template last seen, whether a rollout started, how it ended. */
  private readonly rollouts = new Map<string, {template: string; started: boolean; end?: RolloutEnd}>()
  private ended = false
  private finish: (end: RecordEnd) => void = () => {}
  private timer: NodeJS.Timeout | undefined
  private readonly encoder: DeltaEncoder

  constructor(private readonly opts: RecordOptions) {
    this.now = opts.now ?? Date.now
    this.encoder = new DeltaEncoder(opts.deltas ?? true)
    this.labelSelector = opts.labelSelector ? parseLabelSelector(opts.labelSelector) : undefined
  }

  /** Lists, then records until the end condition (or stop()); rejects when a required list fails. */
  async run(): Promise<RecordEnd> {
    const done = new Promise<RecordEnd>((resolve) => {
      this.finish = resolve
    })
    const started = this.now()
    try {
      // Deployments first: the other kinds are recorded for the Deployments selected.
      await this.startKind('Deployment')
      await Promise.all(
        (['ReplicaSet', 'Pod', 'HorizontalPodAutoscaler'] as const).map((k) => this.startKind(k)),
      )
      // Events last: they are recorded for the objects already recorded.
      await this.startKind('Event')
    } catch (err) {
      await this.stopInformers()
      throw err
    }
    for (const name of this.opts.names) {
      const key = `${this.opts.namespace ?? 'default'}/${name}`
      if (!this.selected.has(key)) {
        this.opts.warn?.(
          `deployments.apps "${name}" not found in namespace "${this.opts.namespace ?? 'default'}": recording until it appears`,
        )
      }
    }
    const start = this.now()
    for (const k of this.kinds) this.lastEventAt.set(k, start)
    this.opts.sink.open({
      ...this.opts.header,
      start: new Date(start).toISOString(),
      kinds: RECORDED_KINDS.filter((k) => this.kinds.includes(k)),
      redacted: this.opts.redact,
      trimmed: TRIMMED,
    })
    const lines = this.buffered ?? []
    this.buffered = undefined
    for (const write of lines) write()
    this.opts.debug?.(`recording from ${new Date(start).toISOString()} (lists took ${start - started} ms)`)
    if (this.opts.durationMs !== undefined) {
      this.timer = setTimeout(() => void this.end({reason: 'duration', code: 0}), this.opts.durationMs)
    }
    this.checkDone()
    return done
  }

  /** Ctrl-C: the recording ends with what it has. */
  stop(): Promise<void> {
    return this.end({reason: 'interrupted', code: 0})
  }

  private async startKind(kind: RecordedKind): Promise<void> {
    const inf = new Informer<Recorded>({
      api: this.opts.api,
      conn: this.opts.conn,
      resource: RESOURCE_OF[kind] as 'deployments',
      namespace: this.opts.namespace,
      ...(this.opts.warn ? {warn: this.opts.warn} : {}),
      ...(this.opts.debug ? {debug: this.opts.debug} : {}),
      onRelist: () => this.relisted(kind),
    })
    inf.addEventHandler({
      add: (o) => this.changed(kind, 'ADDED', o),
      update: (old, cur) => {
        // A list after 410 Gone hands every cached object over again: only real changes are lines.
        if (old.metadata.resourceVersion !== cur.metadata.resourceVersion) this.changed(kind, 'MODIFIED', cur)
      },
      delete: (o) => this.changed(kind, 'DELETED', isTombstone(o) ? (o as Tombstone<Recorded>).obj : o),
    })
    try {
      await inf.start()
    } catch (err) {
      await inf.stop()
      if (REQUIRED_KINDS.includes(kind)) throw err
      this.opts.warn?.(
        `cannot list ${RESOURCE_OF[kind]}: ${err instanceof Error ? err.message : String(err)}; the recording has no ${kind}s`,
      )
      return
    }
    this.informers.set(kind, inf)
    this.kinds.push(kind)
  }

  private relisted(kind: RecordedKind): void {
    const time = this.now()
    const since = this.lastEventAt.get(kind) ?? time
    this.write(() =>
      this.opts.sink.append(relistLine(time, kind, since), {kind: 'RELIST', type: 'RELIST', time}),
    )
  }

  private changed(kind: RecordedKind, type: ChangeType, obj: Recorded): void {
    if (this.ended) return
    if (kind === 'Deployment' && !this.trackDeployment(type, obj as Deployment)) return
    if (kind !== 'Deployment' && !this.concerns(kind, obj)) return
    const time = this.now()
    this.lastEventAt.set(kind, time)
    const key = objectKeyOf(kind, obj)
    this.recorded.add(key)
    const object = recordedObject(kind, obj, this.opts.redact)
    this.write(() => {
      const {line, delta} = this.encoder.line(time, type, object)
      this.opts.sink.append(line, {kind, type, time, key, delta})
    })
    if (kind === 'Deployment' && this.buffered === undefined) this.checkDone()
  }

  private write(line: () => void): void {
    if (this.buffered) this.buffered.push(line)
    else line()
  }

  /** Whether the Deployment is selected; keeps the selection and the rollout tracker current. */
  private trackDeployment(type: ChangeType, d: Deployment): boolean {
    const key = keyOf(d)
    const names = this.opts.names
    const isSelected =
      (names.length === 0 || names.includes(d.metadata.name ?? '')) &&
      (this.labelSelector === undefined || this.labelSelector.matches(d.metadata.labels))
    if (!isSelected && !this.selected.has(key)) return false
    if (type === 'DELETED') {
      this.selected.delete(key)
      return true
    }
    this.selected.set(key, {d, selector: labelSelectorAsSelector(d.spec.selector)})
    const template = JSON.stringify(d.spec.template)
    const seen = this.rollouts.get(key)
    // Created while recording, or a new template: a rollout the recording saw start.
    const starts = seen ? seen.template !== template : this.buffered === undefined
    const r = {
      template,
      started: (seen?.started ?? false) || starts,
      ...(starts ? {} : seen?.end ? {end: seen.end} : {}),
    }
    if (r.started) {
      const status = rolloutStatus(d)
      if (status.done) r.end = 'complete'
      else if (status.error) r.end = 'failed'
      else delete r.end
    }
    this.rollouts.set(key, r)
    return true
  }

  /** Whether a ReplicaSet, pod, Event or autoscaler concerns a selected Deployment (or what was recorded). */
  private concerns(kind: RecordedKind, obj: Recorded): boolean {
    if (this.recorded.has(objectKeyOf(kind, obj))) return true
    const namespace = obj.metadata.namespace || 'default'
    switch (kind) {
      case 'ReplicaSet':
      case 'Pod': {
        const owner = obj.metadata.ownerReferences?.find((r) => r.controller === true)
        for (const {d, selector} of this.selected.values()) {
          if ((d.metadata.namespace || 'default') !== namespace) continue
          if (owner?.uid !== undefined && owner.uid === d.metadata.uid) return true
          if (selector.matches(obj.metadata.labels)) return true
        }
        return false
      }
      case 'Event': {
        const about = (obj as unknown as EventObject).involvedObject
        if (!about?.kind || !about.name) return false
        return this.recorded.has(`${about.kind}/${about.namespace || namespace}/${about.name}`)
      }
      case 'HorizontalPodAutoscaler': {
        const target = (obj as unknown as AutoscalerObject).spec?.scaleTargetRef
        return target?.kind === 'Deployment' && this.selected.has(`${namespace}/${target.name ?? ''}`)
      }
      default:
        return false
    }
  }

  /**
   * --until-done: with NAMEs, every one of them saw a rollout start and it ended; otherwise at least
   * one rollout started and every one that did has ended.
   */
  private checkDone(): void {
    if (!this.opts.untilDone || this.ended) return
    const started = [...this.rollouts.entries()].filter(([, r]) => r.started)
    const namespace = this.opts.namespace ?? 'default'
    const needed =
      this.opts.names.length > 0 ? this.opts.names.map((n) => `${namespace}/${n}`) : started.map(([k]) => k)
    if (needed.length === 0) return
    if (!needed.every((k) => this.rollouts.get(k)?.started && this.rollouts.get(k)?.end)) return
    const failed = needed.some((k) => this.rollouts.get(k)?.end === 'failed')
    void this.end({reason: 'done', code: failed ? 1 : 0})
  }

  private async end(end: Omit<RecordEnd, 'rollouts'>): Promise<void> {
    if (this.ended) return
    this.ended = true
    clearTimeout(this.timer)
    await this.stopInformers()
    // What was buffered before the lists ended (an interrupt during the lists) is not a recording.
    if (this.buffered === undefined) this.opts.sink.close()
    const rollouts = new Map<string, RolloutEnd | undefined>()
    for (const [k, r] of this.rollouts) if (r.started) rollouts.set(k, r.end)
    this.finish({...end, rollouts})
  }

  private async stopInformers(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()))
  }
}
