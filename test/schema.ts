// A validator for the subset of JSON Schema (2020-12) that docs/schemas/ uses: type, properties,
// required, additionalProperties, items, enum, const, anyOf, minimum, $ref (within a file and to a
// sibling file, `common.json#/$defs/verdict`) and $defs. Small on purpose, instead of adding Ajv as a
// dependency for one test: a keyword outside the subset throws, so a schema cannot silently ask for
// a check that nothing makes.

import {readFileSync} from 'node:fs'
import {join} from 'node:path'

type Schema = {[key: string]: unknown}

const KNOWN = new Set([
  '$schema',
  '$id',
  '$defs',
  '$ref',
  '$comment',
  'title',
  'description',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'minimum',
])

export interface SchemaError {
  path: string
  message: string
}

export class SchemaSet {
  private readonly files = new Map<string, Schema>()

  constructor(private readonly dir: string) {}

  private file(name: string): Schema {
    let s = this.files.get(name)
    if (!s) {
      s = JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as Schema
      this.files.set(name, s)
    }
    return s
  }

  /** The errors of `value` against the schema file `name` (empty: valid). */
  validate(name: string, value: unknown): SchemaError[] {
    const errors: SchemaError[] = []
    this.check(this.file(name), name, value, '$', errors)
    return errors
  }

  private resolve(ref: string, base: string): {schema: Schema; file: string} {
    const [file, pointer] = ref.split('#') as [string, string | undefined]
    const target = file === '' ? base : file
    let node: unknown = this.file(target)
    for (const part of (pointer ?? '').split('/').filter((p) => p !== '')) {
      node = (node as Schema)[part]
      if (node === undefined) throw new Error(`${base}: $ref ${ref} points nowhere`)
    }
    return {schema: node as Schema, file: target}
  }

  private check(schema: Schema, file: string, value: unknown, path: string, errors: SchemaError[]): void {
    for (const key of Object.keys(schema)) {
      if (!KNOWN.has(key)) throw new Error(`${file}: keyword ${key} is outside the validator's subset`)
    }
    const fail = (message: string) => errors.push({path, message})
    if (typeof schema.$ref === 'string') {
      const {schema: target, file: targetFile} = this.resolve(schema.$ref, file)
      this.check(target, targetFile, value, path, errors)
    }
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string]
      if (!types.some((t) => hasType(value, t))) {
        fail(`expected ${types.join(' or ')}, got ${typeOf(value)}`)
        return
      }
    }
    if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) {
      fail(`expected ${JSON.stringify(schema.const)}, got ${JSON.stringify(value)}`)
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((v) => JSON.stringify(v) === JSON.stringify(value))) {
      fail(`${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`)
    }
    if (typeof schema.minimum === 'number' && typeof value === 'number' && value < schema.minimum) {
      fail(`${value} is below the minimum ${schema.minimum}`)
    }
    if (Array.isArray(schema.anyOf)) {
      const branches = (schema.anyOf as Schema[]).map((s) => {
        const e: SchemaError[] = []
        this.check(s, file, value, path, e)
        return e
      })
      if (!branches.some((e) => e.length === 0)) {
        const closest = branches.reduce((a, b) => (b.length < a.length ? b : a))
        errors.push(...closest)
      }
    }
    if (isObject(value)) {
      const properties = (schema.properties ?? {}) as Record<string, Schema>
      for (const key of (schema.required ?? []) as string[]) {
        if (!(key in value)) fail(`missing required field ${key}`)
      }
      for (const [key, v] of Object.entries(value)) {
        const p = properties[key]
        if (p) this.check(p, file, v, `${path}.${key}`, errors)
        else if (schema.additionalProperties === false) fail(`unexpected field ${key}`)
        else if (isObject(schema.additionalProperties))
          this.check(schema.additionalProperties, file, v, `${path}.${key}`, errors)
      }
    }
    if (Array.isArray(value) && isObject(schema.items)) {
      for (const [i, v] of value.entries()) this.check(schema.items, file, v, `${path}[${i}]`, errors)
    }
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function typeOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  return typeof v
}

function hasType(v: unknown, t: string): boolean {
  const actual = typeOf(v)
  return actual === t || (t === 'number' && actual === 'integer')
}
