// apps/v1 validation (pkg/apis/apps/validation): Deployments and ReplicaSets, on create, update and
// status update, over the defaulted object as the API server validates it.

import {
  type FieldError,
  forbidden,
  invalid,
  notSupported,
  type Path,
  type PathElem,
  required,
} from './field.js'
import {
  isEmptySelector,
  isObject,
  nonNegative,
  type Obj,
  selectorMatches,
  selectorValue,
  validateAnnotations,
  validateLabelSelector,
  validateLabels,
  validateObjectMeta,
} from './meta.js'
import {isValidPercent, wordedFor} from './names.js'
import {type ValidationOptions, validatePodSpec} from './pod.js'

const ATOI_RE = /^[+-]?[0-9]+$/

// upstream: ValidatePodTemplateSpecForReplicaSet (with the template's own ValidatePodTemplateSpec)
/** `selector` undefined: no selector, which converts to one that matches nothing (labels.Nothing()). */
function validateTemplateForReplicaSet(
  template: Obj,
  selector: Obj | undefined,
  path: Path,
  errs: FieldError[],
  opts: ValidationOptions,
): void {
  const meta = isObject(template.metadata) ? template.metadata : {}
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
  // upstream: ValidatePodTemplateSpec names the template's labels and annotations without
  // "metadata" (ObjectMeta is embedded in PodTemplateSpec).
  validateLabels(meta.labels, [...path, 'labels'], errs)
  validateAnnotations(meta.annotations, [...path, 'annotations'], errs)
  const spec = isObject(template.spec) ? template.spec : {}
  validatePodSpec(spec, [...path, 'spec'], errs, opts)
  if (Array.isArray(spec.ephemeralContainers) && spec.ephemeralContainers.length > 0) {
    errs.push(
      forbidden([...path, 'spec', 'ephemeralContainers'], 'ephemeral containers not allowed in pod template'),
    )
  }
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

/** The selector and template checks ValidateDeploymentSpec and ValidateReplicaSetSpec share. */
function validateSelectorAndTemplate(spec: Obj, errs: FieldError[], opts: ValidationOptions): void {
  const sel = spec.selector
  let converts = true
  if (!isObject(sel)) errs.push(required(['spec', 'selector']))
  else {
    converts = validateLabelSelector(sel, ['spec', 'selector'], errs) === 0
    if (isEmptySelector(sel)) {
      errs.push(invalid(['spec', 'selector'], selectorValue(sel), 'empty selector is invalid for deployment'))
    }
  }
  if (!converts && isObject(sel)) {
    errs.push(invalid(['spec', 'selector'], selectorValue(sel), 'invalid label selector'))
    return
  }
  const template = isObject(spec.template) ? spec.template : {}
  validateTemplateForReplicaSet(template, isObject(sel) ? sel : undefined, ['spec', 'template'], errs, opts)
}

function percentValue(v: unknown): number | undefined {
  return typeof v === 'string' && isValidPercent(v).length === 0 ? Number(v.slice(0, -1)) : undefined
}

// upstream: getIntOrPercentValue (a malformed string counts as its Atoi value, or 0)
function intOrPercentValue(v: unknown): number {
  if (typeof v === 'number') return v
  const p = percentValue(v)
  if (p !== undefined) return p
  return typeof v === 'string' && ATOI_RE.test(v) ? Number(v) : 0
}

// upstream: ValidatePositiveIntOrPercent
function validatePositiveIntOrPercent(v: unknown, path: Path, errs: FieldError[]): void {
  if (typeof v === 'string') {
    for (const m of isValidPercent(v)) errs.push(invalid(path, v, m))
  } else if (typeof v === 'number') {
    nonNegative(v, path, errs)
  }
}

// upstream: ValidateDeploymentStrategy, ValidateRollingUpdateDeployment
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
      // upstream passes the whole strategy as the bad value, on the strategy's path.
      errs.push(notSupported([...path, 'type'], strategy.type ?? '', ['Recreate', 'RollingUpdate']))
  }
}

// upstream: ValidateDeployment (ValidateObjectMeta + ValidateDeploymentSpec)
export function validateDeployment(d: Obj, opts: ValidationOptions = {}): FieldError[] {
  const errs: FieldError[] = []
  validateObjectMeta(isObject(d.metadata) ? d.metadata : {}, errs)
  const spec = isObject(d.spec) ? d.spec : {}
  nonNegative(spec.replicas, ['spec', 'replicas'], errs)
  validateSelectorAndTemplate(spec, errs, opts)
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
  return wordedFor(opts.minor, errs)
}

