import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    disableConsoleIntercept: true,
    testTimeout: 30_000,
    pool: 'forks',
    // A temp root per run, removed at the end (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    // ink renders only the last frame when it believes it runs in CI (is-in-ci reads CI at import),
    // which would blank every frame the ink tests inspect; the CLI under test treats 'false' as
    // not-CI too, so the tests see what a developer's terminal would.
    env: {CI: 'false'},
  },
})
