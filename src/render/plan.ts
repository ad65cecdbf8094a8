// Output of `plan`: the PlanResult document (-o json|yaml|name|jsonpath) or, per Deployment, a short
// report: one verdict line, the changed fields, the simulated steps, the peak, the ETA, the risks,
// and a chart of old, new and available pods over the simulated time (block characters on a
// terminal with colour; plain ASCII under NO_COLOR, TERM=dumb or when piped).

import type {FieldChange, PlanItem, PlanPoint, PlanResult} from '../plan/index.js'
import {formatCpu, formatMemory} from '../plan/requests.js'
import {isStructured, type OutputFormat, renderStructured} from './output.js'
import {type Style, styler} from './style.js'
import {kubectlTable} from './table.js'

export interface PlanRenderOptions {
  format: OutputFormat
  noHeaders?: boolean
  width: number
  color?: boolean
}

export async function renderPlanResult(result: PlanResult, options: PlanRenderOptions): Promise<string> {
  if (isStructured(options.format)) return renderStructured(result, options.format)
  const blocks: string[] = []
  // Many Deployments (plan -f DIR -R): a row each first, the details below.
  if (result.items.length > 1) blocks.push(await summaryTable(result.items, options))
  for (const item of result.items) blocks.push(await renderItem(item, options, result.kubernetesVersion))
  return blocks.length === 0 ? '' : `${blocks.join('\n\n')}\n`
}

/** One row per Deployment: whether it rolls out, its new ReplicaSet, the peak, the minimum, the ETA, the risks. */
async function summaryTable(items: PlanItem[], options: PlanRenderOptions): Promise<string> {
  const headers = ['NAMESPACE', 'NAME', 'ROLLOUT', 'REPLICASET', 'PEAK', 'MIN-AVAILABLE', 'ETA', 'RISKS']
  const rows = items.map((i) => [
    i.deployment.namespace,
    i.deployment.name,
    i.rollout ? `yes (${i.newReplicaSet})` : 'no',
    (i.newReplicaSet === 'create' ? i.steps.find((s) => s.role === 'new')?.replicaSet : i.replicaSet?.name) ??
      '<none>',
    String(i.peakPods),
    String(i.minAvailable),
    i.estimate ? secs(i.estimate.p50Seconds) : `~${secs(i.simulation.seconds)}`,
    i.risks.length === 0 ? '<none>' : [...new Set(i.risks.map((r) => r.code))].join(','),
  ])
  return kubectlTable(options.noHeaders ? undefined : headers, rows)
}

/** A field's value in a row; -o wide keeps long ones whole. */
function value(v: unknown, wide: boolean): string {
  if (v === null || v === undefined) return '<none>'
  if (typeof v === 'string') return v === '' ? '""' : v
  const s = JSON.stringify(v)
  return !wide && s.length > 60 ? `${s.slice(0, 57)}...` : s
}

function secs(s: number): string {
  if (s < 120) return `${Math.round(s * 10) / 10}s`
  const m = Math.floor(s / 60)
  const r = Math.round(s - m * 60)
  return r === 0 ? `${m}m` : `${m}m${r}s`
}

export function verdictLine(item: PlanItem): string {
  const who = `deployment.apps/${item.deployment.name}`
  if (!item.exists) return `${who}: created — its first ReplicaSet starts ${item.steps[0]?.to ?? 0} pods`
  switch (item.newReplicaSet) {
    case 'create':
      if (item.templateChanges.length === 0 && !item.steps.some((s) => s.role === 'old')) {
        return `${who}: ROLLOUT — the Deployment has no ReplicaSet yet: its first, ${item.steps[0]?.replicaSet ?? ''}, starts ${item.steps.find((s) => s.role === 'new')?.to ?? 0} pods`
      }
      return `${who}: ROLLOUT — the pod template changes: a new ReplicaSet replaces ${item.steps.find((s) => s.role === 'old')?.replicaSet ?? 'the current pods'}`
    case 'reuse':
      return `${who}: ROLLOUT — back to revision ${item.replicaSet?.revision ?? '?'}: ReplicaSet ${item.replicaSet?.name ?? ''} is scaled up again`
    default:
      return item.otherChanges.length === 0
        ? `${who}: no change — no rollout`
        : `${who}: no rollout — the pod template is unchanged (${item.otherChanges.length} other ${item.otherChanges.length === 1 ? 'field changes' : 'fields change'})`
  }
}

