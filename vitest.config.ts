import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    disableConsoleIntercept: true,
    testTimeout: 30_000,
    pool: 'forks',
  },
})
