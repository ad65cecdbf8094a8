// JSON and YAML documents. Both print the same content: YAML goes through JSON first (undefined
// fields dropped the same way) and uses YAML 1.1 so that strings like `yes`, `on` or `0644` are
// quoted and read back by kubectl as strings; lists are not indented under their key, as kubectl
// prints them. The yaml package is loaded only when needed.

export type DocumentFormat = 'json' | 'yaml'

export async function renderDocument(value: unknown, format: DocumentFormat): Promise<string> {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`
  return (await yamlPrinter())(value)
}

/** The size of the pieces jsonChunks() hands out, give or take one item. */
const JSON_CHUNK_CHARS = 1 << 20

/** What JSON.stringify(value, null, 2) prints for a document's top-level `items` key, before the items. */
const ITEMS_OPEN = '\n  "items": ['

/**
 * The text renderDocument(value, 'json') prints, in pieces of about a megabyte: a document with an
 * `items` list is printed item by item, so that the whole text (tens of megabytes for thousands of
 * Deployments, then as many again as bytes to write) is never held at once. The pieces join to the
 * same bytes: each item is printed by JSON.stringify itself, inside a one-item list at the depth of
 * the document's items, and cut out of it.
 */
export function* jsonChunks(value: unknown): Generator<string> {
  const items = (value as {items?: unknown} | null)?.items
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !Array.isArray(items) ||
    typeof (value as {toJSON?: unknown}).toJSON === 'function'
  ) {
    yield `${JSON.stringify(value, null, 2)}\n`
    return
  }
  // The document with no items: its text around `"items": []`. Strings escape their line breaks, and
  // a nested key is indented further, so the top level's key is the only match.
  const frame = `${JSON.stringify({...value, items: []}, null, 2)}\n`
  const at = frame.indexOf(`${ITEMS_OPEN}]`)
  if (items.length === 0 || at < 0) {
    yield `${JSON.stringify(value, null, 2)}\n`
    return
  }
  const close = at + ITEMS_OPEN.length
  let chunk = frame.slice(0, close)
  const head = `{${ITEMS_OPEN}\n`
  const tail = '\n  ]\n}'
  for (let i = 0; i < items.length; i++) {
    // {"items": [item]} printed with the document's indentation: the item as the document holds it.
    const one = JSON.stringify({items: [items[i]]}, null, 2)
    chunk += `${i === 0 ? '\n' : ',\n'}${one.slice(head.length, one.length - tail.length)}`
    if (chunk.length >= JSON_CHUNK_CHARS) {
      yield chunk
      chunk = ''
    }
  }
  yield `${chunk}\n  ${frame.slice(close)}`
}

/** A YAML printer that runs synchronously once the yaml package is loaded: for streams of documents. */
export async function yamlPrinter(): Promise<(value: unknown) => string> {
  // yaml is CommonJS: its `default` is module.exports both in Node and in the esbuild bundle, where a
  // dynamic import has no named exports.
  const {default: yaml} = await import('yaml')
  return (value) =>
    yaml.stringify(JSON.parse(JSON.stringify(value)), {version: '1.1', lineWidth: 0, indentSeq: false})
}
