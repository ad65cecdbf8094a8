// What the API server's create validation (pkg/apis/apps/validation, pkg/apis/core/validation and
// apimachinery's label/name rules) would reject, with its field paths and wording, for the parts
// that matter to the Deployment controller. Runs on defaulted objects, as the API server does.

import {
  duplicate,
  type FieldError,
  forbidden,
  invalid,
  notSupported,
  type Path,
  type PathElem,
  required,
  unknownField,
} from './problems.js'

type Obj = Record<string, unknown>

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : ''
}

// --- apimachinery/pkg/util/validation ---

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  // Reproduces upstream's RegexError byte for byte, double space included.
  let out = `${msg} (e.g. `
  examples.forEach((e, i) => {
    if (i > 0) out += ' or '
    out += `'${e}', `
  })
  return `${out}regex used for validation is '${fmt}')`
}

const maxLenError = (n: number): string => `must be no more than ${n} characters`

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`)
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
const LABEL_VALUE_FMT = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`)
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?'
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`)
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`)
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
const PERCENT_RE = /^[0-9]+%$/
const PERCENT_MSG = regexError(
  "a valid percent string must be a numeric string followed by an ending '%'",
  '[0-9]+%',
  '1%',
  '93%',
)
const ATOI_RE = /^[+-]?[0-9]+$/

export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = []
  if (v.length > 253) errs.push(maxLenError(253))
  if (!DNS1123_SUBDOMAIN_RE.test(v))
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'))
  return errs
}

export function isDNS1123Label(v: string): string[] {
  const errs: string[] = []
  if (v.length > 63) errs.push(maxLenError(63))
  if (!DNS1123_LABEL_RE.test(v))
    errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'))
  return errs
}

// Label keys, annotation keys and label values repeat across a snapshot's objects (app,
// pod-template-hash, ...): their verdicts are remembered, within a bound, instead of re-run.
const MEMO_LIMIT = 10_000
const NO_ERRORS: string[] = []

function memoized(check: (v: string) => string[]): (v: string) => string[] {
  const memo = new Map<string, string[]>()
  return (v) => {
    let r = memo.get(v)
    if (r === undefined) {
      r = check(v)
      if (r.length === 0) r = NO_ERRORS
      if (memo.size >= MEMO_LIMIT) memo.clear()
      memo.set(v, r)
    }
    return r
  }
}

export function isQualifiedName(v: string): string[] {
  const errs: string[] = []
  const parts = v.split('/')
  let name: string
  if (parts.length === 1) name = parts[0]
  else if (parts.length === 2) {
    const prefix = parts[0]
    name = parts[1]
    if (prefix.length === 0) errs.push('prefix part must be non-empty')
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`)
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ]
  }
  if (name.length === 0) errs.push('name part must be non-empty')
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`)
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(
      `name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`,
    )
  }
  return errs
}

export function isValidLabelValue(v: string): string[] {
  const errs: string[] = []
  if (v.length > 63) errs.push(maxLenError(63))
  if (!LABEL_VALUE_RE.test(v))
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'))
  return errs
}

const qualifiedName = memoized(isQualifiedName)
const labelValue = memoized(isValidLabelValue)

// --- metav1 validation ---

function validateLabels(labels: unknown, path: Path, errs: FieldError[]): void {
  if (!isObject(labels)) return
  for (const [k, v] of Object.entries(labels)) {
    for (const m of qualifiedName(k)) errs.push(invalid(path, k, m))
    for (const m of labelValue(str(v))) errs.push(invalid(path, v, m))
  }
}

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024

function validateAnnotations(annotations: unknown, path: Path, errs: FieldError[]): void {
  if (!isObject(annotations)) return
  let size = 0
  for (const [k, v] of Object.entries(annotations)) {
    for (const m of qualifiedName(k.toLowerCase())) errs.push(invalid(path, k, m))
    size += k.length + str(v).length
  }
  // UTF-16 length is a lower bound of the byte length: count bytes only when it can matter.
  if (size * 3 > TOTAL_ANNOTATION_SIZE_LIMIT) {
    size = 0
    for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k) + Buffer.byteLength(str(v))
    if (size > TOTAL_ANNOTATION_SIZE_LIMIT) {
      errs.push({path, detail: `Too long: may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`})
    }
  }
}

