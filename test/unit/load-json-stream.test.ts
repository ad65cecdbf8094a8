// The streaming reader of big JSON Lists (src/cluster/load/json-stream.ts) against the whole-text
// reader it stands in for (parseJson): where it answers, it must answer the same; where it is not
// sure, it must say so rather than guess. Chunks of a few bytes put every boundary everywhere.

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {MAX_DEPTH} from '../../src/cluster/load/doc.js'
import {parseJson} from '../../src/cluster/load/json.js'
import {type ByteSource, readJsonListStream} from '../../src/cluster/load/json-stream.js'

function source(bytes: Buffer): ByteSource {
  return {
    size: bytes.length,
    read: (into, offset, length, position) =>
      bytes.copy(into, offset, position, Math.min(position + length, bytes.length)),
  }
}

function whole(bytes: Buffer) {
  try {
    return parseJson('t.json', {bytes, text: () => bytes.toString('utf8')}).map(
      ({value, line, index, itemLines}) => ({
        value,
        line,
        index,
        itemLines,
      }),
    )
  } catch {
    return 'error'
  }
}

const streamed = (bytes: Buffer, chunk: number) => readJsonListStream(source(bytes), chunk)

describe('JSON Lists read from the file a piece at a time', () => {
  it('gives the value, line and item lines of the whole-text reader, whatever the chunk size', () => {
    const text = Buffer.from(
      '\n\n{"apiVersion": "v1", "kind": "List",\n "items": [\n  {"a": "x\\"]}", "é": ["☃", {"b": null}]},\n  [1, 2],\n  {}\n ], "metadata": {"resourceVersion": ""}}\n\n',
    )
    for (const chunk of [1, 2, 3, 5, 7, 64, 1 << 20]) {
      const docs = streamed(text, chunk)
      expect(docs).toEqual(whole(text))
      expect(docs?.[0]?.line).toBe(3)
      expect(docs?.[0]?.itemLines).toEqual([5, 6, 7])
    }
    const array = Buffer.from('[{"a": 1}, {"b": [2]}]')
    expect(streamed(array, 4)).toEqual(whole(array))
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"items": [{"a": 1}]}')])
    expect(streamed(bom, 64)).toEqual(whole(bom))
  })

  it('holds an item bigger than a chunk', () => {
    const big = Buffer.from(
      JSON.stringify({kind: 'List', items: [{a: 'x'.repeat(5000)}, {b: ['é'.repeat(300)]}]}),
    )
    expect(streamed(big, 16)).toEqual(whole(big))
  })

  it('finds the end of strings around the length where its quote search changes hands', () => {
    // Escaped quotes and backslash runs on either side of the 64-byte short-string loop.
    const strings: string[] = []
    for (const n of [1, 62, 63, 64, 65, 66, 130]) {
      strings.push('a'.repeat(n), `${'a'.repeat(n)}"}]`, `${'a'.repeat(n)}\\`, `${'a'.repeat(n)}\\"]`)
    }
    const text = Buffer.from(
      `{"kind": "List",\n "items": [\n${strings.map((s) => `  {${JSON.stringify(s)}: [${JSON.stringify(s)}]}`).join(',\n')}\n ]}`,
    )
    for (const chunk of [3, 64, 100, 1 << 20]) expect(streamed(text, chunk)).toEqual(whole(text))
    expect(streamed(text, 1 << 20)?.[0]?.itemLines).toHaveLength(strings.length)
  })

  it('reads pretty-printed items whole and still refuses what the byte scan refuses', () => {
    const pretty = (item: string) =>
      Buffer.from(`{\n "kind": "List",\n "items": [\n  {\n${item}\n  }\n ]\n}\n`)
    // A repeated key; one that an escaped colon would hide from a count of the text's colons; one
    // whose colon follows whitespace (a count of colons after quotes would miss it); one hidden by
    // a value that starts with a colon.
    for (const item of [
      '   "a": "x:y",\n   "a": "z"',
      '   "a": "y",\n   "a": "\\u003a"',
      '   "a": "y",\n   "a" : "z"',
      '   "a": "y",\n   "a":\n "z"',
      '   "a": ":y",\n   "a": "z"',
      '   "a": "\\":",\n   "a": "z"',
    ]) {
      const bytes = pretty(item)
      expect(whole(bytes)).toBe('error')
      for (const chunk of [1, 7, 1 << 20]) expect(streamed(bytes, chunk)).toBeUndefined()
    }
    // Nested beyond the limit inside an item.
    const deep = pretty(`   "a": ${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}`)
    expect(streamed(deep, 1 << 20)).toBeUndefined()
    // A closing brace elsewhere than at the item's indentation, escapes and colons in strings,
    // items after one read byte by byte: the same value and lines as the whole text.
    const odd = Buffer.from(
      '{"kind": "List", "items": [\n  {\n   "a": "\\u003a:\\"}", "b": {"c:": [1]}},\n  {\n   "d": "\\n  }"\n  },\n  {"e": 1},\n  {\n   "f": "é:"\n  }\n]}',
    )
    for (const chunk of [1, 5, 64, 1 << 20]) {
      expect(streamed(odd, chunk)).toEqual(whole(odd))
      expect(streamed(odd, chunk)?.[0]?.itemLines).toEqual([2, 4, 7, 8])
    }
    // Colons after whitespace or quotes inside strings, and a key's colon after whitespace, without
    // a repeated key: read (byte by byte where the count cannot tell), as the whole text reads them.
    const colons = pretty('   "a": "x : y",\n   "b": ":z",\n   "c": "\\":",\n   "d" :\n "w"')
    for (const chunk of [1, 7, 1 << 20]) {
      expect(streamed(colons, chunk)).toEqual(whole(colons))
      expect(streamed(colons, chunk)).toBeDefined()
    }
  })

  it.each([
    {name: 'a second value after the List', given: '{"items": []} {"items": []}'},
    {name: 'a single object that is not a List', given: '{"kind": "Deployment", "spec": {}}'},
    {name: 'scalars among the items', given: '{"items": [1, {"a": 1}]}'},
    {name: 'a string item', given: '["x"]'},
    {name: 'a missing comma', given: '{"items": [{"a": 1} {"b": 2}]}'},
    {name: 'a trailing comma', given: '{"items": [{"a": 1},]}'},
    {name: 'a leading comma', given: '[, {"a": 1}]'},
    {name: 'a second items key', given: '{"items": [{"a": 1}], "items": []}'},
    {name: 'an escaped key in the List itself', given: '{"items": [{"a": 1}], "\\u0069tems": []}'},
    {name: 'a mismatched bracket', given: '[{"a": 1}}'},
    {name: 'an unterminated string', given: '{"items": [{"a": "x}]}'},
    {name: 'a List cut short', given: '{"items": [{"a": 1}'},
    {name: 'junk after the List', given: '{"items": []} x'},
    {name: 'a NUL byte', given: '{"items": [{"a": "\u0000"}]}'},
    {
      name: 'nesting beyond the limit',
      given: `{"items": [${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}]}`,
    },
  ])('says it is not sure about $name', ({given}) => {
    for (const chunk of [1, 3, 1 << 20]) expect(streamed(Buffer.from(given), chunk)).toBeUndefined()
  })

  it('says it is not sure about bytes that are not UTF-8', () => {
    const bad = Buffer.concat([Buffer.from('{"items": [{"a": "'), Buffer.from([0xe9]), Buffer.from('"}]}')])
    expect(streamed(bad, 4)).toBeUndefined()
  })

  it('answers for every plain List, and as the whole-text reader does (property)', () => {
    const scalar = fc.oneof(
      fc.constantFrom(
        null,
        true,
        false,
        0,
        -1.5,
        1e21,
        '',
        ']',
        '[',
        '{',
        '}',
        '"',
        '\\',
        'items',
        ',',
        ':',
        'é☃',
        '\\"]',
      ),
      fc.string({unit: 'grapheme'}),
      fc.integer(),
    )
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        {depthSize: 'small'},
        scalar,
        fc.array(tie('v'), {maxLength: 3}),
        fc.dictionary(fc.constantFrom('items', 'a', 'kind', '', 'x"y', '\\', 'é'), tie('v'), {maxKeys: 3}),
      ),
    })).v
    const item = fc.oneof(fc.dictionary(fc.string(), value, {maxKeys: 3}), fc.array(value, {maxLength: 3}))
    const list = fc.record({
      apiVersion: fc.constant('v1'),
      items: fc.array(item, {maxLength: 5}),
      kind: fc.constant('List'),
      // No backslash in the List's own text: the reader leaves an escaped key to the whole text.
      metadata: fc.dictionary(
        fc.constantFrom('resourceVersion', 'a'),
        fc.constantFrom('', '123', 'é☃', ']'),
        {
          maxKeys: 2,
        },
      ),
    })
    fc.assert(
      fc.property(
        fc.oneof(list, fc.array(item, {maxLength: 5})),
        fc.constantFrom(undefined, 0, 1, '\t', ' \r\n'),
        fc.integer({min: 1, max: 48}),
        (v, indent, chunk) => {
          const bytes = Buffer.from(JSON.stringify(v, null, indent as string | number | undefined))
          expect(streamed(bytes, chunk)).toEqual(whole(bytes))
        },
      ),
      {seed: 20261130, numRuns: 500},
    )
  })

  it('never answers otherwise than the whole-text reader on damaged input (property)', () => {
    const base = JSON.stringify(
      {apiVersion: 'v1', kind: 'List', items: [{a: 'x"]', b: [1, {c: 'é'}]}, [2], {d: {}}]},
      null,
      1,
    )
    const damage = fc.record({
      at: fc.nat(base.length),
      cut: fc.nat(3),
      insert: fc.constantFrom('', ',', ']', '[', '{', '}', '"', '\\', ' ', '\n', 'x', '1', ':', '\u0000'),
    })
    fc.assert(
      fc.property(
        fc.array(damage, {minLength: 1, maxLength: 3}),
        fc.integer({min: 1, max: 32}),
        (ds, chunk) => {
          let text = base
          for (const d of ds) text = text.slice(0, d.at) + d.insert + text.slice(d.at + d.cut)
          const bytes = Buffer.from(text)
          const got = streamed(bytes, chunk)
          if (got !== undefined) expect(got).toEqual(whole(bytes))
        },
      ),
      {seed: 20261130, numRuns: 1000},
    )
  })
})
