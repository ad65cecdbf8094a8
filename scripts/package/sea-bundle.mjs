// The one CommonJS script a single executable runs (Node's SEA takes one CommonJS main before Node
// 25.7): dist/ (the npm build, already CommonJS but for ink's chunk) bundled once more by esbuild,
// with sea/runtime.cjs in front. What the bundle cannot hold, the ES module chunks, becomes SEA
// assets, with one small bridge file per shared CommonJS chunk they import.
import {createHash} from 'node:crypto'
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {build, transform} from 'esbuild'

const {WRAPPED_HEAD, WRAPPED_TAIL} = createRequire(import.meta.url)('../../src/startup/code-cache.cjs')

const BRIDGE = "globalThis[Symbol.for('kubectl-deployctl.sea')]"

/** The code inside a file that scripts/bundle.mjs wrote as Node's module wrapper around it. */
function unwrapped(text, file) {
  const end = text.lastIndexOf(WRAPPED_TAIL)
  if (!text.startsWith(WRAPPED_HEAD) || end < 0)
    throw new Error(`${file}: not wrapped as scripts/bundle.mjs writes it`)
  return text.slice(WRAPPED_HEAD.length, end)
}

/**
 * Writes <work>/sea-main.cjs and the ESM assets; returns what the SEA config needs.
 * @param {{root: string, work: string, warmUp: string[][] | null}} o
 */
export async function seaBundle({root, work, warmUp}) {
  const dist = join(root, 'dist')
  const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
  const abs = (rel) => JSON.stringify(join(root, rel))

  // Bundled modules that something outside the bundle asks for by path: oclif (a command file from
  // its manifest) and the ES module chunks (the CommonJS chunks they import).
  const modules = new Map()
  for (const c of Object.values(manifest.commands)) {
    if (c.isESM) throw new Error(`command ${c.id} is an ES module: the executable expects CommonJS`)
    modules.set(c.relativePath.join('/'), c.relativePath.join('/'))
  }

  const esm = esmAssets(dist)
  for (const name of esm.chunks) modules.set(`dist/chunks/${name}`, `dist/chunks/${name}`)
  const late = await lateAssets(dist)
  for (const name of late.chunks) modules.set(`dist/chunks/${name}`, `dist/chunks/${name}`)

  const entry = join(work, 'sea-entry.cjs')
  writeFileSync(
    entry,
    `'use strict'
require(${JSON.stringify(join(root, 'scripts/package/sea/runtime.cjs'))}).start({
  pjson: require(${abs('package.json')}),
  manifest: require(${abs('oclif.manifest.json')}),
  main: () => require(${abs('dist/main.cjs')}),
${existsSync(join(dist, 'completion', 'main.cjs')) ? `  complete: () => require(${abs('dist/completion/main.cjs')}),\n` : ''}  modules: {
${[...modules].map(([key, rel]) => `    ${JSON.stringify(key)}: () => require(${abs(rel)}),`).join('\n')}
  },
  esm: ${JSON.stringify({hash: esm.hash, files: esm.files})},
  late: ${JSON.stringify(late.files)},
  warmUp: ${JSON.stringify(warmUp ?? [])},
})
`,
  )

  const seaImportEsm = join(root, 'scripts/package/sea/import-esm.cjs')
  const main = join(work, 'sea-main.cjs')
  await build({
    entryPoints: [entry],
    outfile: main,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node24',
    // The bundle's require() is the runtime's (sea/runtime.cjs): bundled files by path, else Node's.
    banner: {
      js: `var __seaNodeRequire = require; var require = Object.assign(function (id) { var sea = ${BRIDGE}; return sea ? sea.require(id, __seaNodeRequire) : __seaNodeRequire(id) }, {resolve: function (id) { return __seaNodeRequire.resolve ? __seaNodeRequire.resolve(id) : id }});`,
    },
    plugins: [
      {
        // dist/bundle.cjs is Node's module wrapper written out (scripts/bundle.mjs); esbuild reads
        // the code inside it, whose require() calls are then the bundle's own.
        name: 'sea-unwrap-bundle',
        setup(b) {
          b.onLoad({filter: /[\\/]dist[\\/]bundle\.cjs$/}, (args) => ({
            contents: unwrapped(readFileSync(args.path, 'utf8'), args.path),
            loader: 'js',
          }))
        },
      },
      {
        name: 'sea-import-esm',
        setup(b) {
          b.onResolve({filter: /startup[\\/]import-esm\.cjs$/}, () => ({path: seaImportEsm}))
        },
      },
      {
        // A late chunk's require() becomes a call that compiles it from its asset on first use.
        name: 'sea-late-chunks',
        setup(b) {
          b.onResolve({filter: LATE}, (args) => ({
            path: args.path.replace(/^.*[\\/]/, ''),
            namespace: 'sea-late',
          }))
          b.onLoad({filter: /.*/, namespace: 'sea-late'}, (args) => ({
            contents: `module.exports = ${BRIDGE}.late(${JSON.stringify(args.path)})`,
            loader: 'js',
          }))
        },
      },
    ],
    // dist/ is built already: oclif's dynamic requires of tsx and its kind stay calls at run time.
    logLevel: 'error',
    legalComments: 'none',
    // The bundle's source text is part of the snapshot: copied out of the executable and into the
    // heap at every start, page by page. Without whitespace and comments it is ~5.5 -> ~3.5 MB, and
    // a start ~4 ms shorter (docs/benchmarks.md). Names are kept, so messages and stacks still read.
    minifyWhitespace: true,
  })
  return {main, assets: {...esm.assets, ...late.assets}}
}

