// Minimal colour: only when stdout is a terminal and NO_COLOR is unset. The escape codes are
// written directly (util.styleText second-guesses the decision on some Node versions).

export type StyleName = 'bold' | 'red' | 'yellow' | 'green' | 'dim'
export type Style = (format: StyleName, text: string) => string

const CODES: Record<StyleName, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
}

export function wantColor(stream: {isTTY?: boolean}, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env.NO_COLOR ?? '') === '' && env.TERM !== 'dumb'
}

export function styler(color: boolean): Style {
  if (!color) return (_format, text) => text
  return (format, text) => `\u001b[${CODES[format][0]}m${text}\u001b[${CODES[format][1]}m`
}
