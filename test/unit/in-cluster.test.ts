// In a pod: the service account's token, CA and namespace, found as client-go's in-cluster
// config finds them, against the test API server over TLS with a required token.

import {copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/cluster/live/api.js'
import {inClusterNamespace, inClusterPossible, SERVICEACCOUNT_DIR} from '../../src/cluster/live/in-cluster.js'
import {KubeConfig} from '../../src/cluster/live/kube.js'
import {inClusterConnection} from '../../src/cluster/live/kubeconfig.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'

const cleanup: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

function podRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'deployctl-pod-'))
  cleanup.push(() => rmSync(root, {recursive: true, force: true}))
  mkdirSync(join(root, SERVICEACCOUNT_DIR), {recursive: true})
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, SERVICEACCOUNT_DIR, name), text)
  return root
}

describe('in-cluster configuration', () => {
  it('is possible only with the service variables and a mounted token (upstream: inClusterClientConfig.Possible)', () => {
    const root = podRoot({token: 't'})
    const env = {KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443'}
    expect(inClusterPossible(env, root)).toBe(true)
    expect(inClusterPossible({KUBERNETES_SERVICE_HOST: '10.0.0.1'}, root)).toBe(false)
    expect(inClusterPossible(env, podRoot({}))).toBe(false)
  })

  it('namespace: $POD_NAMESPACE, else the service account file, else default', () => {
    const root = podRoot({token: 't', namespace: 'deployctl-system\n'})
    expect(inClusterNamespace({POD_NAMESPACE: 'from-env'}, root)).toBe('from-env')
    expect(inClusterNamespace({}, root)).toBe('deployctl-system')
    expect(inClusterNamespace({}, podRoot({token: 't'}))).toBe('default')
  })

  it('talks TLS to $KUBERNETES_SERVICE_HOST:PORT with the CA and bearer token of the service account', async () => {
    const server: ApiServer = await startApiServer({tls: true, requireToken: 'sa-token-123'})
    cleanup.push(() => server.close())
    const root = podRoot({token: 'sa-token-123', namespace: 'kube-system'})
    copyFileSync(join(dirname(server.kubeconfigPath), 'tls.crt'), join(root, SERVICEACCOUNT_DIR, 'ca.crt'))
    const saved = {...process.env}
    cleanup.push(() => {
      process.env = saved
    })
    process.env.KUBERNETES_SERVICE_HOST = '127.0.0.1'
    process.env.KUBERNETES_SERVICE_PORT = String(server.port)
    delete process.env.POD_NAMESPACE
    const conn = await inClusterConnection(new KubeConfig(), {}, root)
    expect(conn.server).toBe(`https://127.0.0.1:${server.port}`)
    expect(conn.namespace).toBe('kube-system')
    expect(conn.inCluster).toBe(true)
    const ns = await new ApiClient(conn).request<{metadata: {name: string}}>({
      method: 'GET',
      path: '/api/v1/namespaces/kube-system',
    })
    expect(ns.metadata.name).toBe('kube-system')
    expect(server.requests.at(-1)?.authorization).toBe('Bearer sa-token-123')
  })
})
