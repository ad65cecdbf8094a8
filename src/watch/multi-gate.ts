// The gate over several clusters (--context repeated, --all-contexts): one LiveGate per context,
// run together, their rows tagged with their context and handed out as one gate's. A context that
// cannot be reached (no connection, or its informers cannot list) is a failed row of its own, with
// its error, and the other contexts' gates run on.

import type {GateRow} from '../status/gate.js'
import type {DeploymentRef} from '../status/item.js'
import type {GateEnd, GateTargets, GateUpdate, LiveGate} from './gate.js'

/** What runs a gate to its end: a LiveGate, or several (MultiGate). */
export interface GateRunner {
  run(onUpdate: (u: GateUpdate) => void): Promise<GateEnd>
  stop(): Promise<void>
}

export type ContextPart =
  | {context: string; gate: LiveGate; targets?: GateTargets}
  /** Could not connect: the error, and what was to be waited for there when known (-f). */
  | {context: string; error: string; targets?: GateTargets}

/**
 * The failed rows of a context that cannot be read (ContextUnreachable) or holds nothing to wait for
 * (NothingSelected): one per Deployment waited for there when known (-f, NAMEs), else one for it.
 */
export function unreachableRows(
  context: string,
  error: string,
  targets?: GateTargets,
  reason: 'ContextUnreachable' | 'NothingSelected' = 'ContextUnreachable',
): GateRow[] {
  const refs: DeploymentRef[] = targets?.keys?.length
    ? targets.keys
    : [{namespace: targets?.namespaces?.join(',') ?? '*', name: '*'}]
  return refs.map((ref) => ({
    context,
    deployment: {namespace: ref.namespace, name: ref.name},
    verdict: {code: 'Progressing', reason, message: `context "${context}": ${error}`},
    phase: 'Failed',
    reason,
    message:
      reason === 'ContextUnreachable'
        ? `context "${context}" cannot be read: ${error}`
        : `context "${context}": ${error}`,
    rolloutStatus: error,
    replicas: {desired: 0, updated: 0, ready: 0, available: 0},
  }))
}

export class MultiGate implements GateRunner {
  private readonly start = Date.now()
  /** The latest rows of each context, in the order the contexts were given. */
  private readonly rows = new Map<string, GateRow[]>()
  private stopped = false

  constructor(private readonly parts: readonly ContextPart[]) {
    for (const p of parts)
      this.rows.set(p.context, 'gate' in p ? [] : unreachableRows(p.context, p.error, p.targets))
  }

  async run(onUpdate: (u: GateUpdate) => void): Promise<GateEnd> {
    const all = () => [...this.rows.values()].flat()
    const tag = (context: string, rows: readonly GateRow[]) => rows.map((r) => ({...r, context}))
    const unreachable = all()
    if (unreachable.length > 0) {
      const now = Date.now()
      onUpdate({time: now, elapsed: now - this.start, rows: unreachable, changed: unreachable})
    }
    const ends = await Promise.all(
      this.parts.map(async (p): Promise<GateEnd | undefined> => {
        if (!('gate' in p)) return undefined
        try {
          const end = await p.gate.run((u) => {
            this.rows.set(p.context, tag(p.context, u.rows))
            onUpdate({...u, elapsed: u.time - this.start, rows: all(), changed: tag(p.context, u.changed)})
          })
          this.rows.set(p.context, tag(p.context, end.rows))
          if (end.nothingSelected !== undefined) {
            // Nothing to wait for in this context: said as its own row, not the whole gate's end.
            this.rows.set(
              p.context,
              unreachableRows(p.context, end.nothingSelected, undefined, 'NothingSelected'),
            )
          }
          return end
        } catch (err) {
          const rows = unreachableRows(p.context, err instanceof Error ? err.message : String(err), p.targets)
          this.rows.set(p.context, rows)
          const now = Date.now()
          onUpdate({time: now, elapsed: now - this.start, rows: all(), changed: rows})
          return undefined
        }
      }),
    )
    const now = Date.now()
    const rows = all()
    const timedOut = ends.find((e) => e?.timedOut !== undefined)?.timedOut
    const interrupted = this.stopped || ends.some((e) => e?.interrupted)
    const failed = rows.some((r) => r.phase === 'Failed') || timedOut !== undefined
    return {
      rows,
      time: now,
      elapsed: now - this.start,
      ...(timedOut !== undefined ? {timedOut} : {}),
      ...(interrupted ? {interrupted: true} : {}),
      code: interrupted ? 130 : failed ? 1 : 0,
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    await Promise.all(this.parts.map((p) => ('gate' in p ? p.gate.stop() : undefined)))
  }
}
