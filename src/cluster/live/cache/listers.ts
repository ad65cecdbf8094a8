// The controller's listers over the informers' caches: what syncDeployment reads in `run`.

import type {Deployment, Pod, ReplicaSet} from '../../../controller/api/types.js'
import {getControllerOf} from '../../../controller/controller-utils.js'
import type {Listers} from '../../../controller/interfaces.js'
import type {Informer} from './informer.js'

/** upstream: PodControllerUIDIndex — pods by the UID of their controller reference (any kind). */
export const POD_CONTROLLER_UID_INDEX = 'controllerUID'

export function podControllerUID(pod: Pod): string[] {
  const ref = getControllerOf(pod.metadata)
  return ref?.uid ? [ref.uid] : []
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

  getReplicaSet(namespace: string, name: string): ReplicaSet | undefined {
    return this.replicaSets.get(`${namespace}/${name}`)
  }

  podsByControllerUID(uid: string): Pod[] {
    return this.pods.byIndex(POD_CONTROLLER_UID_INDEX, uid)
  }
}
