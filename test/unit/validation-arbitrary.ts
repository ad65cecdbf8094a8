// Random Deployments for the validation property test and the random-template measurement
// (scripts/validation/random-templates.ts): a valid one by construction (unique names, mounts of
// existing volumes, requests within limits, probes with one handler, ...), then any number of
// mutations, each of which breaks exactly one rule the API server enforces, at a known field.

import fc from 'fast-check'

type Obj = Record<string, unknown>

/** One way to break a rule: what it does to the Deployment and the field the API server names. */
export interface Mutation {
  rule: string
  /** The field path (as fieldErrorText prints it) of the error it must cause. */
  field: string
  apply(d: Obj): void
}

const tpl = (d: Obj) => ((d.spec as Obj).template as Obj).spec as Obj
const containers = (d: Obj) => tpl(d).containers as Obj[]
const T = 'spec.template.spec'

const NAMES = ['web', 'app', 'sidecar', 'proxy', 'metrics', 'log-shipper']
const VOLUMES = ['data', 'config', 'cache', 'tmp', 'certs']

export interface Shape {
  containers: Array<{
    ports: number
    mounts: number[]
    cpu: [number, number] | undefined
    memoryMi: [number, number] | undefined
    probe: 'exec' | 'httpGet' | 'tcpSocket' | 'grpc' | undefined
    env: number
  }>
  volumes: number
  replicas: number
  strategy: 'RollingUpdate' | 'Recreate'
  maxSurge: number | string
  maxUnavailable: number | string
}

const containerShape = fc.record({
  ports: fc.integer({min: 0, max: 3}),
  mounts: fc.array(fc.integer({min: 0, max: 4}), {maxLength: 3}),
  cpu: fc.option(fc.tuple(fc.integer({min: 1, max: 4000}), fc.integer({min: 0, max: 4000})), {
    nil: undefined,
  }),
  memoryMi: fc.option(fc.tuple(fc.integer({min: 1, max: 8192}), fc.integer({min: 0, max: 8192})), {
    nil: undefined,
  }),
  probe: fc.constantFrom('exec', 'httpGet', 'tcpSocket', 'grpc', undefined),
  env: fc.integer({min: 0, max: 3}),
})

export const shapeArb: fc.Arbitrary<Shape> = fc.record({
  containers: fc.array(containerShape, {minLength: 1, maxLength: 3}),
  volumes: fc.integer({min: 0, max: 5}),
  replicas: fc.integer({min: 0, max: 20}),
  strategy: fc.constantFrom('RollingUpdate', 'Recreate'),
  maxSurge: fc.oneof(fc.integer({min: 1, max: 5}), fc.constantFrom('25%', '0%', '100%', 0)),
  maxUnavailable: fc.oneof(fc.integer({min: 1, max: 5}), fc.constantFrom('25%', '50%', '100%')),
})

