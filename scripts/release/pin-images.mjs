#!/usr/bin/env node
// The release step for deploy/'s images: every image reference (the Containerfile's FROM lines,
// the manifests' `image:` fields) is published by digest, never by tag alone.
//
//   node scripts/release/pin-images.mjs check [DIR]
//       exits 1, naming each reference, when one is a tag without @sha256:... (run before publishing)
//   node scripts/release/pin-images.mjs pin [DIR] [--digest REF=sha256:HEX ...]
//       asks each reference's registry for the digest its tag names now (the OCI distribution API:
//       HEAD /v2/<name>/manifests/<tag>, an anonymous bearer token when the registry asks for one)
//       and rewrites REF as REF@sha256:HEX (the tag stays, for the reader; runtimes pull the
//       digest). --digest gives one from elsewhere, e.g. the image this release just pushed. Writes
//       nothing unless every reference was resolved.
//
// DIR defaults to deploy/. A multi-architecture tag resolves to its index's digest (what `docker
// buildx imagetools inspect` and `crane digest` print), so every architecture stays pullable.

import {createHash} from 'node:crypto'
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

const DIGEST = /^sha256:[0-9a-f]{64}$/

const ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ')

/** Splits a reference as the Docker reference grammar does: registry host, repository, tag, digest. */
export function parseReference(ref) {
  let rest = ref
  let digest
  const at = rest.indexOf('@')
  if (at >= 0) {
    digest = rest.slice(at + 1)
    rest = rest.slice(0, at)
  }
  let tag
  const colon = rest.lastIndexOf(':')
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1)
    rest = rest.slice(0, colon)
  }
  const slash = rest.indexOf('/')
  const first = slash < 0 ? '' : rest.slice(0, slash)
  const hasHost = first.includes('.') || first.includes(':') || first === 'localhost'
  let host = hasHost ? first : 'docker.io'
  let repository = hasHost ? rest.slice(slash + 1) : rest
  if (host === 'docker.io' || host === 'index.docker.io') {
    host = 'registry-1.docker.io'
    if (!repository.includes('/')) repository = `library/${repository}`
  }
  return {host, repository, tag: tag ?? (digest ? undefined : 'latest'), digest}
}

/** Whether a reference names its content by digest. */
export const isPinned = (ref) => DIGEST.test(parseReference(ref).digest ?? '')

/**
 * The image references of a file: FROM lines of a Containerfile/Dockerfile, `image:` fields of
 * YAML. Each with its 1-based line and the offsets of the reference in the text.
 */
