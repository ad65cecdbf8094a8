// The same analysis as `explain`, for the live view: what holds the rollout back and what the
// controller's next pass would do, from the informers' caches. Loaded (with the controller) only
// by the interactive view.

import type {Deployment, Pod, ReplicaSet} from '../controller/api/types.js'
import type {FeatureGates} from '../controller/interfaces.js'
import type {WatchAnalysis} from '../render/watch/frame.js'

/** Most next actions shown. */
const NEXT_LIMIT = 3

export async function analyze(
  d: Deployment,
  replicaSets: readonly ReplicaSet[],
  pods: readonly Pod[],
  now: number,
  gates: FeatureGates & {values: Record<string, boolean>},
): Promise<WatchAnalysis | undefined> {
  const {explainWorld} = await import('../explain/index.js')
  // The pass works on copies: the caches' objects must stay as the server sent them.
  const world = {
    deployments: [structuredClone(d)],
    replicaSets: replicaSets.map((r) => structuredClone(r)),
    pods: pods.map((p) => structuredClone(p)),
    sources: new WeakMap<object, never>(),
  }
  const {result} = await explainWorld(
    world,
    {names: [d.metadata.name ?? ''], namespace: d.metadata.namespace ?? 'default'},
    {now, gates},
  )
  const e = result.explanations[0]
  if (!e) return undefined
  const next = e.next.actions
    .slice(0, NEXT_LIMIT)
    .map((a) => `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.name}: ${a.change}`)
  if (e.next.actions.length > NEXT_LIMIT) next.push(`… ${e.next.actions.length - NEXT_LIMIT} more`)
  if (e.next.actions.length === 0 && e.next.requeueMessage) next.push(e.next.requeueMessage)
  return {
    verdict: `${e.verdict.code}/${e.verdict.reason}`,
    blockers: [...new Set(e.blockers.map((b) => b.message))],
    next,
  }
}
