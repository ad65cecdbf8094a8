// Decoding of `application/vnd.kubernetes.protobuf` request bodies for the objects kubectl's typed
// clients send that way (e.g. `kubectl create deployment`). A wire-format reader plus field tables for
// the common apps/v1 and core/v1 fields (Deployment, ReplicaSet, Pod, Namespace); a non-empty field outside the tables is an error, never
// silently dropped.

import {ApiError} from './errors.js'
import type {Obj} from './util.js'

type Wire = {no: number; wt: number; v: bigint | Buffer}

function readVarint(buf: Buffer, pos: number): [bigint, number] {
  let result = 0n
  let shift = 0n
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated varint')
    const b = buf[pos++] as number
    result |= BigInt(b & 0x7f) << shift
    if ((b & 0x80) === 0) return [result, pos]
    shift += 7n
  }
}

function readFields(buf: Buffer): Wire[] {
  const out: Wire[] = []
  let pos = 0
  while (pos < buf.length) {
    const [tag, p1] = readVarint(buf, pos)
    pos = p1
    const no = Number(tag >> 3n)
    const wt = Number(tag & 7n)
    if (wt === 0) {
      const [v, p2] = readVarint(buf, pos)
      out.push({no, wt, v})
      pos = p2
    } else if (wt === 2) {
      const [len, p2] = readVarint(buf, pos)
      const end = p2 + Number(len)
      if (end > buf.length) throw new Error('truncated length-delimited field')
      out.push({no, wt, v: buf.subarray(p2, end)})
      pos = end
    } else if (wt === 1) {
      out.push({no, wt, v: buf.readBigUInt64LE(pos)})
      pos += 8
    } else if (wt === 5) {
      out.push({no, wt, v: BigInt(buf.readUInt32LE(pos))})
      pos += 4
    } else {
      throw new Error(`unsupported wire type ${wt}`)
    }
  }
  return out
}

type Scalar = 'string' | 'int' | 'bool' | 'time' | 'intstr' | 'quantity'
interface Field {
  name: string
  type: Scalar | {msg: string} | {map: 'string' | 'quantity'}
  repeated?: boolean
  /** A pointer in Go: encoded only when set, so a zero value is kept. */
  ptr?: boolean
}

const f = (name: string, type: Field['type'], extra: Partial<Field> = {}): Field => ({name, type, ...extra})
const msg = (m: string): {msg: string} => ({msg: m})

