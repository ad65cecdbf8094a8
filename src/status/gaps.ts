// Is the input complete enough to answer for? A Deployment's status and annotations name what the
// cluster holds (its revision, how many pods its ReplicaSets run); when files lack those objects,
// a pass over them answers for a different cluster (it would create revision 1 again, count 0
// pods). The gaps are read from the objects as given, before any pass, so that `explain`, `dry-run
// sync` and `reconcile-once` say the same thing.

import type {MemoryStore} from '../cluster/memory.js'
import {namespaceOf} from '../cluster/memory.js'
import type {Deployment, ReplicaSet} from '../controller/api/types.js'
import {getControllerOf} from '../controller/controller-utils.js'
import {deploymentComplete, RevisionAnnotation} from '../controller/util/deployment-util.js'
import {parseInt64} from '../controller/util/go.js'
import {isSelectEverythingLiteral} from '../controller/util/labels.js'
import {podsOf, selectorOf} from './replicasets.js'
import type {INCOMPLETE_REASONS} from './types.js'

export type InputGapCode = (typeof INCOMPLETE_REASONS)[number]

export interface InputGap {
  code: InputGapCode
  /** What is missing, in one sentence (no trailing command). */
  message: string
  /** The command that gets a complete snapshot of the namespace. */
  command: string
}

/** The command that reads everything explain and the passes use, for one namespace. */
export function snapshotCommand(namespace: string): string {
  return `kubectl get deploy,rs,pods,events -n ${namespace} -o yaml`
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/**
 * The gaps of the input around one Deployment. `replicaSets` are those the pass would claim (its
 * own by controllerRef, and orphans its selector matches); `podCount` the pods of the input they
 * control.
 */
export function inputGaps(d: Deployment, replicaSets: readonly ReplicaSet[], podCount: number): InputGap[] {
  const namespace = namespaceOf(d)
  const command = snapshotCommand(namespace)
  const name = `deployment ${namespace}/${d.metadata.name ?? ''}`
  const rev = parseInt64(d.metadata.annotations?.[RevisionAnnotation] ?? '') ?? 0n
  const statusReplicas = d.status?.replicas ?? 0
  const named = namedReplicaSet(d)
  const lacksNamed = named !== null && !replicaSets.some((rs) => rs.metadata.name === named.name)
  if (replicaSets.length === 0 && (rev > 1n || statusReplicas > 0 || lacksNamed)) {
    const said: string[] = []
    if (rev > 0n) said.push(`is at revision ${rev}`)
    if (statusReplicas > 0) said.push(`its status counts ${plural(statusReplicas, 'replica')}`)
    if (said.length === 0) said.push('has a status')
    const names = named && lacksNamed ? ` (its status names ${named.name}: ${named.condition})` : ''
    return [
      {
        code: 'MissingReplicaSets',
        message: `The input is incomplete: ${name} ${said.join(' and ')}, but the input holds none of its ReplicaSets${names}, so a pass over it would start the rollout over (a new ReplicaSet, revision 1) and every count below is about the objects given, not the cluster.`,
        command,
      },
    ]
  }
  if (named && lacksNamed) {
    return [
      {
        code: 'MissingReplicaSets',
        message: `The input is incomplete: the status of ${name} names ReplicaSet ${named.name} (${named.condition}), which the input lacks, so the pass and every count below are about the objects given, not the cluster.`,
        command,
      },
    ]
  }
  const reported = replicaSets.reduce((n, rs) => n + (rs.status?.replicas ?? 0), 0)
  if (reported > 0 && podCount === 0 && !deploymentComplete(d, d.status ?? {})) {
    return [
      {
        code: 'MissingPods',
        message: `The input is incomplete: the ReplicaSets of ${name} report ${plural(reported, 'pod')} but the input holds none of them, so what blocks the rollout cannot be read.`,
        command,
      },
    ]
  }
  return []
}

/**
 * The ReplicaSet the Deployment's Progressing condition names: the controller writes its new
 * ReplicaSet's name there (upstream: `Created new replica set %q`, `Found new replica set %q` in
 * getNewReplicaSet; `ReplicaSet %q is progressing.`, `... has successfully progressed.`, `... has
 * timed out progressing.` in syncRolloutStatus via ReplicaSetToDeploymentCondition's messages).
 */
export function namedReplicaSet(d: Deployment): {name: string; condition: string} | null {
  const c = d.status?.conditions?.find((x) => x.type === 'Progressing')
  const m = /^(?:Created new replica set|Found new replica set|ReplicaSet) "([^"]+)"/.exec(c?.message ?? '')
  if (!m) return null
  return {name: m[1]!, condition: `Progressing ${c?.status ?? ''} ${c?.reason ?? ''}`.trim()}
}

/**
 * The gaps of the input for one Deployment of a store, before its pass: the ReplicaSets it owns or
 * would adopt, and their pods.
 */
export function storeGaps(store: MemoryStore, namespace: string, name: string): InputGap[] {
  const d = store.initial('deployments', namespace, name) as Deployment | undefined
  if (!d) return []
  const selector = isSelectEverythingLiteral(d.spec.selector) ? undefined : selectorOf(d)
  const claimable =
    store.listers.claimableReplicaSets(namespace, d.metadata.uid ?? '', d.spec.selector) ??
    store.listers.listReplicaSets(namespace)
  const related = claimable.filter((rs) => {
    const ref = getControllerOf(rs.metadata)
    if (ref) return ref.uid === d.metadata.uid
    return selector?.matches(rs.metadata.labels) ?? false
  })
  const pods = related.reduce((n, rs) => n + podsOf(store, rs).length, 0)
  return inputGaps(d, related, pods)
}

/** One stderr line per gap, for the commands that print no explanation. */
export function gapWarning(gap: InputGap): string {
  return `warning: ${gap.message.replace(/ and every count below is about the objects given, not the cluster/, '')} Get a complete snapshot: ${gap.command}`
}
