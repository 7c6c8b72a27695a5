#!/usr/bin/env node
// Runs the built CLI when installed; from a source checkout, `npm start` uses tsx instead.
import('../dist/cli/main.js').catch((error) => {
  console.error(`askseam: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
