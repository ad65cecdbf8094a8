// --kube-version through the built CLI: the ReplicaSet name of a Deployment with no ReplicaSets is
// the one kube-controller-manager of that minor computes (the golden vectors of
// test/fixtures/pod-template-hash), with files and against the test API server's /version.

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {loadWorldFromText} from '../../src/cluster/load/from-text.js'
import type {SyncResult} from '../../src/pass/result.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cli, cliAsync, ROOT, tempFiles} from './helpers.js'

const EXAMPLE = join(ROOT, 'examples/new-deployment.yaml')
const VECTOR = 'examples/new-deployment.yaml Deployment demo/web'
const NOW = '2026-11-29T10:00:01Z'

/** The name each minor's vectors give the example's template (1.37 uses 1.36's). */
function vectorHash(minor: number): string {
  const file = minor >= 36 ? 'vectors.json' : `vectors-v1.${minor}.json`
  const data = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/pod-template-hash', file), 'utf8')) as {
    vectors: Array<{name: string; hash: string}>
  }
  const v = data.vectors.find((x) => x.name === VECTOR)
  if (!v) throw new Error(`${file}: no vector ${VECTOR}`)
  return v.hash
}

const createdReplicaSet = (r: SyncResult) =>
  r.items[0]?.actions.find((a) => a.verb === 'create' && a.resource === 'replicasets')?.name

