#!/usr/bin/env node
// Build step: bundle dist/cluster/live/kube.js (a re-export of client-node's KubeConfig) into one
// file, so live commands load one module instead of client-node's hundreds (see src/cluster/live/kube.ts).
import {build} from 'esbuild'

await build({
  entryPoints: ['dist/cluster/live/kube.js'],
  outfile: 'dist/cluster/live/kube.js',
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Some of client-node's dependencies are CommonJS and call require().
  banner: {
    js: "import {createRequire as __createRequire} from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  legalComments: 'linked',
  logLevel: 'warning',
})
