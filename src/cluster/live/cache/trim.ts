// What `run`'s pod cache keeps of a pod (issue 30 item 1). Pods are the bulk of a controller's
// caches, and the Deployment controller reads little of them: upstream's pod informer serves
// getPodMapForDeployment (pods grouped by their ReplicaSet's UID; Recreate's oldPodsRunning reads
// their phase) and deletePod (the pod's controllerRef). client-go lets an informer trim what it
// caches with a TransformFunc (SharedInformer.SetTransform); controller-runtime ships
// cache.TransformStripManagedFields for the same purpose. This is ours, decided here and only here:
// test/unit/cache-trim.test.ts runs the controller over every example with pods that throw when a
// field outside POD_FIELDS_FOR_CONTROLLER is read.

import type {Pod} from '../../../controller/api/types.js'

/** A shape: `true` keeps a field whole; an object keeps the listed fields of it (of each element, for arrays). */
export type FieldShape = {readonly [field: string]: true | FieldShape}

export const POD_FIELDS_FOR_CONTROLLER: FieldShape = {
  apiVersion: true,
  kind: true,
  metadata: {
    name: true,
    namespace: true,
    uid: true,
    resourceVersion: true,
    creationTimestamp: true,
    deletionTimestamp: true,
    ownerReferences: {apiVersion: true, kind: true, name: true, uid: true, controller: true},
  },
  status: {phase: true},
}

/** `value` with only the fields `shape` lists (absent ones stay absent). */
export function keepFields(value: unknown, shape: FieldShape): unknown {
  if (Array.isArray(value)) return value.map((v) => keepFields(v, shape))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [field, sub] of Object.entries(shape)) {
    if (!Object.hasOwn(value, field)) continue
    const v = (value as Record<string, unknown>)[field]
    out[field] = sub === true ? v : keepFields(v, sub)
  }
  return out
}

/** The informer transform of `run`'s pod cache. */
export function trimPodForController(pod: Pod): Pod {
  return keepFields(pod, POD_FIELDS_FOR_CONTROLLER) as Pod
}
