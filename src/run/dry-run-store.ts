// run --dry-run=client: the in-memory store one sync writes into instead of the cluster.

import {MemoryStore} from '../cluster/memory.js'
import type {Listers} from '../controller/interfaces.js'

/**
 * The store of one --dry-run=client sync of namespace/name, built from the listers (the informer
 * caches): the Deployment, and the ReplicaSets its claim can touch — those it controls and the
 * orphans its selector may match (Listers.claimableReplicaSets, as getReplicaSetsForDeployment
 * reads them). Every write of the sync goes to one of those, or creates a ReplicaSet; ReplicaSets
 * controlled by others are ignored by the claim and only matter when the new ReplicaSet's name is
 * taken. For that, and any other name the store was not given, the store looks the name up in the
 * listers (MemoryStore's lookup), so a create of a taken name fails AlreadyExists exactly as with
 * the whole namespace in the store, and the sync bumps collisionCount as the real run would.
 * The cost follows what the Deployment owns and may adopt, not what its namespace holds. Pods: the
 * sync reads them from the listers and never writes one, so the store holds none.
 */
export function dryRunStore(
  listers: Listers,
  namespace: string,
  name: string,
  now: () => number,
): MemoryStore {
  const d = listers.getDeployment(namespace, name)
  const replicaSets = d
    ? (listers.claimableReplicaSets?.(namespace, d.metadata.uid ?? '', d.spec.selector) ??
      listers.listReplicaSets(namespace))
    : []
  return new MemoryStore(
    {deployments: d ? [d] : [], replicaSets, pods: [], sources: new WeakMap()},
    {now, lookup: {replicasets: (ns, n) => listers.getReplicaSet(ns, n)}},
  )
}