function changeRows(changes: FieldChange[], wide: boolean): string[][] {
  return changes.map((c) => [
    c.path,
    value(c.from, wide),
    '->',
    value(c.to, wide),
    c.defaulted ? '(defaulted)' : '',
  ])
}

/** -o wide: the pods once a step's moment is over (the chart's point at that time). */
function podsAfter(timeline: PlanPoint[], atSeconds: number): string {
  let p: PlanPoint | undefined
  for (const point of timeline) if (point.atSeconds <= atSeconds) p = point
  if (!p) return ''
  const terminating = p.terminating > 0 ? `, ${p.terminating} terminating` : ''
  return `then ${p.old} old, ${p.new} new${terminating}, ${p.available} available`
}

async function renderItem(
  item: PlanItem,
  options: PlanRenderOptions,
  kubernetesVersion: string,
): Promise<string> {
  const style = styler(options.color === true)
  const wide = options.format.kind === 'wide'
  const out: string[] = []
  const verdict = verdictLine(item)
  out.push(style('bold', item.rollout ? style('yellow', verdict) : verdict))
  const indent = (text: string) =>
    text
      .split('\n')
      .map((l) => (l === '' ? l : `  ${l}`))
      .join('\n')
  if (item.templateChanges.length > 0) {
    out.push('Pod template (starts a rollout):')
    out.push(indent(await kubectlTable(undefined, changeRows(item.templateChanges, wide))))
  }
  if (item.otherChanges.length > 0) {
    out.push('Other fields (no rollout):')
    out.push(indent(await kubectlTable(undefined, changeRows(item.otherChanges, wide))))
  }
  const sim = item.simulation
  const timing =
    sim.source === 'observed'
      ? `pods ready ${secs(sim.podReadyAfterSeconds)} after creation, the observed median`
      : `pods ready ${secs(sim.podReadyAfterSeconds)} after creation, assumed`
  if (item.steps.length > 0) {
    out.push(`Steps (simulated as kube-controller-manager ${kubernetesVersion}; ${timing}):`)
    const rows = item.steps.map((s) => [
      `+${secs(s.atSeconds)}`,
      s.replicaSet,
      s.role === 'autoscaler'
        ? 'Deployment spec.replicas'
        : `${s.role}${s.revision ? `, revision ${s.revision}` : ''}`,
      `${s.from} -> ${s.to}`,
      s.to > s.from ? 'scale up' : 'scale down',
      ...(wide ? [podsAfter(sim.timeline, s.atSeconds)] : []),
    ])
    out.push(indent(await kubectlTable(undefined, rows)))
  } else out.push(`Steps: none (simulated; ${timing})`)
  const extra = item.extraAtPeak
  // Beyond cpu and memory: ephemeral-storage, hugepages in bytes; extended resources (nvidia.com/gpu) as counts.
  const others = Object.entries(extra.resources ?? {}).map(
    ([name, v]) =>
      `${name} ${name === 'ephemeral-storage' || name.startsWith('hugepages-') ? formatMemory(v) : String(v)}`,
  )
  const asked = [
    `cpu ${formatCpu(extra.cpuMillicores)}`,
    `memory ${formatMemory(extra.memoryBytes)}`,
    ...others,
  ]
  const asks =
    extra.cpuMillicores > 0 || extra.memoryBytes > 0 || others.length > 0
      ? `, requesting ${asked.slice(0, -1).join(', ')} and ${asked.at(-1)} more`
      : extra.pods > 0
        ? ' (the template sets no CPU or memory requests)'
        : ''
  const more = extra.pods > 0 ? `, ${extra.pods} more than now${asks}` : ''
  const withTerminating =
    item.peakPodsWithTerminating > item.peakPods
      ? ` (${item.peakPodsWithTerminating} counting terminating ones)`
      : ''
  out.push(
    `Peak: ${item.peakPods} pods${withTerminating}${more}; at least ${item.minAvailable} available throughout`,
  )
  if (item.surge && item.surge.needed > 0) {
    const f = item.surge
    out.push(
      `Surge: ${f.fit} of ${f.needed} new ${f.needed === 1 ? 'pod fits' : 'pods fit'} on the ${f.nodes} ${f.nodes === 1 ? 'node' : 'nodes'}${f.reason ? ` (${f.reason})` : ''}`,
    )
  } else if (!item.surge && item.surgeNote && extra.pods > 0)
    out.push(`Surge: not checked — ${item.surgeNote}`)
  for (const f of item.autoscalers ?? []) {
    const m = f.metrics.map((x) => `${x.current}% ${x.resource}, target ${x.target}%`).join('; ')
    const during =
      f.peak.replicas > f.now
        ? `, up to ${f.peak.replicas} at +${secs(f.peak.atSeconds)} (${f.peak.pods} pods)`
        : ', no more during the rollout'
    out.push(`Autoscaler ${f.name} (${m}): ${f.now} replicas${during}`)
  }
  if (item.estimate) {
    const e = item.estimate
    out.push(
      `ETA: ${secs(e.p50Seconds)} (p50), ${secs(e.p90Seconds)} (p90), from ${e.samples} ${e.samples === 1 ? 'pod' : 'pods'} of ${e.replicaSet} (available after ${secs(e.podSeconds.p50)} p50, ${secs(e.podSeconds.p90)} p90)`,
    )
  } else {
    out.push(`ETA: unknown — ${item.estimateReason ?? ''}; simulated: ${secs(sim.seconds)} (${sim.outcome})`)
  }
  if (item.risks.length > 0) {
    out.push('Risks:')
    for (const r of item.risks) out.push(`  ${style('red', r.code)}  ${r.message}`)
  } else out.push('Risks: none found')
  const chart = renderChart(sim.timeline, sim.seconds, {
    width: Math.max(20, Math.min(60, options.width - 12)),
    fancy: options.color === true,
    style,
  })
  if (chart) out.push(chart)
  return out.join('\n')
}

