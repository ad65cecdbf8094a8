// The API server's defaulting (apps/v1 and core/v1 SetDefaults_*), applied to fields a manifest
// leaves out so that a hand-written file behaves like the object a cluster would hand back. This
// matters beyond convenience: the controller compares a Deployment's pod template with each
// ReplicaSet's, and a ReplicaSet read from a cluster carries every defaulted field.
// Only absent fields are filled in; a written value is never replaced. Runs after decodeCheck, so
// every field it reads is absent or of the right JSON type.

import {hexDigest} from '../digest.js'

type Obj = Record<string, unknown>

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** holder[key] as an object, created empty when absent (Go's non-pointer structs always exist). */
function child(holder: Obj, key: string): Obj {
  const v = holder[key]
  if (isObject(v)) return v
  const o: Obj = {}
  if (v === undefined) holder[key] = o
  return o
}

function setIfAbsent(o: Obj, key: string, value: unknown): void {
  if (o[key] === undefined) o[key] = value
}

/** For fields upstream defaults on Go's zero value (`== ""`, `== 0`), not only when absent. */
function setIfZero(o: Obj, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === 0 || o[key] === '') o[key] = value
}

/**
 * The tag of an image reference as upstream's parsers.ParseImageName sees it: "latest" when neither
 * a tag nor a digest is given, "" when only a digest is. An empty image does not parse upstream and
 * ends up with no tag.
 */
export function imageTag(image: string): string {
  if (image === '') return ''
  const at = image.indexOf('@')
  const name = at >= 0 ? image.slice(0, at) : image
  const slash = name.lastIndexOf('/')
  const colon = name.lastIndexOf(':')
  if (colon > slash) return name.slice(colon + 1)
  return at >= 0 ? '' : 'latest'
}

function defaultHttpGet(handler: unknown): void {
  if (!isObject(handler) || !isObject(handler.httpGet)) return
  setIfZero(handler.httpGet, 'path', '/')
  setIfZero(handler.httpGet, 'scheme', 'HTTP')
}

function defaultProbe(p: unknown): void {
  if (!isObject(p)) return
  setIfZero(p, 'timeoutSeconds', 1)
  setIfZero(p, 'periodSeconds', 10)
  setIfZero(p, 'successThreshold', 1)
  setIfZero(p, 'failureThreshold', 3)
  defaultHttpGet(p)
}

function defaultContainer(c: unknown): void {
  if (!isObject(c)) return
  if (c.imagePullPolicy === undefined || c.imagePullPolicy === '') {
    const tag = imageTag(typeof c.image === 'string' ? c.image : '')
    c.imagePullPolicy = tag === 'latest' ? 'Always' : 'IfNotPresent'
  }
  setIfZero(c, 'terminationMessagePath', '/dev/termination-log')
  setIfZero(c, 'terminationMessagePolicy', 'File')
  // Not defaulting strictly: Go's Container.Resources is a struct, so it always serializes.
  setIfAbsent(c, 'resources', {})
  if (Array.isArray(c.ports)) {
    for (const port of c.ports) if (isObject(port)) setIfZero(port, 'protocol', 'TCP')
  }
  if (Array.isArray(c.env)) {
    for (const e of c.env) {
      if (isObject(e) && isObject(e.valueFrom) && isObject(e.valueFrom.fieldRef)) {
        setIfZero(e.valueFrom.fieldRef, 'apiVersion', 'v1')
      }
    }
  }
  defaultProbe(c.livenessProbe)
  defaultProbe(c.readinessProbe)
  defaultProbe(c.startupProbe)
  if (isObject(c.lifecycle)) {
    defaultHttpGet(c.lifecycle.postStart)
    defaultHttpGet(c.lifecycle.preStop)
  }
}

// Volume sources whose DefaultMode defaults to 0644.
const MODE_SOURCES = ['configMap', 'secret', 'downwardAPI', 'projected'] as const

