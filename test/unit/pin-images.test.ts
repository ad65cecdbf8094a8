// The release step that publishes deploy/'s images by digest (scripts/release/pin-images.mjs),
// against a registry of our own on the loopback interface: the OCI distribution API's manifest
// HEAD, an anonymous bearer token on a 401 challenge, a registry that leaves the digest header out.

import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
// @ts-expect-error: a plain .mjs script without types
import {findImageRefs, isPinned, parseReference, pin, unpinned} from '../../scripts/release/pin-images.mjs'

const INDEX = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.index.v1+json',
  manifests: [],
})
const INDEX_DIGEST = `sha256:${createHash('sha256').update(INDEX).digest('hex')}`
const NODE_DIGEST = `sha256:${'a'.repeat(64)}`

let server: Server
let host: string
const requests: string[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'}`)
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/token') {
      expect(url.searchParams.get('scope')).toBe('repository:library/node:pull')
      res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({token: 'anon'}))
      return
    }
    if (url.pathname === '/v2/library/node/manifests/24-slim') {
      if (req.headers.authorization !== 'Bearer anon') {
        res
          .writeHead(401, {
            'www-authenticate': `Bearer realm="http://${host}/token",service="test",scope="repository:library/node:pull"`,
          })
          .end()
        return
      }
      expect(req.headers.accept).toContain('application/vnd.oci.image.index.v1+json')
      res.writeHead(200, {'docker-content-digest': NODE_DIGEST}).end()
      return
    }
    // no digest header: the client hashes the manifest it GETs
    if (url.pathname === '/v2/team/app/manifests/0.1.0') {
      res.writeHead(200, {'content-type': 'application/vnd.oci.image.index.v1+json'})
      res.end(req.method === 'GET' ? INDEX : undefined)
      return
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

function deployDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pin-images-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

describe('pin-images', () => {
  it('reads references as the Docker grammar does', () => {
    expect(parseReference('node:24-slim')).toEqual({
      host: 'registry-1.docker.io',
      repository: 'library/node',
      tag: '24-slim',
      digest: undefined,
    })
    expect(parseReference('ghcr.io/a/b:1@sha256:00')).toMatchObject({
      host: 'ghcr.io',
      repository: 'a/b',
      tag: '1',
    })
    expect(parseReference('localhost:5000/x')).toMatchObject({
      host: 'localhost:5000',
      repository: 'x',
      tag: 'latest',
    })
    expect(isPinned(`node:24-slim@${NODE_DIGEST}`)).toBe(true)
    expect(isPinned('node:24-slim')).toBe(false)
    expect(isPinned('node:24-slim@sha256:short')).toBe(false)
  })

  it('finds FROM lines (not stage names) and image: fields', () => {
    const cf =
      'FROM --platform=$B node:24-slim AS pack\nRUN x\nFROM pack AS again\nFROM $BASE\nFROM docker.io/library/node:24-slim\n'
    expect(
      findImageRefs(cf, 'deploy/Containerfile').map((r: {ref: string; line: number}) => [r.line, r.ref]),
    ).toEqual([
      [1, 'node:24-slim'],
      [5, 'docker.io/library/node:24-slim'],
    ])
    const yaml = 'spec:\n  containers:\n  - name: a\n    image: "ghcr.io/x/y:1" # c\n  - image: busybox\n'
    expect(findImageRefs(yaml, 'd.yaml').map((r: {ref: string}) => r.ref)).toEqual([
      'ghcr.io/x/y:1',
      'busybox',
    ])
  })

  it('check refuses tag-only references, one line each, exit 1; passes once all are digests', () => {
    const dir = deployDir({
      Containerfile: 'FROM docker.io/library/node:24-slim AS pack\nFROM docker.io/library/node:24-slim\n',
      'app.yaml': `image: ghcr.io/team/app:0.1.0@${NODE_DIGEST}\n`,
    })
    try {
      const r = spawnSync(process.execPath, ['scripts/release/pin-images.mjs', 'check', dir], {
        encoding: 'utf8',
      })
      expect(r.status).toBe(1)
      expect(r.stderr).toContain('Containerfile:1: docker.io/library/node:24-slim: a tag, not a digest')
      expect(r.stderr).toContain('Containerfile:2: docker.io/library/node:24-slim: a tag, not a digest')
      expect(r.stderr).toContain('refusing to publish: 2 image reference(s) without @sha256:')
      writeFileSync(join(dir, 'Containerfile'), `FROM docker.io/library/node:24-slim@${NODE_DIGEST}\n`)
      expect(unpinned(dir)).toEqual([])
      const ok = spawnSync(process.execPath, ['scripts/release/pin-images.mjs', 'check', dir], {
        encoding: 'utf8',
      })
      expect(ok.status).toBe(0)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('pin asks the registry (token on a 401 challenge; the manifest hashed when the header is missing) and rewrites in place', async () => {
    const dir = deployDir({
      Containerfile: `FROM ${host}/library/node:24-slim AS pack\nRUN npm ci\nFROM ${host}/library/node:24-slim\n`,
      'deploy.yaml': `spec:\n  containers:\n  - name: c\n    image: ${host}/team/app:0.1.0\n`,
    })
    try {
      requests.length = 0
      const {errors} = await pin(dir)
      expect(errors).toEqual([])
      expect(readFileSync(join(dir, 'Containerfile'), 'utf8')).toBe(
        `FROM ${host}/library/node:24-slim@${NODE_DIGEST} AS pack\nRUN npm ci\nFROM ${host}/library/node:24-slim@${NODE_DIGEST}\n`,
      )
      expect(readFileSync(join(dir, 'deploy.yaml'), 'utf8')).toContain(
        `image: ${host}/team/app:0.1.0@${INDEX_DIGEST}\n`,
      )
      // one resolution per reference: HEAD (401), token, HEAD with it; HEAD then GET for the other
      expect(requests.filter((r) => r.includes('/library/node/'))).toEqual([
        'HEAD /v2/library/node/manifests/24-slim -',
        'HEAD /v2/library/node/manifests/24-slim Bearer anon',
      ])
      expect(requests.filter((r) => r.includes('/team/app/')).map((r) => r.split(' ')[0])).toEqual([
        'HEAD',
        'GET',
      ])
      expect(unpinned(dir)).toEqual([])
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('pin writes nothing when one reference does not resolve; --digest supplies one', async () => {
    const text = `FROM ${host}/library/node:24-slim\nFROM ${host}/missing/image:1\n`
    const dir = deployDir({Containerfile: text})
    try {
      const failed = await pin(dir)
      expect(failed.errors).toEqual([
        expect.stringContaining(`${host}/missing/image:1: ${host} answered HTTP 404 for the tag 1`),
      ])
      expect(readFileSync(join(dir, 'Containerfile'), 'utf8')).toBe(text)
      const given = await pin(dir, {given: {[`${host}/missing/image:1`]: `sha256:${'b'.repeat(64)}`}})
      expect(given.errors).toEqual([])
      expect(readFileSync(join(dir, 'Containerfile'), 'utf8')).toContain(
        `${host}/missing/image:1@sha256:${'b'.repeat(64)}`,
      )
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
