// kubectl's `-l/--selector` syntax (apimachinery's labels.Parse): `a=b,c!=d,e in (x,y),f notin (z),g,!h,i>3`.

import {UsageError} from '../../cluster/world.js'

export type Operator = 'exists' | 'doesNotExist' | 'in' | 'notIn' | 'gt' | 'lt'

export interface Requirement {
  key: string
  operator: Operator
  values: string[]
}

export interface Selector {
  requirements: Requirement[]
  matches(labels: Record<string, string> | undefined): boolean
  toString(): string
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
  if (!ok) throw new UsageError(`unable to parse requirement: invalid label key "${key}"`)
}

function validateValue(value: string): void {
  if (value.length > 63 || !LABEL_VALUE.test(value)) {
    throw new UsageError(`unable to parse requirement: invalid label value: "${value}"`)
  }
}

/** Parses a kubectl label selector; an empty string selects everything. Errors are UsageErrors. */
export function parseLabelSelector(input: string): Selector {
  const tokens = tokenize(input)
  let pos = 0
  const peek = (): Token => tokens[pos] as Token
  const next = (): Token => tokens[pos++] as Token
  const describe = (t: Token): string => (t.kind === 'end' ? '' : t.text)
  const fail = (t: Token, expected: string): never => {
    throw new UsageError(`unable to parse requirement: found '${describe(t)}', expected: ${expected}`)
  }

  const requirements: Requirement[] = []
  if (peek().kind === 'end') return makeSelector(requirements)
  for (;;) {
    let t = next()
    if (t.kind === 'op' && t.text === '!') {
      const key = next()
      if (key.kind !== 'id') fail(key, 'identifier')
      validateKey((key as {text: string}).text)
      requirements.push({key: (key as {text: string}).text, operator: 'doesNotExist', values: []})
    } else if (t.kind === 'id') {
      const key = t.text
      validateKey(key)
      const op = peek()
      if (op.kind === 'end' || (op.kind === 'op' && op.text === ',')) {
        requirements.push({key, operator: 'exists', values: []})
      } else if (op.kind === 'id' && (op.text === 'in' || op.text === 'notin')) {
        next()
        const open = next()
        if (!(open.kind === 'op' && open.text === '(')) fail(open, "'('")
        const values: string[] = []
        for (;;) {
          t = next()
          if (t.kind === 'op' && t.text === ')' && values.length === 0) {
            throw new UsageError(
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
        requirements.push({key, operator: op.text === 'in' ? 'in' : 'notIn', values})
      } else if (op.kind === 'op' && ['=', '==', '!='].includes(op.text)) {
        next()
        const v = peek()
        let value = ''
        if (v.kind === 'id') {
          value = v.text
          next()
        }
        validateValue(value)
        requirements.push({key, operator: op.text === '!=' ? 'notIn' : 'in', values: [value]})
      } else if (op.kind === 'op' && (op.text === '<' || op.text === '>')) {
        next()
        const v = next()
        if (v.kind !== 'id' || !/^-?\d+$/.test(v.text)) {
          throw new UsageError(
            `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`,
          )
        }
        requirements.push({key, operator: op.text === '>' ? 'gt' : 'lt', values: [v.text]})
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
  return makeSelector(requirements)
}

function matches(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key)
  const value = labels[r.key]
  switch (r.operator) {
    case 'exists':
      return has
    case 'doesNotExist':
      return !has
    case 'in':
      return has && r.values.includes(value as string)
    case 'notIn':
      return !has || !r.values.includes(value as string)
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value as string)) return false
      const n = Number(value)
      const bound = Number(r.values[0])
      return r.operator === 'gt' ? n > bound : n < bound
    }
  }
}

function format(r: Requirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key
    case 'doesNotExist':
      return `!${r.key}`
    case 'in':
      return r.values.length === 1 ? `${r.key}=${r.values[0]}` : `${r.key} in (${r.values.join(',')})`
    case 'notIn':
      return r.values.length === 1 ? `${r.key}!=${r.values[0]}` : `${r.key} notin (${r.values.join(',')})`
    case 'gt':
      return `${r.key}>${r.values[0]}`
    case 'lt':
      return `${r.key}<${r.values[0]}`
  }
}

function makeSelector(requirements: Requirement[]): Selector {
  return {
    requirements,
    matches: (labels) => requirements.every((r) => matches(r, labels ?? {})),
    toString: () => requirements.map(format).join(','),
  }
}
