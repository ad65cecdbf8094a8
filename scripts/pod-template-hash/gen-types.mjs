#!/usr/bin/env node
// Generates the type tree that go-spew walks when kube-controller-manager hashes a pod template
// (controller.ComputeHash -> dump.ForHash -> spew "%#v" of a core/v1 PodTemplateSpec), from the Go
// declarations of k8s.io/api and k8s.io/apimachinery at one release tag. The next Kubernetes
// version is a regeneration: point this at the new tag and run the proof again (README.md here).
//
//   node scripts/pod-template-hash/gen-types.mjs --api <kubernetes/api> --apimachinery <kubernetes/apimachinery> \
//     --ref v0.36.3 [--out src/controller/util/hash-types.generated.ts] [--json-out f.json] [--go-mirror dir]
//
// --api/--apimachinery: a git repository (bare is fine; files are read at --ref with git show) or a
// plain source directory (then --ref only names it). Nothing read from them is committed: the output
// is a description of field names, JSON names and Go types, stamped with the tag and commit.

import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {parseArgs} from 'node:util'
import {buildConstraintHolds, parseGoFile, tagValue} from './go-decls.mjs'

const {values: args} = parseArgs({
  options: {
    api: {type: 'string'},
    apimachinery: {type: 'string'},
    ref: {type: 'string'},
    kube: {type: 'string'},
    out: {type: 'string'},
    'json-out': {type: 'string'},
  },
})
if (!args.api || !args.apimachinery || !args.ref || !/^1\.\d+$/.test(args.kube ?? '')) {
  console.error('usage: gen-types.mjs --api <path> --apimachinery <path> --ref <tag> --kube 1.N [--out f.ts]')
  process.exit(2)
}
args.out ??= `src/controller/util/hash-types/v${args.kube}.generated.ts`

// --- reading a source tree at a tag ---------------------------------------------------------------

function isGitRepo(path) {
  try {
    execFileSync('git', ['-C', path, 'rev-parse', '--git-dir'], {stdio: 'pipe'})
    return true
  } catch {
    return false
  }
}

function sourceTree(path, ref) {
  if (isGitRepo(path)) {
    const git = (...a) => execFileSync('git', ['-C', path, ...a], {encoding: 'utf8', maxBuffer: 1 << 28})
    const commit = git('rev-parse', `${ref}^{commit}`).trim()
    return {
      version: ref,
      commit,
      list: (dir) => git('ls-tree', '--name-only', `${commit}:${dir}`).split('\n').filter(Boolean),
      read: (file) => git('show', `${commit}:${file}`),
    }
  }
  if (!existsSync(path) || !statSync(path).isDirectory()) throw new Error(`${path}: not a directory`)
  return {
    version: ref,
    commit: null,
    list: (dir) => readdirSync(join(path, dir)),
    read: (file) => readFileSync(join(path, file), 'utf8'),
  }
}

const trees = {
  'k8s.io/api': sourceTree(args.api, args.ref),
  'k8s.io/apimachinery': sourceTree(args.apimachinery, args.ref),
}

// Packages read from source: id -> where it lives and the name its package clause declares
// (reflect prints types as <package name>.<Type>, so core/v1 and meta/v1 both print as "v1.").
const SOURCE_PACKAGES = {
  'core/v1': {module: 'k8s.io/api', dir: 'core/v1'},
  'meta/v1': {module: 'k8s.io/apimachinery', dir: 'pkg/apis/meta/v1'},
  resource: {module: 'k8s.io/apimachinery', dir: 'pkg/api/resource'},
  intstr: {module: 'k8s.io/apimachinery', dir: 'pkg/util/intstr'},
  types: {module: 'k8s.io/apimachinery', dir: 'pkg/types'},
}

// Layouts of the library types that sit under Quantity and Time. They are not Kubernetes sources;
// the proof program checks each of them with reflect against the real packages.
const EXTERNAL = {
  inf: {
    path: 'gopkg.in/inf.v0',
    note: 'gopkg.in/inf.v0 v0.9.1 (the version k8s.io/apimachinery requires)',
    types: {
      Dec: {k: 'struct', fields: [f('unscaled', 'big.Int'), f('scale', 'inf.Scale')]},
      Scale: {k: 'basic', name: 'int32'},
    },
  },
  big: {
    path: 'math/big',
    note: 'Go standard library',
    types: {
      Int: {k: 'struct', fields: [f('neg', 'bool'), f('abs', 'big.nat')]},
      nat: {k: 'slice', elem: {k: 'name', pkg: 'big', name: 'Word'}},
      Word: {k: 'basic', name: 'uint'},
    },
  },
  time: {
    path: 'time',
    note: 'Go standard library',
    types: {
      Time: {k: 'struct', fields: [f('wall', 'uint64'), f('ext', 'int64'), f('loc', '*time.Location')]},
      Location: {
        k: 'struct',
        fields: [
          f('name', 'string'),
          f('zone', '[]time.zone'),
          f('tx', '[]time.zoneTrans'),
          f('extend', 'string'),
          f('cacheStart', 'int64'),
          f('cacheEnd', 'int64'),
          f('cacheZone', '*time.zone'),
        ],
      },
      zone: {k: 'struct', fields: [f('name', 'string'), f('offset', 'int'), f('isDST', 'bool')]},
      zoneTrans: {
        k: 'struct',
        fields: [f('when', 'int64'), f('index', 'uint8'), f('isstd', 'bool'), f('isutc', 'bool')],
      },
    },
  },
}

