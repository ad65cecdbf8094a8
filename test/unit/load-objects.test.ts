// The loader's object side: kinds, identity, defaulting, decoding and validation messages.

import {describe, expect, it} from 'vitest'
import {loadWorldFromText} from '../../src/cluster/load/from-text.js'
import {type LoadOptions, SYNTHETIC_CREATION_TIMESTAMP, syntheticUid} from '../../src/cluster/load/index.js'
import type {World} from '../../src/cluster/world.js'
import {InputError} from '../../src/errors.js'

type Obj = Record<string, unknown>
type Doc = Obj & {spec: Obj; metadata: Obj}
type Edit = (d: Doc) => unknown

/** A valid Deployment as JSON; `edit` changes it before it is loaded. */
function deployment(edit: Edit = () => {}): string {
  const d = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name: 'web'},
    spec: {
      selector: {matchLabels: {app: 'web'}},
      template: {
        metadata: {labels: {app: 'web'}},
        spec: {containers: [{name: 'web', image: 'nginx:1.27'}]},
      },
    },
  }
  edit(d)
  return JSON.stringify(d)
}

function load(text: string, opts: LoadOptions = {}, file = 'd.json'): World {
  return loadWorldFromText(text, file, {warn: () => {}, ...opts})
}

function errorOf(text: string, opts: LoadOptions = {}, file = 'd.json'): string {
  try {
    load(text, opts, file)
  } catch (e) {
    expect(e).toBeInstanceOf(InputError)
    return (e as Error).message
  }
  throw new Error('expected an InputError')
}

const D = 'd.json:1: Deployment default/web'

