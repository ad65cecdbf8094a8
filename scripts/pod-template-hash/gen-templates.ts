// The pod templates the v1.36 golden vectors are computed for (their Go check runs outside this repository; README.md):
//  - the templates of every Deployment and ReplicaSet in examples/, as the loader defaults them;
//  - hand-written cases: every quantity form, probes, volumes, security contexts, empty against
//    absent maps and slices, int-or-string ports, times, strings spew does not escape;
//  - random templates from a seeded generator that walks the generated type data, so every one of
//    the ~170 types and their fields gets exercised.
//
//   npx tsx scripts/pod-template-hash/gen-templates.ts <out.json> [--seed N] [--random N]

import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {parseArgs} from 'node:util'
import {loadWorldFromText} from '../../src/cluster/load/from-text.js'
import {hashTypeDataFor} from '../../src/controller/util/pod-template-hash.js'
import {type Json, QUANTITIES, randomTemplateGenerator} from './random-template.js'

const {values: opts, positionals} = parseArgs({
  allowPositionals: true,
  options: {seed: {type: 'string', default: '20261201'}, random: {type: 'string', default: '320'}},
})
const out = positionals[0]
if (!out) throw new Error('usage: gen-templates.ts <out.json> [--seed N] [--random N]')

interface Case {
  name: string
  template: Json
  keepText?: boolean
}
const cases: Case[] = []

// --- examples --------------------------------------------------------------------------------------

const examples = join(import.meta.dirname, '../../examples')
for (const file of readdirSync(examples).filter((f) => f.endsWith('.yaml'))) {
  const world = loadWorldFromText(readFileSync(join(examples, file), 'utf8'), `examples/${file}`)
  for (const [kind, list] of [
    ['Deployment', world.deployments],
    ['ReplicaSet', world.replicaSets],
  ] as const) {
    for (const obj of list) {
      const id = `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`
      cases.push({
        name: `examples/${file} ${kind} ${id}`,
        template: JSON.parse(JSON.stringify(obj.spec.template)) as Json,
        keepText: kind === 'Deployment' && file === 'steady.yaml',
      })
    }
  }
}

// --- hand-written cases ----------------------------------------------------------------------------

const base = (spec: {[k: string]: Json} = {}, metadata: {[k: string]: Json} = {labels: {app: 'web'}}) => ({
  metadata,
  spec: {
    containers: [
      {
        name: 'app',
        image: 'nginx:1.27',
        imagePullPolicy: 'IfNotPresent',
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        resources: {},
      },
    ],
    dnsPolicy: 'ClusterFirst',
    restartPolicy: 'Always',
    schedulerName: 'default-scheduler',
    securityContext: {},
    terminationGracePeriodSeconds: 30,
    ...spec,
  },
})
const withContainer = (container: {[k: string]: Json}, spec: {[k: string]: Json} = {}) => {
  const t = base(spec)
  Object.assign(t.spec.containers[0]!, container)
  return t
}
const hand = (name: string, template: Json, keepText = false) => cases.push({name, template, keepText})

hand('empty object', {}, true)
hand('null metadata and spec', {metadata: null, spec: null})
hand(
  'defaulted nginx, creationTimestamp null',
  base({}, {labels: {app: 'web'}, creationTimestamp: null}),
  true,
)

QUANTITIES.forEach((q, i) => {
  hand(
    `quantity ${JSON.stringify(q)}`,
    withContainer({resources: {limits: {cpu: q, memory: q}, requests: {cpu: q, 'example.com/gpu': q}}}),
    i < 3,
  )
  hand(
    `quantity ${JSON.stringify(q)} as sizeLimit`,
    base({volumes: [{name: 'scratch', emptyDir: {sizeLimit: q}}]}),
  )
})
hand('quantity null in a resource list', withContainer({resources: {limits: {cpu: null}}}))
hand(
  'resources with claims and pod-level resources and overhead',
  base({
    resources: {limits: {cpu: '2', memory: '4Gi'}, requests: {cpu: '1500m'}},
    overhead: {cpu: '250m', memory: '120Mi'},
  }),
)

