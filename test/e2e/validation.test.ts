// Validation as a cluster's (issue 29 item 5) through the real kubectl and the CLI: a Deployment
// whose template mounts a volume the pod lacks, repeats a port name and has a probe without a
// handler is refused by the test API server with the API server's 422 text, and by file mode with
// one line naming the first of those fields, exit 1.

import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cli, kubectlAsync, tempFiles} from './helpers.js'

const BAD = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        ports: [{name: http, containerPort: 80}, {name: http, containerPort: 81}]
        volumeMounts: [{name: data, mountPath: /data}]
        readinessProbe: {periodSeconds: 5}
`

describe('validation as the API server words it', () => {
  let server: ApiServer
  let dir: string
  beforeAll(async () => {
    server = await startApiServer({})
    dir = tempFiles({'bad.yaml': BAD})
  })
  afterAll(async () => {
    await server?.close()
  })

  it('kubectl create: 422 with every cause, as a cluster prints them', async () => {
    const env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
    const r = await kubectlAsync(env, 'create', '-f', join(dir, 'bad.yaml'))
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('The Deployment "web" is invalid: ')
    for (const cause of [
      'spec.template.spec.containers[0].ports[1].name: Duplicate value: "http"',
      'spec.template.spec.containers[0].volumeMounts[0].name: Not found: "data"',
      'spec.template.spec.containers[0].readinessProbe: Required value: must specify a handler type',
    ]) {
      expect(r.stderr).toContain(cause)
    }
  })

  it('file mode: one line naming file, line, object and the first field; exit 1; warn mode lists all', () => {
    const r = cli(['dry-run', 'sync', '-f', join(dir, 'bad.yaml')])
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toBe(
      `error: ${join(dir, 'bad.yaml')}:12: Deployment default/web: spec.template.spec.containers[0].ports[1].name: Duplicate value: "http"`,
    )
    expect(r.stdout).toBe('')
    const w = cli(['dry-run', 'sync', '--validate=warn', '-f', join(dir, 'bad.yaml')])
    expect(w.code).toBe(0)
    expect(w.stderr).toContain('volumeMounts[0].name: Not found: "data"')
    expect(w.stderr).toContain('readinessProbe: Required value: must specify a handler type')
  })
})
