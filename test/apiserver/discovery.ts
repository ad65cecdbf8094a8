// Discovery documents (/version, /api, /apis, APIResourceLists) and the minimal OpenAPI v3 documents
// kubectl needs for `--validate=strict` (its default): for each kind, a PATCH operation tagged with
// x-kubernetes-group-version-kind that declares the `fieldValidation` query parameter. kubectl then
// leaves validation to the server (it sends fieldValidation=Strict) and never downloads OpenAPI v2.

import {createHash} from 'node:crypto'
import {groupVersion, type ResourceDef} from './resources.js'
import type {Obj} from './util.js'

/** /version by default: a v1.36 server (the controller's default minor when it asks the server). */
export const SERVER_VERSION = {
  major: '1',
  minor: '36',
  gitVersion: 'v1.36.3',
  gitCommit: '59526cd4867447956156ae3a602fcbac10a2c335',
  gitTreeState: 'clean',
  buildDate: '2025-04-22T15:59:26Z',
  goVersion: 'go1.23.6',
  compiler: 'gc',
  platform: 'linux/amd64',
}

/**
 * /version of a server of another release (--kube-version): "1.35" or a whole gitVersion such as
 * "v1.35.2" or "v1.30.0-gke.1".
 */
export function serverVersion(kubeVersion: string | undefined): typeof SERVER_VERSION {
  if (kubeVersion === undefined) return SERVER_VERSION
  const m = /^v?(\d+)\.(\d+)(\.\d+)?(.*)$/.exec(kubeVersion.trim())
  if (!m)
    throw new Error(
      `--kube-version: expected MAJOR.MINOR or a gitVersion, got ${JSON.stringify(kubeVersion)}`,
    )
  return {...SERVER_VERSION, major: m[1]!, minor: m[2]!, gitVersion: `v${m[1]}.${m[2]}${m[3] ?? '.0'}${m[4]}`}
}

// Every document is made from `defs`, the kinds one server serves (kinds.ts): a CRD's kinds appear
// in discovery once it is created.

export function groupVersions(defs: readonly ResourceDef[]): {group: string; version: string}[] {
  const seen = new Map<string, {group: string; version: string}>()
  for (const d of defs) seen.set(groupVersion(d), {group: d.group, version: d.version})
  return [...seen.values()]
}

export function apiVersions(serverAddress: string): Obj {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{clientCIDR: '0.0.0.0/0', serverAddress}],
  }
}

function apiGroup(defs: readonly ResourceDef[], group: string): Obj {
  const versions = groupVersions(defs)
    .filter((gv) => gv.group === group)
    .map((gv) => ({groupVersion: `${group}/${gv.version}`, version: gv.version}))
  return {name: group, versions, preferredVersion: versions[0]}
}

export function apiGroupList(defs: readonly ResourceDef[]): Obj {
  const groups = [...new Set(groupVersions(defs).map((gv) => gv.group))].filter((g) => g !== '')
  return {kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((g) => apiGroup(defs, g))}
}

export function apiGroupDoc(defs: readonly ResourceDef[], group: string): Obj | undefined {
  if (!groupVersions(defs).some((gv) => gv.group === group)) return undefined
  return {kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(defs, group)}
}

function storageVersionHash(d: ResourceDef): string {
  return createHash('sha256').update(`${d.group}/${d.version}/${d.kind}`).digest('base64').slice(0, 11)
}

