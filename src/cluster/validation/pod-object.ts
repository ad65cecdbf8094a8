// core/v1 ValidatePod's create checks for a Pod object (ObjectMeta and the pod spec).

import type {FieldError} from './field.js'
import {invalid} from './field.js'
import {isObject, type Obj, str, validateObjectMeta} from './meta.js'
import {wordedFor} from './names.js'
import {type ValidationOptions, validatePodSpec} from './pod.js'

// upstream: ValidatePodCreate (validatePodMetadataAndSpec, validateContainersOnlyForPod)
/**
 * `create`: the pod is being created (the test API server), so ephemeral containers are refused;
 * a pod read from a file is one that exists, and `kubectl debug` may have added them since.
 */
export function validatePod(p: Obj, opts: ValidationOptions = {}, create = false): FieldError[] {
  const errs: FieldError[] = []
  validateObjectMeta(isObject(p.metadata) ? p.metadata : {}, errs)
  const spec = isObject(p.spec) ? p.spec : {}
  validatePodSpec(spec, ['spec'], errs, opts, true)
  for (const list of ['containers', 'initContainers'] as const) {
    const containers = spec[list]
    if (!Array.isArray(containers)) continue
    containers.forEach((c, i) => {
      const image = isObject(c) ? str(c.image) : ''
      if (image !== image.trim()) {
        errs.push(invalid(['spec', list, i, 'image'], image, 'must not have leading or trailing whitespace'))
      }
    })
  }
  if (create && Array.isArray(spec.ephemeralContainers) && spec.ephemeralContainers.length > 0) {
    errs.push({
      path: ['spec', 'ephemeralContainers'],
      type: 'FieldValueForbidden',
      detail: 'Forbidden: cannot be set on create',
    })
  }
  return wordedFor(opts.minor, errs)
}
