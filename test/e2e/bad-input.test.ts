// Hostile and broken input through the built binary: each case gives exit 1 (2 for usage errors)
// and one `error: ` line naming the file, the object and the field and what was expected, without a
// stack trace. Small cases live in test/fixtures/bad/; big, binary and bomb ones are generated here
// into a temp dir. Bounded time and memory are checked by running those with a kill timeout and a
// V8 heap limit: the test fails if the process is killed or runs out of heap, not on a stopwatch.

import {closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import type {SyncResult} from '../../src/pass/result.js'
import {limiter, startCli} from './helpers.js'

const NOW = '2026-11-29T10:00:00Z'
const BAD = 'test/fixtures/bad'
const MiB = 1024 * 1024

interface Run {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

// Two shared cores: more processes at once only make each slower.
const slot = limiter(3)

/** The built CLI, with a kill timeout and optionally a V8 heap limit; stdin may be bytes. */
interface RunOptions {
  input?: string | Buffer
  /** A file descriptor to give the CLI as its stdin, instead of a pipe holding `input`. */
  stdinFd?: number
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
  heapMb?: number
}

function run(args: string[], opts: RunOptions = {}): Promise<Run> {
  return slot(() => spawnCli(args, opts))
}

function spawnCli(args: string[], opts: RunOptions = {}): Promise<Run> {
  return startCli(args, {
    input: opts.stdinFd === undefined ? (opts.input ?? '') : undefined,
    stdinFd: opts.stdinFd,
    env: opts.env,
    killAfterMs: opts.timeoutMs,
    nodeArgs: opts.heapMb ? [`--max-old-space-size=${opts.heapMb}`] : [],
  }).done
}

// One process per distinct command line: tests that look at the same run share it.
const runs = new Map<string, Promise<Run>>()
function runOnce(args: string[]): Promise<Run> {
  const key = JSON.stringify(args)
  let r = runs.get(key)
  if (!r) runs.set(key, (r = run(args)))
  return r
}

// The machine these run on is shared and loaded: a test may wait long for CPU. Bounded time is
// asserted by the kill timeouts of the runs, not by these.
const SLOW = {timeout: 300_000}
/**
 * The kill timeout of the runs that must finish in bounded time: far above what they need (a few
 * seconds), far below what expanding a bomb or parsing without limits would take. Memory is bounded
 * by the V8 heap limit each of them runs with: running out of it kills the process.
 */
const BOUND_MS = 120_000

const sync = (file: string, ...args: string[]) => ['dry-run', 'sync', '-f', file, '--now', NOW, ...args]

/** Exactly one line, `error: ` + message, and nothing that looks like a stack frame. */
function expectError(r: Run, code: number, message: string | RegExp): void {
  expect(r.signal, 'killed: not finished in bounded time').toBeNull()
  expect(r.stderr).not.toMatch(/^\s+at /m)
  expect(r.stderr.endsWith('\n')).toBe(true)
  // -v 1 and more log every flag first (FLAG: lines, klog's format): logs, not the error.
  const lines = r.stderr
    .slice(0, -1)
    .split('\n')
    .filter((l) => !/^[IWE]\d{4} \S+ FLAG: /.test(l))
  expect(lines).toHaveLength(1)
  if (typeof message === 'string') expect(lines[0]).toBe(`error: ${message}`)
  else expect(lines[0]).toMatch(message)
  expect(r.code).toBe(code)
}

/** A Deployment as a user writes it (the server fills in the rest), with a uid when given. */
function smallDeployment(name: string, uid?: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
${uid === undefined ? '' : `  uid: ${uid}\n`}spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers: [{name: app, image: "nginx:1.27"}]
`
}

interface Case {
  /** A file under test/fixtures/bad. */
  file: string
  message: string
}

// Every message is the one the user sees; the percent-string wording (double space included) is
// apimachinery's RegexError.
const PERCENT = `a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`

const inputErrors: Case[] = [
  // YAML syntax: file:line:column
  {
    file: 'unclosed-flow.yaml',
    message:
      'unclosed-flow.yaml:17:1: Flow map in block collection must be sufficiently indented and end with a }',
  },
  {file: 'unclosed-quote.yaml', message: 'unclosed-quote.yaml:18:1: Missing closing "quote'},
  {
    file: 'indent-mapping.yaml',
    message: 'indent-mapping.yaml:5:1: All mapping items must start at the same column',
  },
  {
    file: 'indent-compact.yaml',
    message: 'indent-compact.yaml:4:9: Nested mappings are not allowed in compact mappings',
  },
  {file: 'tabs.yaml', message: 'tabs.yaml:6:1: Tabs are not allowed as indentation'},
  {
    file: 'duplicate-key.yaml',
    message: 'duplicate-key.yaml:7:3: duplicate key replicas (keys in a mapping must be unique)',
  },
  {file: 'stray-colon.yaml', message: 'stray-colon.yaml:18: Deployment default/web: unknown field ""'},
  // JSON syntax
  {
    file: 'json-syntax.json',
    message: `json-syntax.json:4:3: invalid JSON: unexpected '"' (expected ',' or '}')`,
  },
  {
    file: 'json-trailing-comma.json',
    message: `json-trailing-comma.json:4:1: invalid JSON: unexpected '}' (expected a double-quoted property name)`,
  },
  // Kinds, versions, names
  {
    file: 'wrong-apiversion.yaml',
    message:
      'wrong-apiversion.yaml:1: Deployment default/web: apiVersion "extensions/v1beta1" is not supported for kind Deployment: apps/v1 is expected',
  },
  {
    file: 'wrong-apiversion-rs.yaml',
    message:
      'wrong-apiversion-rs.yaml:1: ReplicaSet default/web-1: apiVersion "v1" is not supported for kind ReplicaSet: apps/v1 is expected',
  },
  {file: 'missing-kind.yaml', message: 'missing-kind.yaml:1: kind not set'},
  {file: 'missing-apiversion.yaml', message: 'missing-apiversion.yaml:1: Deployment: apiVersion not set'},
  {file: 'kind-number.yaml', message: 'kind-number.yaml:2: kind: Invalid value: 42: expected a string'},
  {file: 'missing-name.yaml', message: 'missing-name.yaml:3: Deployment: metadata.name: Required value'},
  {
    file: 'bad-name.yaml',
    message: `bad-name.yaml:4: Deployment default/Web_1: metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  },
  {
    file: 'scalar-document.yaml',
    message:
      'scalar-document.yaml:1: expected a Kubernetes object (a mapping with apiVersion and kind), got a string',
  },
  {
    file: 'json-array-of-numbers.json',
    message:
      'json-array-of-numbers.json:1: expected a Kubernetes object (a mapping with apiVersion and kind), got a number',
  },
  {
    file: 'duplicate-object.yaml',
    message: `duplicate-object.yaml:19: Deployment default/web: duplicate object: also defined at ${BAD}/duplicate-object.yaml:1`,
  },
  // Wrong types and numbers
  {
    file: 'replicas-string.yaml',
    message:
      'replicas-string.yaml:6: Deployment default/web: spec.replicas: Invalid value: "three": expected an integer',
  },
  {
    file: 'replicas-negative.yaml',
    message:
      'replicas-negative.yaml:6: Deployment default/web: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
  },
  {
    file: 'replicas-huge.yaml',
    message:
      'replicas-huge.yaml:6: Deployment default/web: spec.replicas: Invalid value: 1000000000000: expected a 32-bit integer',
  },
  {
    file: 'replicas-fraction.yaml',
    message:
      'replicas-fraction.yaml:6: Deployment default/web: spec.replicas: Invalid value: 1.5: expected an integer',
  },
  {
    file: 'replicas-infinity.yaml',
    message: 'replicas-infinity.yaml:6: spec.replicas: Infinity is not a number JSON can represent',
  },
  {
    file: 'spec-string.yaml',
    message: 'spec-string.yaml:5: Deployment default/web: spec: Invalid value: "three": expected an object',
  },
  {
    file: 'containers-map.yaml',
    message:
      'containers-map.yaml:15: Deployment default/web: spec.template.spec.containers: Invalid value: {"name":"app","image":"nginx:1.27"}: expected a list',
  },
  {
    file: 'label-number.yaml',
    message:
      'label-number.yaml:9: Deployment default/web: spec.selector.matchLabels[app]: Invalid value: 1: expected a string (quote the value: YAML reads it as a bool or a number)',
  },
  {
    file: 'timestamp.yaml',
    message:
      'timestamp.yaml:5: Deployment default/web: metadata.creationTimestamp: Invalid value: "yesterday": expected an RFC 3339 time such as "2024-01-01T00:00:00Z"',
  },
  {
    file: 'unknown-field.yaml',
    message: 'unknown-field.yaml:6: Deployment default/web: unknown field "spec.replicass"',
  },
  // intOrString and the fenceposts
  {
    file: 'intstr-no-percent.yaml',
    message: `intstr-no-percent.yaml:21: Deployment default/web: spec.strategy.rollingUpdate.maxSurge: Invalid value: "25": ${PERCENT}`,
  },
  {
    file: 'intstr-bare-percent.yaml',
    message: `intstr-bare-percent.yaml:21: Deployment default/web: spec.strategy.rollingUpdate.maxSurge: Invalid value: "%": ${PERCENT}`,
  },
  {
    file: 'intstr-negative-percent.yaml',
    message: `intstr-negative-percent.yaml:21: Deployment default/web: spec.strategy.rollingUpdate.maxSurge: Invalid value: "-5%": ${PERCENT}`,
  },
  {
    file: 'intstr-fraction-percent.yaml',
    message: `intstr-fraction-percent.yaml:21: Deployment default/web: spec.strategy.rollingUpdate.maxSurge: Invalid value: "1.5%": ${PERCENT}`,
  },
  {
    file: 'intstr-bool.yaml',
    message:
      'intstr-bool.yaml:22: Deployment default/web: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: true: expected an integer or a percentage string',
  },
  {
    file: 'intstr-negative.yaml',
    message:
      'intstr-negative.yaml:21: Deployment default/web: spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0',
  },
  {
    file: 'fenceposts-zero.yaml',
    message:
      'fenceposts-zero.yaml:22: Deployment default/web: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
  },
  {
    file: 'fenceposts-zero-percent.yaml',
    message:
      'fenceposts-zero-percent.yaml:22: Deployment default/web: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0',
  },
  {
    file: 'max-unavailable-over-100.yaml',
    message:
      'max-unavailable-over-100.yaml:22: Deployment default/web: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
  },
  // Selectors
  {
    file: 'selector-mismatch.yaml',
    message:
      'selector-mismatch.yaml:12: Deployment default/web: spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
  },
  {
    file: 'selector-bad-operator.yaml',
    message:
      'selector-bad-operator.yaml:10: Deployment default/web: spec.selector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator',
  },
  {
    file: 'selector-in-without-values.yaml',
    message:
      "selector-in-without-values.yaml:9: Deployment default/web: spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
  },
  {
    file: 'selector-empty.yaml',
    message:
      'selector-empty.yaml:7: Deployment default/web: spec.selector: Invalid value: {}: empty selector is invalid for deployment',
  },
  // Tags and aliases
  {
    file: 'custom-tag.yaml',
    message: 'custom-tag.yaml:6:13: unknown YAML tag !replicas: custom tags are not supported',
  },
  {file: 'set-tag.yaml', message: 'set-tag.yaml:6:13: unknown YAML tag !!set: custom tags are not supported'},
  {
    file: 'binary-tag.yaml',
    message: 'binary-tag.yaml:17:16: unknown YAML tag !!binary: custom tags are not supported',
  },
  {
    file: 'recursive-alias.yaml',
    message: 'recursive-alias.yaml:7: spec.selector: nested deeper than 200 levels through aliases',
  },
]

describe.concurrent('bad input files: exit 1 and one error line', SLOW, () => {
  it.each(inputErrors)('$file', async ({file, message}) => {
    const r = await run(sync(`${BAD}/${file}`))
    expectError(r, 1, `${BAD}/${message}`)
    expect(r.stdout).toBe('')
  })

  // --validate=warn downgrades what the API server's validation would refuse, never decoding errors.
  it('unknown-field.yaml under --validate=warn is a warning, and the pass runs', async () => {
    const r = await run(sync(`${BAD}/unknown-field.yaml`, '--validate', 'warn', '-o', 'json'))
    expect(r.stderr).toBe(
      `warning: ${BAD}/unknown-field.yaml:6: Deployment default/web: unknown field "spec.replicass"\n`,
    )
    expect(r.code).toBe(0)
    expect((JSON.parse(r.stdout) as SyncResult).items).toHaveLength(1)
  })

  it('replicas-string.yaml under --validate=ignore is still an error (the server could not decode it)', async () => {
    const r = await run(sync(`${BAD}/replicas-string.yaml`, '--validate', 'ignore'))
    expectError(
      r,
      1,
      /replicas-string\.yaml:6: .*spec\.replicas: Invalid value: "three": expected an integer$/,
    )
  })

  it('input errors are exit 2 under --exit-code (1 means "would change" there)', async () => {
    const r = await run(sync(`${BAD}/replicas-negative.yaml`, '--exit-code'))
    expectError(r, 2, /replicas-negative\.yaml:6: /)
  })
})

describe.concurrent('-v 6 and DEBUG do not change expected errors', SLOW, () => {
  const sample = inputErrors.filter((c) =>
    ['tabs.yaml', 'replicas-string.yaml', 'selector-mismatch.yaml'].includes(c.file),
  )
  it.each(sample)('$file', async ({file, message}) => {
    const [v6, debug] = await Promise.all([
      run(sync(`${BAD}/${file}`, '-v', '6')),
      run(sync(`${BAD}/${file}`), {env: {DEBUG: '1'}}),
    ])
    expectError(v6, 1, `${BAD}/${message}`)
    expectError(debug, 1, `${BAD}/${message}`)
  })
})

describe.concurrent('input that is not an error: notes, and what the pass does', SLOW, () => {
  it('an empty file has no objects: "No resources found", exit 0', async () => {
    const r = await run(sync(`${BAD}/empty.yaml`))
    expect(r.stderr).toBe('No resources found in default namespace.\n')
    expect(r.stdout).toBe('')
    expect(r.code).toBe(0)
  })

  it('a file of comments and document separators has no objects either', async () => {
    const r = await run(sync(`${BAD}/only-separators.yaml`, '-o', 'json'))
    expect(r.stderr).toBe('No resources found in default namespace.\n')
    expect((JSON.parse(r.stdout) as SyncResult).items).toEqual([])
    expect(r.code).toBe(0)
  })

  it('unknown kinds are skipped with one note, and the rest is synced', async () => {
    const r = await run(sync(`${BAD}/unknown-kind.yaml`, '-o', 'json'))
    expect(r.stderr).toBe(
      'note: skipped 1 object of kinds other than Deployment, ReplicaSet, Pod (ConfigMap)\n',
    )
    expect(r.code).toBe(0)
    expect((JSON.parse(r.stdout) as SyncResult).items.map((x) => x.deployment.name)).toEqual(['web'])
  })

  it('a file of unknown kinds only: the note, then "No resources found"', async () => {
    const r = await run(sync(`${BAD}/only-unknown-kinds.yaml`))
    expect(r.stderr).toBe(
      'note: skipped 2 objects of kinds other than Deployment, ReplicaSet, Pod (Widget, Service)\n' +
        'No resources found in default namespace.\n',
    )
    expect(r.code).toBe(0)
  })

  it('a ReplicaSet controlled by a Deployment not in the input: noted, left alone by the pass', async () => {
    const r = await run(sync(`${BAD}/orphan-replicaset.yaml`, '-o', 'json'))
    expect(r.stderr).toBe(
      'note: 1 ReplicaSet is controlled by a Deployment that is not in the input, so no pass adopts or changes it: default/web-old (Deployment gone)\n',
    )
    expect(r.code).toBe(0)
    const [web] = (JSON.parse(r.stdout) as SyncResult).items
    // web does not adopt the other owner's ReplicaSet: it creates its own and touches nothing else.
    expect(web!.actions.filter((a) => a.resource === 'replicasets').map((a) => a.verb)).toEqual(['create'])
    expect(web!.actions.some((a) => a.name === 'web-old')).toBe(false)
  })

  it('a Pod controlled by a ReplicaSet not in the input: noted, not counted', async () => {
    const r = await run(sync(`${BAD}/orphan-pod.yaml`, '-o', 'json'))
    expect(r.stderr).toBe(
      'note: 1 Pod is controlled by a ReplicaSet that is not in the input, so no Deployment counts it: default/web-5d4f8-abcde (ReplicaSet web-5d4f8)\n',
    )
    expect(r.code).toBe(0)
    // Recreate with no old pods of its own: the pass creates the new ReplicaSet at once.
    const [web] = (JSON.parse(r.stdout) as SyncResult).items
    expect(web!.actions[0]).toMatchObject({verb: 'create', resource: 'replicasets'})
  })
})

describe.concurrent('revision annotations past 2^53 and past int64', SLOW, () => {
  const revisionOf = (r: Run, resource: string) =>
    (JSON.parse(r.stdout) as SyncResult).items[0]!.actions.filter((a) => a.resource === resource).map(
      (a) =>
        (a.object as {metadata: {annotations?: Record<string, string>}} | undefined)?.metadata.annotations?.[
          'deployment.kubernetes.io/revision'
        ],
    )

  it('2^53 + 1 is numbered exactly (int64, not a double): the next revision is 2^53 + 2', async () => {
    const r = await run(sync(`${BAD}/revision-beyond-2p53.yaml`, '-o', 'json'))
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(revisionOf(r, 'replicasets')).toEqual(['9007199254740994'])
    expect(revisionOf(r, 'deployments')).toEqual(['9007199254740994', '9007199254740994'])
  })

  it('beyond int64: upstream skips that ReplicaSet and numbers from 1, and the user is warned', async () => {
    const r = await run(sync(`${BAD}/revision-beyond-int64.yaml`, '-o', 'json'))
    expect(r.stderr).toBe(
      `warning: ${BAD}/revision-beyond-int64.yaml:24: ReplicaSet default/web-old: metadata.annotations[deployment.kubernetes.io/revision]: "99999999999999999999999" is not a 64-bit integer: the controller skips this ReplicaSet when it numbers revisions\n`,
    )
    expect(r.code).toBe(0)
    expect(revisionOf(r, 'replicasets')).toEqual(['1'])
  })

  it('the largest int64: the user is warned that the next revision overflows', async () => {
    const r = await runOnce(sync(`${BAD}/revision-int64-max.yaml`, '-o', 'json'))
    expect(r.stderr).toBe(
      `warning: ${BAD}/revision-int64-max.yaml:24: ReplicaSet default/web-old: metadata.annotations[deployment.kubernetes.io/revision]: "9223372036854775807" is the largest 64-bit integer: the next revision overflows\n`,
    )
    expect(r.code).toBe(0)
    // upstream's SetNewReplicaSetAnnotations refuses the wrapped (negative) revision: no annotation.
    expect(revisionOf(r, 'replicasets')).toEqual([undefined])
  })

  // Upstream computes `maxOldRevision+1` in int64, which wraps to -2^63, and writes that on the
  // Deployment.
  it('the largest int64: the Deployment gets the wrapped revision, as upstream writes it', async () => {
    const r = await runOnce(sync(`${BAD}/revision-int64-max.yaml`, '-o', 'json'))
    expect(revisionOf(r, 'deployments')).toEqual(['-9223372036854775808', '-9223372036854775808'])
  })
})

describe.concurrent('usage errors: exit 2, one line', SLOW, () => {
  const file = `${BAD}/unknown-kind.yaml`
  const usage: Array<{name: string; args: string[]; message: string}> = [
    {
      name: 'an hour that does not exist in --now',
      args: ['dry-run', 'sync', '-f', file, '--now', '2026-11-29T25:00:00Z'],
      message:
        'invalid --now "2026-11-29T25:00:00Z": want an RFC 3339 time such as 2026-11-29T10:05:00Z, or a duration relative to the current time (or, with -f, to the snapshot\'s newest timestamp) such as +10m or -1h',
    },
    {
      name: 'a feature gate value that is not a bool',
      args: [
        'dry-run',
        'sync',
        '-f',
        file,
        '--feature-gates',
        'DeploymentReplicaSetTerminatingReplicas=maybe',
      ],
      message:
        'invalid value of DeploymentReplicaSetTerminatingReplicas=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
    },
    {
      name: 'a feature gate without a value',
      args: ['dry-run', 'sync', '-f', file, '--feature-gates', 'DeploymentReplicaSetTerminatingReplicas'],
      message: 'missing bool value for DeploymentReplicaSetTerminatingReplicas',
    },
    {
      name: 'a label selector with two operators',
      args: ['dry-run', 'sync', '-f', file, '-l', 'app=a=b'],
      message: "unable to parse requirement: found '=', expected: ','",
    },
    {
      name: 'an unknown flag',
      args: ['dry-run', 'sync', '-f', file, '--replicas', '3'],
      message: 'unknown flag: --replicas (see --help)',
    },
    {
      name: 'a -v that is not a number',
      args: ['dry-run', 'sync', '-f', file, '-v', 'six'],
      message: '--v: Expected an integer but received: six (see --help)',
    },
    {
      name: 'an output format that does not exist',
      args: ['dry-run', 'sync', '-f', file, '-o', 'xml'],
      message:
        'unable to match a printer suitable for the output format "xml", allowed formats are: table|wide|json|yaml|name|jsonpath=TEMPLATE',
    },
    {
      name: 'a --request-timeout that is not a duration',
      args: ['dry-run', 'sync', '-f', file, '--request-timeout', '5 parsecs'],
      message: 'invalid --request-timeout "5 parsecs": want a duration such as 30s, 1m or 500ms',
    },
    {
      name: '-f without a value',
      args: ['dry-run', 'sync', '-f'],
      message: 'Flag --filename expects a value (see --help)',
    },
  ]
  it.each(usage)('$name', async ({args, message}) => {
    expectError(await run(args), 2, message)
  })

  it('-v 6 changes nothing for usage errors', async () => {
    const [now, flag] = await Promise.all([
      run([...usage[0]!.args, '-v', '6']),
      run([...usage[4]!.args, '-v', '6']),
    ])
    expectError(now, 2, usage[0]!.message)
    expectError(flag, 2, usage[4]!.message)
  })
})

describe.concurrent('generated files: binary, encodings, huge, deep, bombs, stdin', SLOW, () => {
  const dir = mkdtempSync(join(tmpdir(), 'deployctl-bad-'))
  const path = (name: string) => join(dir, name)
  const write = (name: string, data: string | Buffer) => {
    writeFileSync(path(name), data)
    return path(name)
  }
  const deployment = smallDeployment('web')

  /** A file of `size` bytes: `head`, then `fill` repeated, then `tail`, written in chunks. */
  function bigFile(name: string, size: number, head: string, fill: string, tail: string): string {
    const fd = openSync(path(name), 'w')
    writeSync(fd, head)
    const chunk = Buffer.from(fill.repeat(Math.ceil(MiB / fill.length)).slice(0, MiB))
    let left = size - Buffer.byteLength(head) - Buffer.byteLength(tail)
    while (left > 0) {
      const n = Math.min(left, chunk.length)
      writeSync(fd, chunk, 0, n)
      left -= n
    }
    writeSync(fd, tail)
    closeSync(fd)
    return path(name)
  }

  it('a binary file (an image with NUL bytes) is not read as text', async () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]),
      Buffer.alloc(4096, 0xa5),
    ])
    const file = write('image.yaml', png)
    expectError(await run(sync(file)), 1, `${file}: not a text file (NUL byte at byte 8)`)
  })

  it('non-UTF-8 bytes (Latin-1) are refused with the byte offset', async () => {
    const file = write(
      'latin1.yaml',
      Buffer.concat([Buffer.from(deployment), Buffer.from('# caf\xe9\n', 'latin1')]),
    )
    const offset = Buffer.byteLength(deployment) + 5
    expectError(await run(sync(file)), 1, `${file}: not a text file (invalid UTF-8 at byte ${offset})`)
  })

  it('UTF-16 (with a byte order mark) that is not whole is refused rather than misread', async () => {
    // Whole UTF-16 is read as kubectl reads it (test/e2e/qa-kubectl-parity.test.ts).
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(deployment, 'utf16le'),
      Buffer.from('x'),
    ])
    const file = write('utf16.yaml', utf16)
    expectError(await run(sync(file)), 1, `${file}: not a text file (invalid UTF-16)`)
  })

  it('a 100 MB YAML file is refused by its size, before it is read', async () => {
    const file = bigFile('big.yaml', 100 * MiB, 'apiVersion: v1\nkind: ConfigMap\ndata:\n  a: ', 'x', '\n')
    const r = await run(sync(file), {timeoutMs: BOUND_MS, heapMb: 96})
    expectError(r, 1, `${file}: file is too large (104857600 bytes; the limit for YAML input is 64 MiB)`)
  })

  it('YAML over the limit on stdin is refused once the limit is passed', async () => {
    const text = `apiVersion: v1\nkind: ConfigMap\ndata:\n  a: ${'x'.repeat(65 * MiB)}\n`
    const r = await run(sync('-'), {input: text, timeoutMs: BOUND_MS, heapMb: 128})
    expectError(r, 1, /^error: STDIN: file is too large \(\d+ bytes; the limit for YAML input is 64 MiB\)$/)
  })

  it('a 100 MB JSON snapshot is within the JSON limit: read in bounded time and memory', async () => {
    const file = bigFile(
      'big.json',
      100 * MiB,
      '{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "padding"}, "data": {"a": "',
      'x',
      `"}}, ${JSON.stringify({apiVersion: 'apps/v1', kind: 'Deployment', metadata: {name: 'web'}, spec: {selector: {matchLabels: {app: 'web'}}, template: {metadata: {labels: {app: 'web'}}, spec: {containers: [{name: 'app', image: 'nginx'}]}}}})}]}`,
    )
    const r = await run(sync(file, '-o', 'json'), {timeoutMs: BOUND_MS, heapMb: 256})
    expect(r.signal, 'killed: not finished in bounded time').toBeNull()
    expect(r.stderr).toBe(
      'note: skipped 1 object of kinds other than Deployment, ReplicaSet, Pod (ConfigMap)\n',
    )
    expect(r.code).toBe(0)
    expect((JSON.parse(r.stdout) as SyncResult).items.map((x) => x.deployment.name)).toEqual(['web'])
  })

  it('a JSON file over the 500 MiB JSON limit is refused by its size (sparse, nothing is read)', async () => {
    const file = path('huge.json')
    writeFileSync(file, '')
    const fd = openSync(file, 'r+')
    // A sparse file: 600 MiB on paper, no blocks on disk.
    writeSync(fd, '{', 600 * MiB - 1)
    closeSync(fd)
    const r = await run(sync(file), {timeoutMs: BOUND_MS, heapMb: 96})
    expectError(r, 1, `${file}: file is too large (629145600 bytes; the limit for JSON input is 500 MiB)`)
  })

  it('deep nesting in YAML flow style is refused at the depth limit', async () => {
    const file = write(
      'deep-flow.yaml',
      `apiVersion: v1\nkind: ConfigMap\ndata: ${'['.repeat(5000)}${']'.repeat(5000)}\n`,
    )
    expectError(
      await run(sync(file), {timeoutMs: BOUND_MS}),
      1,
      `${file}:3:208: document is nested deeper than 200 levels`,
    )
  })

  it('deep nesting in YAML block style is refused at the depth limit', async () => {
    let text = 'a:\n'
    for (let i = 1; i < 400; i++) text += `${'  '.repeat(i)}b:\n`
    const file = write('deep-block.yaml', text)
    expectError(
      await run(sync(file), {timeoutMs: BOUND_MS}),
      1,
      `${file}:202:404: document is nested deeper than 200 levels`,
    )
  })

  it('deep nesting in JSON is refused at the depth limit', async () => {
    const file = write(
      'deep.json',
      `{"apiVersion": "v1", "kind": "List", "items": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    )
    expectError(
      await run(sync(file), {timeoutMs: BOUND_MS}),
      1,
      `${file}:1:246: document is nested deeper than 200 levels`,
    )
  })

  it('a "billion laughs" alias bomb is refused, not expanded', async () => {
    let data = '  a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
    for (let i = 1; i <= 9; i++)
      data += `  a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`
    const file = write('bomb.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\ndata:\n${data}`)
    const r = await run(sync(file), {timeoutMs: BOUND_MS, heapMb: 96})
    expectError(
      r,
      1,
      `${file}:1: YAML aliases expand too much (refusing a possible "billion laughs" document)`,
    )
  })

  it('a flood of aliases is refused while parsing', async () => {
    const file = write(
      'aliases.yaml',
      `apiVersion: v1\nkind: ConfigMap\ndata:\n  a: &a x\n  b: [${Array(20_000).fill('*a').join(', ')}]\n`,
    )
    const r = await run(sync(file), {timeoutMs: BOUND_MS, heapMb: 96})
    expectError(r, 1, `${file}:5:40007: too many YAML aliases (more than 10000 in one file)`)
  })

  it('the same object in two files names both places', async () => {
    const a = write('a.yaml', deployment)
    const b = write('b.yaml', `# again\n${deployment}`)
    expectError(
      await run(['dry-run', 'sync', '-f', a, '-f', b]),
      1,
      `${b}:2: Deployment default/web: duplicate object: also defined at ${a}:1`,
    )
  })

  it('stdin (-f -): a YAML syntax error is named STDIN:line:column', async () => {
    const r = await run(sync('-'), {
      input: 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n   namespace: x\n',
    })
    expectError(r, 1, 'STDIN:4:9: Nested mappings are not allowed in compact mappings')
  })

  it('stdin (-f -): a field error is named STDIN:line', async () => {
    const r = await run(sync('-'), {input: deployment.replace('spec:\n', 'spec:\n  replicas: -3\n')})
    expectError(
      r,
      1,
      'STDIN:6: Deployment default/web: spec.replicas: Invalid value: -3: must be greater than or equal to 0',
    )
  })

  it('stdin (-f -): binary input is refused', async () => {
    const r = await run(sync('-'), {input: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00])})
    expectError(r, 1, 'STDIN: not a text file (NUL byte at byte 7)')
  })

  it('stdin (-f -) given twice', async () => {
    expectError(
      await run(['dry-run', 'sync', '-f', '-', '-f', '-']),
      1,
      '"-" (standard input) can be given only once',
    )
  })
})

