// What an API server of the assumed minor does on create with pod-template fields whose feature
// gate is off: it clears them (PrepareForCreate, before validation), so the template stored (and
// hashed by the controller) lacks them. On create nothing is "in use" in an old object, so each
// field goes whenever its gate is off.

type Obj = Record<string, unknown>

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : [])

/** One field cleared: its path under the pod spec (field names and list indexes) and the gate that is off. */
export interface DroppedField {
  path: Array<string | number>
  gate: string
}

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const

type At = Array<string | number>

/** Every container of a pod spec with its path (["containers", 0]). */
function containers(spec: Obj): Array<[Obj, At]> {
  const out: Array<[Obj, At]> = []
  for (const key of CONTAINER_LISTS) {
    list(spec[key]).forEach((c, i) => {
      out.push([c, [key, i]])
    })
  }
  return out
}

// upstream: dropDisabledFields (pkg/api/pod/util.go), for the gates listed in docs/fidelity.md.
/** Clears the fields of `spec` (a pod spec) whose gate is off; says which. */
export function dropDisabledPodSpecFields(spec: unknown, enabled: (gate: string) => boolean): DroppedField[] {
  if (!isObject(spec)) return []
  const dropped: DroppedField[] = []
  const drop = (o: Obj, key: string, path: At, gate: string) => {
    if (o[key] === undefined) return
    delete o[key]
    dropped.push({path, gate})
  }

  // upstream: dropDisabledPodLevelResources
  if (!enabled('PodLevelResources')) drop(spec, 'resources', ['resources'], 'PodLevelResources')

  // upstream: dropDisabledDynamicResourceAllocationFields
  if (!enabled('DynamicResourceAllocation')) {
    drop(spec, 'resourceClaims', ['resourceClaims'], 'DynamicResourceAllocation')
    for (const [c, at] of containers(spec)) {
      if (isObject(c.resources))
        drop(c.resources, 'claims', [...at, 'resources', 'claims'], 'DynamicResourceAllocation')
    }
  }

  if (!enabled('HostnameOverride')) drop(spec, 'hostnameOverride', ['hostnameOverride'], 'HostnameOverride')

  // upstream: dropFileKeyRefInUse
  if (!enabled('EnvFiles')) {
    for (const [c, at] of containers(spec)) {
      list(c.env).forEach((e, i) => {
        if (isObject(e.valueFrom))
          drop(e.valueFrom, 'fileKeyRef', [...at, 'env', i, 'valueFrom', 'fileKeyRef'], 'EnvFiles')
      })
    }
  }

  // upstream: dropImageVolumes — the volumes and every mount that names one of them.
  if (!enabled('ImageVolume') && Array.isArray(spec.volumes)) {
    const names = new Set<unknown>()
    const kept: unknown[] = []
    spec.volumes.forEach((v, i) => {
      if (isObject(v) && v.image !== undefined && v.image !== null) {
        names.add(v.name)
        dropped.push({path: ['volumes', i], gate: 'ImageVolume'})
      } else kept.push(v)
    })
    if (names.size > 0) {
      spec.volumes = kept
      for (const [c, at] of containers(spec)) {
        if (!Array.isArray(c.volumeMounts)) continue
        const mounts = c.volumeMounts as unknown[]
        c.volumeMounts = mounts.filter((m, i) => {
          const gone = isObject(m) && names.has(m.name)
          if (gone) dropped.push({path: [...at, 'volumeMounts', i], gate: 'ImageVolume'})
          return !gone
        })
      }
    }
  }

  // upstream: dropDisabledClusterTrustBundleProjection, dropDisabledPodCertificateProjection — the
  // source entry stays, without the field.
  for (const [gate, field] of [
    ['ClusterTrustBundleProjection', 'clusterTrustBundle'],
    ['PodCertificateRequest', 'podCertificate'],
  ] as const) {
    if (enabled(gate)) continue
    list(spec.volumes).forEach((v, i) => {
      if (!isObject(v.projected)) return
      list(v.projected.sources).forEach((s, j) => {
        drop(s, field, ['volumes', i, 'projected', 'sources', j, field], gate)
      })
    })
  }

  // upstream: dropContainerRestartRules — a sidecar's restartPolicy Always stays.
  if (!enabled('ContainerRestartRules')) {
    for (const [c, at] of containers(spec)) {
      const init = at[0] === 'initContainers'
      if (!init || (c.restartPolicy !== undefined && c.restartPolicy !== 'Always'))
        drop(c, 'restartPolicy', [...at, 'restartPolicy'], 'ContainerRestartRules')
      drop(c, 'restartPolicyRules', [...at, 'restartPolicyRules'], 'ContainerRestartRules')
    }
  }

  // upstream: dropDisabledWorkloadRef (1.35's field; 1.36's schedulingGroup is not dropped here)
  if (!enabled('GenericWorkload')) drop(spec, 'workloadRef', ['workloadRef'], 'GenericWorkload')

  // upstream: dropContainerStopSignals — a lifecycle left empty goes too.
  if (!enabled('ContainerStopSignals')) {
    for (const [c, at] of containers(spec)) {
      if (!isObject(c.lifecycle) || c.lifecycle.stopSignal === undefined) continue
      drop(c.lifecycle, 'stopSignal', [...at, 'lifecycle', 'stopSignal'], 'ContainerStopSignals')
      if (Object.keys(c.lifecycle).length === 0) delete c.lifecycle
    }
  }
  return dropped
}
