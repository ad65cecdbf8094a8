// core/v1 validation of pod volumes (pkg/apis/core/validation: ValidateVolumes,
// validateVolumeSource and the sources' checks), on volumes as JSON.

import {
  VOLUME_FIELD_PATHS,
  validateLocalDescendingPath,
  validateObjectFieldSelector,
  validatePathNoBacksteps,
  validateResourceFieldSelector,
} from './container.js'
import {
  duplicate,
  type FieldError,
  forbidden,
  invalid,
  notSupported,
  type Path,
  type PathElem,
  required,
} from './field.js'
import {isObject, type Obj, str, validateLabelSelector} from './meta.js'
import {dns1123LabelMemo as isDNS1123Label, dns1123SubdomainMemo as isDNS1123Subdomain} from './names.js'
import {isNegative, quantity} from './resources.js'

const FILE_MODE_MSG = 'must be a number between 0 and 0777 (octal), both inclusive'

function validateMode(mode: unknown, path: Path, errs: FieldError[]): void {
  if (typeof mode === 'number' && (mode > 0o777 || mode < 0)) errs.push(invalid(path, mode, FILE_MODE_MSG))
}

// upstream: ValidateLocalNonReservedPath
function validateLocalNonReservedPath(target: string, path: Path, errs: FieldError[]): void {
  validateLocalDescendingPath(target, path, errs)
  if (target.startsWith('..') && !target.startsWith('../')) {
    errs.push(invalid(path, target, "must not start with '..'"))
  }
}

// upstream: validateKeyToPath
function validateKeyToPath(kp: Obj, path: Path, errs: FieldError[]): void {
  if (str(kp.key) === '') errs.push(required([...path, 'key']))
  if (str(kp.path) === '') errs.push(required([...path, 'path']))
  validateLocalNonReservedPath(str(kp.path), [...path, 'path'], errs)
  validateMode(kp.mode, [...path, 'mode'], errs)
}

function items(list: unknown): Obj[] {
  return Array.isArray(list) ? list.map((x) => (isObject(x) ? x : {})) : []
}

// upstream: validateDownwardAPIVolumeFile
function validateDownwardAPIFile(file: Obj, path: Path, errs: FieldError[]): void {
  const p = str(file.path)
  if (p === '') errs.push(required([...path, 'path']))
  validateLocalNonReservedPath(p, [...path, 'path'], errs)
  if (isObject(file.fieldRef)) {
    validateObjectFieldSelector(file.fieldRef, VOLUME_FIELD_PATHS, [...path, 'fieldRef'], errs)
    if (isObject(file.resourceFieldRef)) {
      errs.push(
        invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'),
      )
    }
  } else if (isObject(file.resourceFieldRef)) {
    validateResourceFieldSelector(file.resourceFieldRef, [...path, 'resourceFieldRef'], errs, true)
  } else {
    errs.push(required(path, 'one of fieldRef and resourceFieldRef is required'))
  }
  validateMode(file.mode, [...path, 'mode'], errs)
}

const HOST_PATH_TYPES = [
  '',
  'BlockDevice',
  'CharDevice',
  'Directory',
  'DirectoryOrCreate',
  'File',
  'FileOrCreate',
  'Socket',
]

type SourceCheck = (src: Obj, path: Path, errs: FieldError[], volName: string) => void

const requireFields =
  (...fields: string[]): SourceCheck =>
  (src, path, errs) => {
    for (const f of fields) if (str(src[f]) === '') errs.push(required([...path, f]))
  }

