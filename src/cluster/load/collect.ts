// From parsed documents to a World: Lists are flattened, kinds sorted out, each kept object
// decoded (type-checked), defaulted, given an identity, validated and checked for duplicates, in
// the order the API server would do it on create.

import type {Deployment, KubeObject, Pod, ReplicaSet} from '../../controller/api/types.js'
import {FEATURES, featureDefault} from '../../controller/features.js'
import {RevisionAnnotation} from '../../controller/util/deployment-util.js'
import {parseInt64} from '../../controller/util/go.js'
import {unknownTemplateKeys} from '../../controller/util/template-fields.js'
import {type KubeMinor, NEWEST_MINOR} from '../../controller/version.js'
import {InputError} from '../../errors.js'
import {dropDisabledPodSpecFields} from '../validation/drop-disabled.js'
import {validateDeployment, validatePod, validateReplicaSet} from '../validation/index.js'
import {type ClusterObject, emptyWorld, type KubeEvent, type SourceRef, type World} from '../world.js'
import {defaultDeployment, defaultPod, defaultReplicaSet, synthesizeIdentity} from './defaults.js'
import type {ParsedDoc} from './doc.js'
import {
  type FieldError,
  fieldErrorText,
  formatPath,
  formatValue,
  type Path,
  unknownField,
} from './problems.js'
import {decodeCheck, type KeptKind} from './schema.js'
import {unknownFields} from './unknown-fields.js'

export type ValidateMode = 'strict' | 'warn' | 'ignore'

type Obj = Record<string, unknown>

const API_VERSIONS: Record<KeptKind, string> = {Deployment: 'apps/v1', ReplicaSet: 'apps/v1', Pod: 'v1'}

/** Events are read from both APIs: kubectl get events (v1) and events.k8s.io/v1. */
const EVENT_API_VERSIONS = new Set(['v1', 'events.k8s.io/v1'])

/**
 * The kinds the API server serves in the group versions this tool reads objects from, as discovery
 * lists them (`kubectl api-resources`, v1.36): kubectl maps nothing else there, and refuses it. Kinds
 * of other group versions (CRDs, other APIs) are not known here: they are skipped with a note.
 */
const SERVED_KINDS: Record<string, ReadonlySet<string>> = {
  v1: new Set([
    'Binding',
    'ComponentStatus',
    'ConfigMap',
    'Endpoints',
    'Event',
    'LimitRange',
    'Namespace',
    'Node',
    'PersistentVolume',
    'PersistentVolumeClaim',
    'Pod',
    'PodTemplate',
    'ReplicationController',
    'ResourceQuota',
    'Secret',
    'Service',
    'ServiceAccount',
  ]),
  'apps/v1': new Set(['ControllerRevision', 'DaemonSet', 'Deployment', 'ReplicaSet', 'StatefulSet']),
  'events.k8s.io/v1': new Set(['Event']),
  // Scale: the kind of every scale subresource (`kubectl get --subresource=scale`).
  'autoscaling/v1': new Set(['HorizontalPodAutoscaler', 'Scale']),
  'autoscaling/v2': new Set(['HorizontalPodAutoscaler']),
}

/**
 * Why kubectl could not map `kind` in `apiVersion`, or undefined when it could or this tool cannot
 * tell. Kinds are case-sensitive (`deployment` is no kind), as the API server's scheme matches them.
 */
function unmappable(kind: string, apiVersion: string): string | undefined {
  const served = SERVED_KINDS[apiVersion]
  if (served === undefined || served.has(kind)) return undefined
  // upstream: meta.NoKindMatchError
  const msg = `no matches for kind ${JSON.stringify(kind)} in version ${JSON.stringify(apiVersion)}`
  const lower = kind.toLowerCase()
  const meant = [...served].find((k) => k.toLowerCase() === lower)
  return meant === undefined ? msg : `${msg} (kinds are case-sensitive: ${JSON.stringify(meant)})`
}

/** Whether `kind` is a list kind whose items must be a list: List, or the list of a served kind. */
function isListKind(kind: string, apiVersion: unknown): boolean {
  if (kind === 'List') return true
  const served = typeof apiVersion === 'string' ? SERVED_KINDS[apiVersion] : undefined
  return served?.has(kind.slice(0, -'List'.length)) ?? false
}

