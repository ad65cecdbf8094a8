// Inputs and flags kubectl accepts, through the built CLI: what a kubectl user feeds in must not be
// refused (or read differently) here.

import {spawnSync} from 'node:child_process'
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {BIN, cli, deploymentYaml, tempFiles} from './helpers.js'

const NOW = ['--now', '2026-11-29T10:00:00Z']
const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, {recursive: true, force: true})
})

describe('YAML plain scalars as kubectl reads them', () => {
  // go-yaml v2 (kubectl's reader) resolves a float only with a digit in its mantissa: `.`, `-.`,
  // `._` and `e5` stay strings, where YAML 1.1's float forms would make them NaN.
  it.each(['.', '-.', '._', 'e5', 'E1'])('`- %s` in args is the string kubectl reads', (arg) => {
    const dir = tempFiles({
      'd.yaml': `${deploymentYaml('web')}        args:\n        - ls\n        - ${arg}\n`,
    })
    dirs.push(dir)
    const r = cli(['dry-run', 'sync', '-f', join(dir, 'd.yaml'), ...NOW, '-o', 'json'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const created = JSON.parse(r.stdout).items[0].actions[0].object
    expect(created.spec.template.spec.containers[0].args).toEqual(['ls', arg])
  })

  // kubectl parses integers with Go's strconv.ParseInt(s, 0, 64): its prefixes are numbers too.
  it.each([
    ['0o3', 3],
    ['0O3', 3],
    ['0o_3', 3],
    ['0X3', 3],
    ['0B11', 3],
  ])('replicas: %s is %d, as kubectl reads it', (text, n) => {
    const yaml = deploymentYaml('web').replace('replicas: 2', `replicas: ${text}`)
    const dir = tempFiles({'d.yaml': yaml})
    dirs.push(dir)
    const r = cli(['dry-run', 'sync', '-f', join(dir, 'd.yaml'), ...NOW, '-o', 'json'])
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout).items[0].actions[0].object.spec.replicas).toBe(n)
  })

  it('`0o` alone stays a string, refused where an integer belongs', () => {
    const dir = tempFiles({'d.yaml': deploymentYaml('web').replace('replicas: 2', 'replicas: 0o')})
    dirs.push(dir)
    const r = cli(['dry-run', 'sync', '-f', join(dir, 'd.yaml'), ...NOW])
    expect(r.stderr).toContain('spec.replicas: Invalid value: "0o": expected an integer')
    expect(r.code).toBe(1)
  })

  it('`.5` stays a number, as kubectl reads it', () => {
    const dir = tempFiles({'d.yaml': `${deploymentYaml('web')}        args:\n        - .5\n`})
    dirs.push(dir)
    const r = cli(['dry-run', 'sync', '-f', join(dir, 'd.yaml'), ...NOW])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Invalid value: 0.5: expected a string')
  })
})

describe('-o name as kubectl prints it', () => {
  it('explain --summary -o name names each Deployment, as explain -o name does', () => {
    const args = ['explain', '-f', 'examples/multi.yaml', '-A', ...NOW]
    const summary = cli([...args, '--summary', '-o', 'name'])
    expect(summary.stderr).toBe('')
    expect(summary.code).toBe(0)
    expect(summary.stdout).toBe(cli([...args, '-o', 'name']).stdout)
    expect(summary.stdout).toMatch(/^deployment\.apps\/api\n/)
  })
})

describe('list flags take one value each, as kubectl’s', () => {
  // kubectl's -f, --current-like flags and --as-group are string slices: one value per flag
  // (or comma-separated); a word after the value is an argument, as `plan -f PROPOSED... [NAME...]`
  // and `explain [NAME...] -f FILE...` say.
  it('a Deployment NAME after -f FILE is a NAME, not a file', () => {
    const r = cli(['explain', '-f', 'examples/stuck-image-pull.yaml', 'api', '-n', 'demo', ...NOW])
    expect(r.stderr).toBe('')
    expect(r.stdout).toMatch(/^deployment demo\/api\n/)
    const plan = cli([
      'plan',
      '-f',
      'examples/plan/web-image.yaml',
      'web',
      '--current',
      'examples/steady.yaml',
      '-n',
      'demo',
    ])
    expect(plan.stderr).toBe('')
    expect(plan.stdout).toMatch(/^deployment\.apps\/web: ROLLOUT/)
  })

  it('several files: -f A -f B or -f A,B', () => {
    const files = ['examples/stuck-image-pull.yaml', 'examples/steady.yaml']
    const args = ['explain', '--summary', '-A', '-o', 'name', ...NOW]
    const repeated = cli([...args, '-f', files[0], '-f', files[1]])
    expect(repeated.stdout).toBe('deployment.apps/api\ndeployment.apps/web\n')
    expect(cli([...args, '-f', files.join(',')]).stdout).toBe(repeated.stdout)
  })
})