/** A Deployment every rule accepts (maxSurge and maxUnavailable are never both zero). */
export function validDeployment(s: Shape): Obj {
  const volumes = VOLUMES.slice(0, s.volumes)
  const cs = s.containers.map((c, i) => {
    const container: Obj = {name: NAMES[i], image: `registry.example.com/${NAMES[i]}:1.${i}`}
    if (c.ports > 0) {
      container.ports = Array.from({length: c.ports}, (_, j) => ({
        name: `p${i}-${j}`,
        containerPort: 8000 + 10 * i + j,
      }))
    }
    const mounts = [...new Set(c.mounts.filter((m) => m < volumes.length))]
    if (mounts.length > 0)
      container.volumeMounts = mounts.map((m) => ({name: volumes[m], mountPath: `/mnt/${volumes[m]}`}))
    const limits: Obj = {}
    const requests: Obj = {}
    // [limit, request share]: the request is at most the limit.
    if (c.cpu) {
      limits.cpu = `${c.cpu[0]}m`
      requests.cpu = `${Math.floor((c.cpu[0] * c.cpu[1]) / 4000)}m`
    }
    if (c.memoryMi) {
      limits.memory = `${c.memoryMi[0]}Mi`
      requests.memory = `${Math.floor((c.memoryMi[0] * c.memoryMi[1]) / 8192)}Mi`
    }
    if (c.cpu || c.memoryMi) container.resources = {limits, requests}
    if (c.probe) {
      const handler =
        c.probe === 'exec'
          ? {exec: {command: ['true']}}
          : c.probe === 'httpGet'
            ? {httpGet: {path: '/healthz', port: 8080}}
            : c.probe === 'tcpSocket'
              ? {tcpSocket: {port: 8080}}
              : {grpc: {port: 9090}}
      container.readinessProbe = {...handler, periodSeconds: 5}
      container.livenessProbe = {...handler, failureThreshold: 3}
    }
    if (c.env > 0) container.env = Array.from({length: c.env}, (_, j) => ({name: `VAR_${j}`, value: `${j}`}))
    return container
  })
  const strategy: Obj =
    s.strategy === 'Recreate'
      ? {type: 'Recreate'}
      : {
          type: 'RollingUpdate',
          rollingUpdate: {maxSurge: s.maxSurge, maxUnavailable: s.maxUnavailable},
        }
  const podSpec: Obj = {containers: cs}
  if (volumes.length > 0) podSpec.volumes = volumes.map((name) => ({name, emptyDir: {}}))
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name: 'web', namespace: 'default'},
    spec: {
      replicas: s.replicas,
      selector: {matchLabels: {app: 'web'}},
      strategy,
      template: {metadata: {labels: {app: 'web', tier: 'front'}}, spec: podSpec},
    },
  }
}

const push = (o: Obj, key: string, v: unknown): number => {
  const list = (o[key] ??= []) as unknown[]
  list.push(v)
  return list.length - 1
}

