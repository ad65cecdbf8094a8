// The test API server drops pod-template fields whose feature gate is off on every write, as
// upstream's PrepareForCreate / PrepareForUpdate do (dropDisabledFields, pkg/api/pod/util.go): on
// create always, on update (PUT, merge/strategic/JSON patch, server-side apply) only when the
// stored object does not already use the field.

import {afterEach, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from './index.js'

type Obj = Record<string, unknown>

const imageVolume = {name: 'data', image: {reference: 'quay.io/crio/artifact:v2', pullPolicy: 'IfNotPresent'}}

function deployment(name: string, withImageVolume: boolean): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name, namespace: 'default'},
    spec: {
      replicas: 1,
      selector: {matchLabels: {app: name}},
      template: {
        metadata: {labels: {app: name}},
        spec: {
          containers: [
            {
              name: 'app',
              image: 'busybox:1.36',
              ...(withImageVolume ? {volumeMounts: [{name: 'data', mountPath: '/data'}]} : {}),
            },
          ],
          ...(withImageVolume ? {volumes: [imageVolume]} : {}),
        },
      },
    },
  }
}

type Template = {
  spec: {template: {spec: {volumes?: Obj[]; containers: Array<{image: string; volumeMounts?: Obj[]}>}}}
}

describe('gated pod-template fields on a 1.33 server (ImageVolume off by default)', () => {
  let server: ApiServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  const call = async (method: string, path: string, body: unknown, contentType = 'application/json') => {
    const s = server as ApiServer
    const r = await fetch(`${s.url}${path}`, {
      method,
      headers: {Authorization: `Bearer ${s.token}`, 'Content-Type': contentType},
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
    expect(r.status, `${method} ${path}: ${r.status}`).toBeLessThan(300)
    return (await r.json()) as Template
  }
  const at = (name: string) => `/apis/apps/v1/namespaces/default/deployments/${name}`

  it('a Deployment stored with an image volume keeps it through PUT, merge patch, strategic patch and apply', async () => {
    // seeded as a server with the gate on (or a later minor) wrote it
    server = await startApiServer({kubeVersion: '1.33', objects: [deployment('used', true)]})
    const current = await call('GET', at('used'), undefined)
    current.spec.template.spec.containers[0].image = 'busybox:1.37'
    const put = await call('PUT', at('used'), current)
    expect(put.spec.template.spec.volumes).toEqual([imageVolume])
    const merged = await call(
      'PATCH',
      at('used'),
      {metadata: {labels: {x: '1'}}},
      'application/merge-patch+json',
    )
    expect(merged.spec.template.spec.volumes).toEqual([imageVolume])
    const strategic = await call(
      'PATCH',
      at('used'),
      {spec: {template: {spec: {containers: [{name: 'app', image: 'busybox:1.38'}]}}}},
      'application/strategic-merge-patch+json',
    )
    expect(strategic.spec.template.spec.volumes).toEqual([imageVolume])
    expect(strategic.spec.template.spec.containers[0].volumeMounts).toEqual([
      {name: 'data', mountPath: '/data'},
    ])
    const applied = await call(
      'PATCH',
      `${at('used')}?fieldManager=me&force=true`,
      JSON.stringify(deployment('used', true)),
      'application/apply-patch+yaml',
    )
    expect(applied.spec.template.spec.volumes).toEqual([imageVolume])
  })

  it('a Deployment not using one loses an image volume added by PUT, patch or apply, with its mount', async () => {
    server = await startApiServer({kubeVersion: '1.33', objects: [deployment('plain', false)]})
    const current = (await call('GET', at('plain'), undefined)) as unknown as Obj
    const withVolume = deployment('plain', true)
    ;(withVolume.metadata as Obj).resourceVersion = (current.metadata as Obj).resourceVersion
    const put = await call('PUT', at('plain'), withVolume)
    expect(put.spec.template.spec.volumes ?? []).toEqual([])
    expect(put.spec.template.spec.containers[0].volumeMounts ?? []).toEqual([])
    const patched = await call(
      'PATCH',
      at('plain'),
      {spec: {template: {spec: {volumes: [imageVolume]}}}},
      'application/merge-patch+json',
    )
    expect(patched.spec.template.spec.volumes ?? []).toEqual([])
    const applied = await call(
      'PATCH',
      `${at('plain')}?fieldManager=me&force=true`,
      JSON.stringify(deployment('plain', true)),
      'application/apply-patch+yaml',
    )
    expect(applied.spec.template.spec.volumes ?? []).toEqual([])
  })

  it('on 1.36 (ImageVolume on) an image volume added by PUT stays', async () => {
    server = await startApiServer({kubeVersion: '1.36', objects: [deployment('plain', false)]})
    const put = await call('PUT', at('plain'), deployment('plain', true))
    expect(put.spec.template.spec.volumes).toEqual([imageVolume])
  })
})
