// kubectl-like tables (no borders) that fit a width: at their natural size when they fit, else
// one chosen column wraps inside its cells (at spaces, commas, slashes, colons), with the
// three-space gutter narrowed to two if that is what it takes. cli-table3 is loaded on first use.

import {BORDERLESS} from './table.js'

const BLANK = BORDERLESS

export interface FitOptions {
  /** The width to fit, in columns. */
  width: number
  /** The index of the column that may wrap. */
  wrapColumn?: number
  /** Narrowest the wrapping column may get before the table is left at its natural width. */
  minWrapWidth?: number
  /** Prefix of every line (counts against the width). */
  indent?: string
  /** Leave the header row out (--no-headers). */
  noHeaders?: boolean
}

const lines = (cell: string) => cell.split('\n')
const widthOf = (cell: string) => Math.max(0, ...lines(cell).map((l) => [...l].length))

/**
 * Breaks text into lines of at most `width` characters: whole clauses (ending in "; " or ", ")
 * where they fit, else after a space, comma, semicolon, slash, colon, @ or dot; a longer word stays whole.
 */
export function wrapCell(text: string, width: number): string {
  if (width <= 0) return text
  const len = (s: string) => [...s.trimEnd()].length
  const out: string[] = []
  for (const paragraph of text.split('\n')) {
    let line = ''
    for (const clause of paragraph.split(/(?<=[;,] )/)) {
      if (len(line + clause) <= width) {
        line += clause
        continue
      }
      if (line.trim() !== '') out.push(line.trimEnd())
      line = ''
      if (len(clause) <= width) {
        line = clause
        continue
      }
      // `old -> new` stays on one line.
      // `a -> b` stays together where it fits; where it does not, it breaks after a space too.
      const tokens = clause
        .split(/(?<=[ ,;/:@.])(?<!-> )(?!-> )/)
        .flatMap((t) => (len(t) > width ? t.split(/(?<= )/) : [t]))
      for (const token of tokens) {
        if (len(line + token) <= width) {
          line += token
          continue
        }
        if (line.trim() !== '') out.push(line.trimEnd())
        // A word longer than the width stays whole (the line is longer), never cut inside.
        line = token.trimStart()
      }
    }
    out.push(line.trimEnd())
  }
  return out.join('\n')
}

async function render(
  head: string[] | undefined,
  rows: string[][],
  gap: number,
  indent: string,
): Promise<string> {
  const {default: Table} = await import('cli-table3')
  const table = new Table({
    ...(head ? {head} : {}),
    chars: {...BLANK, middle: ' '.repeat(gap)},
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0},
  })
  table.push(...rows)
  return table
    .toString()
    .split('\n')
    .map((line) => `${indent}${line}`.trimEnd())
    .join('\n')
}

export interface FittedTable {
  /** The table, with the wrap column wrapped when that made it fit. */
  table: string
  /** When even wrapping did not fit: the wrap column was left out of `table` and is here, by key. */
  split?: string
}

export async function fitTable(head: string[], rows: string[][], options: FitOptions): Promise<string> {
  const fitted = await fitOrSplit(head, rows, options)
  return fitted.table
}

/**
 * Fits the table to the width. If the wrap column would get narrower than minWrapWidth, it is moved
 * out into a second two-column table keyed by `keyColumn` (when given), else the table is left at
 * its natural width.
 */
export async function fitOrSplit(
  head: string[],
  rows: string[][],
  options: FitOptions & {keyColumn?: number},
): Promise<FittedTable> {
  const indent = options.indent ?? ''
  const shown = (h: string[]) => (options.noHeaders ? undefined : h)
  const widths = head.map((h, i) => Math.max(widthOf(h), ...rows.map((r) => widthOf(r[i] ?? ''))))
  const total = (gap: number, ws: number[]) =>
    indent.length + ws.reduce((a, b) => a + b, 0) + gap * (ws.length - 1)
  if (total(3, widths) <= options.width || options.wrapColumn === undefined) {
    return {table: await render(shown(head), rows, 3, indent)}
  }
  const col = options.wrapColumn
  const min = Math.min(Math.max(options.minWrapWidth ?? 12, widthOf(head[col] ?? '')), widths[col] ?? 0)
  for (const gap of [3, 2]) {
    const room =
      options.width -
      total(
        gap,
        widths.map((w, i) => (i === col ? 0 : w)),
      )
    if (room >= min) {
      const wrapped = rows.map((r) => r.map((cell, i) => (i === col ? wrapCell(cell, room) : cell)))
      return {table: await render(shown(head), wrapped, gap, indent)}
    }
  }
  const key = options.keyColumn
  if (key === undefined) return {table: await render(shown(head), rows, 3, indent)}
  const keep = (r: string[]) => r.filter((_, i) => i !== col)
  const rest = widths.filter((_, i) => i !== col)
  const gap = total(3, rest) <= options.width ? 3 : 2
  const splitRoom = options.width - indent.length - (widths[key] ?? 0) - 3
  return {
    table: await render(shown(keep(head)), rows.map(keep), gap, indent),
    split: await render(
      shown([head[key] ?? '', head[col] ?? '']),
      rows.map((r) => [r[key] ?? '', wrapCell(r[col] ?? '', Math.max(splitRoom, 20))]),
      3,
      indent,
    ),
  }
}