function validateOwnerReferences(refs: unknown, path: Path, errs: FieldError[]): void {
  if (!Array.isArray(refs)) return
  const controllers: string[] = []
  for (const r of refs) {
    if (!isObject(r)) continue
    const apiVersion = str(r.apiVersion)
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion
    if (version === '') errs.push(invalid([...path, 'apiVersion'], apiVersion, 'version must not be empty'))
    if (str(r.kind) === '') errs.push(invalid([...path, 'kind'], str(r.kind), 'must not be empty'))
    if (str(r.name) === '') errs.push(invalid([...path, 'name'], str(r.name), 'must not be empty'))
    if (str(r.uid) === '') errs.push(invalid([...path, 'uid'], str(r.uid), 'uid must not be empty'))
    if (r.controller === true) controllers.push(`${str(r.kind)}/${str(r.name)}`)
  }
  if (controllers.length > 1) {
    errs.push(
      invalid(
        path,
        refs,
        `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`,
      ),
    )
  }
}

function validateObjectMeta(meta: Obj, errs: FieldError[]): void {
  const name = str(meta.name)
  for (const m of isDNS1123Subdomain(name)) errs.push(invalid(['metadata', 'name'], name, m))
  const ns = str(meta.namespace)
  for (const m of isDNS1123Label(ns)) errs.push(invalid(['metadata', 'namespace'], ns, m))
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    errs.push(invalid(['metadata', 'generation'], meta.generation, 'must be greater than or equal to 0'))
  }
  validateAnnotations(meta.annotations, ['metadata', 'annotations'], errs)
  validateOwnerReferences(meta.ownerReferences, ['metadata', 'ownerReferences'], errs)
  validateLabels(meta.labels, ['metadata', 'labels'], errs)
}

const OPERATORS_WITH_VALUES = new Set(['In', 'NotIn'])
const OPERATORS_WITHOUT_VALUES = new Set(['Exists', 'DoesNotExist'])

/** Returns the number of errors it added, so the caller knows whether the selector converts. */
function validateLabelSelector(sel: Obj, path: Path, errs: FieldError[]): number {
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
      for (const m of qualifiedName(str(expr.key))) errs.push(invalid([...p, 'key'], str(expr.key), m))
      values.forEach((v, j) => {
        for (const m of labelValue(str(v))) errs.push(invalid([...p, 'values', j], v, m))
      })
    })
  }
  return errs.length - before
}

