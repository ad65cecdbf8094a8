// kubectl's -o jsonpath=TEMPLATE: client-go's util/jsonpath template dialect, as `kubectl get`
// runs it (missing keys allowed). Text outside braces is printed as it is; inside braces:
// fields (.a.b, ['a.b']), @ and $, [*], indexes and negative indexes, slices [a:b:c], unions
// [a,b], recursive descent (..name), filters ?(@.x == "y") with == != < > <= >= and bare
// existence, string literals ("\n"), and range ... end. No npm package implements this dialect
// (the JSONPath libraries evaluate a single `$...` expression, without text, literals or range),
// so this is a small port; test/unit/jsonpath.test.ts follows upstream's jsonpath_test.go cases.

/** A template that does not parse, or a filter that cannot be evaluated. */
export class JsonPathError extends Error {}

type Node =
  | {kind: 'text'; text: string}
  | {kind: 'list'; steps: Step[]}
  | {kind: 'range'; steps: Step[]; body: Node[]}

type Step =
  | {kind: 'root'}
  | {kind: 'current'}
  | {kind: 'field'; name: string}
  | {kind: 'wildcard'}
  | {kind: 'recursive'}
  | {kind: 'index'; items: Array<number | {start?: number; end?: number; step?: number} | string>}
  | {kind: 'filter'; left: Step[]; op?: string; right?: Step[] | string | number | boolean}
  | {kind: 'literal'; value: string}

/** Parses a template into nodes; throws JsonPathError with kubectl's kind of message. */
export function parseTemplate(template: string): Node[] {
  const root: Node[] = []
  const stack: Array<Node[]> = [root]
  let i = 0
  while (i < template.length) {
    const open = template.indexOf('{', i)
    if (open < 0) {
      stack.at(-1)!.push({kind: 'text', text: template.slice(i)})
      break
    }
    if (open > i) stack.at(-1)!.push({kind: 'text', text: template.slice(i, open)})
    const close = matchingBrace(template, open)
    const action = template.slice(open + 1, close).trim()
    i = close + 1
    if (action === 'end') {
      if (stack.length === 1) throw new JsonPathError('not in range, nothing to end')
      stack.pop()
      continue
    }
    if (action.startsWith('range ') || action === 'range') {
      const node: Node = {kind: 'range', steps: parsePath(action.slice(5).trim()), body: []}
      stack.at(-1)!.push(node)
      stack.push(node.body)
      continue
    }
    stack.at(-1)!.push({kind: 'list', steps: parsePath(action)})
  }
  if (stack.length > 1) throw new JsonPathError('unclosed action: range without end')
  return root
}

function matchingBrace(s: string, open: number): number {
  let quote: string | undefined
  for (let j = open + 1; j < s.length; j++) {
    const c = s[j]
    if (quote) {
      if (c === '\\') j++
      else if (c === quote) quote = undefined
    } else if (c === '"' || c === "'") quote = c
    else if (c === '}') return j
  }
  throw new JsonPathError(`unclosed action: ${s.slice(open)}`)
}

function unquote(text: string): string {
  if (text.startsWith('"')) {
    try {
      return JSON.parse(text) as string
    } catch {
      throw new JsonPathError(`invalid string literal ${text}`)
    }
  }
  return text.slice(1, -1)
}

/** One action's path: `.a.b[*]`, `..x`, `@.x`, `$`, a literal. */
function parsePath(text: string): Step[] {
  const steps: Step[] = []
  let i = 0
  const s = text
  if (s.startsWith('"') || s.startsWith("'")) return [{kind: 'literal', value: unquote(s)}]
  while (i < s.length) {
    const c = s[i]
    if (c === '$') {
      steps.push({kind: 'root'})
      i++
    } else if (c === '@') {
      steps.push({kind: 'current'})
      i++
    } else if (s.startsWith('..', i)) {
      steps.push({kind: 'recursive'})
      i += 2
      if (s[i] !== '[' && s[i] !== '.') i = field(s, i, steps)
    } else if (c === '.') {
      i = field(s, i + 1, steps)
    } else if (c === '[') {
      const close = bracketEnd(s, i)
      steps.push(bracket(s.slice(i + 1, close).trim()))
      i = close + 1
    } else if (c === ' ') {
      i++
    } else {
      // kubectl reads a bare name as a field of the current object.
      i = field(s, i, steps)
    }
  }
  return steps
}

