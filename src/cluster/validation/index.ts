// One validation for everything that checks objects as an API server would: the file loader (-f)
// the test API server and the readers of a live cluster (the counts: validateServedCounts) call these, so both refuse the same inputs with the same messages.
// Each entry takes the object as JSON, defaulted as the API server defaults it before validating.

export {
  validateDeployment,
  validateReplicaSet,
  validateSelectorUnchanged,
  validateServedCounts,
  validateStatusUpdate,
} from './apps.js'
export {type ErrorType, type FieldError, fieldErrorText, formatPath} from './field.js'
export {isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue} from './names.js'
export type {ValidationOptions} from './pod.js'
export {validatePod} from './pod-object.js'
