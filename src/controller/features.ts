// Feature gates with their default in each supported Kubernetes minor. Names are Kubernetes'
// (kube-controller-manager and kube-apiserver share one gate list, so both accept every name).
// Two gates change the controller; the others decide which pod-template fields an API server of
// that minor drops on create (src/cluster/validation/drop-disabled.ts), which file mode imitates.
//
// Source: the versioned feature table of kubernetes/kubernetes, pkg/features/kube_features.go
// (`defaultVersionedKubernetesFeatureGates`: each gate lists {Version, Default, PreRelease,
// LockToDefault} from the release it entered). A gate's default for a minor is its newest entry at
// or below that minor. Copies read:
//   - 1.33-1.35: the v1.36 development line after v1.35.0 (as read for issue 29's first pass);
//   - 1.36: the v1.37 development line, and a copy of the v1.36 line that agrees on these gates;
//   - 1.37: the v1.38 development line (a fork of kubernetes/kubernetes at 849e87d4, whose table
//     already holds 1.38 entries, so its entries up to 1.37 are those release-1.37 branched with),
//     with the scheduler-owned gates (DynamicResourceAllocation, GenericWorkload,
//     PodLevelResources), which moved to the scheduler's own versioned table during 1.37, read
//     there. No copy at the v1.37.0 tag itself could be read here (the newest tag stored is
//     v1.37.0-beta.0); docs/fidelity.md, "Kubernetes versions", says so.
import type {FeatureGates, FeatureName} from './interfaces.js'
import {type KubeMinor, kubeVersionString, NEWEST_MINOR} from './version.js'

/** The newest minor's version, as the envelopes said before the version axis ("v1.37"). */
export const KUBERNETES_VERSION = kubeVersionString(NEWEST_MINOR)

type Stage = 'alpha' | 'beta' | 'GA' | 'deprecated'

/** [minor it took effect, default, stage, locked to its default (LockToDefault)] */
type Entry = readonly [number, boolean, Stage] | readonly [number, boolean, Stage, 'locked']

export interface FeatureSpec {
  name: string
  /** oldest first, as the versioned table lists them */
  history: ReadonlyArray<Entry>
  /** what it changes here */
  note: string
}

export const FEATURES: readonly FeatureSpec[] = [
  {
    name: 'DeploymentReplicaSetTerminatingReplicas',
    history: [
      [33, false, 'alpha'],
      [35, true, 'beta'],
    ],
    note: 'status.terminatingReplicas on Deployments',
  },
  {
    name: 'DeploymentPodReplacementPolicy',
    history: [[32, false, 'alpha']],
    note: 'accepted for compatibility: the 1.33+ tables no longer list it (KEP-5882 moved it; no controller code or API field is merged as of k8s.io/api v0.37.0-beta.0), so it changes nothing',
  },
  {
    name: 'ClusterTrustBundleProjection',
    history: [
      [29, false, 'alpha'],
      [33, false, 'beta'],
      [37, true, 'GA'],
    ],
    note: 'projected clusterTrustBundle sources in a pod template (dropped when off)',
  },
  {
    name: 'ContainerRestartRules',
    history: [
      [34, false, 'alpha'],
      [35, true, 'beta'],
    ],
    note: "containers' restartPolicy and restartPolicyRules (dropped when off)",
  },
  {
    name: 'ContainerStopSignals',
    history: [[33, false, 'alpha']],
    note: "containers' lifecycle.stopSignal (dropped when off)",
  },
  {
    name: 'DynamicResourceAllocation',
    history: [
      [26, false, 'alpha'],
      [32, false, 'beta'],
      [34, true, 'GA'],
      [35, true, 'GA', 'locked'],
    ],
    note: 'resourceClaims of a pod and its containers (dropped when off)',
  },
  {
    name: 'EnvFiles',
    history: [
      [34, false, 'alpha'],
      [35, true, 'beta'],
    ],
    note: 'env valueFrom.fileKeyRef (dropped when off)',
  },
  {
    name: 'GenericWorkload',
    history: [
      [35, false, 'alpha'],
      [37, false, 'beta'],
    ],
    note: "spec.workloadRef of a pod template (1.35; dropped when off); 1.36's spec.schedulingGroup is not dropped here",
  },
  {
    name: 'HostnameOverride',
    history: [
      [34, false, 'alpha'],
      [35, true, 'beta'],
      [37, true, 'GA', 'locked'],
    ],
    note: 'spec.hostnameOverride (dropped when off)',
  },
  {
    name: 'ImageVolume',
    history: [
      [31, false, 'alpha'],
      [33, false, 'beta'],
      [35, true, 'beta'],
      [36, true, 'GA', 'locked'],
    ],
    note: 'image volumes: when off, the volumes and the mounts naming them are dropped',
  },
  {
    name: 'PodCertificateRequest',
    history: [
      [34, false, 'alpha'],
      [35, false, 'beta'],
      [37, true, 'GA'],
    ],
    note: 'projected podCertificate sources (dropped when off)',
  },
  {
    name: 'PodLevelResources',
    history: [
      [32, false, 'alpha'],
      [34, true, 'beta'],
    ],
    note: 'spec.resources of a pod template (dropped when off)',
  },
]

