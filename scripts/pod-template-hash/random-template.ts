// Random pod templates from a seeded generator that walks one minor's type table, so every type
// and field of that table gets exercised (gen-templates.ts, gen-version-vectors.ts).

import type {HashTypeData} from '../../src/controller/util/hash-types.js'

export type Json = null | boolean | number | string | Json[] | {[k: string]: Json}

// Every quantity form the API accepts, in limits and requests, and as an emptyDir sizeLimit.
export const QUANTITIES: Json[] = [
  '0',
  '0.0',
  '00100',
  '1',
  '+1',
  '-1',
  '1000m',
  '100m',
  '0.5',
  '.5',
  '1.',
  '0.1m',
  '1n',
  '1u',
  '100u',
  '1500m',
  '2.5',
  '1k',
  '1000',
  '1M',
  '1.5M',
  '1G',
  '1T',
  '1P',
  '1E',
  '1000E',
  '1e3',
  '1E3',
  '1e+3',
  '1e-3',
  '5e-9',
  '3e-10',
  '1e18',
  '1e19',
  '1e21',
  '12e6',
  '1Ki',
  '1023Ki',
  '1024',
  '1025',
  '2048',
  '1Mi',
  '500Mi',
  '512Mi',
  '1.5Gi',
  '1Gi',
  '0.5Gi',
  '0.5Ki',
  '1.1Mi',
  '100Ti',
  '512Ti',
  '1Pi',
  '1Ei',
  '8Ei',
  '9Ei',
  '-1.5Gi',
  '-0.5',
  '123456789012345678',
  '1234567890123456789',
  '12345678901234567890',
  '9223372036854775807',
  '9223372036854775808',
  '0.000000001',
  '0.0000000001',
  '1.000000000000000000001',
  1,
  0.5,
  2,
  1000,
  1e3,
  0.25,
]

export function randomTemplateGenerator(data: HashTypeData, seed: number): () => Json {
  let state = seed >>> 0
  function random(): number {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1))

  const STRINGS = [
    '',
    'a',
    'web',
    'nginx:1.27',
    'app.kubernetes.io/name',
    ' ',
    'x y',
    'ü',
    '日本',
    '😀',
    'a:b',
    '(x)',
    '{}',
    '<nil>',
    'map[]',
    '"q"',
    'line\nbreak',
    '0',
    'true',
    'TCP',
    'Always',
    'IfNotPresent',
  ]
  function randomString(): string {
    if (random() < 0.7) return pick(STRINGS)
    let s = ''
    for (let n = int(1, 12); n > 0; n--)
      s += String.fromCodePoint(
        pick([int(0x20, 0x7e), int(0x20, 0x7e), int(0xa0, 0x2fff), int(0x1f300, 0x1f5ff)]),
      )
    return s
  }
  function randomQuantity(): Json {
    if (random() < 0.5) return pick(QUANTITIES)
    const digits = String(int(0, 10 ** int(1, 9)))
    const frac = random() < 0.3 ? `.${String(int(0, 999)).padStart(int(1, 4), '0')}` : ''
    const suffix = pick([
      '',
      '',
      'm',
      'n',
      'u',
      'k',
      'M',
      'G',
      'T',
      'P',
      'E',
      'Ki',
      'Mi',
      'Gi',
      'Ti',
      'Pi',
      'Ei',
      'e3',
      'e-2',
      'E6',
    ])
    return `${random() < 0.1 ? '-' : ''}${digits}${frac}${suffix}`
  }
  function randomTime(): Json {
    if (random() < 0.4) return null
    const ms = int(-2_000_000_000, 4_000_000_000) * 1000
    const iso = new Date(ms).toISOString()
    return random() < 0.5 ? iso.replace('.000Z', 'Z') : iso
  }

  const INT_KINDS: Record<string, [number, number]> = {
    int32: [-(2 ** 31), 2 ** 31 - 1],
    int64: [-(2 ** 53) + 1, 2 ** 53 - 1],
    int: [-(2 ** 53) + 1, 2 ** 53 - 1],
  }
  function randomInt(kind: string): number {
    const [lo, hi] = INT_KINDS[kind]!
    const r = random()
    if (r < 0.2) return 0
    if (r < 0.5) return int(-5, 100)
    return Math.max(lo, Math.min(hi, Math.round((random() * 2 - 1) * (random() < 0.5 ? hi : 100000))))
  }

  const types = data.types
  /** A JSON value for a Go type, `depth` levels into the template. */
  function gen(ref: string, depth: number): Json | undefined {
    if (ref.startsWith('*')) return random() < 0.5 ? undefined : gen(ref.slice(1), depth)
    if (ref.startsWith('[]')) {
      const r = random()
      if (r < 0.15) return r < 0.05 ? null : []
      const n = depth > 4 ? int(0, 1) : int(1, 3)
      return Array.from({length: n}, () => gen(ref.slice(2), depth + 1) ?? null)
    }
    if (ref.startsWith('map[')) {
      const r = random()
      if (r < 0.15) return r < 0.05 ? null : {}
      const value = ref.slice(ref.indexOf(']') + 1)
      const m: {[k: string]: Json} = {}
      for (let n = int(1, 4); n > 0; n--) m[randomString()] = gen(value, depth + 1) ?? null
      return m
    }
    switch (ref) {
      case 'resource.Quantity':
        return randomQuantity()
      case 'meta/v1.Time':
        return randomTime()
      case 'intstr.IntOrString':
        return random() < 0.5 ? int(0, 65535) : pick(['http', '8080', '', 'metrics'])
      case 'meta/v1.FieldsV1':
        return random() < 0.5 ? {} : {'f:spec': {'.': {}}}
      case 'string':
        return randomString()
      case 'bool':
        return random() < 0.5
      case 'int32':
      case 'int64':
      case 'int':
        return randomInt(ref)
    }
    const decl = types[ref]
    if (!decl) throw new Error(`gen-templates: no generator for ${ref}`)
    if (!('fields' in decl)) return gen(decl.type, depth)
    if (random() < 0.03) return null
    const obj: {[k: string]: Json} = {}
    // Deeper structs get sparser, so that templates stay a few kilobytes of spew.
    const p = depth === 0 ? 0.9 : Math.max(0.08, 0.6 - depth * 0.1)
    for (const [, jsonKey, type] of decl.fields) {
      if (jsonKey === null) continue
      if (jsonKey === '') {
        Object.assign(obj, gen(type, depth) ?? {})
        continue
      }
      if (random() >= p) continue
      const v = gen(type, depth + 1)
      if (v !== undefined) obj[jsonKey] = v
    }
    return obj
  }

  return () => gen(data.source.root, 0) ?? null
}
