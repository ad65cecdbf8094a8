#!/usr/bin/env node
// Build step: esbuild bundles src/ into dist/ (one entry per oclif command, plus dist/main.js for
// bin/run.js), splitting shared code and every dynamic import into chunks. A plugin call then
// loads a handful of files instead of ~150 of ours and ~100 of @oclif/core's CommonJS graph: start-up
// went from ~330 to ~230 ms for --version and from ~480 to ~410 ms for a small file (README, Stack).
// Heavy dependencies stay behind dynamic imports, so ink, React and client-node still load only
// when a command needs them. Type checking is `npm run typecheck`; esbuild only strips types.
import {mkdirSync, readdirSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {build} from 'esbuild'

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

await build({
  entryPoints: ['src/main.ts', ...commandFiles('src/commands')],
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  // @oclif/core reads tsconfig files with TypeScript only in development mode, never when shipped.
  external: ['typescript', 'ts-node', 'tsx'],
  alias: {'react-devtools-core': `./${stub}`},
  // CommonJS dependencies (@oclif/core's, client-node's) call require().
  banner: {
    js: "import {createRequire as __createRequire} from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  // React's production build; oclif's development-mode switch (NODE_ENV=test or development) would
  // otherwise look for src/ through tsx.
  define: {'process.env.NODE_ENV': '"production"'},
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
})
