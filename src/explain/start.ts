// Where an explanation starts when the user named a pod or ReplicaSet (`explain pod/NAME`): that
// object's own state in one sentence, then the Deployment it belongs to, whose rollout follows.

import {RevisionAnnotation} from '../controller/util/deployment-util.js'
import type {ObjectRef} from '../pass/selection.js'
import type {RolloutContext} from '../status/context.js'
import type {RolloutState} from '../status/index.js'
import {foreignInfos} from '../status/replicasets.js'
import type {StartPoint} from './types.js'

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

export function describeStart(ctx: RolloutContext, state: RolloutState, ref: ObjectRef): StartPoint {
  const info =
    ref.kind === 'Pod'
      ? ctx.view.all.find((i) => i.pods.some((p) => p.metadata.name === ref.name))
      : [...ctx.view.all, ...foreignInfos(ctx.view)].find((i) => i.rs.metadata.name === ref.name)
  const rsName = info?.rs.metadata.name ?? null
  const rev = info?.rs.metadata.annotations?.[RevisionAnnotation]
  const role = info?.role === 'new' ? 'the new one' : info?.role === 'old' ? 'an old one' : 'not owned'
  const rsText = `ReplicaSet ${rsName ?? '?'} (${rev ? `revision ${rev}, ` : ''}${role})`
  const whose = `deployment ${ctx.name}, whose rollout is ${state.verdict.code}`
  if (ref.kind === 'ReplicaSet') {
    const rs = info?.rs
    const st = rs?.status ?? {}
    const failure = state.blockers.find((b) => b.object.kind === 'ReplicaSet' && b.object.name === ref.name)
    const own = `replicaset ${ref.name} (${rev ? `revision ${rev}, ` : ''}${role}) wants ${plural(rs?.spec.replicas ?? 0, 'pod')}: ${st.replicas ?? 0} created, ${st.readyReplicas ?? 0} ready, ${st.availableReplicas ?? 0} available${failure ? `; it ${failure.message}` : ''}`
    return {
      kind: 'ReplicaSet',
      name: ref.name,
      replicaSet: rsName,
      codes: failure ? [failure.code] : [],
      message: `${own}. It belongs to ${whose}:`,
    }
  }
  const pod = info?.pods.find((p) => p.metadata.name === ref.name)
  const blockers = state.blockers.filter((b) => b.object.kind === 'Pod' && b.object.name === ref.name)
  let own: string
  if (blockers.length > 0) {
    const codes = [...new Set(blockers.map((b) => b.code))]
    const b = blockers[0]!
    // Short: the Blockers section below has the kubelet's whole message.
    const detail = b.container
      ? [
          `container ${b.container}`,
          b.image && b.code !== 'CrashLoopBackOff' ? `image ${b.image}` : '',
          b.restarts !== null ? plural(b.restarts, 'restart') : '',
          b.lastExitCode !== null ? `last exit code ${b.lastExitCode}` : '',
        ]
          .filter((x) => x !== '')
          .join(', ')
      : b.message
    own = `pod ${ref.name} is in ${codes.join(', ')} (${detail})`
  } else if (pod?.metadata.deletionTimestamp != null) {
    own = `pod ${ref.name} is terminating (since ${pod.metadata.deletionTimestamp})`
  } else {
    const ready = pod?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True'
    own = `pod ${ref.name} is ${pod?.status?.phase ?? 'in an unknown phase'}${ready ? ' and ready' : ''}: nothing holds it`
  }
  return {
    kind: 'Pod',
    name: ref.name,
    replicaSet: rsName,
    codes: [...new Set(blockers.map((b) => b.code))],
    message: `${own}. It belongs to ${rsText} of ${whose}:`,
  }
}