/** The chart's most rows: above as many pods, a row stands for several (never one row per pod of 100,000). */
export const CHART_ROWS = 20

interface ChartOptions {
  width: number
  /** Block characters and colour; otherwise ASCII. */
  fancy: boolean
  style: Style
}

/**
 * Stacked columns over time: new pods at the bottom, old ones above, and the number of available
 * pods marked in each column. Empty when nothing moves.
 */
export function renderChart(points: PlanPoint[], seconds: number, o: ChartOptions): string {
  if (points.length < 2 || seconds <= 0) return ''
  const peak = Math.max(...points.map((p) => p.old + p.new + p.terminating))
  if (peak === 0) return ''
  // One row per pod up to CHART_ROWS pods, else CHART_ROWS rows of `unit` pods each.
  const unit = Math.ceil(peak / CHART_ROWS)
  const height = Math.ceil(peak / unit)
  const cols = o.width
  const at = (t: number): PlanPoint => {
    let last = points[0] as PlanPoint
    for (const p of points) {
      if (p.atSeconds > t) break
      last = p
    }
    return last
  }
  const samples = Array.from({length: cols}, (_, i) => at((i / (cols - 1)) * seconds))
  const glyph = o.fancy
    ? {new: o.style('green', '█'), old: '▒', gone: o.style('dim', '░'), mark: '•'}
    : {new: '#', old: 'o', gone: '.', mark: '*'}
  const label = String(height * unit).length
  const lines: string[] = []
  lines.push(
    `Pods over ${secs(seconds)}: ${glyph.new} new  ${glyph.old} old  ${glyph.gone} terminating  ${glyph.mark} available`,
  )
  // A row shows what covers at least half of its pods.
  const rows = (n: number) => Math.round(n / unit)
  for (let row = height; row >= 1; row--) {
    let line = ''
    for (const p of samples) {
      const cell =
        row <= rows(p.new)
          ? glyph.new
          : row <= rows(p.new + p.old)
            ? glyph.old
            : row <= rows(p.new + p.old + p.terminating)
              ? glyph.gone
              : ' '
      line +=
        row === rows(p.available)
          ? cell === ' '
            ? glyph.mark
            : o.fancy
              ? o.style('bold', glyph.mark)
              : glyph.mark
          : cell
    }
    lines.push(`${String(row * unit).padStart(label)} |${line.trimEnd()}`)
  }
  lines.push(`${' '.repeat(label)} +${'-'.repeat(cols)}`)
  const end = secs(seconds)
  lines.push(`${' '.repeat(label)}  0s${' '.repeat(Math.max(1, cols - 2 - end.length))}${end}`)
  return lines.join('\n')
}
