// The file a recording is appended to, kept under --max-size. Lines are written as they come
// (synchronously: the order of the lines is the order of the changes). When the file grows past
// its bound, it is rewritten without the oldest intermediate pod updates, then Event updates: a
// MODIFIED line of an object that a later line of the same object supersedes, so every object's
// latest state, its creation and its deletion stay, as do every Deployment and ReplicaSet change
// (what the controller reads and writes). The header counts what was dropped. A delta line whose
// predecessor was dropped is written again against the line of its object that stays before it
// (or whole, ./delta.ts), so every delta still follows a line of its object.

import {closeSync, openSync, readFileSync, readSync, renameSync, unlinkSync, writeSync} from 'node:fs'
import {errorMessage} from '../../controller/api/errors.js'
import {InputError} from '../../errors.js'
import {applyMergePatch, deltaOf} from './delta.js'
import {
  type ChangeType,
  changeLine,
  headerLine,
  nanoTime,
  type RecordedKind,
  type TimelineHeader,
} from './format.js'

interface LineMeta {
  offset: number
  bytes: number
  kind: RecordedKind | 'RELIST'
  type: ChangeType | 'RELIST'
  time: number
  /** A later line of the same object follows. */
  superseded: boolean
  /** The object's `Kind/namespace/name` (undefined for a RELIST line). */
  key: string | undefined
  /** A delta line: a patch against the object's line before it. */
  delta: boolean
}

/** What append() is told about a line. */
export interface LineInfo {
  kind: RecordedKind | 'RELIST'
  type: ChangeType | 'RELIST'
  time: number
  /** `Kind/namespace/name`; undefined for a RELIST line. */
  key?: string
  /** A delta line (./delta.ts). */
  delta?: boolean
}

/** Compaction stops once the file is this fraction of the bound, so it does not run at every line. */
const COMPACT_TO = 0.8

