// Issue 25, item 8, through the built binary: `version` as kubectl version, `completion` without a
// shell as kubectl words it, PowerShell completion, completion of --fail-on values, shells and
// pod/ and rs/ names, --dry-run=client, and help that says what the commands do.

import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {deployment, pod, replicaSet} from '../objects.js'
import {SchemaSet} from '../schema.js'
import {cli, cliAsync, ROOT, tempFiles} from './helpers.js'

const OFFLINE = {KUBECONFIG: '/nonexistent/kubeconfig', HOME: '/nonexistent'}
const NOW = ['--now', '2026-11-29T10:00:00Z']

let server: ApiServer
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  const d = deployment({name: 'web', namespace: 'default', defaulted: true})
  const rs = replicaSet({name: 'web-5d4f8b9c7d', owner: d})
  server = await startApiServer({objects: [d, rs, pod({name: 'web-5d4f8b9c7d-abcde', owner: rs})]})
  env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
})

afterAll(async () => {
  await server?.close()
})

/** `__complete` candidates (the values, without descriptions) and the directive. */
function completion(words: string[], e: NodeJS.ProcessEnv = OFFLINE): {values: string[]; directive: string} {
  const r = cli(['__complete', ...words], {env: e})
  expect(r.code).toBe(0)
  const lines = r.stdout.trimEnd().split('\n')
  return {values: lines.slice(0, -1).map((l) => l.split('\t')[0] ?? ''), directive: lines.at(-1) ?? ''}
}