// upstream: ValidateReplicaSet (ValidateObjectMeta + ValidateReplicaSetSpec)
export function validateReplicaSet(rs: Obj, opts: ValidationOptions = {}): FieldError[] {
  const errs: FieldError[] = []
  validateObjectMeta(isObject(rs.metadata) ? rs.metadata : {}, errs)
  const spec = isObject(rs.spec) ? rs.spec : {}
  nonNegative(spec.replicas, ['spec', 'replicas'], errs)
  nonNegative(spec.minReadySeconds, ['spec', 'minReadySeconds'], errs)
  validateSelectorAndTemplate(spec, errs, opts)
  return wordedFor(opts.minor, errs)
}

/** The selector as the immutability check compares it (semantic equality: nil and empty alike). */
function selectorKey(sel: unknown): string {
  return JSON.stringify(isObject(sel) ? selectorValue(sel) : {})
}

/**
 * The apps/v1 strategies' ValidateUpdate: the spec is validated again and the selector may not
 * change (apivalidation.ValidateImmutableField on spec.selector).
 */
export function validateSelectorUnchanged(next: Obj, old: Obj, errs: FieldError[]): void {
  const a = isObject(next.spec) ? next.spec.selector : undefined
  const b = isObject(old.spec) ? old.spec.selector : undefined
  if (selectorKey(a) !== selectorKey(b)) {
    errs.push(invalid(['spec', 'selector'], isObject(a) ? selectorValue(a) : null, 'field is immutable'))
  }
}

const DEPLOYMENT_STATUS_COUNTS = [
  'observedGeneration',
  'replicas',
  'updatedReplicas',
  'readyReplicas',
  'availableReplicas',
  'unavailableReplicas',
  'terminatingReplicas',
  'collisionCount',
]
const REPLICASET_STATUS_COUNTS = [
  'replicas',
  'fullyLabeledReplicas',
  'readyReplicas',
  'availableReplicas',
  'observedGeneration',
  'terminatingReplicas',
]

// upstream: ValidateDeploymentStatusUpdate / ValidateReplicaSetStatusUpdate
export function validateStatusUpdate(kind: 'Deployment' | 'ReplicaSet', next: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = []
  const s = isObject(next.status) ? next.status : {}
  const counts = kind === 'Deployment' ? DEPLOYMENT_STATUS_COUNTS : REPLICASET_STATUS_COUNTS
  for (const f of counts) nonNegative(s[f], ['status', f], errs)
  const n = (k: string): number => (typeof s[k] === 'number' ? s[k] : 0)
  const bounded =
    kind === 'Deployment'
      ? ['updatedReplicas', 'readyReplicas', 'availableReplicas']
      : ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']
  for (const k of bounded) {
    if (n(k) > n('replicas'))
      errs.push(invalid(['status', k], n(k), 'cannot be greater than status.replicas'))
  }
  if (n('availableReplicas') > n('readyReplicas')) {
    errs.push(
      invalid(
        ['status', 'availableReplicas'],
        n('availableReplicas'),
        'cannot be greater than readyReplicas',
      ),
    )
  }
  if (kind === 'Deployment') {
    const before = isObject(old.status) ? old.status.collisionCount : undefined
    const after = s.collisionCount
    // upstream: IsDecremented (a count that goes away counts as decremented)
    if (typeof before === 'number' && (typeof after !== 'number' || after < before)) {
      errs.push(
        invalid(['status', 'collisionCount'], typeof after === 'number' ? after : 0, 'cannot be decremented'),
      )
    }
  }
  return errs
}

/**
 * The counts every stored Deployment or ReplicaSet holds non-negative, because validation (spec) and
 * status validation (status) refused them otherwise: what a reader checks of an object a server
 * sends (cluster/live/read.ts), as the controller's arithmetic takes them as given. The rest of
 * validation is the server's own business and is not repeated on every list.
 */
export function validateServedCounts(kind: 'Deployment' | 'ReplicaSet', o: Obj): FieldError[] {
  const errs: FieldError[] = []
  const spec = isObject(o.spec) ? o.spec : {}
  nonNegative(spec.replicas, ['spec', 'replicas'], errs)
  nonNegative(spec.minReadySeconds, ['spec', 'minReadySeconds'], errs)
  if (kind === 'Deployment') {
    nonNegative(spec.revisionHistoryLimit, ['spec', 'revisionHistoryLimit'], errs)
    nonNegative(spec.progressDeadlineSeconds, ['spec', 'progressDeadlineSeconds'], errs)
  }
  const status = isObject(o.status) ? o.status : {}
  const counts = kind === 'Deployment' ? DEPLOYMENT_STATUS_COUNTS : REPLICASET_STATUS_COUNTS
  for (const f of counts) nonNegative(status[f], ['status', f], errs)
  return errs
}
