// upstream: controller.ComputeHash (pkg/controller/controller_utils.go), which hashes
// dump.ForHash(*template), i.e. go-spew's "%#v" of the typed v1.PodTemplateSpec with SortKeys and
// DisableMethods, with FNV-32a, then the collision count, then rand.SafeEncodeString of the sum.
//
// go-spew's "%#v" output, for the kinds a pod template holds (spew/format.go):
//   struct    (T){Field:(FT)value Field:(FT)value}  every field, in declaration order
//   pointer   (*T)<nil>, or (*T) and the pointee's value without its type
//   slice     ([]T)<nil>, or ([]T)[v v v] with each element printed without its type
//   map       (M)<nil>, or (M)map[k:v k:v] with keys in Go string order, all without types
//   string    the bytes as they are, no quotes and no escaping
//   integers  decimal; bool true/false
// A pointer that is a slice element or a map value prints as <*>value (or <nil>).
//
// The template is the one kube-controller-manager's informer decoded from protobuf, not the JSON a
// user wrote: empty slices and maps are absent on the wire and come back nil, a Quantity comes back
// as ParseQuantity of its canonical string, a Time as whole seconds in the controller's time.Local.
// The types come from hash-types/v1.NN.generated.ts, one table per Kubernetes minor
// (scripts/pod-template-hash/gen-types.mjs); the v1.36 golden vectors of
// test/fixtures/pod-template-hash were computed by Go with the real types and go-spew, the other
// minors' by this printer (docs/fidelity.md says what each proves).

import type {KubeMinor} from '../version.js'
import {NEWEST_MINOR} from '../version.js'
import {hashTypeData as v133} from './hash-types/v1.33.generated.js'
import {hashTypeData as v134} from './hash-types/v1.34.generated.js'
import {hashTypeData as v135} from './hash-types/v1.35.generated.js'
import {hashTypeData as v136} from './hash-types/v1.36.generated.js'
import type {GoTypeRef, HashTypeData} from './hash-types.js'
import {decodedQuantity, type ParsedQuantity, QuantityError} from './quantity.js'

/** A template value that no API server would have stored (a string where a number belongs, ...). */
export class PodTemplateHashError extends Error {
  /** where in the template, outermost first: ".spec", ".containers", "[0]", ... */
  readonly path: string[] = []
  constructor(readonly detail: string) {
    super(detail)
  }
  /** Adds an enclosing path segment, as the error travels out of the template. */
  within(segment: string): this {
    this.path.unshift(segment)
    this.message = `${this.path.join('').replace(/^\./, '')}: ${this.detail}`
    return this
  }
}

type Json = unknown
/** A value of an unexported Go struct (Quantity, Time internals), keyed by Go field name. */
type GoValue = unknown

interface Node {
  /** what reflect's Type.String() prints */
  readonly tname: string
  /** the body spew prints for the zero value, as decoding leaves it */
  readonly zero: string
  /** the body spew prints for a value given in the template's JSON (present, maybe null) */
  json(v: Json): string
  /** the body for an internal Go value (see GoValue) */
  go(v: GoValue): string
  /** what a pointer points at (pointer nodes only) */
  readonly elem?: Node
}

const NIL = '<nil>'

// --- compiling the type data ----------------------------------------------------------------------

const INT_RANGES: Record<string, [bigint, bigint]> = {
  int8: [-(1n << 7n), (1n << 7n) - 1n],
  int16: [-(1n << 15n), (1n << 15n) - 1n],
  int32: [-(1n << 31n), (1n << 31n) - 1n],
  int64: [-(1n << 63n), (1n << 63n) - 1n],
  int: [-(1n << 63n), (1n << 63n) - 1n],
  uint8: [0n, (1n << 8n) - 1n],
  uint16: [0n, (1n << 16n) - 1n],
  uint32: [0n, (1n << 32n) - 1n],
  uint64: [0n, (1n << 64n) - 1n],
  uint: [0n, (1n << 64n) - 1n],
}

function describe(v: Json): string {
  return v === null
    ? 'null'
    : Array.isArray(v)
      ? 'an array'
      : typeof v === 'object'
        ? 'an object'
        : JSON.stringify(v)
}

