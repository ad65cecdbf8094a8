// A shared informer as client-go's (tools/cache): a reflector that lists, then watches from the
// list's resourceVersion (resuming from the last version seen when a stream ends, listing again
// after 410 Gone), a cache with indexes, and handlers called with each change once the cache holds
// it. Resync replays every cached object as an update, as the informer factory's resync period does.

import type {KubeObject} from '../../../controller/api/types.js'
import {deepFreeze} from '../../json.js'
import {fieldErrorText, required, typeError} from '../../load/problems.js'
import type {ApiClient} from '../api.js'
import type {Connection} from '../kubeconfig.js'
import {collectionPath, identity, type ListedResource, listAll, malformed} from '../read.js'
import {type LoopClock, realClock, type TimerHandle} from '../workqueue/clock.js'
import {openWatch, type WatchEnd, type WatchEvent, type WatchHandle} from './watch.js'

/** upstream: cache.DeletedFinalStateUnknown — an object that went away while the watch was down. */
export interface Tombstone<T> {
  tombstone: true
  key: string
  obj: T
}

export function isTombstone<T>(o: T | Tombstone<T>): o is Tombstone<T> {
  return (o as Tombstone<T>).tombstone === true
}

export interface InformerHandlers<T> {
  add?(obj: T): void
  update?(old: T, cur: T): void
  delete?(obj: T | Tombstone<T>): void
}

export type IndexFunc<T> = (obj: T) => string[]

export interface InformerOptions<T> {
  api: ApiClient
  conn: Connection
  resource: Extract<
    ListedResource,
    'deployments' | 'replicasets' | 'pods' | 'events' | 'horizontalpodautoscalers'
  >
  /** undefined: every namespace. */
  namespace: string | undefined
  labelSelector?: string
  /** Named indexes besides the built-in `namespace` one. */
  indexers?: Record<string, IndexFunc<T>>
  /** 0 disables resync. */
  resyncMs?: number
  clock?: LoopClock
  /** Warnings about the connection (a dropped watch, a failed re-list). */
  warn?: (line: string) => void
  /** Verbose lines (each list and watch). */
  debug?: (line: string) => void
  /** Freeze cached objects so that a handler or sync that mutates one fails loudly (tests). */
  freeze?: boolean
  /**
   * upstream: cache.TransformFunc (SharedInformer.SetTransform) — what the cache keeps of each
   * object, applied before it is stored or handed to a handler (after managedFields are dropped).
   */
  transform?: (obj: T) => T
  /**
   * Told when a list after the first one (410 Gone, a watch that failed) is about to replace the
   * cache: changes between the last event and this list were not seen one by one.
   */
  onRelist?: () => void
}

/** client-go's reflector: watches last 5 to 10 minutes before they are renewed. */
const MIN_WATCH_TIMEOUT_S = 300

/** client-go's reflector back-off: 800 ms doubling to 30 s, reset after a healthy stretch. */
const BACKOFF_INITIAL_MS = 800
const BACKOFF_MAX_MS = 30_000

