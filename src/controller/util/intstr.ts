// k8s.io/apimachinery/pkg/util/intstr: resolving maxSurge / maxUnavailable against a replica count.

import type {IntOrString} from '../api/types.js'
import {atoi} from './go.js'

export class IntOrStringError extends Error {}

// upstream: intstr.GetScaledValueFromIntOrPercent
export function getScaledValueFromIntOrPercent(
  v: IntOrString | undefined | null,
  total: number,
  roundUp: boolean,
): number {
  if (v == null) throw new IntOrStringError('nil value for IntOrString')
  if (typeof v === 'number') return v
  if (!v.endsWith('%'))
    throw new IntOrStringError('invalid value for IntOrString: invalid type: string is not a percentage')
  const digits = v.slice(0, -1)
  // strconv.Atoi: a signed decimal that must fit in 64 bits.
  const syntaxOk = /^[+-]?[0-9]+$/.test(digits)
  if (!syntaxOk || atoi(digits) === undefined) {
    const why = syntaxOk ? 'value out of range' : 'invalid syntax'
    throw new IntOrStringError(
      `invalid value for IntOrString: invalid value "${v}": strconv.Atoi: parsing "${digits}": ${why}`,
    )
  }
  const pct = Number(digits)
  const scaled = (pct * total) / 100
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled)
}
