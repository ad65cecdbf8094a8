// The loader's reading side: formats, positions, hostile input, -f path handling.

import {mkdtempSync, rmSync, truncateSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import fc from 'fast-check'
import {afterAll, describe, expect, it} from 'vitest'
import {loadWorldFromText} from '../../src/cluster/load/from-text.js'
import {loadWorld} from '../../src/cluster/load/index.js'
import {parseJson} from '../../src/cluster/load/json.js'
import {readFile, STREAM_MIN_BYTES} from '../../src/cluster/load/read.js'
import {InputError} from '../../src/errors.js'

const FIXTURES = join(import.meta.dirname, '../fixtures/load')
const tmp = mkdtempSync(join(tmpdir(), 'deployctl-load-'))
afterAll(() => rmSync(tmp, {recursive: true, force: true}))

function tmpFile(name: string, content: string | Buffer): string {
  const p = join(tmp, name)
  writeFileSync(p, content)
  return p
}

/** The InputError message a load throws (fails the test when it does not throw one). */
function errorOf(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(InputError)
    return (e as Error).message
  }
  throw new Error('expected an InputError')
}

async function asyncErrorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (e) {
    expect(e).toBeInstanceOf(InputError)
    return (e as Error).message
  }
  throw new Error('expected an InputError')
}

const POD = (name: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
  - name: c
    image: busybox:1.36
`

describe('YAML documents', () => {
  it('keeps Deployments, ReplicaSets and Pods, records where each starts, notes skipped kinds once', () => {
    const notes: string[] = []
    const text = `# leading comment
${POD('a')}---
apiVersion: v1
kind: Service
metadata: {name: s}
---
${POD('b')}---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
---
apiVersion: v1
kind: Service
metadata: {name: s2}
`
    const w = loadWorldFromText(text, 'm.yaml', {warn: (l) => notes.push(l)})
    expect(w.pods.map((p) => p.metadata.name)).toEqual(['a', 'b'])
    expect(w.sources.get(w.pods[0])).toEqual({file: 'm.yaml', line: 2, index: 0})
    expect(w.sources.get(w.pods[1])).toEqual({file: 'm.yaml', line: 15, index: 2})
    expect(notes).toEqual([
      'note: skipped 3 objects of kinds other than Deployment, ReplicaSet, Pod (Service, ConfigMap)',
    ])
  })

  it('skips empty files and empty documents silently', () => {
    const notes: string[] = []
    for (const text of ['', '\n\n', '# only a comment\n', '---\n---\n...\n', `---\n${POD('a')}---\n---\n`]) {
      const w = loadWorldFromText(text, 'e.yaml', {warn: (l) => notes.push(l)})
      expect(w.deployments.length + w.replicaSets.length).toBe(0)
    }
    expect(notes).toEqual([])
  })

  it('reads a YAML kind: List and gives each item its own line', () => {
    const text = `apiVersion: v1
kind: List
items:
- ${POD('a').trimEnd().split('\n').join('\n  ')}
- ${POD('b').trimEnd().split('\n').join('\n  ')}
`
    const w = loadWorldFromText(text, 'l.yaml')
    expect(w.pods.map((p) => w.sources.get(p))).toEqual([
      {file: 'l.yaml', line: 4, index: 0},
      {file: 'l.yaml', line: 12, index: 1},
    ])
  })

  it('reads YAML 1.1 scalars as kubectl does (0644 is octal, timestamps stay strings)', () => {
    const w = loadWorldFromText(
      `${POD('a')}  volumes:
  - name: v
    configMap: {name: cm, defaultMode: 0644}
  nodeName: 2024-01-01
`,
      'y.yaml',
    )
    const spec = w.pods[0].spec as Record<string, unknown>
    expect((spec.volumes as Array<{configMap: {defaultMode: number}}>)[0].configMap.defaultMode).toBe(420)
    expect(spec.nodeName).toBe('2024-01-01')
  })

  it('gives file:line:col for syntax errors', () => {
    expect(errorOf(() => loadWorldFromText('a: [1,\nb: 2\n', 'x.yaml'))).toBe(
      'x.yaml:2:1: Flow sequence in block collection must be sufficiently indented and end with a ]',
    )
    expect(errorOf(() => loadWorldFromText('a:\n\tb: 1\n', 'x.yaml'))).toBe(
      'x.yaml:2:1: Tabs are not allowed as indentation',
    )
  })

  it('reports wrong indentation in a fixture file with its position', async () => {
    const file = join(FIXTURES, 'bad-indent.yaml')
    expect(await asyncErrorOf(loadWorld([file]))).toBe(
      `${file}:5:1: All mapping items must start at the same column`,
    )
  })

  it('refuses duplicate keys, naming the key and its line', () => {
    expect(errorOf(() => loadWorldFromText(`${POD('a')}metadata: {name: b}\n`, 'd.yaml'))).toBe(
      'd.yaml:9:1: duplicate key metadata (keys in a mapping must be unique)',
    )
  })

  it('refuses custom and non-JSON tags', () => {
    expect(errorOf(() => loadWorldFromText('a: !foo x\n', 't.yaml'))).toBe(
      't.yaml:1:4: unknown YAML tag !foo: custom tags are not supported',
    )
    expect(errorOf(() => loadWorldFromText('a: !!binary aGk=\n', 't.yaml'))).toBe(
      't.yaml:1:4: unknown YAML tag !!binary: custom tags are not supported',
    )
    expect(errorOf(() => loadWorldFromText('a: !!set {x, y}\n', 't.yaml'))).toBe(
      't.yaml:1:4: unknown YAML tag !!set: custom tags are not supported',
    )
  })

  it('refuses a billion-laughs document without expanding it', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i)
      const cur = String.fromCharCode(97 + i)
      lines.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`)
    }
    // The count of expanded nodes is what stops it (no wall-clock bound here: npm run bench times things).
    expect(errorOf(() => loadWorldFromText(`${lines.join('\n')}\n`, 'lol.yaml'))).toBe(
      'lol.yaml:1: YAML aliases expand too much (refusing a possible "billion laughs" document)',
    )
  })

  it('refuses aliases that contain themselves', () => {
    expect(errorOf(() => loadWorldFromText('a: &x [*x]\n', 'c.yaml'))).toBe(
      'c.yaml:1: a[0]: nested deeper than 200 levels through aliases',
    )
  })

  it('un-shares values that aliases share, so a change to one does not show in the other', () => {
    const text = `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: r
  labels: &l {app: web}
spec:
  selector: {matchLabels: *l}
  template:
    metadata: {labels: *l}
    spec: {containers: [{name: c, image: nginx:1}]}
`
    const rs = loadWorldFromText(text, 'a.yaml').replicaSets[0]
    rs.metadata.labels!.app = 'changed'
    expect(rs.spec.selector!.matchLabels).toEqual({app: 'web'})
    expect(rs.spec.template!.metadata!.labels).toEqual({app: 'web'})
  })

  it('refuses deeply nested documents quickly, flow and block style', () => {
    expect(errorOf(() => loadWorldFromText(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'f.yaml'))).toBe(
      'f.yaml:1:203: document is nested deeper than 200 levels',
    )
    const block = `a:\n${Array.from({length: 300}, (_, i) => `${' '.repeat(i + 1)}b:`).join('\n')} 1\n`
    expect(errorOf(() => loadWorldFromText(block, 'b.yaml'))).toBe(
      'b.yaml:202:203: document is nested deeper than 200 levels',
    )
  })

  it('refuses numbers JSON cannot carry', () => {
    expect(errorOf(() => loadWorldFromText(`${POD('a')}  priority: .inf\n`, 'n.yaml'))).toBe(
      'n.yaml:9: spec.priority: Infinity is not a number JSON can represent',
    )
  })

  it('refuses a document that is not an object', () => {
    expect(errorOf(() => loadWorldFromText('just a string\n', 's.yaml'))).toBe(
      's.yaml:1: expected a Kubernetes object (a mapping with apiVersion and kind), got a string',
    )
  })
})

