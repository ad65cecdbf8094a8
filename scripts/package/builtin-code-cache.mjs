// A start-up snapshot made for a single executable carries, after V8's heap, a V8 code cache of
// every one of Node's own JavaScript modules (392 in Node 24.22, ~3.7 MB of a ~11.6 MB snapshot).
// Node copies the whole snapshot out of the executable at every start and reads that cache into
// memory, module by module, whether a module is then required or not; the modules a call uses are
// nearly all in the snapshot's heap already, compiled during the warm-up. Measured on the small-file
// dry-run (docs/benchmarks.md, session 37): ~11% of the executable's CPU time for the cache, and the
// few modules required later compile from their source just as fast without it. `node
// --build-snapshot-config` can leave the cache out ("withoutCodeCache"), but also drops the compiled
// code of the warm-up; a SEA config has no such field (Node 24). So the packager takes it out of the
// blob Node wrote: the cache is the snapshot blob's last field, a count followed by (id, bytes)
// entries, and is replaced by a count of 0, which Node reads as "no cache" (the same as
// withoutCodeCache). Every step checks the layout it expects and fails packaging otherwise.

const SEA_MAGIC = 0x0143da20
const SNAPSHOT_MAGIC = 0x0143da19

/**
 * The SEA preparation blob `sea` (as `node --experimental-sea-config` wrote it, for `mainPath`)
 * without the built-in modules' code cache in its snapshot.
 * @param {Buffer} sea
 * @param {string} mainPath the config's "main", as written into the blob
 * @returns {{blob: Buffer, entries: number, bytes: number}}
 */
export function dropBuiltinCodeCache(sea, mainPath) {
  const fail = (why) => {
    throw new Error(`cannot take the built-in code cache out of the SEA blob: ${why}`)
  }
  if (sea.readUInt32LE(0) !== SEA_MAGIC) fail('not a SEA blob (magic)')
  // Header: magic, flags (uint32), then (Node 24) one byte, then the main path and the snapshot, each
  // as a uint64 length and its bytes. The path is searched for in the header rather than counted to.
  const path = Buffer.from(mainPath)
  const at = sea.indexOf(path, 8)
  if (at < 8 || at > 64 || Number(sea.readBigUInt64LE(at - 8)) !== path.length)
    fail('main path not found in its header')
  const lengthAt = at + path.length
  const length = Number(sea.readBigUInt64LE(lengthAt))
  const start = lengthAt + 8
  if (start + length > sea.length) fail('snapshot length past the end')
  const snapshot = sea.subarray(start, start + length)
  if (snapshot.readUInt32LE(0) !== SNAPSHOT_MAGIC) fail('no snapshot where expected (magic)')
  const cache = codeCacheAt(snapshot)
  if (!cache) fail('no code cache vector ending the snapshot')
  const trimmed = Buffer.alloc(cache.offset + 8) // a count of 0
  snapshot.copy(trimmed, 0, 0, cache.offset)
  const newLength = Buffer.alloc(8)
  newLength.writeBigUInt64LE(BigInt(trimmed.length))
  return {
    blob: Buffer.concat([sea.subarray(0, lengthAt), newLength, trimmed, sea.subarray(start + length)]),
    entries: cache.entries,
    bytes: snapshot.length - trimmed.length,
  }
}

/**
 * Where the snapshot's last field, the vector of {id, code cache} entries, starts: found by chaining
 * entries back from the blob's end (each is a uint64 id length, the id, a uint64 data length, the
 * data); the uint64 before the first must count exactly the entries chained, and the ids must name
 * Node's modules (`fs`, `path` and internal ones).
 * @param {Buffer} b
 * @returns {{offset: number, entries: number} | null}
 */
export function codeCacheAt(b) {
  const idChar = (c) =>
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x5f || // _
    c === 0x2f || // /
    c === 0x2e || // .
    c === 0x2d || // -
    c === 0x40 || // @
    c === 0x3a // :
  // Every place that could start an entry, by the offset where that entry would end.
  const startOf = new Map()
  const last = b.length - 16
  for (let i = 0; i < last; i++) {
    const n = b[i]
    if (n === 0 || n > 200) continue
    if (b[i + 1] | b[i + 2] | b[i + 3] | b[i + 4] | b[i + 5] | b[i + 6] | b[i + 7]) continue
    const dataAt = i + 8 + n
    if (dataAt + 8 > b.length) continue
    let ok = true
    for (let k = i + 8; k < dataAt && ok; k++) ok = idChar(b[k])
    if (!ok) continue
    const size = b.readBigUInt64LE(dataAt)
    if (size > BigInt(b.length)) continue
    const end = dataAt + 8 + Number(size)
    if (end <= b.length && !startOf.has(end)) startOf.set(end, i)
  }
  const ids = new Set()
  let at = b.length
  while (startOf.has(at)) {
    const i = startOf.get(at)
    ids.add(b.toString('latin1', i + 8, i + 8 + b[i]))
    at = i
  }
  if (at < 8 || ids.size < 100 || Number(b.readBigUInt64LE(at - 8)) !== ids.size) return null
  if (!ids.has('fs') || !ids.has('path') || ![...ids].some((id) => id.startsWith('internal/'))) return null
  return {offset: at - 8, entries: ids.size}
}
