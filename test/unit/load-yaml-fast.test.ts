// The fast YAML path (js-yaml) against the exact one (yaml): for any text, the loader must give the
// same values, the same lines and the same error as the exact reader alone. Generated documents are
// full of scalars that YAML 1.1 resolves in surprising ways; FC_SEED / FC_RUNS widen the search.

import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {MAX_DEPTH, type ParsedDoc} from '../../src/cluster/load/doc.js'
import * as exactReader from '../../src/cluster/load/yaml.js'
import {parseYaml, parseYamlFast, provideExactReader} from '../../src/cluster/load/yaml-fast.js'
import {readSimpleYaml} from '../../src/cluster/load/yaml-simple.js'
import {IMPLICIT_SCALARS} from '../../src/cluster/load/yaml11.js'
import {yamlPrinter} from '../../src/render/document.js'

const {parseYamlExact} = exactReader
provideExactReader(exactReader)

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261130
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 400

type Parse = (file: string, text: string) => ParsedDoc[]

/** What the object collector gets out of a parse: values, lines (items as collect.ts finds them), or the error. */
function outcome(parse: Parse, text: string): unknown {
  let docs: ParsedDoc[]
  try {
    docs = parse('f.yaml', text)
  } catch (e) {
    return {error: (e as Error).message}
  }
  return docs.map((d) => {
    const v = d.value as Record<string, unknown>
    const items = Array.isArray(v) ? v : Array.isArray(v.items) ? v.items : undefined
    const prefix = Array.isArray(v) ? [] : ['items']
    const lines = d.itemLines?.length === items?.length ? d.itemLines : undefined
    const itemLines = items?.map((_, i) => lines?.[i] || d.locate?.([...prefix, i]) || d.line)
    return {value: d.value, line: d.line, index: d.index, itemLines}
  })
}

/** Whether the line reader (./yaml-simple.ts) reads the text itself, before js-yaml. */
const lineReaderTakes = (text: string): boolean =>
  readSimpleYaml(text, IMPLICIT_SCALARS, {maxDepth: MAX_DEPTH - 10, maxKey: 1000}) !== undefined

/** The property: with the fast path, everything is as the exact reader alone makes it. */
function expectSame(text: string): boolean {
  expect(outcome(parseYaml, text)).toStrictEqual(outcome(parseYamlExact, text))
  return parseYamlFast('f.yaml', text) !== undefined
}

const YAML_FILES = ['test/fixtures', 'examples'].flatMap((dir) =>
  readdirSync(dir, {recursive: true, encoding: 'utf8'})
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => join(dir, f)),
)

// Plain scalars YAML 1.1 (as kubectl reads it) resolves to something other than a string, or
// nearly does.
const TRICKY = [
  ...['true', 'True', 'TRUE', 'tRUE', 'false', 'False', 'FALSE', 'fAlse', 'yes', 'Yes', 'YES', 'yES'],
  ...['no', 'No', 'NO', 'nO', 'y', 'Y', 'n', 'N', 'on', 'On', 'ON', 'oN', 'off', 'Off', 'OFF', 'oFF'],
  ...['~', 'null', 'Null', 'NULL', 'nULL', 'none', 'None', ''],
  ...['0', '-0', '+0', '00', '007', '0644', '-0644', '08', '09', '0_644', '0o644', '0O17', '0x1F'],
  ...['0X1F', '-0x1f', '0x_1', '0x', '0xg', '0b101', '-0b1_0', '0B1', '0b', '0b2', '1_000', '1__0'],
  ...['_1', '1_', '+12', '-12', '123456789012345678901234567890', '9007199254740993', '1e3', '1E3'],
  ...['1e+3', '-1.5e-3', '1.5E+03', '6.8523015e+5', '1e', 'e3', '.5', '-.5', '5.', '1.', '1.0', '1._0'],
  ...['1_0.5_0', '0.1_2', '00.5', '.', '..', '.inf', '-.Inf', '+.INF', '.nan', '.NaN', '.NAN', 'inf'],
  ...['NaN', 'Infinity', '2001-12-14', '2001-12-14t21:59:43.10-05:00', '2002-12-14 21:59:43.10 -5'],
  ...['1:20', '-1:20', '190:20:30.15', '12:30:45', '1:2:3', '+', '-', '=', '<<', 'http://x/y?z'],
  ...['a b', 'a:b', 'a#b', 'a #b', 'key: value', '- x', '"', "'", '@x', '`x', '|', '>', 'nginx:1.27'],
]
const tricky = fc.constantFrom(...TRICKY)
const word = fc.string({
  unit: fc.constantFrom('a', 'Z', '0', '1', '7', '_', '.', '-', '+', ':', '#', ' ', 'x', 'e', 'E', '/'),
  maxLength: 8,
})
const text = fc.oneof(tricky, tricky, word)
const escaped = fc.constantFrom(
  ...['\\n', '\\t', '\\\t', '\\x41', '\\u00e9', '\\ud83d', '\\U0001F600', '\\/', '\\ ', '\\_', '\\0'],
  ...['\\a', '\\e', '\\N', '\\L', '\\P', '\\\\', '\\x4', '\\q', "\\'"],
)
const quotedText = fc
  .array(fc.oneof(text, escaped, fc.constant('\n'), fc.constant('\\\n')), {maxLength: 4})
  .map((parts) => parts.join(''))