export const objectKey = (o: KubeObject): string =>
  o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name ?? ''}` : (o.metadata.name ?? '')

export class Informer<T extends KubeObject> {
  private readonly items = new Map<string, T>()
  private readonly indexes = new Map<string, Map<string, Map<string, T>>>()
  private readonly indexers: Record<string, IndexFunc<T>>
  private readonly handlers: InformerHandlers<T>[] = []
  private readonly clock: LoopClock
  private lastRV = ''
  private synced = false
  private stopped = false
  private watch: WatchHandle | undefined
  private resyncTimer: TimerHandle | undefined
  private sleepTimer: {handle: TimerHandle; wake: () => void} | undefined
  private loop: Promise<void> | undefined
  /** Changes applied to the cache so far (lists and watch events). */
  changes = 0
  /** When each key last entered its index buckets: the order byIndex lists objects in. */
  private readonly entered = new Map<string, number>()
  private enterCount = 0

  constructor(private readonly opts: InformerOptions<T>) {
    this.clock = opts.clock ?? realClock
    this.indexers = {
      namespace: (o) => [o.metadata.namespace ?? ''],
      ...(opts.indexers ?? {}),
    }
    for (const name of Object.keys(this.indexers)) this.indexes.set(name, new Map())
  }

  addEventHandler(h: InformerHandlers<T>): void {
    this.handlers.push(h)
  }

  get hasSynced(): boolean {
    return this.synced
  }

  get resourceVersion(): string {
    return this.lastRV
  }

  get(key: string): T | undefined {
    return this.items.get(key)
  }

  list(): T[] {
    return [...this.items.values()]
  }

  get size(): number {
    return this.items.size
  }

  /** Objects whose index `name` yields `value`, in the order they entered the cache. */
  byIndex(name: string, value: string): T[] {
    const bucket = this.indexes.get(name)?.get(value)
    return bucket ? [...bucket.values()] : []
  }

  hasIndex(name: string): boolean {
    return this.indexes.has(name)
  }

  /** How many objects byIndex(name, value) would list. */
  indexSize(name: string, value: string): number {
    return this.indexes.get(name)?.get(value)?.size ?? 0
  }

  /** The position of a cached object in every byIndex list it is in (later entries are larger). */
  indexOrder(obj: T): number {
    return this.entered.get(objectKey(obj)) ?? 0
  }

  /**
   * Lists (the cache has synced when this resolves) and keeps watching in the background until
   * stop(). A failure of the first list rejects: nothing has been cached yet.
   */
  async start(): Promise<void> {
    await this.relist()
    this.synced = true
    this.scheduleResync()
    this.loop = this.watchLoop()
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.watch?.stop()
    this.resyncTimer?.cancel()
    if (this.sleepTimer) {
      this.sleepTimer.handle.cancel()
      this.sleepTimer.wake()
    }
    await this.loop
  }

  private path(): string {
    return collectionPath(this.opts.resource, this.opts.namespace)
  }

  /** upstream: Reflector.list + store.Replace — adds, updates (also unchanged) and tombstoned deletes. */
  private async relist(): Promise<void> {
    const query: Record<string, string> = {}
    if (this.opts.labelSelector) query.labelSelector = this.opts.labelSelector
    const {items, resourceVersion} = await listAll<T>(
      this.opts.api,
      this.opts.resource,
      this.opts.namespace,
      query,
      // Each page's items are prepared (trimmed, frozen) as the page arrives.
      (item) => this.prepare(item),
    )
    if (this.stopped) return
    this.opts.debug?.(`listed ${items.length} ${this.opts.resource} at resourceVersion ${resourceVersion}`)
    if (this.synced) this.opts.onRelist?.()
    const seen = new Set<string>()
    for (const obj of items) {
      const key = objectKey(obj)
      seen.add(key)
      this.apply('upsert', key, obj)
    }
    for (const [key, old] of [...this.items]) {
      if (seen.has(key)) continue
      this.remove(key)
      this.notify((h) => h.delete?.({tombstone: true, key, obj: old}))
    }
    this.lastRV = resourceVersion
  }

  private async watchLoop(): Promise<void> {
    let backoff = BACKOFF_INITIAL_MS
    let needList = false
    while (!this.stopped) {
      if (needList) {
        try {
          await this.relist()
          needList = false
        } catch (err) {
          this.opts.warn?.(
            `re-listing ${this.opts.resource} failed: ${message(err)}; retrying in ${backoff} ms`,
          )
          await this.sleep(backoff)
          backoff = Math.min(backoff * 2, BACKOFF_MAX_MS)
          continue
        }
      }
      if (this.stopped) break
      const started = this.clock.now()
      const timeoutSeconds = Math.floor(MIN_WATCH_TIMEOUT_S * (1 + Math.random()))
      this.opts.debug?.(`watching ${this.opts.resource} from resourceVersion ${this.lastRV}`)
      this.watch = openWatch(
        this.opts.conn,
        {
          path: this.path(),
          resourceVersion: this.lastRV,
          timeoutSeconds,
          labelSelector: this.opts.labelSelector,
          hooks: this.opts.api.hooks,
          userAgent: this.opts.api.userAgent,
        },
        (e) => this.onWatchEvent(e),
      )
      const streamEnd = await this.watch.ended
      const end: WatchEnd & {relist?: boolean} = this.errorEnd ?? streamEnd
      this.errorEnd = undefined
      if (this.stopped) break
      if (this.clock.now() - started > 2 * BACKOFF_MAX_MS) backoff = BACKOFF_INITIAL_MS
      switch (end.kind) {
        case 'closed':
          // The server ended the watch (its timeout, or a restart): resume where it left off.
          this.opts.debug?.(`watch of ${this.opts.resource} closed; resuming from ${this.lastRV}`)
          // upstream: a watch that ends at once is a "very short watch", retried with back-off.
          if (this.clock.now() - started < 1000) {
            await this.sleep(backoff)
            backoff = Math.min(backoff * 2, BACKOFF_MAX_MS)
          }
          continue
        case 'expired':
          this.opts.debug?.(
            `resourceVersion ${this.lastRV} of ${this.opts.resource} is too old; listing again`,
          )
          needList = true
          continue
        case 'error':
          this.opts.warn?.(
            `watch of ${this.opts.resource} failed: ${message(end.error)}; retrying in ${backoff} ms`,
          )
          await this.sleep(backoff)
          backoff = Math.min(backoff * 2, BACKOFF_MAX_MS)
          // A refused or dropped connection resumes the watch; anything else lists again.
          needList = end.relist === true || !isConnectionError(end.error)
      }
    }
  }

  /** Set by an ERROR event (other than 410): the stream is stopped and the cache listed again. */
  private errorEnd: (WatchEnd & {relist: boolean}) | undefined

  private onWatchEvent(e: WatchEvent): void {
    if (this.stopped) return
    const bad = malformedEvent(e, this.opts.resource)
    if (bad !== undefined) {
      // upstream: the reflector's watch handler stops on an event it cannot decode, and starts over.
      this.errorEnd = {
        kind: 'error',
        error: new Error(
          `the server sent a watch event of ${this.opts.resource} that cannot be used: ${bad}`,
        ),
        relist: true,
      }
      this.watch?.stop()
      return
    }
    const meta = (e.object.metadata ?? {}) as {resourceVersion?: string}
    switch (e.type) {
      case 'BOOKMARK':
        if (meta.resourceVersion) this.lastRV = meta.resourceVersion
        return
      case 'ERROR':
        this.errorEnd = {
          kind: 'error',
          error: new Error(String(e.object.message ?? 'watch error')),
          relist: true,
        }
        this.watch?.stop()
        return
      case 'ADDED':
      case 'MODIFIED': {
        const obj = this.prepare(e.object as unknown as T)
        this.apply('upsert', objectKey(obj), obj)
        break
      }
      case 'DELETED': {
        const obj = this.prepare(e.object as unknown as T)
        const key = objectKey(obj)
        this.remove(key)
        this.notify((h) => h.delete?.(obj))
        break
      }
      default:
        return
    }
    if (meta.resourceVersion) this.lastRV = meta.resourceVersion
  }

  /** upstream: processDeltas — an object already cached is an update, otherwise an add. */
  private apply(_op: 'upsert', key: string, obj: T): void {
    const old = this.items.get(key)
    if (old) this.unindex(key, old)
    this.items.set(key, obj)
    this.index(key, obj)
    this.changes++
    if (old) this.notify((h) => h.update?.(old, obj))
    else this.notify((h) => h.add?.(obj))
  }

  private remove(key: string): void {
    const old = this.items.get(key)
    if (!old) return
    this.unindex(key, old)
    this.items.delete(key)
    this.entered.delete(key)
    this.changes++
  }

  private index(key: string, obj: T): void {
    this.entered.set(key, ++this.enterCount)
    for (const [name, fn] of Object.entries(this.indexers)) {
      const byValue = this.indexes.get(name) as Map<string, Map<string, T>>
      for (const value of fn(obj)) {
        let bucket = byValue.get(value)
        if (!bucket) byValue.set(value, (bucket = new Map()))
        bucket.set(key, obj)
      }
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const byValue = this.indexes.get(name) as Map<string, Map<string, T>>
      for (const value of fn(obj)) {
        const bucket = byValue.get(value)
        bucket?.delete(key)
        if (bucket?.size === 0) byValue.delete(value)
      }
    }
  }

  private notify(call: (h: InformerHandlers<T>) => void): void {
    for (const h of this.handlers) {
      try {
        call(h)
      } catch (err) {
        this.opts.warn?.(`event handler for ${this.opts.resource} failed: ${message(err)}`)
      }
    }
  }

  /**
   * Objects as the cache holds them: typed (lists omit apiVersion/kind), without managedFields
   * (kube-controller-manager's informers drop them too), frozen in tests.
   */
  private prepare(raw: T): T {
    const {managedFields: _m, ...metadata} = raw.metadata
    let obj = {...raw, metadata} as T
    if (this.opts.transform) obj = this.opts.transform(obj)
    if (this.opts.freeze) deepFreeze(obj)
    return obj
  }

  private scheduleResync(): void {
    const period = this.opts.resyncMs ?? 0
    if (period <= 0 || this.stopped) return
    this.resyncTimer = this.clock.setTimer(period, () => {
      for (const obj of this.items.values()) this.notify((h) => h.update?.(obj, obj))
      this.scheduleResync()
    })
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const handle = this.clock.setTimer(ms, () => {
        this.sleepTimer = undefined
        resolve()
      })
      this.sleepTimer = {handle, wake: resolve}
    })
  }
}

/** What makes a watch event unusable, or undefined: its shape, and its object's as a list item's. */
function malformedEvent(e: unknown, resource: ListedResource): string | undefined {
  const event = e as Partial<WatchEvent> | null
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    return fieldErrorText(typeError([], event, 'an object'))
  }
  const object = event.object as unknown
  if (object == null) return fieldErrorText(required(['object']))
  if (typeof object !== 'object' || Array.isArray(object)) {
    return fieldErrorText(typeError(['object'], object, 'an object'))
  }
  if (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED') return undefined
  const bad = malformed(object, resource)
  if (!bad) return undefined
  const who = identity(object, resource)
  return who
    ? `${who}, which no API server stores: ${fieldErrorText(bad)}`
    : fieldErrorText({...bad, path: ['object', ...bad.path]})
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** A refused, reset or dropped connection: the watch resumes where it was, without a new list. */
function isConnectionError(err: Error): boolean {
  const code = (err as {code?: string}).code ?? ''
  return (
    err.name === 'ConnectionError' ||
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(code) ||
    /ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|aborted|timed out/.test(err.message)
  )
}
