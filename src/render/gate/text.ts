// The rollout gate's text outputs: one plain line per change per Deployment (no terminal), the
// report of each failed Deployment, the closing summary, GitHub Actions annotations and JUnit XML.
// All read the rows built by status/gate.ts.

import {type GateRow, type GateSummary, gateRef} from '../../status/gate.js'
import {humanDuration, parseTime} from '../../util/duration.js'
import {escapeControl} from '../../util/terminal.js'
import {eventInterval, groupEvents} from '../explain-groups.js'
import {clock} from '../watch/lines.js'

const refOf = gateRef

/** What a row's phase reads as in a line. */
export function phaseWord(r: GateRow): string {
  switch (r.phase) {
    case 'Done':
      return 'done'
    case 'Failed':
      return 'FAILED'
    case 'Waiting':
      return 'waiting'
    default:
      return 'progressing'
  }
}

/** `3/3 ready, 3 updated` */
export function countsText(r: GateRow): string {
  const c = r.replicas
  return `${c.ready}/${c.desired} ready, ${c.updated} updated`
}

/** One line for a row that changed: time, Deployment, phase, counts, reason code (and message). */
export function rowLine(r: GateRow, time: number): string {
  const head = `${clock(time)} deployment ${refOf(r)} ${phaseWord(r)}`
  if (r.phase === 'Waiting') return escapeControl(`${head}: ${r.message}`)
  const tail =
    r.phase === 'Done' ? r.rolloutStatus : r.phase === 'Failed' ? `${r.reason}: ${r.message}` : r.reason
  const eta = r.phase === 'Progressing' && r.eta !== undefined ? ` (ETA ~${humanDuration(r.eta)})` : ''
  return escapeControl(`${head} ${countsText(r)}${eta}: ${tail}`)
}

/**
 * A failed Deployment's report: the verdict and its cause as explain gives them, what kubectl says,
 * the failing pod, the Warning events grouped, the last lines of the failing container's log.
 */
export function failureReport(r: GateRow, logLines: number, now: number): string[] {
  const out: string[] = []
  out.push(`deployment ${refOf(r)} failed: ${r.reason} (verdict ${r.verdict.code}/${r.verdict.reason})`)
  out.push(`  ${r.message}`)
  if (r.verdict.message !== r.message) out.push(`  ${r.verdict.message}`)
  out.push(`  kubectl rollout status: ${r.rolloutStatus}`)
  out.push(...toolLines(r, '  '))
  const f = r.failure
  if (f?.pod) out.push(`  pod: ${f.pod.name}${f.pod.container ? ` (container ${f.pod.container})` : ''}`)
  if (f && f.events.length > 0) {
    // Grouped as explain groups them: the same message about several objects is one line.
    out.push('  Warning events:')
    for (const g of groupEvents(f.events).slice(0, 8)) {
      const first = g.objects[0]
      const more = g.objects.length > 1 ? ` and ${g.objects.length - 1} more` : ''
      out.push(`    ${g.reason} ${eventInterval(g, now)} ${first?.kind}/${first?.name}${more}: ${g.message}`)
    }
  }
  if (f?.log) {
    const which = f.log.previous ? 'previous instance, ' : ''
    if (f.log.lines.length === 0) out.push(`  log of container ${f.log.container} (${which}empty)`)
    else {
      out.push(`  log of container ${f.log.container} (${which}last ${f.log.lines.length} lines):`)
      for (const line of f.log.lines) out.push(`    | ${line}`)
    }
  } else if (f?.logError && logLines > 0) {
    out.push(`  log not read: ${f.logError}`)
  }
  return out.map(escapeControl)
}

/** kstatus's and Argo CD's answers beside kubectl's, and why they part when they do. */
function toolLines(r: GateRow, indent: string): string[] {
  const t = r.tools
  if (!t) return []
  const said = (status: string, message: string) => (message ? `${status} (${message})` : status)
  const out = [
    `${indent}kstatus: ${said(t.kstatus.status, t.kstatus.message)}; Argo CD: ${said(t.argocd.status, t.argocd.message)}`,
  ]
  if (t.disagreement) out.push(`${indent}they disagree: ${t.disagreement}`)
  return out
}

