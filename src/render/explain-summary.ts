// `explain --summary`: one kubectl-style row per Deployment.

import type {ExplainSummary} from '../explain/summary.js'
import type {OutputFormat} from './output.js'
import {kubectlTable} from './table.js'

export async function renderSummary(
  summary: ExplainSummary,
  options: {format: OutputFormat; noHeaders: boolean},
): Promise<string> {
  const head = ['DEPLOYMENT', 'VERDICT', 'READY', 'UPDATED', 'AVAILABLE', 'DEADLINE']
  const rows = summary.items.map((r) => [
    `${r.deployment.namespace}/${r.deployment.name}`,
    r.verdict.reason === r.verdict.code ? r.verdict.code : `${r.verdict.code} (${r.verdict.reason})`,
    `${r.ready}/${r.desired}`,
    String(r.updated),
    String(r.available),
    r.deadline.text,
  ])
  return `${await kubectlTable(options.noHeaders ? undefined : head, rows)}\n`
}