/** What explain reads besides workloads and events: autoscalers (v2, or v1's same fields) and quotas. */
const CONTEXT_KINDS: Record<string, {apiVersions: Set<string>; list: 'autoscalers' | 'quotas' | 'nodes'}> = {
  HorizontalPodAutoscaler: {apiVersions: new Set(['autoscaling/v2', 'autoscaling/v1']), list: 'autoscalers'},
  ResourceQuota: {apiVersions: new Set(['v1']), list: 'quotas'},
  // plan's surge fit: a snapshot's nodes (cluster-scoped).
  Node: {apiVersions: new Set(['v1']), list: 'nodes'},
}

function isKept(kind: string): kind is KeptKind {
  return kind === 'Deployment' || kind === 'ReplicaSet' || kind === 'Pod'
}

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function typeName(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'a list'
  switch (typeof v) {
    case 'string':
      return 'a string'
    case 'number':
      return 'a number'
    case 'boolean':
      return 'a boolean'
    default:
      return 'an object'
  }
}

/** Where one object sits: enough to name it in a message and to point at one of its fields. */
interface Origin {
  file: string
  line: number
  index: number
  fromYaml: boolean
  /** Line of a field of this object, when the reader can tell (YAML). */
  locate?: (path: Path) => number | undefined
}

export class Collector {
  readonly world: World = emptyWorld()
  /**
   * Each kept object by kind, namespace and name, and by kind and uid: what a second object with the
   * same name or uid is refused against. Keyed by the objects' own strings, so that no key or record
   * is made per object: these maps die with the load, but a big snapshot's live there till the end
   * of the call (its old generation is rarely collected again), 33 MB of 5,000 Deployments' call.
   */
  private readonly seen = new Map<string, Map<string, Map<string, Obj>>>()
  private readonly uids = new Map<string, Map<string, Obj>>()
  private readonly skippedKinds = new Map<string, number>()
  private skipped = 0

  constructor(
    private readonly mode: ValidateMode,
    private readonly warn: (line: string) => void,
    keepRaw = false,
    /** The namespace of objects that name none (LoadOptions.defaultNamespace). */
    private readonly defaultNamespace: () => string = () => 'default',
    private readonly apiServer: ApiServerGates = {minor: 37, enabled: defaultGateOn},
  ) {
    if (keepRaw) this.world.raw = new WeakMap()
  }

  addDocs(file: string, docs: ParsedDoc[], fromYaml: boolean): void {
    for (const doc of docs) {
      const origin: Origin = {file, line: doc.line, index: doc.index, fromYaml, locate: doc.locate}
      this.addValue(doc.value, origin, doc.itemLines)
    }
  }

  /** Objects of other kinds that a reader left out itself (a timeline's), for the note below. */
  skip(kind: string, n: number): void {
    this.skipped += n
    this.skippedKinds.set(kind, (this.skippedKinds.get(kind) ?? 0) + n)
  }

  /** The notes about skipped kinds and missing owners, once all input has been read. */
  finish(): World {
    if (this.skipped > 0) {
      const n = this.skipped
      const kinds = [...this.skippedKinds.keys()].join(', ')
      this.warn(
        `note: skipped ${n} ${n === 1 ? 'object' : 'objects'} of kinds other than Deployment, ReplicaSet, Pod (${kinds})`,
      )
    }
    // A snapshot that lacks an owner is usually partial: say so rather than answer as if complete.
    const w = this.world
    const rs = orphans(w.replicaSets, 'Deployment', w.deployments)
    if (rs.length > 0) {
      this.warn(
        `note: ${count(rs.length, 'ReplicaSet is', 'ReplicaSets are')} controlled by a Deployment that is not in the input, so no pass adopts or changes ${rs.length === 1 ? 'it' : 'them'}: ${listed(rs)}`,
      )
    }
    const pods = orphans(w.pods, 'ReplicaSet', w.replicaSets)
    if (pods.length > 0) {
      this.warn(
        `note: ${count(pods.length, 'Pod is', 'Pods are')} controlled by a ReplicaSet that is not in the input, so no Deployment counts ${pods.length === 1 ? 'it' : 'them'}: ${listed(pods)}`,
      )
    }
    return w
  }