/** The default of a gate in a minor: its newest entry at or below it (undefined: not yet a gate). */
export function featureDefault(
  spec: FeatureSpec,
  minor: KubeMinor,
): {default: boolean; stage: Stage; locked: boolean} | undefined {
  let found: {default: boolean; stage: Stage; locked: boolean} | undefined
  for (const [since, on, stage, lock] of spec.history)
    if (since <= minor) found = {default: on, stage, locked: lock === 'locked'}
  return found
}

/** A bad --feature-gates value: a usage error (exit code 2; see src/errors.ts). */
export class FeatureGateError extends Error {
  readonly exitCode = 2
}

export type ParsedFeatureGates = FeatureGates & {
  values: Record<string, boolean>
  readonly kubeVersion: KubeMinor
  /** the --feature-gates text, to parse again for another minor (live: the server's) */
  readonly spec: string | undefined
}

/**
 * Parses `Name=true,Other=false` as kube-controller-manager's --feature-gates does, over the
 * defaults of `minor` (default the newest supported).
 */
export function parseFeatureGates(
  spec: string | undefined,
  minor: KubeMinor = NEWEST_MINOR,
): ParsedFeatureGates {
  const values: Record<string, boolean> = {}
  for (const f of FEATURES) values[f.name] = featureDefault(f, minor)?.default ?? false
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
    // upstream: featureGate.Set refuses a locked gate set away from its default
    const at = featureDefault(FEATURES.find((f) => f.name === name) as FeatureSpec, minor)
    if (at?.locked && parsed !== at.default)
      throw new FeatureGateError(
        `cannot set feature gate ${name} to ${parsed}, feature is locked to ${at.default}`,
      )
    values[name] = parsed
  }
  return {values, kubeVersion: minor, spec, enabled: (name: FeatureName) => values[name] ?? false}
}

/**
 * Whether an API server of the gates' minor keeps the fields a gate guards: the gate's value, or
 * true when the minor has no such gate (its fields are then unknown to it, or not guarded).
 */
export function keepsGatedFields(
  gates: ParsedFeatureGates,
  name: string,
  explicit: ReadonlySet<string>,
): boolean {
  const spec = FEATURES.find((f) => f.name === name)
  if (!explicit.has(name) && spec && featureDefault(spec, gates.kubeVersion) === undefined) return true
  return gates.values[name] ?? false
}

/** The gate names --feature-gates sets. */
export function explicitGates(spec: string | undefined): Set<string> {
  return new Set(
    (spec ?? '')
      .split(',')
      .map((p) => p.slice(0, p.indexOf('=')).trim())
      .filter((n) => n !== ''),
  )
}

/** Whether a gate (of any kind, by name) is on. */
export function gateOn(gates: FeatureGates, name: string): boolean {
  const values = (gates as Partial<ParsedFeatureGates>).values
  if (values) return values[name] ?? false
  const spec = FEATURES.find((f) => f.name === name)
  return spec ? (featureDefault(spec, gates.kubeVersion ?? NEWEST_MINOR)?.default ?? false) : false
}

// Go's strconv.ParseBool accepts exactly these spellings.
function parseGoBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false
  return undefined
}