describe('version', () => {
  it('-o json: clientVersion as kubectl version prints it, and the server when one answers', async () => {
    const client = cli(['version', '--client', '-o', 'json'], {env})
    expect(client.stderr).toBe('')
    expect(client.code).toBe(0)
    const doc = JSON.parse(client.stdout)
    expect(Object.keys(doc)).toEqual(['clientVersion'])
    expect(doc.clientVersion).toMatchObject({
      major: '0',
      minor: '1',
      gitVersion: 'v0.1.0',
    })
    // The Kubernetes line of the controller it ports (the default of --kube-version).
    expect(doc.clientVersion.kubernetesVersion).toMatch(/^v1\.\d+$/)
    expect(doc.clientVersion.platform).toMatch(/^[a-z0-9]+\/[a-z0-9]+$/)
    const both = await cliAsync(['version', '-o', 'json'], {env})
    expect(both.code).toBe(0)
    // The test API server's own GET /version, as it is.
    const served = JSON.parse(both.stdout).serverVersion
    expect(served.major).toBe('1')
    expect(served.gitVersion).toMatch(/^v1\.\d+\.\d+/)
    // Its schema (docs/schemas/version.json), for both documents.
    const schemas = new SchemaSet(join(ROOT, 'docs/schemas'))
    expect(schemas.validate('version.json', doc)).toEqual([])
    expect(schemas.validate('version.json', JSON.parse(both.stdout))).toEqual([])
    const yaml = await cliAsync(['version', '-o', 'yaml'], {env})
    expect(parseYaml(yaml.stdout)).toEqual(JSON.parse(both.stdout))
    const text = await cliAsync(['version'], {env})
    expect(text.stdout).toMatch(
      /^Client Version: v0\.1\.0\nDeployment controller: Kubernetes v1\.\d+\nServer Version: v1\.\d+\.\d+\S*\n$/,
    )
  })

  it('a configured cluster that does not answer: the client, then the error as kubectl prints it', () => {
    const dir = tempFiles({
      kubeconfig: `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
    })
    try {
      const e = {KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir}
      const r = cli(['version'], {env: e})
      expect(r.stdout).toMatch(/^Client Version: v0\.1\.0\n/)
      expect(r.stderr).toBe(
        'The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n',
      )
      expect(r.code).toBe(1)
      // --client asks nothing.
      expect(cli(['version', '--client'], {env: e}).code).toBe(0)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('without a kubeconfig: the client alone; a bad -o is an error', () => {
    const r = cli(['version'], {env: OFFLINE})
    expect(r.stdout).toMatch(/^Client Version: v0\.1\.0\nDeployment controller: Kubernetes v1\.\d+\n$/)
    expect(r.code).toBe(0)
    const bad = cli(['version', '-o', 'wide'], {env: OFFLINE})
    expect(bad.stderr).toBe("error: --output must be 'yaml' or 'json'\n")
    expect(bad.code).toBe(2)
  })
})

describe('completion', () => {
  it("without a shell, with two, or with an unknown one: kubectl's messages, exit 1", () => {
    const none = cli(['completion'])
    expect(none.stderr).toBe(
      "error: Shell not specified.\nSee 'kubectl deployctl completion -h' for help and examples\n",
    )
    expect(none.code).toBe(1)
    expect(cli(['completion', 'bash', 'zsh']).stderr).toMatch(
      /^error: Too many arguments\. Expected only the shell type\.\n/,
    )
    expect(cli(['completion', 'tcsh']).stderr).toMatch(/^error: Unsupported shell type "tcsh"\.\n/)
  })

  it('powershell: a native argument completer that asks __complete and honours the directive', () => {
    const r = cli(['completion', 'powershell'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(
      "Register-ArgumentCompleter -Native -CommandName 'kubectl-deployctl', 'kubectl-deployctl.exe'",
    )
    expect(r.stdout).toContain('& $Program __complete @Words')
    // The directive's bits: error, no space, no file completion, keep order.
    for (const bit of ['-band 1', '-band 2', '-band 4', '-band 32']) expect(r.stdout).toContain(bit)
    expect(r.stdout).toContain('[System.Management.Automation.CompletionResult]::new(')
    expect(r.stdout).not.toContain('${')
  })

  it('completes the shells of completion, and --fail-on values one after the other', () => {
    expect(completion(['completion', ''])).toEqual({
      values: ['bash', 'zsh', 'fish', 'powershell'],
      directive: ':4',
    })
    expect(completion(['completion', 'p']).values).toEqual(['powershell'])
    expect(completion(['explain', '--fail-on', '']).values).toEqual([
      'stuck',
      'deadline',
      'incomplete',
      'invalid',
    ])
    expect(completion(['explain', '--fail-on', 'stuck,']).values).toEqual([
      'stuck,deadline',
      'stuck,incomplete',
      'stuck,invalid',
    ])
    expect(completion(['explain', '--fail-on=stuck,d']).values).toEqual(['--fail-on=stuck,deadline'])
  })

  it('completes pod/ and rs/ names for explain from the cluster', async () => {
    // Not spawnSync: the server answers from this process.
    const values = async (words: string[]) => {
      const r = await cliAsync(['__complete', ...words], {env})
      return r.stdout.trimEnd().split('\n').slice(0, -1)
    }
    expect(await values(['explain', 'pod/'])).toEqual(['pod/web-5d4f8b9c7d-abcde'])
    expect(await values(['explain', 'rs/'])).toEqual(['rs/web-5d4f8b9c7d'])
    expect(await values(['explain', 'deploy/'])).toEqual(['deploy/web'])
  })
})

describe('--dry-run=client', () => {
  it('dry-run sync takes it as what it always does', () => {
    const file = 'examples/rolling-update.yaml'
    const plain = cli(['dry-run', 'sync', '-f', file, '-n', 'demo', ...NOW])
    const client = cli(['dry-run', 'sync', '-f', file, '-n', 'demo', ...NOW, '--dry-run=client'])
    expect(client.stderr).toBe('')
    expect(client.stdout).toBe(plain.stdout)
    expect(client.code).toBe(plain.code)
  })

  it('reconcile-once --dry-run=client sends no write and prints what the pass would do', async () => {
    const before = server.writes.length
    const r = await cliAsync(['reconcile-once', '--dry-run=client', ...NOW, '-o', 'json'], {env})
    expect(r.stderr).toBe('')
    expect(server.writes.length).toBe(before)
    const same = await cliAsync(['dry-run', 'sync', ...NOW, '-o', 'json'], {env})
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(same.stdout))
  })
})

describe('help', () => {
  it('dry-run sync says it reads files or the cluster; -n names the context namespace', () => {
    const sync = cli(['dry-run', 'sync', '-h']).stdout.replace(/\s+/g, ' ')
    expect(sync).toContain('on files or the cluster')
    expect(sync).not.toMatch(/pass on files and print/)
    const watch = cli(['rollout', 'watch', '-h']).stdout.replace(/\s+/g, ' ')
    expect(watch).toMatch(/Namespace of the Deployments? \(default: the kubeconfig context's namespace/)
  })
})
