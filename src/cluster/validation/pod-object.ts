// core/v1 ValidatePod's create checks for a Pod object (ObjectMeta and the pod spec).

import type {FieldError} from './field.js'
import {isObject, type Obj, validateObjectMeta} from './meta.js'
import {validatePodSpec} from './pod.js'

// upstream: ValidatePodCreate (ValidateObjectMeta + ValidatePodSpec)
export function validatePod(p: Obj): FieldError[] {
  const errs: FieldError[] = []
  validateObjectMeta(isObject(p.metadata) ? p.metadata : {}, errs)
  validatePodSpec(isObject(p.spec) ? p.spec : {}, ['spec'], errs)
  return errs
}
