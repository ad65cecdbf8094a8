// core/v1 validation of pod specs (pkg/apis/core/validation: ValidatePodSpec and what it calls),
// for the checks that decide whether a template or a pod could exist at all.

import {
  duplicate,
  type FieldError,
  invalid,
  notSupported,
  type Path,
  type PathElem,
  required,
} from './field.js'
import {isObject, type Obj, str} from './meta.js'
import {isDNS1123Label} from './names.js'

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never']
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never']

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
    if (str(c.image).trim() === '') errs.push(required([...p, 'image']))
    if (c.imagePullPolicy !== undefined && !PULL_POLICIES.includes(str(c.imagePullPolicy))) {
      errs.push(notSupported([...p, 'imagePullPolicy'], c.imagePullPolicy, PULL_POLICIES))
    }
  })
}

// upstream: ValidatePodSpec
export function validatePodSpec(spec: Obj, path: Path, errs: FieldError[]): void {
  const names = new Set<string>()
  if (!Array.isArray(spec.containers) || spec.containers.length === 0) {
    errs.push(required([...path, 'containers']))
  } else validateContainers(spec.containers, [...path, 'containers'], names, errs)
  validateContainers(spec.initContainers, [...path, 'initContainers'], names, errs)
  const rp = spec.restartPolicy
  if (rp === undefined || rp === '') errs.push(required([...path, 'restartPolicy']))
  else if (!RESTART_POLICIES.includes(str(rp)))
    errs.push(notSupported([...path, 'restartPolicy'], rp, RESTART_POLICIES))
}
