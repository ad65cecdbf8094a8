// The other kinds real applications ship beside their Deployments (Services, ConfigMaps, Secrets,
// workloads whose controllers are not simulated, networking, admission, aggregation and CRDs),
// stored and served as inert objects: discovery, CRUD, patch, watch, the registry's defaulting of
// the fields `kubectl get -o yaml` shows, and the validation a real API server would refuse a
// manifest with. Nothing acts on them (no Job runs, no StatefulSet makes pods, no webhook is called).

import {createHash} from 'node:crypto'
import {type FieldError, fieldErr} from './errors.js'
import {base, clearStatus, nameErrors, type ResourceDef} from './resources.js'
import {child, isObj, metaOf, type Obj, str} from './util.js'

const STATUS = (kind: string) => ({name: 'status' as const, kind, verbs: ['get', 'patch', 'update']})

/** A deterministic pick in [0, n) from an object's identity: the same manifest gets the same address. */
function pick(o: Obj, salt: string, n: number): number {
  const md = metaOf(o)
  const digest = createHash('sha256').update(`${salt}/${str(md.namespace) ?? ''}/${str(md.name) ?? ''}`)
  return digest.digest().readUInt32BE(0) % n
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/

// upstream: pkg/apis/core/v1 SetDefaults_Service and the registry's IP/port allocators (service
// CIDR 10.96.0.0/12, node ports 30000-32767). Addresses are picked from the Service's name rather
// than at random so that reruns print the same; 10.96.0.1 (the kubernetes Service) is skipped.
function defaultService(o: Obj): void {
  const spec = child(o, 'spec')
  spec.type ??= 'ClusterIP'
  spec.sessionAffinity ??= 'None'
  const external = spec.type === 'NodePort' || spec.type === 'LoadBalancer'
  if (spec.type !== 'ExternalName') {
    if (spec.clusterIP === undefined || spec.clusterIP === '') {
      const n = 2 + pick(o, 'clusterIP', (1 << 20) - 3)
      spec.clusterIP = `10.${96 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`
    }
    spec.clusterIPs ??= [spec.clusterIP]
    spec.ipFamilies ??= ['IPv4']
    spec.ipFamilyPolicy ??= 'SingleStack'
    spec.internalTrafficPolicy ??= 'Cluster'
  }
  if (external) spec.externalTrafficPolicy ??= 'Cluster'
  if (spec.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true
  const ports = Array.isArray(spec.ports) ? spec.ports.filter(isObj) : []
  ports.forEach((p, i) => {
    p.protocol ??= 'TCP'
    p.targetPort ??= p.port
    if (external && p.nodePort === undefined) p.nodePort = 30000 + pick(o, `nodePort/${i}`, 2768)
  })
  if (!isObj(o.status)) o.status = {loadBalancer: {}}
}

// upstream: pkg/apis/core/validation ValidateService, the checks a manifest meets most often.
function validateService(o: Obj): FieldError[] {
  const errs = nameErrors(o, true)
  const spec = isObj(o.spec) ? o.spec : {}
  const type = str(spec.type) ?? 'ClusterIP'
  const types = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']
  if (!types.includes(type)) errs.push(fieldErr.notSupported('spec.type', type, types))
  const ip = str(spec.clusterIP) ?? ''
  if (ip !== '' && ip !== 'None' && !IPV4.test(ip)) {
    errs.push(
      fieldErr.invalid(
        'spec.clusterIPs[0]',
        ip,
        'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      ),
    )
  }
  const ports = Array.isArray(spec.ports) ? spec.ports.filter(isObj) : []
  if (ports.length === 0 && ip !== 'None' && type !== 'ExternalName')
    errs.push(fieldErr.required('spec.ports'))
  const names = new Set<string>()
  ports.forEach((p, i) => {
    const name = str(p.name) ?? ''
    if (ports.length > 1 && name === '') errs.push(fieldErr.required(`spec.ports[${i}].name`))
    else if (name !== '' && names.has(name))
      errs.push({
        type: 'FieldValueInvalid',
        field: `spec.ports[${i}].name`,
        body: `Duplicate value: "${name}"`,
      })
    names.add(name)
    const port = p.port
    if (typeof port !== 'number' || port < 1 || port > 65535) {
      errs.push(
        fieldErr.invalid(`spec.ports[${i}].port`, port ?? 0, 'must be between 1 and 65535, inclusive'),
      )
    }
    const protocols = ['SCTP', 'TCP', 'UDP']
    if (!protocols.includes(String(p.protocol)))
      errs.push(fieldErr.notSupported(`spec.ports[${i}].protocol`, p.protocol, protocols))
  })
  return errs
}

/** Secrets keep `stringData` only on the way in: the registry merges it into base64 `data`. */
function defaultSecret(o: Obj): void {
  o.type ??= 'Opaque'
  if (!isObj(o.stringData)) return
  const data = child(o, 'data')
  for (const [k, v] of Object.entries(o.stringData))
    data[k] = Buffer.from(String(v), 'utf8').toString('base64')
  delete o.stringData
}

// upstream: pkg/apis/batch/v1 SetDefaults_Job and the Job strategy's generated selector.
function defaultJob(o: Obj): void {
  const spec = child(o, 'spec')
  spec.completions ??= 1
  spec.parallelism ??= 1
  spec.backoffLimit ??= 6
  spec.completionMode ??= 'NonIndexed'
  spec.suspend ??= false
  spec.podReplacementPolicy ??= 'TerminatingOrFailed'
  const md = metaOf(o)
  const uid = str(md.uid)
  if (uid && spec.manualSelector !== true && !isObj(spec.selector)) {
    spec.selector = {matchLabels: {'batch.kubernetes.io/controller-uid': uid}}
    const labels = child(child(child(spec, 'template'), 'metadata'), 'labels')
    labels['batch.kubernetes.io/controller-uid'] = uid
    labels['batch.kubernetes.io/job-name'] = str(md.name) ?? ''
    labels['controller-uid'] = uid
    labels['job-name'] = str(md.name) ?? ''
  }
}

function validateJob(o: Obj): FieldError[] {
  const errs = nameErrors(o, false)
  const spec = isObj(o.spec) ? o.spec : {}
  const tpl = isObj(spec.template) ? spec.template : {}
  const ps = isObj(tpl.spec) ? tpl.spec : {}
  const rp = ps.restartPolicy
  if (rp !== 'Never' && rp !== 'OnFailure') {
    errs.push(
      rp === undefined
        ? fieldErr.required('spec.template.spec.restartPolicy')
        : fieldErr.notSupported('spec.template.spec.restartPolicy', rp, ['OnFailure', 'Never']),
    )
  }
  if (!Array.isArray(ps.containers) || ps.containers.length === 0)
    errs.push(fieldErr.required('spec.template.spec.containers'))
  return errs
}

function defaultStatefulSet(o: Obj): void {
  const spec = child(o, 'spec')
  spec.replicas ??= 1
  spec.podManagementPolicy ??= 'OrderedReady'
  spec.revisionHistoryLimit ??= 10
  const strategy = child(spec, 'updateStrategy')
  strategy.type ??= 'RollingUpdate'
  if (strategy.type === 'RollingUpdate') child(strategy, 'rollingUpdate').partition ??= 0
  spec.persistentVolumeClaimRetentionPolicy ??= {whenDeleted: 'Retain', whenScaled: 'Retain'}
}

function defaultDaemonSet(o: Obj): void {
  const spec = child(o, 'spec')
  spec.revisionHistoryLimit ??= 10
  const strategy = child(spec, 'updateStrategy')
  strategy.type ??= 'RollingUpdate'
  if (strategy.type === 'RollingUpdate') {
    const ru = child(strategy, 'rollingUpdate')
    ru.maxUnavailable ??= 1
    ru.maxSurge ??= 0
  }
}

/** A workload's selector must be there and match its template, as for Deployments. */
function validateSelected(kind: string): (o: Obj) => FieldError[] {
  return (o) => {
    const errs = nameErrors(o, false)
    const spec = isObj(o.spec) ? o.spec : {}
    if (!isObj(spec.selector)) errs.push(fieldErr.required('spec.selector'))
    const tpl = isObj(spec.template) ? spec.template : {}
    const ps = isObj(tpl.spec) ? tpl.spec : {}
    if (!Array.isArray(ps.containers) || ps.containers.length === 0) {
      errs.push(fieldErr.required('spec.template.spec.containers'))
    }
    if (kind === 'StatefulSet' && spec.serviceName !== undefined && typeof spec.serviceName !== 'string') {
      errs.push(fieldErr.invalid('spec.serviceName', spec.serviceName, 'must be a string'))
    }
    return errs
  }
}

// upstream: the apiextensions-apiserver's CRD strategy — the name is `<plural>.<group>`, and a new
// CRD is accepted and established at once (no other CRD here can hold its names).
function validateCRD(o: Obj): FieldError[] {
  const errs = nameErrors(o, false)
  const spec = isObj(o.spec) ? o.spec : {}
  const names = isObj(spec.names) ? spec.names : {}
  const want = `${str(names.plural) ?? ''}.${str(spec.group) ?? ''}`
  const name = str(metaOf(o).name) ?? ''
  if (errs.length === 0 && name !== want) {
    errs.push(fieldErr.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'))
  }
  if (!str(spec.group)) errs.push(fieldErr.required('spec.group'))
  if (!str(names.kind)) errs.push(fieldErr.required('spec.names.kind'))
  if (!str(names.plural)) errs.push(fieldErr.required('spec.names.plural'))
  const scopes = ['Cluster', 'Namespaced']
  if (!scopes.includes(String(spec.scope))) errs.push(fieldErr.notSupported('spec.scope', spec.scope, scopes))
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObj) : []
  if (versions.length === 0) errs.push(fieldErr.required('spec.versions'))
  else if (versions.filter((v) => v.storage === true).length !== 1) {
    errs.push(
      fieldErr.invalid(
        'spec.versions',
        versions.map((v) => v.name),
        'must have exactly one version marked as storage version',
      ),
    )
  }
  return errs
}

function establishedCRD(o: Obj): void {
  const spec = isObj(o.spec) ? o.spec : {}
  const names = isObj(spec.names) ? {...spec.names} : {}
  names.singular ??= String(names.kind ?? '').toLowerCase()
  names.listKind ??= `${String(names.kind ?? '')}List`
  const storage = (Array.isArray(spec.versions) ? spec.versions.filter(isObj) : []).find(
    (v) => v.storage === true,
  )
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z')
  const condition = (type: string, reason: string, message: string): Obj => ({
    type,
    status: 'True',
    lastTransitionTime: now,
    reason,
    message,
  })
  o.status = {
    acceptedNames: names,
    conditions: [
      condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
    ],
    storedVersions: storage ? [storage.name] : [],
  }
}

function defaultCRD(o: Obj): void {
  const spec = child(o, 'spec')
  const names = child(spec, 'names')
  names.singular ??= String(names.kind ?? '').toLowerCase()
  names.listKind ??= `${String(names.kind ?? '')}List`
  spec.conversion ??= {strategy: 'None'}
}

function webhookDef(resource: string, kind: string): ResourceDef {
  return base({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource,
    kind,
    namespaced: false,
    categories: ['api-extensions'],
    extraTopLevelKeys: ['webhooks'],
  })
}

export const INERT_KINDS: ResourceDef[] = [
  base({
    group: '',
    version: 'v1',
    resource: 'services',
    kind: 'Service',
    shortNames: ['svc'],
    categories: ['all'],
    subresources: [STATUS('Service')],
    prepareForCreate: (o) => {
      o.status = {loadBalancer: {}}
    },
    default: defaultService,
    validate: validateService,
  }),
  base({
    group: '',
    version: 'v1',
    resource: 'configmaps',
    kind: 'ConfigMap',
    shortNames: ['cm'],
    extraTopLevelKeys: ['data', 'binaryData', 'immutable'],
  }),
  base({
    group: '',
    version: 'v1',
    resource: 'secrets',
    kind: 'Secret',
    extraTopLevelKeys: ['data', 'stringData', 'type', 'immutable'],
    default: defaultSecret,
  }),
  base({
    group: '',
    version: 'v1',
    resource: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    shortNames: ['pvc'],
    subresources: [STATUS('PersistentVolumeClaim')],
    prepareForCreate: (o) => {
      o.status = {phase: 'Pending'}
    },
  }),
  base({
    group: 'apps',
    version: 'v1',
    resource: 'statefulsets',
    kind: 'StatefulSet',
    shortNames: ['sts'],
    categories: ['all'],
    subresources: [
      STATUS('StatefulSet'),
      {name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update']},
    ],
    generation: 'spec',
    prepareForCreate: (o) => {
      o.status = {replicas: 0, availableReplicas: 0}
    },
    default: defaultStatefulSet,
    validate: validateSelected('StatefulSet'),
  }),
  base({
    group: 'apps',
    version: 'v1',
    resource: 'daemonsets',
    kind: 'DaemonSet',
    shortNames: ['ds'],
    categories: ['all'],
    subresources: [STATUS('DaemonSet')],
    generation: 'spec',
    prepareForCreate: (o) => {
      o.status = {currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0}
    },
    default: defaultDaemonSet,
    validate: validateSelected('DaemonSet'),
  }),
  base({
    group: 'batch',
    version: 'v1',
    resource: 'jobs',
    kind: 'Job',
    categories: ['all'],
    subresources: [STATUS('Job')],
    generation: 'spec',
    prepareForCreate: clearStatus,
    default: defaultJob,
    validate: validateJob,
  }),
  base({
    group: 'batch',
    version: 'v1',
    resource: 'cronjobs',
    kind: 'CronJob',
    shortNames: ['cj'],
    categories: ['all'],
    subresources: [STATUS('CronJob')],
    generation: 'spec',
    prepareForCreate: clearStatus,
  }),
  base({
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'networkpolicies',
    kind: 'NetworkPolicy',
    shortNames: ['netpol'],
    generation: 'spec',
  }),
  base({
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'ingresses',
    kind: 'Ingress',
    shortNames: ['ing'],
    subresources: [STATUS('Ingress')],
    generation: 'spec',
    prepareForCreate: (o) => {
      o.status = {loadBalancer: {}}
    },
  }),
  base({
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'ingressclasses',
    kind: 'IngressClass',
    namespaced: false,
  }),
  base({
    group: 'policy',
    version: 'v1',
    resource: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    shortNames: ['pdb'],
    subresources: [STATUS('PodDisruptionBudget')],
    generation: 'spec',
    prepareForCreate: clearStatus,
  }),
  webhookDef('validatingwebhookconfigurations', 'ValidatingWebhookConfiguration'),
  webhookDef('mutatingwebhookconfigurations', 'MutatingWebhookConfiguration'),
  // Stored only: the aggregated group it registers is not added to discovery (no server behind it
  // would answer, and kubectl would warn about every command's discovery).
  base({
    group: 'apiregistration.k8s.io',
    version: 'v1',
    resource: 'apiservices',
    kind: 'APIService',
    namespaced: false,
    categories: ['api-extensions'],
    subresources: [STATUS('APIService')],
    prepareForCreate: clearStatus,
  }),
  // Creating one makes its kind served (kinds.ts); deleting it removes the kind and its objects.
  base({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: [STATUS('CustomResourceDefinition')],
    generation: 'spec',
    prepareForCreate: establishedCRD,
    default: defaultCRD,
    validate: validateCRD,
  }),
]
