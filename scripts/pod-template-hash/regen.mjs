#!/usr/bin/env node
// Regenerates the pod-template-hash type data and golden vectors (see README.md beside this file).
//
//   npm run hash:regen -- --api <kubernetes/api> --apimachinery <kubernetes/apimachinery> \
//     --utils <kubernetes/utils> [--ref v0.36.3]
//
// Each path is a git repository (a bare mirror is fine) of the upstream project. Steps:
//  1. gen-types.mjs writes src/controller/util/hash-types.generated.ts from the Go declarations at
//     --ref, plus (in a temporary directory) the same data as JSON and a meta/v1 mirror.
//  2. A temporary GOPATH gets the real sources the proof compiles: core/v1 types.go; apimachinery's
//     resource, intstr, types and util/rand packages; k8s.io/utils/dump at the commit apimachinery's
//     go.mod pins; the stubs in proof/stubs; proof/main.go. go-spew, inf.v0 and klog come from
//     Debian (apt-get install golang-go golang-github-davecgh-go-spew-dev golang-gopkg-inf.v0-dev).
//     Nothing fetched is written into the repository.
//  3. gen-templates.ts writes the template cases; the proof program checks the type data against
//     the compiled types and writes test/fixtures/pod-template-hash/vectors.json.

import {execFileSync} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'

const here = dirname(fileURLToPath(import.meta.url))
const repo = resolve(here, '../..')
const {values: args} = parseArgs({
  options: {
    api: {type: 'string'},
    apimachinery: {type: 'string'},
    utils: {type: 'string'},
    ref: {type: 'string', default: 'v0.36.3'},
    'debian-gopath': {type: 'string', default: '/usr/share/gocode'},
    out: {type: 'string', default: join(repo, 'test/fixtures/pod-template-hash/vectors.json')},
    keep: {type: 'boolean', default: false},
  },
})
if (!args.api || !args.apimachinery || !args.utils) {
  console.error('usage: regen.mjs --api <git dir> --apimachinery <git dir> --utils <git dir> [--ref tag]')
  process.exit(2)
}
for (const need of ['github.com/davecgh/go-spew/spew', 'gopkg.in/inf.v0']) {
  if (!existsSync(join(args['debian-gopath'], 'src', need))) {
    console.error(
      `regen: ${need} is missing under ${args['debian-gopath']} (install the Debian packages above)`,
    )
    process.exit(1)
  }
}

const run = (cmd, argv, opts = {}) =>
  execFileSync(cmd, argv, {stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', ...opts})
const git = (dir, ...argv) => run('git', ['-C', dir, ...argv], {maxBuffer: 1 << 28})

const work = mkdtempSync(join(tmpdir(), 'pod-template-hash-'))
const gopath = join(work, 'gopath')
const src = (importPath) => join(gopath, 'src', importPath)

try {
  // 1. type data
  run(process.execPath, [
    join(here, 'gen-types.mjs'),
    '--api',
    args.api,
    '--apimachinery',
    args.apimachinery,
    '--ref',
    args.ref,
    '--out',
    join(repo, 'src/controller/util/hash-types.generated.ts'),
    '--json-out',
    join(work, 'types.json'),
    '--go-mirror',
    src('k8s.io/apimachinery/pkg/apis/meta/v1'),
  ])

  // 2. the GOPATH
  const copyFromGit = (dir, ref, from, toImportPath, files) => {
    mkdirSync(src(toImportPath), {recursive: true})
    for (const file of files)
      writeFileSync(join(src(toImportPath), file), git(dir, 'show', `${ref}:${from}/${file}`))
  }
  copyFromGit(args.api, args.ref, 'core/v1', 'k8s.io/api/core/v1', ['types.go'])
  const resourceFiles = [
    'amount.go',
    'math.go',
    'quantity.go',
    'quantity_proto.go',
    'scale_int.go',
    'suffix.go',
  ]
  copyFromGit(
    args.apimachinery,
    args.ref,
    'pkg/api/resource',
    'k8s.io/apimachinery/pkg/api/resource',
    resourceFiles,
  )
  copyFromGit(args.apimachinery, args.ref, 'pkg/util/intstr', 'k8s.io/apimachinery/pkg/util/intstr', [
    'intstr.go',
  ])
  copyFromGit(args.apimachinery, args.ref, 'pkg/types', 'k8s.io/apimachinery/pkg/types', ['uid.go'])
  copyFromGit(args.apimachinery, args.ref, 'pkg/util/rand', 'k8s.io/apimachinery/pkg/util/rand', ['rand.go'])
  // k8s.io/utils at the pseudo-version apimachinery's go.mod requires (v0.0.0-<date>-<commit>).
  const gomod = git(args.apimachinery, 'show', `${args.ref}:go.mod`)
  const utilsVersion = /^\s*k8s\.io\/utils (\S+)/m.exec(gomod)?.[1]
  const utilsCommit = utilsVersion?.split('-').pop()
  if (!utilsCommit) throw new Error('cannot find k8s.io/utils in apimachinery go.mod')
  copyFromGit(args.utils, utilsCommit, 'dump', 'k8s.io/utils/dump', ['dump.go'])
  const stub = (from, importPath) => {
    mkdirSync(src(importPath), {recursive: true})
    copyFileSync(join(here, 'proof/stubs', from), join(src(importPath), from.split('/').pop()))
  }
  stub('cbordirect/direct.go', 'k8s.io/apimachinery/pkg/runtime/serializer/cbor/direct')
  stub('runtime/runtime.go', 'k8s.io/apimachinery/pkg/runtime')
  stub('metav1/json.go', 'k8s.io/apimachinery/pkg/apis/meta/v1')
  stub('klog/klog.go', 'k8s.io/klog/v2')
  mkdirSync(src('hashproof'), {recursive: true})
  copyFileSync(join(here, 'proof/main.go'), join(src('hashproof'), 'main.go'))

  const goEnv = {
    ...process.env,
    GOPATH: `${gopath}:${args['debian-gopath']}`,
    GO111MODULE: 'off',
    GOFLAGS: '',
    GOCACHE: join(work, 'gocache'),
    // A kube-controller-manager image has no /etc/localtime and no TZ: Go's Local falls back to
    // a Location named "UTC" with no zone data. TZ=UTC gives the proof that same Local.
    TZ: 'UTC',
  }
  const bin = join(work, 'hashproof')
  run('go', ['build', '-o', bin, 'hashproof'], {env: goEnv, cwd: work})

  // 3. templates and vectors
  const templates = join(work, 'templates.json')
  run(join(repo, 'node_modules/.bin/tsx'), [join(here, 'gen-templates.ts'), templates], {cwd: repo})
  mkdirSync(dirname(args.out), {recursive: true})
  run(bin, ['-types', join(work, 'types.json'), '-templates', templates, '-out', args.out], {env: goEnv})
  console.error(`regen: utils ${utilsVersion}; vectors -> ${args.out}`)
} finally {
  if (args.keep) console.error(`regen: kept ${work}`)
  else rmSync(work, {recursive: true, force: true})
}