// Empty against absent: both are nil once the template has been through protobuf.
hand('labels {} and annotations {}', base({}, {labels: {}, annotations: {}}))
hand('labels absent', base({}, {}))
hand('labels null', base({}, {labels: null}))
hand(
  'empty slices',
  withContainer({command: [], args: [], env: [], ports: [], volumeMounts: []}, {volumes: []}),
)
hand('empty nodeSelector and tolerations', base({nodeSelector: {}, tolerations: [], imagePullSecrets: []}))
hand(
  'empty pointers to structs stay',
  withContainer({securityContext: {}, lifecycle: {}}, {affinity: {}, dnsConfig: {}}),
)
hand('securityContext absent', {spec: {containers: [{name: 'a', image: 'b'}]}})
hand(
  'zero-valued pointers',
  base({hostUsers: false, enableServiceLinks: false, priority: 0, activeDeadlineSeconds: 0}),
)
hand(
  'empty strings in lists and maps',
  withContainer({args: ['', ' ', ''], command: ['']}, {nodeSelector: {'': ''}}),
)

// int-or-string: probe ports, lifecycle hooks.
for (const port of [8080, '8080', 'http', 0, '', -1, 2147483647]) {
  hand(
    `int-or-string port ${JSON.stringify(port)}`,
    withContainer({
      ports: [{name: 'http', containerPort: 8080, protocol: 'TCP'}],
      livenessProbe: {
        httpGet: {path: '/healthz', port, scheme: 'HTTP', httpHeaders: [{name: 'X', value: 'y'}]},
        initialDelaySeconds: 3,
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      },
      readinessProbe: {tcpSocket: {port}, periodSeconds: 5},
      lifecycle: {
        preStop: {httpGet: {port, path: '/stop'}},
        postStart: {tcpSocket: {port, host: 'localhost'}},
      },
    }),
  )
}
hand(
  'all probe kinds',
  withContainer({
    livenessProbe: {exec: {command: ['cat', '/tmp/healthy']}, terminationGracePeriodSeconds: 10},
    readinessProbe: {grpc: {port: 9090, service: 'health'}},
    startupProbe: {httpGet: {port: 'http', host: '10.0.0.1', scheme: 'HTTPS'}, failureThreshold: 30},
    lifecycle: {preStop: {sleep: {seconds: 5}}, stopSignal: 'SIGTERM'},
  }),
)

hand(
  'volumes of many kinds',
  base({
    volumes: [
      {name: 'a', emptyDir: {medium: 'Memory', sizeLimit: '64Mi'}},
      {
        name: 'b',
        configMap: {name: 'cm', defaultMode: 420, items: [{key: 'k', path: 'p', mode: 256}], optional: true},
      },
      {name: 'c', secret: {secretName: 's', defaultMode: 256}},
      {name: 'd', hostPath: {path: '/var/log', type: ''}},
      {name: 'e', persistentVolumeClaim: {claimName: 'data', readOnly: true}},
      {
        name: 'f',
        projected: {
          defaultMode: 420,
          sources: [
            {serviceAccountToken: {expirationSeconds: 3607, path: 'token', audience: 'api'}},
            {configMap: {name: 'kube-root-ca.crt', items: [{key: 'ca.crt', path: 'ca.crt'}]}},
            {
              downwardAPI: {
                items: [{path: 'ns', fieldRef: {apiVersion: 'v1', fieldPath: 'metadata.namespace'}}],
              },
            },
            {clusterTrustBundle: {signerName: 'x/y', path: 'b.pem', labelSelector: {matchLabels: {a: 'b'}}}},
          ],
        },
      },
      {
        name: 'g',
        downwardAPI: {
          items: [
            {path: 'cpu', resourceFieldRef: {containerName: 'app', resource: 'limits.cpu', divisor: '1m'}},
          ],
        },
      },
      {name: 'h', nfs: {server: 'nfs.example', path: '/exports', readOnly: false}},
      {
        name: 'i',
        csi: {driver: 'csi.example', volumeAttributes: {z: '1', a: '2'}, nodePublishSecretRef: {name: 's'}},
      },
      {
        name: 'j',
        ephemeral: {
          volumeClaimTemplate: {
            metadata: {labels: {tier: 'cache'}},
            spec: {
              accessModes: ['ReadWriteOnce'],
              resources: {requests: {storage: '1Gi'}},
              storageClassName: 'fast',
              volumeMode: 'Filesystem',
            },
          },
        },
      },
      {name: 'k', image: {reference: 'registry.example/data:1', pullPolicy: 'IfNotPresent'}},
      {name: 'l', gitRepo: {repository: 'https://example/r.git', revision: 'main'}},
    ],
  }),
)

