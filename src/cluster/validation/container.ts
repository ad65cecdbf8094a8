// core/v1 validation of containers (pkg/apis/core/validation: validateContainers,
// validateInitContainers, validateContainerCommon and what they call), on containers as JSON.

import {quantityString} from '../../controller/util/quantity.js'
import {
  duplicate,
  type FieldError,
  forbidden,
  invalid,
  notFound,
  notSupported,
  type Path,
  type PathElem,
  required,
} from './field.js'
import {isObject, type Obj, str} from './meta.js'
import {
  isConfigMapKey,
  dns1123LabelMemo as isDNS1123Label,
  dns1123SubdomainMemo as isDNS1123Subdomain,
  isDNS1123SubdomainPrefix,
  isHTTPHeaderName,
  qualifiedNameMemo as isQualifiedName,
  isRelaxedEnvVarName,
  portNameMemo as isValidPortName,
  isValidPortNum,
  isValidUserID,
} from './names.js'
import {quantity, validateResourceRequirements} from './resources.js'

/** What the pod spec tells each container's validation. */
export interface PodContext {
  /** Volume names that validated, with their sources. */
  volumes: Map<string, Obj>
  /** Names of spec.resourceClaims. */
  claims: Set<string>
  /** terminationGracePeriodSeconds, when set. */
  gracePeriod: number | undefined
  restartPolicy: string
  hostUsers: boolean
  enabled: (gate: string) => boolean
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0)
/** A list's entries, a null one as the zero value Go decodes it to. */
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.map((x) => (isObject(x) ? x : {})) : [])

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never']
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError']
const PROTOCOLS = ['SCTP', 'TCP', 'UDP']
const HTTP_SCHEMES = ['HTTP', 'HTTPS']

// upstream: validateContainerPorts
function validateContainerPorts(ports: unknown, path: Path, errs: FieldError[]): void {
  if (!Array.isArray(ports)) return
  const names = new Set<string>()
  objects(ports).forEach((port, i) => {
    const p: PathElem[] = [...path, i]
    const name = str(port.name)
    if (name !== '') {
      const msgs = isValidPortName(name)
      if (msgs.length > 0) for (const m of msgs) errs.push(invalid([...p, 'name'], name, m))
      else if (names.has(name)) errs.push(duplicate([...p, 'name'], name))
      else names.add(name)
    }
    const containerPort = num(port.containerPort)
    if (containerPort === 0) errs.push(required([...p, 'containerPort']))
    else
      for (const m of isValidPortNum(containerPort))
        errs.push(invalid([...p, 'containerPort'], containerPort, m))
    const hostPort = num(port.hostPort)
    if (hostPort !== 0)
      for (const m of isValidPortNum(hostPort)) errs.push(invalid([...p, 'hostPort'], hostPort, m))
    const protocol = str(port.protocol)
    if (protocol === '') errs.push(required([...p, 'protocol']))
    else if (!PROTOCOLS.includes(protocol)) errs.push(notSupported([...p, 'protocol'], protocol, PROTOCOLS))
  })
}

const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]
export const VOLUME_FIELD_PATHS = [
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
]
// upstream: podshelper.ConvertDownwardAPIFieldLabel's labels of v1
const CONVERTIBLE_FIELD_PATHS = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
])

// upstream: fieldpath.SplitMaybeSubscriptedPath
function splitSubscript(fieldPath: string): [string, string] | undefined {
  if (!fieldPath.endsWith("']")) return undefined
  const s = fieldPath.slice(0, -2)
  const at = s.indexOf("['")
  if (at <= 0) return undefined
  return [s.slice(0, at), s.slice(at + 2)]
}

