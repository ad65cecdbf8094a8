// Label selectors as apimachinery evaluates them (metav1.LabelSelectorAsSelector, labels.Selector)
// and the label map helpers of pkg/util/labels.

import type {LabelSelector} from '../api/types.js'

export interface Selector {
  matches(labels: Record<string, string> | undefined): boolean
  /** true for labels.Everything(). */
  empty(): boolean
  toString(): string
}

type Requirement = {key: string; op: 'in' | 'notin' | 'exists' | '!' | '=' | '!='; values: string[]}

class RequirementSelector implements Selector {
  constructor(private readonly reqs: Requirement[]) {}
  matches(labels: Record<string, string> | undefined): boolean {
    const l = labels ?? {}
    for (const r of this.reqs) {
      const has = Object.hasOwn(l, r.key)
      const v = has ? l[r.key] : undefined
      switch (r.op) {
        case '=':
        case 'in':
          if (!has || !r.values.includes(v as string)) return false
          break
        case '!=':
        case 'notin':
          if (has && r.values.includes(v as string)) return false
          break
        case 'exists':
          if (!has) return false
          break
        case '!':
          if (has) return false
          break
      }
    }
    return true
  }
  empty(): boolean {
    return this.reqs.length === 0
  }
  toString(): string {
    return this.reqs
      .map((r) => {
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
        }
        return ''
      })
      .join(',')
  }
}

const nothing: Selector = {matches: () => false, empty: () => false, toString: () => '<none>'}

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