// upstream: validateProjectionSources
function validateProjected(src: Obj, path: Path, errs: FieldError[]): void {
  validateMode(src.defaultMode, [...path, 'defaultMode'], errs)
  const paths = new Set<string>()
  const claim = (p: string, bad: unknown) => {
    if (paths.has(p)) errs.push(invalid(path, bad, 'conflicting duplicate paths'))
    else paths.add(p)
  }
  items(src.sources).forEach((source, i) => {
    let sources = 0
    const sp: PathElem[] = [...path, 'sources', i]
    for (const kind of ['secret', 'configMap'] as const) {
      const s = source[kind]
      if (!isObject(s)) continue
      sources++
      if (str(s.name) === '') errs.push(required([...sp, kind, 'name']))
      items(s.items).forEach((kp, j) => {
        validateKeyToPath(kp, [...sp, kind, 'items', j], errs)
        if (str(kp.path) !== '') claim(str(kp.path), str(s.name))
      })
    }
    if (isObject(source.downwardAPI)) {
      sources++
      for (const file of items(source.downwardAPI.items)) {
        validateDownwardAPIFile(file, [...sp, 'downwardAPI'], errs)
        if (str(file.path) !== '') claim(str(file.path), str(file.path))
      }
    }
    const token = source.serviceAccountToken
    if (isObject(token)) {
      sources++
      const tp: PathElem[] = [...sp, 'serviceAccountToken']
      const expiration = typeof token.expirationSeconds === 'number' ? token.expirationSeconds : 0
      if (expiration < 600) {
        errs.push(
          invalid(
            [...tp, 'expirationSeconds'],
            expiration,
            'may not specify a duration less than 10 minutes',
          ),
        )
      }
      if (expiration > 2 ** 32) {
        errs.push(
          invalid(
            [...tp, 'expirationSeconds'],
            expiration,
            'may not specify a duration larger than 2^32 seconds',
          ),
        )
      }
      if (str(token.path) === '') errs.push(required([...path, 'path']))
      else validateLocalNonReservedPath(str(token.path), [...path, 'path'], errs)
    }
    // clusterTrustBundle and podCertificate sources count; their own checks are not mirrored.
    if (isObject(source.clusterTrustBundle)) {
      sources++
      if (str(source.clusterTrustBundle.path) !== '')
        claim(str(source.clusterTrustBundle.path), str(source.clusterTrustBundle.path))
    }
    if (isObject(source.podCertificate)) sources++
    if (sources > 1) errs.push(forbidden(sp, 'may not specify more than 1 volume type per source'))
  })
}

/**
 * The volume sources in upstream's order, with the path segment its "more than 1 volume type"
 * error names (upstream's own spelling: `cephFS`, `downwarAPI`) and the checks this port mirrors.
 */
