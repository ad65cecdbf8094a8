// core/v1 validation of pod specs (pkg/apis/core/validation: ValidatePodSpec and what it calls),
// for the checks that decide whether a template or a pod could exist at all.

import {
  compareQuantities,
  decodedQuantity,
  type ParsedQuantity,
  quantityString,
} from '../../controller/util/quantity.js'
import {
  duplicate,
  type FieldError,
  invalid,
  notFound,
  notSupported,
  type Path,
  type PathElem,
  required,
} from './field.js'
import {isObject, type Obj, str} from './meta.js'
import {isDNS1123Label} from './names.js'

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never']
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never']

// upstream: validateVolumeMounts — each mount names a volume of the pod, at a path of its own.
function validateVolumeMounts(mounts: unknown, volumes: Set<string>, path: Path, errs: FieldError[]): void {
  if (!Array.isArray(mounts)) return
  const paths = new Set<string>()
  mounts.forEach((m, i) => {
    if (!isObject(m)) return
    const p: PathElem[] = [...path, i]
    const name = str(m.name)
    if (name === '') errs.push(required([...p, 'name']))
    if (!volumes.has(name)) errs.push(notFound([...p, 'name'], name))
    const mountPath = str(m.mountPath)
    if (mountPath === '') errs.push(required([...p, 'mountPath']))
    if (paths.has(mountPath)) errs.push(invalid([...p, 'mountPath'], mountPath, 'must be unique'))
    paths.add(mountPath)
  })
}

/**
 * Decoded quantities by their text, frozen and shared: a snapshot repeats a few ("100m", "128Mi")
 * in every template and pod, and decoding one costs two parses in bigint arithmetic. Bounded, so
 * that input of endless distinct quantities cannot grow it.
 */
const decoded = new Map<string, ParsedQuantity | undefined>()
const DECODED_MAX = 1024

function quantity(v: unknown): ParsedQuantity | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined
  const text = String(v)
  const known = decoded.get(text)
  if (known !== undefined || decoded.has(text)) return known
  let q: ParsedQuantity | undefined
  try {
    q = decodedQuantity(text)
    if (q.dec) Object.freeze(q.dec)
    Object.freeze(q)
  } catch {
    q = undefined // a malformed quantity is refused where the template is decoded
  }
  if (decoded.size >= DECODED_MAX) decoded.clear()
  decoded.set(text, q)
  return q
}

// upstream: ValidateResourceRequirements — a request may not exceed its limit (requests in
// resource-name order: Go ranges over the map in random order; one error each either way).
function validateResources(resources: unknown, path: Path, errs: FieldError[]): void {
  if (!isObject(resources) || !isObject(resources.requests) || !isObject(resources.limits)) return
  const limits = resources.limits
  for (const name of Object.keys(resources.requests).sort()) {
    const request = quantity(resources.requests[name])
    const limit = limits[name] === undefined ? undefined : quantity(limits[name])
    if (request && limit && compareQuantities(request, limit) > 0) {
      errs.push(
        invalid(
          [...path, 'requests'],
          quantityString(request),
          `must be less than or equal to ${name} limit of ${quantityString(limit)}`,
        ),
      )
    }
  }
}

function validateContainers(
  list: unknown,
  path: Path,
  names: Set<string>,
  volumes: Set<string>,
  errs: FieldError[],
): void {
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
    if (str(c.image).trim() === '') errs.push(required([...p, 'image']))
    if (c.imagePullPolicy !== undefined && !PULL_POLICIES.includes(str(c.imagePullPolicy))) {
      errs.push(notSupported([...p, 'imagePullPolicy'], c.imagePullPolicy, PULL_POLICIES))
    }
    validateResources(c.resources, [...p, 'resources'], errs)
    validateVolumeMounts(c.volumeMounts, volumes, [...p, 'volumeMounts'], errs)
  })
}

// upstream: ValidatePodSpec
export function validatePodSpec(spec: Obj, path: Path, errs: FieldError[]): void {
  const volumes = validateVolumes(spec.volumes, [...path, 'volumes'], errs)
  const names = new Set<string>()
  if (!Array.isArray(spec.containers) || spec.containers.length === 0) {
    errs.push(required([...path, 'containers']))
  } else validateContainers(spec.containers, [...path, 'containers'], names, volumes, errs)
  validateContainers(spec.initContainers, [...path, 'initContainers'], names, volumes, errs)
  const rp = spec.restartPolicy
  if (rp === undefined || rp === '') errs.push(required([...path, 'restartPolicy']))
  else if (!RESTART_POLICIES.includes(str(rp)))
    errs.push(notSupported([...path, 'restartPolicy'], rp, RESTART_POLICIES))
}

// upstream: ValidateVolumes (names only: each volume has one, a DNS-1123 label, not repeated).
function validateVolumes(list: unknown, path: Path, errs: FieldError[]): Set<string> {
  const names = new Set<string>()
  if (!Array.isArray(list)) return names
  list.forEach((v, i) => {
    if (!isObject(v)) return
    const p: PathElem[] = [...path, i, 'name']
    const name = str(v.name)
    if (name === '') errs.push(required(p))
    else for (const m of isDNS1123Label(name)) errs.push(invalid(p, name, m))
    if (names.has(name)) errs.push(duplicate(p, name))
    names.add(name)
  })
  return names
}
