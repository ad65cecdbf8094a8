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
