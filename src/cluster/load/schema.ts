// Decoding checks: the JSON types of the fields the controller, the defaulting and the validation
// read. The API server could not even decode an object that fails these (Go's json package refuses
// `replicas: "three"`), so they are errors whatever --validate says. Fields not listed here are
// carried through untouched. A null in a listed field means "absent", as it does for Go's pointers,
// maps and slices, and is removed so that the code after this sees only absent or well-typed values.

import {type FieldError, type PathElem, typeError} from './problems.js'

type Leaf = 'string' | 'bool' | 'int32' | 'int64' | 'intOrString' | 'time' | 'object'

interface Fields {
  /** Without a prototype, so that a key such as `constructor` finds nothing. */
  fields: Record<string, Schema | undefined>
}

interface ListOf {
  list: Schema
}

interface MapOf {
  map: Schema
}

type Schema = Leaf | Fields | ListOf | MapOf

function obj(fields: Record<string, Schema>): Fields {
  return {fields: Object.assign(Object.create(null) as Record<string, Schema>, fields)}
}

const list = (s: Schema): ListOf => ({list: s})
const mapOf = (s: Schema): MapOf => ({map: s})

const INT32_MIN = -2147483648
const INT32_MAX = 2147483647
// metav1.Time reads RFC 3339 only.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

const stringMap = mapOf('string')
const stringList = list('string')

const labelSelector = obj({
  matchLabels: stringMap,
  matchExpressions: list(obj({key: 'string', operator: 'string', values: stringList})),
})

const ownerReference = obj({
  apiVersion: 'string',
  kind: 'string',
  name: 'string',
  uid: 'string',
  controller: 'bool',
  blockOwnerDeletion: 'bool',
})

const objectMeta = obj({
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'int64',
  creationTimestamp: 'time',
  deletionTimestamp: 'time',
  deletionGracePeriodSeconds: 'int64',
  labels: stringMap,
  annotations: stringMap,
  ownerReferences: list(ownerReference),
  finalizers: stringList,
})

const httpGet = obj({path: 'string', port: 'intOrString', host: 'string', scheme: 'string'})

const probe = obj({
  httpGet,
  exec: 'object',
  tcpSocket: 'object',
  grpc: 'object',
  initialDelaySeconds: 'int32',
  timeoutSeconds: 'int32',
  periodSeconds: 'int32',
  successThreshold: 'int32',
  failureThreshold: 'int32',
  terminationGracePeriodSeconds: 'int64',
})

const lifecycleHandler = obj({httpGet, exec: 'object', tcpSocket: 'object', sleep: 'object'})

const container = obj({
  name: 'string',
  image: 'string',
  imagePullPolicy: 'string',
  command: stringList,
  args: stringList,
  ports: list(
    obj({containerPort: 'int32', hostPort: 'int32', protocol: 'string', name: 'string', hostIP: 'string'}),
  ),
  env: list(
    obj({
      name: 'string',
      value: 'string',
      valueFrom: obj({fieldRef: obj({apiVersion: 'string', fieldPath: 'string'})}),
    }),
  ),
  resources: 'object',
  terminationMessagePath: 'string',
  terminationMessagePolicy: 'string',
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  lifecycle: obj({postStart: lifecycleHandler, preStop: lifecycleHandler}),
  securityContext: 'object',
})

const volume = obj({
  name: 'string',
  configMap: obj({name: 'string', defaultMode: 'int32'}),
  secret: obj({secretName: 'string', defaultMode: 'int32'}),
  downwardAPI: obj({defaultMode: 'int32'}),
  projected: obj({defaultMode: 'int32'}),
  hostPath: obj({path: 'string', type: 'string'}),
  emptyDir: 'object',
})

const podSpec = obj({
  containers: list(container),
  initContainers: list(container),
  volumes: list(volume),
  restartPolicy: 'string',
  terminationGracePeriodSeconds: 'int64',
  activeDeadlineSeconds: 'int64',
  dnsPolicy: 'string',
  schedulerName: 'string',
  securityContext: 'object',
  nodeName: 'string',
  hostNetwork: 'bool',
})

const podTemplateSpec = obj({metadata: objectMeta, spec: podSpec})

