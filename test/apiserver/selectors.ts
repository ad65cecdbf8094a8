// Label selectors (labels.Parse syntax and metav1.LabelSelector) and field selectors.

import {badRequest} from './errors.js'
import {isObj, type Obj, stringMap} from './util.js'

export type LabelOp = 'exists' | 'doesNotExist' | 'in' | 'notin' | 'eq' | 'neq' | 'gt' | 'lt'

export interface LabelRequirement {
  key: string
  op: LabelOp
  values: string[]
}

export type LabelSelector = LabelRequirement[]

function splitTopLevel(s: string): string[] {
  const parts: string[] = []
  let depth = 0
  let cur = ''
  for (const c of s) {
    if (c === '(') depth++
    if (c === ')') depth--
    if (c === ',' && depth === 0) {
      parts.push(cur)
      cur = ''
    } else {
      cur += c
    }
  }
  parts.push(cur)
  return parts.map((p) => p.trim()).filter((p) => p !== '')
}

const KEY = '[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?'
const VALUE = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'

/** labels.Parse: `a=b,c!=d,e in (x,y),f notin (z),g,!h`. Throws a 400 on syntax errors. */
export function parseLabelSelector(input: string): LabelSelector {
  const reqs: LabelRequirement[] = []
  for (const term of splitTopLevel(input)) {
    let m: RegExpMatchArray | null
    if ((m = term.match(new RegExp(`^!\\s*(${KEY})$`)))) {
      reqs.push({key: m[1] as string, op: 'doesNotExist', values: []})
    } else if ((m = term.match(new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^)]*)\\)$`)))) {
      const values = (m[4] as string)
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '')
      reqs.push({key: m[1] as string, op: m[3] === 'in' ? 'in' : 'notin', values})
    } else if ((m = term.match(new RegExp(`^(${KEY})\\s*(==|=|!=)\\s*(${VALUE})$`)))) {
      reqs.push({key: m[1] as string, op: m[3] === '!=' ? 'neq' : 'eq', values: [m[4] as string]})
    } else if ((m = term.match(new RegExp(`^(${KEY})\\s*(<|>)\\s*(-?\\d+)$`)))) {
      reqs.push({key: m[1] as string, op: m[3] === '>' ? 'gt' : 'lt', values: [m[4] as string]})
    } else if ((m = term.match(new RegExp(`^(${KEY})$`)))) {
      reqs.push({key: m[1] as string, op: 'exists', values: []})
    } else {
      throw badRequest(`unable to parse requirement: found '${term}', expected: identifier`)
    }
  }
  return reqs
}

export function matchesLabels(sel: LabelSelector, labelsIn: unknown): boolean {
  const labels = stringMap(labelsIn)
  return sel.every((r) => {
    const has = Object.hasOwn(labels, r.key)
    const v = labels[r.key]
    switch (r.op) {
      case 'exists':
        return has
      case 'doesNotExist':
        return !has
      case 'eq':
      case 'in':
        return has && r.values.includes(v as string)
      case 'neq':
      case 'notin':
        return !has || !r.values.includes(v as string)
      case 'gt':
        return has && Number(v) > Number(r.values[0])
      case 'lt':
        return has && Number(v) < Number(r.values[0])
    }
    return false
  })
}

/** metav1.LabelSelectorAsSelector. Returns undefined for a nil selector (selects nothing). */
export function fromLabelSelector(sel: unknown): LabelSelector | undefined {
  if (!isObj(sel)) return undefined
  const reqs: LabelRequirement[] = []
  for (const [k, v] of Object.entries(stringMap(sel.matchLabels))) reqs.push({key: k, op: 'eq', values: [v]})
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []
  for (const e of exprs) {
    if (!isObj(e) || typeof e.key !== 'string') continue
    const values = Array.isArray(e.values) ? e.values.filter((x): x is string => typeof x === 'string') : []
    const op: LabelOp | undefined =
      e.operator === 'In'
        ? 'in'
        : e.operator === 'NotIn'
          ? 'notin'
          : e.operator === 'Exists'
            ? 'exists'
            : e.operator === 'DoesNotExist'
              ? 'doesNotExist'
              : undefined
    if (op) reqs.push({key: e.key, op, values})
  }
  return reqs
}

/** labels.Selector.String(): requirements sorted by key, values sorted. */
export function formatLabelSelector(sel: LabelSelector): string {
  return [...sel]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => {
      const vals = [...r.values].sort()
      switch (r.op) {
        case 'exists':
          return r.key
        case 'doesNotExist':
          return `!${r.key}`
        case 'eq':
          return vals.length === 1 ? `${r.key}=${vals[0]}` : `${r.key} in (${vals.join(',')})`
        case 'neq':
          return `${r.key}!=${vals[0]}`
        case 'in':
          return vals.length === 1 ? `${r.key}=${vals[0]}` : `${r.key} in (${vals.join(',')})`
        case 'notin':
          return vals.length === 1 ? `${r.key}!=${vals[0]}` : `${r.key} notin (${vals.join(',')})`
        case 'gt':
          return `${r.key}>${vals[0]}`
        case 'lt':
          return `${r.key}<${vals[0]}`
      }
      return r.key
    })
    .join(',')
}

export interface FieldRequirement {
  field: string
  op: 'eq' | 'neq'
  value: string
}

export function parseFieldSelector(input: string, supported: readonly string[]): FieldRequirement[] {
  const reqs: FieldRequirement[] = []
  for (const term of input
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')) {
    const m = term.match(/^([^=!]+?)\s*(==|=|!=)\s*(.*)$/)
    if (!m) throw badRequest(`invalid selector: '${input}'; can't understand '${term}'`)
    const field = m[1] as string
    if (!supported.includes(field)) throw badRequest(`field label not supported: ${field}`)
    reqs.push({field, op: m[2] === '!=' ? 'neq' : 'eq', value: m[3] as string})
  }
  return reqs
}

export function matchesFields(reqs: FieldRequirement[], fields: Record<string, string>): boolean {
  return reqs.every((r) => ((fields[r.field] ?? '') === r.value) === (r.op === 'eq'))
}

export function labelsOf(o: Obj): unknown {
  return isObj(o.metadata) ? o.metadata.labels : undefined
}
