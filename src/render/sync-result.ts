// Output of `dry-run sync`: the SyncResult document (-o json|yaml) or, per Deployment, the path
// through the controller, a table of the writes, the events and the requeue (-o table|wide).

import {isWrite} from '../cluster/action.js'
import {type BeforeLookup, ChangeTracker} from '../pass/change.js'
import type {DeploymentResult, Requeue, SyncResult} from '../pass/result.js'
import {terminalSafe} from '../util/terminal.js'
import {isStructured, type OutputFormat, renderStructured} from './output.js'
import {styler} from './style.js'
import {kubectlTable} from './table.js'

export interface RenderOptions {
  format: OutputFormat
  /** Tables without their header row (--no-headers). */
  noHeaders?: boolean
  /** The objects as they were before the pass, for the CHANGE column. */
  before: BeforeLookup
  color?: boolean
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
  const lines = [style('bold', `deployment ${r.deployment.namespace}/${r.deployment.name}`)]
  lines.push(`path: ${r.path.length > 0 ? r.path.join(' → ') : '<none>'}`)
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
    const head = [
      'VERB',
      'RESOURCE',
      'NAME',
      'CHANGE',
      ...(live ? ['RESULT'] : []),
      ...(attempts ? ['ATTEMPT'] : []),
    ]
    const rows = writes.map((a) => {
      const change = tracker.describe(a)
      const result = a.outcome === 'failed' ? `failed: ${a.error ?? ''}` : (a.outcome ?? '')
      return [
        a.verb,
        resource(a),
        a.name,
        wide ? change.details.join('\n') || change.summary : change.summary,
        ...(live ? [result] : []),
        ...(attempts ? [String(a.attempt ?? 1)] : []),
      ]
    })
    lines.push(await kubectlTable(options.noHeaders ? undefined : head, rows))
  }
  if (r.events.length === 0) {
    lines.push('events: none')
  } else {
    lines.push('events:')
    for (const e of r.events) {
      const type = e.type === 'Warning' ? style('yellow', e.type) : e.type
      lines.push(`  ${type}  ${e.reason}  ${e.message}`)
    }
  }
  lines.push(`requeue: ${describeRequeue(r.requeue)}`)
  if (r.error !== null) lines.push(style('red', `error: ${r.error}`))
  return lines.join('\n')
}

export function describeRequeue(q: Requeue | null): string {
  if (q === null) return 'none'
  if (q.kind === 'rateLimited') return 'rate limited'
  return `after ${Number((q.seconds ?? 0).toFixed(3))}s`
}