  /**
   * Revisions the controller cannot number from: upstream skips a ReplicaSet whose revision is not
   * an int64 (the next revision may then restart at 1), and the revision after the largest int64
   * overflows. The pass does what upstream does; the user is told.
   */
  /**
   * The pod-spec fields the minor does not declare: strict decoding refuses them; lax decoding
   * (--validate=ignore, or after the warning) drops them, so they are removed either way.
   */
  private unknownToMinor(obj: Obj, kind: string): FieldError[] {
    const spec = isObject(obj.spec) ? obj.spec : undefined
    const template = kind === 'Pod' ? {metadata: obj.metadata, spec} : spec?.template
    const prefix: Path = kind === 'Pod' ? [] : ['spec', 'template']
    const errs: FieldError[] = []
    for (const u of unknownTemplateKeys(template, this.apiServer.minor as KubeMinor)) {
      if (u.elems[0] !== 'spec') continue // metadata: unknownFields() has checked it
      delete u.holder[u.key]
      errs.push(unknownField([...prefix, ...(u.elems as Path)]))
    }
    return errs
  }

  /**
   * What the API server of the assumed minor clears on create because a feature gate is off
   * (validation/drop-disabled.ts): cleared here too, with a warning (the server says nothing).
   */
  private dropDisabled(obj: Obj, kind: string, o: Origin, label: string): void {
    const spec = isObject(obj.spec) ? obj.spec : undefined
    const template = kind === 'Pod' ? undefined : isObject(spec?.template) ? spec.template : undefined
    const podSpec = kind === 'Pod' ? spec : template?.spec
    const prefix = kind === 'Pod' ? ['spec'] : ['spec', 'template', 'spec']
    // Where each field was written (in the source, which the drop does not change).
    const located = (path: Path) => o.locate?.(path) || o.line
    for (const d of dropDisabledPodSpecFields(podSpec, (g) => this.apiServer.enabled(g))) {
      if (this.mode === 'ignore') continue
      const path: Path = [...prefix, ...d.path]
      this.warn(
        `warning: ${o.file}:${located(path)}: ${label}: ${formatPath(path)}: dropped, as an API server 1.${this.apiServer.minor} does while the ${d.gate} feature gate is off (--feature-gates ${d.gate}=true keeps it)`,
      )
    }
  }

  private checkRevision(obj: Obj, o: Origin, label: string): void {
    const annotations = isObject(obj.metadata) ? obj.metadata.annotations : undefined
    const v = isObject(annotations) ? annotations[RevisionAnnotation] : undefined
    if (typeof v !== 'string') return
    const n = parseInt64(v)
    const problem =
      n === undefined
        ? 'is not a 64-bit integer: the controller skips this ReplicaSet when it numbers revisions'
        : n === INT64_MAX
          ? 'is the largest 64-bit integer: the next revision overflows'
          : undefined
    if (problem === undefined) return
    const line = o.locate?.(['metadata', 'annotations', {key: RevisionAnnotation}]) || o.line
    this.warn(
      `warning: ${o.file}:${line}: ${label}: metadata.annotations[${RevisionAnnotation}]: ${JSON.stringify(v)} ${problem}`,
    )
  }

  /** Where a kept object was read (every kept object has its source). */
  private sourceOf(obj: Obj): SourceRef {
    const at = this.world.sources.get(obj)
    if (at === undefined) throw new Error('a kept object without its source')
    return at
  }

  private fail(o: Origin, msg: string, path?: Path): never {
    const line = (path && o.locate?.(path)) || o.line
    throw new InputError(`${o.file}:${line}: ${msg}`)
  }

