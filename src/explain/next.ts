// Next: what the pass writes (as `dry-run sync` describes each write), the events it records and
// when the controller would look at the Deployment again.

import {isWrite} from '../cluster/action.js'
import {ChangeTracker} from '../pass/change.js'
import type {RolloutContext} from '../status/context.js'
import type {ClockState} from '../status/types.js'
import {formatTime, seconds} from '../util/duration.js'
import type {NextPass} from './types.js'

export function explainNext(
  ctx: RolloutContext,
  tracker: ChangeTracker,
  progressState: ClockState,
): NextPass {
  const r = ctx.result
  const actions = r.actions.filter(isWrite).map((a) => ({
    verb: a.verb,
    resource: a.resource,
    ...(a.subresource ? {subresource: a.subresource} : {}),
    namespace: a.namespace,
    name: a.name,
    change: tracker.describe(a).summary,
  }))
  const q = r.requeue
  let requeueAt: string | null = null
  let requeueMessage: string
  if (q === null) {
    requeueMessage = r.error
      ? 'none: the namespace is being deleted, so the controller drops the Deployment.'
      : 'none scheduled: the controller looks again when the Deployment, one of its ReplicaSets or their pods change.'
  } else if (q.kind === 'after') {
    const s = q.seconds ?? 0
    requeueAt = formatTime(ctx.now + s * 1000)
    requeueMessage = `after ${Math.round(s)}s (${seconds(s)}, at ${requeueAt}): to check the progress deadline then (one second past it, to absorb clock skew).`
  } else if (r.error) {
    requeueMessage = 'with back-off (from 5ms, doubling): the pass failed and the controller retries.'
  } else {
    requeueMessage =
      progressState === 'CheckSkipped'
        ? 'at once, with back-off (from 5ms, doubling): the deadline computed from the Progressing condition has passed, yet the controller does not enforce it (see the progress deadline), so it keeps checking until something changes.'
        : 'at once, with back-off (from 5ms, doubling): the progress deadline is less than a second away or has passed, so the controller checks again right away.'
  }
  return {
    actions,
    events: r.events,
    requeue: q,
    requeueAfterSeconds: r.requeueAfterSeconds,
    requeueAt,
    requeueMessage,
    error: r.error,
  }
}

/** Most next actions shown in the live view. */
const NEXT_LIMIT = 3

/** The next pass in a few words a line, for the live view: its first writes, else its requeue. */
export function nextInWords(ctx: RolloutContext, progressState: ClockState): string[] {
  const tracker = new ChangeTracker((resource, namespace, name) =>
    ctx.store.initial(resource, namespace, name),
  )
  const next = explainNext(ctx, tracker, progressState)
  const lines = next.actions
    .slice(0, NEXT_LIMIT)
    .map((a) => `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.name}: ${a.change}`)
  if (next.actions.length > NEXT_LIMIT) lines.push(`… ${next.actions.length - NEXT_LIMIT} more`)
  if (next.actions.length === 0 && next.requeueMessage) lines.push(next.requeueMessage)
  return lines
}