const SOURCES: Array<[key: string, forbiddenAs: string, check?: SourceCheck]> = [
  [
    'emptyDir',
    'emptyDir',
    (src, path, errs) => {
      const q = src.sizeLimit === undefined || src.sizeLimit === null ? undefined : quantity(src.sizeLimit)
      if (q && isNegative(q))
        errs.push(forbidden([...path, 'sizeLimit'], 'SizeLimit field must be a valid resource quantity'))
    },
  ],
  [
    'hostPath',
    'hostPath',
    (src, path, errs) => {
      const p = str(src.path)
      if (p === '') {
        errs.push(required([...path, 'path']))
        return
      }
      validatePathNoBacksteps(p, [...path, 'path'], errs)
      if (typeof src.type === 'string' && !HOST_PATH_TYPES.includes(src.type)) {
        errs.push(notSupported([...path, 'type'], src.type, HOST_PATH_TYPES))
      }
    },
  ],
  [
    'gitRepo',
    'gitRepo',
    (src, path, errs) => {
      if (str(src.repository) === '') errs.push(required([...path, 'repository']))
      validateLocalDescendingPath(str(src.directory), [...path, 'directory'], errs)
    },
  ],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  [
    'secret',
    'secret',
    (src, path, errs) => {
      if (str(src.secretName) === '') errs.push(required([...path, 'secretName']))
      validateMode(src.defaultMode, [...path, 'defaultMode'], errs)
      items(src.items).forEach((kp, i) => {
        validateKeyToPath(kp, [...path, 'items', i], errs)
      })
    },
  ],
  [
    'nfs',
    'nfs',
    (src, path, errs) => {
      requireFields('server', 'path')(src, path, errs, '')
      if (!str(src.path).startsWith('/'))
        errs.push(invalid([...path, 'path'], str(src.path), 'must be an absolute path'))
    },
  ],
  ['iscsi', 'iscsi'],
  ['glusterfs', 'glusterfs', requireFields('endpoints', 'path')],
  ['flocker', 'flocker'],
  ['persistentVolumeClaim', 'persistentVolumeClaim', requireFields('claimName')],
  ['rbd', 'rbd'],
  ['cinder', 'cinder', requireFields('volumeID')],
  ['cephfs', 'cephFS'],
  ['quobyte', 'quobyte'],
  [
    'downwardAPI',
    'downwarAPI',
    (src, path, errs) => {
      validateMode(src.defaultMode, [...path, 'defaultMode'], errs)
      for (const file of items(src.items)) validateDownwardAPIFile(file, path, errs)
    },
  ],
  ['fc', 'fc'],
  ['flexVolume', 'flexVolume', requireFields('driver')],
  [
    'configMap',
    'configMap',
    (src, path, errs) => {
      if (str(src.name) === '') errs.push(required([...path, 'name']))
      validateMode(src.defaultMode, [...path, 'defaultMode'], errs)
      items(src.items).forEach((kp, i) => {
        validateKeyToPath(kp, [...path, 'items', i], errs)
      })
    },
  ],
  ['azureFile', 'azureFile', requireFields('secretName', 'shareName')],
  ['vsphereVolume', 'vsphereVolume', requireFields('volumePath')],
  ['photonPersistentDisk', 'photonPersistentDisk', requireFields('pdID')],
  ['portworxVolume', 'portworxVolume', requireFields('volumeID')],
  ['azureDisk', 'azureDisk'],
  ['storageos', 'storageos'],
  ['projected', 'projected', validateProjected],
  ['scaleIO', 'scaleIO', requireFields('gateway', 'system', 'volumeName')],
  [
    'csi',
    'csi',
    (src, path, errs) => {
      // upstream: ValidateCSIDriverName
      const driver = str(src.driver)
      const dp: PathElem[] = [...path, 'driver']
      if (driver === '') errs.push(required(dp))
      if (driver.length > 63)
        errs.push({path: dp, type: 'FieldValueTooLong', detail: 'Too long: may not be more than 63 bytes'})
      for (const m of isDNS1123Subdomain(driver.toLowerCase())) errs.push(invalid(dp, driver, m))
      const ref = src.nodePublishSecretRef
      if (isObject(ref)) {
        const name = str(ref.name)
        if (name === '') errs.push(required([...path, 'nodePublishSecretRef', 'name']))
        else for (const m of isDNS1123Subdomain(name)) errs.push(invalid([...path, 'name'], name, m))
      }
    },
  ],
  [
    'ephemeral',
    'ephemeral',
    (src, path, errs) => {
      const t = src.volumeClaimTemplate
      if (!isObject(t)) {
        errs.push(required([...path, 'volumeClaimTemplate']))
        return
      }
      // upstream: ValidatePersistentVolumeClaimTemplate (the spec's access modes and storage request)
      const spec = isObject(t.spec) ? t.spec : {}
      const sp: PathElem[] = [...path, 'volumeClaimTemplate', 'spec']
      if (!Array.isArray(spec.accessModes) || spec.accessModes.length === 0) {
        errs.push(required([...sp, 'accessModes'], 'at least 1 access mode is required'))
      }
      if (isObject(spec.selector)) validateLabelSelector(spec.selector, [...sp, 'selector'], errs)
      const requests =
        isObject(spec.resources) && isObject(spec.resources.requests) ? spec.resources.requests : {}
      if (requests.storage === undefined) errs.push(required([...sp, 'resources', {key: 'storage'}]))
    },
  ],
  [
    'image',
    'image',
    (src, path, errs) => {
      if (str(src.reference) === '') errs.push(required([...path, 'reference']))
      const pull = src.pullPolicy
      if (typeof pull === 'string' && pull !== '' && !['Always', 'IfNotPresent', 'Never'].includes(pull)) {
        errs.push(notSupported([...path, 'pullPolicy'], pull, ['Always', 'IfNotPresent', 'Never']))
      }
    },
  ],
]

// upstream: validateVolumeSource
function validateVolumeSource(v: Obj, path: Path, errs: FieldError[]): void {
  let count = 0
  for (const [key, forbiddenAs, check] of SOURCES) {
    const src = v[key]
    if (!isObject(src)) continue
    if (count > 0) {
      errs.push(forbidden([...path, forbiddenAs], 'may not specify more than 1 volume type'))
      continue
    }
    count++
    check?.(src, [...path, key], errs, str(v.name))
  }
  if (count === 0) errs.push(required(path, 'must specify a volume type'))
}

// upstream: ValidateVolumes — a volume with any error is not one mounts can name.
export function validateVolumes(list: unknown, path: Path, errs: FieldError[]): Map<string, Obj> {
  const volumes = new Map<string, Obj>()
  if (!Array.isArray(list)) return volumes
  list.forEach((v, i) => {
    const vol = isObject(v) ? v : {}
    const p: PathElem[] = [...path, i]
    const el: FieldError[] = []
    validateVolumeSource(vol, p, el)
    const name = str(vol.name)
    if (name === '') el.push(required([...p, 'name']))
    else for (const m of isDNS1123Label(name)) el.push(invalid([...p, 'name'], name, m))
    if (volumes.has(name)) el.push(duplicate([...p, 'name'], name))
    if (el.length === 0) volumes.set(name, vol)
    else errs.push(...el)
  })
  return volumes
}