/** A field name up to `.`, `[` or a space; `\.` is a dot of the name (`labels.app\.kubernetes\.io/name`). */
function field(s: string, i: number, steps: Step[]): number {
  let j = i
  while (j < s.length && !'.[ '.includes(s[j]!)) j += s[j] === '\\' ? 2 : 1
  const name = s.slice(i, j).replace(/\\(.)/g, '$1')
  if (name === '*') steps.push({kind: 'wildcard'})
  else if (name !== '') steps.push({kind: 'field', name})
  return j
}

function bracketEnd(s: string, open: number): number {
  let depth = 0
  let quote: string | undefined
  for (let j = open; j < s.length; j++) {
    const c = s[j]
    if (quote) {
      if (c === '\\') j++
      else if (c === quote) quote = undefined
    } else if (c === '"' || c === "'") quote = c
    else if (c === '[' || c === '(') depth++
    else if (c === ']' || c === ')') {
      depth--
      if (depth === 0 && c === ']') return j
    }
  }
  throw new JsonPathError(`unterminated array: ${s.slice(open)}`)
}

const FILTER = /^\?\((.*)\)$/s
const COMPARE = /^(.*?)\s*(==|!=|<=|>=|<|>|=~)\s*(.*)$/s

function bracket(inner: string): Step {
  if (inner === '*') return {kind: 'wildcard'}
  const filter = FILTER.exec(inner)
  if (filter) {
    const body = filter[1]!.trim()
    const m = COMPARE.exec(body)
    if (!m) return {kind: 'filter', left: parsePath(body)}
    return {kind: 'filter', left: parsePath(m[1]!.trim()), op: m[2]!, right: operand(m[3]!.trim())}
  }
  const items = splitTop(inner).map(
    (part): number | {start?: number; end?: number; step?: number} | string => {
      const p = part.trim()
      if (p.startsWith("'") || p.startsWith('"')) return unquote(p)
      if (p.includes(':')) {
        const [a, b, c] = p.split(':').map((x) => x.trim())
        const n = (x: string | undefined) => (x === undefined || x === '' ? undefined : int(x))
        return {start: n(a), end: n(b), step: n(c)}
      }
      if (/^-?\d+$/.test(p)) return Number(p)
      return p
    },
  )
  return {kind: 'index', items}
}

function int(x: string): number {
  if (!/^-?\d+$/.test(x)) throw new JsonPathError(`invalid array index ${x}`)
  return Number(x)
}

function splitTop(s: string): string[] {
  const parts: string[] = []
  let quote: string | undefined
  let start = 0
  for (let j = 0; j < s.length; j++) {
    const c = s[j]
    if (quote) {
      if (c === '\\') j++
      else if (c === quote) quote = undefined
    } else if (c === '"' || c === "'") quote = c
    else if (c === ',') {
      parts.push(s.slice(start, j))
      start = j + 1
    }
  }
  parts.push(s.slice(start))
  return parts
}

function operand(text: string): Step[] | string | number | boolean {
  if (text.startsWith('"') || text.startsWith("'")) return unquote(text)
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text)
  if (text === 'true' || text === 'false') return text === 'true'
  return parsePath(text)
}

// --- evaluation ------------------------------------------------------------------------------

function walk(steps: Step[], root: unknown, current: unknown): unknown[] {
  let values: unknown[] = [current]
  for (const step of steps) {
    const next: unknown[] = []
    for (const v of values) next.push(...apply(step, v, root))
    values = next
  }
  return values
}