// upstream: validateObjectFieldSelector
export function validateObjectFieldSelector(
  fs: Obj,
  expressions: readonly string[],
  path: Path,
  errs: FieldError[],
): void {
  const apiVersion = str(fs.apiVersion)
  const fieldPath = str(fs.fieldPath)
  if (apiVersion === '') {
    errs.push(required([...path, 'apiVersion']))
    return
  }
  if (fieldPath === '') {
    errs.push(required([...path, 'fieldPath']))
    return
  }
  // upstream: ConvertDownwardAPIFieldLabel
  let convertError = ''
  let internal = fieldPath
  const sub = splitSubscript(fieldPath)
  if (apiVersion !== 'v1') convertError = `unsupported pod version: ${apiVersion}`
  else if (sub) {
    if (sub[0] !== 'metadata.annotations' && sub[0] !== 'metadata.labels')
      convertError = `field label does not support subscript: ${fieldPath}`
  } else if (fieldPath === 'spec.host') internal = 'spec.nodeName'
  else if (!CONVERTIBLE_FIELD_PATHS.has(fieldPath)) convertError = `field label not supported: ${fieldPath}`
  if (convertError !== '') {
    errs.push(invalid([...path, 'fieldPath'], fieldPath, `error converting fieldPath: ${convertError}`))
    return
  }
  if (sub) {
    const key = sub[0] === 'metadata.annotations' ? sub[1].toLowerCase() : sub[1]
    for (const m of isQualifiedName(key)) errs.push(invalid(path, key, m))
  } else if (!expressions.includes(internal)) {
    errs.push(notSupported([...path, 'fieldPath'], internal, [...expressions].sort()))
  }
}

const RESOURCE_FIELD_PATHS = [
  'limits.cpu',
  'limits.ephemeral-storage',
  'limits.memory',
  'requests.cpu',
  'requests.ephemeral-storage',
  'requests.memory',
]
const MEMORY_DIVISORS = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei']
const DIVISOR_LIST = '1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei'

// upstream: validateContainerResourceFieldSelector, validateContainerResourceDivisor
export function validateResourceFieldSelector(
  fs: Obj,
  path: Path,
  errs: FieldError[],
  volume: boolean,
): void {
  const resource = str(fs.resource)
  if (volume && str(fs.containerName) === '') errs.push(required([...path, 'containerName']))
  else if (resource === '') errs.push(required([...path, 'resource']))
  else if (
    !RESOURCE_FIELD_PATHS.includes(resource) &&
    !resource.startsWith('requests.hugepages-') &&
    !resource.startsWith('limits.hugepages-')
  ) {
    errs.push(notSupported([...path, 'resource'], resource, RESOURCE_FIELD_PATHS))
  }
  const q = fs.divisor === undefined ? undefined : quantity(fs.divisor)
  if (!q || quantityString(q) === '0') return
  const divisor = quantityString(q)
  const bad = (what: string, allowed: string) =>
    errs.push(
      invalid(
        [...path, 'divisor'],
        resource,
        `only divisor's values ${allowed} are supported with the ${what}`,
      ),
    )
  if (resource === 'limits.cpu' || resource === 'requests.cpu') {
    if (divisor !== '1m' && divisor !== '1') bad('cpu resource', '1m and 1')
  } else if (resource === 'limits.memory' || resource === 'requests.memory') {
    if (!MEMORY_DIVISORS.includes(divisor)) bad('memory resource', DIVISOR_LIST)
  } else if (resource === 'limits.ephemeral-storage' || resource === 'requests.ephemeral-storage') {
    if (!MEMORY_DIVISORS.includes(divisor)) bad('local ephemeral storage resource', DIVISOR_LIST)
  }
  if (resource.startsWith('requests.hugepages-') || resource.startsWith('limits.hugepages-')) {
    if (!MEMORY_DIVISORS.includes(divisor)) bad('hugepages resource', DIVISOR_LIST)
  }
}

// upstream: validateConfigMapKeySelector, validateSecretKeySelector
function validateKeySelector(s: Obj, path: Path, errs: FieldError[]): void {
  const name = str(s.name)
  for (const m of isDNS1123Subdomain(name)) errs.push(invalid([...path, 'name'], name, m))
  const key = str(s.key)
  if (key === '') errs.push(required([...path, 'key']))
  else for (const m of isConfigMapKey(key)) errs.push(invalid([...path, 'key'], key, m))
}