function isEmptySelector(sel: Obj): boolean {
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

// --- core/v1 pod validation (the parts a Deployment's template is checked for) ---

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never']

function validateContainers(list: unknown, path: Path, names: Set<string>, errs: FieldError[]): void {
  if (!Array.isArray(list)) return
  list.forEach((c, i) => {
    if (!isObject(c)) return
    const p: PathElem[] = [...path, i]
    const name = str(c.name)
    if (name === '') errs.push(required([...p, 'name']))
    else {
      for (const m of isDNS1123Label(name)) errs.push(invalid([...p, 'name'], name, m))
      if (names.has(name)) errs.push(duplicate([...p, 'name'], name))
      names.add(name)
    }
    if (str(c.image) === '') errs.push(required([...p, 'image']))
    if (c.imagePullPolicy !== undefined && !PULL_POLICIES.includes(str(c.imagePullPolicy))) {
      errs.push(notSupported([...p, 'imagePullPolicy'], c.imagePullPolicy, PULL_POLICIES))
    }
  })
}

function validatePodSpec(spec: Obj, path: Path, errs: FieldError[]): void {
  const names = new Set<string>()
  if (!Array.isArray(spec.containers) || spec.containers.length === 0) {
    errs.push(required([...path, 'containers']))
  } else validateContainers(spec.containers, [...path, 'containers'], names, errs)
  validateContainers(spec.initContainers, [...path, 'initContainers'], names, errs)
}

function validateTemplateForReplicaSet(
  template: Obj,
  selector: Obj | undefined,
  path: Path,
  errs: FieldError[],
): void {
  const meta = isObject(template.metadata) ? template.metadata : {}
  // A missing selector converts to "match nothing", so upstream reports the mismatch as well.
  const labels = isObject(meta.labels) ? meta.labels : {}
  const matches =
    selector === undefined ? false : isEmptySelector(selector) || selectorMatches(selector, labels)
  if (!matches) {
    errs.push(
      invalid(
        [...path, 'metadata', 'labels'],
        meta.labels ?? null,
        '`selector` does not match template `labels`',
      ),
    )
  }
  validateAnnotations(meta.annotations, [...path, 'metadata', 'annotations'], errs)
  validateLabels(meta.labels, [...path, 'metadata', 'labels'], errs)
  const spec = isObject(template.spec) ? template.spec : {}
  validatePodSpec(spec, [...path, 'spec'], errs)
  if (spec.restartPolicy !== 'Always') {
    errs.push(notSupported([...path, 'spec', 'restartPolicy'], spec.restartPolicy ?? '', ['Always']))
  }
  if (spec.activeDeadlineSeconds !== undefined) {
    errs.push(
      forbidden(
        [...path, 'spec', 'activeDeadlineSeconds'],
        'activeDeadlineSeconds in ReplicaSet is not Supported',
      ),
    )
  }
}

function nonNegative(v: unknown, path: Path, errs: FieldError[]): void {
  if (typeof v === 'number' && v < 0) errs.push(invalid(path, v, 'must be greater than or equal to 0'))
}

/** Selector checks shared by Deployments and ReplicaSets; the converted selector, if it converts. */
function validateSpecSelector(spec: Obj, errs: FieldError[]): {selector?: Obj; converts: boolean} {
  const sel = spec.selector
  if (!isObject(sel)) {
    errs.push(required(['spec', 'selector']))
    return {converts: true}
  }
  const n = validateLabelSelector(sel, ['spec', 'selector'], errs)
  if (isEmptySelector(sel))
    errs.push(invalid(['spec', 'selector'], sel, 'empty selector is invalid for deployment'))
  if (n > 0) {
    errs.push(invalid(['spec', 'selector'], sel, 'invalid label selector'))
    return {selector: sel, converts: false}
  }
  return {selector: sel, converts: true}
}

// --- strict decoding: unknown fields ---

// kubectl's --validate=strict makes the API server refuse fields it does not know, which catches a
// typo such as `replicass: 3` that would otherwise silently leave replicas at 1. Only structures
// that are stable and fully known here are checked: the object, ObjectMeta, and the apps/v1 specs
// down to the pod template. Pod specs and statuses grow with every release, and a snapshot from a
// newer cluster must still load.
interface Known {
  keys: ReadonlySet<string>
  children?: Readonly<Record<string, Known | {list: Known}>>
}

const known = (keys: string[], children?: Known['children']): Known => ({keys: new Set(keys), children})

const OBJECT_META_KEYS = known([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
])
const SELECTOR_KEYS = known(['matchLabels', 'matchExpressions'], {
  matchExpressions: {list: known(['key', 'operator', 'values'])},
})
const TEMPLATE_KEYS = known(['metadata', 'spec'], {metadata: OBJECT_META_KEYS})
const TOP = ['apiVersion', 'kind', 'metadata', 'spec', 'status']

const KNOWN_FIELDS: Record<string, Known> = {
  Deployment: known(TOP, {
    metadata: OBJECT_META_KEYS,
    spec: known(
      [
        'replicas',
        'selector',
        'template',
        'strategy',
        'minReadySeconds',
        'revisionHistoryLimit',
        'paused',
        'progressDeadlineSeconds',
        // Alpha (DeploymentPodReplacementPolicy); the API knows it when the gate is on.
        'podReplacementPolicy',
      ],
      {
        selector: SELECTOR_KEYS,
        template: TEMPLATE_KEYS,
        strategy: known(['type', 'rollingUpdate'], {rollingUpdate: known(['maxUnavailable', 'maxSurge'])}),
      },
    ),
  }),
  ReplicaSet: known(TOP, {
    metadata: OBJECT_META_KEYS,
    spec: known(['replicas', 'minReadySeconds', 'selector', 'template'], {
      selector: SELECTOR_KEYS,
      template: TEMPLATE_KEYS,
    }),
  }),
  Pod: known(TOP, {metadata: OBJECT_META_KEYS}),
}

/** `path` is a stack shared by the whole walk, copied only into an error. */
function unknownFieldsIn(v: unknown, k: Known, path: PathElem[], errs: FieldError[]): void {
  if (!isObject(v)) return
  for (const key in v) {
    if (!k.keys.has(key)) {
      errs.push(unknownField([...path, key]))
      continue
    }
    const child = k.children?.[key]
    if (!child) continue
    path.push(key)
    if ('list' in child) {
      const list = v[key]
      if (Array.isArray(list)) {
        for (let i = 0; i < list.length; i++) {
          path.push(i)
          unknownFieldsIn(list[i], child.list, path, errs)
          path.pop()
        }
      }
    } else unknownFieldsIn(v[key], child, path, errs)
    path.pop()
  }
}

/** Fields strict decoding would refuse, for the kinds kept. */
export function unknownFields(o: Obj, kind: string): FieldError[] {
  const errs: FieldError[] = []
  const k = KNOWN_FIELDS[kind]
  if (k) unknownFieldsIn(o, k, [], errs)
  return errs
}

// --- apps/v1 ---

function percentValue(v: unknown): number | undefined {
  return typeof v === 'string' && PERCENT_RE.test(v) ? Number(v.slice(0, -1)) : undefined
}

/** upstream getIntOrPercentValue: a malformed string counts as its Atoi value, or 0. */
function intOrPercentValue(v: unknown): number {
  if (typeof v === 'number') return v
  const p = percentValue(v)
  if (p !== undefined) return p
  return typeof v === 'string' && ATOI_RE.test(v) ? Number(v) : 0
}

function validatePositiveIntOrPercent(v: unknown, path: Path, errs: FieldError[]): void {
  if (typeof v === 'string') {
    if (!PERCENT_RE.test(v)) errs.push(invalid(path, v, PERCENT_MSG))
  } else if (typeof v === 'number') {
    nonNegative(v, path, errs)
  }
}

function validateStrategy(strategy: Obj, errs: FieldError[]): void {
  const path: PathElem[] = ['spec', 'strategy']
  switch (strategy.type) {
    case 'Recreate':
      if (strategy.rollingUpdate !== undefined) {
        errs.push(
          forbidden([...path, 'rollingUpdate'], "may not be specified when strategy `type` is 'Recreate'"),
        )
      }
      break
    case 'RollingUpdate': {
      const ru = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : undefined
      if (!ru) {
        errs.push(required([...path, 'rollingUpdate'], 'this should be defaulted and never be nil'))
        break
      }
      const ruPath: PathElem[] = [...path, 'rollingUpdate']
      validatePositiveIntOrPercent(ru.maxUnavailable, [...ruPath, 'maxUnavailable'], errs)
      validatePositiveIntOrPercent(ru.maxSurge, [...ruPath, 'maxSurge'], errs)
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
        errs.push(
          invalid([...ruPath, 'maxUnavailable'], ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'),
        )
      }
      const p = percentValue(ru.maxUnavailable)
      if (p !== undefined && p > 100) {
        errs.push(invalid([...ruPath, 'maxUnavailable'], ru.maxUnavailable, 'must not be greater than 100%'))
      }
      break
    }
    default:
      errs.push(notSupported([...path, 'type'], strategy.type, ['Recreate', 'RollingUpdate']))
  }
}

export function validateDeployment(d: Obj): FieldError[] {
  const errs: FieldError[] = []
  const meta = isObject(d.metadata) ? d.metadata : {}
  validateObjectMeta(meta, errs)
  const spec = isObject(d.spec) ? d.spec : {}
  nonNegative(spec.replicas, ['spec', 'replicas'], errs)
  const {selector, converts} = validateSpecSelector(spec, errs)
  if (converts) {
    validateTemplateForReplicaSet(
      isObject(spec.template) ? spec.template : {},
      selector,
      ['spec', 'template'],
      errs,
    )
  }
  validateStrategy(isObject(spec.strategy) ? spec.strategy : {}, errs)
  nonNegative(spec.minReadySeconds, ['spec', 'minReadySeconds'], errs)
  nonNegative(spec.revisionHistoryLimit, ['spec', 'revisionHistoryLimit'], errs)
  if (typeof spec.progressDeadlineSeconds === 'number') {
    nonNegative(spec.progressDeadlineSeconds, ['spec', 'progressDeadlineSeconds'], errs)
    const minReady = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0
    if (spec.progressDeadlineSeconds <= minReady) {
      errs.push(
        invalid(
          ['spec', 'progressDeadlineSeconds'],
          spec.progressDeadlineSeconds,
          'must be greater than minReadySeconds',
        ),
      )
    }
  }
  return errs
}

export function validateReplicaSet(rs: Obj): FieldError[] {
  const errs: FieldError[] = []
  validateObjectMeta(isObject(rs.metadata) ? rs.metadata : {}, errs)
  const spec = isObject(rs.spec) ? rs.spec : {}
  nonNegative(spec.replicas, ['spec', 'replicas'], errs)
  nonNegative(spec.minReadySeconds, ['spec', 'minReadySeconds'], errs)
  const {selector, converts} = validateSpecSelector(spec, errs)
  if (converts) {
    validateTemplateForReplicaSet(
      isObject(spec.template) ? spec.template : {},
      selector,
      ['spec', 'template'],
      errs,
    )
  }
  return errs
}

export function validatePod(p: Obj): FieldError[] {
  const errs: FieldError[] = []
  validateObjectMeta(isObject(p.metadata) ? p.metadata : {}, errs)
  validatePodSpec(isObject(p.spec) ? p.spec : {}, ['spec'], errs)
  return errs
}
