// Output of `dry-run sync`: the SyncResult document (-o json|yaml) or, per Deployment, the path
// through the controller, a table of the writes, the events and the requeue (-o table|wide).

import {isWrite} from '../cluster/action.js'
import {RevisionAnnotation} from '../controller/util/deployment-util.js'
import {type BeforeLookup, ChangeTracker} from '../pass/change.js'
import type {DeploymentResult, Requeue, SyncResult} from '../pass/result.js'
import {terminalSafe} from '../util/terminal.js'
import {wrap} from './explain.js'
import {fitOrSplit} from './explain-table.js'
import {isStructured, type OutputFormat, renderStructured} from './output.js'
import {styler} from './style.js'
import {kubectlTable} from './table.js'

export interface RenderOptions {
  format: OutputFormat
  /** Tables without their header row (--no-headers). */
  noHeaders?: boolean
  /** The objects as they were before the pass, for the CHANGE column. */
  before: BeforeLookup
  /** --dry-run=server: each RESULT says so, as kubectl's `(server dry run)`. */
  serverDryRun?: boolean
  color?: boolean
  /** Wrap to this many columns, at word boundaries (the terminal's); undefined: never wrap. */
  width?: number
}

export async function renderSyncResult(result: SyncResult, options: RenderOptions): Promise<string> {
  if (isStructured(options.format)) return renderStructured(result, options.format)
  // Text: every string from the cluster or the files with its control characters escaped.
  const before: BeforeLookup = (...key) => terminalSafe(options.before(...key))
  const tracker = new ChangeTracker(before)
  const blocks: string[] = []
  for (const r of terminalSafe(result).items) blocks.push(await renderDeployment(r, tracker, options))
  return blocks.length === 0 ? '' : `${blocks.join('\n\n')}\n`
}

async function renderDeployment(r: DeploymentResult, tracker: ChangeTracker, options: RenderOptions) {
  const style = styler(options.color ?? false)
  const wide = options.format.kind === 'wide'
  const width = options.width
  const w = (text: string, first = '', rest = '  ') =>
    width === undefined ? `${first}${text}` : wrap(text, width, first, rest)
  const lines = [style('bold', `deployment ${r.deployment.namespace}/${r.deployment.name}`)]
  lines.push(w(r.path.length > 0 ? r.path.join(' → ') : '<none>', 'path: '))
  const writes = r.actions.filter(isWrite)
  if (writes.length === 0) {
    lines.push('actions: none')
  } else {
    // Status writes go to another endpoint with other permissions: name it in the RESOURCE column.
    const resource = (a: (typeof writes)[number]) =>
      a.subresource ? `${a.resource}/${a.subresource}` : a.resource
    const live = writes.some((a) => a.outcome !== undefined)
    // --retries: every attempt's writes are listed, each with its attempt.
    const attempts = writes.some((a) => (a.attempt ?? 1) > 1)
    // -o wide: what the object written is (its replicas, revision and images), and every field
    // that changes.
    const head = [
      'VERB',
      'RESOURCE',
      'NAME',
      ...(wide ? ['REPLICAS', 'REVISION', 'IMAGES'] : []),
      'CHANGE',
      ...(live ? ['RESULT'] : []),
      ...(attempts ? ['ATTEMPT'] : []),
    ]
    const rows = writes.map((a) => {
      const change = tracker.describe(a)
      const result =
        a.outcome === 'failed'
          ? `failed: ${a.error ?? ''}`
          : a.outcome === 'succeeded' && options.serverDryRun
            ? 'succeeded (server dry run)'
            : (a.outcome ?? '')
      return [
        a.verb,
        resource(a),
        a.name,
        ...(wide ? writtenObjectColumns(a.object) : []),
        wide ? change.details.join('\n') || change.summary : change.summary,
        ...(live ? [result] : []),
        ...(attempts ? [String(a.attempt ?? 1)] : []),
      ]
    })
    lines.push(
      width === undefined
        ? await kubectlTable(options.noHeaders ? undefined : head, rows)
        : await fitted(head, rows, width, options.noHeaders ?? false),
    )
  }
  if (r.events.length === 0) {
    lines.push('events: none')
  } else {
    lines.push('events:')
    for (const e of r.events) {
      const type = e.type === 'Warning' ? style('yellow', e.type) : e.type
      lines.push(w(`${type}  ${e.reason}  ${e.message}`, '  ', '    '))
    }
  }
  lines.push(`requeue: ${describeRequeue(r.requeue)}`)
  if (r.error !== null) lines.push(style('red', w(r.error, 'error: ')))
  return lines.join('\n')
}

/**
 * The writes fitted to the width: CHANGE wrapped inside its column, or, when that leaves it too
 * narrow, listed under the table by NAME.
 */
async function fitted(head: string[], rows: string[][], width: number, noHeaders: boolean): Promise<string> {
  const table = await fitOrSplit(head, rows, {
    width,
    wrapColumn: head.indexOf('CHANGE'),
    minWrapWidth: 16,
    keyColumn: head.indexOf('NAME'),
    noHeaders,
  })
  return table.split === undefined ? table.table : `${table.table}\n${table.split}`
}

/** REPLICAS, REVISION and IMAGES of the object a write sends (`<none>` for a delete or a patch). */
function writtenObjectColumns(object: unknown): string[] {
  const o = object as
    | {
        metadata?: {annotations?: Record<string, string>}
        spec?: {replicas?: number; template?: {spec?: {containers?: Array<{image?: string}>}}}
      }
    | undefined
  const images = (o?.spec?.template?.spec?.containers ?? []).map((c) => c.image ?? '')
  return [
    o?.spec?.replicas === undefined ? '<none>' : String(o.spec.replicas),
    o?.metadata?.annotations?.[RevisionAnnotation] ?? '<none>',
    images.length > 0 ? images.join(',') : '<none>',
  ]
}

export function describeRequeue(q: Requeue | null): string {
  if (q === null) return 'none'
  if (q.kind === 'rateLimited') return 'rate limited'
  return `after ${Number((q.seconds ?? 0).toFixed(3))}s`
}
