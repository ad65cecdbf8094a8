// The ink view of `rollout watch`: a header (strategy, verdict, clock, deadline, ETA), the tree
// revision -> ReplicaSet -> pods with bars and per-pod reasons, what blocks progress, and the latest
// events. A pure function of a WatchFrame, so frames can be rendered live, replayed, or turned into
// strings with renderToString.

import {Box, Text} from 'ink'
import type {ReplicaSetSummary} from '../../status/observe.js'
import {type PodState, type PodSummary, podCount} from '../../status/pods.js'
import type {ToolOutcome, ToolVerdicts} from '../../status/tools.js'
import type {WatchSummary} from '../../status/update.js'
import {humanDuration} from '../../util/duration.js'
import {terminalSafe} from '../../util/terminal.js'
import {type TimedEvent, toolParts, type WatchFrame} from './frame.js'
import {clock} from './lines.js'

type Color = 'green' | 'cyan' | 'yellow' | 'red' | 'gray'

export const POD_ICONS: Record<PodState, {icon: string; color: Color}> = {
  available: {icon: '●', color: 'green'},
  ready: {icon: '◐', color: 'cyan'},
  running: {icon: '◑', color: 'yellow'},
  creating: {icon: '○', color: 'yellow'},
  pending: {icon: '◌', color: 'yellow'},
  failing: {icon: '✖', color: 'red'},
  terminating: {icon: '⊘', color: 'gray'},
  succeeded: {icon: '✓', color: 'gray'},
  failed: {icon: '✖', color: 'gray'},
}

const TONE: Record<WatchFrame['verdict']['tone'], {icon: string; color: Color}> = {
  good: {icon: '✔', color: 'green'},
  bad: {icon: '✖', color: 'red'},
  busy: {icon: '↻', color: 'yellow'},
}

export interface BarProps {
  value: number
  max: number
  width: number
  color: Color
}

/** A fixed-width bar: `█` for the value, `░` for the rest of max. */
export function Bar({value, max, width, color}: BarProps) {
  const filled = max <= 0 ? 0 : Math.max(0, Math.min(width, Math.round((value / max) * width)))
  return (
    <Text>
      <Text color={color}>{'█'.repeat(filled)}</Text>
      <Text dimColor>{'░'.repeat(width - filled)}</Text>
    </Text>
  )
}

const OUTCOME_COLOR: Record<ToolOutcome, Color> = {
  done: 'green',
  waiting: 'yellow',
  failed: 'red',
  suspended: 'gray',
  terminating: 'gray',
}

/** Below this width the tools' line leaves kubectl's answer to the status line above it. */
const NARROW_TOOLS = 60

/**
 * What kubectl rollout status, kstatus and Argo CD answer, coloured by outcome (the words carry it
 * without colour), and where they part, cut to the width (line mode gives the whole sentence).
 */
function Tools({tools: t, columns}: {tools: ToolVerdicts; columns: number}) {
  const parts = toolParts(t, columns < NARROW_TOOLS)
  return (
    <>
      <Text wrap="truncate-end">
        {parts.map((p, i) => (
          <Text key={p.tool}>
            {i > 0 ? ', ' : ''}
            {p.tool} <Text color={OUTCOME_COLOR[p.outcome]}>{p.status}</Text>
          </Text>
        ))}
      </Text>
      {t.disagreement ? <Text wrap="truncate-end">they disagree: {t.disagreement}</Text> : null}
    </>
  )
}

/** The header's lines: name, verdict, kubectl's status, and the tools' answers when the frame has them. */
export function headerLines(frame: WatchFrame): number {
  return 3 + (frame.tools ? (frame.tools.disagreement ? 2 : 1) : 0)
}

function Header({frame, columns}: {frame: WatchFrame; columns: number}) {
  const tone = TONE[frame.outcome && frame.outcome.kind !== 'complete' ? 'bad' : frame.verdict.tone]
  const strategy =
    frame.strategy === 'RollingUpdate'
      ? `RollingUpdate maxSurge ${frame.maxSurge} maxUnavailable ${frame.maxUnavailable}`
      : frame.strategy
  const clockParts = [`elapsed ${humanDuration(frame.elapsed)} (${clock(frame.time)})`]
  if (frame.deadline) {
    clockParts.push(
      frame.deadline.remaining > 0
        ? `deadline in ${humanDuration(frame.deadline.remaining)}`
        : `deadline passed ${humanDuration(-frame.deadline.remaining)} ago`,
    )
  }
  if (!frame.outcome && frame.verdict.code !== 'Complete') {
    clockParts.push(frame.eta === undefined ? 'ETA ?' : `ETA ~${humanDuration(frame.eta)}`)
  }
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>
          deployment {frame.namespace}/{frame.name}
        </Text>
        <Text>
          {'  '}
          {strategy}
          {'  '}revision {frame.revision}
        </Text>
      </Text>
      <Text wrap="truncate-end">
        <Text color={tone.color} bold>
          {tone.icon} {frame.verdict.code}/{frame.verdict.reason}
        </Text>
        <Text>
          {'  '}
          {clockParts.join('  ')}
        </Text>
      </Text>
      <Text wrap="truncate-end">{frame.status}</Text>
      {frame.tools ? <Tools tools={frame.tools} columns={columns} /> : null}
    </Box>
  )
}

