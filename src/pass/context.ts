// The one controller-context factory: what surrounds one syncDeployment call, for the file pass, the
// live pass and `run` alike. The context records the pass as it goes (the functions entered, the
// facts, the events, the requeue calls); a caller with a real work queue or event sink passes it
// in and still gets the record.

import type {RecordedEvent} from '../cluster/action.js'
import type {Deployment} from '../controller/api/types.js'
import type {
  Client,
  ControllerContext,
  EventType,
  FeatureGates,
  Listers,
  Requeuer,
} from '../controller/interfaces.js'
import type {Fact} from '../controller/trace.js'

export interface RequeueCall {
  kind: 'after' | 'rateLimited'
  seconds?: number
}

/** What a pass did, as its context saw it. */
export interface PassRecord {
  path: string[]
  facts: Fact[]
  events: RecordedEvent[]
  requeues: RequeueCall[]
}

export interface ContextParts {
  listers: Listers
  client: Client
  /** The controller's clock (epoch ms). */
  now: () => number
  gates: FeatureGates
  /** The Deployment the pass is about, for the events' object. */
  key: {namespace: string; name: string}
  /** Record the facts (explain and the status model read them; `run` does not). */
  collectFacts?: boolean
  /** Also send each event here (run posts them to the cluster). */
  onEvent?: (d: Deployment, type: EventType, reason: string, message: string) => void
  /** Also requeue here (run's work queue); the calls are recorded either way. */
  queue?: Requeuer
}

export function newControllerContext(parts: ContextParts): {ctx: ControllerContext; record: PassRecord} {
  const record: PassRecord = {path: [], facts: [], events: [], requeues: []}
  const ctx: ControllerContext = {
    listers: parts.listers,
    client: parts.client,
    recorder: {
      event(d, type, reason, message) {
        record.events.push({
          type,
          reason,
          message,
          object: {
            kind: 'Deployment',
            namespace: d.metadata.namespace ?? parts.key.namespace,
            name: d.metadata.name ?? parts.key.name,
          },
        })
        parts.onEvent?.(d, type, reason, message)
      },
    },
    queue: {
      addAfter: (seconds) => {
        record.requeues.push({kind: 'after', seconds})
        parts.queue?.addAfter(seconds)
      },
      addRateLimited: () => {
        record.requeues.push({kind: 'rateLimited'})
        parts.queue?.addRateLimited()
      },
    },
    clock: {now: parts.now},
    features: parts.gates,
    trace: {
      enter: (fn) => record.path.push(fn),
      fact: (name, value) => {
        if (parts.collectFacts) record.facts.push({fn: record.path.at(-1) ?? '', name, value} as Fact)
      },
    },
  }
  return {ctx, record}
}
