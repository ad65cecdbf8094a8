// kubectl-style tables (no borders, three spaces between columns) through cli-table3, which is
// loaded on first use so that `--help` and the JSON paths never pay for it.

/** cli-table3's box-drawing characters, all blank: kubectl prints tables without borders. */
export const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
}

const BLANK_CHARS = {...BORDERLESS, middle: '   '}

/**
 * Renders rows under a header (none: --no-headers); cells may hold several lines. Trailing padding
 * is trimmed.
 */
export async function kubectlTable(head: string[] | undefined, rows: string[][]): Promise<string> {
  const {default: Table} = await import('cli-table3')
  // cli-table3 colours head and border even when piped or with NO_COLOR unless told otherwise.
  const table = new Table({
    ...(head ? {head} : {}),
    chars: BLANK_CHARS,
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0},
  })
  table.push(...rows)
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
}