describe('--kube-version with files', () => {
  for (const minor of [33, 34, 35, 36, 37]) {
    it(`1.${minor}: the new ReplicaSet is named as kube-controller-manager 1.${minor} names it`, () => {
      const r = cli([
        'dry-run',
        'sync',
        '-f',
        EXAMPLE,
        '-n',
        'demo',
        '--now',
        NOW,
        '--kube-version',
        `1.${minor}`,
        '-o',
        'json',
      ])
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      const result = JSON.parse(r.stdout) as SyncResult
      expect(result.kubernetesVersion).toBe(`v1.${minor}`)
      expect(createdReplicaSet(result)).toBe(`web-${vectorHash(minor)}`)
    })
  }

  it('1.33, 1.34, 1.35 and 1.36 give four names; 1.37 gives 1.36’s', () => {
    const names = [33, 34, 35, 36, 37].map((m) => vectorHash(m))
    expect(new Set(names.slice(0, 4)).size).toBe(4)
    expect(names[4]).toBe(names[3])
  })

  it('without the flag, the newest supported minor; the text says which', () => {
    const json = cli(['dry-run', 'sync', '-f', EXAMPLE, '-n', 'demo', '--now', NOW, '-o', 'json'])
    expect((JSON.parse(json.stdout) as SyncResult).kubernetesVersion).toBe('v1.37')
    const text = cli(['explain', 'web', '-f', EXAMPLE, '-n', 'demo', '--now', NOW, '--kube-version', '1.34'])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain('The next pass (v1.34), check by check')
    expect(text.stdout).toContain(`web-${vectorHash(34)}`)
  })

  it('plan and rollout watch -f say the minor they acted as: one line of text, a JSON field', () => {
    const planArgs = [
      'plan',
      '-f',
      join(ROOT, 'examples/plan/web-image.yaml'),
      '--current',
      join(ROOT, 'examples/steady.yaml'),
    ]
    const plan = cli([...planArgs, '--now', NOW, '--kube-version', '1.35'])
    expect(plan.code).toBe(0)
    expect(plan.stdout.split('\n').filter((l) => l.includes('v1.35'))).toEqual([
      expect.stringMatching(/^Steps \(simulated as kube-controller-manager v1\.35; /),
    ])
    const planJson = JSON.parse(
      cli([...planArgs, '--now', NOW, '--kube-version', '1.35', '-o', 'json']).stdout,
    ) as {
      kubernetesVersion: string
    }
    expect(planJson.kubernetesVersion).toBe('v1.35')
    const watchArgs = [
      'rollout',
      'watch',
      'web',
      '-f',
      join(ROOT, 'examples/rolling-update.yaml'),
      '-n',
      'demo',
      '--kube-version',
      '1.34',
    ]
    const watch = cli(watchArgs)
    expect(watch.stdout.split('\n').filter((l) => l.includes('v1.34'))).toEqual([
      expect.stringMatching(/ summary: took .*, as kube-controller-manager v1\.34$/),
    ])
    const summary = cli([...watchArgs, '-o', 'json'])
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {kind: string; kubernetesVersion?: string})
      .find((o) => o.kind === 'Summary')
    expect(summary?.kubernetesVersion).toBe('v1.34')
  })

  it('the terminatingReplicas gate follows the minor: off on 1.33 and 1.34, on from 1.35, --feature-gates overrides', () => {
    const gates = (...args: string[]) =>
      (
        JSON.parse(
          cli(['dry-run', 'sync', '-f', EXAMPLE, '-n', 'demo', '--now', NOW, '-o', 'json', ...args]).stdout,
        ) as SyncResult
      ).featureGates.DeploymentReplicaSetTerminatingReplicas
    expect(gates('--kube-version', '1.33')).toBe(false)
    expect(gates('--kube-version', '1.34')).toBe(false)
    expect(gates('--kube-version', '1.35')).toBe(true)
    expect(gates('--kube-version', '1.37')).toBe(true)
    expect(
      gates('--kube-version', '1.33', '--feature-gates', 'DeploymentReplicaSetTerminatingReplicas=true'),
    ).toBe(true)
  })

  it('outside 1.33-1.37: a warning naming the nearest supported minor; not MAJOR.MINOR: a usage error', () => {
    const old = cli([
      'dry-run',
      'sync',
      '-f',
      EXAMPLE,
      '-n',
      'demo',
      '--now',
      NOW,
      '--kube-version',
      '1.29',
      '-o',
      'json',
    ])
    expect(old.code).toBe(0)
    expect(old.stderr).toBe(
      'warning: --kube-version is 1.29, outside the supported 1.33-1.37; acting as kube-controller-manager 1.33, the nearest supported minor\n',
    )
    expect(createdReplicaSet(JSON.parse(old.stdout) as SyncResult)).toBe(`web-${vectorHash(33)}`)
    const bad = cli(['dry-run', 'sync', '-f', EXAMPLE, '-n', 'demo', '--kube-version', 'latest'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe('error: --kube-version: expected MAJOR.MINOR (for example 1.35), got "latest"\n')
  })
})

describe('--kube-version against a cluster', () => {
  let server: ApiServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  const deployment = () =>
    loadWorldFromText(readFileSync(EXAMPLE, 'utf8'), EXAMPLE).deployments.find(
      (d) => d.metadata.name === 'web',
    )

  for (const [serverVersion, minor] of [
    ['1.33', 33],
    ['v1.35.2', 35],
    ['v1.36.3', 36],
  ] as const) {
    it(`a ${serverVersion} server: the name follows its /version`, async () => {
      server = await startApiServer({objects: [deployment()], kubeVersion: serverVersion})
      const env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
      const r = await cliAsync(['dry-run', 'sync', 'web', '-n', 'demo', '--now', NOW, '-o', 'json'], {env})
      expect(r.stderr).toBe('')
      const result = JSON.parse(r.stdout) as SyncResult
      expect(result.kubernetesVersion).toBe(`v1.${minor}`)
      expect(createdReplicaSet(result)).toBe(`web-${vectorHash(minor)}`)
      const version = await cliAsync(['version'], {env})
      expect(version.stdout).toContain(`Deployment controller: Kubernetes v1.${minor}\n`)
    })
  }

  it('run reads the server’s minor at start, says it, and creates the ReplicaSet under that minor’s name', async () => {
    server = await startApiServer({objects: [deployment()], kubeVersion: 'v1.34.3'})
    const env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
    const r = await cliAsync(['run', '-n', 'demo', '--once-synced'], {env, killAfterMs: 60_000})
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/"Kubernetes version" version="v1\.34" from="the server's \/version v1\.34\.3"/)
    const names = (server.store.list('replicasets', 'demo') as Array<{metadata: {name: string}}>).map(
      (rs) => rs.metadata.name,
    )
    expect(names).toEqual([`web-${vectorHash(34)}`])
  })

  it('a 1.33 server drops an image volume on create; the live name is the file-mode 1.33 name of the manifest', async () => {
    server = await startApiServer({kubeVersion: '1.33'})
    const env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
    const manifest = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {name: 'tools', namespace: 'default'},
      spec: {
        replicas: 1,
        selector: {matchLabels: {app: 'tools'}},
        template: {
          metadata: {labels: {app: 'tools'}},
          spec: {
            containers: [
              {name: 'app', image: 'busybox:1.36', volumeMounts: [{name: 'data', mountPath: '/data'}]},
            ],
            volumes: [
              {name: 'data', image: {reference: 'quay.io/crio/artifact:v2', pullPolicy: 'IfNotPresent'}},
            ],
          },
        },
      },
    }
    const created = await fetch(`${server.url}/apis/apps/v1/namespaces/default/deployments`, {
      method: 'POST',
      headers: {Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json'},
      body: JSON.stringify(manifest),
    })
    expect(created.status).toBe(201)
    const stored = (await created.json()) as {spec: {template: {spec: {volumes?: unknown[]}}}}
    expect(stored.spec.template.spec.volumes ?? []).toEqual([])
    const live = await cliAsync(['dry-run', 'sync', 'tools', '--now', NOW, '-o', 'json'], {env})
    expect(live.stderr).toBe('')
    const files = tempFiles({'tools.json': JSON.stringify(manifest)})
    const fromFile = cli([
      'dry-run',
      'sync',
      '-f',
      join(files, 'tools.json'),
      '--now',
      NOW,
      '-o',
      'json',
      '--kube-version',
      '1.33',
    ])
    expect(createdReplicaSet(JSON.parse(live.stdout) as SyncResult)).toBe(
      createdReplicaSet(JSON.parse(fromFile.stdout) as SyncResult),
    )
  })

  it('the rollout gate acts as the server’s minor: its gate defaults and its summary’s version', async () => {
    const steady = join(ROOT, 'examples/steady.yaml')
    const world = loadWorldFromText(readFileSync(steady, 'utf8'), steady)
    server = await startApiServer({
      objects: [...world.deployments, ...world.replicaSets, ...world.pods],
      kubeVersion: 'v1.34.3',
    })
    const env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
    const gate = async (...extra: string[]) => {
      const r = await cliAsync(['rollout', 'watch', '-A', '-o', 'json', ...extra], {env})
      expect(r.code, r.stderr).toBe(0)
      return JSON.parse(r.stdout.trimEnd().split('\n').at(-1) ?? '') as {
        kind: string
        kubernetesVersion: string
        featureGates: Record<string, boolean>
      }
    }
    const summary = await gate()
    expect(summary.kind).toBe('RolloutGateResult')
    expect(summary.kubernetesVersion).toBe('v1.34')
    expect(summary.featureGates.DeploymentReplicaSetTerminatingReplicas).toBe(false)
    const chosen = await gate('--kube-version', '1.36')
    expect(chosen.kubernetesVersion).toBe('v1.36')
    expect(chosen.featureGates.DeploymentReplicaSetTerminatingReplicas).toBe(true)
  })

  it('--kube-version overrides the server’s; a server outside 1.33-1.37 is warned about', async () => {
    server = await startApiServer({objects: [deployment()], kubeVersion: 'v1.31.4-gke.100'})
    const env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
    const warned = await cliAsync(['dry-run', 'sync', 'web', '-n', 'demo', '--now', NOW, '-o', 'json'], {env})
    expect(warned.stderr).toBe(
      "warning: the server's /version (v1.31.4-gke.100) is 1.31, outside the supported 1.33-1.37; acting as kube-controller-manager 1.33, the nearest supported minor\n",
    )
    expect(createdReplicaSet(JSON.parse(warned.stdout) as SyncResult)).toBe(`web-${vectorHash(33)}`)
    const chosen = await cliAsync(
      ['dry-run', 'sync', 'web', '-n', 'demo', '--now', NOW, '-o', 'json', '--kube-version', '1.35'],
      {env},
    )
    expect(chosen.stderr).toBe('')
    expect(createdReplicaSet(JSON.parse(chosen.stdout) as SyncResult)).toBe(`web-${vectorHash(35)}`)
  })
})

describe('an image volume under each minor (file mode)', () => {
  const manifest = (volumes: boolean) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: tools, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: tools}}
  template:
    metadata: {labels: {app: tools}}
    spec:
      containers:
      - name: app
        image: busybox:1.36
${volumes ? '        volumeMounts: [{name: data, mountPath: /data}]\n      volumes:\n      - name: data\n        image: {reference: "quay.io/crio/artifact:v2", pullPolicy: IfNotPresent}\n' : ''}`
  const files = tempFiles({'with.yaml': manifest(true), 'without.yaml': manifest(false)})
  const sync = (file: string, ...args: string[]) => {
    const r = cli(['dry-run', 'sync', '-f', join(files, file), '--now', NOW, '-o', 'json', ...args])
    return {...r, name: r.code === 0 ? createdReplicaSet(JSON.parse(r.stdout) as SyncResult) : undefined}
  }

  it('1.33 (ImageVolume off): the volume and its mount are dropped, with a warning, as its API server drops them', () => {
    const r = sync('with.yaml', '--kube-version', '1.33')
    expect(r.code).toBe(0)
    expect(r.stderr).toBe(
      `warning: ${join(files, 'with.yaml')}:15: Deployment default/tools: spec.template.spec.volumes[0]: dropped, as an API server 1.33 does while the ImageVolume feature gate is off (--feature-gates ImageVolume=true keeps it)\n` +
        `warning: ${join(files, 'with.yaml')}:13: Deployment default/tools: spec.template.spec.containers[0].volumeMounts[0]: dropped, as an API server 1.33 does while the ImageVolume feature gate is off (--feature-gates ImageVolume=true keeps it)\n`,
    )
    // The template hashed is the one without them: the same name as a manifest that never had them.
    expect(r.name).toBe(sync('without.yaml', '--kube-version', '1.33').name)
  })

  it('1.36 (ImageVolume on by default from 1.35): accepted and hashed with the volume', () => {
    const r = sync('with.yaml', '--kube-version', '1.36')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.name).not.toBe(sync('without.yaml', '--kube-version', '1.36').name)
  })

  it('1.33 with --feature-gates ImageVolume=true keeps it', () => {
    const r = sync('with.yaml', '--kube-version', '1.33', '--feature-gates', 'ImageVolume=true')
    expect(r.stderr).toBe('')
    expect(r.name).not.toBe(sync('without.yaml', '--kube-version', '1.33').name)
  })
})

describe('a field a minor does not know, or knows behind a gate that is off (file mode)', () => {
  const files = tempFiles({
    'host.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: host, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: host}}
  template:
    metadata: {labels: {app: host}}
    spec:
      hostnameOverride: my-host
      containers: [{name: app, image: busybox:1.36}]
`,
  })
  const file = join(files, 'host.yaml')
  const sync = (...args: string[]) =>
    cli(['dry-run', 'sync', '-f', file, '--now', NOW, '-o', 'name', ...args])

  it('1.33 has no PodSpec.hostnameOverride: strict decoding refuses it, as its API server does', () => {
    const r = sync('--kube-version', '1.33')
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      `error: ${file}:10: Deployment default/host: unknown field "spec.template.spec.hostnameOverride"\n`,
    )
    const warned = sync('--kube-version', '1.33', '--validate=warn')
    expect(warned.code).toBe(0)
    expect(warned.stderr).toBe(
      `warning: ${file}:10: Deployment default/host: unknown field "spec.template.spec.hostnameOverride"\n`,
    )
  })

  it('1.34 knows it behind HostnameOverride (alpha, off): dropped; 1.35 (beta, on): kept', () => {
    const r = sync('--kube-version', '1.34')
    expect(r.code).toBe(0)
    expect(r.stderr).toBe(
      `warning: ${file}:10: Deployment default/host: spec.template.spec.hostnameOverride: dropped, as an API server 1.34 does while the HostnameOverride feature gate is off (--feature-gates HostnameOverride=true keeps it)\n`,
    )
    expect(sync('--kube-version', '1.35').stderr).toBe('')
  })

  it('without --kube-version a field of a newer release is not refused (a newer cluster’s snapshot still loads)', () => {
    const newer = tempFiles({
      'next.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: next, namespace: default}
spec:
  selector: {matchLabels: {app: next}}
  template:
    metadata: {labels: {app: next}}
    spec:
      fieldOfTheNextRelease: true
      containers: [{name: app, image: busybox:1.36}]
`,
    })
    const r = cli(['dry-run', 'sync', '-f', join(newer, 'next.yaml'), '--now', NOW, '-o', 'name'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
  })
})

describe("a recording's serverVersion is the default minor for explain, dry-run sync and --replay", () => {
  const ROLLOUT = readFileSync(join(ROOT, 'test/fixtures/timeline/rollout.ndjson'), 'utf8')
  const recordedAs = (serverVersion: string) => {
    const dir = tempFiles({
      'r.ndjson': ROLLOUT.replace(
        '"serverVersion":"v1.36.3"',
        `"serverVersion":${JSON.stringify(serverVersion)}`,
      ),
    })
    return join(dir, 'r.ndjson')
  }

  it('a 1.34 recording is acted on as 1.34 (its ReplicaSet name then differs from the recorded one); --kube-version overrides', () => {
    const file = recordedAs('v1.34.2')
    const json = cli(['dry-run', 'sync', 'web', '-f', file, '-o', 'json'])
    expect(json.code).toBe(0)
    expect((JSON.parse(json.stdout) as {kubernetesVersion: string}).kubernetesVersion).toBe('v1.34')
    const explained = cli(['explain', 'web', '-f', file, '--at', '+5s'])
    expect(explained.stdout).toContain('The next pass (v1.34), check by check')
    // The recording's names are a 1.36 controller's: replayed as 1.34 the port names the new
    // ReplicaSet otherwise, and says so; as 1.36 it agrees.
    const as34 = cli(['rollout', 'watch', 'web', '-f', file, '--replay', '--line-mode'])
    expect(as34.stdout).toContain('replay: 1 divergence')
    expect(as34.stdout).toContain(
      'divergence ExtraWrite: the deployment controller created replicaset web-795767664d',
    )
    const as36 = cli([
      'rollout',
      'watch',
      'web',
      '-f',
      file,
      '--replay',
      '--line-mode',
      '--kube-version',
      '1.36',
    ])
    expect(as36.stdout).toContain('replay: no divergence')
    const flagged = cli(['dry-run', 'sync', 'web', '-f', file, '-o', 'json', '--kube-version', '1.35'])
    expect((JSON.parse(flagged.stdout) as {kubernetesVersion: string}).kubernetesVersion).toBe('v1.35')
  })

  it('a recording of a server outside 1.33-1.37 is acted on as the nearest minor, with the warning; a version that is none is warned about', () => {
    const old = cli(['dry-run', 'sync', 'web', '-f', recordedAs('v1.31.4-gke.100'), '-o', 'json'])
    expect(old.code).toBe(0)
    expect(old.stderr).toContain(
      "warning: the recording's serverVersion (v1.31.4-gke.100) is 1.31, outside the supported 1.33-1.37; acting as kube-controller-manager 1.33, the nearest supported minor",
    )
    expect((JSON.parse(old.stdout) as {kubernetesVersion: string}).kubernetesVersion).toBe('v1.33')
    const junk = cli(['dry-run', 'sync', 'web', '-f', recordedAs('banana'), '-o', 'json'])
    expect(junk.code).toBe(0)
    expect(junk.stderr).toContain(
      `warning: the recording's serverVersion "banana" is not a Kubernetes version; acting as Kubernetes 1.37 (--kube-version to choose)`,
    )
    expect((JSON.parse(junk.stdout) as {kubernetesVersion: string}).kubernetesVersion).toBe('v1.37')
  })
})