export function findImageRefs(text, fileName) {
  const out = []
  const containerfile = /(^|\/)(Containerfile|Dockerfile)([.-][^/]*)?$/.test(fileName)
  const re = containerfile
    ? /^(\s*FROM\s+(?:--platform=\S+\s+)?)(\S+)/gim
    : /^(\s*-?\s*image:\s*["']?)([^\s"'#]+)/gm
  for (const m of text.matchAll(re)) {
    const ref = m[2]
    // a FROM naming an earlier stage, or a build argument, is not a registry reference
    if (containerfile && (ref.includes('$') || !/[:/@]/.test(ref))) continue
    const start = m.index + m[1].length
    out.push({ref, line: text.slice(0, start).split('\n').length, start, end: start + ref.length})
  }
  return out
}

function imageFiles(dir) {
  return readdirSync(dir)
    .filter((f) => /\.(ya?ml)$/.test(f) || /^(Containerfile|Dockerfile)([.-].*)?$/.test(f))
    .sort()
    .map((f) => join(dir, f))
}

/** Every tag-only reference under `dir`, as `file:line: ref`. */
export function unpinned(dir, cwd = process.cwd()) {
  const found = []
  for (const file of imageFiles(dir)) {
    for (const r of findImageRefs(readFileSync(file, 'utf8'), file)) {
      if (!isPinned(r.ref)) found.push(`${relative(cwd, file)}:${r.line}: ${r.ref}`)
    }
  }
  return found
}

// Docker allows plain HTTP to a registry on the loopback interface only; so does this.
const scheme = (host) => (/^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/.test(host) ? 'http' : 'https')

function challenge(header) {
  const m = /^Bearer\s+(.*)$/i.exec(header ?? '')
  if (!m) return undefined
  const params = {}
  for (const p of m[1].matchAll(/(\w+)="([^"]*)"/g)) params[p[1]] = p[2]
  return params.realm ? params : undefined
}

/** The digest `ref`'s tag names now, from its registry. */
export async function resolveDigest(ref, {fetch = globalThis.fetch} = {}) {
  const {host, repository, tag, digest} = parseReference(ref)
  if (digest) return digest
  const url = `${scheme(host)}://${host}/v2/${repository}/manifests/${tag}`
  const reach = async (u, init) => {
    try {
      return await fetch(u, init)
    } catch (err) {
      const cause = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(err)
      throw new Error(`cannot reach ${new URL(u).host}: ${cause}`)
    }
  }
  const ask = (method, token) =>
    reach(url, {method, headers: {Accept: ACCEPT, ...(token ? {Authorization: `Bearer ${token}`} : {})}})
  let token
  let res = await ask('HEAD')
  if (res.status === 401) {
    const c = challenge(res.headers.get('www-authenticate'))
    if (!c) throw new Error(`${ref}: ${host} asks for credentials this step does not have (HTTP 401)`)
    const q = new URLSearchParams({
      ...(c.service ? {service: c.service} : {}),
      scope: c.scope ?? `repository:${repository}:pull`,
    })
    const t = await reach(`${c.realm}?${q}`)
    if (!t.ok) throw new Error(`${ref}: the token service ${c.realm} answered HTTP ${t.status}`)
    const body = await t.json()
    token = body.token ?? body.access_token
    res = await ask('HEAD', token)
  }
  if (!res.ok) throw new Error(`${ref}: ${host} answered HTTP ${res.status} for the tag ${tag}`)
  let found = res.headers.get('docker-content-digest')
  if (!found) {
    // a registry that leaves the header out of HEAD: the digest of the manifest's bytes
    const got = await ask('GET', token)
    if (!got.ok) throw new Error(`${ref}: ${host} answered HTTP ${got.status} for the tag ${tag}`)
    found = `sha256:${createHash('sha256')
      .update(Buffer.from(await got.arrayBuffer()))
      .digest('hex')}`
  }
  if (!DIGEST.test(found))
    throw new Error(`${ref}: ${host} gave ${JSON.stringify(found)}, not a sha256 digest`)
  return found
}

/**
 * Resolves every tag-only reference under `dir` and rewrites it as ref@digest; `given` maps a
 * reference to a digest known already. Nothing is written unless every one resolved.
 */
export async function pin(dir, {given = {}, fetch} = {}) {
  const edits = []
  const errors = []
  const cache = new Map()
  for (const file of imageFiles(dir)) {
    const text = readFileSync(file, 'utf8')
    const refs = findImageRefs(text, file).filter((r) => !isPinned(r.ref))
    if (refs.length === 0) continue
    const resolved = []
    for (const r of refs) {
      try {
        if (!cache.has(r.ref)) cache.set(r.ref, given[r.ref] ?? (await resolveDigest(r.ref, {fetch})))
        const digest = cache.get(r.ref)
        if (!DIGEST.test(digest))
          throw new Error(`${r.ref}: --digest ${digest} is not sha256:<64 hex digits>`)
        resolved.push({...r, digest})
      } catch (err) {
        errors.push(`${file}:${r.line}: ${err instanceof Error ? err.message : String(err)}`)
      }
    }
    edits.push({file, text, resolved})
  }
  if (errors.length > 0) return {errors, pinned: []}
  const pinned = []
  for (const {file, text, resolved} of edits) {
    let out = text
    for (const r of [...resolved].sort((a, b) => b.start - a.start)) {
      const bare = r.ref.includes('@') ? r.ref.slice(0, r.ref.indexOf('@')) : r.ref
      out = `${out.slice(0, r.start)}${bare}@${r.digest}${out.slice(r.end)}`
      pinned.push(`${file}:${r.line}: ${bare}@${r.digest}`)
    }
    writeFileSync(file, out)
  }
  return {errors: [], pinned}
}

async function main(argv) {
  const [verb, ...rest] = argv
  const given = {}
  const positional = []
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--digest') {
      const v = rest[++i] ?? ''
      const eq = v.lastIndexOf('=')
      if (eq < 0) throw new Error(`--digest wants REF=sha256:HEX, got ${JSON.stringify(v)}`)
      given[v.slice(0, eq)] = v.slice(eq + 1)
    } else positional.push(rest[i])
  }
  const dir = positional[0] ?? 'deploy'
  if (verb === 'check') {
    const found = unpinned(dir)
    for (const f of found) process.stderr.write(`error: ${f}: a tag, not a digest: run pin-images.mjs pin\n`)
    if (found.length > 0) {
      process.stderr.write(`refusing to publish: ${found.length} image reference(s) without @sha256:\n`)
      return 1
    }
    return 0
  }
  if (verb === 'pin') {
    const {errors, pinned} = await pin(dir, {given})
    for (const e of errors) process.stderr.write(`error: ${e}\n`)
    if (errors.length > 0) {
      process.stderr.write('nothing was written: every reference must resolve\n')
      return 1
    }
    for (const p of pinned) process.stdout.write(`${p}\n`)
    return 0
  }
  process.stderr.write('usage: pin-images.mjs check|pin [DIR] [--digest REF=sha256:HEX ...]\n')
  return 2
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`)
      process.exit(1)
    },
  )
}
