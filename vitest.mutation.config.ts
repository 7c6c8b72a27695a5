import { defineConfig } from 'vitest/config'

/** The suites that exercise src/protocol and src/machines, for Stryker (npm run mutation). */
export default defineConfig({
  test: {
    include: ['test/protocol/**/*.test.ts', 'test/machines/**/*.test.ts'],
    testTimeout: 60_000,
  },
})
