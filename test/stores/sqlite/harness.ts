/**
 * What the SQLite store tests share: stores on a fresh file, a raw
 * better-sqlite3 connection on it (another writer, or someone editing the
 * file by hand), all closed and removed after each test.
 */
import Database from 'better-sqlite3'
import { afterEach } from 'vitest'
import type { AskStore, CorruptRowError } from '../../../src/protocol/store/index.js'
import { createSqliteStore } from '../../../src/stores/sqlite/index.js'
import { tempDirectory } from './temp-file.js'

const cleanups: Array<() => void | Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** Runs `cleanup` after the current test. */
export function afterThisTest(cleanup: () => void | Promise<void>): void {
  cleanups.push(cleanup)
}

export interface SqliteSetupOptions {
  busyTimeoutMs?: number
  pollIntervalMs?: number
  onCorruptRow?: (e: CorruptRowError) => void
}

/** A fresh file, a store on it (polling every 10 ms unless told), and a way to open more. */
export function setup(options: SqliteSetupOptions = {}) {
  const temp = tempDirectory()
  cleanups.push(temp.remove)
  const path = temp.file()
  const open = (): AskStore => {
    const store = createSqliteStore({ path, pollIntervalMs: 10, ...options })
    cleanups.push(() => store.close())
    return store
  }
  return { temp, path, store: open(), open }
}

/** A connection of the test's own on `path`, rolled back and closed afterwards. */
export function rawConnection(path: string): Database.Database {
  const db = new Database(path)
  cleanups.push(() => {
    if (db.inTransaction) db.exec('ROLLBACK')
    if (db.open) db.close()
  })
  return db
}

/** Waits (bounded) until `check` holds. */
export async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5_000
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
