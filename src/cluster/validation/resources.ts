// core/v1 validation of compute resources (pkg/apis/core/validation: validateResourceRequirements
// and the resource-name helpers of pkg/apis/core/helper), on requests and limits as JSON.

import {
  compareQuantities,
  decodedQuantity,
  type ParsedQuantity,
  quantityString,
} from '../../controller/util/quantity.js'
import {duplicate, type FieldError, forbidden, invalid, notFound, type Path, required} from './field.js'
import {isObject, str} from './meta.js'
import {dns1123LabelMemo as isDNS1123Label, qualifiedNameMemo as isQualifiedName} from './names.js'

/**
 * Decoded quantities by their text, frozen and shared: a snapshot repeats a few ("100m", "128Mi")
 * in every template and pod, and decoding one costs two parses in bigint arithmetic. Bounded, so
 * that input of endless distinct quantities cannot grow it.
 */
const decoded = new Map<string, ParsedQuantity | undefined>()
const DECODED_MAX = 1024

/** A quantity as the API server holds it; undefined for a malformed one (see malformedQuantity). */
export function quantity(v: unknown): ParsedQuantity | undefined {
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
    q = undefined
  }
  if (decoded.size >= DECODED_MAX) decoded.clear()
  decoded.set(text, q)
  return q
}

/**
 * Why a resource list's value is no quantity: the API server's decoder refuses such an object
 * before validation (resource.Quantity's UnmarshalJSON), with the parser's message.
 */
function malformedQuantity(v: unknown, path: Path): FieldError {
  const text = typeof v === 'string' || typeof v === 'number' ? String(v) : JSON.stringify(v)
  let why = 'must be a quantity'
  try {
    decodedQuantity(text)
  } catch (err) {
    if (err instanceof Error) why = err.message
  }
  return invalid(path, text, why)
}

/** The exact value as unscaled × 10^-scale. */
function exact(q: ParsedQuantity): [bigint, number] {
  return q.dec ? [q.dec.unscaled, q.dec.scale] : [q.value, -q.scale]
}

export function isNegative(q: ParsedQuantity): boolean {
  return exact(q)[0] < 0n
}

// upstream: Quantity.MilliValue (rounded up, as ScaledValue rounds)
function milliValue(q: ParsedQuantity): bigint {
  const [unscaled, scale] = exact(q)
  const shift = 3 - scale
  if (shift >= 0) return unscaled * 10n ** BigInt(shift)
  const d = 10n ** BigInt(-shift)
  const quotient = unscaled / d
  return unscaled % d !== 0n && unscaled > 0n ? quotient + 1n : quotient
}

// upstream: Quantity.Value (rounded up to units)
function unitValue(q: ParsedQuantity): bigint {
  const [unscaled, scale] = exact(q)
  if (scale <= 0) return unscaled * 10n ** BigInt(-scale)
  const d = 10n ** BigInt(scale)
  const quotient = unscaled / d
  return unscaled % d !== 0n && unscaled > 0n ? quotient + 1n : quotient
}

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage'])
const STANDARD_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
])
const HUGEPAGES_PREFIX = 'hugepages-'

export function isHugePageResourceName(name: string): boolean {
  return name.startsWith(HUGEPAGES_PREFIX)
}

// upstream: helper.IsNativeResource
function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/')
}

// upstream: helper.IsExtendedResourceName
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false
  return isQualifiedName(`requests.${name}`).length === 0
}

// upstream: helper.IsOvercommitAllowed
function isOvercommitAllowed(name: string): boolean {
  return isNativeResource(name) && !isHugePageResourceName(name)
}

// upstream: helper.IsStandardResourceName
function isStandardResourceName(name: string): boolean {
  return (
    STANDARD_RESOURCES.has(name) ||
    name.startsWith(HUGEPAGES_PREFIX) ||
    name.startsWith('requests.hugepages-')
  )
}

// upstream: validateResourceName
function validateResourceName(name: string, path: Path, errs: FieldError[]): void {
  const qualified = isQualifiedName(name)
  for (const m of qualified) errs.push(invalid(path, name, m))
  if (qualified.length > 0) return
  if (!name.includes('/') && !isStandardResourceName(name)) {
    errs.push(invalid(path, name, 'must be a standard resource type or fully qualified'))
  }
}

// upstream: validateContainerResourceName
function validateContainerResourceName(name: string, path: Path, errs: FieldError[]): void {
  validateResourceName(name, path, errs)
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePageResourceName(name)) {
      errs.push(invalid(path, name, 'must be a standard resource for containers'))
    }
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    errs.push(invalid(path, name, "doesn't follow extended resource name standard"))
  }
}

/** Resource names repeat in every container: their verdicts are kept (bounded), with no path. */
const containerNameMemo = new Map<string, FieldError[]>()

function validateContainerResourceNameMemo(name: string, path: Path, errs: FieldError[]): void {
  let found = containerNameMemo.get(name)
  if (found === undefined) {
    found = []
    validateContainerResourceName(name, [], found)
    if (containerNameMemo.size >= DECODED_MAX) containerNameMemo.clear()
    containerNameMemo.set(name, found)
  }
  for (const e of found) errs.push({...e, path})
}

// upstream: ValidateResourceQuantityValue (ValidateNonnegativeQuantity, and whole numbers of an
// extended resource)
function validateQuantityValue(name: string, q: ParsedQuantity, path: Path, errs: FieldError[]): void {
  if (isNegative(q)) errs.push(invalid(path, quantityString(q), 'must be greater than or equal to 0'))
  if (isExtendedResourceName(name) && milliValue(q) % 1000n !== 0n) {
    errs.push(invalid(path, quantityString(q), 'must be an integer'))
  }
}

