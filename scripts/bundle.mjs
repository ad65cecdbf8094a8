#!/usr/bin/env node
// Build step: esbuild bundles src/ into dist/ (one entry per oclif command, plus dist/main.cjs for
// bin/run.cjs), splitting shared code and every dynamic import into chunks, which pass 3 puts
// back in one file: a small-file dry-run loads 6 files of dist/ instead of ~150 of ours and ~100 of
// @oclif/core's CommonJS graph.
// Heavy dependencies stay behind dynamic imports, so ink, React and client-node still load only
// when a command needs them. Type checking is `npm run typecheck`; esbuild only strips types.
// The output is CommonJS wherever Node allows it (pass 2 below); docs/benchmarks.md has
// the start-up each step bought.
import {createHash} from 'node:crypto'
import {copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {createRequire} from 'node:module'
import {basename, dirname, join, posix, relative} from 'node:path'
import {build, transform} from 'esbuild'

const {WRAPPED_HEAD, WRAPPED_TAIL} = createRequire(import.meta.url)('../src/startup/code-cache.cjs')

function commandFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return commandFiles(path)
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

// ink imports react-devtools-core only when DEV=true; esbuild hoists it, so it needs a stand-in.
const stub = join('dist', 'stub', 'react-devtools-core.js')
mkdirSync(join('dist', 'stub'), {recursive: true})
writeFileSync(stub, 'export default {connectToDevTools() {}}\n')

// @oclif/core loads some packages on every start that it uses only now and then; its imports of
// them go to stand-ins that load the real package when first used (src/startup/on-demand/).
const ON_DEMAND = [
  'debug',
  'supports-color',
  'tinyglobby',
  'wsl-utils',
  'child_process',
  'perf_hooks',
  'fs/promises',
  'readline',
  'lilconfig',
]
const standIn = (name) =>
  join(process.cwd(), 'src', 'startup', 'on-demand', `${name.replace(/^node:/, '').replace('/', '-')}.cjs`)
const onDemandFilter = new RegExp(`^(node:)?(${ON_DEMAND.join('|')})$`)
const onDemand = {
  name: 'on-demand',
  setup(b) {
    b.onResolve({filter: onDemandFilter}, (args) =>
      args.importer.includes(join('node_modules', '@oclif', 'core')) ? {path: standIn(args.path)} : undefined,
    )
  },
}

/**
 * A stand-in that lacks a member oclif uses would fail only when that path runs (stdin flags, DEBUG,
 * Windows): the build fails instead. oclif's CommonJS names each import `const x_1 = require("m")`
 * and uses it as `x_1.member`; a stand-in that is itself a function (debug) is called, not read.
 */
function checkStandIns(file, source) {
  for (const m of source.matchAll(/const (\w+) = (?:__importDefault\()?require\("([^"]+)"\)/g)) {
    const [, binding, name] = m
    if (!onDemandFilter.test(name)) continue
    const provided = createRequire(import.meta.url)(standIn(name))
    for (const use of source.matchAll(new RegExp(`\\b${binding}\\.(\\w+)`, 'g'))) {
      const member = use[1]
      if (member === 'default' && typeof provided === 'function') continue
      if (!(member in provided))
        throw new Error(`${file}: oclif uses ${name}'s ${member}, which ${standIn(name)} lacks`)
    }
  }
}

// Changes to @oclif/core's source, by file under its lib/: each `from` must occur exactly once, so
// the build fails when oclif's source no longer has it.
const OCLIF_PATCHES = {
  // oclif sorts its commands with localeCompare on every start, and the first localeCompare of a
  // process sets up ICU's collator: ~10 ms here, for five ASCII command ids. They are compared by
  // code unit instead, which orders ASCII ids as ICU's root collation does unless case or
  // punctuation differ at the first difference (ours differ in lowercase letters).
  'config/plugin.js': [
    {
      from: '.sort((a, b) => a.id.localeCompare(b.id));',
      to: '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));',
    },
  ],
  'help/index.js': [
    // The root help took a topic for one with children when another topic's name contains its
    // name and a colon: `dry-run:sync` contains `run:`, so `run` (a command) was listed under
    // TOPICS too. A child's name starts with its parent's.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: oclif's source text, not a template
    {from: 'subTopic.name.includes(`${topic.name}:`)', to: 'subTopic.name.startsWith(`${topic.name}:`)'},
    // The summary lines of a command and of a topic are wrapped like the rest.
    {from: "this.log(summary + '\\n');", to: "this.log(this.wrap(summary, 0) + '\\n');"},
    {
      from: '(0, theme_1.colorize)(this.config?.theme?.commandSummary, summary),',
      to: 'this.wrap((0, theme_1.colorize)(this.config?.theme?.commandSummary, summary), 0),',
    },
  ],
  'help/root.js': [
    {
      from: '(0, theme_1.colorize)(this.config?.theme?.commandSummary, description),',
      to: 'this.wrap((0, theme_1.colorize)(this.config?.theme?.commandSummary, description), 0),',
    },
  ],
  // oclif's help (its formatters, wrap-ansi, ts-path and node:fs/promises with it) loaded on every
  // start through three static requires; only --help, a topic, or an error oclif handles itself use
  // it. They load it on first use instead (~5 ms of a small-file call). main.js's argv helpers
  // come from help/util.js, which config.js loads anyway.
  'main.js': [
    {
      from: 'const help_1 = require("./help");',
      to: 'const help_1 = { get loadHelpClass() { return require("./help").loadHelpClass; }, get getHelpFlagAdditions() { return require("./help/util").getHelpFlagAdditions; }, get normalizeArgv() { return require("./help/util").normalizeArgv; } };',
    },
  ],
  'flags.js': [
    {
      from: 'const help_1 = require("./help");',
      to: 'const help_1 = { get loadHelpClass() { return require("./help").loadHelpClass; } };',
    },
  ],
  'errors/index.js': [
    {
      from: 'var handle_1 = require("./handle");\nObject.defineProperty(exports, "handle", { enumerable: true, get: function () { return handle_1.handle; } });',
      to: 'Object.defineProperty(exports, "handle", { enumerable: true, get: function () { return require("./handle").handle; } });',
    },
  ],
  // oclif reads package.json, its manifest and the like through node:fs/promises: the first such
  // read starts libuv's thread pool (its threads, ~3 ms of CPU here), which nothing else in a
  // file-mode call uses (-f files are read synchronously). They are read synchronously too; a
  // missing or unreadable file rejects the same promise.
  'util/fs.js': [
    {
      from: "const contents = await (0, promises_1.readFile)(path, 'utf8');",
      to: "const contents = (0, node_fs_1.readFileSync)(path, 'utf8');",
    },
  ],
  // Help wraps at word boundaries, never inside a word (wrap-ansi's `hard` cut long words at the
  // width), and to the width of the moment: oclif reads it once when its module loads (in the
  // single executable, while the start-up snapshot is made, where stdout is no terminal), and reads
  // no COLUMNS. OCLIF_COLUMNS, else the terminal's, else COLUMNS, else 80.
  'help/formatter.js': [
    {
      from: 'maxWidth: screen_1.stdtermwidth,',
      to: 'maxWidth: Number.parseInt(process.env.OCLIF_COLUMNS, 10) || (process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : Number.parseInt(process.env.COLUMNS, 10) || 80),',
    },
    {from: '{ hard: true }', to: '{ hard: false }'},
    // A flag's description under it (narrow terminals) is indented by 6, not 4.
    {
      from: 'this.indent(this.wrap(right.trim(), opts.indentation + 2), 4)',
      to: 'this.indent(this.wrap(right.trim(), opts.indentation + 4), 4)',
    },
  ],
}
const oclifPatches = {
  name: 'oclif-patches',
  setup(b) {
    b.onLoad({filter: /@oclif[\\/]core[\\/]lib[\\/].*\.js$/}, async (args) => {
      const file = args.path
        .split(/[\\/]@oclif[\\/]core[\\/]lib[\\/]/)
        .pop()
        .replaceAll('\\', '/')
      let source = await readFile(args.path, 'utf8')
      checkStandIns(file, source)
      const patches = OCLIF_PATCHES[file]
      if (!patches) return {contents: source, loader: 'js'}
      for (const {from, to} of patches) {
        if (source.split(from).length !== 2) throw new Error(`${args.path}: oclif's source changed: ${from}`)
        source = source.replace(from, to)
      }
      return {contents: source, loader: 'js'}
    })
  },
}

// client-node's chunk: live mode only, kept outside dist/bundle.cjs (pass 3).
const OUTSIDE = /^chunks\/kube-[A-Z0-9]+\.cjs$/

// The oldest Node that package.json's engines allows: esbuild lowers newer syntax for it.
const TARGET = 'node22'

// Pass 1: an ESM build with splitting, which is how esbuild shares code between entries and
// dynamic imports. Kept in memory: pass 2 decides each file's module format.
const esm = await build({
  entryPoints: ['src/main.ts', 'src/completion/main.ts', ...commandFiles('src/commands')],
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: TARGET,
  chunkNames: 'chunks/[name]-[hash]',
  // @oclif/core reads tsconfig files with TypeScript only in development mode, never when shipped.
  external: ['typescript', 'ts-node', 'tsx'],
  alias: {'react-devtools-core': `./${stub}`},
  plugins: [onDemand, oclifPatches],
  // React's production build; oclif's development-mode switch (NODE_ENV=test or development) would
  // otherwise look for src/ through tsx.
  define: {'process.env.NODE_ENV': '"production"'},
  // Inline in pass 1 so that pass 2's transform chains it into the map it writes beside each file.
  sourcemap: 'inline',
  legalComments: 'linked',
  metafile: true,
  write: false,
  logLevel: 'warning',
})

mkdirSync(join('dist', 'startup'), {recursive: true})
for (const f of ['import-esm.cjs', 'code-cache.cjs'])
  copyFileSync(join('src', 'startup', f), join('dist', 'startup', f))
// The code cache's key (src/startup/code-cache.cjs): a hash of every file written below.
const buildHash = createHash('sha256')

// Pass 2: every file becomes CommonJS (.cjs) unless it has to stay ESM (.mjs). Node loads
// CommonJS through its synchronous loader; its ESM loader resolves, reads and links each file
// asynchronously, which cost ~40 ms of a small-file call on Node 20 and still ~15-18 ms on Node 24
// (docs/benchmarks.md). A file stays ESM when it awaits at top level (yoga-layout, under ink) or
// statically imports a file that stays ESM; CommonJS reaches those through a real import().
const outputs = new Map() // dist-relative path -> {code, map, imports}
for (const file of esm.outputFiles) {
  const rel = relative('dist', file.path)
  if (!rel.endsWith('.js')) {
    mkdirSync(dirname(file.path), {recursive: true})
    writeFileSync(file.path, file.contents)
    continue
  }
  const meta = esm.metafile.outputs[join('dist', rel)]
  outputs.set(rel, {
    code: file.text,
    imports: (meta?.imports ?? [])
      .filter((i) => !i.external)
      .map((i) => ({path: relative('dist', i.path), kind: i.kind})),
  })
}

// esbuild's transforms run side by side (its service takes them concurrently); what is written, and
// hashed, follows the outputs' order.
const staysEsm = new Set()
const topLevelAwait = await Promise.all(
  [...outputs].map(
    async ([rel, out]) => /\bawait\b/.test(out.code) && (await awaitsAtTopLevel(out.code)) && rel,
  ),
)
for (const rel of topLevelAwait) if (rel) staysEsm.add(rel)
for (let changed = true; changed; ) {
  changed = false
  for (const [rel, out] of outputs) {
    if (staysEsm.has(rel)) continue
    if (out.imports.some((i) => i.kind === 'import-statement' && staysEsm.has(i.path))) {
      staysEsm.add(rel)
      changed = true
    }
  }
}

async function awaitsAtTopLevel(code) {
  try {
    await transform(code, {
      format: 'cjs',
      loader: 'js',
      platform: 'node',
      target: TARGET,
      logLevel: 'silent',
    })
    return false
  } catch (err) {
    if (String(err.message).includes('Top-level await')) return true
    throw err
  }
}

const renamed = (rel) => rel.replace(/\.js$/, staysEsm.has(rel) ? '.mjs' : '.cjs')

/** The specifier `from` uses for `to`, as esbuild wrote it ("./chunks/x.js", "../chunks/x.js"). */
function specifier(from, to) {
  const s = relative(dirname(from), to)
  return s.startsWith('.') ? s : `./${s}`
}

/** How many files' exports became their namespace object (below); none means esbuild's output changed. */
let namespaceExports = 0
const converted = await Promise.all(
  [...outputs].map(async ([rel, out]) => {
    let code = out.code
    const esmFile = staysEsm.has(rel)
    for (const imp of out.imports) {
      const from = JSON.stringify(specifier(rel, imp.path))
      const to = JSON.stringify(specifier(renamed(rel), renamed(imp.path)))
      // From CommonJS, an ES module chunk is reached through a helper whose import() stays one: the
      // conversion below turns every import() into require(), which cannot load a module that
      // awaits at top level.
      if (!esmFile && imp.kind === 'dynamic-import' && staysEsm.has(imp.path)) {
        if (dirname(imp.path) !== 'chunks') throw new Error(`${imp.path}: an ES module outside dist/chunks`)
        const helper = JSON.stringify(specifier(renamed(rel), 'startup/import-esm.cjs'))
        const name = JSON.stringify(basename(renamed(imp.path)))
        code = code.split(`import(${from})`).join(`require(${helper}).importChunk(${name})`)
      }
      code = code.split(from).join(to)
    }
    const target = join('dist', renamed(rel))
    const result = await transform(code, {
      format: esmFile ? 'esm' : 'cjs',
      // client-node's chunk stays outside the bundle (pass 3): written as the module wrapper around
      // its code, as the bundle is, for the code cache to compile in place (~25 ms of a live call).
      ...(OUTSIDE.test(renamed(rel)) ? {footer: WRAPPED_TAIL} : {}),
      // In CommonJS, every import() left becomes require(): those of our chunks (so that they skip
      // the ESM loader too) and those in third-party code that this CLI never runs (oclif's loaders
      // of ESM plugins and of tsx in development mode).
      supported: esmFile ? undefined : {'dynamic-import': false},
      // CommonJS dependencies bundled into an ESM file call require().
      banner: esmFile
        ? "import {createRequire as __createRequire} from 'node:module'; const require = __createRequire(import.meta.url);"
        : OUTSIDE.test(renamed(rel))
          ? WRAPPED_HEAD
          : undefined,
      loader: 'js',
      platform: 'node',
      target: TARGET,
      sourcemap: 'external',
      sourcefile: renamed(rel),
      // Pass 1 already reported what concerns our code; the rest is third-party code.
      logLevel: 'error',
    })
    code = result.code
    // A CommonJS file's exports are its ES module's namespace object itself, marked __esModule, not a
    // copy of it: esbuild's copy (__toCommonJS) puts a second getter, `() => from[key]`, in front of
    // each export's own one, shared by every export of every file, so that each call of a function
    // from another file went through two getters and a megamorphic keyed load (~25-35 ms of a
    // 1,000-Deployment dry-run, issue 30). The namespace object's getters are the same ones.
    if (!esmFile) {
      code = code.replace(/^module\.exports = __toCommonJS\((\w+)\);$/gm, (_, ns) => {
        namespaceExports++
        return `module.exports = __defProp(${ns}, "__esModule", { value: true });`
      })
    }
    return {target, code: asciiOnly(code, target), map: result.map}
  }),
)
for (const {target, code, map} of converted) {
  mkdirSync(dirname(target), {recursive: true})
  writeFileSync(target, `${code}//# sourceMappingURL=${basename(target)}.map\n`)
  writeFileSync(`${target}.map`, map)
  buildHash.update(`${target}\0${code}\0`)
}

if (namespaceExports === 0)
  throw new Error('no `module.exports = __toCommonJS(...)` in pass 2: esbuild changed')

// Pass 3: the CommonJS files in one, dist/bundle.cjs. Node's loader costs ~0.13 ms of CPU per file
// (resolving, reading, wrapping), and a small-file dry-run loaded ~75 of them: ~10 ms. In the bundle
// each file is a function run on its first require(), as before, so a call still runs only what it
// loads; V8's code cache (src/startup/code-cache.cjs) holds what a call compiled, per command. The
// files keep their names as stand-ins that hand out the bundle's module: oclif requires a command
// by its file, bin/run.cjs requires main.cjs, and what stays outside requires the chunks it shares
// with the rest. Outside: the ES module chunks (ink's; no CommonJS bundle can hold a module that
// awaits at top level), client-node's chunk (live mode only: ~2.7 MB that every other call would
// read; the single executable keeps it apart for the same reason) and shell completion with its
// static imports (below). The bundle and client-node's chunk are each written as Node's module
// wrapper around their code, which src/startup/code-cache.cjs compiles in place.
const written = [...outputs.keys()].map(renamed)
// Shell completion (`__complete`, run at every TAB) with what it imports statically, ~12 KB: a
// completion from the manifest reads no bundle (a cluster lookup loads it through its import()s).
const completion = new Set()
for (const queue = ['completion/main.js']; queue.length > 0; ) {
  const rel = queue.pop()
  if (completion.has(rel)) continue
  completion.add(rel)
  for (const i of outputs.get(rel).imports) if (i.kind !== 'dynamic-import') queue.push(i.path)
}
const completionBytes = [...completion].reduce((n, rel) => n + outputs.get(rel).code.length, 0)
if (completionBytes > 64 * 1024)
  throw new Error(
    `shell completion imports ${completionBytes} bytes statically: import the rest with import()`,
  )
const outside = written.filter(
  (f) => f.endsWith('.mjs') || OUTSIDE.test(f) || completion.has(f.replace(/\.cjs$/, '.js')),
)
if (!outside.some((f) => OUTSIDE.test(f)))
  throw new Error('no client-node chunk (kube-*.cjs): the bundle changed')
const inside = written.filter((f) => !outside.includes(f))
// The CommonJS chunks that the files outside import, which keep a stand-in.
const shared = new Set()
for (const f of outside) {
  const text = readFileSync(join('dist', f), 'utf8')
  for (const m of text.matchAll(/(?:\brequire\(|\bfrom|\bimport\(?)\s*"(\.\.?\/[^"]+)"/g)) {
    const dep = posix.join(posix.dirname(f), m[1])
    if (dep === 'startup/import-esm.cjs' || dep === 'bundle.cjs') continue
    if (inside.includes(dep)) shared.add(dep)
    else if (!outside.includes(dep)) throw new Error(`${f} imports ${m[1]}, which dist/ does not have`)
  }
}
const entries = inside.filter((f) => !f.startsWith('chunks/') || shared.has(f))
const bundled = await build({
  stdin: {
    contents: `const modules = {\n${entries.map((f) => `  ${JSON.stringify(f)}: () => require(${JSON.stringify(`./${f}`)}),`).join('\n')}\n}\nexports.load = (file) => modules[file]()\n`,
    resolveDir: 'dist',
    sourcefile: 'bundle-entry.cjs',
    loader: 'js',
  },
  outfile: join('dist', 'bundle.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: TARGET,
  external: ['typescript', 'ts-node', 'tsx'],
  plugins: [
    {
      // What stays outside is required by its path from dist/, where the bundle is.
      name: 'outside',
      setup(b) {
        b.onResolve({filter: /\.cjs$/}, (args) => {
          const file = relative('dist', join(args.resolveDir, args.path)).replaceAll('\\', '/')
          if (file !== 'startup/import-esm.cjs' && !outside.includes(file)) return undefined
          return {path: `./${file}`, external: true}
        })
      },
    },
  ],
  // ~3.1 -> ~2.1 MB: read, and held as a string, at every start (~2 ms). Names are kept, so stacks
  // still read; the source map leads back to src/.
  minifyWhitespace: true,
  // Node's module wrapper, written out (src/startup/code-cache.cjs compiles the function in place).
  banner: {js: WRAPPED_HEAD},
  footer: {js: WRAPPED_TAIL},
  sourcemap: 'linked',
  legalComments: 'none',
  write: false,
  logLevel: 'error',
})
for (const file of bundled.outputFiles) {
  if (file.path.endsWith('.map')) writeFileSync(file.path, file.contents)
  else {
    const code = asciiOnly(file.text, file.path)
    writeFileSync(file.path, code)
    buildHash.update(`dist/bundle.cjs\0${code}\0`)
  }
}
for (const f of inside) {
  rmSync(join('dist', `${f}.map`), {force: true})
  if (!entries.includes(f)) {
    rmSync(join('dist', f))
    continue
  }
  // cjs-module-lexer reads an ES module's named imports of a CommonJS file from this annotation.
  const names = readFileSync(join('dist', f), 'utf8').match(/\n0 && \(module\.exports = \{[^}]*\}\);/)
  const stub = `'use strict'\n// In dist/bundle.cjs (scripts/bundle.mjs).\nmodule.exports = require(${JSON.stringify(specifier(f, 'bundle.cjs'))}).load(${JSON.stringify(f)})\n${names ? `${names[0].trim()}\n` : ''}`
  writeFileSync(join('dist', f), stub)
  buildHash.update(`${f}\0${stub}\0`)
}

// The command ids follow the build id, one per line as words (src/startup/code-cache.cjs keys its
// cache of the bundle by the command a call runs).
const commandIds = commandFiles('src/commands').map((f) =>
  relative(join('src', 'commands'), f)
    .replace(/\.tsx?$/, '')
    .split(/[\\/]/)
    .join(' '),
)
writeFileSync(
  join('dist', 'startup', 'build-id'),
  `${buildHash.digest('hex').slice(0, 16)}\n${commandIds.sort().join('\n')}\n`,
)

/**
 * esbuild escapes non-ASCII characters in strings but leaves them in regular expression literals and
 * comments (ansis, js-yaml, our own comments). One such character makes Node decode the whole file
 * the slow way and V8 hold it as a two-byte string: oclif's chunk took ~8 ms to read instead of ~2.
 * A \uXXXX escape means the same in a regular expression and nothing in a comment. The columns
 * of the rest of such a line shift by five per escaped character in the source map.
 */
function asciiOnly(code, file) {
  return code.replace(/[\u0080-\uffff]/g, (ch, at) => {
    if (code[at - 1] === '\\')
      throw new Error(`${file}: cannot escape ${JSON.stringify(ch)} after a backslash`)
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`
  })
}