const quoted = fc
  .tuple(fc.boolean(), quotedText)
  .map(([single, s]) => (single ? `'${s.replaceAll("'", "''")}'` : `"${s.replaceAll('"', '\\"')}"`))
const multiline = fc.tuple(text, text).map(([a, b]) => `${a}\n${b}`)
const scalar = fc.oneof(
  {weight: 6, arbitrary: text},
  {weight: 2, arbitrary: quoted},
  {weight: 1, arbitrary: multiline},
)
// `items` makes Lists, whose items get lines of their own.
const key = fc.oneof({weight: 4, arbitrary: scalar}, {weight: 1, arbitrary: fc.constant('items')})
const comment = fc.oneof(
  {weight: 4, arbitrary: fc.constant('')},
  {weight: 1, arbitrary: fc.constant(' # c: 1')},
)
const blockLine = fc.oneof(
  text,
  fc.constantFrom('', ' ', '  ', '#', '# c', '\tx'),
  text.map((s) => `  ${s}`),
  text.map((s) => `${s}  `),
)

// What comes before an entry: usually nothing, else a blank line or a comment (PAD: indented).
const gap = fc.constantFrom('', '', '', '\n', '# c\n', 'PAD# c\n')

type Tree =
  | {t: 'scalar'; s: string; c: string}
  | {t: 'block'; head: string; lines: string[]}
  | {t: 'map' | 'seq'; flow: boolean; step: number; items: Array<[string, Tree, string]>}

const tree = fc.letrec<{node: Tree}>((tie) => ({
  node: fc.oneof(
    {depthSize: 'small', withCrossShrink: true},
    fc.record({t: fc.constant('scalar' as const), s: scalar, c: comment}),
    fc.record({
      t: fc.constant('block' as const),
      head: fc.constantFrom('|', '>', '|-', '>-', '|+', '>+', '|2', '>1-', '| # c'),
      lines: fc.array(blockLine, {maxLength: 4}),
    }),
    fc.record({
      t: fc.constantFrom('map' as const, 'seq' as const),
      flow: fc.boolean(),
      // Indentation of the children; 0 puts a sequence under its key at the key's indentation, and
      // a mapping in a sequence on the line of its `-`.
      step: fc.constantFrom(0, 1, 2, 2, 4),
      items: fc.array(fc.tuple(key, tie('node') as fc.Arbitrary<Tree>, gap), {minLength: 1, maxLength: 4}),
    }),
  ),
}))

function flow(n: Tree): string {
  if (n.t === 'scalar') return n.s
  if (n.t === 'block') return JSON.stringify(n.lines.join('\n'))
  const items = n.items.map(([k, v]) => (n.t === 'map' ? `${k}: ${flow(v)}` : flow(v)))
  return n.t === 'map' ? `{${items.join(', ')}}` : `[${items.join(', ')}]`
}

/** Renders a node as the value after `key:` or `- ` at indentation `ind`, starting on that line. */
function block(n: Tree, ind: number): string {
  const pad = ' '.repeat(ind + 2)
  if (n.t === 'scalar') return ` ${n.s.replaceAll('\n', `\n${pad}`)}${n.c}\n`
  if (n.t === 'block') return ` ${n.head}\n${n.lines.map((l) => (l === '' ? '\n' : `${pad}${l}\n`)).join('')}`
  if (n.flow) return ` ${flow(n).replaceAll('\n', `\n${pad}`)}\n`
  return `\n${collection(n, ind + n.step)}`
}

