// metav1 validation: ObjectMeta (apimachinery pkg/api/validation/objectmeta.go) and label
// selectors (pkg/apis/meta/v1/validation), on objects as JSON.

import {
  type FieldError,
  forbidden,
  goStruct,
  invalid,
  type Path,
  type PathElem,
  required,
  tooLong,
} from './field.js'
import {isDNS1123Label, isDNS1123Subdomain, labelValueMemo, qualifiedNameMemo} from './names.js'

export type Obj = Record<string, unknown>

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : ''
}

// upstream: ValidateNonnegativeField
export function nonNegative(v: unknown, path: Path, errs: FieldError[]): void {
  if (typeof v === 'number' && v < 0) errs.push(invalid(path, v, 'must be greater than or equal to 0'))
}

// upstream: v1validation.ValidateLabels
export function validateLabels(labels: unknown, path: Path, errs: FieldError[]): void {
  if (!isObject(labels)) return
  for (const [k, v] of Object.entries(labels)) {
    for (const m of qualifiedNameMemo(k)) errs.push(invalid(path, k, m))
    for (const m of labelValueMemo(str(v))) errs.push(invalid(path, v, m))
  }
}

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024

// upstream: ValidateAnnotations
export function validateAnnotations(annotations: unknown, path: Path, errs: FieldError[]): void {
  if (!isObject(annotations)) return
  let size = 0
  for (const [k, v] of Object.entries(annotations)) {
    for (const m of qualifiedNameMemo(k.toLowerCase())) errs.push(invalid(path, k, m))
    size += k.length + str(v).length
  }
  // UTF-16 length is a lower bound of the byte length: count bytes only when it can matter.
  if (size * 3 > TOTAL_ANNOTATION_SIZE_LIMIT) {
    size = 0
    for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k) + Buffer.byteLength(str(v))
    if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT))
  }
}

