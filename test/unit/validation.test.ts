// The one validation module (src/cluster/validation): its messages as apimachinery's field.Error
// words them, and the same refusal from the file loader and from the test API server.

import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {defaultDeployment, defaultPod} from '../../src/cluster/load/defaults.js'
import {loadWorldFromText} from '../../src/cluster/load/from-text.js'
import {fieldErrorText, validateDeployment, validatePod} from '../../src/cluster/validation/index.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'

type Obj = Record<string, unknown>

function deployment(spec: Obj = {}, template: Obj = {}): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name: 'web', namespace: 'default'},
    spec: {
      selector: {matchLabels: {app: 'web'}},
      template: {
        metadata: {labels: {app: 'web'}},
        spec: {containers: [{name: 'app', image: 'nginx:1.27'}], ...template},
      },
      ...spec,
    },
  }
}

function errorsOf(d: Obj): string[] {
  const o = structuredClone(d)
  defaultDeployment(o)
  return validateDeployment(o).map(fieldErrorText)
}

describe('pod template validation an API server does (issue 29, item 5)', () => {
  const container = (extra: Obj) => ({containers: [{name: 'app', image: 'nginx:1.27', ...extra}]})

  it('a volumeMount naming no volume of the pod: Not found (ValidateVolumeMounts)', () => {
    expect(errorsOf(deployment({}, container({volumeMounts: [{name: 'data', mountPath: '/data'}]})))).toEqual(
      ['spec.template.spec.containers[0].volumeMounts[0].name: Not found: "data"'],
    )
    const ok = deployment(
      {},
      {
        ...container({volumeMounts: [{name: 'data', mountPath: '/data'}]}),
        volumes: [{name: 'data', emptyDir: {}}],
      },
    )
    expect(errorsOf(ok)).toEqual([])
  })

  it('mounts: mountPath required and unique; volumes: names required, DNS-1123 labels, not repeated', () => {
    const d = deployment(
      {},
      {
        ...container({
          volumeMounts: [{name: 'a', mountPath: '/x'}, {name: 'a', mountPath: '/x'}, {name: 'a'}],
        }),
        volumes: [
          {name: 'a', emptyDir: {}},
          {name: 'a', emptyDir: {}},
          {name: 'B_', emptyDir: {}},
        ],
      },
    )
    expect(errorsOf(d)).toEqual([
      'spec.template.spec.volumes[1].name: Duplicate value: "a"',
      expect.stringMatching(
        /^spec\.template\.spec\.volumes\[2\]\.name: Invalid value: "B_": a lowercase RFC 1123 label must consist of/,
      ),
      'spec.template.spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/x": must be unique',
      'spec.template.spec.containers[0].volumeMounts[2].mountPath: Required value',
    ])
  })

  it('a request above its limit: Invalid, with both canonical quantities (ValidateResourceRequirements)', () => {
    const d = deployment(
      {},
      container({resources: {requests: {cpu: '1500m', memory: '1Gi'}, limits: {cpu: 1, memory: '1024Mi'}}}),
    )
    expect(errorsOf(d)).toEqual([
      'spec.template.spec.containers[0].resources.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1',
    ])
    // Equal by value in other forms, and a request without a limit: fine.
    const ok = deployment(
      {},
      container({resources: {requests: {cpu: '1000m', memory: '2Gi'}, limits: {cpu: '1'}}}),
    )
    expect(errorsOf(ok)).toEqual([])
  })

  it('answers the same when quantities recur: malformed ones, and more distinct ones than are kept decoded', () => {
    const over = (request: unknown, limit: unknown) =>
      errorsOf(deployment({}, container({resources: {requests: {cpu: request}, limits: {cpu: limit}}})))
    const message =
      'spec.template.spec.containers[0].resources.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1'
    for (let round = 0; round < 2; round++) {
      expect(over('1500m', 1)).toEqual([message])
      expect(over('1500m', '2')).toEqual([])
      // The decoder's refusal (nothing else refused it: the pass used to fail later, with no file or line).
      expect(over('x', '1')).toEqual([
        `spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: "x": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      ])
    }
    for (let i = 0; i < 1100; i++) expect(over(`${i + 2}`, `${i + 1}`)).toHaveLength(1)
    expect(over('1500m', 1)).toEqual([message])
  })
})

describe('validation messages', () => {
  it('prints composite bad values as Go’s encoding/json does: map keys sorted, struct fields in order', () => {
    const d = deployment({selector: {matchLabels: {tier: 'x', app: 'web'}}})
    ;(d.spec as {template: {metadata: Obj}}).template.metadata = {labels: {z: '1', app: 'web'}}
    expect(errorsOf(d)).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"web","z":"1"}: `selector` does not match template `labels`',
    ])
    const empty = errorsOf(deployment({selector: {matchExpressions: []}}))
    expect(empty).toContain('spec.selector: Invalid value: {}: empty selector is invalid for deployment')
  })

  it('a Deployment without a selector: Required, and its template matches nothing', () => {
    const d = deployment()
    delete (d.spec as Obj).selector
    expect(errorsOf(d)).toEqual([
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ])
  })

  it('names template labels and annotations without "metadata", as ValidatePodTemplateSpec does', () => {
    const d = deployment({selector: {matchLabels: {app: 'web'}}})
    ;(d.spec as {template: {metadata: Obj}}).template.metadata = {labels: {app: 'web', 'bad key': 'x'}}
    expect(errorsOf(d)[0]).toMatch(
      /^spec\.template\.labels: Invalid value: "bad key": name part must consist of/,
    )
  })

  it('refuses two controller references and conflicting finalizers, with the Go quoting of values', () => {
    const d = deployment()
    d.metadata = {
      name: 'web',
      namespace: 'default',
      finalizers: ['orphan', 'foregroundDeletion'],
      ownerReferences: [
        {uid: '1', name: 'a', kind: 'X', apiVersion: 'v1', controller: true},
        {apiVersion: 'v1', kind: 'Y', name: 'b', uid: '2', controller: true},
      ],
    }
    expect(errorsOf(d)).toEqual([
      'metadata.ownerReferences: Invalid value: [{"apiVersion":"v1","kind":"X","name":"a","uid":"1","controller":true},{"apiVersion":"v1","kind":"Y","name":"b","uid":"2","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for X/a and Y/b',
      'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
    ])
  })

  it('a pod needs a restart policy of the three', () => {
    // Defaulted as the API server defaults before it validates, but for an explicit empty policy.
    const pod: Obj = {
      metadata: {name: 'p', namespace: 'default'},
      spec: {containers: [{name: 'a', image: 'x'}]},
    }
    defaultPod(pod)
    ;(pod.spec as Obj).restartPolicy = ''
    expect(validatePod(pod).map(fieldErrorText)).toEqual(['spec.restartPolicy: Required value'])
    const bad = {...pod, spec: {...(pod.spec as Obj), restartPolicy: 'Sometimes'}}
    expect(validatePod(bad).map(fieldErrorText)).toEqual([
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ])
  })
})

describe('the file loader and the test API server refuse alike', () => {
  let server: ApiServer
  beforeAll(async () => {
    server = await startApiServer({port: 0})
  })
  afterAll(async () => {
    await server.close()
  })

  const bad = deployment(
    {replicas: -1},
    {
      containers: [
        {name: 'app', image: 'a'},
        {name: 'app', image: 'b'},
      ],
    },
  )

  it('with the same messages, and the API server with field.Error’s types as the causes’ reasons', async () => {
    let loaderError = ''
    try {
      loadWorldFromText(JSON.stringify(bad), 'd.json')
    } catch (err) {
      loaderError = (err as Error).message
    }
    expect(loaderError).toBe(
      'd.json:1: Deployment default/web: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    )
    const res = await fetch(`${server.url}/apis/apps/v1/namespaces/default/deployments`, {
      method: 'POST',
      headers: {'content-type': 'application/json', authorization: `Bearer ${server.token}`},
      body: JSON.stringify(bad),
    })
    expect(res.status).toBe(422)
    const status = (await res.json()) as {message: string; details: {causes: Obj[]}}
    expect(status.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: -1: must be greater than or equal to 0',
        field: 'spec.replicas',
      },
      {
        reason: 'FieldValueDuplicate',
        message: 'Duplicate value: "app"',
        field: 'spec.template.spec.containers[1].name',
      },
    ])
    const warned: string[] = []
    loadWorldFromText(JSON.stringify(bad), 'd.json', {validate: 'warn', warn: (l) => warned.push(l)})
    const loaderTexts = warned.map((l) => l.replace(/^warning: d\.json:\d+: Deployment default\/web: /, ''))
    expect(loaderTexts).toEqual(status.details.causes.map((c) => `${c.field}: ${c.message}`))
  })
})