const SCHEMAS: Record<string, Record<number, Field>> = {
  Deployment: {
    1: f('metadata', msg('ObjectMeta')),
    2: f('spec', msg('DeploymentSpec')),
    3: f('status', msg('DeploymentStatus')),
  },
  ReplicaSet: {
    1: f('metadata', msg('ObjectMeta')),
    2: f('spec', msg('ReplicaSetSpec')),
    3: f('status', msg('ReplicaSetStatus')),
  },
  Pod: {
    1: f('metadata', msg('ObjectMeta')),
    2: f('spec', msg('PodSpec')),
    3: f('status', msg('PodStatusEmpty')),
  },
  ObjectMeta: {
    1: f('name', 'string'),
    2: f('generateName', 'string'),
    3: f('namespace', 'string'),
    4: f('selfLink', 'string'),
    5: f('uid', 'string'),
    6: f('resourceVersion', 'string'),
    7: f('generation', 'int'),
    8: f('creationTimestamp', 'time'),
    9: f('deletionTimestamp', 'time'),
    10: f('deletionGracePeriodSeconds', 'int', {ptr: true}),
    11: f('labels', {map: 'string'}),
    12: f('annotations', {map: 'string'}),
    13: f('ownerReferences', msg('OwnerReference'), {repeated: true}),
    14: f('finalizers', 'string', {repeated: true}),
  },
  OwnerReference: {
    1: f('kind', 'string'),
    3: f('name', 'string'),
    4: f('uid', 'string'),
    5: f('apiVersion', 'string'),
    6: f('controller', 'bool', {ptr: true}),
    7: f('blockOwnerDeletion', 'bool', {ptr: true}),
  },
  LabelSelector: {
    1: f('matchLabels', {map: 'string'}),
    2: f('matchExpressions', msg('LabelSelectorRequirement'), {repeated: true}),
  },
  LabelSelectorRequirement: {
    1: f('key', 'string'),
    2: f('operator', 'string'),
    3: f('values', 'string', {repeated: true}),
  },
  DeploymentSpec: {
    1: f('replicas', 'int', {ptr: true}),
    2: f('selector', msg('LabelSelector')),
    3: f('template', msg('PodTemplateSpec')),
    4: f('strategy', msg('DeploymentStrategy')),
    5: f('minReadySeconds', 'int'),
    6: f('revisionHistoryLimit', 'int', {ptr: true}),
    7: f('paused', 'bool'),
    9: f('progressDeadlineSeconds', 'int', {ptr: true}),
  },
  DeploymentStrategy: {1: f('type', 'string'), 2: f('rollingUpdate', msg('RollingUpdateDeployment'))},
  RollingUpdateDeployment: {1: f('maxUnavailable', 'intstr'), 2: f('maxSurge', 'intstr')},
  DeploymentStatus: {
    1: f('observedGeneration', 'int'),
    2: f('replicas', 'int'),
    3: f('updatedReplicas', 'int'),
    4: f('availableReplicas', 'int'),
    5: f('unavailableReplicas', 'int'),
    7: f('readyReplicas', 'int'),
    8: f('collisionCount', 'int', {ptr: true}),
  },
  ReplicaSetSpec: {
    1: f('replicas', 'int', {ptr: true}),
    2: f('selector', msg('LabelSelector')),
    3: f('template', msg('PodTemplateSpec')),
    4: f('minReadySeconds', 'int'),
  },
  ReplicaSetStatus: {
    1: f('replicas', 'int'),
    2: f('fullyLabeledReplicas', 'int'),
    3: f('observedGeneration', 'int'),
    4: f('readyReplicas', 'int'),
    5: f('availableReplicas', 'int'),
  },
  PodStatusEmpty: {},
  Namespace: {
    1: f('metadata', msg('ObjectMeta')),
    2: f('spec', msg('NamespaceSpec')),
    3: f('status', msg('NamespaceStatus')),
  },
  NamespaceSpec: {1: f('finalizers', 'string', {repeated: true})},
  NamespaceStatus: {1: f('phase', 'string')},
  PodTemplateSpec: {1: f('metadata', msg('ObjectMeta')), 2: f('spec', msg('PodSpec'))},
  PodSpec: {
    2: f('containers', msg('Container'), {repeated: true}),
    3: f('restartPolicy', 'string'),
    4: f('terminationGracePeriodSeconds', 'int', {ptr: true}),
    5: f('activeDeadlineSeconds', 'int', {ptr: true}),
    6: f('dnsPolicy', 'string'),
    7: f('nodeSelector', {map: 'string'}),
    8: f('serviceAccountName', 'string'),
    9: f('serviceAccount', 'string'),
    10: f('nodeName', 'string'),
    11: f('hostNetwork', 'bool'),
    12: f('hostPID', 'bool'),
    13: f('hostIPC', 'bool'),
    15: f('imagePullSecrets', msg('LocalObjectReference'), {repeated: true}),
    16: f('hostname', 'string'),
    17: f('subdomain', 'string'),
    19: f('schedulerName', 'string'),
    20: f('initContainers', msg('Container'), {repeated: true}),
    21: f('automountServiceAccountToken', 'bool', {ptr: true}),
    24: f('priorityClassName', 'string'),
    25: f('priority', 'int', {ptr: true}),
    30: f('enableServiceLinks', 'bool', {ptr: true}),
    31: f('preemptionPolicy', 'string', {ptr: true}),
  },
  LocalObjectReference: {1: f('name', 'string')},
  Container: {
    1: f('name', 'string'),
    2: f('image', 'string'),
    3: f('command', 'string', {repeated: true}),
    4: f('args', 'string', {repeated: true}),
    5: f('workingDir', 'string'),
    6: f('ports', msg('ContainerPort'), {repeated: true}),
    7: f('env', msg('EnvVar'), {repeated: true}),
    8: f('resources', msg('ResourceRequirements')),
    13: f('terminationMessagePath', 'string'),
    14: f('imagePullPolicy', 'string'),
    16: f('stdin', 'bool'),
    17: f('stdinOnce', 'bool'),
    18: f('tty', 'bool'),
    20: f('terminationMessagePolicy', 'string'),
  },
  ContainerPort: {
    1: f('name', 'string'),
    2: f('hostPort', 'int'),
    3: f('containerPort', 'int', {ptr: true}),
    4: f('protocol', 'string'),
    5: f('hostIP', 'string'),
  },
  EnvVar: {1: f('name', 'string'), 2: f('value', 'string')},
  ResourceRequirements: {1: f('limits', {map: 'quantity'}), 2: f('requests', {map: 'quantity'})},
}

