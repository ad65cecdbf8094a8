// What an API server drops from a pod template on create while a gate is off
// (src/cluster/validation/drop-disabled.ts, upstream dropDisabledFields), and which gates a minor has.

import {describe, expect, it} from 'vitest'
import {dropDisabledPodSpecFields} from '../../src/cluster/validation/drop-disabled.js'
import {explicitGates, keepsGatedFields, parseFeatureGates} from '../../src/controller/features.js'
import type {KubeMinor} from '../../src/controller/version.js'

type Obj = Record<string, unknown>

const spec = (): Obj => ({
  hostnameOverride: 'h',
  resources: {limits: {cpu: '1'}},
  resourceClaims: [{name: 'gpu'}],
  workloadRef: {name: 'w'},
  initContainers: [
    {name: 'side', image: 'i', restartPolicy: 'Always', restartPolicyRules: [{action: 'Restart'}]},
    {name: 'once', image: 'i', restartPolicy: 'OnFailure'},
  ],
  containers: [
    {
      name: 'app',
      image: 'i',
      restartPolicy: 'Always',
      lifecycle: {stopSignal: 'SIGUSR1'},
      resources: {claims: [{name: 'gpu'}]},
      env: [{name: 'A', valueFrom: {fileKeyRef: {volumeName: 'v', path: 'p', key: 'k'}}}],
      volumeMounts: [
        {name: 'img', mountPath: '/img'},
        {name: 'cfg', mountPath: '/cfg'},
      ],
    },
  ],
  volumes: [
    {name: 'img', image: {reference: 'r'}},
    {
      name: 'cfg',
      projected: {sources: [{clusterTrustBundle: {path: 'b'}}, {podCertificate: {signerName: 's'}}]},
    },
  ],
})

const keptBy = (minor: KubeMinor, flags?: string) => {
  const gates = parseFeatureGates(flags, minor)
  const explicit = explicitGates(flags)
  return (gate: string) => keepsGatedFields(gates, gate, explicit)
}

describe('dropDisabledPodSpecFields', () => {
  it('every gate off: each guarded field goes, a sidecar keeps restartPolicy Always, an emptied lifecycle goes', () => {
    const s = spec()
    const dropped = dropDisabledPodSpecFields(s, () => false)
    expect(s).toEqual({
      initContainers: [
        {name: 'side', image: 'i', restartPolicy: 'Always'},
        {name: 'once', image: 'i'},
      ],
      containers: [
        {
          name: 'app',
          image: 'i',
          resources: {},
          env: [{name: 'A', valueFrom: {}}],
          volumeMounts: [{name: 'cfg', mountPath: '/cfg'}],
        },
      ],
      volumes: [{name: 'cfg', projected: {sources: [{}, {}]}}],
    })
    expect(new Set(dropped.map((d) => d.gate))).toEqual(
      new Set([
        'PodLevelResources',
        'DynamicResourceAllocation',
        'HostnameOverride',
        'EnvFiles',
        'ImageVolume',
        'ClusterTrustBundleProjection',
        'PodCertificateRequest',
        'ContainerRestartRules',
        'GenericWorkload',
        'ContainerStopSignals',
      ]),
    )
  })

  it('every gate on: nothing changes', () => {
    const s = spec()
    expect(dropDisabledPodSpecFields(s, () => true)).toEqual([])
    expect(s).toEqual(spec())
  })

  it('an update keeps every field the old spec already uses, though each gate is off', () => {
    const s = spec()
    expect(dropDisabledPodSpecFields(s, () => false, spec())).toEqual([])
    expect(s).toEqual(spec())
  })

  it('an update whose old spec does not use a field drops it (the upstream "in use" tests, one gate at a time)', () => {
    const cases: Array<[string, Obj, Obj]> = [
      // podLevelResourcesInUse: requests or limits, an empty resources is not a use
      ['PodLevelResources', {resources: {}}, {resources: {limits: {cpu: '1'}}}],
      // dynamicResourceAllocationInUse: the pod's claims only
      ['DynamicResourceAllocation', {resourceClaims: []}, {resourceClaims: [{name: 'gpu'}]}],
      ['HostnameOverride', {}, {hostnameOverride: 'x'}],
      ['GenericWorkload', {}, {workloadRef: {name: 'w'}}],
      [
        'ImageVolume',
        {volumes: [{name: 'e', emptyDir: {}}]},
        {volumes: [{name: 'other', image: {reference: 'r'}}]},
      ],
      // containerRestartRulesInUse: a sidecar's Always is not a use; a regular container's policy is
      [
        'ContainerRestartRules',
        {initContainers: [{name: 's', restartPolicy: 'Always'}]},
        {containers: [{name: 'c', restartPolicy: 'Never'}]},
      ],
      [
        'ContainerStopSignals',
        {containers: [{name: 'c', lifecycle: {}}]},
        {ephemeralContainers: [{name: 'd', lifecycle: {stopSignal: 'SIGTERM'}}]},
      ],
      [
        'EnvFiles',
        {containers: [{name: 'c', env: [{name: 'A', value: 'x'}]}]},
        {initContainers: [{name: 'i', env: [{name: 'B', valueFrom: {fileKeyRef: {path: 'p'}}}]}]},
      ],
      [
        'ClusterTrustBundleProjection',
        {volumes: [{name: 'p', projected: {sources: [{podCertificate: {}}]}}]},
        {volumes: [{name: 'q', projected: {sources: [{clusterTrustBundle: {path: 'b'}}]}}]},
      ],
      [
        'PodCertificateRequest',
        {volumes: [{name: 'p', projected: {sources: [{clusterTrustBundle: {}}]}}]},
        {volumes: [{name: 'q', projected: {sources: [{podCertificate: {signerName: 's'}}]}}]},
      ],
    ]
    for (const [gate, unused, used] of cases) {
      const only = (g: string) => g !== gate
      const dropped = dropDisabledPodSpecFields(spec(), only, unused)
      expect(dropped.length, gate).toBeGreaterThan(0)
      expect(new Set(dropped.map((d) => d.gate)), gate).toEqual(new Set([gate]))
      expect(dropDisabledPodSpecFields(spec(), only, used), gate).toEqual([])
    }
  })

  it('a minor without a gate drops nothing for it (1.33 has no ContainerRestartRules); --feature-gates still decides', () => {
    expect(keptBy(33)('ContainerRestartRules')).toBe(true)
    expect(keptBy(34)('ContainerRestartRules')).toBe(false)
    expect(keptBy(35)('ContainerRestartRules')).toBe(true)
    expect(keptBy(33)('ImageVolume')).toBe(false)
    expect(keptBy(33, 'ImageVolume=true')('ImageVolume')).toBe(true)
    expect(keptBy(36)('ImageVolume')).toBe(true)
    expect(keptBy(37)('ContainerStopSignals')).toBe(false)
  })
})
