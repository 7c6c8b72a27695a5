import { afterEach, vi } from 'vitest'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'
import { askModelSuite } from './ask-model-suite.js'

// Each path runs on a new file with synced writes: a scenario's paths take seconds.
vi.setConfig({ testTimeout: 120_000 })

// Every path on a real file of its own, in a fresh directory removed after the test.
const directories: Array<ReturnType<typeof tempDirectory>> = []
afterEach(() => {
  for (const directory of directories.splice(0)) directory.remove()
})

askModelSuite('SQLite store', true, () => {
  const directory = tempDirectory()
  directories.push(directory)
  // One connection serves both seams, so its poll for other connections' commits finds
  // nothing; at the default 25 ms it would only make every advance of the fake clock slow.
  return createSqliteStore({ path: directory.file(), pollIntervalMs: 5_000 })
})