  private addValue(value: unknown, o: Origin, itemLines: number[] | undefined): void {
    if (value === null || value === undefined) return
    if (Array.isArray(value)) {
      this.addItems(value, o, itemLines, [])
      return
    }
    if (!isObject(value)) {
      this.fail(
        o,
        `expected a Kubernetes object (a mapping with apiVersion and kind), got ${typeName(value)}`,
      )
    }
    const kind = value.kind
    if (typeof kind === 'string' && kind.endsWith('List')) {
      if (!Array.isArray(value.items) && value.items != null) {
        if (isListKind(kind, value.apiVersion)) {
          this.fail(o, `${kind}: items: Invalid value: ${formatValue(value.items)}: expected a list`, [
            'items',
          ])
        }
        this.addObject(value, o)
        return
      }
      const items = Array.isArray(value.items) ? value.items : []
      const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length)
      const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : undefined
      this.addItems(items, o, itemLines, ['items'], itemKind, apiVersion)
      return
    }
    this.addObject(value, o)
  }

  private addItems(
    items: unknown[],
    o: Origin,
    itemLines: number[] | undefined,
    prefix: Path,
    itemKind?: string,
    apiVersion?: string,
  ): void {
    // Lists nest only as deep as the document does, which the readers bound already.
    const lines = itemLines && itemLines.length === items.length ? itemLines : undefined
    items.forEach((item, i) => {
      if (itemKind !== undefined && isObject(item)) {
        // A typed list (DeploymentList, as the API returns it) leaves kind out of its items.
        if (item.kind === undefined) item.kind = itemKind
        if (item.apiVersion === undefined && apiVersion !== undefined) item.apiVersion = apiVersion
      }
      const parentLocate = o.locate
      const locate = parentLocate ? (path: Path) => parentLocate([...prefix, i, ...path]) : undefined
      const line = lines?.[i] || parentLocate?.([...prefix, i]) || o.line
      this.addValue(item, {file: o.file, line, index: i, fromYaml: o.fromYaml, locate}, undefined)
    })
  }

  /**
   * An Event (`kubectl get events -o yaml` in a snapshot): kept as given for explain, which reads
   * it as it reads a cluster's. Only its shape is checked: the fields explain reads.
   */
  private addEvent(obj: Obj, o: Origin): void {
    const label =
      `Event ${isObject(obj.metadata) && typeof obj.metadata.name === 'string' ? obj.metadata.name : ''}`.trim()
    for (const field of ['involvedObject', 'regarding', 'series', 'metadata'] as const) {
      if (obj[field] !== undefined && obj[field] !== null && !isObject(obj[field])) {
        this.fail(o, `${label}: ${field}: Invalid value: ${formatValue(obj[field])}: expected an object`, [
          field,
        ])
      }
    }
    for (const field of ['type', 'reason', 'message', 'note'] as const) {
      if (obj[field] !== undefined && obj[field] !== null && typeof obj[field] !== 'string') {
        this.fail(o, `${label}: ${field}: Invalid value: ${formatValue(obj[field])}: expected a string`, [
          field,
        ])
      }
    }
    if (obj.count !== undefined && obj.count !== null && typeof obj.count !== 'number') {
      this.fail(o, `${label}: count: Invalid value: ${formatValue(obj.count)}: expected a number`, ['count'])
    }
    const metadata = isObject(obj.metadata) ? obj.metadata : (obj.metadata = {})
    if (metadata.namespace === undefined || metadata.namespace === '')
      metadata.namespace = this.defaultNamespace()
    this.world.events ??= []
    this.world.events.push(obj as KubeEvent)
  }

  /** An autoscaler or quota: kept as given; only the shape of what explain reads is checked. */
  private addContextObject(obj: Obj, o: Origin, list: 'autoscalers' | 'quotas' | 'nodes'): void {
    const name = isObject(obj.metadata) && typeof obj.metadata.name === 'string' ? obj.metadata.name : ''
    const label = `${String(obj.kind)} ${name}`.trim()
    if (name === '') this.fail(o, `${label}: metadata.name: Required value`, ['metadata', 'name'])
    for (const field of ['spec', 'status'] as const) {
      if (obj[field] !== undefined && obj[field] !== null && !isObject(obj[field])) {
        this.fail(o, `${label}: ${field}: Invalid value: ${formatValue(obj[field])}: expected an object`, [
          field,
        ])
      }
    }
    const metadata = obj.metadata as Obj
    if (list !== 'nodes' && (metadata.namespace === undefined || metadata.namespace === ''))
      metadata.namespace = this.defaultNamespace()
    const target = (this.world[list] ??= [])
    target.push(obj as unknown as ClusterObject)
  }

  private addObject(obj: Obj, o: Origin): void {
    const kind = obj.kind
    if (kind === undefined || kind === null || kind === '') this.fail(o, 'kind not set', ['kind'])
    if (typeof kind !== 'string')
      this.fail(o, `kind: Invalid value: ${formatValue(kind)}: expected a string`, ['kind'])
    const apiVersion = obj.apiVersion
    if (apiVersion === undefined || apiVersion === null || apiVersion === '') {
      this.fail(o, `${kind}: apiVersion not set`, ['apiVersion'])
    }
    if (typeof apiVersion !== 'string') {
      this.fail(o, `${kind}: apiVersion: Invalid value: ${formatValue(apiVersion)}: expected a string`, [
        'apiVersion',
      ])
    }
    if (kind === 'Event' && EVENT_API_VERSIONS.has(apiVersion)) {
      this.addEvent(obj, o)
      return
    }
    const context = CONTEXT_KINDS[kind]
    if (context?.apiVersions.has(apiVersion)) {
      this.addContextObject(obj, o, context.list)
      return
    }
    if (!isKept(kind)) {
      const problem = unmappable(kind, apiVersion)
      if (problem !== undefined) this.fail(o, problem, ['kind'])
      this.skipped++
      this.skippedKinds.set(kind, (this.skippedKinds.get(kind) ?? 0) + 1)
      return
    }
    const meta = obj.metadata
    const rawName = isObject(meta) && typeof meta.name === 'string' ? meta.name : ''
    const rawNs =
      isObject(meta) && typeof meta.namespace === 'string' && meta.namespace !== ''
        ? meta.namespace
        : this.defaultNamespace()
    const label0 = rawName === '' ? kind : `${kind} ${rawNs}/${rawName}`
    if (apiVersion !== API_VERSIONS[kind]) {
      this.fail(
        o,
        `${label0}: apiVersion ${JSON.stringify(apiVersion)} is not supported for kind ${kind}: ${API_VERSIONS[kind]} is expected`,
        ['apiVersion'],
      )
    }
    const decodeErr = decodeCheck(obj, kind, o.fromYaml)
    if (decodeErr) this.fail(o, `${label0}: ${fieldErrorText(decodeErr)}`, decodeErr.path)
    const raw = this.world.raw ? structuredClone(obj) : undefined
    const metadata = isObject(obj.metadata) ? obj.metadata : (obj.metadata = {})
    const name = typeof metadata.name === 'string' ? metadata.name : ''
    if (name === '') this.fail(o, `${kind}: metadata.name: Required value`, ['metadata', 'name'])
    // What names no namespace is in the default one, as kubectl get -f places it.
    if (metadata.namespace === undefined || metadata.namespace === '')
      metadata.namespace = this.defaultNamespace()
    const namespace = metadata.namespace as string
    const label = `${kind} ${namespace}/${name}`

    let seenInKind = this.seen.get(kind)
    if (seenInKind === undefined) this.seen.set(kind, (seenInKind = new Map()))
    let seenInNamespace = seenInKind.get(namespace)
    if (seenInNamespace === undefined) seenInKind.set(namespace, (seenInNamespace = new Map()))
    const first = seenInNamespace.get(name)
    if (first) {
      const at = this.sourceOf(first)
      this.fail(o, `${label}: duplicate object: also defined at ${at.file}:${at.line}`)
    }

    // Strict decoding comes before defaulting and validation on the server too.
    const errs: FieldError[] = this.mode === 'ignore' ? [] : unknownFields(obj, kind)
    if (this.apiServer.knownFieldsOnly) errs.push(...this.unknownToMinor(obj, kind))
    if (kind === 'Deployment') defaultDeployment(obj)
    else if (kind === 'ReplicaSet') defaultReplicaSet(obj)
    else defaultPod(obj)
    this.dropDisabled(obj, kind, o, label)
    synthesizeIdentity(metadata, kind, namespace, name)
    // A uid names one object: a second object with it (a copy under another name) would be taken
    // for the first by owner references, and its pass would release the first one's ReplicaSets.
    const uid = String(metadata.uid)
    let uidsOfKind = this.uids.get(kind)
    if (uidsOfKind === undefined) this.uids.set(kind, (uidsOfKind = new Map()))
    const sameUid = uidsOfKind.get(uid)
    if (sameUid) {
      const meta = sameUid.metadata as Obj
      const at = this.sourceOf(sameUid)
      this.fail(
        o,
        `${label}: metadata.uid: Duplicate value: ${formatValue(metadata.uid)}: also the uid of ${kind} ${String(meta.namespace)}/${String(meta.name)} at ${at.file}:${at.line}`,
        ['metadata', 'uid'],
      )
    }
    if (this.mode !== 'ignore') {
      const opts = {minor: this.apiServer.minor, enabled: (g: string) => this.apiServer.enabled(g)}
      if (kind === 'Deployment') errs.push(...validateDeployment(obj, opts))
      else if (kind === 'ReplicaSet') errs.push(...validateReplicaSet(obj, opts))
      else errs.push(...validatePod(obj, opts))
    }
    for (const e of errs) {
      if (this.mode === 'strict') this.fail(o, `${label}: ${fieldErrorText(e)}`, e.path)
      const line = o.locate?.(e.path) || o.line
      this.warn(`warning: ${o.file}:${line}: ${label}: ${fieldErrorText(e)}`)
    }
    if (kind === 'ReplicaSet') this.checkRevision(obj, o, label)

    seenInNamespace.set(name, obj)
    uidsOfKind.set(uid, obj)
    this.world.sources.set(obj, {file: o.file, line: o.line, index: o.index})
    if (raw !== undefined) this.world.raw?.set(obj, raw)
    if (kind === 'Deployment') this.world.deployments.push(obj as unknown as Deployment)
    else if (kind === 'ReplicaSet') this.world.replicaSets.push(obj as unknown as ReplicaSet)
    else this.world.pods.push(obj as unknown as Pod)
  }
}