hand(
  'security contexts',
  withContainer(
    {
      securityContext: {
        allowPrivilegeEscalation: false,
        capabilities: {add: ['NET_ADMIN'], drop: ['ALL']},
        privileged: false,
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 3000,
        procMount: 'Default',
        seccompProfile: {type: 'RuntimeDefault'},
        appArmorProfile: {type: 'Localhost', localhostProfile: 'k8s-apparmor'},
        seLinuxOptions: {level: 's0:c123,c456'},
        windowsOptions: {gmsaCredentialSpecName: 'gmsa', hostProcess: false, runAsUserName: 'ContainerUser'},
      },
    },
    {
      securityContext: {
        fsGroup: 2000,
        fsGroupChangePolicy: 'OnRootMismatch',
        runAsNonRoot: true,
        supplementalGroups: [4000, 5000],
        supplementalGroupsPolicy: 'Strict',
        sysctls: [{name: 'net.core.somaxconn', value: '1024'}],
        seccompProfile: {type: 'Localhost', localhostProfile: 'profiles/audit.json'},
        seLinuxChangePolicy: 'MountOption',
      },
    },
  ),
)

hand(
  'scheduling: affinity, tolerations, spread, gates, scheduling group',
  base({
    nodeSelector: {'kubernetes.io/os': 'linux', disk: 'ssd'},
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{matchExpressions: [{key: 'zone', operator: 'In', values: ['a', 'b']}]}],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 10,
            preference: {matchFields: [{key: 'metadata.name', operator: 'NotIn', values: ['n1']}]},
          },
        ],
      },
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: {
              labelSelector: {matchLabels: {app: 'web'}},
              topologyKey: 'kubernetes.io/hostname',
              matchLabelKeys: ['pod-template-hash'],
              namespaceSelector: {},
            },
          },
        ],
      },
    },
    tolerations: [
      {key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300},
      {key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule'},
    ],
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: {matchExpressions: [{key: 'app', operator: 'Exists'}]},
        minDomains: 2,
        nodeAffinityPolicy: 'Honor',
        nodeTaintsPolicy: 'Ignore',
      },
    ],
    schedulingGates: [{name: 'example.com/wait'}],
    schedulingGroup: {podGroupName: 'training'},
    priorityClassName: 'high',
    priority: 1000,
    preemptionPolicy: 'Never',
    runtimeClassName: 'gvisor',
  }),
)

