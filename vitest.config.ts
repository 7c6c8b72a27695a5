import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    passWithNoTests: false,
    // A throwaway Postgres for the run when none is given and the server is installed.
    globalSetup: ['test/support/postgres-global-setup.ts'],
    // The default output, then which tests could not run (no Postgres, no chromium) and why.
    reporters: ['default', './test/support/skipped-reporter.ts'],
  },
})
