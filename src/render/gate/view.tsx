// The rollout gate's live view: one row per Deployment (name, ready/desired, updated, phase, ETA,
// reason), failures first. Columns give way to the name and the reason on a narrow terminal; what
// does not fit is cut with an ellipsis, never wrapped into the next row. Colour only marks what the
// words already say (NO_COLOR drops it).

import {Box, Text} from 'ink'
import type {GateRow} from '../../status/gate.js'
import {sortRows} from '../../status/gate.js'
import {humanDuration} from '../../util/duration.js'
import {terminalSafe} from '../../util/terminal.js'
import {phaseWord} from './text.js'

type Color = 'green' | 'yellow' | 'red' | 'gray'

const COLOR: Record<GateRow['phase'], Color> = {
  Done: 'green',
  Failed: 'red',
  Progressing: 'yellow',
  Waiting: 'gray',
}
const ICON: Record<GateRow['phase'], string> = {Done: '✔', Failed: '✖', Progressing: '↻', Waiting: '…'}

/** `text` cut to `width` characters, with an ellipsis when cut. */
export function fitCell(text: string, width: number): string {
  if (width <= 0) return ''
  const chars = [...text]
  if (chars.length <= width) return text.padEnd(width)
  return `${chars.slice(0, Math.max(0, width - 1)).join('')}…`
}

interface Column {
  title: string
  width: number
  value: (r: GateRow) => string
}

/** The columns that fit in `columns`: name and reason stretch, the others are dropped first. */
export function layout(rows: readonly GateRow[], columns: number, namespaces: boolean): Column[] {
  const name = (r: GateRow) =>
    `${r.context ? `${r.context}:` : ''}${namespaces ? `${r.deployment.namespace}/${r.deployment.name}` : r.deployment.name}`
  const ready = (r: GateRow) => `${r.replicas.ready}/${r.replicas.desired}`
  const eta = (r: GateRow) =>
    r.phase === 'Done' || r.phase === 'Failed' ? '-' : r.eta !== undefined ? `~${humanDuration(r.eta)}` : '?'
  const fixed: Column[] = [
    {title: 'READY', width: Math.max(5, ...rows.map((r) => ready(r).length)), value: ready},
    {
      title: 'UPD',
      width: Math.max(3, ...rows.map((r) => String(r.replicas.updated).length)),
      value: (r) => String(r.replicas.updated),
    },
    {title: 'PHASE', width: 11, value: (r) => phaseWord(r)},
    {title: 'ETA', width: 6, value: eta},
  ]
  const nameWidth = Math.min(40, Math.max(4, ...rows.map((r) => name(r).length)))
  // Icon + space; one space between columns.
  const room = (cols: Column[]) => columns - 2 - cols.reduce((n, c) => n + c.width + 1, 0)
  // Narrow terminals lose ETA, then PHASE (the icon says it too), then UPD, for the name and the reason.
  const reasonWidth = Math.max(6, ...rows.map((r) => r.reason.length))
  const order = ['ETA', 'PHASE', 'UPD']
  let kept = fixed
  while (room(kept) < Math.min(nameWidth, 20) + 1 + Math.min(reasonWidth, 20) && order.length > 0) {
    const drop = order.shift()
    kept = kept.filter((c) => c.title !== drop)
  }
  const left = room(kept)
  const nameCol = Math.max(4, Math.min(nameWidth, left - 12))
  const reasonCol = Math.max(0, left - nameCol - 1)
  return [
    {title: 'NAME', width: nameCol, value: name},
    ...kept,
    ...(reasonCol > 0 ? [{title: 'REASON', width: reasonCol, value: (r: GateRow) => r.reason}] : []),
  ]
}

export interface GateViewProps {
  rows: readonly GateRow[]
  elapsed: number
  columns: number
  rows_?: number
  footer?: string
}

export function GateView({rows, elapsed, columns, footer}: GateViewProps) {
  const sorted = sortRows(rows.map((r) => terminalSafe(r)))
  const namespaces = new Set(rows.map((r) => r.deployment.namespace)).size > 1
  const cols = layout(sorted, columns, namespaces)
  const done = rows.filter((r) => r.phase === 'Done').length
  const failed = rows.filter((r) => r.phase === 'Failed').length
  const header = `${done}/${rows.length} done${failed > 0 ? `, ${failed} failed` : ''} · ${humanDuration(elapsed)}`
  return (
    <Box flexDirection="column">
      <Text bold>{fitCell(header, columns)}</Text>
      <Text dimColor>{fitCell(`  ${cols.map((c) => fitCell(c.title, c.width)).join(' ')}`, columns)}</Text>
      {sorted.map((r) => (
        <Text key={`${r.context ?? ''}:${r.deployment.namespace}/${r.deployment.name}`}>
          <Text color={COLOR[r.phase]}>{ICON[r.phase]}</Text>{' '}
          {cols.map((c) => fitCell(c.value(r), c.width)).join(' ')}
        </Text>
      ))}
      {footer ? <Text dimColor>{fitCell(footer, columns)}</Text> : null}
    </Box>
  )
}