describe('kinds and identity', () => {
  it('refuses a known kind with the wrong apiVersion', () => {
    expect(errorOf(deployment((d) => (d.apiVersion = 'extensions/v1beta1')))).toBe(
      'd.json:1: Deployment default/web: apiVersion "extensions/v1beta1" is not supported for kind Deployment: apps/v1 is expected',
    )
    expect(errorOf('{"apiVersion": "apps/v1", "kind": "Pod", "metadata": {"name": "p"}}')).toBe(
      'd.json:1: Pod default/p: apiVersion "apps/v1" is not supported for kind Pod: v1 is expected',
    )
  })

  it('refuses objects without kind, apiVersion or name', () => {
    expect(errorOf('{"apiVersion": "v1", "metadata": {"name": "x"}}')).toBe('d.json:1: kind not set')
    expect(errorOf('{"kind": "Deployment", "metadata": {"name": "x"}}')).toBe(
      'd.json:1: Deployment: apiVersion not set',
    )
    expect(errorOf(deployment((d) => delete d.metadata.name))).toBe(
      'd.json:1: Deployment: metadata.name: Required value',
    )
  })

  it('puts objects without a namespace in default and keeps the others', () => {
    const w = load(`${deployment()}\n${deployment((d) => (d.metadata.namespace = 'prod'))}`)
    expect(w.deployments.map((d) => d.metadata.namespace)).toEqual(['default', 'prod'])
  })

  it('refuses the same object twice, naming both lines', () => {
    expect(errorOf(`${deployment()}\n${deployment()}`)).toBe(
      'd.json:2: Deployment default/web: duplicate object: also defined at d.json:1',
    )
  })

  it('synthesizes uid and creationTimestamp deterministically, and keeps the ones given', () => {
    const a = load(deployment()).deployments[0]
    const b = load(deployment()).deployments[0]
    expect(a.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(a.metadata.uid).toBe(b.metadata.uid)
    expect(a.metadata.uid).toBe(syntheticUid('Deployment', 'default', 'web'))
    expect(syntheticUid('ReplicaSet', 'default', 'web')).not.toBe(a.metadata.uid)
    expect(a.metadata.creationTimestamp).toBe(SYNTHETIC_CREATION_TIMESTAMP)
    const given = load(
      deployment((d) => {
        d.metadata.uid = 'u-1'
        d.metadata.creationTimestamp = '2025-02-03T04:05:06Z'
      }),
    ).deployments[0]
    expect([given.metadata.uid, given.metadata.creationTimestamp]).toEqual(['u-1', '2025-02-03T04:05:06Z'])
  })
})

describe('defaulting', () => {
  it("applies apps/v1 Deployment defaults and the pod template's core/v1 defaults", () => {
    const d = load(deployment()).deployments[0]
    expect(d.metadata.generation).toBe(1)
    expect(d.status).toEqual({})
    const {template, ...spec} = d.spec
    expect(spec).toEqual({
      selector: {matchLabels: {app: 'web'}},
      replicas: 1,
      strategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: '25%', maxSurge: '25%'}},
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    })
    expect(template.spec).toEqual({
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          imagePullPolicy: 'IfNotPresent',
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          resources: {},
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      securityContext: {},
      schedulerName: 'default-scheduler',
    })
  })

  it('gives Recreate no rollingUpdate', () => {
    const d = load(deployment((d) => (d.spec.strategy = {type: 'Recreate'}))).deployments[0]
    expect(d.spec.strategy).toEqual({type: 'Recreate'})
  })

  it('never overrides what is written, and treats null as absent', () => {
    const d = load(
      deployment((d) => {
        d.spec.replicas = 0
        d.spec.revisionHistoryLimit = 0
        d.spec.progressDeadlineSeconds = null
        d.spec.strategy = {rollingUpdate: {maxSurge: 0, maxUnavailable: 2}}
        ;(d.spec.template as {spec: Obj}).spec.terminationGracePeriodSeconds = 0
      }),
    ).deployments[0]
    expect(d.spec.replicas).toBe(0)
    expect(d.spec.revisionHistoryLimit).toBe(0)
    expect(d.spec.progressDeadlineSeconds).toBe(600)
    expect(d.spec.strategy).toEqual({type: 'RollingUpdate', rollingUpdate: {maxSurge: 0, maxUnavailable: 2}})
    expect(d.spec.template.spec?.terminationGracePeriodSeconds).toBe(0)
  })

  it.each([
    {name: 'no tag', given: 'nginx', want: 'Always'},
    {name: 'the latest tag', given: 'nginx:latest', want: 'Always'},
    {name: 'a registry port, no tag', given: 'registry.example.com:5000/team/app', want: 'Always'},
    {
      name: 'a registry port and a tag',
      given: 'registry.example.com:5000/team/app:1.2',
      want: 'IfNotPresent',
    },
    {
      name: 'a digest',
      given: 'nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
      want: 'IfNotPresent',
    },
    {
      name: 'the latest tag with a digest',
      given: 'nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
      want: 'Always',
    },
  ])('defaults imagePullPolicy for $name ($given) to $want', ({given, want}) => {
    const d = load(
      deployment((d) => ((d.spec.template as {spec: {containers: Obj[]}}).spec.containers[0].image = given)),
    ).deployments[0]
    expect(d.spec.template.spec?.containers?.[0].imagePullPolicy).toBe(want)
  })

  it('defaults ports, probes, env field references and volumes below the template', () => {
    const yaml = `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: r}
spec:
  selector: {matchLabels: {app: r}}
  template:
    metadata: {labels: {app: r}}
    spec:
      volumes:
      - name: scratch
      - name: cfg
        configMap: {name: cfg}
      containers:
      - name: c
        image: app:1
        ports: [{containerPort: 8080}]
        env: [{name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]
        readinessProbe: {httpGet: {port: 8080}}
`
    const rs = load(yaml, {}, 'r.yaml').replicaSets[0]
    expect(rs.spec.replicas).toBe(1)
    expect(rs.metadata.generation).toBe(1)
    const spec = rs.spec.template?.spec as Obj
    expect(spec.volumes).toEqual([
      {name: 'scratch', emptyDir: {}},
      {name: 'cfg', configMap: {name: 'cfg', defaultMode: 420}},
    ])
    const c = (spec.containers as Obj[])[0]
    expect(c.ports).toEqual([{containerPort: 8080, protocol: 'TCP'}])
    expect(c.env).toEqual([
      {name: 'NODE', valueFrom: {fieldRef: {fieldPath: 'spec.nodeName', apiVersion: 'v1'}}},
    ])
    expect(c.readinessProbe).toEqual({
      httpGet: {port: 8080, path: '/', scheme: 'HTTP'},
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    })
  })

  it("applies a Pod's spec defaults", () => {
    const p = load(
      '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "x:1"}]}}',
    ).pods[0]
    expect(p.spec?.restartPolicy).toBe('Always')
    expect(p.spec?.containers?.[0].imagePullPolicy).toBe('IfNotPresent')
  })
})

