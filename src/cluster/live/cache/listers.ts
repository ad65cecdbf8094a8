// The controller's listers over the informers' caches: what syncDeployment reads in `run`.

import type {Deployment, LabelSelector, Pod, ReplicaSet} from '../../../controller/api/types.js'
import {getControllerOf} from '../../../controller/controller-utils.js'
import type {Listers} from '../../../controller/interfaces.js'
import {mergeByPosition, pairKey, requiredPairs} from '../../label-index.js'
import type {Informer} from './informer.js'

/** upstream: PodControllerUIDIndex — pods by the UID of their controller reference (any kind). */
export const POD_CONTROLLER_UID_INDEX = 'controllerUID'

export function podControllerUID(pod: Pod): string[] {
  const ref = getControllerOf(pod.metadata)
  return ref?.uid ? [ref.uid] : []
}

/** ReplicaSets by `namespace/controller UID`, for claimableReplicaSets. */
export const RS_CONTROLLER_INDEX = 'controller'
/** Orphan ReplicaSets by namespace, and by `namespace/label pair`. */
export const RS_ORPHAN_INDEX = 'orphan'
export const RS_ORPHAN_LABEL_INDEX = 'orphanLabel'

/** The indexes InformerListers.claimableReplicaSets reads; give them to the ReplicaSet informer. */
export const replicaSetIndexers = {
  [RS_CONTROLLER_INDEX]: (rs: ReplicaSet): string[] => {
    const ref = getControllerOf(rs.metadata)
    return ref ? [`${rs.metadata.namespace ?? ''}/${ref.uid ?? ''}`] : []
  },
  [RS_ORPHAN_INDEX]: (rs: ReplicaSet): string[] =>
    getControllerOf(rs.metadata) ? [] : [rs.metadata.namespace ?? ''],
  [RS_ORPHAN_LABEL_INDEX]: (rs: ReplicaSet): string[] => {
    if (getControllerOf(rs.metadata)) return []
    const ns = rs.metadata.namespace ?? ''
    return Object.entries(rs.metadata.labels ?? {}).map(([k, v]) => `${ns}/${pairKey(k, v)}`)
  },
}

export class InformerListers implements Listers {
  constructor(
    private readonly deployments: Informer<Deployment>,
    private readonly replicaSets: Informer<ReplicaSet>,
    private readonly pods: Informer<Pod>,
  ) {}

  getDeployment(namespace: string, name: string): Deployment | undefined {
    return this.deployments.get(`${namespace}/${name}`)
  }

  listDeployments(namespace: string): Deployment[] {
    return this.deployments.byIndex('namespace', namespace)
  }

  listReplicaSets(namespace: string): ReplicaSet[] {
    return this.replicaSets.byIndex('namespace', namespace)
  }

  /** See Listers.claimableReplicaSets; undefined unless the ReplicaSet informer has replicaSetIndexers. */
  claimableReplicaSets(
    namespace: string,
    ownerUid: string,
    selector: LabelSelector | undefined,
  ): ReplicaSet[] | undefined {
    const rs = this.replicaSets
    if (!rs.hasIndex(RS_ORPHAN_LABEL_INDEX)) return undefined
    const owned = rs.byIndex(RS_CONTROLLER_INDEX, `${namespace}/${ownerUid}`)
    const pairs = requiredPairs(selector)
    let orphans: ReplicaSet[] = []
    if (pairs === undefined) orphans = rs.byIndex(RS_ORPHAN_INDEX, namespace)
    else if (pairs !== null) {
      const buckets = pairs.map((p) => `${namespace}/${p}`)
      const sizes = buckets.map((b) => rs.indexSize(RS_ORPHAN_LABEL_INDEX, b))
      const smallest = sizes.indexOf(Math.min(...sizes))
      if (sizes[smallest]! > 0) orphans = rs.byIndex(RS_ORPHAN_LABEL_INDEX, buckets[smallest]!)
    }
    return mergeByPosition([owned, orphans], (o) => rs.indexOrder(o))
  }

  getReplicaSet(namespace: string, name: string): ReplicaSet | undefined {
    return this.replicaSets.get(`${namespace}/${name}`)
  }

  podsByControllerUID(uid: string): Pod[] {
    return this.pods.byIndex(POD_CONTROLLER_UID_INDEX, uid)
  }
}
