import {availableParallelism} from 'node:os'
import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    disableConsoleIntercept: true,
    testTimeout: 30_000,
    pool: 'forks',
    // Two test files at a time even on 2 cores (vitest's default there is one): most end-to-end
    // files wait on child processes, servers and simulated time, so one file alone left a core
    // idle (user+sys 7.2 min in 11.0 min of wall). Every file owns its ports, temp root and
    // servers; the whole suite passed with two at a time under load 8-11 (issue 30: under 8 min).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // One worker process per slot for the whole run, not one per file: vitest's start of a worker
    // and its environment cost ~300 ms per file here, 132 files. Every file closes what it opens
    // (servers, children, temp directories) and puts back what it changes in process.env.
    isolate: false,
    // A temp root per run, removed at the end (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    // ink renders only the last frame when it believes it runs in CI (is-in-ci reads CI at import),
    // which would blank every frame the ink tests inspect; the CLI under test treats 'false' as
    // not-CI too, so the tests see what a developer's terminal would.
    env: {CI: 'false'},
  },
})
