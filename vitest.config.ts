import {availableParallelism} from 'node:os'
import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    disableConsoleIntercept: true,
    testTimeout: 30_000,
    pool: 'forks',
    // One test file more at a time than the machine has cores (3 on 2 cores; vitest's default there
    // is one): most end-to-end files wait on child processes, servers and simulated time, so with
    // one file per core the cores were busy ~83% of the run (user+sys 14.0 min in 8.5 min of wall
    // with two). Every file owns its ports, temp root and servers; the whole suite passed with
    // three at a time (load ~5), and before with two under load 8-11 (issue 30: under 8 min).
    maxWorkers: availableParallelism() + 1,
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
