// Feature gates that change the Deployment controller's behaviour, with the defaults of the
// Kubernetes release this port follows (v1.36). Names are kube-controller-manager's.

import type {FeatureGates, FeatureName} from './interfaces.js'

export const KUBERNETES_VERSION = 'v1.36'

export interface FeatureSpec {
  name: FeatureName
  default: boolean
  stage: 'alpha' | 'beta' | 'GA'
  note: string
}

export const FEATURES: readonly FeatureSpec[] = [
  {
    name: 'DeploymentReplicaSetTerminatingReplicas',
    default: true,
    stage: 'beta',
    note: 'status.terminatingReplicas on Deployments',
  },
  {
    name: 'DeploymentPodReplacementPolicy',
    default: false,
    stage: 'alpha',
    note: 'accepted for compatibility; its controller code is not merged upstream in v1.36, so it changes nothing',
  },
]

/** A bad --feature-gates value: a usage error (exit code 2; see src/errors.ts). */
export class FeatureGateError extends Error {
  readonly exitCode = 2
}

/** Parses `Name=true,Other=false` as kube-controller-manager's --feature-gates does. */
export function parseFeatureGates(
  spec: string | undefined,
): FeatureGates & {values: Record<string, boolean>} {
  const values: Record<string, boolean> = {}
  for (const f of FEATURES) values[f.name] = f.default
  for (const part of (spec ?? '').split(',')) {
    const item = part.trim()
    if (item === '') continue
    const eq = item.indexOf('=')
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${item}`)
    const name = item.slice(0, eq).trim()
    const raw = item.slice(eq + 1).trim()
    if (!FEATURES.some((f) => f.name === name)) {
      throw new FeatureGateError(
        `unrecognized feature gate: ${name} (known: ${FEATURES.map((f) => f.name).join(', ')})`,
      )
    }
    const parsed = parseGoBool(raw)
    if (parsed === undefined)
      throw new FeatureGateError(
        `invalid value of ${name}=${raw}, err: strconv.ParseBool: parsing "${raw}": invalid syntax`,
      )
    values[name] = parsed
  }
  return {values, enabled: (name) => values[name] ?? false}
}

// Go's strconv.ParseBool accepts exactly these spellings.
function parseGoBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false
  return undefined
}