// upstream: ValidateOwnerReferences
function validateOwnerReferences(refs: unknown, path: Path, errs: FieldError[]): void {
  if (!Array.isArray(refs)) return
  let firstController = ''
  for (const r of refs) {
    if (!isObject(r)) continue
    const apiVersion = str(r.apiVersion)
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion
    if (version === '') errs.push(invalid([...path, 'apiVersion'], apiVersion, 'version must not be empty'))
    if (str(r.kind) === '') errs.push(invalid([...path, 'kind'], str(r.kind), 'must not be empty'))
    if (str(r.name) === '') errs.push(invalid([...path, 'name'], str(r.name), 'must not be empty'))
    if (str(r.uid) === '') errs.push(invalid([...path, 'uid'], str(r.uid), 'must not be empty'))
    if (apiVersion === 'v1' && r.kind === 'Event') {
      errs.push(invalid(path, ownerReferenceValue(r), '/v1, Kind=Event is disallowed from being an owner'))
    }
    if (r.controller === true) {
      const name = `${str(r.kind)}/${str(r.name)}`
      if (firstController === '') firstController = name
      else {
        errs.push(
          invalid(
            path,
            refs.map(ownerReferenceValue),
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${name}`,
          ),
        )
      }
    }
  }
}

/** An owner reference as metav1.OwnerReference marshals it: its fields in declaration order. */
function ownerReferenceValue(r: unknown): unknown {
  if (!isObject(r)) return r
  const out: Obj = goStruct({
    apiVersion: str(r.apiVersion),
    kind: str(r.kind),
    name: str(r.name),
    uid: str(r.uid),
  })
  if (typeof r.controller === 'boolean') out.controller = r.controller
  if (typeof r.blockOwnerDeletion === 'boolean') out.blockOwnerDeletion = r.blockOwnerDeletion
  return out
}

// upstream: ValidateFinalizers
function validateFinalizers(finalizers: unknown, path: Path, errs: FieldError[]): void {
  if (!Array.isArray(finalizers)) return
  for (const f of finalizers) for (const m of qualifiedNameMemo(str(f))) errs.push(invalid(path, f, m))
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(invalid(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'))
  }
}

// upstream: ValidateObjectMeta (namespaced, name a DNS-1123 subdomain: every kind validated here)
export function validateObjectMeta(meta: Obj, errs: FieldError[]): void {
  const path: PathElem[] = ['metadata']
  const generateName = str(meta.generateName)
  if (generateName !== '') {
    // A prefix may end in '-': upstream's NameIsDNSSubdomain(name, prefix=true) checks name + "a".
    for (const m of isDNS1123Subdomain(`${generateName}a`))
      errs.push(invalid([...path, 'generateName'], generateName, m))
  }
  const name = str(meta.name)
  if (name === '') errs.push(required([...path, 'name'], 'name or generateName is required'))
  else for (const m of isDNS1123Subdomain(name)) errs.push(invalid([...path, 'name'], name, m))
  const ns = str(meta.namespace)
  if (ns === '') errs.push(required([...path, 'namespace']))
  else for (const m of isDNS1123Label(ns)) errs.push(invalid([...path, 'namespace'], ns, m))
  nonNegative(meta.generation, [...path, 'generation'], errs)
  validateLabels(meta.labels, [...path, 'labels'], errs)
  validateAnnotations(meta.annotations, [...path, 'annotations'], errs)
  validateOwnerReferences(meta.ownerReferences, [...path, 'ownerReferences'], errs)
  validateFinalizers(meta.finalizers, [...path, 'finalizers'], errs)
}

const OPERATORS_WITH_VALUES = new Set(['In', 'NotIn'])
const OPERATORS_WITHOUT_VALUES = new Set(['Exists', 'DoesNotExist'])

/**
 * upstream: v1validation.ValidateLabelSelector. Returns the number of errors it added: a selector
 * with any of them does not convert (metav1.LabelSelectorAsSelector fails on the same inputs).
 */
export function validateLabelSelector(sel: Obj, path: Path, errs: FieldError[]): number {
  const before = errs.length
  validateLabels(sel.matchLabels, [...path, 'matchLabels'], errs)
  if (Array.isArray(sel.matchExpressions)) {
    sel.matchExpressions.forEach((expr, i) => {
      if (!isObject(expr)) return
      const p: PathElem[] = [...path, 'matchExpressions', i]
      const op = str(expr.operator)
      const values = Array.isArray(expr.values) ? expr.values : []
      if (OPERATORS_WITH_VALUES.has(op)) {
        if (values.length === 0) {
          errs.push(required([...p, 'values'], "must be specified when `operator` is 'In' or 'NotIn'"))
        }
      } else if (OPERATORS_WITHOUT_VALUES.has(op)) {
        if (values.length > 0) {
          errs.push(
            forbidden([...p, 'values'], "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
          )
        }
      } else {
        errs.push(invalid([...p, 'operator'], op, 'not a valid selector operator'))
      }
      for (const m of qualifiedNameMemo(str(expr.key))) errs.push(invalid([...p, 'key'], str(expr.key), m))
      values.forEach((v, j) => {
        for (const m of labelValueMemo(str(v))) errs.push(invalid([...p, 'values', j], v, m))
      })
    })
  }
  return errs.length - before
}

export function isEmptySelector(sel: Obj): boolean {
  const ml = isObject(sel.matchLabels) ? Object.keys(sel.matchLabels).length : 0
  const me = Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0
  return ml + me === 0
}

/** labels.Selector.Matches for a selector that converted without error. */
export function selectorMatches(sel: Obj, labels: Obj): boolean {
  if (isObject(sel.matchLabels)) {
    for (const [k, v] of Object.entries(sel.matchLabels)) if (labels[k] !== v) return false
  }
  if (Array.isArray(sel.matchExpressions)) {
    for (const expr of sel.matchExpressions) {
      if (!isObject(expr)) continue
      const key = str(expr.key)
      const has = Object.hasOwn(labels, key)
      const values = Array.isArray(expr.values) ? expr.values : []
      switch (expr.operator) {
        case 'In':
          if (!has || !values.includes(labels[key])) return false
          break
        case 'NotIn':
          if (has && values.includes(labels[key])) return false
          break
        case 'Exists':
          if (!has) return false
          break
        case 'DoesNotExist':
          if (has) return false
          break
      }
    }
  }
  return true
}

/** The selector as metav1.LabelSelector marshals it: matchLabels, then matchExpressions. */
export function selectorValue(sel: Obj): Obj {
  const out: Obj = goStruct({})
  if (isObject(sel.matchLabels) && Object.keys(sel.matchLabels).length > 0) out.matchLabels = sel.matchLabels
  if (Array.isArray(sel.matchExpressions) && sel.matchExpressions.length > 0) {
    out.matchExpressions = sel.matchExpressions.map((e) => {
      if (!isObject(e)) return e
      const r: Obj = goStruct({key: str(e.key), operator: str(e.operator)})
      if (Array.isArray(e.values) && e.values.length > 0) r.values = e.values
      return r
    })
  }
  return out
}
