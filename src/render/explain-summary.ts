// `explain --summary`: one kubectl-style row per Deployment. TOOLS says whether kubectl rollout
// status, kstatus and Argo CD agree; -o wide adds each one's answer (kubectl's as Done, Waiting or
// Error), as kubectl's -o wide adds columns.

import type {ExplainSummary} from '../explain/summary.js'
import type {OutputFormat} from './output.js'
import {kubectlTable} from './table.js'

export async function renderSummary(
  summary: ExplainSummary,
  options: {format: OutputFormat; noHeaders: boolean},
): Promise<string> {
  const wide = options.format.kind === 'wide'
  // Several contexts: which one each row is from, first (a row has it only then).
  const contexts = summary.items.some((r) => r.context !== undefined)
  const head = [
    ...(contexts ? ['CONTEXT'] : []),
    'DEPLOYMENT',
    'VERDICT',
    'READY',
    'UPDATED',
    'AVAILABLE',
    'DEADLINE',
    'TOOLS',
    ...(wide ? ['KUBECTL', 'KSTATUS', 'ARGOCD'] : []),
  ]
  const rows = summary.items.map((r) => [
    ...(contexts ? [r.context ?? ''] : []),
    `${r.deployment.namespace}/${r.deployment.name}`,
    r.verdict.reason === r.verdict.code ? r.verdict.code : `${r.verdict.code} (${r.verdict.reason})`,
    `${r.ready}/${r.desired}`,
    String(r.updated),
    String(r.available),
    r.deadline.text,
    r.tools.agree ? 'agree' : 'differ',
    ...(wide ? [r.tools.kubectl.status, r.tools.kstatus.status, r.tools.argocd.status] : []),
  ])
  return `${await kubectlTable(options.noHeaders ? undefined : head, rows)}\n`
}