function defaultVolume(v: unknown): void {
  if (!isObject(v)) return
  let hasSource = false
  for (const k of Object.keys(v)) {
    if (k !== 'name' && v[k] !== undefined) {
      hasSource = true
      break
    }
  }
  if (!hasSource) v.emptyDir = {}
  for (const k of MODE_SOURCES) {
    const src = v[k]
    if (isObject(src)) setIfAbsent(src, 'defaultMode', 0o644)
  }
  if (isObject(v.hostPath)) setIfAbsent(v.hostPath, 'type', '')
  // SetDefaults_ObjectFieldSelector: every fieldRef, the downward API volume's items' too.
  const downward = [v.downwardAPI]
  if (isObject(v.projected) && Array.isArray(v.projected.sources)) {
    for (const s of v.projected.sources) if (isObject(s)) downward.push(s.downwardAPI)
  }
  for (const d of downward) {
    if (!isObject(d) || !Array.isArray(d.items)) continue
    for (const item of d.items)
      if (isObject(item) && isObject(item.fieldRef)) setIfZero(item.fieldRef, 'apiVersion', 'v1')
  }
}

/** core/v1 SetDefaults_PodSpec and what the generated defaulters apply below it. */
export function defaultPodSpec(spec: Obj): void {
  setIfZero(spec, 'restartPolicy', 'Always')
  setIfAbsent(spec, 'terminationGracePeriodSeconds', 30)
  setIfZero(spec, 'dnsPolicy', 'ClusterFirst')
  setIfAbsent(spec, 'securityContext', {})
  setIfZero(spec, 'schedulerName', 'default-scheduler')
  if (Array.isArray(spec.containers)) spec.containers.forEach(defaultContainer)
  if (Array.isArray(spec.initContainers)) spec.initContainers.forEach(defaultContainer)
  if (Array.isArray(spec.volumes)) spec.volumes.forEach(defaultVolume)
}

function defaultTemplate(spec: Obj): void {
  const template = child(spec, 'template')
  defaultPodSpec(child(template, 'spec'))
}

/**
 * upstream: apps/v1 SetDefaults_Deployment, plus the pod template's defaults: what the API server
 * applies (the test API server calls it too).
 */
export function setDefaultsDeployment(d: Obj): void {
  const spec = child(d, 'spec')
  setIfAbsent(spec, 'replicas', 1)
  const strategy = child(spec, 'strategy')
  if (strategy.type === undefined || strategy.type === '') strategy.type = 'RollingUpdate'
  if (strategy.type === 'RollingUpdate') {
    const ru = child(strategy, 'rollingUpdate')
    setIfAbsent(ru, 'maxUnavailable', '25%')
    setIfAbsent(ru, 'maxSurge', '25%')
  }
  setIfAbsent(spec, 'revisionHistoryLimit', 10)
  setIfAbsent(spec, 'progressDeadlineSeconds', 600)
  defaultTemplate(spec)
}

/** The defaults, and what a stored object always has: a generation and a status. */
export function defaultDeployment(d: Obj): void {
  setDefaultsDeployment(d)
  setIfAbsent(child(d, 'metadata'), 'generation', 1)
  setIfAbsent(d, 'status', {})
}

/** upstream: apps/v1 SetDefaults_ReplicaSet, plus the pod template's defaults. */
export function setDefaultsReplicaSet(rs: Obj): void {
  const spec = child(rs, 'spec')
  setIfAbsent(spec, 'replicas', 1)
  defaultTemplate(spec)
}

export function defaultReplicaSet(rs: Obj): void {
  setDefaultsReplicaSet(rs)
  setIfAbsent(child(rs, 'metadata'), 'generation', 1)
  setIfAbsent(rs, 'status', {})
}

export function defaultPod(p: Obj): void {
  defaultPodSpec(child(p, 'spec'))
}

/**
 * The creation time given to objects that have none. A fixed instant keeps runs reproducible; it
 * is a round date in the past rather than the Unix epoch so that ages computed from it look sane
 * and no code mistakes it for Go's zero time. Objects that all carry it sort by name, as upstream's
 * ReplicaSet orderings break ties.
 */
export const SYNTHETIC_CREATION_TIMESTAMP = '2024-01-01T00:00:00Z'

/** A UID shaped like the API server's (8-4-4-4-12 hex), derived from the object's identity. */
export function syntheticUid(kind: string, namespace: string, name: string): string {
  const h = hexDigest('sha1', `${kind}/${namespace}/${name}`)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

/** Fills in what the API server sets on create: uid and creationTimestamp. */
export function synthesizeIdentity(meta: Obj, kind: string, namespace: string, name: string): void {
  if (meta.uid === undefined || meta.uid === '') meta.uid = syntheticUid(kind, namespace, name)
  if (meta.creationTimestamp === undefined) meta.creationTimestamp = SYNTHETIC_CREATION_TIMESTAMP
}
