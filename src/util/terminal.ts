// The one sanitiser between what a cluster or a file says and a terminal. A string from an object
// (an image name, an event's message, a server's error text) may hold ESC, BEL, OSC sequences (OSC
// 52 writes the clipboard), C1 controls, or a newline that forges a line of our own: text output
// shows each such character escaped (`\x1b`, `\n`, `\u202e`), never emits it. JSON and YAML stay
// byte-exact: they go through their own encoders, never through here.

// C0 and C1 controls, DEL, the Unicode line separators and the bidirectional overrides (which
// reorder what the reader sees). Built from strings: the patterns name the characters they escape.
const CHARS = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069'
/** Layout a text output keeps: newline and tab. */
const LAYOUT_FREE =
  '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069'
const CONTROL = new RegExp(`[${CHARS}]`, 'g')
const CONTROL_BUT_LAYOUT = new RegExp(`[${LAYOUT_FREE}]`, 'g')
/** Our own colours (SGR) are kept when colour is on. */
const SGR_OR_CONTROL = new RegExp(`\\u001b\\[[0-9;]*m|[${LAYOUT_FREE}]`, 'g')

const NAMED: Record<string, string> = {'\n': '\\n', '\r': '\\r', '\t': '\\t'}

function escapeChar(c: string): string {
  const named = NAMED[c]
  if (named) return named
  const code = c.charCodeAt(0)
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`
}

/** A single-line field for a terminal: every control character escaped, newlines and tabs too. */
export function escapeControl(text: string): string {
  CONTROL.lastIndex = 0
  return CONTROL.test(text) ? text.replace(CONTROL, escapeChar) : text
}

/**
 * The same for every string inside a value (a result document, a watch frame) before a text
 * renderer lays it out: a deep copy when something had to change, the value itself otherwise.
 */
export function terminalSafe<T>(value: T): T {
  if (typeof value === 'string') return escapeControl(value) as T
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined
    value.forEach((v, i) => {
      const safe = terminalSafe(v)
      if (safe !== v) {
        copy ??= value.slice()
        copy[i] = safe
      }
    })
    return (copy ?? value) as T
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let copy: Record<string, unknown> | undefined
    for (const [k, v] of Object.entries(value)) {
      const safe = terminalSafe(v)
      if (safe !== v) {
        copy ??= {...(value as Record<string, unknown>)}
        copy[k] = safe
      }
    }
    return (copy ?? value) as T
  }
  return value
}

/**
 * The last guard on a whole text output (a table, a report, stderr): layout (newline, tab) stays,
 * and with `color` our own SGR colour sequences; any other control character is escaped.
 */
export function terminalText(text: string, options: {color?: boolean} = {}): string {
  const re = options.color ? SGR_OR_CONTROL : CONTROL_BUT_LAYOUT
  re.lastIndex = 0
  if (!re.test(text)) return text
  return text.replace(re, (m) => (m.length > 1 ? m : escapeChar(m)))
}
