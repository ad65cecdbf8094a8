// The pod templates the golden vectors are computed for (regen.mjs runs this, then the Go proof):
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
import {hashTypeData} from '../../src/controller/util/hash-types.generated.js'

const {values: opts, positionals} = parseArgs({
  allowPositionals: true,
  options: {seed: {type: 'string', default: '20261201'}, random: {type: 'string', default: '320'}},
})
const out = positionals[0]
if (!out) throw new Error('usage: gen-templates.ts <out.json> [--seed N] [--random N]')

type Json = null | boolean | number | string | Json[] | {[k: string]: Json}
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

// Every quantity form the API accepts, in limits and requests, and as an emptyDir sizeLimit.
const QUANTITIES: Json[] = [
  '0',
  '0.0',
  '00100',
  '1',
  '+1',
  '-1',
  '1000m',
  '100m',
  '0.5',
  '.5',
  '1.',
  '0.1m',
  '1n',
  '1u',
  '100u',
  '1500m',
  '2.5',
  '1k',
  '1000',
  '1M',
  '1.5M',
  '1G',
  '1T',
  '1P',
  '1E',
  '1000E',
  '1e3',
  '1E3',
  '1e+3',
  '1e-3',
  '5e-9',
  '3e-10',
  '1e18',
  '1e19',
  '1e21',
  '12e6',
  '1Ki',
  '1023Ki',
  '1024',
  '1025',
  '2048',
  '1Mi',
  '500Mi',
  '512Mi',
  '1.5Gi',
  '1Gi',
  '0.5Gi',
  '0.5Ki',
  '1.1Mi',
  '100Ti',
  '512Ti',
  '1Pi',
  '1Ei',
  '8Ei',
  '9Ei',
  '-1.5Gi',
  '-0.5',
  '123456789012345678',
  '1234567890123456789',
  '12345678901234567890',
  '9223372036854775807',
  '9223372036854775808',
  '0.000000001',
  '0.0000000001',
  '1.000000000000000000001',
  1,
  0.5,
  2,
  1000,
  1e3,
  0.25,
]
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

let state = Number(opts.seed) >>> 0
function random(): number {
  // mulberry32
  state = (state + 0x6d2b79f5) >>> 0
  let t = state
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1))

const STRINGS = [
  '',
  'a',
  'web',
  'nginx:1.27',
  'app.kubernetes.io/name',
  ' ',
  'x y',
  'ü',
  '日本',
  '😀',
  'a:b',
  '(x)',
  '{}',
  '<nil>',
  'map[]',
  '"q"',
  'line\nbreak',
  '0',
  'true',
  'TCP',
  'Always',
  'IfNotPresent',
]
function randomString(): string {
  if (random() < 0.7) return pick(STRINGS)
  let s = ''
  for (let n = int(1, 12); n > 0; n--)
    s += String.fromCodePoint(
      pick([int(0x20, 0x7e), int(0x20, 0x7e), int(0xa0, 0x2fff), int(0x1f300, 0x1f5ff)]),
    )
  return s
}
function randomQuantity(): Json {
  if (random() < 0.5) return pick(QUANTITIES)
  const digits = String(int(0, 10 ** int(1, 9)))
  const frac = random() < 0.3 ? `.${String(int(0, 999)).padStart(int(1, 4), '0')}` : ''
  const suffix = pick([
    '',
    '',
    'm',
    'n',
    'u',
    'k',
    'M',
    'G',
    'T',
    'P',
    'E',
    'Ki',
    'Mi',
    'Gi',
    'Ti',
    'Pi',
    'Ei',
    'e3',
    'e-2',
    'E6',
  ])
  return `${random() < 0.1 ? '-' : ''}${digits}${frac}${suffix}`
}
function randomTime(): Json {
  if (random() < 0.4) return null
  const ms = int(-2_000_000_000, 4_000_000_000) * 1000
  const iso = new Date(ms).toISOString()
  return random() < 0.5 ? iso.replace('.000Z', 'Z') : iso
}

const INT_KINDS: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [-(2 ** 53) + 1, 2 ** 53 - 1],
  int: [-(2 ** 53) + 1, 2 ** 53 - 1],
}
function randomInt(kind: string): number {
  const [lo, hi] = INT_KINDS[kind]!
  const r = random()
  if (r < 0.2) return 0
  if (r < 0.5) return int(-5, 100)
  return Math.max(lo, Math.min(hi, Math.round((random() * 2 - 1) * (random() < 0.5 ? hi : 100000))))
}

const types = hashTypeData().types
/** A JSON value for a Go type, `depth` levels into the template. */
function gen(ref: string, depth: number): Json | undefined {
  if (ref.startsWith('*')) return random() < 0.5 ? undefined : gen(ref.slice(1), depth)
  if (ref.startsWith('[]')) {
    const r = random()
    if (r < 0.15) return r < 0.05 ? null : []
    const n = depth > 4 ? int(0, 1) : int(1, 3)
    return Array.from({length: n}, () => gen(ref.slice(2), depth + 1) ?? null)
  }
  if (ref.startsWith('map[')) {
    const r = random()
    if (r < 0.15) return r < 0.05 ? null : {}
    const value = ref.slice(ref.indexOf(']') + 1)
    const m: {[k: string]: Json} = {}
    for (let n = int(1, 4); n > 0; n--) m[randomString()] = gen(value, depth + 1) ?? null
    return m
  }
  switch (ref) {
    case 'resource.Quantity':
      return randomQuantity()
    case 'meta/v1.Time':
      return randomTime()
    case 'intstr.IntOrString':
      return random() < 0.5 ? int(0, 65535) : pick(['http', '8080', '', 'metrics'])
    case 'meta/v1.FieldsV1':
      return random() < 0.5 ? {} : {'f:spec': {'.': {}}}
    case 'string':
      return randomString()
    case 'bool':
      return random() < 0.5
    case 'int32':
    case 'int64':
    case 'int':
      return randomInt(ref)
  }
  const decl = types[ref]
  if (!decl) throw new Error(`gen-templates: no generator for ${ref}`)
  if (!('fields' in decl)) return gen(decl.type, depth)
  if (random() < 0.03) return null
  const obj: {[k: string]: Json} = {}
  // Deeper structs get sparser, so that templates stay a few kilobytes of spew.
  const p = depth === 0 ? 0.9 : Math.max(0.08, 0.6 - depth * 0.1)
  for (const [, jsonKey, type] of decl.fields) {
    if (jsonKey === null) continue
    if (jsonKey === '') {
      Object.assign(obj, gen(type, depth) ?? {})
      continue
    }
    if (random() >= p) continue
    const v = gen(type, depth + 1)
    if (v !== undefined) obj[jsonKey] = v
  }
  return obj
}

const count = Number(opts.random)
for (let i = 0; i < count; i++) {
  cases.push({name: `random #${i} (seed ${opts.seed})`, template: gen(hashTypeData().source.root, 0) ?? null})
}

writeFileSync(out, `${JSON.stringify(cases)}\n`)
console.error(`gen-templates: ${cases.length} templates -> ${out}`)
