// `kubectl apply` (client-side): the object as written gets the last-applied-configuration
// annotation holding itself; the patch is the three-way strategic merge of the previous
// last-applied configuration, that new configuration and the live object; the API server applies
// it. What the last configuration had and the new one lacks is deleted; what another writer set
// (an autoscaler's replicas, a defaulted field) stays unless the last configuration had it.

import {DEPLOYMENT_SCHEMA} from './schema.js'
import {createThreeWayMergePatch, type Schema, StrategicMergeError, strategicMergePatch} from './strategic.js'

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration'

/** Go's encoding/json: sorted keys, `<`, `>` and `&` escaped, and the Encoder's newline. */
export function goJson(v: unknown): string {
  const sorted = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sorted)
    if (!isObj(x)) return x
    const out: Obj = {}
    for (const k of Object.keys(x).sort()) out[k] = sorted(x[k])
    return out
  }
  return `${JSON.stringify(sorted(v))
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')}\n`
}

/**
 * upstream: GetModifiedConfiguration (annotate) — the object as written, without any
 * last-applied annotation it carries, then with the annotation set to that serialization.
 */
export function modifiedConfiguration(written: unknown): Obj {
  const obj = isObj(written) ? (JSON.parse(JSON.stringify(written)) as Obj) : {}
  const metadata = isObj(obj.metadata) ? obj.metadata : {}
  obj.metadata = metadata
  const annotations = isObj(metadata.annotations) ? {...metadata.annotations} : {}
  delete annotations[LAST_APPLIED]
  metadata.annotations = annotations
  const serialized = goJson(obj)
  metadata.annotations = {...annotations, [LAST_APPLIED]: serialized}
  return obj
}

/** upstream: GetOriginalConfiguration — the last-applied configuration of the live object, if any. */
export function originalConfiguration(live: unknown): Obj | undefined {
  const text =
    isObj(live) && isObj(live.metadata) && isObj(live.metadata.annotations)
      ? live.metadata.annotations[LAST_APPLIED]
      : undefined
  if (typeof text !== 'string' || text === '') return undefined
  try {
    const v = JSON.parse(text) as unknown
    return isObj(v) ? v : undefined
  } catch {
    throw new StrategicMergeError(`the ${LAST_APPLIED} annotation is not valid JSON`)
  }
}

export interface ClientSideApply {
  /** What `kubectl apply` sends (a strategic merge patch); `{}` sends nothing. */
  patch: Obj
  /** The live object after the API server applies the patch (before its defaulting). */
  result: Obj
  /** The configuration stored as last-applied. */
  modified: Obj
  /** Whether the live object had a last-applied configuration to delete from. */
  hadLastApplied: boolean
}

/** upstream: kubectl apply's Patcher.patchSimple for a built-in type, and the server's patch. */
export function clientSideApply(
  written: unknown,
  live: unknown,
  schema: Schema = DEPLOYMENT_SCHEMA,
): ClientSideApply {
  const modified = modifiedConfiguration(written)
  const original = originalConfiguration(live)
  const patch = createThreeWayMergePatch(original ?? {}, modified, live, schema)
  const result = strategicMergePatch(live, patch, schema)
  return {patch, result, modified, hadLastApplied: original !== undefined}
}
