// Label selectors as apimachinery reads and evaluates them: kubectl's -l syntax (labels.Parse),
// metav1.LabelSelector (LabelSelectorAsSelector), one Selector for both; and the label map helpers
// of pkg/util/labels.

import type {LabelSelector} from '../api/types.js'

/** A parsed selector: labels.Selector. */
export interface Selector {
  matches(labels: Record<string, string> | undefined): boolean
  /** true for labels.Everything(). */
  empty(): boolean
  toString(): string
}

/** labels.Requirement: `=`/`!=` as written with one value, `in`/`notin` with a set, `!` for DoesNotExist. */
export interface Requirement {
  key: string
  op: 'in' | 'notin' | 'exists' | '!' | '=' | '!=' | 'gt' | 'lt'
  values: string[]
}

function requirementMatches(r: Requirement, l: Record<string, string>): boolean {
  const has = Object.hasOwn(l, r.key)
  const v = has ? l[r.key] : undefined
  switch (r.op) {
    case '=':
    case 'in':
      return has && r.values.includes(v as string)
    case '!=':
    case 'notin':
      return !has || !r.values.includes(v as string)
    case 'exists':
      return has
    case '!':
      return !has
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(v as string)) return false
      const bound = Number(r.values[0])
      return r.op === 'gt' ? Number(v) > bound : Number(v) < bound
    }
  }
}

function requirementString(r: Requirement): string {
  switch (r.op) {
    case '=':
    case '!=':
      return `${r.key}${r.op}${r.values[0]}`
    case 'in':
    case 'notin':
      return `${r.key} ${r.op} (${r.values.join(',')})`
    case 'exists':
      return r.key
    case '!':
      return `!${r.key}`
    case 'gt':
      return `${r.key}>${r.values[0]}`
    case 'lt':
      return `${r.key}<${r.values[0]}`
  }
}

class RequirementSelector implements Selector {
  constructor(readonly requirements: Requirement[]) {}
  matches(labels: Record<string, string> | undefined): boolean {
    const l = labels ?? {}
    return this.requirements.every((r) => requirementMatches(r, l))
  }
  empty(): boolean {
    return this.requirements.length === 0
  }
  toString(): string {
    return this.requirements.map(requirementString).join(',')
  }
}

const nothing: Selector = {matches: () => false, empty: () => false, toString: () => '<none>'}

/** A selector that does not parse or validate; its message is apimachinery's. */
export class SelectorError extends Error {}

// upstream: metav1.LabelSelectorAsSelector
export function labelSelectorAsSelector(ps: LabelSelector | undefined | null): Selector {
  if (ps == null) return nothing
  const matchLabels = ps.matchLabels ?? {}
  const exprs = ps.matchExpressions ?? []
  if (Object.keys(matchLabels).length === 0 && exprs.length === 0) return new RequirementSelector([])
  const reqs: Requirement[] = []
  for (const [k, v] of Object.entries(matchLabels)) reqs.push({key: k, op: '=', values: [v]})
  for (const e of exprs) {
    const values = e.values ?? []
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          throw new SelectorError("for 'in', 'notin' operators, values set can't be empty")
        reqs.push({key: e.key, op: e.operator === 'In' ? 'in' : 'notin', values: [...values].sort()})
        break
      case 'Exists':
      case 'DoesNotExist':
        if (values.length !== 0)
          throw new SelectorError('values set must be empty for exists and does not exist')
        reqs.push({key: e.key, op: e.operator === 'Exists' ? 'exists' : '!', values: []})
        break
      default:
        throw new SelectorError(`"${e.operator}" is not a valid label selector operator`)
    }
  }
  // apimachinery keeps requirements sorted by key, which only affects the printed form.
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return new RequirementSelector(reqs)
}

/** upstream: the `reflect.DeepEqual(d.Spec.Selector, &metav1.LabelSelector{})` guard. */
export function isSelectEverythingLiteral(ps: LabelSelector | undefined | null): boolean {
  return ps != null && ps.matchLabels == null && ps.matchExpressions == null
}

// upstream: labelsutil.CloneAndAddLabel
export function cloneAndAddLabel(
  labels: Record<string, string> | undefined,
  key: string,
  value: string,
): Record<string, string> {
  return {...(labels ?? {}), [key]: value}
}

// upstream: labelsutil.CloneAndRemoveLabel
export function cloneAndRemoveLabel(
  labels: Record<string, string> | undefined,
  key: string,
): Record<string, string> {
  const out = {...(labels ?? {})}
  delete out[key]
  return out
}

// upstream: labelsutil.CloneSelectorAndAddLabel
export function cloneSelectorAndAddLabel(
  sel: LabelSelector | undefined,
  key: string,
  value: string,
): LabelSelector {
  const out: LabelSelector = {matchLabels: {...(sel?.matchLabels ?? {}), [key]: value}}
  if (sel?.matchExpressions != null) {
    out.matchExpressions = sel.matchExpressions.map((e) => ({
      key: e.key,
      operator: e.operator,
      ...(e.values != null ? {values: [...e.values]} : {}),
    }))
  }
  return out
}

