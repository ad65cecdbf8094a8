// maxSurge and maxUnavailable as written and as the controller resolves them, with the rounding
// spelled out. The values come from the port's own functions (intstr scaling, ResolveFenceposts,
// MaxSurge/MaxUnavailable/MinAvailable); only the decimal shown before rounding is computed here.

import type {Deployment, IntOrString} from '../controller/api/types.js'
import {
  deploymentReplicas,
  isRollingUpdate,
  maxSurge,
  maxUnavailable,
  minAvailable,
  resolveFenceposts,
} from '../controller/util/deployment-util.js'
import {i32} from '../controller/util/go.js'
import {getScaledValueFromIntOrPercent} from '../controller/util/intstr.js'
import type {Fencepost, Fenceposts} from './types.js'

/** `25% of 10 = 2.5, rounded up → 3`; `2 (a pod count, used as written)`; `invalid (...)`. */
export function describeScaling(v: IntOrString | undefined | null, total: number, roundUp: boolean): string {
  if (v == null) return 'not set → 0'
  let scaled: number
  try {
    scaled = getScaledValueFromIntOrPercent(v, total, roundUp)
  } catch (err) {
    return `invalid (${err instanceof Error ? err.message : String(err)}): the controller uses 0`
  }
  if (typeof v === 'number') return `${v} (a pod count, used as written)`
  const pct = Number(v.slice(0, -1))
  const exact = (pct * total) / 100
  if (Number.isInteger(exact)) return `${v} of ${total} = ${exact}`
  const shown = Number(exact.toFixed(2))
  const approx = shown === exact ? '=' : '≈'
  return `${v} of ${total} ${approx} ${shown}, rounded ${roundUp ? 'up' : 'down'} → ${scaled}`
}

/** The fenceposts of a RollingUpdate Deployment; null for other strategies. */
export function explainFenceposts(d: Deployment): Fenceposts | null {
  if (!isRollingUpdate(d)) return null
  const replicas = deploymentReplicas(d)
  const ru = d.spec.strategy?.rollingUpdate
  const surge = maxSurge(d)
  const unavailable = maxUnavailable(d)
  const surgeText = describeScaling(ru?.maxSurge, replicas, true)
  let unavailableText = describeScaling(ru?.maxUnavailable, replicas, false)
  const raw = rawFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicas)
  if (replicas === 0) {
    unavailableText = `${unavailableText}; spec.replicas is 0, so the controller uses 0`
  } else if (raw?.bothZero) {
    unavailableText = `${unavailableText}; maxSurge is 0 too, and two zeros would let no pod be replaced, so the controller uses 1`
  } else if (raw && raw.unavailable > replicas) {
    unavailableText = `${unavailableText}; capped at spec.replicas → ${unavailable}`
  }
  return {
    replicas,
    maxSurge: {written: ru?.maxSurge ?? null, resolved: surge, rounding: surgeText},
    maxUnavailable: {written: ru?.maxUnavailable ?? null, resolved: unavailable, rounding: unavailableText},
    maxTotalPods: i32(replicas + surge),
    minAvailable: minAvailable(d),
  }
}

/** ResolveFenceposts' unavailable value and whether its both-zero rule applied. */
function rawFenceposts(
  s: IntOrString | undefined,
  u: IntOrString | undefined,
  replicas: number,
): {unavailable: number; bothZero: boolean} | undefined {
  try {
    const resolved = resolveFenceposts(s, u, replicas)
    const plain = getScaledValueFromIntOrPercent(u ?? 0, replicas, false)
    return {unavailable: resolved.unavailable, bothZero: plain === 0 && resolved.unavailable === 1}
  } catch {
    return undefined
  }
}

export type {Fencepost}