describe('decoding (always errors, whatever --validate says)', () => {
  it.each([
    {
      name: 'spec.replicas: a word is not an integer',
      given: (d: Doc) => (d.spec.replicas = 'three'),
      want: 'spec.replicas: Invalid value: "three": expected an integer',
    },
    {
      name: 'spec.replicas: expected a 32-bit integer',
      given: (d: Doc) => (d.spec.replicas = 1e12),
      want: 'spec.replicas: Invalid value: 1000000000000: expected a 32-bit integer',
    },
    {
      name: 'spec.replicas: a fraction is not an integer',
      given: (d: Doc) => (d.spec.replicas = 1.5),
      want: 'spec.replicas: Invalid value: 1.5: expected an integer',
    },
    {
      name: 'spec.paused: expected a boolean (true or false)',
      given: (d: Doc) => (d.spec.paused = 'yes'),
      want: 'spec.paused: Invalid value: "yes": expected a boolean (true or false)',
    },
    {
      name: 'spec.strategy.rollingUpdate.maxSurge: expected an integer or a percentage string',
      given: (d: Doc) => (d.spec.strategy = {rollingUpdate: {maxSurge: true}}),
      want: 'spec.strategy.rollingUpdate.maxSurge: Invalid value: true: expected an integer or a percentage string',
    },
    {
      name: 'spec.template.spec.containers: expected a list',
      given: (d: Doc) => (d.spec.template = {spec: {containers: {name: 'c'}}}),
      want: 'spec.template.spec.containers: Invalid value: {"name":"c"}: expected a list',
    },
    {
      name: 'metadata.annotations[example.com/n]: expected a string',
      given: (d: Doc) => (d.metadata.annotations = {'example.com/n': 5}),
      want: 'metadata.annotations[example.com/n]: Invalid value: 5: expected a string',
    },
    {
      name: 'metadata.generation: expected an integer of at most 2^53 - 1 in magnitude (larger ones lose precision)',
      given: (d: Doc) => (d.metadata.generation = 2 ** 60),
      want: `metadata.generation: Invalid value: ${2 ** 60}: expected an integer of at most 2^53 - 1 in magnitude (larger ones lose precision)`,
    },
    {
      name: 'metadata.creationTimestamp: expected an RFC 3339 time such as "2024-01-01T00:00:00Z"',
      given: (d: Doc) => (d.metadata.creationTimestamp = 'yesterday'),
      want: 'metadata.creationTimestamp: Invalid value: "yesterday": expected an RFC 3339 time such as "2024-01-01T00:00:00Z"',
    },
  ])('refuses wrong JSON types: $name', ({given, want}) => {
    for (const validate of ['strict', 'warn', 'ignore'] as const) {
      expect(errorOf(deployment(given as Edit), {validate})).toBe(`${D}: ${want}`)
    }
  })

  it('points at YAML booleans in labels (YAML 1.1 reads `on` as true) with the line of the field', () => {
    const yaml = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
    canary: on
spec: {}
`
    expect(errorOf(yaml, {validate: 'ignore'}, 'w.yaml')).toBe(
      'w.yaml:7: Deployment default/web: metadata.labels[canary]: Invalid value: true: expected a string (quote the value: YAML reads it as a bool or a number)',
    )
  })
})

describe('validation', () => {
  const template = (d: Doc) => d.spec.template as {metadata: Obj; spec: Obj}
  it.each([
    {
      name: 'spec.replicas: must be greater than or equal to 0',
      given: (d: Doc) => (d.spec.replicas = -1),
      want: 'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    },
    {
      name: 'spec.minReadySeconds: must be greater than or equal to 0',
      given: (d: Doc) => (d.spec.minReadySeconds = -5),
      want: 'spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0',
    },
    {
      name: 'spec.revisionHistoryLimit: must be greater than or equal to 0',
      given: (d: Doc) => (d.spec.revisionHistoryLimit = -1),
      want: 'spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
    },
    {
      name: 'spec.progressDeadlineSeconds: must be greater than or equal to 0',
      given: (d: Doc) => (d.spec.progressDeadlineSeconds = -1),
      want: 'spec.progressDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0',
    },
    {
      name: 'spec.progressDeadlineSeconds: must be greater than minReadySeconds',
      given: (d: Doc) => {
        d.spec.minReadySeconds = 30
        d.spec.progressDeadlineSeconds = 30
      },
      want: 'spec.progressDeadlineSeconds: Invalid value: 30: must be greater than minReadySeconds',
    },
    {
      name: 'spec.selector: Required value',
      given: (d: Doc) => delete d.spec.selector,
      want: 'spec.selector: Required value',
    },
    {
      name: 'spec.selector: empty selector is invalid for deployment',
      given: (d: Doc) => (d.spec.selector = {}),
      want: 'spec.selector: Invalid value: {}: empty selector is invalid for deployment',
    },
    {
      name: 'spec.template.metadata.labels: `selector` does not match template `labels`',
      given: (d: Doc) => (d.spec.selector = {matchLabels: {app: 'api'}}),
      want: 'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    },
    {
      name: 'spec.selector.matchExpressions[0].operator: not a valid selector operator',
      given: (d: Doc) =>
        (d.spec.selector = {matchExpressions: [{key: 'app', operator: 'Equals', values: ['web']}]}),
      want: 'spec.selector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator',
    },
    {
      name: "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      given: (d: Doc) => (d.spec.selector = {matchExpressions: [{key: 'app', operator: 'In'}]}),
      want: "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    },
    {
      name: "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      given: (d: Doc) =>
        (d.spec.selector = {matchExpressions: [{key: 'app', operator: 'Exists', values: ['web']}]}),
      want: "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    },
    {
      name: 'spec.template.metadata.labels: `selector` does not match template `labels`',
      given: (d: Doc) =>
        (d.spec.selector = {matchExpressions: [{key: 'app', operator: 'NotIn', values: ['web']}]}),
      want: 'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    },
    {
      name: 'spec.template.spec.containers: Required value',
      given: (d: Doc) => (template(d).spec = {}),
      want: 'spec.template.spec.containers: Required value',
    },
    {
      name: 'spec.template.spec.containers[0].image: Required value',
      given: (d: Doc) => (template(d).spec = {containers: [{name: 'web'}]}),
      want: 'spec.template.spec.containers[0].image: Required value',
    },
    {
      name: 'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      given: (d: Doc) => (template(d).spec.restartPolicy = 'Never'),
      want: 'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    },
    {
      name: "metadata.labels: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      given: (d: Doc) => (d.metadata.labels = {app: 'bad value'}),
      want: "metadata.labels: Invalid value: \"bad value\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    },
  ])('refuses what the API server refuses: $name', ({given, want}) => {
    expect(errorOf(deployment(given as Edit))).toBe(`${D}: ${want}`)
  })

  it.each(['25', '%', '-5%', '1.5%'])('refuses the malformed percentage %j', (value) => {
    expect(errorOf(deployment((d) => (d.spec.strategy = {rollingUpdate: {maxSurge: value}})))).toBe(
      `${D}: spec.strategy.rollingUpdate.maxSurge: Invalid value: ${JSON.stringify(value)}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
    )
  })

  it.each([
    {
      name: 'spec.strategy.rollingUpdate.maxSurge: must be greater than or equal to 0',
      given: {maxSurge: -1},
      want: 'spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0',
    },
    {
      name: 'spec.strategy.rollingUpdate.maxUnavailable: must not be greater than 100%',
      given: {maxUnavailable: '150%'},
      want: 'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
    },
    {
      name: 'spec.strategy.rollingUpdate.maxUnavailable: may not be 0 when `maxSurge` is 0',
      given: {maxSurge: 0, maxUnavailable: '0%'},
      want: 'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0',
    },
  ])('checks the rolling update fenceposts: $name', ({given, want}) => {
    expect(
      errorOf(deployment((d) => (d.spec.strategy = {type: 'RollingUpdate', rollingUpdate: given}))),
    ).toBe(`${D}: ${want}`)
  })

  it('accepts a surge over 100%, and matchExpressions that match the template', () => {
    const w = load(
      deployment((d) => {
        d.spec.strategy = {rollingUpdate: {maxSurge: '200%', maxUnavailable: 0}}
        d.spec.selector = {
          matchLabels: {app: 'web'},
          matchExpressions: [
            {key: 'app', operator: 'In', values: ['web', 'api']},
            {key: 'tier', operator: 'NotIn', values: ['db']},
            {key: 'app', operator: 'Exists'},
            {key: 'legacy', operator: 'DoesNotExist'},
          ],
        }
      }),
    )
    expect(w.deployments).toHaveLength(1)
  })

  it('refuses rollingUpdate with Recreate, and unknown strategy types', () => {
    expect(
      errorOf(deployment((d) => (d.spec.strategy = {type: 'Recreate', rollingUpdate: {maxSurge: 1}}))),
    ).toBe(
      `${D}: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy \`type\` is 'Recreate'`,
    )
    expect(errorOf(deployment((d) => (d.spec.strategy = {type: 'BlueGreen'})))).toBe(
      `${D}: spec.strategy.type: Unsupported value: "BlueGreen": supported values: "Recreate", "RollingUpdate"`,
    )
  })

  it('validates ReplicaSets as the API server does', () => {
    const rs = deployment((d) => {
      d.kind = 'ReplicaSet'
      d.spec.replicas = -2
    })
    expect(errorOf(rs)).toBe(
      'd.json:1: ReplicaSet default/web: spec.replicas: Invalid value: -2: must be greater than or equal to 0',
    )
  })

  it('with --validate=warn prints every problem as a warning and loads the object', () => {
    const lines: string[] = []
    const w = load(
      deployment((d) => {
        d.spec.replicas = -1
        d.spec.selector = {matchLabels: {app: 'api'}}
      }),
      {validate: 'warn', warn: (l) => lines.push(l)},
    )
    expect(w.deployments[0].spec.replicas).toBe(-1)
    expect(lines).toEqual([
      `warning: ${D}: spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
      `warning: ${D}: spec.template.metadata.labels: Invalid value: {"app":"web"}: \`selector\` does not match template \`labels\``,
    ])
  })

  it('with --validate=ignore says nothing', () => {
    const lines: string[] = []
    const w = load(
      deployment((d) => (d.spec.strategy = {rollingUpdate: {maxSurge: 0, maxUnavailable: 0}})),
      {validate: 'ignore', warn: (l) => lines.push(l)},
    )
    expect(w.deployments).toHaveLength(1)
    expect(lines).toEqual([])
  })

  it('refuses unknown fields in the apps/v1 structures (a typo must not default silently)', () => {
    expect(errorOf(deployment((d) => (d.spec.replicass = 3)))).toBe(`${D}: unknown field "spec.replicass"`)
    expect(
      errorOf(deployment((d) => (d.spec.strategy = {rollingUpdate: {maxSurge: 1, maxUnavailabe: 0}}))),
    ).toBe(`${D}: unknown field "spec.strategy.rollingUpdate.maxUnavailabe"`)
    expect(
      errorOf(
        deployment(
          (d) => (d.spec.selector = {matchExpressions: [{key: 'app', operator: 'In', value: ['web']}]}),
        ),
      ),
    ).toBe(`${D}: unknown field "spec.selector.matchExpressions[0].value"`)
    // Pod specs and statuses are not checked: a newer cluster's snapshot must still load.
    const newer = deployment((d) => {
      d.status = {someFutureField: 1}
      ;(d.spec.template as {spec: Obj}).spec.someFutureField = true
    })
    expect(load(newer).deployments).toHaveLength(1)
    const lines: string[] = []
    load(
      deployment((d) => (d.metadata.lables = {})),
      {validate: 'warn', warn: (l) => lines.push(l)},
    )
    expect(lines).toEqual([`warning: ${D}: unknown field "metadata.lables"`])
  })

  it('names the line of the offending field inside a YAML List item', () => {
    const yaml = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: ok}
  spec: {containers: [{name: c, image: "x:1"}]}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: rs}
  spec:
    replicas: 1
    minReadySeconds: -3
`
    expect(errorOf(yaml, {}, 'l.yaml')).toBe(
      'l.yaml:13: ReplicaSet default/rs: spec.minReadySeconds: Invalid value: -3: must be greater than or equal to 0',
    )
  })

  it('names the line of the offending field in YAML', () => {
    const yaml = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  strategy:
    rollingUpdate:
      maxSurge: 1.5%
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers: [{name: web, image: "nginx:1.27"}]
`
    expect(errorOf(yaml, {}, 'w.yaml')).toBe(
      "w.yaml:9: Deployment default/web: spec.strategy.rollingUpdate.maxSurge: Invalid value: \"1.5%\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
    )
  })
})