describe('JSON', () => {
  it('reads a kubectl get -o json List, with the start line of every item', async () => {
    const notes: string[] = []
    const w = await loadWorld([join(FIXTURES, 'snapshot.json')], {warn: (l) => notes.push(l)})
    expect(w.deployments).toHaveLength(1)
    expect(w.replicaSets).toHaveLength(1)
    const file = join(FIXTURES, 'snapshot.json')
    expect(w.sources.get(w.deployments[0])).toEqual({file, line: 4, index: 0})
    expect(w.sources.get(w.replicaSets[0])).toEqual({file, line: 68, index: 1})
    expect(notes).toEqual([
      'note: skipped 1 object of kinds other than Deployment, ReplicaSet, Pod (Service)',
    ])
    // An object read from a cluster comes back as it was: defaulting has nothing to add.
    expect(w.deployments[0].metadata.uid).toBe('0b6c8a6e-1f5e-4a63-9d0b-2f7d8e6c1a01')
    expect(w.deployments[0].spec.template.metadata).toEqual({labels: {app: 'api'}})
  })

  it('reads concatenated JSON values and top-level arrays', () => {
    const a = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: 'a'},
      spec: {containers: [{name: 'c', image: 'x:1'}]},
    })
    const b = a.replace('"a"', '"b"')
    const w = loadWorldFromText(`${a}\n${b}\n`, 'stream.json')
    expect(w.pods.map((p) => [p.metadata.name, w.sources.get(p)?.line])).toEqual([
      ['a', 1],
      ['b', 2],
    ])
    const arr = loadWorldFromText(`[\n${a},\n${b}\n]`, 'arr.json')
    expect(arr.pods.map((p) => w.sources.get(p) ?? arr.sources.get(p))).toEqual([
      {file: 'arr.json', line: 2, index: 0},
      {file: 'arr.json', line: 3, index: 1},
    ])
  })

  it('reads a typed list (DeploymentList) whose items carry no kind', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'PodList',
      items: [{metadata: {name: 'p'}, spec: {containers: [{name: 'c', image: 'x:1'}]}}],
    }
    const w = loadWorldFromText(JSON.stringify(list), 'typed.json')
    expect(w.pods[0].kind).toBe('Pod')
    expect(w.pods[0].apiVersion).toBe('v1')
  })

  it.each([
    {
      name: "unexpected '}' (expected a double-quoted property name)",
      given: '{"a": 1,}',
      want: "t.json:1:9: invalid JSON: unexpected '}' (expected a double-quoted property name)",
    },
    {
      name: "unexpected 't' (expected a value)",
      given: '{\n  "a": tru\n}',
      want: "t.json:2:8: invalid JSON: unexpected 't' (expected a value)",
    },
    {
      name: "unexpected '2' (expected ':' after a property name)",
      given: '{"a": 1}\n{"b" 2}',
      want: "t.json:2:6: invalid JSON: unexpected '2' (expected ':' after a property name)",
    },
    {
      name: "unexpected '}' (expected ',' or ']')",
      given: '{"a": [1, 2}',
      want: "t.json:1:12: invalid JSON: unexpected '}' (expected ',' or ']')",
    },
    {name: 'unterminated string', given: '{"a": "x', want: 't.json:1:7: invalid JSON: unterminated string'},
    {
      name: 'expected a Kubernetes object (a JSON object with apiVersion and kind) or a list of them',
      given: '{"a": 1} 42',
      want: 't.json:1:10: expected a Kubernetes object (a JSON object with apiVersion and kind) or a list of them',
    },
  ])('reports a JSON syntax error with its line and column: $name', ({given, want}) => {
    expect(errorOf(() => loadWorldFromText(given, 't.json'))).toBe(want)
  })

  it('refuses deeply nested JSON', () => {
    expect(
      errorOf(() => loadWorldFromText(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`, 'd.json')),
    ).toBe('d.json:1:201: document is nested deeper than 200 levels')
  })

  it('falls back to YAML for flow-style input that only looks like JSON', () => {
    const w = loadWorldFromText(
      '{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, image: "x:1"}]}}',
      'STDIN',
    )
    expect(w.pods[0].metadata.name).toBe('p')
  })

  it('loads a 10 MB generated JSON List', () => {
    const items: unknown[] = []
    for (let i = 0; items.length * 700 < 10_000_000; i++) {
      items.push({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `web-${i}`,
          namespace: `ns-${i % 50}`,
          uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
          labels: {app: 'web', 'pod-template-hash': 'abc123'},
          creationTimestamp: '2025-01-01T00:00:00Z',
        },
        spec: {
          containers: [{name: 'web', image: 'nginx:1.27', ports: [{containerPort: 80, protocol: 'TCP'}]}],
        },
        status: {phase: 'Running', conditions: [{type: 'Ready', status: 'True'}]},
      })
    }
    const text = JSON.stringify({apiVersion: 'v1', kind: 'List', items}, null, 2)
    expect(text.length).toBeGreaterThan(10_000_000)
    const w = loadWorldFromText(text, 'big.json')
    expect(w.pods).toHaveLength(items.length)
    // JSON.stringify indents every item alike: item i starts 5 + i * (lines per item) lines down.
    const perItem = JSON.stringify(items[0], null, 2).split('\n').length
    expect(w.pods.slice(0, 3).map((p) => w.sources.get(p)?.line)).toEqual([5, 5 + perItem, 5 + 2 * perItem])
  })
})

describe('JSON Lists read item by item', () => {
  const parsed = (text: string): unknown => {
    const bytes = Buffer.from(text)
    let wholeText = 0
    const docs = parseJson('t.json', {
      bytes,
      text: () => {
        wholeText++
        return text
      },
    })
    return {value: docs.map((d) => d.value), wholeText}
  }

  it('gives what JSON.parse gives, without the whole text, for a List and a top-level array', () => {
    const list =
      '{"apiVersion": "v1", "items": [\n {"a": [1, {"b": "]"}]},\n\t{"c": "\\"}"} ], "kind": "List"}'
    expect(parsed(list)).toEqual({value: [JSON.parse(list)], wholeText: 0})
    expect(parsed('[ {"a": 1} , [2] ]')).toEqual({value: [[{a: 1}, [2]]], wholeText: 0})
    expect(parsed('{"items": [], "kind": "List"}')).toEqual({
      value: [{items: [], kind: 'List'}],
      wholeText: 0,
    })
  })

  it.each([
    {name: 'scalars among the items', given: '{"items": [1, {"a": 1}, "x"]}'},
    {name: 'items that is not an array', given: '{"items": {"a": [1]}, "kind": "List"}'},
    {name: 'items nested deeper', given: '{"spec": {"items": [{"a": 1}]}}'},
  ])('falls back to the whole text when the structure is not plain: $name', ({given}) => {
    expect(parsed(given)).toEqual({value: [JSON.parse(given)], wholeText: 1})
  })

  // JSON.parse would let the last one win; kubectl's strict decoding refuses a repeated key.
  it.each([
    {
      name: 'a second items key',
      given: '{"items": [{"a": 1}], "items": [{"b": 2}]}',
      want: 't.json:1:23: duplicate key "items" (keys in an object must be unique)',
    },
    {
      name: 'an escaped spelling of items',
      given: '{"items": [{"a": 1}], "\\u0069tems": []}',
      want: 't.json:1:23: duplicate key "\\u0069tems" (keys in an object must be unique)',
    },
    {
      name: 'a key repeated in an item',
      given: '[{"a": 1, "b": {"c": 2, "c": 3}}]',
      want: 't.json:1:25: duplicate key "c" (keys in an object must be unique)',
    },
  ])('refuses a repeated key: $name', ({given, want}) => {
    expect(() => parsed(given)).toThrow(want)
  })

  it.each([
    {
      name: "unexpected '{' (expected ',' or ']')",
      given: '{"items": [{"a": 1} {"b": 2}]}',
      want: "t.json:1:21: invalid JSON: unexpected '{' (expected ',' or ']')",
    },
    {
      name: "unexpected ',' (expected a value)",
      given: '{"items": [{"a": 1},, {"b": 2}]}',
      want: "t.json:1:21: invalid JSON: unexpected ',' (expected a value)",
    },
    {
      name: "unexpected ']' (expected a value)",
      given: '{"items": [{"a": 1},]}',
      want: "t.json:1:21: invalid JSON: unexpected ']' (expected a value)",
    },
    {
      name: "unexpected '2' (expected ':' after a property name)",
      given: '{"items": [{"a": 1}, {"b" 2}]}',
      want: "t.json:1:27: invalid JSON: unexpected '2' (expected ':' after a property name)",
    },
  ])('reports errors between and inside items as the whole-text parse does: $name', ({given, want}) => {
    expect(errorOf(() => loadWorldFromText(given, 't.json'))).toBe(want)
  })

  it('agrees with JSON.parse on generated Lists in any layout (property)', () => {
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        {depthSize: 'small'},
        fc.constantFrom(null, true, false, 0, -1.5, 1e21, '', ']', '[', '{', '"', '\\', 'items', ',', 'é☃'),
        fc.string(),
        fc.array(tie('v'), {maxLength: 3}),
        fc.dictionary(fc.constantFrom('items', 'a', 'kind', '', 'x"y', '\\'), tie('v'), {maxKeys: 3}),
      ),
    })).v
    const list = fc.record({
      apiVersion: fc.constant('v1'),
      items: fc.array(value, {maxLength: 4}),
      kind: fc.constant('List'),
    })
    fc.assert(
      fc.property(
        fc.oneof(list, fc.array(value, {maxLength: 4})),
        fc.constantFrom(undefined, 0, 1, '\t', ' \r\n'),
        (v, indent) => {
          const text = JSON.stringify(v, null, indent as string | number | undefined)
          expect((parsed(text) as {value: unknown[]}).value).toEqual([JSON.parse(text)])
        },
      ),
      {seed: 20261130, numRuns: 400},
    )
  })
})

describe('big JSON files, read a piece at a time', () => {
  const pods = (n: number, extra = '') =>
    Array.from({length: n}, (_, i) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `p-${i}${extra}`,
        namespace: `ns-${i % 7}`,
        labels: {app: 'web'},
        annotations: {note: 'é☃ "quoted" ]'},
      },
      spec: {containers: [{name: 'c', image: 'nginx:1.27'}]},
    }))
  const bigList = (extra = '') =>
    JSON.stringify({apiVersion: 'v1', kind: 'List', items: pods(12_000, extra)}, null, 2)

  it('loads the same World, sources included, as the whole text gives', async () => {
    const text = bigList()
    expect(Buffer.byteLength(text)).toBeGreaterThan(STREAM_MIN_BYTES)
    const file = tmpFile('big-list.json', text)
    // The file takes the streaming path (it would be undefined if the whole file had to decide).
    const read = await readFile({name: file, path: file})
    expect('docs' in read && read.docs[0]?.itemLines).toHaveLength(12_000)
    const streamed = await loadWorld([file])
    const whole = loadWorldFromText(text, file)
    expect(streamed.pods).toEqual(whole.pods)
    expect(streamed.pods.map((p) => streamed.sources.get(p))).toEqual(
      whole.pods.map((p) => whole.sources.get(p)),
    )
  })

  it('words errors in a big file as the whole-file path does', async () => {
    const text = bigList()
    // A missing comma between two items, deep in the file.
    const at = text.indexOf('}\n    },\n    {', text.length / 2) + 7
    const broken = `${text.slice(0, at)}${text.slice(at + 1)}`
    const file = tmpFile('big-broken.json', broken)
    expect(await asyncErrorOf(loadWorld([file]))).toBe(errorOf(() => loadWorldFromText(broken, file)))
    expect(await asyncErrorOf(loadWorld([file]))).toMatch(/^.*big-broken\.json:\d+:\d+: invalid JSON/)
    const nul = tmpFile(
      'big-nul.json',
      Buffer.concat([Buffer.from(text.slice(0, -10)), Buffer.from([0]), Buffer.from(text.slice(-10))]),
    )
    expect(await asyncErrorOf(loadWorld([nul]))).toMatch(/not a text file \(NUL byte at byte \d+\)$/)
  })
})

describe('bytes and sizes', () => {
  it('refuses binary files, naming the offending byte', async () => {
    const nul = tmpFile('nul.yaml', Buffer.from('kind: Pod\n\0\0\0'))
    expect(await asyncErrorOf(loadWorld([nul]))).toBe(`${nul}: not a text file (NUL byte at byte 10)`)
    const latin1 = tmpFile('latin1.yaml', Buffer.from([0x61, 0x3a, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x0a]))
    expect(await asyncErrorOf(loadWorld([latin1]))).toBe(
      `${latin1}: not a text file (invalid UTF-8 at byte 6)`,
    )
    // A surrogate encoded in UTF-8, then a sequence cut short by the end of the file.
    const surrogate = tmpFile(
      'surrogate.yaml',
      Buffer.from([0x61, 0x3a, 0x20, 0xe2, 0x82, 0xac, 0xed, 0xa0, 0x80]),
    )
    expect(await asyncErrorOf(loadWorld([surrogate]))).toBe(
      `${surrogate}: not a text file (invalid UTF-8 at byte 6)`,
    )
    const cut = tmpFile('cut.json', Buffer.from([0x7b, 0x7d, 0x0a, 0xe2, 0x82]))
    expect(await asyncErrorOf(loadWorld([cut]))).toBe(`${cut}: not a text file (invalid UTF-8 at byte 3)`)
  })

  it('refuses NUL bytes in text handed over as a string too (stdin)', async () => {
    expect(await asyncErrorOf(loadWorld(['-'], {stdin: async () => 'é: \0'}))).toBe(
      'STDIN: not a text file (NUL byte at byte 4)',
    )
  })

  it('accepts a UTF-8 byte order mark', async () => {
    const f = tmpFile('bom.yaml', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(POD('bom'))]))
    expect((await loadWorld([f])).pods[0].metadata.name).toBe('bom')
    const j = tmpFile(
      'bom.json',
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(JSON.stringify({kind: 'List', apiVersion: 'v1', items: []})),
      ]),
    )
    expect((await loadWorld([j])).pods).toEqual([])
  })

  it('refuses files over the size limit before reading them', async () => {
    const yaml = join(tmp, 'huge.yaml')
    writeFileSync(yaml, '')
    truncateSync(yaml, 100 * 1024 * 1024)
    expect(await asyncErrorOf(loadWorld([yaml]))).toBe(
      `${yaml}: file is too large (104857600 bytes; the limit for YAML input is 64 MiB)`,
    )
    const json = join(tmp, 'huge.json')
    writeFileSync(json, '')
    truncateSync(json, 600 * 1024 * 1024)
    expect(await asyncErrorOf(loadWorld([json]))).toBe(
      `${json}: file is too large (629145600 bytes; the limit for JSON input is 500 MiB)`,
    )
  })
})

describe('-f paths', () => {
  const dir = join(FIXTURES, 'manifests')

  it('says when a path does not exist', async () => {
    expect(await asyncErrorOf(loadWorld(['no/such/file.yaml']))).toBe(
      'the path "no/such/file.yaml" does not exist',
    )
  })

  it('reads the manifests of a directory in name order, subdirectories only with recursive', async () => {
    const notes: string[] = []
    const flat = await loadWorld([dir], {warn: (l) => notes.push(l)})
    expect(flat.deployments.map((d) => d.metadata.name)).toEqual(['web'])
    expect(flat.pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`)).toEqual(['tools/debug'])
    expect(flat.replicaSets).toEqual([])
    expect(notes).toEqual([
      'note: skipped 3 objects of kinds other than Deployment, ReplicaSet, Pod (Service, ConfigMap)',
    ])
    const deep = await loadWorld([dir], {recursive: true, warn: () => {}})
    expect(deep.replicaSets.map((r) => r.metadata.name)).toEqual(['web-5d4f8b7c9'])
    expect(deep.sources.get(deep.replicaSets[0])).toEqual({
      file: join(dir, 'sub', 'd-replicaset.yaml'),
      line: 1,
      index: 0,
    })
  })

  it('reads a file named explicitly whatever its extension', async () => {
    const f = tmpFile('manifest.txt', POD('txt'))
    expect((await loadWorld([f])).pods[0].metadata.name).toBe('txt')
  })

  it('reads - from standard input, once', async () => {
    const w = await loadWorld(['-'], {stdin: async () => POD('from-stdin')})
    expect(w.pods[0].metadata.name).toBe('from-stdin')
    expect(w.sources.get(w.pods[0])).toEqual({file: 'STDIN', line: 1, index: 0})
    expect(await asyncErrorOf(loadWorld(['-', '-'], {stdin: async () => ''}))).toBe(
      '"-" (standard input) can be given only once',
    )
  })

  it('refuses the same object in two files, naming both', async () => {
    const a = tmpFile('dup-a.yaml', POD('same'))
    const b = tmpFile(
      'dup-b.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n${POD('same')}`,
    )
    expect(await asyncErrorOf(loadWorld([a, b], {warn: () => {}}))).toBe(
      `${b}:5: Pod default/same: duplicate object: also defined at ${a}:1`,
    )
  })
})