function f(name, type) {
  const parse = (t) => {
    if (t.startsWith('*')) return {k: 'ptr', elem: parse(t.slice(1))}
    if (t.startsWith('[]')) return {k: 'slice', elem: parse(t.slice(2))}
    const dot = t.indexOf('.')
    return dot < 0 ? {k: 'name', name: t} : {k: 'name', pkg: t.slice(0, dot), name: t.slice(dot + 1)}
  }
  return {name, embedded: false, type: parse(type), tag: ''}
}

const BASIC = new Set([
  'string',
  'bool',
  'int',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'uintptr',
  'float32',
  'float64',
])
const ALIASES = {byte: 'uint8', rune: 'int32'}

// --- the packages ----------------------------------------------------------------------------------

/** id -> {goName, importPath, types: Map(name -> {expr, file}), imports per file} */
const packages = new Map()
for (const [id, where] of Object.entries(SOURCE_PACKAGES)) {
  const tree = trees[where.module]
  const types = new Map()
  let goName
  for (const file of tree.list(where.dir)) {
    if (!file.endsWith('.go') || file.endsWith('_test.go')) continue
    const path = `${where.dir}/${file}`
    const src = tree.read(path)
    if (!buildConstraintHolds(src)) continue
    const parsed = parseGoFile(src)
    goName = parsed.pkg
    for (const [name, decl] of parsed.types) {
      if (types.has(name)) throw new Error(`${id}.${name} declared twice`)
      types.set(name, {...decl, file: path, imports: parsed.imports})
    }
  }
  packages.set(id, {goName, importPath: `${where.module}/${where.dir}`, types})
}
for (const [id, ext] of Object.entries(EXTERNAL)) {
  const types = new Map(Object.entries(ext.types).map(([n, expr]) => [n, {expr, imports: new Map()}]))
  packages.set(id, {goName: id, importPath: ext.path, types, external: true})
}
const byImportPath = new Map([...packages].map(([id, p]) => [p.importPath, id]))

// --- resolving and encoding types ------------------------------------------------------------------

/** Resolves a type expression in package pkgId into the data's encoding (a string). */
function encode(expr, pkgId, imports, need) {
  switch (expr.k) {
    case 'ptr':
      return `*${encode(expr.elem, pkgId, imports, need)}`
    case 'slice':
      return `[]${encode(expr.elem, pkgId, imports, need)}`
    case 'array':
      return `[${expr.len}]${encode(expr.elem, pkgId, imports, need)}`
    case 'map':
      return `map[${encode(expr.key, pkgId, imports, need)}]${encode(expr.elem, pkgId, imports, need)}`
    case 'basic':
      return expr.name
    case 'name': {
      if (!expr.pkg) {
        const name = ALIASES[expr.name] ?? expr.name
        if (BASIC.has(name)) return name
        need(pkgId, name)
        return `${pkgId}.${name}`
      }
      const target = packages.has(expr.pkg) && packages.get(expr.pkg).external ? expr.pkg : undefined
      const id = target ?? byImportPath.get(imports.get(expr.pkg))
      if (!id) throw new Error(`${pkgId}: no package for ${expr.pkg}.${expr.name}`)
      need(id, expr.name)
      return `${id}.${expr.name}`
    }
    default:
      throw new Error(`${pkgId}: a ${expr.k} type (${expr.text ?? ''}) is reachable from PodTemplateSpec`)
  }
}

