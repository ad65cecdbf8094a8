// JSON and YAML documents. Both print the same content: YAML goes through JSON first (undefined
// fields dropped the same way) and uses YAML 1.1 so that strings like `yes`, `on` or `0644` are
// quoted and read back by kubectl as strings; lists are not indented under their key, as kubectl
// prints them. The yaml package is loaded only when needed.

export type DocumentFormat = 'json' | 'yaml'

export async function renderDocument(value: unknown, format: DocumentFormat): Promise<string> {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`
  return (await yamlPrinter())(value)
}

/** A YAML printer that runs synchronously once the yaml package is loaded: for streams of documents. */
export async function yamlPrinter(): Promise<(value: unknown) => string> {
  // yaml is CommonJS: its `default` is module.exports both in Node and in the esbuild bundle, where a
  // dynamic import has no named exports.
  const {default: yaml} = await import('yaml')
  return (value) =>
    yaml.stringify(JSON.parse(JSON.stringify(value)), {version: '1.1', lineWidth: 0, indentSeq: false})
}
