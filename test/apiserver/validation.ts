// The test API server validates apps/v1 and core/v1 objects with the same module as the file loader
// (src/cluster/validation), and hands its errors back as metav1.Status causes.

import {
  type FieldError as SharedFieldError,
  type ValidationOptions,
  validateDeployment,
  validatePod,
  validateReplicaSet,
  validateSelectorUnchanged,
  validateStatusUpdate,
} from '../../src/cluster/validation/index.js'
import {asCause, type FieldError} from './errors.js'
import type {Obj} from './util.js'

function asCauses(errs: SharedFieldError[]): FieldError[] {
  return errs.map(asCause)
}

/** The create or update validation of apps/v1 Deployments and ReplicaSets (the selector is immutable). */
export function appsValidator(
  kind: 'Deployment' | 'ReplicaSet',
): (o: Obj, old?: Obj, opts?: ValidationOptions) => FieldError[] {
  return (o, old, opts) => {
    const errs = kind === 'Deployment' ? validateDeployment(o, opts) : validateReplicaSet(o, opts)
    if (old) validateSelectorUnchanged(o, old, errs)
    return asCauses(errs)
  }
}

export function podValidator(o: Obj, old?: Obj, opts?: ValidationOptions): FieldError[] {
  return asCauses(validatePod(o, opts, old === undefined))
}

export function statusUpdateValidator(kind: 'Deployment' | 'ReplicaSet', o: Obj, old: Obj): FieldError[] {
  return asCauses(validateStatusUpdate(kind, o, old))
}