const ROOT = ['core/v1', 'PodTemplateSpec']
const decls = new Map() // "pkg.Name" -> data
const queue = [ROOT]
const seen = new Set()
const need = (pkgId, name) => {
  const key = `${pkgId}.${name}`
  if (!seen.has(key)) {
    seen.add(key)
    queue.push([pkgId, name])
  }
}
need(...ROOT)
while (queue.length > 0) {
  const [pkgId, name] = queue.shift()
  const pkg = packages.get(pkgId)
  const decl = pkg.types.get(name)
  if (!decl) throw new Error(`${pkgId}.${name} is not declared in ${pkg.importPath}`)
  if (decl.alias) throw new Error(`${pkgId}.${name} is an alias; reflect would print its target`)
  const key = `${pkgId}.${name}`
  const goType = `${pkg.goName}.${name}`
  if (decl.expr.k === 'struct') {
    const fields = decl.expr.fields.map((fd) => {
      const type = encode(fd.type, pkgId, decl.imports, need)
      const json = tagValue(fd.tag, 'json')
      const jsonName = json === undefined ? null : json.split(',')[0]
      // encoding/json promotes the fields of an embedded struct whose tag gives no name: ",inline"
      // (k8s.io/api to v0.36) and "" (v0.37) both say so; the "inline" option itself means nothing to it.
      const inline =
        (json?.split(',').includes('inline') ?? false) ||
        (fd.embedded && json !== undefined && jsonName === '')
      const exported = /^[A-Z]/.test(fd.name)
      // JSON key: the tag's name; "" for inline (fields read from the enclosing object); null when
      // encoding/json never fills it (unexported, "-", or no tag on a non-embedded unexported one).
      let jsonKey = null
      if (exported && jsonName !== '-') jsonKey = inline ? '' : jsonName || fd.name
      const proto = tagValue(fd.tag, 'protobuf')
      const inProto = proto !== undefined && proto !== '-'
      return [fd.name, jsonKey, type, inProto ? 1 : 0]
    })
    decls.set(key, {name: goType, fields})
  } else {
    decls.set(key, {name: goType, type: encode(decl.expr, pkgId, decl.imports, need)})
  }
}

// --- output ----------------------------------------------------------------------------------------

const sorted = [...decls.keys()].sort()
const counts = {}
for (const k of sorted) {
  const pkg = k.slice(0, k.lastIndexOf('.'))
  counts[pkg] = (counts[pkg] ?? 0) + 1
}
const source = {
  root: ROOT.join('.'),
  'k8s.io/api': {version: trees['k8s.io/api'].version, commit: trees['k8s.io/api'].commit},
  'k8s.io/apimachinery': {
    version: trees['k8s.io/apimachinery'].version,
    commit: trees['k8s.io/apimachinery'].commit,
  },
  libraries: Object.fromEntries(Object.values(EXTERNAL).map((e) => [e.path, e.note])),
  typeCounts: counts,
}
const data = {source, types: Object.fromEntries(sorted.map((k) => [k, decls.get(k)]))}

const lines = [
  '// Code generated by scripts/pod-template-hash/gen-types.mjs. DO NOT EDIT.',
  `// Kubernetes ${args.kube}: the Go types that go-spew walks when kube-controller-manager hashes a pod template, read from`,
  `// k8s.io/api ${source['k8s.io/api'].version} (${source['k8s.io/api'].commit ?? 'directory'}) and k8s.io/apimachinery ${source['k8s.io/apimachinery'].version} (${source['k8s.io/apimachinery'].commit ?? 'directory'}).`,
  '// A struct lists its fields in declaration order as [Go name, JSON key ("" = inline, null = not',
  '// from JSON), type, 1 when the field is carried by protobuf]; other types give their underlying type.',
  '',
  "import type {HashTypeData} from '../hash-types.js'",
  '',
  `const source: HashTypeData['source'] = ${JSON.stringify(source)}`,
  '',
  '// JSON, one type per line, parsed on first use: loading the controller then costs a string scan,',
  '// not the construction of ~170 objects that only a pass creating a ReplicaSet needs.',
  'const types = `{',
  sorted
    .map((k) =>
      `${JSON.stringify(k)}: ${JSON.stringify(decls.get(k))}`.replace(/[\\`]|\$\{/g, (c) => `\\${c}`),
    )
    .join(',\n'),
  '}`',
  '',
  'let data: HashTypeData | undefined',
  'export function hashTypeData(): HashTypeData {',
  '  data ??= {source, types: JSON.parse(types)}',
  '  return data',
  '}',
  '',
]
mkdirSync(dirname(args.out), {recursive: true})
writeFileSync(args.out, lines.join('\n'))
if (args['json-out']) writeFileSync(args['json-out'], `${JSON.stringify(data, null, 1)}\n`)
console.error(
  `gen-types: ${sorted.length} types (${Object.entries(counts)
    .map(([p, n]) => `${p} ${n}`)
    .join(', ')}) -> ${args.out}`,
)