describe('a relative --now on files without timestamps', () => {
  it('is relative to the current time, as docs/inputs.md says, not to the synthetic creation time', () => {
    const yaml = deploymentYaml('web').replace(/ {2}creationTimestamp: .*\n/, '')
    const dir = tempFiles({'d.yaml': yaml})
    dirs.push(dir)
    const r = cli(['explain', '-f', join(dir, 'd.yaml'), '--now', '+10m', '--summary'])
    expect(r.stderr).toMatch(
      /^note: --now \+10m is \S+, 10m after the current time \(the files carry no timestamp\)/,
    )
    expect(r.stderr).not.toContain('2024-01-01')
    expect(r.code).toBe(0)
  })
})

describe('-f with a URL, which kubectl reads', () => {
  it('says that -f reads files and stdin, not that the path is missing', () => {
    const r = cli(['explain', '-f', 'https://example.invalid/deploy.yaml', '-A'])
    expect(r.stderr).toBe(
      'error: the path "https://example.invalid/deploy.yaml" does not exist: -f reads files and stdin, not URLs (curl -fsSL URL | kubectl deployctl ... -f -)\n',
    )
    expect(r.code).toBe(1)
  })
})

describe('an autoscaler that has not acted yet', () => {
  it('shows what it has not measured as <unknown>, as kubectl get hpa does', () => {
    const hpa = `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: demo}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
`
    const dir = tempFiles({'hpa.yaml': hpa})
    dirs.push(dir)
    const r = cli([
      'explain',
      'web',
      '-n',
      'demo',
      '-f',
      'examples/steady.yaml',
      '-f',
      join(dir, 'hpa.yaml'),
      ...NOW,
    ])
    expect(r.code).toBe(0)
    const text = r.stdout.replace(/\s+/g, ' ')
    expect(text).toContain(
      'HorizontalPodAutoscaler web owns spec.replicas (3): min 2, max 10, current <unknown>, desired <unknown>; cpu <unknown> of requests (target 70%).',
    )
  })
})

describe('a UTF-16 file, as PowerShell 5 redirects write them', () => {
  it('is read as kubectl reads it (by its byte order mark), from a file and from stdin', () => {
    const yaml = deploymentYaml('web')
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(yaml, 'utf16le')])
    const be = Buffer.from(le.toString('latin1'), 'latin1').swap16()
    const dir = tempFiles({})
    dirs.push(dir)
    writeFileSync(join(dir, 'le.yaml'), le)
    writeFileSync(join(dir, 'be.yaml'), be)
    for (const f of ['le.yaml', 'be.yaml']) {
      const r = cli(['dry-run', 'sync', '-f', join(dir, f), ...NOW, '-o', 'name'])
      expect(r.stderr).toBe('')
      expect(r.stdout).toBe('deployment.apps/web\n')
    }
    const piped = spawnSync(process.execPath, [BIN, 'dry-run', 'sync', '-f', '-', ...NOW, '-o', 'name'], {
      input: le,
      env: {...process.env, NO_COLOR: '1', NODE_ENV: 'production'},
    })
    expect(piped.stdout.toString()).toBe('deployment.apps/web\n')
  })
})

describe('help of -n and -A', () => {
  it('explain does not say it syncs; -n names the live default', () => {
    const help = cli(['explain', '--help']).stdout.replace(/\s+/g, ' ')
    expect(help).not.toMatch(/to sync|Sync the Deployments/)
    expect(help).toContain(`Namespace of the Deployments (default: the kubeconfig context's namespace`)
  })
})

describe('names of which only some exist, as kubectl get deploy a b answers', () => {
  const file = 'examples/rolling-update.yaml'
  const at = ['--now', '2026-11-29T10:00:10Z']

  it('the found ones are processed and printed, then one error per missing name; exit 1 (2 with --exit-code)', () => {
    const r = cli(['dry-run', 'sync', 'web', 'nope', '-f', file, '-n', 'demo', ...at, '-o', 'name'])
    expect(r.stdout).toBe('deployment.apps/web\n')
    expect(r.stderr).toBe('error: deployments.apps "nope" not found\n')
    expect(r.code).toBe(1)
    const gate = cli(['dry-run', 'sync', 'web', 'nope', '-f', file, '-n', 'demo', ...at, '--exit-code'])
    expect(gate.stderr).toBe('error: deployments.apps "nope" not found\n')
    expect(gate.code).toBe(2)
  })

  it('explain explains the found one; -o json holds only it', () => {
    const r = cli(['explain', 'nope', 'web', '-f', file, '-n', 'demo', ...at, '-o', 'json'])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).items.map((i: {deployment: {name: string}}) => i.deployment.name)).toEqual([
      'web',
    ])
    expect(r.stderr).toBe('error: deployments.apps "nope" not found\n')
  })

  it('a name in another namespace keeps its hint; when every name is missing it is the one error', () => {
    const r = cli([
      'dry-run',
      'sync',
      'web',
      'api',
      '-f',
      file,
      '-f',
      'examples/stuck-image-pull.yaml',
      '-n',
      'default',
      ...at,
    ])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error: deployments\.apps "web" not found\nThe files hold .*-n demo\./m)
    const none = cli(['dry-run', 'sync', 'nope', 'neither', '-f', file, '-n', 'demo', ...at])
    expect(none.stdout).toBe('')
    expect(none.stderr).toBe('error: deployments.apps "nope" not found\n')
    expect(none.code).toBe(1)
  })
})