function Counts({rs, max, width}: {rs: ReplicaSetSummary; max: number; width: number}) {
  const items: Array<[string, number, Color]> = [
    ['desired', rs.replicas, 'cyan'],
    ['current', rs.current, 'cyan'],
    ['ready', rs.ready, 'cyan'],
    ['available', rs.available, 'green'],
  ]
  return (
    <Text wrap="truncate-end">
      {'    '}
      {items.map(([label, value, color], i) => (
        <Text key={label}>
          {i > 0 ? '  ' : ''}
          {label} <Bar value={value} max={max} width={width} color={color} /> {value}
        </Text>
      ))}
      {rs.terminating > 0 ? <Text color="gray">{`  ⊘ ${rs.terminating}`}</Text> : null}
    </Text>
  )
}

function podReason(pod: PodSummary): string {
  return pod.restarts > 0
    ? `${pod.reason} (${pod.restarts} restart${pod.restarts === 1 ? '' : 's'})`
    : pod.reason
}

function PodLine({pod, nameWidth, reasonWidth}: {pod: PodSummary; nameWidth: number; reasonWidth: number}) {
  const {icon, color} = POD_ICONS[pod.state]
  const reason = podReason(pod)
  return (
    <Text wrap="truncate-end">
      {'    '}
      <Text color={color}>{icon}</Text> {pod.name.padEnd(nameWidth)}{' '}
      <Text color={color}>{reason.padEnd(reasonWidth)}</Text>{' '}
      <Text dimColor>
        {(pod.node ?? '').padEnd(10)} {pod.message ?? ''}
      </Text>
    </Text>
  )
}

// When not every pod fits, the ones that hold the rollout back are shown first.
const SHOW_FIRST: PodState[] = [
  'failing',
  'pending',
  'creating',
  'running',
  'ready',
  'terminating',
  'failed',
  'succeeded',
  'available',
]

/** `n` pods, the most telling states first, kept in their original order. */
function mostTelling(pods: PodSummary[], n: number): PodSummary[] {
  const picked = new Set(
    [...pods].sort((a, b) => SHOW_FIRST.indexOf(a.state) - SHOW_FIRST.indexOf(b.state)).slice(0, n),
  )
  return pods.filter((p) => picked.has(p))
}

function ReplicaSetNode(props: {rs: ReplicaSetSummary; max: number; barWidth: number; podLimit: number}) {
  const {rs, max, barWidth, podLimit} = props
  const label = (
    <Text>
      <Text bold>▸ revision {rs.revision}</Text>
      {'  '}
      {rs.name}
      {rs.new ? <Text color="cyan"> new</Text> : null}
    </Text>
  )
  if (rs.replicas === 0 && rs.pods.length === 0) {
    return (
      <Text wrap="truncate-end" dimColor>
        {label} 0 pods
      </Text>
    )
  }
  const shown = rs.pods.length > podLimit ? mostTelling(rs.pods, Math.max(0, podLimit - 1)) : rs.pods
  const nameWidth = Math.max(0, ...shown.map((p) => p.name.length))
  const reasonWidth = Math.max(0, ...shown.map((p) => podReason(p).length))
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">{label}</Text>
      <Counts rs={rs} max={max} width={barWidth} />
      {shown.map((p) => (
        <PodLine key={p.name} pod={p} nameWidth={nameWidth} reasonWidth={reasonWidth} />
      ))}
      {rs.pods.length > shown.length ? (
        <Text dimColor>
          {'    '}… and {podCount(rs.pods) - podCount(shown)} more pods
        </Text>
      ) : null}
    </Box>
  )
}

function Events({events}: {events: TimedEvent[]}) {
  if (events.length === 0) return null
  return (
    <Box flexDirection="column">
      <Text bold>events</Text>
      {events.map((e, i) => (
        // Events have no identity of their own; their position in the window is stable enough.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <Text key={i} wrap="truncate-end">
          {'  '}
          {clock(e.time)} <Text color={e.type === 'Warning' ? 'yellow' : undefined}>{e.type.padEnd(7)}</Text>{' '}
          {e.reason} <Text dimColor>{e.object}</Text> {e.message}
        </Text>
      ))}
    </Box>
  )
}

