import { afterEach, vi } from 'vitest'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'
import { seamFleetSuite } from './seam-fleet-suite.js'

// Every run writes a new file with synced writes: the property takes far longer than on memory.
vi.setConfig({ testTimeout: 600_000 })

// Every run on a file of its own, in a fresh directory removed after the test.
const directories: Array<ReturnType<typeof tempDirectory>> = []
afterEach(() => {
  for (const directory of directories.splice(0)) directory.remove()
})

seamFleetSuite('SQLite store', () => {
  const directory = tempDirectory()
  directories.push(directory)
  // One connection serves all three seams, so its poll for other connections' commits
  // finds nothing; at the default 25 ms it would only make every advance of the clock slow.
  return createSqliteStore({ path: directory.file(), pollIntervalMs: 5_000 })
})
