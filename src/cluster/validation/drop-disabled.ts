// What an API server of the assumed minor does with pod-template fields whose feature gate is off:
// it clears them (PrepareForCreate / PrepareForUpdate, before validation), so the template stored
// (and hashed by the controller) lacks them. On update (PUT, every PATCH, server-side apply) a
// field stays when the old object already uses it (upstream's "...InUse" helpers): an object
// written while the gate was on keeps working after it is turned off. On create there is no old
// object, so each field goes whenever its gate is off.

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

const set = (v: unknown): boolean => v !== undefined && v !== null
const nonEmpty = (v: unknown): boolean =>
  (Array.isArray(v) && v.length > 0) || (isObject(v) && Object.keys(v).length > 0)

/** A projected source of some volume of `spec` sets `field`. */
const projectedInUse = (spec: Obj, field: string): boolean =>
  list(spec.volumes).some(
    (v) => isObject(v.projected) && list(v.projected.sources).some((s) => set(s[field])),
  )

// upstream: the "...InUse" helpers of pkg/api/pod/util.go — what in an old pod spec keeps a gated
// field through an update while its gate is off.
const IN_USE: Record<string, (old: Obj) => boolean> = {
  // upstream: podLevelResourcesInUse — requests or limits, not an empty resources
  PodLevelResources: (old) =>
    isObject(old.resources) && (nonEmpty(old.resources.requests) || nonEmpty(old.resources.limits)),
  // upstream: dynamicResourceAllocationInUse — the pod's claims (containers cannot name others)
  DynamicResourceAllocation: (old) => nonEmpty(old.resourceClaims),
  // upstream: setHostnameOverrideInUse
  HostnameOverride: (old) => set(old.hostnameOverride),
  // upstream: podFileKeyRefInUse
  EnvFiles: (old) =>
    containers(old).some(([c]) =>
      list(c.env).some((e) => isObject(e.valueFrom) && set(e.valueFrom.fileKeyRef)),
    ),
  // upstream: imageVolumesInUse
  ImageVolume: (old) => list(old.volumes).some((v) => set(v.image)),
  // upstream: clusterTrustBundleProjectionInUse, podCertificateProjectionInUse
  ClusterTrustBundleProjection: (old) => projectedInUse(old, 'clusterTrustBundle'),
  PodCertificateRequest: (old) => projectedInUse(old, 'podCertificate'),
  // upstream: containerRestartRulesInUse — an init container's policy other than Always or its
  // rules, a regular container's policy (ephemeral containers are not looked at)
  ContainerRestartRules: (old) =>
    list(old.initContainers).some(
      (c) => (set(c.restartPolicy) && c.restartPolicy !== 'Always') || nonEmpty(c.restartPolicyRules),
    ) || list(old.containers).some((c) => set(c.restartPolicy)),
  // upstream: workloadRefInUse
  GenericWorkload: (old) => set(old.workloadRef),
  // upstream: containerStopSignalsInUse
  ContainerStopSignals: (old) =>
    containers(old).some(([c]) => isObject(c.lifecycle) && set(c.lifecycle.stopSignal)),
}

// upstream: dropDisabledFields (pkg/api/pod/util.go), for the gates listed in docs/fidelity.md.
/**
 * Clears the fields of `spec` (a pod spec) whose gate is off, unless `old` (the stored object's pod
 * spec, on an update) already uses that gate's field; says which.
 */
export function dropDisabledPodSpecFields(
  spec: unknown,
  gateOn: (gate: string) => boolean,
  old?: unknown,
): DroppedField[] {
  if (!isObject(spec)) return []
  const enabled = (gate: string): boolean => gateOn(gate) || (isObject(old) && (IN_USE[gate]?.(old) ?? false))
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