function summaryText(s: WatchSummary): string {
  return [
    `took ${humanDuration(s.duration)}`,
    `at most ${s.peakPods} pod${s.peakPods === 1 ? '' : 's'}`,
    `at least ${s.minAvailable} available`,
    `progress deadline ${s.deadlineExceeded ? 'exceeded' : 'not exceeded'}`,
  ].join(' · ')
}

export interface WatchViewProps {
  frame: WatchFrame
  /** The terminal's width; lines are cut to it. */
  columns?: number
  /**
   * The terminal's height: pods and events are cut so that the frame fits (a frame taller than the
   * terminal makes ink clear the whole screen at every redraw).
   */
  rows?: number
  /** A last dim line, e.g. the replay speed and how to quit. */
  footer?: string
}

/** How many pods per ReplicaSet and how many events fit in `rows` lines. */
export function layout(frame: WatchFrame, rows: number, footer: boolean): {podLimit: number; events: number} {
  const withPods = frame.replicaSets.filter((rs) => rs.replicas > 0 || rs.pods.length > 0)
  const collapsed = frame.replicaSets.length - withPods.length
  const outcome = frame.outcome
    ? 1 + (frame.outcome.message !== frame.status ? 1 : 0) + (frame.outcome.summary ? 1 : 0)
    : 0
  const blockers = frame.blockers.length > 0 ? 2 + frame.blockers.length : 0
  const next = frame.next && frame.next.length > 0 ? 2 + frame.next.length : 0
  const divergences = frame.divergences && frame.divergences.length > 0 ? 2 + frame.divergences.length : 0
  // One line is kept free: ink's output ends with a newline.
  const fixed =
    headerLines(frame) +
    1 +
    withPods.length * 2 +
    collapsed +
    blockers +
    next +
    divergences +
    outcome +
    (footer ? 1 : 0) +
    1
  let events = Math.min(frame.events.length, 5)
  const podLines = (ev: number) => rows - fixed - (ev > 0 ? ev + 2 : 0)
  const mostPods = Math.max(0, ...withPods.map((rs) => rs.pods.length))
  // Events give way to pods first, down to two.
  while (events > 2 && podLines(events) < withPods.length * Math.min(mostPods, 4)) events--
  if (podLines(events) < withPods.length) events = 0
  const podLimit = withPods.length === 0 ? 0 : Math.max(1, Math.floor(podLines(events) / withPods.length))
  return {podLimit, events}
}

export function WatchView({frame: raw, columns = 100, rows = 60, footer}: WatchViewProps) {
  // Every string of the frame came from the cluster or the files: control characters escaped.
  const frame = terminalSafe(raw)
  const max = Math.max(1, frame.replicas + (frame.strategy === 'RollingUpdate' ? frame.maxSurge : 0))
  const barWidth = Math.max(4, Math.min(10, Math.floor((columns - 70) / 4)))
  const outcome = frame.outcome
  const fit = layout(frame, rows, footer !== undefined)
  const podLimit = fit.podLimit
  const events = fit.events === 0 ? [] : frame.events.slice(-fit.events)
  return (
    <Box flexDirection="column" width={columns}>
      <Header frame={frame} columns={columns} />
      <Box flexDirection="column" marginTop={1}>
        {frame.replicaSets.map((rs) => (
          <ReplicaSetNode key={rs.name} rs={rs} max={max} barWidth={barWidth} podLimit={podLimit} />
        ))}
      </Box>
      {frame.blockers.length > 0 ? (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>waiting on</Text>
          {frame.blockers.map((b) => (
            <Text key={b} wrap="truncate-end">
              {'  '}· {b}
            </Text>
          ))}
        </Box>
      ) : null}
      {frame.next && frame.next.length > 0 ? (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>next pass</Text>
          {frame.next.map((n) => (
            <Text key={n} wrap="truncate-end">
              {'  '}→ {n}
            </Text>
          ))}
        </Box>
      ) : null}
      {frame.divergences && frame.divergences.length > 0 ? (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>divergences from the port</Text>
          {frame.divergences.map((d) => (
            <Text key={`${d.time}-${d.code}-${d.replicaSet}`} wrap="truncate-end">
              {'  '}
              {clock(d.time)} <Text color="red">{d.code}</Text> {d.message}
            </Text>
          ))}
        </Box>
      ) : null}
      {events.length > 0 ? (
        <Box marginTop={1}>
          <Events events={events} />
        </Box>
      ) : null}
      {outcome ? (
        <Box marginTop={1} flexDirection="column">
          {outcome.message !== frame.status ? (
            <Text color={outcome.kind === 'complete' ? 'green' : 'red'} bold wrap="truncate-end">
              {outcome.message}
            </Text>
          ) : null}
          {outcome.summary ? <Text wrap="truncate-end">{summaryText(outcome.summary)}</Text> : null}
        </Box>
      ) : null}
      {footer ? (
        <Text dimColor wrap="truncate-end">
          {footer}
        </Text>
      ) : null}
    </Box>
  )
}
