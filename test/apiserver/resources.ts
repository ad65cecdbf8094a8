// The resources the test server serves: discovery data, apps/v1 and core/v1 defaulting, the
// validation kubectl's commands run into, selectable fields and kubectl's table columns.

import {
  setDefaultsDeployment,
  defaultPod as setDefaultsPod,
  setDefaultsReplicaSet,
} from '../../src/cluster/load/defaults.js'
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  type ValidationOptions,
} from '../../src/cluster/validation/index.js'
import {type FieldError, fieldErr} from './errors.js'
import {formatLabelSelector, fromLabelSelector} from './selectors.js'
import {child, humanDuration, isObj, num, type Obj, str} from './util.js'
import {appsValidator, podValidator, statusUpdateValidator} from './validation.js'

export interface TableColumn {
  name: string
  type: string
  format: string
  description: string
  priority: number
}

export interface ResourceDef {
  group: string
  version: string
  /** Plural resource name, e.g. `deployments`. */
  resource: string
  singular: string
  kind: string
  listKind: string
  namespaced: boolean
  shortNames: string[]
  categories: string[]
  verbs: string[]
  subresources: {
    name: 'status' | 'scale' | 'log'
    kind: string
    group?: string
    version?: string
    verbs: string[]
  }[]
  /** How metadata.generation moves: never set, bumped by spec changes, or by spec+annotation changes. */
  generation: 'none' | 'spec' | 'spec+annotations'
  /** apps/v1 deletes dependents by default; core/v1 pods have no dependents to speak of. */
  defaultPropagation: 'Background' | 'Orphan'
  /** Fields (beyond metadata.name/namespace) usable in fieldSelector. */
  selectableFields: (o: Obj) => Record<string, string>
  /** Known top-level and spec keys for fieldValidation=Strict/Warn/Ignore pruning. */
  knownSpecKeys?: string[]
  /** Top-level keys besides apiVersion, kind, metadata, spec and status (RBAC's rules, subjects...). */
  extraTopLevelKeys?: string[]
  /** Any top-level key is kept (custom resources: no schema is checked here). */
  freeForm?: boolean
  default(o: Obj): void
  /** The status strategy's PrepareForUpdate: copy from the stored object what a status write may not change. */
  resetForStatus(next: Obj, old: Obj): void
  /** What PrepareForCreate clears: `status` for most kinds, a fresh pending status for pods. */
  prepareForCreate(o: Obj): void
  validate(o: Obj, old?: Obj, opts?: ValidationOptions): FieldError[]
  table?: {columns: TableColumn[]; cells(o: Obj, now: number): unknown[]}
}

