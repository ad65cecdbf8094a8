// The output vocabulary every command shares, as kubectl's PrintFlags: -o table (the default where
// a table is printed; `text` is accepted for it), wide, json, yaml, name and jsonpath=TEMPLATE, and
// --no-headers for tables. Documents are the commands' JSON envelopes (or a List of objects).

import {UsageError} from '../errors.js'
import {renderDocument} from './document.js'
import {JsonPathError, jsonpath, parseTemplate} from './jsonpath.js'

export type OutputFormat =
  | {kind: 'table' | 'wide' | 'json' | 'yaml' | 'name'}
  | {kind: 'jsonpath'; template: string}

export type OutputKind = OutputFormat['kind']

/** kubectl's spelling of each format, as -o takes it (jsonpath with its template). */
export const OUTPUT_KINDS: readonly OutputKind[] = ['table', 'wide', 'json', 'yaml', 'name', 'jsonpath']

/**
 * Parses -o for a command that prints `allowed` formats. `text` is the old name of explain's table
 * output and is read as `table`; `jsonpath=T`, `jsonpath='T'` and kubectl's `jsonpath T`-less forms.
 */
export function parseOutput(value: string, allowed: readonly OutputKind[]): OutputFormat {
  const v = value.trim()
  const m = /^jsonpath(?:=(.*))?$/s.exec(v)
  if (m) {
    if (allowed.includes('jsonpath')) {
      const template = m[1] ?? ''
      if (template === '')
        throw new UsageError('template format specified but no template given: use -o jsonpath=TEMPLATE')
      try {
        parseTemplate(template)
      } catch (err) {
        if (err instanceof JsonPathError)
          throw new UsageError(`error parsing jsonpath ${template}, ${err.message}`)
        throw err
      }
      return {kind: 'jsonpath', template}
    }
  } else {
    const kind = (v === 'text' ? 'table' : v) as OutputKind
    if (allowed.includes(kind) && kind !== 'jsonpath') return {kind}
  }
  const list = allowed.map((k) => (k === 'jsonpath' ? 'jsonpath=TEMPLATE' : k)).join('|')
  throw new UsageError(
    `unable to match a printer suitable for the output format "${value}", allowed formats are: ${list}`,
  )
}

/** A document in one of the structured formats: json, yaml, name or jsonpath. */
export async function renderStructured(doc: unknown, format: OutputFormat): Promise<string> {
  switch (format.kind) {
    case 'json':
    case 'yaml':
      return renderDocument(doc, format.kind)
    case 'name':
      return namesOf(doc)
        .map((n) => `${n}\n`)
        .join('')
    case 'jsonpath':
      return jsonpath(format.template, doc)
    default:
      throw new Error(`${format.kind} is not a structured format`)
  }
}

/** True for the formats renderStructured prints. */
export function isStructured(format: OutputFormat): boolean {
  return format.kind !== 'table' && format.kind !== 'wide'
}

const RESOURCE: Record<string, string> = {
  Deployment: 'deployment.apps',
  ReplicaSet: 'replicaset.apps',
  Pod: 'pod',
}

/**
 * kubectl's -o name: `deployment.apps/web`, one per object. An envelope names its Deployments
 * (each item's `deployment`), a List its objects.
 */
export function namesOf(doc: unknown): string[] {
  const d = doc as {kind?: string; items?: unknown[]}
  return (d.items ?? []).map((item) => {
    const i = item as {
      deployment?: {name?: string}
      kind?: string
      metadata?: {name?: string}
    }
    if (i.deployment) return `deployment.apps/${i.deployment.name ?? ''}`
    const resource = RESOURCE[i.kind ?? ''] ?? (i.kind ?? '').toLowerCase()
    return `${resource}/${i.metadata?.name ?? ''}`
  })
}