function apply(step: Step, v: unknown, root: unknown): unknown[] {
  switch (step.kind) {
    case 'root':
      return [root]
    case 'current':
      return [v]
    case 'literal':
      return [step.value]
    case 'field':
      return isObject(v) && Object.hasOwn(v, step.name) ? [v[step.name]] : []
    case 'wildcard':
      return Array.isArray(v) ? [...v] : isObject(v) ? Object.values(v) : []
    case 'recursive':
      return descendants(v)
    case 'index': {
      const out: unknown[] = []
      for (const item of step.items) {
        if (typeof item === 'string') {
          if (isObject(v) && Object.hasOwn(v, item)) out.push(v[item])
        } else if (!Array.isArray(v)) {
        } else if (typeof item === 'number') {
          const at = item < 0 ? v.length + item : item
          if (at >= 0 && at < v.length) out.push(v[at])
        } else {
          out.push(...slice(v, item))
        }
      }
      return out
    }
    case 'filter': {
      const list = Array.isArray(v) ? v : isObject(v) ? Object.values(v) : []
      return list.filter((el) => matches(step, el, root))
    }
  }
}

function slice(v: unknown[], s: {start?: number; end?: number; step?: number}): unknown[] {
  const len = v.length
  const norm = (n: number) => (n < 0 ? Math.max(0, len + n) : Math.min(n, len))
  const start = s.start === undefined ? 0 : norm(s.start)
  const end = s.end === undefined ? len : norm(s.end)
  const step = s.step ?? 1
  if (step <= 0) throw new JsonPathError('step must be > 0')
  const out: unknown[] = []
  for (let i = start; i < end; i += step) out.push(v[i])
  return out
}

function descendants(v: unknown): unknown[] {
  const out: unknown[] = [v]
  const children = Array.isArray(v) ? v : isObject(v) ? Object.values(v) : []
  for (const c of children) out.push(...descendants(c))
  return out
}

function matches(step: Extract<Step, {kind: 'filter'}>, el: unknown, root: unknown): boolean {
  const left = walk(step.left, root, el)
  if (step.op === undefined) return left.length > 0 && left[0] !== false && left[0] != null
  if (left.length === 0) return false
  const right = Array.isArray(step.right) ? walk(step.right as Step[], root, el)[0] : (step.right as unknown)
  const a = left[0]
  switch (step.op) {
    case '==':
      return a === right || String(a) === String(right)
    case '!=':
      return !(a === right || String(a) === String(right))
    case '<':
    case '>':
    case '<=':
    case '>=': {
      const x = Number(a)
      const y = Number(right)
      if (!Number.isFinite(x) || !Number.isFinite(y)) {
        throw new JsonPathError(`${String(a)} and ${String(right)} cannot be compared with ${step.op}`)
      }
      return step.op === '<' ? x < y : step.op === '>' ? x > y : step.op === '<=' ? x <= y : x >= y
    }
    case '=~':
      return new RegExp(String(right)).test(String(a))
    default:
      throw new JsonPathError(`unsupported operator ${step.op}`)
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** How kubectl prints a value: strings as they are, everything else as JSON. */
function print(v: unknown): string {
  if (typeof v === 'string') return v
  if (v === undefined) return ''
  return JSON.stringify(v)
}

function execute(nodes: Node[], root: unknown, current: unknown): string {
  let out = ''
  for (const node of nodes) {
    if (node.kind === 'text') out += node.text
    else if (node.kind === 'list') out += walk(node.steps, root, current).map(print).join(' ')
    else {
      // upstream: the body runs once per value the path yields, with that value as its data
      // (`{range .items[*]}` visits each item; `{range .items}` the list once).
      for (const v of walk(node.steps, root, current)) out += execute(node.body, v, v)
    }
  }
  return out
}

/** Runs a parsed template on a document, as `kubectl get -o jsonpath=...` prints it. */
export function runTemplate(nodes: Node[], doc: unknown): string {
  return execute(nodes, doc, doc)
}

/** Parses and runs a template. */
export function jsonpath(template: string, doc: unknown): string {
  return runTemplate(parseTemplate(template), doc)
}