// upstream: ValidateEnv (relaxed names), validateEnvVarValueFrom
function validateEnv(env: unknown, path: Path, errs: FieldError[], ctx: PodContext): void {
  if (!Array.isArray(env)) return
  objects(env).forEach((ev, i) => {
    const p: PathElem[] = [...path, i]
    const name = str(ev.name)
    if (name === '') errs.push(required([...p, 'name']))
    else for (const m of isRelaxedEnvVarName(name)) errs.push(invalid([...p, 'name'], name, m))
    if (!isObject(ev.valueFrom)) return
    const from = ev.valueFrom
    const fp: PathElem[] = [...p, 'valueFrom']
    let sources = 0
    if (isObject(from.fieldRef)) {
      sources++
      validateObjectFieldSelector(from.fieldRef, ENV_FIELD_PATHS, [...fp, 'fieldRef'], errs)
    }
    if (isObject(from.resourceFieldRef)) {
      sources++
      validateResourceFieldSelector(from.resourceFieldRef, [...fp, 'resourceFieldRef'], errs, false)
    }
    if (isObject(from.configMapKeyRef)) {
      sources++
      validateKeySelector(from.configMapKeyRef, [...fp, 'configMapKeyRef'], errs)
    }
    if (isObject(from.secretKeyRef)) {
      sources++
      validateKeySelector(from.secretKeyRef, [...fp, 'secretKeyRef'], errs)
    }
    // 1.34+'s fileKeyRef (EnvFiles) is dropped while its gate is off; when on it counts as a source.
    if (isObject(from.fileKeyRef) && ctx.enabled('EnvFiles')) sources++
    if (sources === 0) {
      errs.push(
        invalid(
          fp,
          '',
          'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
        ),
      )
    } else if (str(ev.value) !== '') {
      errs.push(invalid(fp, '', 'may not be specified when `value` is not empty'))
    } else if (sources > 1) {
      errs.push(invalid(fp, '', 'may not have more than one field specified at a time'))
    }
  })
}