export function groupVersion(def: ResourceDef): string {
  return def.group ? `${def.group}/${def.version}` : def.version
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']

/** The name checks of kinds the shared module does not validate whole (upstream: NameIsDNSLabel / NameIsDNSSubdomain). */
export function nameErrors(o: Obj, label: boolean): FieldError[] {
  const md = isObj(o.metadata) ? o.metadata : {}
  const name = str(md.name) ?? ''
  if (name === '') return [fieldErr.required('metadata.name', 'name or generateName is required')]
  return (label ? isDNS1123Label(name) : isDNS1123Subdomain(name)).map((m) =>
    fieldErr.invalid('metadata.name', name, m),
  )
}

// ---------------------------------------------------------------------------------------------
// Defaulting (k8s.io/kubernetes/pkg/apis/{core,apps}/v1/defaults.go). Pod specs are defaulted by
// the file loader's own code (src/cluster/load/defaults.ts): what `plan` reads from a dry-run apply
// here is then defaulted exactly as what it reads from files.

// The server's serialization keeps a template's metadata (a Go struct) and drops `paused: false` (omitempty).
function serialized(spec: Obj): void {
  child(child(spec, 'template'), 'metadata')
  if (spec.paused === false) delete spec.paused
}

function defaultDeployment(o: Obj): void {
  setDefaultsDeployment(o)
  serialized(child(o, 'spec'))
}

function defaultReplicaSet(o: Obj): void {
  setDefaultsReplicaSet(o)
  serialized(child(o, 'spec'))
}

// The loader's pod defaults, then what admission adds on a real server (ServiceAccount,
// Priority, DefaultTolerationSeconds) and SetDefaults_Pod's enableServiceLinks.
function defaultPod(o: Obj): void {
  setDefaultsPod(o)
  const spec = child(o, 'spec')
  spec.enableServiceLinks ??= true
  spec.priority ??= 0
  spec.preemptionPolicy ??= 'PreemptLowerPriority'
  spec.serviceAccountName ??= 'default'
  spec.serviceAccount ??= spec.serviceAccountName
  if (!Array.isArray(spec.tolerations)) {
    spec.tolerations = ['not-ready', 'unreachable'].map((t) => ({
      key: `node.kubernetes.io/${t}`,
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 300,
    }))
  }
}

// ---------------------------------------------------------------------------------------------
// Validation: apps/v1 and core/v1 are validated as the file loader validates them (./validation.ts).

const validateDeployment = appsValidator('Deployment')
const validateReplicaSet = appsValidator('ReplicaSet')
const validatePod = podValidator

// ---------------------------------------------------------------------------------------------
// Tables (pkg/printers/internalversion/printers.go)

function col(name: string, type: string, description: string, priority = 0, format = ''): TableColumn {
  return {name, type, format, description, priority}
}

const NAME_COL = col(
  'Name',
  'string',
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  0,
  'name',
)
const AGE_COL = col(
  'Age',
  'string',
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
)

function nameOf(o: Obj): string {
  return isObj(o.metadata) ? (str(o.metadata.name) ?? '') : ''
}

function age(o: Obj, now: number): string {
  const ts = isObj(o.metadata) ? str(o.metadata.creationTimestamp) : undefined
  if (!ts) return '<unknown>'
  return humanDuration(now - Date.parse(ts))
}

function templateContainers(o: Obj): {names: string; images: string} {
  const spec = isObj(o.spec) ? o.spec : {}
  const tpl = isObj(spec.template) ? spec.template : {}
  const ps = isObj(tpl.spec) ? tpl.spec : {}
  const cs = Array.isArray(ps.containers) ? ps.containers.filter(isObj) : []
  return {
    names: cs.map((c) => str(c.name) ?? '').join(','),
    images: cs.map((c) => str(c.image) ?? '').join(','),
  }
}

function selectorString(o: Obj): string {
  const spec = isObj(o.spec) ? o.spec : {}
  const sel = fromLabelSelector(spec.selector)
  return sel ? formatLabelSelector(sel) : '<none>'
}

function statusNum(o: Obj, f: string): number {
  const s = isObj(o.status) ? o.status : {}
  return num(s[f]) ?? 0
}

function podStatusReason(pod: Obj): {ready: string; reason: string; restarts: string} {
  const spec = isObj(pod.spec) ? pod.spec : {}
  const status = isObj(pod.status) ? pod.status : {}
  const containers = Array.isArray(spec.containers) ? spec.containers.length : 0
  let reason = str(status.reason) ?? str(status.phase) ?? ''
  let restarts = 0
  let readyCount = 0
  const statuses = Array.isArray(status.containerStatuses) ? status.containerStatuses.filter(isObj) : []
  for (let i = statuses.length - 1; i >= 0; i--) {
    const cs = statuses[i] as Obj
    restarts += num(cs.restartCount) ?? 0
    const state = isObj(cs.state) ? cs.state : {}
    if (isObj(state.waiting) && str(state.waiting.reason)) reason = str(state.waiting.reason) as string
    else if (isObj(state.terminated)) {
      const t = state.terminated
      reason = str(t.reason) ?? (num(t.signal) ? `Signal:${t.signal}` : `ExitCode:${num(t.exitCode) ?? 0}`)
    } else if (cs.ready === true && isObj(state.running)) readyCount++
  }
  if (reason === 'Running') {
    const conds = Array.isArray(status.conditions) ? status.conditions.filter(isObj) : []
    const ready = conds.some((c) => c.type === 'Ready' && c.status === 'True')
    if (!ready && readyCount === containers && containers > 0) reason = 'NotReady'
    else if (readyCount < containers && ready) reason = 'Running'
  }
  const md = isObj(pod.metadata) ? pod.metadata : {}
  if (md.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating'
  return {ready: `${readyCount}/${containers}`, reason, restarts: String(restarts)}
}

// ---------------------------------------------------------------------------------------------
// Definitions

function metaFields(o: Obj): Record<string, string> {
  const md = isObj(o.metadata) ? o.metadata : {}
  return {'metadata.name': str(md.name) ?? '', 'metadata.namespace': str(md.namespace) ?? ''}
}

export const clearStatus = (o: Obj): void => {
  o.status = {}
}

export function base(
  partial: Partial<ResourceDef> & Pick<ResourceDef, 'group' | 'version' | 'resource' | 'kind'>,
): ResourceDef {
  return {
    singular: partial.kind.toLowerCase(),
    listKind: `${partial.kind}List`,
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: ALL_VERBS,
    subresources: [],
    generation: 'none',
    defaultPropagation: 'Background',
    selectableFields: metaFields,
    default: () => {},
    resetForStatus: () => {},
    prepareForCreate: () => {},
    validate: (o) => nameErrors(o, false),
    ...partial,
  }
}

const SCALE_SUB = {
  name: 'scale' as const,
  kind: 'Scale',
  group: 'autoscaling',
  version: 'v1',
  verbs: ['get', 'patch', 'update'],
}

export const RESOURCES: ResourceDef[] = [
  base({
    group: '',
    version: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [{name: 'status', kind: 'Namespace', verbs: ['get', 'patch', 'update']}],
    selectableFields: (o) => {
      const f = metaFields(o)
      delete f['metadata.namespace']
      f['status.phase'] = isObj(o.status) ? (str(o.status.phase) ?? '') : ''
      return f
    },
    default: (o) => {
      const spec = child(o, 'spec')
      const fin = spec.finalizers
      if (!Array.isArray(fin)) spec.finalizers = ['kubernetes']
      const md = child(o, 'metadata')
      const labels = child(md, 'labels')
      labels['kubernetes.io/metadata.name'] = str(md.name) ?? ''
    },
    prepareForCreate: (o) => {
      o.status = {phase: 'Active'}
    },
    resetForStatus: (next, old) => {
      next.spec = old.spec
    },
    validate: (o) => nameErrors(o, true),
    table: {
      columns: [NAME_COL, col('Status', 'string', 'The status of the namespace'), AGE_COL],
      cells: (o, now) => [nameOf(o), isObj(o.status) ? (str(o.status.phase) ?? '') : '', age(o, now)],
    },
  }),
  base({
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    shortNames: ['po'],
    categories: ['all'],
    subresources: [
      {name: 'status', kind: 'Pod', verbs: ['get', 'patch', 'update']},
      // Served by pod-logs.ts for simulated pods, as the kubelet answers through the API server.
      {name: 'log', kind: 'Pod', verbs: ['get']},
    ],
    selectableFields: (o) => {
      const spec = isObj(o.spec) ? o.spec : {}
      const status = isObj(o.status) ? o.status : {}
      return {
        ...metaFields(o),
        'spec.nodeName': str(spec.nodeName) ?? '',
        'spec.restartPolicy': str(spec.restartPolicy) ?? '',
        'spec.schedulerName': str(spec.schedulerName) ?? '',
        'spec.serviceAccountName': str(spec.serviceAccountName) ?? '',
        'spec.hostNetwork': String(spec.hostNetwork === true),
        'status.phase': str(status.phase) ?? '',
        'status.podIP': str(status.podIP) ?? '',
        'status.nominatedNodeName': str(status.nominatedNodeName) ?? '',
      }
    },
    default: defaultPod,
    prepareForCreate: (o) => {
      o.status = {phase: 'Pending', qosClass: 'BestEffort'}
    },
    resetForStatus: (next, old) => {
      next.spec = old.spec
      const nm = child(next, 'metadata')
      const om = isObj(old.metadata) ? old.metadata : {}
      if (om.ownerReferences === undefined) delete nm.ownerReferences
      else nm.ownerReferences = om.ownerReferences
    },
    validate: validatePod,
    table: {
      columns: [
        NAME_COL,
        col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
        col('Status', 'string', 'The aggregate status of the containers in this pod.'),
        col(
          'Restarts',
          'string',
          'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
        ),
        AGE_COL,
        col(
          'IP',
          'string',
          'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
          1,
        ),
        col('Node', 'string', 'NodeName is a request to schedule this pod onto a specific node.', 1),
        col(
          'Nominated Node',
          'string',
          'nominatedNodeName is set only when this pod preempts other pods on the node.',
          1,
        ),
        col(
          'Readiness Gates',
          'string',
          'If specified, all readiness gates will be evaluated for pod readiness.',
          1,
        ),
      ],
      cells: (o, now) => {
        const {ready, reason, restarts} = podStatusReason(o)
        const spec = isObj(o.spec) ? o.spec : {}
        const status = isObj(o.status) ? o.status : {}
        return [
          nameOf(o),
          ready,
          reason,
          restarts,
          age(o, now),
          str(status.podIP) ?? '<none>',
          str(spec.nodeName) ?? '<none>',
          str(status.nominatedNodeName) ?? '<none>',
          '<none>',
        ]
      },
    },
  }),
  eventsDef('', 'v1', ['ev']),
  eventsDef('events.k8s.io', 'v1', ['ev']),
  base({
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    kind: 'Deployment',
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: [{name: 'status', kind: 'Deployment', verbs: ['get', 'patch', 'update']}, SCALE_SUB],
    generation: 'spec+annotations',
    knownSpecKeys: [
      'replicas',
      'selector',
      'template',
      'strategy',
      'minReadySeconds',
      'revisionHistoryLimit',
      'paused',
      'progressDeadlineSeconds',
    ],
    default: defaultDeployment,
    prepareForCreate: clearStatus,
    resetForStatus: (next, old) => {
      next.spec = old.spec
      const nm = child(next, 'metadata')
      const om = isObj(old.metadata) ? old.metadata : {}
      if (om.labels === undefined) delete nm.labels
      else nm.labels = om.labels
    },
    validate: validateDeployment,
    table: {
      columns: [
        NAME_COL,
        col('Ready', 'string', 'Number of the pod with ready state'),
        col(
          'Up-to-date',
          'string',
          'Total number of non-terminating pods targeted by this deployment that have the desired template spec.',
        ),
        col(
          'Available',
          'string',
          'Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.',
        ),
        AGE_COL,
        col('Containers', 'string', 'Names of each container in the template.', 1),
        col('Images', 'string', 'Images referenced by each container in the template.', 1),
        col(
          'Selector',
          'string',
          "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.",
          1,
        ),
      ],
      cells: (o, now) => {
        const spec = isObj(o.spec) ? o.spec : {}
        const {names, images} = templateContainers(o)
        return [
          nameOf(o),
          `${statusNum(o, 'readyReplicas')}/${num(spec.replicas) ?? 0}`,
          statusNum(o, 'updatedReplicas'),
          statusNum(o, 'availableReplicas'),
          age(o, now),
          names,
          images,
          selectorString(o),
        ]
      },
    },
  }),
  base({
    group: 'apps',
    version: 'v1',
    resource: 'replicasets',
    kind: 'ReplicaSet',
    shortNames: ['rs'],
    categories: ['all'],
    subresources: [{name: 'status', kind: 'ReplicaSet', verbs: ['get', 'patch', 'update']}, SCALE_SUB],
    generation: 'spec',
    knownSpecKeys: ['replicas', 'selector', 'template', 'minReadySeconds'],
    selectableFields: (o) => ({...metaFields(o), 'status.replicas': String(statusNum(o, 'replicas'))}),
    default: defaultReplicaSet,
    prepareForCreate: clearStatus,
    resetForStatus: (next, old) => {
      next.spec = old.spec
    },
    validate: validateReplicaSet,
    table: {
      columns: [
        NAME_COL,
        col('Desired', 'integer', 'Replicas is the number of desired pods.'),
        col('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
        col('Ready', 'integer', 'The number of ready replicas for this replica set.'),
        AGE_COL,
        col('Containers', 'string', 'Names of each container in the template.', 1),
        col('Images', 'string', 'Images referenced by each container in the template.', 1),
        col(
          'Selector',
          'string',
          'Selector is a label query over pods that should match the replica count.',
          1,
        ),
      ],
      cells: (o, now) => {
        const spec = isObj(o.spec) ? o.spec : {}
        const {names, images} = templateContainers(o)
        return [
          nameOf(o),
          num(spec.replicas) ?? 0,
          statusNum(o, 'replicas'),
          statusNum(o, 'readyReplicas'),
          age(o, now),
          names,
          images,
          selectorString(o),
        ]
      },
    },
  }),
  base({
    group: 'coordination.k8s.io',
    version: 'v1',
    resource: 'leases',
    kind: 'Lease',
    table: {
      columns: [NAME_COL, col('Holder', 'string', 'The holder of the lease.'), AGE_COL],
      cells: (o, now) => [nameOf(o), isObj(o.spec) ? (str(o.spec.holderIdentity) ?? '') : '', age(o, now)],
    },
  }),
  // What deploy/ applies: a ServiceAccount and the RBAC objects that grant it the controller's
  // rules. Stored and served only: nothing here enforces RBAC.
  base({
    group: '',
    version: 'v1',
    resource: 'serviceaccounts',
    kind: 'ServiceAccount',
    shortNames: ['sa'],
    extraTopLevelKeys: ['secrets', 'imagePullSecrets', 'automountServiceAccountToken'],
    validate: (o) => nameErrors(o, false),
    table: {
      columns: [NAME_COL, col('Secrets', 'integer', 'Secrets is the number of secrets.'), AGE_COL],
      cells: (o, now) => [nameOf(o), Array.isArray(o.secrets) ? o.secrets.length : 0, age(o, now)],
    },
  }),
  rbacDef('clusterroles', 'ClusterRole', false),
  rbacDef('clusterrolebindings', 'ClusterRoleBinding', false),
  rbacDef('roles', 'Role', true),
  rbacDef('rolebindings', 'RoleBinding', true),
  // Nodes (cluster-scoped): what kubelets register. With `simulate`, the simulated nodes' own
  // (src/sim/nodes.ts); any loaded Node is served as given. `kubectl get nodes` prints them.
  base({
    group: '',
    version: 'v1',
    resource: 'nodes',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    subresources: [{name: 'status', kind: 'Node', verbs: ['get', 'patch', 'update']}],
    knownSpecKeys: [
      'podCIDR',
      'podCIDRs',
      'providerID',
      'unschedulable',
      'taints',
      'configSource',
      'externalID',
    ],
    selectableFields: (o) => {
      const f = metaFields(o)
      delete f['metadata.namespace']
      f['spec.unschedulable'] = String(isObj(o.spec) && o.spec.unschedulable === true)
      return f
    },
    resetForStatus: (next, old) => {
      next.spec = old.spec
    },
    validate: (o) => nameErrors(o, false),
    table: {
      columns: [
        NAME_COL,
        col('Status', 'string', 'The status of the node'),
        col('Roles', 'string', 'The roles of the node'),
        AGE_COL,
        col('Version', 'string', 'Kubelet Version reported by the node.'),
        col(
          'Internal-IP',
          'string',
          'List of addresses reachable to the node. Queried from cloud provider, if available.',
          1,
        ),
        col(
          'External-IP',
          'string',
          'List of addresses reachable to the node. Queried from cloud provider, if available.',
          1,
        ),
        col(
          'OS-Image',
          'string',
          'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
          1,
        ),
        col(
          'Kernel-Version',
          'string',
          "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
          1,
        ),
        col(
          'Container-Runtime',
          'string',
          'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
          1,
        ),
      ],
      cells: (o, now) => {
        const spec = isObj(o.spec) ? o.spec : {}
        const status = isObj(o.status) ? o.status : {}
        const info = isObj(status.nodeInfo) ? status.nodeInfo : {}
        const address = (type: string) =>
          (Array.isArray(status.addresses) ? status.addresses.filter(isObj) : []).find((a) => a.type === type)
            ?.address ?? '<none>'
        return [
          nameOf(o),
          nodeStatus(status, spec.unschedulable === true),
          nodeRoles(o),
          age(o, now),
          str(info.kubeletVersion) ?? '',
          address('InternalIP'),
          address('ExternalIP'),
          str(info.osImage) || '<unknown>',
          str(info.kernelVersion) || '<unknown>',
          str(info.containerRuntimeVersion) || '<unknown>',
        ]
      },
    },
  }),
  // What `plan` reads besides workloads: an autoscaler that owns a Deployment's replica count, and
  // quotas with their usage (nothing here computes status.used: tests write it).
  base({
    group: 'autoscaling',
    version: 'v2',
    resource: 'horizontalpodautoscalers',
    kind: 'HorizontalPodAutoscaler',
    shortNames: ['hpa'],
    categories: ['all'],
    subresources: [{name: 'status', kind: 'HorizontalPodAutoscaler', verbs: ['get', 'patch', 'update']}],
    knownSpecKeys: ['scaleTargetRef', 'minReplicas', 'maxReplicas', 'metrics', 'behavior'],
  }),
  base({
    group: '',
    version: 'v1',
    resource: 'resourcequotas',
    kind: 'ResourceQuota',
    shortNames: ['quota'],
    subresources: [{name: 'status', kind: 'ResourceQuota', verbs: ['get', 'patch', 'update']}],
    knownSpecKeys: ['hard', 'scopes', 'scopeSelector'],
  }),
]

/** upstream (printers): printNode's status — the Ready condition, then SchedulingDisabled. */
function nodeStatus(status: Obj, unschedulable: boolean): string {
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isObj) : []
  const ready = conditions.find((c) => c.type === 'Ready')
  const out = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady']
  if (unschedulable) out.push('SchedulingDisabled')
  return out.join(',')
}

/** upstream (printers): findNodeRoles — node-role.kubernetes.io/<role> labels, and kubernetes.io/role. */
function nodeRoles(o: Obj): string {
  const labels = isObj(o.metadata) && isObj(o.metadata.labels) ? o.metadata.labels : {}
  const roles = new Set<string>()
  for (const [k, v] of Object.entries(labels)) {
    if (k.startsWith('node-role.kubernetes.io/')) roles.add(k.slice('node-role.kubernetes.io/'.length))
    else if (k === 'kubernetes.io/role' && typeof v === 'string' && v !== '') roles.add(v)
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',')
}

/** rbac.authorization.k8s.io/v1: names are path segments (`system:controller:x` is valid). */
function rbacDef(resource: string, kind: string, namespaced: boolean): ResourceDef {
  return base({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource,
    kind,
    namespaced,
    extraTopLevelKeys: kind.endsWith('Binding') ? ['subjects', 'roleRef'] : ['rules', 'aggregationRule'],
    validate: (o) => {
      const md = isObj(o.metadata) ? o.metadata : {}
      const name = str(md.name) ?? ''
      if (name === '')
        return [
          {
            type: 'FieldValueRequired',
            field: 'metadata.name',
            body: 'Required value: name or generateName is required',
          },
        ]
      if (name === '.' || name === '..' || /[/%]/.test(name)) {
        return [
          {
            type: 'FieldValueInvalid',
            field: 'metadata.name',
            body: `Invalid value: "${name}": may not contain '/' or '%'`,
          },
        ]
      }
      if (kind.endsWith('Binding') && !isObj(o.roleRef)) {
        return [{type: 'FieldValueRequired', field: 'roleRef', body: 'Required value'}]
      }
      return []
    },
  })
}

function eventsDef(group: string, version: string, shortNames: string[]): ResourceDef {
  const core = group === ''
  return base({
    group,
    version,
    resource: 'events',
    kind: 'Event',
    shortNames,
    defaultPropagation: 'Orphan',
    selectableFields: (o) => {
      const f = metaFields(o)
      if (!core) {
        const r = isObj(o.regarding) ? o.regarding : {}
        return {
          ...f,
          'regarding.kind': str(r.kind) ?? '',
          'regarding.name': str(r.name) ?? '',
          'regarding.namespace': str(r.namespace) ?? '',
          'regarding.uid': str(r.uid) ?? '',
          reason: str(o.reason) ?? '',
          reportingController: str(o.reportingController) ?? '',
          type: str(o.type) ?? '',
        }
      }
      const io = isObj(o.involvedObject) ? o.involvedObject : {}
      const src = isObj(o.source) ? o.source : {}
      return {
        ...f,
        'involvedObject.kind': str(io.kind) ?? '',
        'involvedObject.namespace': str(io.namespace) ?? '',
        'involvedObject.name': str(io.name) ?? '',
        'involvedObject.uid': str(io.uid) ?? '',
        'involvedObject.apiVersion': str(io.apiVersion) ?? '',
        'involvedObject.resourceVersion': str(io.resourceVersion) ?? '',
        'involvedObject.fieldPath': str(io.fieldPath) ?? '',
        reason: str(o.reason) ?? '',
        reportingComponent: str(o.reportingComponent) ?? '',
        source: str(src.component) ?? '',
        type: str(o.type) ?? '',
      }
    },
    validate: (o) => {
      const errs = nameErrors(o, false)
      if (core) {
        const io = isObj(o.involvedObject) ? o.involvedObject : {}
        const md = isObj(o.metadata) ? o.metadata : {}
        if (io.namespace !== undefined && io.namespace !== md.namespace) {
          errs.push(
            fieldErr.invalid('involvedObject.namespace', io.namespace, 'does not match event.namespace'),
          )
        }
      }
      return errs
    },
    table: core
      ? {
          columns: [
            col('Last Seen', 'string', 'Time when last event occurred'),
            col(
              'Type',
              'string',
              'Type of this event (Normal, Warning), new types could be added in the future.',
            ),
            col(
              'Reason',
              'string',
              'This should be a short, machine understandable string that gives the reason for this event being generated.',
            ),
            col('Object', 'string', 'Object this event is about.'),
            col('Subobject', 'string', 'The field of the object this event is about.', 1),
            col(
              'Source',
              'string',
              'The component reporting this event. Should be a short machine understandable string.',
              1,
            ),
            col('Message', 'string', 'A human-readable description of the status of this operation.'),
            col(
              'First Seen',
              'string',
              'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
              1,
            ),
            col('Count', 'string', 'The number of times this event has occurred.', 1),
            {...NAME_COL, priority: 1},
          ],
          cells: (o, now) => {
            const io = isObj(o.involvedObject) ? o.involvedObject : {}
            const src = isObj(o.source) ? o.source : {}
            const last =
              str(o.lastTimestamp) ??
              str(o.eventTime) ??
              (isObj(o.metadata) ? str(o.metadata.creationTimestamp) : undefined)
            const first = str(o.firstTimestamp) ?? last
            const kind = str(io.kind) ?? ''
            return [
              last ? humanDuration(now - Date.parse(last)) : '<unknown>',
              str(o.type) ?? '',
              str(o.reason) ?? '',
              `${kind.toLowerCase()}/${str(io.name) ?? ''}`,
              str(io.fieldPath) ?? '',
              [str(src.component), str(src.host)].filter(Boolean).join(', '),
              (str(o.message) ?? '').trim(),
              first ? humanDuration(now - Date.parse(first)) : '<unknown>',
              String(num(o.count) ?? 1),
              nameOf(o),
            ]
          },
        }
      : undefined,
  })
}

/** ValidateDeploymentStatusUpdate / ValidateReplicaSetStatusUpdate. */
export function validateStatus(def: ResourceDef, o: Obj, old: Obj): FieldError[] {
  if (def.resource === 'deployments') return statusUpdateValidator('Deployment', o, old)
  if (def.resource === 'replicasets') return statusUpdateValidator('ReplicaSet', o, old)
  return []
}

export function scaleSelector(o: Obj): string {
  const spec = isObj(o.spec) ? o.spec : {}
  const sel = fromLabelSelector(spec.selector)
  return sel ? formatLabelSelector(sel) : ''
}
