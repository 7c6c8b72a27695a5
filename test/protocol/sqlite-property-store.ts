import { afterEach, vi } from 'vitest'
import type { AskStore } from '../../src/protocol/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'

/**
 * The store of a seam property suite on SQLite: every run on a file of its
 * own, in a fresh directory removed after the test. Called at a test file's
 * top level; it gives that file's tests the time a property on real files
 * takes (every run writes a new file with synced writes).
 */
export function sqliteStorePerRun(): () => AskStore {
  vi.setConfig({ testTimeout: 600_000 })
  const directories: Array<ReturnType<typeof tempDirectory>> = []
  afterEach(() => {
    for (const directory of directories.splice(0)) directory.remove()
  })
  return () => {
    const directory = tempDirectory()
    directories.push(directory)
    // One connection serves all three seams, so its poll for other connections' commits
    // finds nothing; at the default 25 ms it would only make every advance of the clock slow.
    return createSqliteStore({ path: directory.file(), pollIntervalMs: 5_000 })
  }
}
