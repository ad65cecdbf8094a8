// Objects are recorded trimmed the way the informer caches hold them, so that a recording replays
// what the controller saw and no more. Every recorded object goes through recordedObject(): the one
// place to follow the caches when their trimming changes.

import type {RecordedKind} from './format.js'
import {redactValue} from './redact.js'

/** What the recording's header says about trimming. */
export const TRIMMED = 'metadata.managedFields (as the informer caches drop them)'

/** The object as a recording holds it: trimmed as the caches trim it, then redacted unless told not to. */
export function recordedObject(_kind: RecordedKind, obj: object, redact: boolean): unknown {
  const o = obj as {metadata?: Record<string, unknown>}
  let trimmed: unknown = obj
  if (o.metadata && 'managedFields' in o.metadata) {
    const {managedFields: _m, ...metadata} = o.metadata
    trimmed = {...o, metadata}
  }
  return redact ? redactValue(trimmed) : trimmed
}