const deploymentCondition = obj({
  type: 'string',
  status: 'string',
  lastUpdateTime: 'time',
  lastTransitionTime: 'time',
  reason: 'string',
  message: 'string',
})

const deployment = obj({
  apiVersion: 'string',
  kind: 'string',
  metadata: objectMeta,
  spec: obj({
    replicas: 'int32',
    selector: labelSelector,
    template: podTemplateSpec,
    strategy: obj({
      type: 'string',
      rollingUpdate: obj({maxUnavailable: 'intOrString', maxSurge: 'intOrString'}),
    }),
    minReadySeconds: 'int32',
    revisionHistoryLimit: 'int32',
    paused: 'bool',
    progressDeadlineSeconds: 'int32',
  }),
  status: obj({
    observedGeneration: 'int64',
    replicas: 'int32',
    updatedReplicas: 'int32',
    readyReplicas: 'int32',
    availableReplicas: 'int32',
    unavailableReplicas: 'int32',
    terminatingReplicas: 'int32',
    collisionCount: 'int32',
    conditions: list(deploymentCondition),
  }),
})

const replicaSet = obj({
  apiVersion: 'string',
  kind: 'string',
  metadata: objectMeta,
  spec: obj({
    replicas: 'int32',
    minReadySeconds: 'int32',
    selector: labelSelector,
    template: podTemplateSpec,
  }),
  status: obj({
    replicas: 'int32',
    fullyLabeledReplicas: 'int32',
    readyReplicas: 'int32',
    availableReplicas: 'int32',
    terminatingReplicas: 'int32',
    observedGeneration: 'int64',
    conditions: list(
      obj({
        type: 'string',
        status: 'string',
        lastTransitionTime: 'time',
        reason: 'string',
        message: 'string',
      }),
    ),
  }),
})

const containerState = obj({
  waiting: obj({reason: 'string', message: 'string'}),
  running: obj({startedAt: 'time'}),
  terminated: obj({
    reason: 'string',
    message: 'string',
    exitCode: 'int32',
    startedAt: 'time',
    finishedAt: 'time',
  }),
})

const containerStatus = obj({
  name: 'string',
  ready: 'bool',
  started: 'bool',
  restartCount: 'int32',
  image: 'string',
  state: containerState,
  lastState: containerState,
})

const pod = obj({
  apiVersion: 'string',
  kind: 'string',
  metadata: objectMeta,
  spec: podSpec,
  status: obj({
    phase: 'string',
    reason: 'string',
    message: 'string',
    startTime: 'time',
    conditions: list(
      obj({
        type: 'string',
        status: 'string',
        lastProbeTime: 'time',
        lastTransitionTime: 'time',
        reason: 'string',
        message: 'string',
      }),
    ),
    containerStatuses: list(containerStatus),
    initContainerStatuses: list(containerStatus),
  }),
})

export const SCHEMAS = {Deployment: deployment, ReplicaSet: replicaSet, Pod: pod} as const
export type KeptKind = keyof typeof SCHEMAS
export type KindSchema = Fields

export const OBJECT_META = objectMeta

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

class Checker {
  readonly path: PathElem[] = []

  /** @param fromYaml whether to add a hint about YAML's implicit booleans and numbers */
  constructor(private readonly fromYaml: boolean) {}

  private fail(value: unknown, expected: string, key?: PathElem): FieldError {
    const path = key === undefined ? [...this.path] : [...this.path, key]
    return typeError(path, value, expected)
  }