hand(
  'env, envFrom, ports, mounts, init and sidecar containers',
  base({
    initContainers: [
      {name: 'init', image: 'busybox', command: ['sh', '-c', 'echo hi']},
      {name: 'sidecar', image: 'envoy', restartPolicy: 'Always', restartPolicyRules: []},
    ],
    containers: [
      {
        name: 'app',
        image: 'app:2',
        env: [
          {name: 'A', value: 'x'},
          {name: 'POD', valueFrom: {fieldRef: {fieldPath: 'metadata.name'}}},
          {name: 'S', valueFrom: {secretKeyRef: {name: 's', key: 'k', optional: true}}},
          {name: 'C', valueFrom: {configMapKeyRef: {name: 'c', key: 'k'}}},
          {name: 'M', valueFrom: {resourceFieldRef: {resource: 'requests.memory', divisor: '1Mi'}}},
        ],
        envFrom: [{prefix: 'P_', configMapRef: {name: 'c'}}, {secretRef: {name: 's', optional: false}}],
        ports: [
          {name: 'http', containerPort: 8080, protocol: 'TCP'},
          {containerPort: 53, protocol: 'UDP', hostPort: 53, hostIP: '0.0.0.0'},
        ],
        volumeMounts: [
          {name: 'v', mountPath: '/data', subPath: 'x', readOnly: true, mountPropagation: 'None'},
        ],
        volumeDevices: [{name: 'blk', devicePath: '/dev/xvda'}],
        resizePolicy: [{resourceName: 'cpu', restartPolicy: 'NotRequired'}],
        stdin: true,
        tty: true,
        workingDir: '/app',
      },
    ],
    hostAliases: [{ip: '127.0.0.1', hostnames: ['foo.local', 'bar.local']}],
    dnsConfig: {
      nameservers: ['1.1.1.1'],
      searches: ['svc.cluster.local'],
      options: [{name: 'ndots', value: '2'}],
    },
    readinessGates: [{conditionType: 'example.com/ready'}],
    os: {name: 'linux'},
    hostNetwork: true,
    hostPID: true,
    shareProcessNamespace: true,
    serviceAccountName: 'builder',
    serviceAccount: 'builder',
    automountServiceAccountToken: false,
    hostname: 'h',
    subdomain: 's',
    setHostnameAsFQDN: true,
    hostnameOverride: 'override',
    resourceClaims: [{name: 'gpu', resourceClaimTemplateName: 'gpu-template'}],
  }),
)

// Strings: spew writes them raw, so these look alike to a careless renderer and differ in bytes.
hand(
  'strings that need no escaping in spew',
  base(
    {},
    {
      labels: {app: 'web', 'b:c': 'd e', é: 'ü', '😀': '\u{1f600}', Z: 'upper', a: 'lower', '': 'empty key'},
      annotations: {note: 'line\nbreak\ttab "quoted" (paren) {brace} <nil> map[x:y] \\ \u0000 \u2028 \u00a0'},
      name: 'x',
      generateName: 'web-',
      namespace: 'demo',
      uid: '0f5b1b2e-0000-4000-8000-000000000000',
      resourceVersion: '12345',
      generation: 7,
      finalizers: ['example.com/f'],
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'web',
          uid: 'u',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      deletionGracePeriodSeconds: 30,
    },
  ),
  true,
)
hand('lone surrogate in a label value', base({}, {labels: {bad: 'x\ud800y'}}))
hand(
  'map key order across the BMP and astral planes',
  base({nodeSelector: {'\uffff': '1', '\u{10000}': '2', '\ue000': '3', z: '4'}}),
)

// Times: null is the zero time; others travel as whole seconds and come back in time.Local.
for (const ts of [
  null,
  '0001-01-01T00:00:00Z',
  '1970-01-01T00:00:00Z',
  '2026-11-29T10:00:00Z',
  '2026-11-29T10:00:00.999Z',
  '2026-11-29T12:00:00+02:00',
  '1969-12-31T23:59:59Z',
]) {
  hand(
    `creationTimestamp ${JSON.stringify(ts)}`,
    base({}, {labels: {app: 'web'}, creationTimestamp: ts}),
    ts === '2026-11-29T10:00:00Z',
  )
}
hand(
  'deletionTimestamp and managedFields',
  base(
    {},
    {
      deletionTimestamp: '2026-11-29T10:00:00Z',
      managedFields: [
        {
          manager: 'kubectl',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-11-29T10:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {'f:metadata': {'f:labels': {'.': {}, 'f:app': {}}}},
        },
        {manager: 'empty', operation: 'Apply', fieldsV1: {}, subresource: 'status'},
      ],
    },
  ),
)

// --- random templates ------------------------------------------------------------------------------

const nextTemplate = randomTemplateGenerator(hashTypeDataFor(36), Number(opts.seed))
const count = Number(opts.random)
for (let i = 0; i < count; i++) {
  cases.push({name: `random #${i} (seed ${opts.seed})`, template: nextTemplate()})
}

writeFileSync(out, `${JSON.stringify(cases)}\n`)
console.error(`gen-templates: ${cases.length} templates -> ${out}`)