/**
 * Chunks that only live mode runs (client-node: about half the bundle) stay out of the bundle, and
 * so out of the start-up snapshot that every call deserializes: each is a SEA asset, whitespace
 * removed, compiled on its first require() (scripts/package/sea/runtime.cjs, late()). The shared
 * CommonJS chunks it requires are the bundle's own, as for the ES module chunks.
 */
const LATE = /(^|[\\/])kube-[A-Z0-9]+\.cjs$/

async function lateAssets(dist) {
  const chunksDir = join(dist, 'chunks')
  const names = readdirSync(chunksDir).filter((n) => LATE.test(n))
  if (names.length === 0)
    throw new Error('no client-node chunk (kube-*.cjs) in dist/chunks: the bundle changed')
  const files = {}
  const assets = {}
  const chunks = new Set()
  for (const name of names) {
    // The code inside the npm build's module wrapper (scripts/bundle.mjs); the asset is it as one
    // function expression, which the runtime compiles through a code cache (sea/runtime.cjs).
    const text = unwrapped(readFileSync(join(chunksDir, name), 'utf8'), name)
    for (const m of text.matchAll(/require\("\.\/([^"]+)"\)/g)) {
      if (LATE.test(m[1])) throw new Error(`${name} requires another late chunk, ${m[1]}`)
      chunks.add(m[1])
    }
    if (/\bimport\(|require\("\.\.\//.test(text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '')))
      throw new Error(`${name} imports what a late chunk cannot (import() or a file outside dist/chunks)`)
    const {code} = await transform(text, {
      minifyWhitespace: true,
      format: 'cjs',
      platform: 'node',
      target: 'node24',
    })
    const source = `${WRAPPED_HEAD}\n${code}\n})`
    // The asset's name holds a hash of its text: the runtime keys its code cache by it (V8 checks
    // a cache only against the text's length).
    const key = `late/${createHash('sha256').update(source).digest('hex').slice(0, 16)}-${name}`
    files[name] = key
    assets[key] = source
  }
  return {files, assets, chunks: [...chunks]}
}

/**
 * The ES module chunks of dist/chunks as SEA assets, with a bridge file for each CommonJS chunk they
 * import: a module whose exports are the bundle's copy of that chunk. The bridge repeats the
 * chunk's export-name annotation so that Node's ESM loader sees the same named exports.
 */
function esmAssets(dist) {
  const chunksDir = join(dist, 'chunks')
  const names = readdirSync(chunksDir).filter((n) => n.endsWith('.mjs'))
  const files = {}
  const assets = {}
  const chunks = new Set()
  const hash = createHash('sha256')
  const add = (name, text) => {
    const key = `esm/${name}`
    files[name] = key
    assets[key] = text
    hash.update(`${name}\0${text}\0`)
  }
  for (const name of names.sort()) {
    const text = readFileSync(join(chunksDir, name), 'utf8')
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"\.\/([^"]+)"/g)) {
      const dep = m[1]
      if (dep.endsWith('.cjs')) chunks.add(dep)
      else if (!names.includes(dep))
        throw new Error(`${name} imports ${dep}, which the executable cannot provide`)
    }
    if (/(?:from|import)\s*\(?\s*"\.\.\//.test(text))
      throw new Error(`${name} imports a file outside dist/chunks`)
    add(name, text.replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n'))
  }
  for (const dep of [...chunks].sort()) {
    const source = readFileSync(join(chunksDir, dep), 'utf8')
    const names = source.match(/\n0 && \(module\.exports = \{[^}]*\}\);/)
    add(
      dep,
      `'use strict'\nmodule.exports = ${BRIDGE}.chunk(${JSON.stringify(dep)});\n${names ? names[0].trim() : ''}\n`,
    )
  }
  return {hash: hash.digest('hex').slice(0, 32), files, assets, chunks: [...chunks]}
}
