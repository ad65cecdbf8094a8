// Output of `explain`: the ExplainResult document (-o json|yaml) or, per Deployment, a text
// report written for someone who has never read the controller: the verdict, the ReplicaSets, the
// pass step by step with its numbers, the progress clock, blockers, dead ends and the next pass.
// Prose wraps to the given width; colour only when asked for.

import type {EventSource, ExplainResult, Explanation, PassCheck, Step, StepName} from '../explain/types.js'
import type {Blocker, EventRow, ReplicaSetRow, VerdictCode} from '../status/types.js'
import {terminalSafe} from '../util/terminal.js'
import {type EventGroup, eventInterval, groupBlockers, groupCodes, groupEvents} from './explain-groups.js'
import {fitOrSplit, fitTable} from './explain-table.js'
import {isStructured, type OutputFormat, renderStructured} from './output.js'
import {type Style, type StyleName, styler} from './style.js'

export interface ExplainRenderOptions {
  format: OutputFormat
  /** Tables without their header row (--no-headers). */
  noHeaders?: boolean
  /** Columns to wrap text to. */
  width: number
  color?: boolean
}

export async function renderExplainResult(
  result: ExplainResult,
  options: ExplainRenderOptions,
): Promise<string> {
  if (isStructured(options.format)) return renderStructured(result, options.format)
  const blocks: string[] = []
  // Text: every string from the cluster or the files with its control characters escaped.
  for (const e of terminalSafe(result).items)
    blocks.push(await renderExplanation(e, result.now, options, result.kubernetesVersion))
  return blocks.length === 0 ? '' : `${blocks.join('\n\n')}\n`
}

const VERDICT_STYLE: Record<VerdictCode, StyleName> = {
  IncompleteInput: 'red',
  Complete: 'green',
  Progressing: 'yellow',
  Paused: 'yellow',
  Deleting: 'yellow',
  Stalled: 'red',
  DeadlineExceeded: 'red',
  Invalid: 'red',
}

/** Steps that work on the old ReplicaSets. */
const OLD_STEPS = new Set<StepName>(['scaleDown', 'scaleDownOldForRecreate'])

