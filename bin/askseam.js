#!/usr/bin/env node
// Runs the built CLI (dist/ ships in the package; npm pack builds it). From a
// source checkout, `npm start` runs the sources with tsx instead.
import('../dist/cli/main.js').catch((error) => {
  const unbuilt =
    error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli/main.js')
  const message = error instanceof Error ? error.message : String(error)
  console.error(
    `askseam: ${unbuilt ? 'dist/ is missing: in a source checkout run npm run build first (or npm start)' : message}`,
  )
  process.exitCode = 1
})