/** The mutations, each breaking one rule at its own field (none touches another's field). */
export const MUTATIONS: Array<(d: Obj) => Mutation> = [
  (d) => {
    const i = containers(d).length - 1
    const k = ((containers(d)[i].volumeMounts as unknown[] | undefined) ?? []).length
    return {
      rule: 'volumeMount naming no volume',
      field: `${T}.containers[${i}].volumeMounts[${k}].name`,
      apply: (x) =>
        void push(containers(x)[i], 'volumeMounts', {name: 'no-such-volume', mountPath: '/mnt/none'}),
    }
  },
  (d) => {
    const i = containers(d).length - 1
    return {
      rule: 'request above limit',
      field: `${T}.containers[${i}].resources.requests`,
      apply: (x) => {
        const c = containers(x)[i]
        c.resources = {...(c.resources as Obj | undefined), limits: {cpu: '500m'}, requests: {cpu: '1'}}
      },
    }
  },
  (d) => ({
    rule: 'duplicate container name',
    field: `${T}.containers[${containers(d).length}].name`,
    apply: (x) => void push(tpl(x), 'containers', {name: containers(x)[0].name, image: 'busybox'}),
  }),
  (d) => {
    const n = ((tpl(d).volumes as unknown[] | undefined) ?? []).length
    return {
      rule: 'duplicate volume name',
      field: `${T}.volumes[${n + 1}].name`,
      apply: (x) => {
        push(tpl(x), 'volumes', {name: 'twice', emptyDir: {}})
        push(tpl(x), 'volumes', {name: 'twice', emptyDir: {}})
      },
    }
  },
  () => ({
    rule: 'duplicate port name',
    field: `${T}.containers[0].ports[1].name`,
    apply: (x) => {
      containers(x)[0].ports = [
        {name: 'http', containerPort: 80},
        {name: 'http', containerPort: 81},
      ]
    },
  }),
  () => ({
    rule: 'invalid container name',
    field: `${T}.containers[0].name`,
    apply: (x) => {
      containers(x)[0].name = 'Web_Server'
    },
  }),
  () => ({
    rule: 'selector not matching template labels',
    field: 'spec.template.metadata.labels',
    apply: (x) => {
      ;(((x.spec as Obj).template as Obj).metadata as Obj).labels = {app: 'api'}
    },
  }),
  () => ({
    rule: 'probe without a handler',
    field: `${T}.containers[0].startupProbe`,
    apply: (x) => {
      containers(x)[0].startupProbe = {periodSeconds: 10}
    },
  }),
  () => ({
    rule: 'negative probe period',
    field: `${T}.containers[0].livenessProbe.periodSeconds`,
    apply: (x) => {
      containers(x)[0].livenessProbe = {exec: {command: ['true']}, periodSeconds: -5}
    },
  }),
  () => ({
    rule: 'invalid env name',
    field: `${T}.containers[0].env[0].name`,
    apply: (x) => {
      containers(x)[0].env = [{name: 'A=B', value: '1'}]
    },
  }),
  () => ({
    rule: 'negative replicas',
    field: 'spec.replicas',
    apply: (x) => {
      ;(x.spec as Obj).replicas = -1
    },
  }),
  () => ({
    rule: 'negative minReadySeconds',
    field: 'spec.minReadySeconds',
    apply: (x) => {
      ;(x.spec as Obj).minReadySeconds = -3
    },
  }),
  () => ({
    rule: 'maxSurge and maxUnavailable both zero',
    field: 'spec.strategy.rollingUpdate.maxUnavailable',
    apply: (x) => {
      ;(x.spec as Obj).strategy = {type: 'RollingUpdate', rollingUpdate: {maxSurge: 0, maxUnavailable: '0%'}}
    },
  }),
  () => ({
    rule: 'restartPolicy not Always',
    field: `${T}.restartPolicy`,
    apply: (x) => {
      tpl(x).restartPolicy = 'OnFailure'
    },
  }),
  () => ({
    rule: 'unsupported port protocol',
    field: `${T}.containers[0].ports[0].protocol`,
    apply: (x) => {
      containers(x)[0].ports = [{containerPort: 53, protocol: 'ICMP'}]
    },
  }),
  () => ({
    rule: 'negative resource quantity',
    field: `${T}.containers[0].resources.limits[memory]`,
    apply: (x) => {
      containers(x)[0].resources = {limits: {memory: '-1Gi'}}
    },
  }),
  () => ({
    rule: 'configMap volume without a name',
    field: `${T}.volumes[0].configMap.name`,
    apply: (x) => {
      tpl(x).volumes = [{name: 'cfg', configMap: {}}]
      for (const c of containers(x)) delete c.volumeMounts
    },
  }),
  () => ({
    rule: 'invalid toleration',
    field: `${T}.tolerations[0].operator`,
    apply: (x) => {
      tpl(x).tolerations = [{key: 'k', operator: 'Exists', value: 'v'}]
    },
  }),
]

/**
 * Mutations that do not collide: the ones rewriting a whole list (ports, volumes) or the
 * container the others index into are kept apart.
 */
const CONFLICTS: Array<[string, string]> = [
  ['configMap volume without a name', 'volumeMount naming no volume'],
  ['configMap volume without a name', 'duplicate volume name'],
  ['duplicate port name', 'unsupported port protocol'],
  ['probe without a handler', 'negative probe period'],
  ['request above limit', 'negative resource quantity'],
  ['duplicate container name', 'volumeMount naming no volume'],
  ['duplicate container name', 'request above limit'],
  ['invalid container name', 'duplicate container name'],
]

export interface Case {
  deployment: Obj
  mutations: Mutation[]
}

/** A valid Deployment, then a random compatible set of mutations (none half the time). */
export const caseArb: fc.Arbitrary<Case> = fc
  .tuple(
    shapeArb,
    fc.boolean(),
    fc.shuffledSubarray(
      MUTATIONS.map((_, i) => i),
      {maxLength: 4},
    ),
  )
  .map(([shape, clean, picks]) => {
    const d = validDeployment(shape)
    const mutations: Mutation[] = []
    if (!clean) {
      for (const i of picks) {
        const m = MUTATIONS[i]!(d)
        if (
          mutations.some((o) =>
            CONFLICTS.some(([a, b]) => (a === m.rule && b === o.rule) || (a === o.rule && b === m.rule)),
          )
        )
          continue
        m.apply(d)
        mutations.push(m)
      }
    }
    return {deployment: d, mutations}
  })