function basicNode(kind: string, tname: string): Node {
  if (kind === 'string') {
    return {
      tname,
      zero: '',
      json(v) {
        if (v === null) return ''
        if (typeof v !== 'string') throw new PodTemplateHashError(`expected a string, got ${describe(v)}`)
        return v
      },
      go: (v) => (v as string | undefined) ?? '',
    }
  }
  if (kind === 'bool') {
    return {
      tname,
      zero: 'false',
      json(v) {
        if (v === null) return 'false'
        if (typeof v !== 'boolean')
          throw new PodTemplateHashError(`expected true or false, got ${describe(v)}`)
        return v ? 'true' : 'false'
      },
      go: (v) => (v ? 'true' : 'false'),
    }
  }
  const range = INT_RANGES[kind]
  if (!range) throw new Error(`pod-template-hash: no renderer for Go kind ${kind}`)
  return {
    tname,
    zero: '0',
    json(v) {
      if (v === null) return '0'
      if (typeof v !== 'number' || !Number.isInteger(v)) {
        throw new PodTemplateHashError(`expected an integer (${kind}), got ${describe(v)}`)
      }
      const n = BigInt(v)
      if (n < range[0] || n > range[1]) throw new PodTemplateHashError(`${v} overflows ${kind}`)
      return Number.isSafeInteger(v) ? String(v) : n.toString()
    },
    go: (v) => String((v as bigint | number | undefined) ?? 0),
  }
}

/** How an element of a slice or a value in a map prints: without its type. */
function elemJson(node: Node, v: Json): string {
  if (node.elem) return v === null || v === undefined ? NIL : `<*>${node.elem.json(v)}`
  return node.json(v === undefined ? null : v)
}
function elemGo(node: Node, v: GoValue): string {
  if (node.elem) return v === null || v === undefined ? NIL : `<*>${node.elem.go(v)}`
  return node.go(v)
}

/** Go compares strings bytewise, which for UTF-8 is code point order; JS compares UTF-16 units. */
function goStringLess(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x === y) continue
    // Surrogates stand for code points above U+FFFF: move them above the rest of the BMP.
    if (x >= 0xd800 && x <= 0xdfff) x += 0x10000
    if (y >= 0xd800 && y <= 0xdfff) y += 0x10000
    return x - y
  }
  return a.length - b.length
}

class Compiler {
  private readonly nodes = new Map<string, Node>()
  constructor(private readonly data: HashTypeData) {}

  node(ref: GoTypeRef): Node {
    let node = this.nodes.get(ref)
    if (!node) {
      node = this.build(ref)
      this.nodes.set(ref, node)
    }
    return node
  }

  private build(ref: GoTypeRef): Node {
    if (ref.startsWith('*')) return this.pointer(ref)
    if (ref.startsWith('[]')) return this.slice(ref, this.typeString(ref))
    if (ref.startsWith('map[')) return this.map(ref, this.typeString(ref))
    const decl = this.data.types[ref]
    if (!decl) return basicNode(ref, ref)
    const special = SPECIAL[ref]
    if ('fields' in decl) {
      const node = this.struct(ref, decl.name)
      if (special) return special(node, this)
      return node
    }
    // A named non-struct type prints its own name and its underlying type's value.
    const under = decl.type
    if (under.startsWith('[]')) return this.slice(under, decl.name)
    if (under.startsWith('map[')) return this.map(under, decl.name)
    return basicNode(under, decl.name)
  }

  /** reflect's Type.String() for a type reference. */
  typeString(ref: GoTypeRef): string {
    if (ref.startsWith('*')) return `*${this.typeString(ref.slice(1))}`
    if (ref.startsWith('[]')) return `[]${this.typeString(ref.slice(2))}`
    if (ref.startsWith('map[')) {
      const [key, value] = splitMap(ref)
      return `map[${this.typeString(key)}]${this.typeString(value)}`
    }
    return this.data.types[ref]?.name ?? ref
  }

  private pointer(ref: GoTypeRef): Node {
    let elem: Node | undefined
    // Resolved on first use, so that a type may point back at itself.
    const el = () => (elem ??= this.node(ref.slice(1)))
    return {
      tname: this.typeString(ref),
      zero: NIL,
      json: (v) => (v === null ? NIL : el().json(v)),
      go: (v) => (v === null || v === undefined ? NIL : el().go(v)),
      get elem() {
        return el()
      },
    }
  }

