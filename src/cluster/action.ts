// What a client records of each call the controller makes, as client-go's fake clientset records
// testing.Actions: the writes `dry-run sync` prints and the tests compare, and the events the
// recorder was given. The recording client (memory.ts) and the live client (live/client.ts) fill them.

import type {EventType} from '../controller/interfaces.js'

export type ActionVerb = 'get' | 'create' | 'update' | 'patch' | 'delete'
export type ActionResource = 'replicasets' | 'deployments' | 'pods'

export interface Action {
  verb: ActionVerb
  resource: ActionResource
  subresource?: 'status'
  namespace: string
  name: string
  /** create/update: the object as the controller sent it. */
  object?: unknown
  /** patch: the patch body. */
  patch?: unknown
  patchType?: string
  /** Live mode: what became of the write (skipped: not sent because the pass had stopped). */
  outcome?: 'succeeded' | 'failed' | 'skipped'
  /** Live mode: the server's error for a failed write. */
  error?: string
  /** Live mode: which attempt of the pass sent it (1, then 2... with --retries). */
  attempt?: number
}

export interface RecordedEvent {
  type: EventType
  reason: string
  message: string
  object: {kind: 'Deployment'; namespace: string; name: string}
}

/** Writes only; `get` (the uncached re-read before adoption) is a read and is left out. */
export function isWrite(a: Action): boolean {
  return a.verb !== 'get'
}