  private leaf(v: unknown, s: Leaf, key: PathElem): FieldError | undefined {
    switch (s) {
      case 'string':
        if (typeof v === 'string') return undefined
        if (this.fromYaml && (typeof v === 'boolean' || typeof v === 'number')) {
          return this.fail(v, 'a string (quote the value: YAML reads it as a bool or a number)', key)
        }
        return this.fail(v, 'a string', key)
      case 'bool':
        return typeof v === 'boolean' ? undefined : this.fail(v, 'a boolean (true or false)', key)
      case 'int32':
        if (typeof v !== 'number' || !Number.isInteger(v)) return this.fail(v, 'an integer', key)
        if (v < INT32_MIN || v > INT32_MAX) return this.fail(v, 'a 32-bit integer', key)
        return undefined
      case 'int64':
        if (typeof v !== 'number' || !Number.isInteger(v)) return this.fail(v, 'an integer', key)
        if (!Number.isSafeInteger(v)) {
          return this.fail(v, 'an integer of at most 2^53 - 1 in magnitude (larger ones lose precision)', key)
        }
        return undefined
      case 'intOrString':
        if (typeof v === 'string') return undefined
        if (typeof v === 'number') {
          if (!Number.isInteger(v)) return this.fail(v, 'an integer or a percentage string', key)
          if (v < INT32_MIN || v > INT32_MAX) return this.fail(v, 'a 32-bit integer', key)
          return undefined
        }
        return this.fail(v, 'an integer or a percentage string', key)
      case 'time':
        if (typeof v !== 'string') return this.fail(v, 'an RFC 3339 time such as "2024-01-01T00:00:00Z"', key)
        return RFC3339.test(v)
          ? undefined
          : this.fail(v, 'an RFC 3339 time such as "2024-01-01T00:00:00Z"', key)
      case 'object':
        return isObject(v) ? undefined : this.fail(v, 'an object', key)
    }
  }

  /** Checks the listed fields of `o`, removing those that are null. */
  fields(o: Record<string, unknown>, s: Fields): FieldError | undefined {
    const fields = s.fields
    // for-in over the object's own keys beats probing every listed field: objects hold few of them.
    for (const k in o) {
      const fs = fields[k]
      if (fs === undefined) continue
      const v = o[k]
      if (v === null) {
        delete o[k]
        continue
      }
      if (v === undefined) continue
      const e = this.value(v, fs, k)
      if (e) return e
    }
    return undefined
  }

  /** Checks a present, non-null value against s. */
  value(v: unknown, s: Schema, pathKey: PathElem): FieldError | undefined {
    if (typeof s === 'string') return this.leaf(v, s, pathKey)
    if ('fields' in s) {
      if (!isObject(v)) return this.fail(v, 'an object', pathKey)
      this.path.push(pathKey)
      const e = this.fields(v, s)
      this.path.pop()
      return e
    }
    if ('list' in s) {
      if (!Array.isArray(v)) return this.fail(v, 'a list', pathKey)
      this.path.push(pathKey)
      for (let i = 0; i < v.length; i++) {
        const x = v[i]
        // Go would decode a null element to a zero value; no manifest means that.
        const e =
          x === null || x === undefined
            ? this.fail(x, typeof s.list === 'string' ? describeLeaf(s.list) : describe(s.list), i)
            : this.value(x, s.list, i)
        if (e) return e
      }
      this.path.pop()
      return undefined
    }
    if (!isObject(v)) return this.fail(v, 'a map', pathKey)
    this.path.push(pathKey)
    for (const k in v) {
      const x = v[k]
      if (x === null) {
        // Go stores the element's zero value under the key: the key stays (it matters to selectors).
        if (s.map === 'string') v[k] = ''
        else delete v[k]
        continue
      }
      const e = this.value(x, s.map, {key: k})
      if (e) return e
    }
    this.path.pop()
    return undefined
  }
}

function describeLeaf(s: Leaf): string {
  switch (s) {
    case 'string':
      return 'a string'
    case 'bool':
      return 'a boolean (true or false)'
    case 'int32':
    case 'int64':
      return 'an integer'
    case 'intOrString':
      return 'an integer or a percentage string'
    case 'time':
      return 'an RFC 3339 time such as "2024-01-01T00:00:00Z"'
    case 'object':
      return 'an object'
  }
}

function describe(s: Fields | ListOf | MapOf): string {
  if ('fields' in s) return 'an object'
  return 'list' in s ? 'a list' : 'a map'
}

/**
 * The first decoding error of an object of a kept kind, or undefined. Fixes nulls in place. The
 * returned path starts below the object (`spec.replicas`).
 */
export function decodeCheck(
  o: Record<string, unknown>,
  kind: KeptKind,
  fromYaml: boolean,
): FieldError | undefined {
  return new Checker(fromYaml).fields(o, SCHEMAS[kind])
}