describe.concurrent('one rule for what is accepted (issue 20)', SLOW, () => {
  const dir = mkdtempSync(join(tmpdir(), 'deployctl-accept-'))
  afterAll(() => rmSync(dir, {recursive: true, force: true}))
  const write = (name: string, data: string) => {
    writeFileSync(join(dir, name), data)
    return join(dir, name)
  }
  const web = smallDeployment

  it('two Deployments with the same uid: refused, naming both places', async () => {
    const a = write('uid-a.yaml', web('web', 'u-1'))
    const b = write('uid-b.yaml', `${web('other', 'u-2')}---\n${web('copy', 'u-1')}`)
    expectError(
      await run(['dry-run', 'sync', '-f', a, '-f', b]),
      1,
      `${b}:19: Deployment default/copy: metadata.uid: Duplicate value: "u-1": also the uid of Deployment default/web at ${a}:1`,
    )
  })

  it('a duplicate key in JSON is refused as in YAML, at its line and column', async () => {
    const f = write(
      'dup.json',
      '{"apiVersion": "apps/v1", "kind": "Deployment",\n "metadata": {"name": "web", "name": "copy"}}\n',
    )
    expectError(await run(sync(f)), 1, `${f}:2:30: duplicate key "name" (keys in an object must be unique)`)
  })

  it('a duplicate key deep in a big JSON List (read a piece at a time) is refused too', async () => {
    const pods = Array.from({length: 14000}, (_, i) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: `p-${i}`, namespace: 'default', labels: {app: 'web'}},
      spec: {containers: [{name: 'app', image: 'nginx:1.27'}]},
    }))
    const text = JSON.stringify({apiVersion: 'v1', kind: 'List', items: pods}, null, 2)
    expect(Buffer.byteLength(text)).toBeGreaterThan(4 * MiB)
    const at = text.indexOf('"image": "nginx:1.27"', Math.floor(text.length * 0.7))
    const f = write('big-dup.json', `${text.slice(0, at)}"image": "x", ${text.slice(at)}`)
    const line = text.slice(0, at).split('\n').length
    const col = at - text.lastIndexOf('\n', at - 1) + 14
    expectError(
      await run(sync(f)),
      1,
      `${f}:${line}:${col}: duplicate key "image" (keys in an object must be unique)`,
    )
  })

  it('kind is case-sensitive: `kind: deployment` is refused, at the top level and in a List', async () => {
    const top = write('lower.yaml', web('web', 'u-1').replace('kind: Deployment', 'kind: deployment'))
    expectError(
      await run(sync(top)),
      1,
      `${top}:2: no matches for kind "deployment" in version "apps/v1" (kinds are case-sensitive: "Deployment")`,
    )
    const inList = write(
      'lower-list.json',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [{apiVersion: 'apps/v1', kind: 'deployment', metadata: {name: 'web'}}],
      }),
    )
    expectError(
      await run(sync(inList)),
      1,
      `${inList}:1: no matches for kind "deployment" in version "apps/v1" (kinds are case-sensitive: "Deployment")`,
    )
  })

  it('a kind apps/v1 does not serve is refused; kinds of other APIs are still skipped with a note', async () => {
    const f = write('typo.yaml', web('web', 'u-1').replace('kind: Deployment', 'kind: Deploymnet'))
    expectError(await run(sync(f)), 1, `${f}:2: no matches for kind "Deploymnet" in version "apps/v1"`)
  })

  it('a List whose items is not a list is refused', async () => {
    const f = write(
      'items-object.yaml',
      `apiVersion: v1\nkind: List\nitems:\n  ${web('web', 'u-1').replaceAll('\n', '\n  ')}`,
    )
    expectError(
      await run(sync(f)),
      1,
      /^error: .*items-object\.yaml:3: List: items: Invalid value: \{"apiVersion":"apps\/v1",.*: expected a list$/,
    )
  })

  it('stdin open for writing only: refused in words, not EBADF', async () => {
    const fd = openSync(join(dir, 'write-only'), 'w')
    try {
      expectError(
        await run(sync('-'), {stdinFd: fd}),
        1,
        'STDIN: cannot read: not open for reading (closed, or opened for writing only)',
      )
    } finally {
      closeSync(fd)
    }
  })

  it('stdin that is a directory: refused', async () => {
    const fd = openSync(dir, 'r')
    try {
      expectError(await run(sync('-'), {stdinFd: fd}), 1, 'STDIN: is a directory')
    } finally {
      closeSync(fd)
    }
  })
})
