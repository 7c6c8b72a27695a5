import { defineConfig } from 'vitest/config'

/** The suites that exercise the core seam, for Stryker (npm run mutation). */
export default defineConfig({
  test: {
    include: [
      'test/protocol/**/*.test.ts',
      'test/machines/ask*.test.ts',
      'test/machines/seam*.test.ts',
    ],
    testTimeout: 60_000,
    env: { PROPERTY_RUNS: '60' },
  },
})