type Token =
  | {kind: 'id'; text: string}
  | {kind: 'op'; text: '=' | '==' | '!=' | '!' | '(' | ')' | ',' | '<' | '>'}
  | {kind: 'end'}

const SPECIAL = new Set(['=', '!', '(', ')', ',', '<', '>'])

function tokenize(input: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < input.length) {
    const c = input[i] as string
    if (/\s/.test(c)) {
      i++
    } else if (SPECIAL.has(c)) {
      const two = input.slice(i, i + 2)
      if (two === '==' || two === '!=') {
        tokens.push({kind: 'op', text: two})
        i += 2
      } else {
        tokens.push({kind: 'op', text: c as '=' | '!' | '(' | ')' | ',' | '<' | '>'})
        i++
      }
    } else {
      let j = i
      while (j < input.length && !SPECIAL.has(input[j] as string) && !/\s/.test(input[j] as string)) j++
      tokens.push({kind: 'id', text: input.slice(i, j)})
      i = j
    }
  }
  tokens.push({kind: 'end'})
  return tokens
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
const QUALIFIED_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/

function validateKey(key: string): void {
  const slash = key.lastIndexOf('/')
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined
  const name = slash >= 0 ? key.slice(slash + 1) : key
  const ok =
    (prefix === undefined || (prefix.length <= 253 && DNS1123_SUBDOMAIN.test(prefix))) &&
    name.length <= 63 &&
    QUALIFIED_NAME.test(name)
  if (!ok) throw new SelectorError(`unable to parse requirement: invalid label key "${key}"`)
}

function validateValue(value: string): void {
  if (value.length > 63 || !LABEL_VALUE.test(value)) {
    throw new SelectorError(`unable to parse requirement: invalid label value: "${value}"`)
  }
}

// upstream: labels.Parse — kubectl's -l syntax; an empty string selects everything.
export function parseLabelSelector(input: string): Selector {
  const tokens = tokenize(input)
  let pos = 0
  const peek = (): Token => tokens[pos] as Token
  const next = (): Token => tokens[pos++] as Token
  const describe = (t: Token): string => (t.kind === 'end' ? '' : t.text)
  const fail = (t: Token, expected: string): never => {
    throw new SelectorError(`unable to parse requirement: found '${describe(t)}', expected: ${expected}`)
  }

  const requirements: Requirement[] = []
  if (peek().kind === 'end') return new RequirementSelector(requirements)
  for (;;) {
    let t = next()
    if (t.kind === 'op' && t.text === '!') {
      const key = next()
      if (key.kind !== 'id') fail(key, 'identifier')
      validateKey((key as {text: string}).text)
      requirements.push({key: (key as {text: string}).text, op: '!', values: []})
    } else if (t.kind === 'id') {
      const key = t.text
      validateKey(key)
      const op = peek()
      if (op.kind === 'end' || (op.kind === 'op' && op.text === ',')) {
        requirements.push({key, op: 'exists', values: []})
      } else if (op.kind === 'id' && (op.text === 'in' || op.text === 'notin')) {
        next()
        const open = next()
        if (!(open.kind === 'op' && open.text === '(')) fail(open, "'('")
        const values: string[] = []
        for (;;) {
          t = next()
          if (t.kind === 'op' && t.text === ')' && values.length === 0) {
            throw new SelectorError(
              `unable to parse requirement: for 'in', 'notin' operators, values set can't be empty`,
            )
          }
          if (t.kind !== 'id') fail(t, 'a value')
          validateValue((t as {text: string}).text)
          values.push((t as {text: string}).text)
          const sep = next()
          if (sep.kind === 'op' && sep.text === ')') break
          if (!(sep.kind === 'op' && sep.text === ',')) fail(sep, "',' or ')'")
        }
        requirements.push({key, op: op.text === 'in' ? 'in' : 'notin', values})
      } else if (op.kind === 'op' && ['=', '==', '!='].includes(op.text)) {
        next()
        const v = peek()
        let value = ''
        if (v.kind === 'id') {
          value = v.text
          next()
        }
        validateValue(value)
        requirements.push({key, op: op.text === '!=' ? '!=' : '=', values: [value]})
      } else if (op.kind === 'op' && (op.text === '<' || op.text === '>')) {
        next()
        const v = next()
        if (v.kind !== 'id' || !/^-?\d+$/.test(v.text)) {
          throw new SelectorError(
            `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`,
          )
        }
        requirements.push({key, op: op.text === '>' ? 'gt' : 'lt', values: [v.text]})
      } else {
        fail(op, '=, !=, ==, in, notin, <, >')
      }
    } else {
      fail(t, '! or identifier')
    }
    const sep = next()
    if (sep.kind === 'end') break
    if (!(sep.kind === 'op' && sep.text === ',')) fail(sep, "','")
  }
  return new RequirementSelector(requirements)
}