function isZero(v: unknown): boolean {
  return (
    v === undefined ||
    v === '' ||
    v === 0 ||
    v === false ||
    (Array.isArray(v) && v.length === 0) ||
    (typeof v === 'object' && v !== null && Object.keys(v).length === 0)
  )
}

function text(v: bigint | Buffer): string {
  return Buffer.isBuffer(v) ? v.toString('utf8') : String(v)
}

function int(v: bigint | Buffer): number {
  return Buffer.isBuffer(v) ? 0 : Number(BigInt.asIntN(64, v))
}

function decodeScalar(type: Scalar, w: Wire): unknown {
  switch (type) {
    case 'string':
      return text(w.v)
    case 'int':
      return int(w.v)
    case 'bool':
      return w.v !== 0n
    case 'quantity': {
      const q = readFields(w.v as Buffer).find((x) => x.no === 1)
      return q ? text(q.v) : ''
    }
    case 'time': {
      const fields = readFields(w.v as Buffer)
      const seconds = int(fields.find((x) => x.no === 1)?.v ?? 0n)
      if (seconds === 0) return undefined
      return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')
    }
    case 'intstr': {
      const fields = readFields(w.v as Buffer)
      const kind = int(fields.find((x) => x.no === 1)?.v ?? 0n)
      return kind === 1
        ? text(fields.find((x) => x.no === 3)?.v ?? Buffer.alloc(0))
        : int(fields.find((x) => x.no === 2)?.v ?? 0n)
    }
  }
}

function decodeMessage(name: string, buf: Buffer, path: string): Obj {
  const schema = SCHEMAS[name] ?? {}
  const out: Obj = {}
  for (const w of readFields(buf)) {
    const field = schema[w.no]
    if (!field) {
      const empty = Buffer.isBuffer(w.v) ? w.v.length === 0 : w.v === 0n
      if (empty) continue
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the test API server cannot decode protobuf field ${w.no} of ${name} (${path || 'object'}); send JSON instead`,
      )
    }
    const here = path ? `${path}.${field.name}` : field.name
    let value: unknown
    if (typeof field.type === 'string') {
      value = decodeScalar(field.type, w)
    } else if ('msg' in field.type) {
      value = decodeMessage(field.type.msg, w.v as Buffer, here)
    } else {
      const entry = readFields(w.v as Buffer)
      const k = entry.find((x) => x.no === 1)
      const v = entry.find((x) => x.no === 2)
      const target = (out[field.name] ??= {}) as Obj
      target[k ? text(k.v) : ''] = v
        ? decodeScalar(field.type.map === 'quantity' ? 'quantity' : 'string', v)
        : ''
      continue
    }
    if (field.repeated) {
      const list = (out[field.name] ??= []) as unknown[]
      list.push(value)
    } else if (field.ptr ? value !== undefined : !isZero(value)) {
      out[field.name] = value
    }
  }
  return out
}

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00])

/** Decodes a `k8s\0`-prefixed runtime.Unknown envelope into a JSON object with apiVersion and kind. */
export function decodeKubernetesProtobuf(body: Buffer): Obj {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) {
    throw new ApiError(400, 'BadRequest', 'protobuf body without the k8s envelope')
  }
  const unknown = readFields(body.subarray(4))
  const typeMeta = unknown.find((x) => x.no === 1)
  const raw = unknown.find((x) => x.no === 2)
  const tm = typeMeta ? readFields(typeMeta.v as Buffer) : []
  const apiVersion = text(tm.find((x) => x.no === 1)?.v ?? Buffer.alloc(0))
  const kind = text(tm.find((x) => x.no === 2)?.v ?? Buffer.alloc(0))
  if (!SCHEMAS[kind] || kind === 'ObjectMeta') {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the test API server cannot decode protobuf ${apiVersion} ${kind}; send JSON instead`,
    )
  }
  return {apiVersion, kind, ...decodeMessage(kind, (raw?.v as Buffer) ?? Buffer.alloc(0), '')}
}