  private slice(ref: GoTypeRef, tname: string): Node {
    let elem: Node | undefined
    const el = () => (elem ??= this.node(ref.slice(2)))
    return {
      tname,
      zero: NIL,
      json(v) {
        if (v === null) return NIL
        if (!Array.isArray(v)) throw new PodTemplateHashError(`expected a list, got ${describe(v)}`)
        if (v.length === 0) return NIL
        const e = el()
        let out = '['
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out += ' '
          try {
            out += elemJson(e, v[i])
          } catch (err) {
            throw prefixed(err, `[${i}]`)
          }
        }
        return `${out}]`
      },
      go(v) {
        if (v === null || v === undefined) return NIL
        const e = el()
        return `[${(v as GoValue[]).map((x) => elemGo(e, x)).join(' ')}]`
      },
    }
  }

  private map(ref: GoTypeRef, tname: string): Node {
    const [keyRef, valueRef] = splitMap(ref)
    const compiler = this
    let value: Node | undefined
    const keyNode = this.node(keyRef)
    if (keyNode.zero !== '') throw new Error(`pod-template-hash: map key ${keyRef} is not a string kind`)
    return {
      tname,
      zero: NIL,
      json(v) {
        if (v === null) return NIL
        if (typeof v !== 'object' || Array.isArray(v)) {
          throw new PodTemplateHashError(`expected a map, got ${describe(v)}`)
        }
        const keys = Object.keys(v as object)
        if (keys.length === 0) return NIL
        keys.sort(goStringLess)
        value ??= compiler.node(valueRef)
        let out = 'map['
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i]!
          if (i > 0) out += ' '
          try {
            out += `${k}:${elemJson(value, (v as Record<string, Json>)[k])}`
          } catch (err) {
            throw prefixed(err, `[${JSON.stringify(k)}]`)
          }
        }
        return `${out}]`
      },
      go() {
        throw new Error('pod-template-hash: no internal maps')
      },
    }
  }

  private struct(ref: GoTypeRef, tname: string): Node {
    const decl = this.data.types[ref] as {
      fields: readonly (readonly [string, string | null, string, 0 | 1])[]
    }
    interface Field {
      goName: string
      jsonKey: string | null
      node: Node
      /** "Name:(T)" */
      prefix: string
    }
    let fields: Field[] | undefined
    const compiled = (): Field[] =>
      (fields ??= decl.fields.map(([goName, jsonKey, type, proto]) => {
        const node = this.node(type)
        // A field protobuf does not carry never reaches the controller: it stays zero.
        return {goName, jsonKey: proto ? jsonKey : null, node, prefix: `${goName}:(${node.tname})`}
      }))
    let zero: string | undefined
    const self: Node = {
      tname,
      get zero() {
        zero ??= `{${compiled()
          .map((f) => f.prefix + f.node.zero)
          .join(' ')}}`
        return zero
      },
      json(v) {
        if (v === null) return self.zero
        if (typeof v !== 'object' || Array.isArray(v)) {
          throw new PodTemplateHashError(`expected an object, got ${describe(v)}`)
        }
        const obj = v as Record<string, Json>
        const fs = compiled()
        let out = '{'
        for (let i = 0; i < fs.length; i++) {
          const f = fs[i]!
          if (i > 0) out += ' '
          out += f.prefix
          if (f.jsonKey === null) {
            out += f.node.zero
          } else if (f.jsonKey === '') {
            out += f.node.json(obj) // inline: the embedded struct reads the same object
          } else {
            const fv = obj[f.jsonKey]
            if (fv === undefined) out += f.node.zero
            else {
              try {
                out += f.node.json(fv)
              } catch (err) {
                throw prefixed(err, `.${f.jsonKey}`)
              }
            }
          }
        }
        return `${out}}`
      },
      go(v) {
        const obj = (v ?? {}) as Record<string, GoValue>
        return `{${compiled()
          .map((f) => f.prefix + f.node.go(obj[f.goName]))
          .join(' ')}}`
      },
    }
    return self
  }
}

function splitMap(ref: GoTypeRef): [GoTypeRef, GoTypeRef] {
  let depth = 0
  for (let i = 3; i < ref.length; i++) {
    if (ref[i] === '[') depth++
    else if (ref[i] === ']' && --depth === 0) return [ref.slice(4, i), ref.slice(i + 1)]
  }
  throw new Error(`pod-template-hash: bad map type ${ref}`)
}

function prefixed(err: unknown, segment: string): unknown {
  return err instanceof PodTemplateHashError ? err.within(segment) : err
}

// --- types whose JSON is not their Go structure ------------------------------------------------------

type Special = (structNode: Node, c: Compiler) => Node

function withJson(structNode: Node, json: (v: Json) => GoValue): Node {
  let zero: string | undefined
  const node: Node = {
    tname: structNode.tname,
    get zero() {
      zero ??= node.json(null)
      return zero
    },
    json: (v) => structNode.go(json(v)),
    go: (v) => structNode.go(v),
  }
  return node
}