// upstream: helper.IsHugePageResourceValueDivisible
function hugePageDivisible(name: string, q: ParsedQuantity): boolean {
  const size = quantity(name.slice(HUGEPAGES_PREFIX.length))
  if (!size || isNegative(size) || unitValue(size) <= 0n) return false
  return unitValue(q) % unitValue(size) === 0n
}

/** A resource list's entries in name order (Go ranges over the map in random order). */
function entries(list: unknown): Array<[string, ParsedQuantity | undefined]> {
  if (!isObject(list)) return []
  return Object.keys(list)
    .sort()
    .map((k) => [k, quantity(list[k])])
}

// upstream: validateResourceRequirements (with validateContainerResourceName)
export function validateResourceRequirements(
  resources: unknown,
  podClaims: Set<string>,
  path: Path,
  errs: FieldError[],
  container = true,
): void {
  if (!isObject(resources)) return
  const limPath = [...path, 'limits']
  const reqPath = [...path, 'requests']
  const nameCheck = container ? validateContainerResourceNameMemo : validateResourceName
  let limCpuOrMemory = false
  let reqCpuOrMemory = false
  let limHugePages = false
  let reqHugePages = false
  const limits = entries(resources.limits)
  const limitOf = new Map(limits)
  for (const [name, q] of limits) {
    const p = [...limPath, {key: name}]
    nameCheck(name, p, errs)
    if (!q) {
      const raw = (resources.limits as Record<string, unknown>)[name]
      // JSON null decodes to a zero quantity (Quantity.UnmarshalJSON).
      if (raw !== null && raw !== undefined) errs.push(malformedQuantity(raw, p))
      continue
    }
    validateQuantityValue(name, q, p, errs)
    if (isHugePageResourceName(name)) {
      limHugePages = true
      if (!hugePageDivisible(name, q))
        errs.push(
          invalid(p, quantityString(q), `${quantityString(q)} is not positive integer multiple of ${name}`),
        )
    }
    if (name === 'cpu' || name === 'memory') limCpuOrMemory = true
  }
  for (const [name, q] of entries(resources.requests)) {
    const p = [...reqPath, {key: name}]
    nameCheck(name, p, errs)
    if (!q) {
      const raw = (resources.requests as Record<string, unknown>)[name]
      // JSON null decodes to a zero quantity (Quantity.UnmarshalJSON).
      if (raw !== null && raw !== undefined) errs.push(malformedQuantity(raw, p))
      continue
    }
    validateQuantityValue(name, q, p, errs)
    const limit = limitOf.get(name)
    if (limitOf.has(name)) {
      if (limit) {
        const cmp = compareQuantities(q, limit)
        if (cmp !== 0 && !isOvercommitAllowed(name)) {
          errs.push(
            invalid(reqPath, quantityString(q), `must be equal to ${name} limit of ${quantityString(limit)}`),
          )
        } else if (cmp > 0) {
          errs.push(
            invalid(
              reqPath,
              quantityString(q),
              `must be less than or equal to ${name} limit of ${quantityString(limit)}`,
            ),
          )
        }
      }
    } else if (!isOvercommitAllowed(name)) {
      errs.push(required(limPath, 'Limit must be set for non overcommitable resources'))
    }
    if (isHugePageResourceName(name)) {
      reqHugePages = true
      if (!hugePageDivisible(name, q))
        errs.push(
          invalid(p, quantityString(q), `${quantityString(q)} is not positive integer multiple of ${name}`),
        )
    }
    if (name === 'cpu' || name === 'memory') reqCpuOrMemory = true
  }
  if (!limCpuOrMemory && !reqCpuOrMemory && (reqHugePages || limHugePages)) {
    errs.push(forbidden(path, 'HugePages require cpu or memory'))
  }
  validateResourceClaimNames(resources.claims, podClaims, [...path, 'claims'], errs)
}

// upstream: validateResourceClaimNames
function validateResourceClaimNames(
  claims: unknown,
  podClaims: Set<string>,
  path: Path,
  errs: FieldError[],
): void {
  if (!Array.isArray(claims)) return
  const names = new Set<string>()
  claims.forEach((c, i) => {
    const name = isObject(c) ? str(c.name) : ''
    const p = [...path, i]
    if (name === '') {
      errs.push(required(p))
      return
    }
    const request = isObject(c) ? str(c.request) : ''
    if (names.has(name)) errs.push(duplicate(p, name))
    else {
      let key = name
      if (request !== '') {
        for (const m of isDNS1123Label(request)) errs.push(invalid([...p, 'request'], request, m))
        key += `/${request}`
      }
      if (names.has(key)) errs.push(duplicate(p, key))
      else if (request === '') {
        for (const k of names) {
          const slash = k.indexOf('/')
          if (slash >= 0 && k.slice(0, slash) === name) errs.push(duplicate(p, name))
        }
      }
      names.add(key)
    }
    if (!podClaims.has(name)) {
      const e = notFound(p, name)
      const listed = [...podClaims].sort().join(', ')
      e.detail = `${e.detail}: must be one of the names in pod.spec.resourceClaims${podClaims.size === 0 ? ' which is empty' : `: ${listed}`}`
      errs.push(e)
    }
  })
}