function collection(n: Tree & {t: 'map' | 'seq'}, ind: number): string {
  const pad = ' '.repeat(ind)
  return n.items
    .map(([k, v, before]) => {
      const head = before.replace('PAD', pad)
      if (n.t === 'map') return `${head}${pad}${k}:${block(v, ind)}`
      if (v.t === 'map' && !v.flow && v.step === 0)
        return `${head}${pad}- ${collection(v, ind + 2).trimStart()}`
      return `${head}${pad}-${block(v, ind)}`
    })
    .join('')
}

const documents = fc
  .tuple(
    fc.array(
      fc.tuple(
        tree.node,
        fc.constantFrom('', '---\n', '--- # doc\n', '\n# c\n---\n', '...\n---\n', '---\n\n'),
      ),
      {minLength: 1, maxLength: 3},
    ),
    fc.boolean(),
  )
  .map(([docs, crlf]) => {
    const t = docs
      .map(([n, sep]) =>
        n.t === 'map' || n.t === 'seq'
          ? sep + (n.flow ? `${flow(n)}\n` : collection(n, 0))
          : `${sep}x:${block(n, 0)}`,
      )
      .join('')
    return crlf ? t.replaceAll('\n', '\r\n') : t
  })

describe('the fast YAML path', () => {
  it('reads generated documents exactly as the exact reader does', () => {
    let fast = 0
    let lineReader = 0
    fc.assert(
      fc.property(documents, (t) => {
        if (expectSame(t)) fast++
        if (lineReaderTakes(t)) lineReader++
      }),
      {seed: SEED, numRuns: RUNS},
    )
    // Most generated documents are valid YAML that the fast path reads itself, many of them with
    // the line reader (the rest have flow collections, folded scalars, CRLF...).
    expect(fast).toBeGreaterThan(RUNS / 5)
    expect(lineReader).toBeGreaterThan(RUNS / 20)
  })

  it('reads kubectl-shaped YAML with the line reader: every example, and each as -o yaml prints it', async () => {
    const print = await yamlPrinter()
    const examples = YAML_FILES.filter((f) => f.startsWith('examples'))
    expect(examples.length).toBeGreaterThan(10)
    for (const f of examples) {
      const text = readFileSync(f, 'utf8')
      expect(lineReaderTakes(text), f).toBe(true)
      expectSame(text)
      const docs = parseYamlExact(f, text).map((d) => d.value)
      const printed = docs.map((d) => print(d)).join('---\n')
      expect(lineReaderTakes(printed), `${f} as printed`).toBe(true)
      expectSame(printed)
    }
  })

  it('resolves every tricky scalar as a value, as a key and in a flow collection as the exact reader does', () => {
    for (const s of TRICKY) {
      expectSame(`a: ${s}\n`)
      expectSame(`${s}: a\n`)
      expectSame(`[${s}, {${s}: ${s}}]\n`)
      expectSame(`- '${s.replaceAll("'", "''")}'\n- ${JSON.stringify(s)}\n`)
    }
    const t = 'a: [on, 0644, 0x1F, 0b11, 1_000, 1e3, 2001-12-14, 1:20]\nb: ~\n'
    expect(parseYamlFast('f.yaml', t)?.[0].value).toStrictEqual({
      a: [true, 420, 31, 3, 1000, 1000, '2001-12-14', '1:20'],
      b: null,
    })
  })

  it('reads every YAML fixture and example as the exact reader does', () => {
    expect(YAML_FILES.length).toBeGreaterThan(50)
    for (const f of YAML_FILES) expectSame(readFileSync(f, 'utf8'))
  })

  it('reads fixtures with random edits as the exact reader does, errors included', () => {
    // The smaller files: each run parses its text twice, the exact way included.
    const texts = YAML_FILES.map((f) => readFileSync(f, 'utf8')).filter((t) => t.length < 30_000)
    const piece = fc.constantFrom(
      ...[' ', '  ', '\t', '\n', '- ', ':', ': ', '#', ' #', '"', "'", '|', '>-', '[', ']', '{', '}'],
      ...[',', '? ', '---\n', '...\n', '\\', 'yes', '~', '\n  ', '\n- ', '\r\n', '\r', '\u2028', '%'],
      ...['\u0085', '&a ', '*a', '!!str ', '<<: ', '----'],
    )
    const edit = fc.tuple(fc.nat(), fc.nat({max: 3}), piece)
    fc.assert(
      fc.property(fc.nat(texts.length - 1), fc.array(edit, {minLength: 1, maxLength: 3}), (i, edits) => {
        let t = texts[i]
        for (const [at, cut, p] of edits) {
          const k = at % (t.length + 1)
          t = t.slice(0, k) + p + t.slice(k + cut)
        }
        expectSame(t)
      }),
      {seed: SEED, numRuns: RUNS},
    )
  })

  it('leaves to the exact reader what js-yaml reads differently', () => {
    const long = 'k'.repeat(1100)
    for (const t of [
      // Anchors, aliases, tags, merge keys, directives, explicit and collection keys, null keys.
      'a: &x 1\nb: *x\n',
      '- !!str 0644\n',
      'a: ! 12\n',
      'a: {<<: {b: 1}}\n',
      '<<: {b: 1}\n',
      '%YAML 1.2\n---\na: 0644\n',
      '? a\n: b\n',
      '[a, b]: c\n',
      '{a: 1}: c\n',
      'null: 1\n',
      '~: 1\n',
      // Values JSON has no form for.
      'a: .inf\n',
      // Differences found by the properties above, each once a silent wrong answer or a lost error.
      '----\n',
      '---\u2028a\n',
      '- -\n- a\n',
      'a:\n  -\n- x\n',
      'x: |\n    \n  a\n',
      'x: |2\n    \n',
      'x: >1-\n    \n',
      'x: "a\\\n\n  b"\n',
      'x: "\\U0011FFFF"\n',
      'x: "a"#\n',
      'x: {}#\n',
      '[#, a]\n',
      `${long}: 1\n`,
      `["${long}":1]\n`,
      'a:\n\tb: 1\n',
      '\ta: 1\n',
      'a: 1\rb: 2\r',
    ]) {
      expect(parseYamlFast('f.yaml', t), t).toBeUndefined()
      expectSame(t)
    }
  })

  it('leaves deep nesting to the exact reader, without overflowing the stack', () => {
    const deep = '['.repeat(100_000)
    expect(parseYamlFast('f.yaml', deep)).toBeUndefined()
    expect(outcome(parseYaml, deep)).toMatchObject({error: expect.stringContaining('nested deeper than')})
    expectSame(deep)
    const depths = Array.from({length: 19}, (_, i) => MAX_DEPTH - 15 + i)
    for (const n of [95, 98, 99, 100, 101, 102, 105, ...depths]) {
      expectSame(`${'['.repeat(n)}1${']'.repeat(n)}\n`)
      expectSame(`${'- '.repeat(n)}1\n`)
      expectSame(
        Array.from({length: n}, (_, i) => `${' '.repeat(i)}k:`)
          .join('\n')
          .concat(' 1\n'),
      )
    }
  })

  it('gives List items their lines, and finds field lines in the right document', () => {
    const t = [
      '# header',
      'kind: List',
      'items:',
      '- # first',
      '  kind: Pod',
      '-',
      '  # second',
      '  kind: Pod',
      '- {kind: Pod}',
      '---',
      '- a',
      '- [b,',
      '   c]',
      '---',
      'x: 1',
      'spec:',
      '  replicas: 2',
      '--- [',
      '  a]',
      '---',
      'items: [',
      '  {kind: Pod},',
      '  {kind: Pod}]',
      '--- {kind: List, items: [',
      '  {kind: Pod}]}',
    ].join('\n')
    const docs = parseYamlFast('f.yaml', t)
    expect(docs?.map((d) => [d.line, d.index, d.itemLines])).toStrictEqual([
      [2, 0, [5, 8, 9]],
      [11, 1, [11, 12]],
      [15, 2, undefined],
      [18, 3, [19]],
      [21, 4, [22, 23]],
      [24, 5, [25]],
    ])
    expect(docs?.[2].locate?.(['spec', 'replicas'])).toBe(17)
    expectSame(t)
  })
})
