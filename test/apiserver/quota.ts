// ResourceQuota admission of pods on the test API server: src/sim/quota.ts's evaluation, refused as
// the admission plugin refuses (upstream admission.NewForbidden: `pods "web-x" is forbidden: ...`).

import type {ClusterObject} from '../../src/cluster/world.js'
import type {Pod} from '../../src/controller/api/types.js'
import {quotaRefusal} from '../../src/sim/quota.js'
import {type ApiError, admissionForbidden} from './errors.js'
import {metaOf, type Obj, str} from './util.js'

/** The refusal of a pod `pod` (named already) over one of `quotas`, given the namespace's `pods`; or undefined. */
export function admitPod(pod: Obj, quotas: Obj[], pods: Obj[], now: number): ApiError | undefined {
  const why = quotaRefusal(
    pod as unknown as Pod,
    quotas as unknown as ClusterObject[],
    pods as unknown as Pod[],
    now,
  )
  return why === undefined
    ? undefined
    : admissionForbidden({group: '', resource: 'pods'}, str(metaOf(pod).name) ?? '', why)
}