/**
 * Where kubectl rollout status, kstatus and Argo CD stand on the Deployments, one line: that they
 * agree on each, or for each Deployment where they part, the three answers and why.
 */
export function toolsSummary(rows: readonly GateRow[]): string[] {
  const known = rows.filter((r) => r.tools)
  if (known.length === 0) return []
  const split = known.filter((r) => r.tools && !r.tools.agree)
  if (split.length === 0) {
    return [
      `kubectl rollout status, kstatus and Argo CD agree on ${known.length === 1 ? 'the Deployment' : `each of the ${known.length} Deployments`}.`,
    ]
  }
  return split.map((r) => {
    const t = r.tools!
    return `deployment ${refOf(r)}: kubectl ${t.kubectl.status}, kstatus ${t.kstatus.status}, Argo CD ${t.argocd.status}: ${t.disagreement}`
  })
}

/** The closing lines: each failed Deployment's report, where the three tools part, then the summary sentence. */
export function summaryLines(s: GateSummary, logLines: number): string[] {
  const out: string[] = []
  const now = parseTime(s.now) ?? Date.now()
  for (const r of s.items) if (r.phase === 'Failed') out.push(...failureReport(r, logLines, now))
  out.push(...toolsSummary(s.items).map(escapeControl))
  const word = {Succeeded: 'passed', Failed: 'failed', TimedOut: 'timed out', Interrupted: 'interrupted'}[
    s.result
  ]
  out.push(escapeControl(`rollout gate ${word}: ${s.message}`))
  return out
}

/** GitHub Actions' workflow command escaping of a message (data) or a property value. */
function ghData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

function ghProperty(s: string): string {
  return ghData(s).replace(/:/g, '%3A').replace(/,/g, '%2C')
}

/** One `::error` line per Deployment that failed the gate (failed, or still pending at the timeout). */
export function githubAnnotations(s: GateSummary): string[] {
  const out: string[] = []
  for (const r of s.items) {
    if (r.phase === 'Done') continue
    if (r.phase !== 'Failed' && s.result !== 'TimedOut') continue
    const reason = r.phase === 'Failed' ? r.reason : 'Timeout'
    const title = `deployment ${refOf(r)} ${r.phase === 'Failed' ? 'failed' : 'timed out'}: ${reason}`
    const log = r.failure?.log?.lines.slice(-5) ?? []
    const body = [r.message, ...(log.length > 0 ? ['last log lines:', ...log] : [])].join('\n')
    out.push(`::error title=${ghProperty(title)}::${ghData(body)}`)
  }
  return out
}

function xml(s: string): string {
  return (
    s
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      // XML 1.0 allows no other control characters.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
  )
}

/** JUnit XML: one testcase per Deployment, a failure with the cause and the log tail. */
export function junitXml(s: GateSummary, logLines: number): string {
  const end = parseTime(s.now) ?? Date.now()
  const start = end - s.elapsed
  const secs = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3)
  const failures = s.items.filter((r) => r.phase !== 'Done').length
  const cases = s.items.map((r) => {
    const decided = parseTime(r.decidedAt)
    const time = secs((decided ?? end) - start)
    const open = `    <testcase classname="${r.context ? `${xml(r.context)}.` : ''}deployment.${xml(r.deployment.namespace)}" name="${xml(r.deployment.name)}" time="${time}"`
    if (r.phase === 'Done') return `${open}/>`
    const type = r.phase === 'Failed' ? r.reason : s.result === 'TimedOut' ? 'Timeout' : s.result
    const message = r.phase === 'Failed' ? r.message : `not done: ${r.reason}: ${r.message}`
    const body = r.phase === 'Failed' ? failureReport(r, logLines, end).join('\n') : rowLine(r, end)
    return `${open}>\n      <failure type="${xml(type)}" message="${xml(message)}">${xml(body)}</failure>\n    </testcase>`
  })
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="rollout gate" tests="${s.items.length}" failures="${failures}" errors="0" time="${secs(s.elapsed)}">`,
    `  <testsuite name="rollout gate" tests="${s.items.length}" failures="${failures}" errors="0" skipped="0" time="${secs(s.elapsed)}" timestamp="${xml(new Date(start).toISOString().replace(/\.\d+Z$/, 'Z'))}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n')
}
