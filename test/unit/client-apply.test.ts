// kubectl apply's client-side merge on Deployments (src/cluster/apply/client.ts): the patch it
// sends and the object the API server then stores, with apps/v1 and core/v1's patch-merge keys.

import {describe, expect, it} from 'vitest'
import {clientSideApply, LAST_APPLIED, modifiedConfiguration} from '../../src/cluster/apply/client.js'
import {defaultDeployment} from '../../src/cluster/load/defaults.js'

type Obj = Record<string, unknown>
// biome-ignore lint/suspicious/noExplicitAny: test access to nested JSON
type Any = any

function written(spec: Obj, metadata: Obj = {}): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name: 'web', namespace: 'demo', ...metadata},
    spec,
  }
}

/** The live object after `kubectl apply` of `config` created it (defaulted, with its annotation). */
function created(config: Obj, edit: (o: Any) => void = () => {}): Obj {
  const o = modifiedConfiguration(config) as Any
  defaultDeployment(o)
  edit(o)
  return o
}

const template = (containers: unknown[], annotations?: Obj) => ({
  metadata: {labels: {app: 'web'}, ...(annotations ? {annotations} : {})},
  spec: {containers},
})

describe('kubectl apply (client-side) on a Deployment', () => {
  it('stores as last-applied the object as written, keys sorted, as kubectl serializes it', () => {
    const m = modifiedConfiguration(written({replicas: 1}, {labels: {app: 'web'}})) as Any
    expect(m.metadata.annotations[LAST_APPLIED]).toBe(
      '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"labels":{"app":"web"},"name":"web","namespace":"demo"},"spec":{"replicas":1}}\n',
    )
  })

  it('deletes the env var and the template annotation v2 no longer writes, with kubectl directives', () => {
    const v1 = written({
      selector: {matchLabels: {app: 'web'}},
      template: template(
        [
          {
            name: 'app',
            image: 'nginx:1.27',
            env: [
              {name: 'FOO', value: '1'},
              {name: 'BAR', value: '2'},
            ],
          },
        ],
        {team: 'payments'},
      ),
    })
    const v2 = written({
      selector: {matchLabels: {app: 'web'}},
      template: template([{name: 'app', image: 'nginx:1.27', env: [{name: 'BAR', value: '2'}]}]),
    })
    const {patch, result} = clientSideApply(v2, created(v1))
    const spec = (patch as Any).spec.template
    expect(spec.metadata).toEqual({annotations: null})
    expect(spec.spec).toEqual({
      '$setElementOrder/containers': [{name: 'app'}],
      containers: [
        {name: 'app', '$setElementOrder/env': [{name: 'BAR'}], env: [{name: 'FOO', $patch: 'delete'}]},
      ],
    })
    const t = (result as Any).spec.template
    expect(t.metadata.annotations).toBeUndefined()
    expect(t.spec.containers[0].env).toEqual([{name: 'BAR', value: '2'}])
  })

  it('spec.replicas dropped from the configuration is deleted (then defaulted to 1), whatever an autoscaler set', () => {
    const base = {
      selector: {matchLabels: {app: 'web'}},
      template: template([{name: 'app', image: 'nginx:1.27'}]),
    }
    const live = created(written({replicas: 3, ...base}), (o) => {
      o.spec.replicas = 7
    })
    const {patch, result} = clientSideApply(written(base), live)
    expect((patch as Any).spec).toEqual({replicas: null})
    expect((result as Any).spec.replicas).toBeUndefined()
    defaultDeployment(result)
    expect((result as Any).spec.replicas).toBe(1)
    // Never written by the configuration: the autoscaler's count stays.
    const unmanaged = created(written(base), (o) => {
      o.spec.replicas = 7
    })
    expect((clientSideApply(written(base), unmanaged).result as Any).spec.replicas).toBe(7)
  })

  it('keeps a field the API server defaulted (in no last-applied configuration) when the image changes', () => {
    const untagged = (image: string) =>
      written({selector: {matchLabels: {app: 'web'}}, template: template([{name: 'app', image}])})
    const live = created(untagged('registry.k8s.io/external-dns/external-dns'))
    expect((live as Any).spec.template.spec.containers[0].imagePullPolicy).toBe('Always')
    const {result} = clientSideApply(untagged('registry.k8s.io/external-dns/external-dns:v0.14.2'), live)
    defaultDeployment(result)
    expect((result as Any).spec.template.spec.containers[0]).toMatchObject({
      image: 'registry.k8s.io/external-dns/external-dns:v0.14.2',
      imagePullPolicy: 'Always',
    })
  })

  it('merges container ports by containerPort alone (the upstream patchMergeKey): coredns re-applied is unchanged', () => {
    const ports = [
      {containerPort: 53, name: 'dns', protocol: 'UDP'},
      {containerPort: 53, name: 'dns-tcp', protocol: 'TCP'},
      {containerPort: 9153, name: 'metrics', protocol: 'TCP'},
    ]
    const config = written({
      selector: {matchLabels: {app: 'web'}},
      template: template([{name: 'coredns', image: 'coredns/coredns:1.11.1', ports}]),
    })
    const live = created(config)
    const {patch, result} = clientSideApply(config, live)
    expect(patch).toEqual({})
    expect((result as Any).spec.template.spec.containers[0].ports).toEqual(ports)
    // A new port 53 entry merges into the first one with that containerPort, as kubectl apply does.
    const more = structuredClone(config) as Any
    more.spec.template.spec.containers[0].ports[1].name = 'dns-tcp2'
    const changed = clientSideApply(more, live).result as Any
    expect(changed.spec.template.spec.containers[0].ports.map((p: Any) => p.name)).toEqual([
      'dns-tcp2',
      'dns-tcp',
      'metrics',
    ])
  })

  it('switching the strategy to Recreate clears rollingUpdate ($retainKeys on spec.strategy)', () => {
    const base = {
      selector: {matchLabels: {app: 'web'}},
      template: template([{name: 'app', image: 'nginx:1.27'}]),
    }
    const live = created(written({...base, strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: 1}}}))
    const {patch, result} = clientSideApply(written({...base, strategy: {type: 'Recreate'}}), live)
    expect((patch as Any).spec.strategy).toEqual({
      $retainKeys: ['type'],
      rollingUpdate: null,
      type: 'Recreate',
    })
    expect((result as Any).spec.strategy).toEqual({type: 'Recreate'})
  })
})
