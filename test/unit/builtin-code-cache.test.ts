// scripts/package/builtin-code-cache.mjs on blobs laid out as Node 24 writes a SEA preparation blob:
// the code cache vector is cut to a count of 0 and nothing else moves; any other layout is refused.
import {describe, expect, it} from 'vitest'
// @ts-expect-error: a plain ES module script of the packager, without types
import {codeCacheAt, dropBuiltinCodeCache} from '../../scripts/package/builtin-code-cache.mjs'

const u64 = (n: number) => {
  const b = Buffer.alloc(8)
  b.writeBigUInt64LE(BigInt(n))
  return b
}
const u32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeUInt32LE(n)
  return b
}
const entry = (id: string, size: number) =>
  Buffer.concat([u64(id.length), Buffer.from(id), u64(size), Buffer.alloc(size, id.length)])

/** A snapshot: its magic, some heap bytes, then the code cache vector of `ids`. */
function snapshot(ids: string[]): {bytes: Buffer; cacheAt: number} {
  const heap = Buffer.concat([u32(0x0143da19), Buffer.alloc(300, 7)])
  const vector = Buffer.concat([u64(ids.length), ...ids.map((id, i) => entry(id, 10 + (i % 17)))])
  return {bytes: Buffer.concat([heap, vector]), cacheAt: heap.length}
}

function seaBlob(snap: Buffer, main = 'sea-main.cjs'): {blob: Buffer; tail: Buffer} {
  const tail = Buffer.from('the code and the assets after the snapshot')
  const head = Buffer.concat([u32(0x0143da20), u32(1), Buffer.from([0])])
  return {
    blob: Buffer.concat([head, u64(main.length), Buffer.from(main), u64(snap.length), snap, tail]),
    tail,
  }
}

const modules = ['fs', 'path', ...Array.from({length: 120}, (_, i) => `internal/m${i}`)]

describe('dropBuiltinCodeCache', () => {
  it('cuts the vector to a count of 0 and keeps the header, the heap and what follows', () => {
    const snap = snapshot(modules)
    const {blob, tail} = seaBlob(snap.bytes)
    const r = dropBuiltinCodeCache(blob, 'sea-main.cjs')
    expect(r.entries).toBe(modules.length)
    expect(r.bytes).toBe(snap.bytes.length - snap.cacheAt - 8)
    const expected = seaBlob(Buffer.concat([snap.bytes.subarray(0, snap.cacheAt), u64(0)])).blob
    expect(r.blob.equals(expected)).toBe(true)
    expect(r.blob.subarray(r.blob.length - tail.length).equals(tail)).toBe(true)
  })

  it('refuses a blob that is not laid out as expected', () => {
    const snap = snapshot(modules).bytes
    const {blob} = seaBlob(snap)
    const wrongMagic = Buffer.from(blob)
    wrongMagic.writeUInt32LE(0, 0)
    expect(() => dropBuiltinCodeCache(wrongMagic, 'sea-main.cjs')).toThrow(/not a SEA blob/)
    expect(() => dropBuiltinCodeCache(blob, 'other-main.cjs')).toThrow(/main path not found/)
    const noSnapshot = Buffer.from(snap)
    noSnapshot.writeUInt32LE(0, 0)
    expect(() => dropBuiltinCodeCache(seaBlob(noSnapshot).blob, 'sea-main.cjs')).toThrow(/no snapshot/)
    // Too few entries to be Node's modules, or none that names fs: no cache found.
    const few = snapshot(modules.slice(0, 50)).bytes
    expect(() => dropBuiltinCodeCache(seaBlob(few).blob, 'sea-main.cjs')).toThrow(/no code cache/)
    const noFs = snapshot(modules.map((m) => (m === 'fs' ? 'internal/fs' : m))).bytes
    expect(() => dropBuiltinCodeCache(seaBlob(noFs).blob, 'sea-main.cjs')).toThrow(/no code cache/)
  })

  it('finds no vector when its count does not match the entries chained back from the end', () => {
    const snap = snapshot(modules)
    const bad = Buffer.from(snap.bytes)
    bad.writeBigUInt64LE(BigInt(modules.length + 1), snap.cacheAt)
    expect(codeCacheAt(bad)).toBeNull()
    expect(codeCacheAt(snap.bytes)).toEqual({offset: snap.cacheAt, entries: modules.length})
  })
})