describe('gate defaults that changed in 1.37 (file mode)', () => {
  it('a projected clusterTrustBundle is dropped as a 1.36 API server drops it, and kept under 1.37 (GA, on)', () => {
    const dir = tempFiles({
      'ctb.yaml': [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: web, namespace: demo}',
        'spec:',
        '  replicas: 1',
        '  selector: {matchLabels: {app: web}}',
        '  template:',
        '    metadata: {labels: {app: web}}',
        '    spec:',
        '      containers:',
        '      - {name: app, image: nginx:1.27, volumeMounts: [{name: trust, mountPath: /trust}]}',
        '      volumes:',
        '      - name: trust',
        '        projected:',
        '          sources:',
        '          - clusterTrustBundle: {signerName: example.com/signer, labelSelector: {}, path: bundle.pem}',
        '',
      ].join('\n'),
    })
    const file = join(dir, 'ctb.yaml')
    const as36 = cli(['dry-run', 'sync', '-f', file, '--kube-version', '1.36', '-o', 'name'])
    expect(as36.code).toBe(0)
    expect(as36.stderr).toBe(
      `warning: ${file}:16: Deployment demo/web: spec.template.spec.volumes[0].projected.sources[0].clusterTrustBundle: dropped, as an API server 1.36 does while the ClusterTrustBundleProjection feature gate is off (--feature-gates ClusterTrustBundleProjection=true keeps it)\n`,
    )
    const as37 = cli(['dry-run', 'sync', '-f', file, '--kube-version', '1.37', '-o', 'name'])
    expect(as37.code).toBe(0)
    expect(as37.stderr).toBe('')
  })

  it('a gate locked to its default in the minor cannot be turned off: exit 2, one line', () => {
    const r = cli([
      'dry-run',
      'sync',
      '-f',
      EXAMPLE,
      '-n',
      'demo',
      '--kube-version',
      '1.36',
      '--feature-gates',
      'ImageVolume=false',
    ])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('error: cannot set feature gate ImageVolume to false, feature is locked to true\n')
  })
})