export interface ApiServerGates {
  /** The Kubernetes minor whose API server the input is created on. */
  minor: number
  enabled(gate: string): boolean
  /**
   * Pod-template fields the minor's core/v1 does not declare are unknown fields (strict decoding),
   * as that API server refuses them: only when the minor was chosen (--kube-version), so that a
   * snapshot of a newer cluster still loads by default.
   */
  knownFieldsOnly?: boolean
}

function defaultGateOn(gate: string): boolean {
  const spec = FEATURES.find((f) => f.name === gate)
  return spec ? (featureDefault(spec, NEWEST_MINOR)?.default ?? true) : true
}

const INT64_MAX = 2n ** 63n - 1n
const MAX_LISTED = 3

function count(n: number, one: string, many: string): string {
  return n === 1 ? `1 ${one}` : `${n} ${many}`
}

/** `ns/name (Kind owner)`, the first few of them. */
function listed(items: Array<{obj: KubeObject; owner: string}>): string {
  const shown = items
    .slice(0, MAX_LISTED)
    .map(({obj, owner}) => `${obj.metadata.namespace}/${obj.metadata.name} (${owner})`)
  const more = items.length - shown.length
  return `${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`
}

/** Objects whose controller reference of `ownerKind` names no object of `owners` (by uid, as the controller matches). */
function orphans(
  objects: KubeObject[],
  ownerKind: string,
  owners: KubeObject[],
): Array<{obj: KubeObject; owner: string}> {
  // Owners by uid (a uid names one object of a kind: the loader refuses a second), so that no
  // namespace/uid key is made per object.
  const byUid = new Map<string, KubeObject>()
  for (const x of owners) if (x.metadata.uid !== undefined) byUid.set(x.metadata.uid, x)
  const out: Array<{obj: KubeObject; owner: string}> = []
  for (const obj of objects) {
    const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true)
    if (!ref || ref.kind !== ownerKind || ref.apiVersion !== API_VERSIONS[ownerKind as KeptKind]) continue
    if (byUid.get(ref.uid)?.metadata.namespace === obj.metadata.namespace) continue
    const sameName = owners.some(
      (x) => x.metadata.namespace === obj.metadata.namespace && x.metadata.name === ref.name,
    )
    out.push({obj, owner: `${ownerKind} ${ref.name}${sameName ? ' with another uid' : ''}`})
  }
  return out
}
