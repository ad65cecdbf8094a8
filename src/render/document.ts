// JSON and YAML documents. Both print the same content: YAML goes through JSON first (undefined
// fields dropped the same way) and uses YAML 1.1 so that strings like `yes`, `on` or `0644` are
// quoted and read back by kubectl as strings; lists are not indented under their key, as kubectl
// prints them. The yaml package is loaded only when needed.

export type DocumentFormat = 'json' | 'yaml'

export async function renderDocument(value: unknown, format: DocumentFormat): Promise<string> {
  const json = JSON.stringify(value, null, 2)
  if (format === 'json') return `${json}\n`
  // yaml is CommonJS: its `default` is module.exports both in Node and in the esbuild bundle, where a
  // dynamic import has no named exports.
  const {default: yaml} = await import('yaml')
  return yaml.stringify(JSON.parse(json), {version: '1.1', lineWidth: 0, indentSeq: false})
}
