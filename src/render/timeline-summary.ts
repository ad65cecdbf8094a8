// `explain -f TIMELINE --timeline-summary` and the end of `rollout record`: each rollout of a
// recording in a few aligned lines (-o json|yaml: the TimelineSummary document itself).

import type {RolloutSummary} from '../watch/timeline-summary.js'

/** One block per rollout, a blank line between them. */
export function renderTimelineSummary(items: readonly RolloutSummary[]): string {
  return `${items.map(renderRollout).join('\n')}`
}

const OUTCOME: Record<RolloutSummary['outcome'], string> = {
  Complete: 'complete',
  ProgressDeadlineExceeded: 'exceeded its progress deadline',
  Superseded: 'superseded by a newer template',
  Unfinished: 'not finished when the recording ended',
}

function renderRollout(r: RolloutSummary): string {
  const rows: [string, string][] = []
  rows.push(['start', `${r.start}${r.startedBeforeRecording ? ' (under way when the recording began)' : ''}`])
  rows.push(['end', `${r.end} (${r.seconds}s): ${r.message}`])
  rows.push([
    'first new pod ready',
    r.firstNewPodReady
      ? `after ${r.firstNewPodReady.afterSeconds}s, ${r.firstNewPodReady.time} (pod/${r.firstNewPodReady.pod})`
      : 'none',
  ])
  const s = r.longestStall
  rows.push([
    'longest stall',
    s
      ? `${s.seconds}s, ${s.from} to ${s.to}${s.blocker ? `: ${s.blocker.code} (${s.blocker.object}: ${s.blocker.message})` : ''}`
      : 'none',
  ])
  rows.push([
    'peak pods',
    `${r.peakPods}${r.peakPodsWithTerminating !== r.peakPods ? ` (${r.peakPodsWithTerminating} counting terminating ones)` : ''}`,
  ])
  rows.push([
    'progress deadline',
    r.deadline.fired
      ? `fired at ${r.deadline.at ?? r.deadline.markedAt}${r.deadline.markedAt && r.deadline.markedAt !== r.deadline.at ? `, marked by the controller at ${r.deadline.markedAt}` : ''}`
      : r.deadline.at
        ? `not exceeded; would have fired at ${r.deadline.at} had the longest stall lasted`
        : 'not exceeded',
  ])
  rows.push([
    'blocked longest',
    r.blockedLongest.length === 0
      ? 'no pod'
      : r.blockedLongest.map((b) => `pod/${b.pod} ${b.seconds}s (${b.code})`).join(', '),
  ])
  const width = Math.max(...rows.map(([k]) => k.length))
  const head = `deployment ${r.deployment.namespace}/${r.deployment.name}${r.revision !== null ? ` revision ${r.revision}` : ''}: ${OUTCOME[r.outcome]}`
  return `${head}\n${rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n')}\n`
}
