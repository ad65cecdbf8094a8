// The gate defaults per minor (src/controller/features.ts), as the versioned feature tables of the
// releases list them, and --feature-gates over them.

import {describe, expect, it} from 'vitest'
import {FEATURES, FeatureGateError, featureDefault, parseFeatureGates} from '../../src/controller/features.js'
import {SUPPORTED_MINORS} from '../../src/controller/version.js'

const defaults = (name: string) => {
  const spec = FEATURES.find((f) => f.name === name)
  if (!spec) throw new Error(name)
  return SUPPORTED_MINORS.map((m) => {
    const d = featureDefault(spec, m)
    return d === undefined ? '-' : `${d.default ? 'on' : 'off'} ${d.stage}${d.locked ? ' locked' : ''}`
  })
}

describe('gate defaults by minor, 1.33 to 1.37', () => {
  it('the table of docs/fidelity.md', () => {
    expect(SUPPORTED_MINORS).toEqual([33, 34, 35, 36, 37])
    const table = Object.fromEntries(FEATURES.map((f) => [f.name, defaults(f.name)]))
    expect(table).toEqual({
      DeploymentReplicaSetTerminatingReplicas: ['off alpha', 'off alpha', 'on beta', 'on beta', 'on beta'],
      DeploymentPodReplacementPolicy: ['off alpha', 'off alpha', 'off alpha', 'off alpha', 'off alpha'],
      ClusterTrustBundleProjection: ['off beta', 'off beta', 'off beta', 'off beta', 'on GA'],
      ContainerRestartRules: ['-', 'off alpha', 'on beta', 'on beta', 'on beta'],
      ContainerStopSignals: ['off alpha', 'off alpha', 'off alpha', 'off alpha', 'off alpha'],
      DynamicResourceAllocation: ['off beta', 'on GA', 'on GA locked', 'on GA locked', 'on GA locked'],
      EnvFiles: ['-', 'off alpha', 'on beta', 'on beta', 'on beta'],
      GenericWorkload: ['-', '-', 'off alpha', 'off alpha', 'off beta'],
      HostnameOverride: ['-', 'off alpha', 'on beta', 'on beta', 'on GA locked'],
      ImageVolume: ['off beta', 'off beta', 'on beta', 'on GA locked', 'on GA locked'],
      PodCertificateRequest: ['-', 'off alpha', 'off beta', 'off beta', 'on GA'],
      PodLevelResources: ['off alpha', 'on beta', 'on beta', 'on beta', 'on beta'],
    })
  })

  it('1.37 keeps clusterTrustBundle and podCertificate projections (both GA, on); 1.36 does not', () => {
    for (const gate of ['ClusterTrustBundleProjection', 'PodCertificateRequest'] as const) {
      expect(parseFeatureGates(undefined, 37).values[gate]).toBe(true)
      expect(parseFeatureGates(undefined, 36).values[gate]).toBe(false)
    }
  })

  it('a gate locked to its default cannot be set away from it, as featureGate.Set refuses; where it is not locked it can', () => {
    expect(() => parseFeatureGates('ImageVolume=false', 36)).toThrow(
      new FeatureGateError('cannot set feature gate ImageVolume to false, feature is locked to true'),
    )
    expect(parseFeatureGates('ImageVolume=true', 36).values.ImageVolume).toBe(true)
    expect(parseFeatureGates('ImageVolume=false', 35).values.ImageVolume).toBe(false)
    expect(() => parseFeatureGates('HostnameOverride=false', 37)).toThrow(/locked to true/)
    expect(parseFeatureGates('HostnameOverride=false', 36).values.HostnameOverride).toBe(false)
    expect(() => parseFeatureGates('DynamicResourceAllocation=false', 35)).toThrow(/locked to true/)
    expect(
      parseFeatureGates('ClusterTrustBundleProjection=false', 37).values.ClusterTrustBundleProjection,
    ).toBe(false)
  })
})