export function apiResourceList(
  all: readonly ResourceDef[],
  group: string,
  version: string,
): Obj | undefined {
  const defs = all.filter((d) => d.group === group && d.version === version)
  if (defs.length === 0) return undefined
  const resources: Obj[] = []
  for (const d of defs) {
    const r: Obj = {
      name: d.resource,
      singularName: d.singular,
      namespaced: d.namespaced,
      kind: d.kind,
      verbs: d.verbs,
    }
    if (d.shortNames.length) r.shortNames = d.shortNames
    if (d.categories.length) r.categories = d.categories
    r.storageVersionHash = storageVersionHash(d)
    resources.push(r)
    for (const s of d.subresources) {
      const sr: Obj = {name: `${d.resource}/${s.name}`, singularName: '', namespaced: d.namespaced}
      if (s.group !== undefined) sr.group = s.group
      if (s.version !== undefined) sr.version = s.version
      sr.kind = s.kind
      sr.verbs = s.verbs
      resources.push(sr)
    }
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources,
  }
}

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`
}

export function openAPIV3Doc(all: readonly ResourceDef[], group: string, version: string): Obj | undefined {
  const defs = all.filter((d) => d.group === group && d.version === version)
  if (defs.length === 0) return undefined
  const paths: Obj = {}
  const param = (name: string): Obj => ({name, in: 'query', uniqueItems: true, schema: {type: 'string'}})
  for (const d of defs) {
    const base = d.namespaced
      ? `/${gvPath(group, version)}/namespaces/{namespace}/${d.resource}/{name}`
      : `/${gvPath(group, version)}/${d.resource}/{name}`
    const gvk = {group: d.group, version: d.version, kind: d.kind}
    const op = (action: string, extra: Obj = {}): Obj => ({
      operationId: `${action}${d.kind}`,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      ...extra,
    })
    const writeParams = [param('dryRun'), param('fieldManager'), param('fieldValidation')]
    paths[base] = {
      get: op('get'),
      put: op('put', {parameters: writeParams}),
      patch: op('patch', {
        parameters: [
          ...writeParams,
          {name: 'force', in: 'query', uniqueItems: true, schema: {type: 'boolean'}},
        ],
        requestBody: {
          content: {
            'application/json-patch+json': {},
            'application/merge-patch+json': {},
            'application/apply-patch+yaml': {},
          },
        },
      }),
      delete: op('delete'),
      parameters: [
        {name: 'name', in: 'path', required: true, schema: {type: 'string', uniqueItems: true}},
        ...(d.namespaced
          ? [{name: 'namespace', in: 'path', required: true, schema: {type: 'string', uniqueItems: true}}]
          : []),
      ],
    }
  }
  return {
    openapi: '3.0.0',
    info: {title: 'Kubernetes', version: SERVER_VERSION.gitVersion},
    paths,
    components: {schemas: {}},
  }
}

export function openAPIV3Index(defs: readonly ResourceDef[]): Obj {
  const paths: Obj = {}
  for (const {group, version} of groupVersions(defs)) {
    const p = gvPath(group, version)
    const hash = createHash('sha512')
      .update(JSON.stringify(openAPIV3Doc(defs, group, version)))
      .digest('hex')
      .toUpperCase()
    paths[p] = {serverRelativeURL: `/openapi/v3/${p}?hash=${hash.slice(0, 128)}`}
  }
  return {paths}
}

/**
 * `/openapi/v2` as kubectl reads it: a protobuf gnostic `openapi_v2.Document` (it sends
 * `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf` and only decodes protobuf).
 * kubectl asks for it to validate a `kind: List` client-side (its OpenAPI v3 verifier reports
 * `v1/List` as not supporting server-side field validation). The document holds no definitions, so
 * kubectl finds no model for the List's items and leaves their validation to the server (each item
 * is then created with `fieldValidation=Strict`, as for a single object).
 */
export function openAPIV2Proto(): Buffer {
  // Document: swagger = 1, info = 2 (Info: title = 1, version = 2), paths = 8, definitions = 9.
  const info = Buffer.concat([protoString(1, 'Kubernetes'), protoString(2, SERVER_VERSION.gitVersion)])
  return Buffer.concat([
    protoString(1, '2.0'),
    protoBytes(2, info),
    protoBytes(8, Buffer.alloc(0)),
    protoBytes(9, Buffer.alloc(0)),
  ])
}

function protoString(field: number, value: string): Buffer {
  return protoBytes(field, Buffer.from(value, 'utf8'))
}

/** A length-delimited field (wire type 2); lengths here are small, one varint byte or two. */
function protoBytes(field: number, value: Buffer): Buffer {
  const len = value.length
  const varint = len < 0x80 ? [len] : [(len & 0x7f) | 0x80, len >> 7]
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...varint]), value])
}