const STEP_LABEL: Record<StepName, string> = {
  createNewReplicaSet: 'new ReplicaSet',
  scaleUp: 'scale up',
  scaleDownNewReplicaSet: 'scale down new',
  scaleDown: 'scale down old',
  proportionalScaling: 'scale',
  scaleDownOldForRecreate: 'scale down old',
  waitForOldPods: 'old pods',
  scaleUpForRecreate: 'scale up new',
  rollback: 'rollback',
  cleanup: 'cleanup',
  status: 'status',
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour sequences start with ESC.
const ANSI = /\u001b\[[0-9;]*m/g
const visible = (s: string) => [...s.replace(ANSI, '')].length

/** Wraps prose: the first line after `first`, the others after `rest` (default: as many spaces). */
export function wrap(text: string, width: number, first = '', rest = ' '.repeat(first.length)): string {
  // Tokens keep the spaces that follow them, so runs of spaces inside a line survive.
  const tokens = text.trim().split(/(?<= )(?=[^ ])/)
  const out: string[] = []
  let line = first
  let empty = true
  for (const token of tokens) {
    // A `first` too long for its first word (a long question) is a line of its own.
    if ((!empty || line.trim() !== '') && visible((line + token).trimEnd()) > width) {
      out.push(line.trimEnd())
      line = rest
    }
    line += token
    empty = false
  }
  out.push(line.trimEnd())
  return out.join('\n')
}

async function renderExplanation(
  e: Explanation,
  now: string,
  options: ExplainRenderOptions,
  kubernetesVersion: string,
): Promise<string> {
  const style = styler(options.color ?? false)
  const width = Math.max(40, options.width)
  const w = (text: string, first = '  ', rest?: string) => wrap(text, width, first, rest)
  const heading = (text: string) => style('bold', text)
  const out: string[] = []

  const {verdict} = e
  for (const start of e.startedFrom) out.push(wrap(start.message, width))
  out.push(heading(`deployment ${e.deployment.namespace}/${e.deployment.name}`))
  const tag = verdict.reason === verdict.code ? verdict.code : `${verdict.code} (${verdict.reason})`
  out.push(wrap(style(VERDICT_STYLE[verdict.code], tag), width, `${heading('Verdict:')} `, '  '))
  out.push(w(verdict.message))
  out.push(...renderTools(e, w))
  if (e.autoscaler) out.push('', heading('Autoscaler'), w(e.autoscaler.message))

  out.push('', heading('ReplicaSets'))
  if (e.replicaSets.length === 0)
    out.push(w('None: no ReplicaSet belongs to this Deployment or matches its selector.'))
  else out.push(await replicaSetTable(e.replicaSets, width, options))
  out.push(...renderTemplateDiff(e, w, heading))

  out.push('', heading(`The next pass (${kubernetesVersion}), check by check`))
  const f = e.pass.fenceposts
  out.push(...renderChecks(e.pass.checks, width, f !== null && f !== undefined))
  if (f) {
    out.push('', heading(`RollingUpdate limits (spec.replicas ${f.replicas})`))
    const rows: Array<[string, number, string]> = [
      ['maxSurge', f.maxSurge.resolved, `extra pods allowed: ${f.maxSurge.rounding}`],
      ['maxUnavailable', f.maxUnavailable.resolved, `pods that may be missing: ${f.maxUnavailable.rounding}`],
      ['max total pods', f.maxTotalPods, `spec.replicas ${f.replicas} + maxSurge ${f.maxSurge.resolved}`],
      [
        'minAvailable',
        f.minAvailable,
        `spec.replicas ${f.replicas} − maxUnavailable ${f.maxUnavailable.resolved}`,
      ],
    ]
    for (const [label, value, text] of rows) {
      const head = `  ${label.padEnd(15)} ${String(value).padStart(3)}   `
      out.push(w(text, head))
    }
  }
  // Without an old ReplicaSet the steps about old ones (scale down, cleanup) have nothing to work
  // on: one line says so (-o json keeps them).
  const noOld = e.replicaSets.every((r) => r.role !== 'old')
  const aboutOld = (s: Step) => noOld && OLD_STEPS.has(s.step) && s.outcome === 'nothing'
  const steps = e.pass.steps.filter((s) => !aboutOld(s))
  const c = e.pass.cleanup
  const cleanup = c && !(noOld && c.oldReplicaSets === 0) ? cleanupStep(c) : null
  if (steps.length > 0 || c) {
    out.push('', heading('What the next pass does'))
    for (const s of steps) out.push(...renderStep(s, width))
    if (cleanup) out.push(...renderStep(cleanup, width))
    if (steps.length < e.pass.steps.length || (c && !cleanup))
      out.push(w('No old ReplicaSet: nothing to scale down or clean up.'))
  }

  out.push('', heading('Progress deadline'))
  out.push(w(e.progress.message))

  out.push('', heading('Blockers'))
  if (e.blockers.length === 0)
    out.push(w('None found: nothing in the pods or ReplicaSets holds the rollout.'))
  else out.push(...renderBlockers(e.blockers, width, style))
  if (e.events !== null) {
    out.push('', heading('Warning events'))
    if (e.eventSource) out.push(w(eventSourceText(e.eventSource)))
    if (e.events.length === 0) out.push(w('None.'))
    out.push(...renderEvents(e.events, e.blockers, Date.parse(now), w))
  }

  if (e.deadEnds.length > 0) {
    out.push('', heading('Dead ends'))
    for (const d of e.deadEnds) out.push(w(`${style('red', d.code)}: ${d.message}`, '  ', '    '))
  }

  out.push('', heading('Next'))
  const requeue = `Requeue: ${e.next.requeueMessage}`
  if (e.next.actions.length === 0 && e.next.events.length === 0) {
    out.push(w(`Writes nothing. ${requeue}`, '  ', '    '))
  } else if (e.next.actions.length === 0) {
    out.push(w('Writes nothing.'))
  } else {
    // As dry-run sync prints them: a status write names its endpoint (deployments/status).
    const rows = e.next.actions.map((a) => [
      a.verb,
      a.subresource ? `${a.resource}/${a.subresource}` : a.resource,
      a.name,
      a.change,
    ])
    out.push(
      await fitTable(['VERB', 'RESOURCE', 'NAME', 'CHANGE'], rows, {
        width,
        wrapColumn: 3,
        minWrapWidth: 24,
        noHeaders: options.noHeaders,
      }),
    )
  }
  if (e.next.events.length > 0) {
    out.push(w('Events it records:'))
    for (const ev of e.next.events) {
      const type = ev.type === 'Warning' ? style('yellow', ev.type) : ev.type
      out.push(w(`${type}  ${ev.reason}  ${ev.message}`, '    ', '      '))
    }
  }
  if (e.next.actions.length > 0 || e.next.events.length > 0) out.push(w(requeue, '  ', '    '))
  if (e.next.error !== null) out.push(style('red', w(`The pass ends in an error: ${e.next.error}`)))
  return out.join('\n')
}

/** Why a new ReplicaSet: the template's changed fields since the previous revision (plan's diff). */
function renderTemplateDiff(
  e: Explanation,
  w: (text: string, first?: string, rest?: string) => string,
  heading: (text: string) => string,
): string[] {
  const t = e.templateDiff
  if (!t || t.changes.length === 0) return []
  const to = t.to.replicaSet
    ? `${t.to.replicaSet} (revision ${t.to.revision})`
    : 'the Deployment (no ReplicaSet yet)'
  const out = [
    '',
    heading(w(`Pod template since revision ${t.from.revision} (${t.from.replicaSet} -> ${to})`, '', '  ')),
  ]
  const value = (v: unknown) => (v === null ? '<none>' : typeof v === 'string' ? v : JSON.stringify(v))
  for (const c of t.changes) out.push(w(`${c.path}: ${value(c.from)} -> ${value(c.to)}`, '  ', '    '))
  return out
}

/** Why kubectl's message and the verdict differ, when they do. */
function kubectlNote(e: Explanation): string {
  const {rolloutStatus: k, verdict: v} = e
  if (v.code === 'Invalid') return 'it reads only the status, which the controller does not keep up for it'
  if (k.done && v.code === 'Paused') return 'it does not read spec.paused'
  if (k.done && v.reason === 'ExtraPodsPending')
    return 'it compares status.replicas with updatedReplicas, not spec.replicas'
  if (k.done && v.code !== 'Complete') return 'it reads the status as stored, before the next pass'
  if (k.done || k.error) return ''
  if (v.code === 'DeadlineExceeded') return 'it fails only once the controller has marked the deadline'
  if (v.code === 'Stalled') return 'it only compares counts, so it keeps waiting'
  if (v.code === 'Paused') return 'it keeps waiting while the Deployment is paused'
  return ''
}

/**
 * What kubectl rollout status, kstatus and Argo CD answer. When they agree, kstatus's and Argo CD's
 * words join kubectl's line (explain's first screen stays as short); when they part, a line each and
 * the sentence that says why.
 */
function renderTools(e: Explanation, w: (text: string, first?: string, rest?: string) => string): string[] {
  const {tools: t} = e
  const note = kubectlNote(e)
  const kubectl = `kubectl rollout status would print: ${e.rolloutStatus.message}`
  if (t.agree) {
    const others = `kstatus says ${t.kstatus.status}, Argo CD ${t.argocd.status}`
    return [w(`${kubectl} (${note ? `${note}; ` : ''}${others})`)]
  }
  const said = (status: string, message: string) => (message ? `${status} (${message})` : status)
  return [
    w(`${kubectl}${note ? ` (${note})` : ''}`),
    w(`kstatus (Helm 4, Flux) would say: ${said(t.kstatus.status, t.kstatus.message)}`),
    w(`Argo CD's health check would say: ${said(t.argocd.status, t.argocd.message)}`),
    w(`They disagree: ${t.disagreement ?? ''}`),
  ]
}

/** kubectl get rs's columns and the rollout's; -o wide adds CONTAINERS and SELECTOR, as kubectl's does. */
async function replicaSetTable(
  rows: ReplicaSetRow[],
  width: number,
  options: {noHeaders?: boolean; format: OutputFormat},
): Promise<string> {
  const wide = options.format.kind === 'wide'
  const role = (r: ReplicaSetRow) => {
    if (r.ownership === 'adopt') return `${r.role} (adopting)`
    if (r.ownership === 'release') return 'not owned (releasing)'
    if (r.ownership === 'foreign') return `not owned (${r.controller})`
    return r.role
  }
  const body = rows.map((r) => [
    r.revision ?? '<none>',
    r.name,
    String(r.desired),
    String(r.current),
    String(r.ready),
    String(r.available),
    r.age,
    role(r),
    ...(wide ? [r.containers.join(',') || '<none>'] : []),
    r.images.join(', ') || '<none>',
    ...(wide ? [r.selector] : []),
    r.revisionHistory ?? '<none>',
  ])
  const head = [
    'REVISION',
    'NAME',
    'DESIRED',
    'CURRENT',
    'READY',
    'AVAILABLE',
    'AGE',
    'ROLE',
    ...(wide ? ['CONTAINERS'] : []),
    'IMAGES',
    ...(wide ? ['SELECTOR'] : []),
    'HISTORY',
  ]
  // Images are long: wrapped inside the column when that keeps it 20 wide, else listed apart.
  const fitted = await fitOrSplit(head, body, {
    width,
    wrapColumn: head.indexOf('IMAGES'),
    minWrapWidth: 20,
    keyColumn: 1,
    noHeaders: options.noHeaders ?? false,
  })
  // The images listed apart follow the table directly: their own header sets them off.
  return fitted.split === undefined ? fitted.table : `${fitted.table}\n${fitted.split}`
}

/** The checks a pass goes through without stopping when their answer is a plain no. */
const ROUTINE_NO: Partial<Record<PassCheck['check'], string>> = {
  deleting: 'being deleted',
  paused: 'paused',
  rollback: 'asked to roll back',
}

function renderChecks(checks: PassCheck[], width: number, limitsShown: boolean): string[] {
  const qWidth = Math.max(...checks.map((c) => c.question.length))
  const routine = (c: PassCheck | undefined) =>
    c !== undefined && ROUTINE_NO[c.check] !== undefined && c.answer === 'no' && !c.detail
  const out: string[] = []
  for (let i = 0; i < checks.length; i++) {
    const c = checks[i]!
    // Consecutive routine noes share one line (-o json keeps each check).
    let j = i
    while (routine(checks[j]) && routine(checks[j + 1])) j++
    if (j > i) {
      const what = checks.slice(i, j + 1).map((x) => ROUTINE_NO[x.check]!)
      const list = `${what.slice(0, -1).join(', ')} or ${what[what.length - 1]}`
      // Prose, wrapped at word boundaries on a narrow terminal.
      out.push(wrap(`${i + 1}-${j + 1}. Is it ${list}? no`, width, '  ', '      '))
      i = j
      continue
    }
    const head = `  ${i + 1}. ${c.question.padEnd(qWidth)}  `
    // The limits table follows: the strategy's line points at it instead of naming them.
    const detail =
      c.check === 'strategy' && c.answer === 'RollingUpdate' && limitsShown
        ? 'replace pods gradually (limits below)'
        : c.detail
    const answer = detail ? `${c.answer}: ${detail}` : c.answer
    // Long questions would leave too little room: wrap under the question then.
    out.push(
      head.length > width / 2
        ? wrap(answer, width, `  ${i + 1}. ${c.question} `, '      ')
        : wrap(answer, width, head),
    )
  }
  return out
}

function cleanupStep(c: NonNullable<Explanation['pass']['cleanup']>): Step {
  if (c.waits !== null) return {step: 'cleanup', outcome: 'waits', detail: c.waits}
  const limit = `revisionHistoryLimit ${c.revisionHistoryLimit}, ${c.oldReplicaSets} old ${c.oldReplicaSets === 1 ? 'ReplicaSet' : 'ReplicaSets'}`
  if (c.excess === 0)
    return {step: 'cleanup', outcome: 'nothing to delete', detail: `${limit}: within the limit.`}
  const parts = [`${limit}: ${c.excess} over the limit, the oldest revisions first.`]
  if (c.skipped.length > 0) {
    parts.push(
      `Kept: ${c.skipped.map((s) => `${s.replicaSet} (${s.reason})`).join('; ')}. The controller does not take the next one instead.`,
    )
  }
  return {
    step: 'cleanup',
    outcome: c.deletes.length > 0 ? `deletes ${c.deletes.join(', ')}` : 'deletes nothing',
    detail: parts.join(' '),
  }
}

function renderStep(s: Step, width: number): string[] {
  const label = `  ${STEP_LABEL[s.step].padEnd(15)} `
  // A short why goes on the outcome's line when both fit on it.
  const both = `${label}${s.outcome} — ${s.detail}`
  const oneLine = s.detail !== '' && !s.shares?.length && visible(both) <= width
  const out = [oneLine ? both : wrap(s.outcome, width, label)]
  if (s.detail && !oneLine) out.push(wrap(s.detail, width, ' '.repeat(label.length)))
  for (const share of s.shares ?? []) {
    out.push(
      wrap(
        `${share.replicaSet}: ${share.from} → ${share.to} (${share.proportion >= 0 ? '+' : ''}${share.proportion}${share.to - share.from !== share.proportion ? `, +${share.to - share.from - share.proportion} leftover` : ''}): ${share.formula}`,
        width,
        `${' '.repeat(label.length)}- `,
        ' '.repeat(label.length + 2),
      ),
    )
  }
  return out
}

/** One line per group of identical blockers, naming its first object (-o json lists them all). */
function renderBlockers(blockers: Blocker[], width: number, style: Style): string[] {
  return groupBlockers(blockers).map((g) => {
    const b = g.first
    const n = g.members.length
    const code = style(b.hard ? 'red' : 'yellow', groupCodes(g))
    const kind = b.object.kind === 'Pod' ? 'pod' : b.object.kind
    let what =
      n === 1
        ? `${kind} ${b.object.name}`
        : `${n} ${b.object.kind === 'Pod' ? 'pods' : `${b.object.kind}s`} (${b.object.name} and ${n - 1} more)`
    // A pod's name starts with its ReplicaSet's; name the ReplicaSet only when it is not the new one.
    if (b.object.kind === 'Pod' && b.replicaSet && !b.object.name.startsWith(`${b.replicaSet}-`)) {
      what += ` (ReplicaSet ${b.replicaSet})`
    }
    return wrap(`${code} ${what}: ${b.message}`, width, '  ', '    ')
  })
}

/**
 * Warning events as kubectl describe prints their age (`4s (x36 over 4m)`), the same message on many
 * objects once, and the groups about the same objects under one line naming them. The registry's
 * answer to a failed pull, which the Blockers already print in full, is not printed twice.
 */
function renderEvents(
  events: EventRow[],
  blockers: Blocker[],
  nowMs: number,
  w: (text: string, first?: string, rest?: string) => string,
): string[] {
  const shown = groupBlockers(blockers).map((g) => g.first.message)
  const message = (g: EventGroup) => {
    const pull = /^(Failed to pull image "[^"]*"): (.+)$/s.exec(g.message)
    // A short error is cheaper to repeat than to point at.
    return pull && pull[2]!.length > 40 && shown.some((m) => m.includes(pull[2]!))
      ? 'Failed to pull image: the error under Blockers'
      : g.message
  }
  const out: string[] = []
  for (const groups of bySameObjects(groupEvents(events))) {
    const {objects} = groups[0]!
    const [one] = objects
    const what =
      objects.length === 1 || one === undefined
        ? `${one?.kind ?? ''}/${one?.name ?? ''}`
        : `${objects.length} ${one.kind === 'Pod' ? 'pods' : `${one.kind}s`} (${one.kind}/${one.name} and ${objects.length - 1} more)`
    if (groups.length === 1) {
      const g = groups[0]!
      out.push(w(`${eventInterval(g, nowMs)}  ${g.reason}  ${what}: ${message(g)}`, '  ', '    '))
    } else {
      out.push(w(`${what}:`, '  ', '    '))
      for (const g of groups)
        out.push(w(`${eventInterval(g, nowMs)}  ${g.reason}  ${message(g)}`, '    ', '      '))
    }
  }
  return out
}

/** Event groups about the same objects, in the order of the first of each. */
function bySameObjects(groups: EventGroup[]): EventGroup[][] {
  const sets = new Map<string, EventGroup[]>()
  for (const g of groups) {
    const key = JSON.stringify(g.objects.map((o) => `${o.kind}/${o.name}`).sort())
    const list = sets.get(key)
    if (list) list.push(g)
    else sets.set(key, [g])
  }
  return [...sets.values()]
}

/** Which events explain read, in one sentence. */
export function eventSourceText(s: EventSource): string {
  const from = s.from === 'files' ? 'the files' : 'the cluster'
  const of = `${s.concerning} of the ${s.total} ${s.total === 1 ? 'event' : 'events'} read from ${from}`
  if (s.concerning === 0)
    return `None of the ${s.total} ${s.total === 1 ? 'event' : 'events'} read from ${from} concerns this Deployment, its ReplicaSets or their pods.`
  const tail = `(${s.warnings} Warning, the newest at ${s.newest ?? 'an unknown time'}).`
  // Every event given is about this rollout: said in one short line (-o json says where from).
  if (s.concerning === s.total) {
    return `${s.total === 1 ? 'The event' : `All ${s.total} events`} ${s.total === 1 ? 'concerns' : 'concern'} this rollout: ${s.warnings} Warning, newest ${s.newest ?? 'unknown'}.`
  }
  return `${of} ${s.concerning === 1 ? 'concerns' : 'concern'} this Deployment, its ReplicaSets or their pods ${tail}`
}