// upstream: ValidateEnvFrom
function validateEnvFrom(envFrom: unknown, path: Path, errs: FieldError[]): void {
  if (!Array.isArray(envFrom)) return
  objects(envFrom).forEach((ev, i) => {
    const p: PathElem[] = [...path, i]
    const prefix = str(ev.prefix)
    if (prefix !== '')
      for (const m of isRelaxedEnvVarName(prefix)) errs.push(invalid([...p, 'prefix'], prefix, m))
    let sources = 0
    for (const key of ['configMapRef', 'secretRef'] as const) {
      const ref = ev[key]
      if (!isObject(ref)) continue
      sources++
      const name = str(ref.name)
      if (name === '') errs.push(required([...p, key, 'name']))
      else for (const m of isDNS1123SubdomainPrefix(name)) errs.push(invalid([...p, key, 'name'], name, m))
    }
    if (sources === 0) errs.push(invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'))
    else if (sources > 1) errs.push(invalid(path, '', 'may not have more than one field specified at a time'))
  })
}

// upstream: validatePathNoBacksteps
export function validatePathNoBacksteps(target: string, path: Path, errs: FieldError[]): void {
  if (target.split('/').includes('..')) {
    errs.push(invalid(path, target, "must not contain '..'"))
  }
}

// upstream: validateLocalDescendingPath
export function validateLocalDescendingPath(target: string, path: Path, errs: FieldError[]): void {
  if (target.startsWith('/')) errs.push(invalid(path, target, 'must be a relative path'))
  validatePathNoBacksteps(target, path, errs)
}

const MOUNT_PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None']
const RECURSIVE_READ_ONLY = ['Disabled', 'Enabled', 'IfPossible']

// upstream: ValidateVolumeMounts (the subPath checks on the list's path, as upstream names them)
function validateVolumeMounts(
  mounts: unknown,
  devices: Map<string, string>,
  c: Obj,
  path: Path,
  ctx: PodContext,
  errs: FieldError[],
): void {
  if (!Array.isArray(mounts)) return
  const paths = new Set<string>()
  objects(mounts).forEach((m, i) => {
    const p: PathElem[] = [...path, i]
    const name = str(m.name)
    const mountPath = str(m.mountPath)
    if (name === '') errs.push(required([...p, 'name']))
    if (!ctx.volumes.has(name)) errs.push(notFound([...p, 'name'], name))
    if (mountPath === '') errs.push(required([...p, 'mountPath']))
    if (paths.has(mountPath)) errs.push(invalid([...p, 'mountPath'], mountPath, 'must be unique'))
    paths.add(mountPath)
    if (devices.has(name)) errs.push(invalid([...p, 'name'], name, 'must not already exist in volumeDevices'))
    if ([...devices.values()].includes(mountPath)) {
      errs.push(invalid([...p, 'mountPath'], mountPath, 'must not already exist as a path in volumeDevices'))
    }
    const subPath = str(m.subPath)
    const subPathExpr = str(m.subPathExpr)
    const source = ctx.volumes.get(name)
    if (source && isObject(source.image)) {
      if (subPath !== '')
        errs.push(invalid([...p, 'subPath'], subPath, 'not allowed in image volume sources'))
      if (subPathExpr !== '')
        errs.push(invalid([...p, 'subPathExpr'], subPathExpr, 'not allowed in image volume sources'))
    }
    if (subPath !== '') validateLocalDescendingPath(subPath, [...path, 'subPath'], errs)
    if (subPathExpr !== '') {
      if (subPath !== '')
        errs.push(
          invalid([...p, 'subPathExpr'], subPathExpr, 'subPathExpr and subPath are mutually exclusive'),
        )
      validateLocalDescendingPath(subPathExpr, [...path, 'subPathExpr'], errs)
    }
    const propagation = m.mountPropagation
    if (typeof propagation === 'string') {
      const pp = [...path, 'mountPropagation']
      if (!MOUNT_PROPAGATIONS.includes(propagation))
        errs.push(notSupported(pp, propagation, MOUNT_PROPAGATIONS))
      const sc = isObject(c.securityContext) ? c.securityContext : {}
      if (propagation === 'Bidirectional' && sc.privileged !== true) {
        errs.push(forbidden(pp, 'Bidirectional mount propagation is available only to privileged containers'))
      }
    }
    // upstream: validateMountRecursiveReadOnly
    const rro = m.recursiveReadOnly
    if (typeof rro === 'string') {
      const rp = [...path, 'recursiveReadOnly']
      if (rro === 'Enabled' || rro === 'IfPossible') {
        if (m.readOnly !== true) errs.push(forbidden(rp, 'may only be specified when readOnly is true'))
        if (typeof propagation === 'string' && propagation !== 'None') {
          errs.push(forbidden(rp, 'may only be specified when mountPropagation is None or not specified'))
        }
      } else if (rro !== 'Disabled') errs.push(notSupported(rp, rro, RECURSIVE_READ_ONLY))
    }
  })
}

// upstream: ValidateVolumeDevices
function validateVolumeDevices(
  devices: unknown,
  mounts: Map<string, string>,
  path: Path,
  ctx: PodContext,
  errs: FieldError[],
): void {
  if (!Array.isArray(devices)) return
  const paths = new Set<string>()
  const names = new Set<string>()
  objects(devices).forEach((d, i) => {
    const p: PathElem[] = [...path, i]
    const name = str(d.name)
    const devicePath = str(d.devicePath)
    const source = ctx.volumes.get(name)
    const isPVC =
      source !== undefined && (isObject(source.persistentVolumeClaim) || isObject(source.ephemeral))
    if (name === '') errs.push(required([...p, 'name']))
    if (names.has(name)) errs.push(invalid([...p, 'name'], name, 'must be unique'))
    if (source && !isPVC) {
      errs.push(
        invalid(
          [...p, 'name'],
          name,
          'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode',
        ),
      )
    }
    if (!source) errs.push(notFound([...p, 'name'], name))
    if (devicePath === '') errs.push(required([...p, 'devicePath']))
    if (paths.has(devicePath)) errs.push(invalid([...p, 'devicePath'], devicePath, 'must be unique'))
    const backsteps: FieldError[] = []
    if (devicePath !== '') validatePathNoBacksteps(devicePath, [], backsteps)
    if (backsteps.length > 0)
      errs.push(invalid([...p, 'devicePath'], devicePath, "can not contain backsteps ('..')"))
    else paths.add(devicePath)
    if (mounts.has(name)) errs.push(invalid([...p, 'name'], name, 'must not already exist in volumeMounts'))
    if ([...mounts.values()].includes(devicePath)) {
      errs.push(invalid([...p, 'devicePath'], devicePath, 'must not already exist as a path in volumeMounts'))
    }
    if (name !== '') names.add(name)
  })
}

/** name → path of a container's volumeMounts or volumeDevices (GetVolumeMountMap). */
function pathMap(list: unknown, key: string): Map<string, string> {
  const out = new Map<string, string>()
  if (Array.isArray(list)) for (const m of list) if (isObject(m)) out.set(str(m.name), str(m[key]))
  return out
}

// upstream: ValidatePortNumOrName
function validatePortNumOrName(port: unknown, path: Path, errs: FieldError[]): void {
  if (port === undefined || port === null) port = 0 // IntOrString's zero value: the int 0
  if (typeof port === 'number') for (const m of isValidPortNum(port)) errs.push(invalid(path, port, m))
  else if (typeof port === 'string') for (const m of isValidPortName(port)) errs.push(invalid(path, port, m))
}

type Handler = 'exec' | 'httpGet' | 'tcpSocket' | 'grpc' | 'sleep'
const PROBE_HANDLERS: readonly Handler[] = ['exec', 'httpGet', 'tcpSocket', 'grpc']
const LIFECYCLE_HANDLERS: readonly Handler[] = ['exec', 'httpGet', 'tcpSocket', 'sleep']

// upstream: validateHandler (one handler type; each validated)
function validateHandler(
  h: Obj,
  kinds: readonly Handler[],
  path: Path,
  ctx: PodContext,
  errs: FieldError[],
): void {
  let handlers = 0
  for (const kind of kinds) {
    const a = h[kind]
    if (!isObject(a)) continue
    const p: PathElem[] = [...path, kind]
    if (handlers > 0) {
      errs.push(forbidden(p, 'may not specify more than 1 handler type'))
      continue
    }
    handlers++
    switch (kind) {
      case 'exec':
        if (!Array.isArray(a.command) || a.command.length === 0) errs.push(required([...p, 'command']))
        break
      case 'httpGet': {
        if (str(a.path) === '') errs.push(required([...p, 'path']))
        validatePortNumOrName(a.port, [...p, 'port'], errs)
        const scheme = str(a.scheme)
        if (!HTTP_SCHEMES.includes(scheme)) errs.push(notSupported([...p, 'scheme'], scheme, HTTP_SCHEMES))
        if (Array.isArray(a.httpHeaders)) {
          for (const header of a.httpHeaders) {
            const name = isObject(header) ? str(header.name) : ''
            for (const m of isHTTPHeaderName(name)) errs.push(invalid([...p, 'httpHeaders'], name, m))
          }
        }
        break
      }
      case 'tcpSocket':
        validatePortNumOrName(a.port, [...p, 'port'], errs)
        break
      case 'grpc':
        validatePortNumOrName(num(a.port), [...p, 'port'], errs)
        break
      case 'sleep': {
        // upstream: validateSleepAction (PodLifecycleSleepActionAllowZero: on from 1.33)
        const seconds = num(a.seconds)
        const grace = ctx.gracePeriod
        if (grace !== undefined && (seconds < 0 || seconds > grace)) {
          errs.push(
            invalid(
              p,
              seconds,
              `must be non-negative and less than terminationGracePeriodSeconds (${grace})`,
            ),
          )
        }
        break
      }
    }
  }
  if (handlers === 0) errs.push(required(path, 'must specify a handler type'))
}

// upstream: validateProbe
function validateProbe(probe: Obj, path: Path, ctx: PodContext, errs: FieldError[]): void {
  validateHandler(probe, PROBE_HANDLERS, path, ctx, errs)
  for (const f of [
    'initialDelaySeconds',
    'timeoutSeconds',
    'periodSeconds',
    'successThreshold',
    'failureThreshold',
  ]) {
    const v = num(probe[f])
    if (v < 0) errs.push(invalid([...path, f], v, 'must be greater than or equal to 0'))
  }
  const tgps = probe.terminationGracePeriodSeconds
  if (typeof tgps === 'number' && tgps <= 0) {
    errs.push(invalid([...path, 'terminationGracePeriodSeconds'], tgps, 'must be greater than 0'))
  }
}

// upstream: validateLivenessProbe, validateReadinessProbe, validateStartupProbe
function validateProbes(c: Obj, path: Path, ctx: PodContext, errs: FieldError[]): void {
  for (const kind of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
    const probe = c[kind]
    if (!isObject(probe)) continue
    const p: PathElem[] = [...path, kind]
    validateProbe(probe, p, ctx, errs)
    if (kind === 'readinessProbe') {
      if (probe.terminationGracePeriodSeconds !== undefined && probe.terminationGracePeriodSeconds !== null) {
        errs.push(
          invalid(
            [...p, 'terminationGracePeriodSeconds'],
            probe.terminationGracePeriodSeconds,
            'must not be set for readinessProbes',
          ),
        )
      }
    } else if (num(probe.successThreshold) !== 1) {
      errs.push(invalid([...p, 'successThreshold'], num(probe.successThreshold), 'must be 1'))
    }
  }
}

// upstream: validateLifecycle
function validateLifecycle(lifecycle: Obj, path: Path, ctx: PodContext, errs: FieldError[]): void {
  for (const hook of ['postStart', 'preStop'] as const) {
    const h = lifecycle[hook]
    if (isObject(h)) validateHandler(h, LIFECYCLE_HANDLERS, [...path, hook], ctx, errs)
  }
}

const RESIZE_RESOURCES = ['cpu', 'memory']
const RESIZE_POLICIES = ['NotRequired', 'RestartContainer']

// upstream: validateResizePolicy
function validateResizePolicy(list: unknown, path: Path, ctx: PodContext, errs: FieldError[]): void {
  if (!Array.isArray(list)) return
  const seen = new Set<string>()
  objects(list).forEach((rp, i) => {
    const name = str(rp.resourceName)
    const policy = str(rp.restartPolicy)
    if (seen.has(name)) errs.push(duplicate([...path, i], name))
    seen.add(name)
    if (name === '') errs.push(required(path))
    else if (!RESIZE_RESOURCES.includes(name)) errs.push(notSupported(path, name, RESIZE_RESOURCES))
    if (policy === '') errs.push(required(path))
    else if (!RESIZE_POLICIES.includes(policy)) errs.push(notSupported(path, policy, RESIZE_POLICIES))
    if (ctx.restartPolicy === 'Never' && policy !== 'NotRequired') {
      errs.push(invalid(path, policy, "must be 'NotRequired' when `restartPolicy` is 'Never'"))
    }
  })
}

const PROC_MOUNTS = ['Default', 'Unmasked']
const SECCOMP_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined']

// upstream: validateSeccompProfileField
export function validateSeccompProfile(sp: unknown, path: Path, errs: FieldError[]): void {
  if (!isObject(sp)) return
  const type = str(sp.type)
  if (type === '') errs.push(required([...path, 'type'], 'type is required when seccompProfile is set'))
  else if (!SECCOMP_TYPES.includes(type)) errs.push(notSupported([...path, 'type'], type, SECCOMP_TYPES))
  const local = sp.localhostProfile
  if (type === 'Localhost') {
    if (typeof local !== 'string')
      errs.push(required([...path, 'localhostProfile'], 'must be set when seccomp type is Localhost'))
    else validateLocalDescendingPath(local, [...path, 'localhostProfile'], errs)
  } else if (typeof local === 'string') {
    // upstream passes the profile struct as the bad value
    const value: Obj = {type: sp.type, localhostProfile: local}
    errs.push(invalid([...path, 'localhostProfile'], value, 'can only be set when seccomp type is Localhost'))
  }
}

// upstream: ValidateSecurityContext (the user and group IDs, procMount, seccomp)
function validateSecurityContext(sc: unknown, path: Path, ctx: PodContext, errs: FieldError[]): void {
  if (!isObject(sc)) return
  for (const f of ['runAsUser', 'runAsGroup'] as const) {
    const v = sc[f]
    if (typeof v === 'number') for (const m of isValidUserID(v)) errs.push(invalid([...path, f], v, m))
  }
  const procMount = sc.procMount
  if (typeof procMount === 'string') {
    if (!PROC_MOUNTS.includes(procMount))
      errs.push(notSupported([...path, 'procMount'], procMount, PROC_MOUNTS))
    if (ctx.hostUsers && procMount === 'Unmasked') {
      errs.push(invalid([...path, 'procMount'], procMount, '`hostUsers` must be false to use `Unmasked`'))
    }
  }
  validateSeccompProfile(sc.seccompProfile, [...path, 'seccompProfile'], errs)
}

// upstream: validateContainerCommon
function validateContainerCommon(c: Obj, path: Path, ctx: PodContext, errs: FieldError[]): void {
  const name = str(c.name)
  if (name === '') errs.push(required([...path, 'name']))
  else for (const m of isDNS1123Label(name)) errs.push(invalid([...path, 'name'], name, m))
  // A template's image may be blank but for whitespace (" " is a placeholder some tools use).
  if (str(c.image) === '') errs.push(required([...path, 'image']))
  const tmp = str(c.terminationMessagePolicy)
  if (tmp === '') errs.push(required([...path, 'terminationMessagePolicy']))
  else if (!TERMINATION_MESSAGE_POLICIES.includes(tmp)) {
    errs.push(notSupported([...path, 'terminationMessagePolicy'], tmp, TERMINATION_MESSAGE_POLICIES))
  }
  const mounts = pathMap(c.volumeMounts, 'mountPath')
  const devices = pathMap(c.volumeDevices, 'devicePath')
  validateContainerPorts(c.ports, [...path, 'ports'], errs)
  validateEnv(c.env, [...path, 'env'], errs, ctx)
  validateEnvFrom(c.envFrom, [...path, 'envFrom'], errs)
  validateVolumeMounts(c.volumeMounts, devices, c, [...path, 'volumeMounts'], ctx, errs)
  validateVolumeDevices(c.volumeDevices, mounts, [...path, 'volumeDevices'], ctx, errs)
  const pull = str(c.imagePullPolicy)
  if (pull === '') errs.push(required([...path, 'imagePullPolicy']))
  else if (!PULL_POLICIES.includes(pull))
    errs.push(notSupported([...path, 'imagePullPolicy'], pull, PULL_POLICIES))
  validateResourceRequirements(c.resources, ctx.claims, [...path, 'resources'], errs)
  validateResizePolicy(c.resizePolicy, [...path, 'resizePolicy'], ctx, errs)
  validateSecurityContext(c.securityContext, [...path, 'securityContext'], ctx, errs)
}

/** The host ports of the containers, each protocol/hostIP/port once (AccumulateUniqueHostPorts). */
function checkHostPortConflicts(list: Obj[], path: Path, errs: FieldError[]): void {
  const seen = new Set<string>()
  list.forEach((c, ci) => {
    if (!Array.isArray(c.ports)) return
    objects(c.ports).forEach((port, pi) => {
      const hostPort = num(port.hostPort)
      if (hostPort === 0) return
      const key = `${str(port.protocol)}/${str(port.hostIP)}/${hostPort}`
      if (seen.has(key)) errs.push(duplicate([...path, ci, 'ports', pi, 'hostPort'], key))
      else seen.add(key)
    })
  })
}

// upstream: validateContainers
export function validateContainers(list: unknown, path: Path, ctx: PodContext, errs: FieldError[]): void {
  const containers = objects(list)
  if (containers.length === 0) {
    errs.push(required(path))
    return
  }
  const names = new Set<string>()
  containers.forEach((c, i) => {
    const p: PathElem[] = [...path, i]
    validateContainerCommon(c, p, ctx, errs)
    const name = str(c.name)
    if (names.has(name)) errs.push(duplicate([...p, 'name'], name))
    else names.add(name)
    if (isObject(c.lifecycle)) validateLifecycle(c.lifecycle, [...p, 'lifecycle'], ctx, errs)
    validateProbes(c, p, ctx, errs)
    // 1.34+ drops restartPolicy on regular containers while ContainerRestartRules is off; 1.33
    // (no such gate) refuses it. With the gate on, its rules are not checked here.
    if (c.restartPolicy !== undefined && c.restartPolicy !== null && !ctx.enabled('ContainerRestartRules')) {
      errs.push(forbidden([...p, 'restartPolicy'], 'may not be set for non-init containers'))
    }
  })
  checkHostPortConflicts(containers, path, errs)
}

const INIT_FORBIDDEN = ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const

// upstream: validateInitContainers
export function validateInitContainers(
  list: unknown,
  regular: unknown,
  path: Path,
  ctx: PodContext,
  errs: FieldError[],
): void {
  const names = new Set(objects(regular).map((c) => str(c.name)))
  objects(list).forEach((c, i) => {
    const p: PathElem[] = [...path, i]
    validateContainerCommon(c, p, ctx, errs)
    let restartAlways = false
    if (typeof c.restartPolicy === 'string') {
      if (c.restartPolicy !== 'Always' && !ctx.enabled('ContainerRestartRules')) {
        errs.push(notSupported([...p, 'restartPolicy'], c.restartPolicy, ['Always']))
      }
      restartAlways = c.restartPolicy === 'Always'
    }
    const name = str(c.name)
    if (names.has(name)) errs.push(duplicate([...p, 'name'], name))
    else if (name !== '') names.add(name)
    // upstream checks each init container alone, so its index in the path is always 0.
    checkHostPortConflicts([c], path, errs)
    if (restartAlways) {
      if (isObject(c.lifecycle)) validateLifecycle(c.lifecycle, [...p, 'lifecycle'], ctx, errs)
      validateProbes(c, p, ctx, errs)
    } else {
      for (const f of INIT_FORBIDDEN) {
        if (c[f] !== undefined && c[f] !== null) {
          errs.push(forbidden([...p, f], 'may not be set for init containers without restartPolicy=Always'))
        }
      }
    }
  })
}