export class RecordingFile {
  private fd: number | undefined
  private lines: LineMeta[] = []
  private readonly lastOf = new Map<string, number>()
  private headerBytes = 0
  private size = 0
  private readonly compacted = {podUpdates: 0, eventUpdates: 0, through: 0}
  private locked = false

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
    private header: TimelineHeader,
  ) {}

  /**
   * Takes the file for this process: FILE.lock, created only where none is, holds its pid. Another
   * recorder's lock stops this one (two writers would truncate and compact each other's lines);
   * the lock of a process that is gone (killed, say) is taken over. Released by close().
   */
  lock(): void {
    if (this.locked) return
    const lockPath = `${this.path}.lock`
    for (let attempt = 0; ; attempt++) {
      let fd: number
      try {
        fd = openSync(lockPath, 'wx')
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) {
          throw new InputError(`cannot write the recording ${this.path}: ${errorMessage(err)}`)
        }
        const holder = lockHolder(lockPath)
        // A lock that names no pid is being written by the recorder taking it: not taken over.
        if (holder === undefined || isRunning(holder)) {
          throw new InputError(
            `${this.path} is being recorded by another process${holder === undefined ? '' : ` (pid ${holder})`}: give another -O FILE, or remove ${lockPath} if that process is not a recorder`,
          )
        }
        try {
          unlinkSync(lockPath)
        } catch {}
        continue
      }
      try {
        writeSync(fd, `${process.pid}\n`)
      } finally {
        closeSync(fd)
      }
      this.locked = true
      return
    }
  }

  /** Creates (or truncates) the file and writes the header. */
  open(header: TimelineHeader = this.header): void {
    this.lock()
    this.header = header
    // Read back when compacting: opened for reading too.
    this.fd = openSync(this.path, 'w+')
    const text = headerLine(header)
    this.headerBytes = Buffer.byteLength(text)
    writeSync(this.fd, text)
    this.size = this.headerBytes
  }

  get bytes(): number {
    return this.size
  }

  /** Appends one line; `key` names the object (undefined for a RELIST line). */
  append(line: string, meta: LineInfo): void {
    if (this.fd === undefined) throw new Error('the recording file is not open')
    const bytes = Buffer.byteLength(line)
    writeSync(this.fd, line)
    const index = this.lines.length
    this.lines.push({
      offset: this.size,
      bytes,
      kind: meta.kind,
      type: meta.type,
      time: meta.time,
      superseded: false,
      key: meta.key,
      delta: meta.delta === true,
    })
    this.size += bytes
    if (meta.key !== undefined) {
      const before = this.lastOf.get(meta.key)
      if (before !== undefined) (this.lines[before] as LineMeta).superseded = true
      if (meta.type === 'DELETED') this.lastOf.delete(meta.key)
      else this.lastOf.set(meta.key, index)
    }
    if (this.size > this.maxBytes) this.compact()
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
    if (this.locked) {
      this.locked = false
      try {
        unlinkSync(`${this.path}.lock`)
      } catch {}
    }
  }

  /**
   * Drops the oldest droppable pod updates, then Event updates, and rewrites the file; again while
   * the deltas written anew leave it over the bound.
   */
  private compact(): void {
    while (this.size > this.maxBytes) this.compactOnce()
  }

  private compactOnce(): void {
    const target = this.maxBytes * COMPACT_TO
    let size = this.size
    const drop = new Set<number>()
    for (const kind of ['Pod', 'Event'] as const) {
      for (let i = 0; i < this.lines.length && size > target; i++) {
        const l = this.lines[i] as LineMeta
        if (l.kind !== kind || l.type !== 'MODIFIED' || !l.superseded) continue
        drop.add(i)
        size -= l.bytes
        if (kind === 'Pod') this.compacted.podUpdates++
        else this.compacted.eventUpdates++
        this.compacted.through = Math.max(this.compacted.through, l.time)
      }
    }
    if (size > this.maxBytes || drop.size === 0) {
      throw new InputError(
        `the recording ${this.path} reached --max-size (${this.maxBytes} bytes) and holds no more pod or Event updates to drop: give a larger --max-size or record fewer Deployments`,
      )
    }
    this.rewrite(drop)
  }

  private rewrite(drop: Set<number>): void {
    const fd = this.fd as number
    const tmp = `${this.path}.compacting`
    const out = openSync(tmp, 'w')
    const header = headerLine({
      ...this.header,
      compacted: {
        podUpdates: this.compacted.podUpdates,
        eventUpdates: this.compacted.eventUpdates,
        through: nanoTime(this.compacted.through),
      },
    })
    writeSync(out, header)
    let offset = Buffer.byteLength(header)
    const kept: LineMeta[] = []
    const moved = new Map<number, number>()
    const buffer = Buffer.alloc(64 * 1024)
    // The objects some of whose lines go: followed line by line, so that the line after a dropped
    // one can be written against the line that stays before it.
    const followed = new Set<string>()
    for (const i of drop) {
      const key = this.lines[i]?.key
      if (key !== undefined) followed.add(key)
    }
    const current = new Map<string, unknown>()
    const lastKept = new Map<string, unknown>()
    const afterDrop = new Set<string>()
    for (const [i, l] of this.lines.entries()) {
      const key = l.key !== undefined && followed.has(l.key) ? l.key : undefined
      let bytes = l.bytes <= buffer.length ? buffer : Buffer.alloc(l.bytes)
      let length = l.bytes
      if (key !== undefined || !drop.has(i)) readSync(fd, bytes, 0, l.bytes, l.offset)
      let delta = l.delta
      if (key !== undefined) {
        const v = JSON.parse(bytes.toString('utf8', 0, l.bytes)) as {object?: unknown; patch?: unknown}
        const object = v.patch !== undefined ? applyMergePatch(current.get(key), v.patch) : v.object
        current.set(key, object)
        if (drop.has(i)) {
          afterDrop.add(key)
          continue
        }
        if (afterDrop.has(key) && l.delta) {
          const type = l.type as 'MODIFIED' | 'DELETED'
          const again = deltaOf(l.time, type, lastKept.get(key), object)
          bytes = Buffer.from(again ?? changeLine(l.time, type, object))
          length = bytes.length
          delta = again !== undefined
        }
        afterDrop.delete(key)
        lastKept.set(key, object)
      } else if (drop.has(i)) continue
      writeSync(out, bytes, 0, length)
      moved.set(i, kept.length)
      kept.push({...l, offset, bytes: length, delta})
      offset += length
    }
    closeSync(out)
    closeSync(fd)
    renameSync(tmp, this.path)
    this.fd = openSync(this.path, 'a+')
    for (const [key, i] of this.lastOf) {
      const j = moved.get(i)
      if (j === undefined) this.lastOf.delete(key)
      else this.lastOf.set(key, j)
    }
    this.lines = kept
    this.size = offset
  }
}

/** The pid a lock file names; undefined when it names none. */
function lockHolder(lockPath: string): number | undefined {
  try {
    const pid = Number(readFileSync(lockPath, 'utf8').trim())
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
