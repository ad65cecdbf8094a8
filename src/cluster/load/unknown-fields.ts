// Strict decoding (kubectl's --validate=strict): the fields the API server would refuse as unknown,
// for the structures kept. Validation proper is src/cluster/validation, shared with the test API
// server.

import {type FieldError, type PathElem, unknownField} from './problems.js'

type Obj = Record<string, unknown>

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

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