/** The internal fields of a Quantity, as spew sees them. */
function quantityFields(q: ParsedQuantity): GoValue {
  let dec: GoValue = null
  if (q.dec) {
    const abs = q.dec.unscaled < 0n ? -q.dec.unscaled : q.dec.unscaled
    const words: bigint[] = []
    for (let w = abs; w > 0n; w >>= 64n) words.push(w & 0xffffffffffffffffn)
    dec = {unscaled: {neg: q.dec.unscaled < 0n, abs: words.length > 0 ? words : null}, scale: q.dec.scale}
  }
  return {i: {value: q.value, scale: q.scale}, d: {Dec: dec}, s: q.s, Format: q.format}
}

const quantityCache = new Map<string, GoValue>()

// Seconds from 0001-01-01 to 1970-01-01: time.Time keeps seconds since year 1 in ext.
const UNIX_TO_INTERNAL = 62135596800n
/**
 * time.Local in a kube-controller-manager container: no TZ and no /etc/localtime, so Go falls
 * back to a Location named "UTC" without zone data (the proof runs Go with TZ=UTC, the same).
 */
const LOCAL_UTC_FALLBACK = {
  name: 'UTC',
  zone: null,
  tx: null,
  extend: '',
  cacheStart: 0,
  cacheEnd: 0,
  cacheZone: null,
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/

/** Seconds since the Unix epoch of an RFC 3339 time, as time.Parse then Time.Unix give them. */
function unixSeconds(s: string): bigint {
  const m = RFC3339.exec(s)
  if (!m) throw new PodTemplateHashError(`expected an RFC 3339 time, got ${JSON.stringify(s)}`)
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const date = new Date(0)
  date.setUTCFullYear(y, mo - 1, d)
  date.setUTCHours(h, mi, se, 0)
  let seconds = BigInt(Math.floor(date.getTime() / 1000))
  if (m[8]) seconds -= BigInt((m[8] === '-' ? -1 : 1) * (Number(m[9]) * 3600 + Number(m[10]) * 60))
  return seconds
}

const SPECIAL: Record<string, Special> = {
  'resource.Quantity': (node) =>
    withJson(node, (v) => {
      let text: string
      if (v === null)
        text = '0' // a null Quantity is zero, which travels as "0"
      else if (typeof v === 'string') text = v
      else if (typeof v === 'number') text = String(v)
      else throw new PodTemplateHashError(`expected a quantity, got ${describe(v)}`)
      let fields = quantityCache.get(text)
      if (fields === undefined) {
        try {
          fields = quantityFields(decodedQuantity(text))
        } catch (err) {
          if (err instanceof QuantityError)
            throw new PodTemplateHashError(`${JSON.stringify(text)}: ${err.message}`)
          throw err
        }
        if (quantityCache.size > 10_000) quantityCache.clear()
        quantityCache.set(text, fields)
      }
      return fields
    }),
  'meta/v1.Time': (node) =>
    withJson(node, (v) => {
      if (v === null) return {Time: {wall: 0, ext: 0, loc: null}}
      if (typeof v !== 'string') throw new PodTemplateHashError(`expected a time, got ${describe(v)}`)
      const ext = unixSeconds(v) + UNIX_TO_INTERNAL
      if (ext === 0n) return {Time: {wall: 0, ext: 0, loc: null}} // the zero time travels as nothing
      return {Time: {wall: 0, ext, loc: LOCAL_UTC_FALLBACK}}
    }),
  'intstr.IntOrString': (node) =>
    withJson(node, (v) => {
      if (v === null) return {Type: 0, IntVal: 0, StrVal: ''}
      if (typeof v === 'string') return {Type: 1, IntVal: 0, StrVal: v}
      if (typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) {
        return {Type: 0, IntVal: v, StrVal: ''}
      }
      throw new PodTemplateHashError(`expected an int32 or a string, got ${describe(v)}`)
    }),
  // managedFields inside a template: Raw holds the JSON as the API server received it; the
  // compact form JSON.stringify writes is what it serves.
  'meta/v1.FieldsV1': (node) =>
    withJson(node, (v) => ({Raw: v === null ? null : [...new TextEncoder().encode(JSON.stringify(v))]})),
}

// --- rendering and hashing ---------------------------------------------------------------------------

/** Renders and hashes pod templates with the types of one Kubernetes version. */
export interface PodTemplateHasher {
  /** dump.ForHash(template): go-spew's "%#v" of the v1.PodTemplateSpec the controller decodes */
  spew(template: unknown): string
  /** controller.ComputeHash(template, collisionCount) */
  hash(template: unknown, collisionCount: number | undefined): string
}

/** A hasher for any type table (the supported minors' and, in tests, older releases'). */
export function podTemplateHasher(data: HashTypeData): PodTemplateHasher {
  let root: Node | undefined
  const spew = (template: unknown) => {
    root ??= new Compiler(data).node(data.source.root)
    return `(${root.tname})${root.json(template ?? null)}`
  }
  return {spew, hash: (template, collisionCount) => hashText(spew(template), collisionCount)}
}

/**
 * The type table of each minor. 1.37 is 1.36's: k8s.io/api v0.37.0-beta.0 changes only struct
 * tags that neither go-spew nor JSON decoding reads (test/unit/controller/pod-template-hash.test.ts
 * compares the two tables).
 */
const TYPE_DATA: Record<KubeMinor, () => HashTypeData> = {33: v133, 34: v134, 35: v135, 36: v136, 37: v136}

/** The type table kube-controller-manager of `minor` hashes with. */
export function hashTypeDataFor(minor: KubeMinor): HashTypeData {
  return TYPE_DATA[minor]()
}

const hashers = new Map<KubeMinor, PodTemplateHasher>()
function hasherFor(minor: KubeMinor): PodTemplateHasher {
  let h = hashers.get(minor)
  if (!h) {
    // 1.37 shares 1.36's table, so it shares its compiled hasher too.
    h = minor === 37 ? hasherFor(36) : podTemplateHasher(TYPE_DATA[minor]())
    hashers.set(minor, h)
  }
  return h
}

/** dump.ForHash(template): go-spew's "%#v" of the v1.PodTemplateSpec kube-controller-manager decodes. */
export function podTemplateSpew(template: unknown, minor: KubeMinor = NEWEST_MINOR): string {
  return hasherFor(minor).spew(template)
}

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/**
 * FNV-1a 32 over the UTF-8 bytes of s (lone surrogates as U+FFFD, as Go's JSON decoding leaves them).
 * The hash stays in a local that only this loop changes: a helper closing over it kept it in a heap
 * context, which cost ~30% of the loop's time.
 */
function fnv1aString(s: string, seed = FNV_OFFSET): number {
  let h = seed
  const n = s.length
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(i)
    if (c < 0x80) {
      h = Math.imul(h ^ c, FNV_PRIME)
      continue
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00)
        i++
        h = Math.imul(h ^ (0xf0 | (c >> 18)), FNV_PRIME)
        h = Math.imul(h ^ (0x80 | ((c >> 12) & 0x3f)), FNV_PRIME)
        h = Math.imul(h ^ (0x80 | ((c >> 6) & 0x3f)), FNV_PRIME)
        h = Math.imul(h ^ (0x80 | (c & 0x3f)), FNV_PRIME)
        continue
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd
    if (c < 0x800) {
      h = Math.imul(h ^ (0xc0 | (c >> 6)), FNV_PRIME)
    } else {
      h = Math.imul(h ^ (0xe0 | (c >> 12)), FNV_PRIME)
      h = Math.imul(h ^ (0x80 | ((c >> 6) & 0x3f)), FNV_PRIME)
    }
    h = Math.imul(h ^ (0x80 | (c & 0x3f)), FNV_PRIME)
  }
  return h >>> 0
}

function fnv1aBytes(bytes: Uint8Array, h: number): number {
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, FNV_PRIME)
  return h >>> 0
}

// upstream: rand.SafeEncodeString — maps each character onto an alphabet without vowels or
// look-alike characters, so hashes never spell words.
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'
export function safeEncodeString(s: string): string {
  let out = ''
  for (const ch of s) out += SAFE_ALPHABET[(ch.codePointAt(0) ?? 0) % SAFE_ALPHABET.length]
  return out
}

/**
 * upstream: controller.ComputeHash — the pod-template-hash kube-controller-manager of `minor` gives
 * `template` (as the API server stores it) with the Deployment's status.collisionCount.
 */
export function computePodTemplateHash(
  template: unknown,
  collisionCount: number | undefined,
  minor: KubeMinor = NEWEST_MINOR,
): string {
  return hasherFor(minor).hash(template, collisionCount)
}

function hashText(text: string, collisionCount: number | undefined): string {
  let h = fnv1aString(text)
  if (collisionCount != null) {
    const extra = new Uint8Array(8)
    new DataView(extra.buffer).setUint32(0, collisionCount >>> 0, true)
    h = fnv1aBytes(extra, h)
  }
  return safeEncodeString(String(h >>> 0))
}
