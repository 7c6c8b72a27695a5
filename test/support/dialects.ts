/**
 * One store harness per durable dialect: a fresh storage for a test (a SQLite
 * file, a Postgres schema), stores opened on it in this process, and the
 * arguments a child process (`seam-process.ts`) needs to open it too.
 */
import { afterEach, describe } from 'vitest'
import type { AskStore } from '../../src/protocol/index.js'
import { createPostgresStore } from '../../src/stores/postgres/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { describePostgres, freshSchema } from './postgres.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'

export type DialectName = 'sqlite' | 'postgres'

/** One test's storage in a dialect. */
export interface Storage {
  dialect: DialectName
  /** The file path or the connection URL. */
  location: string
  /** A store on it in this process, closed after the test. */
  open(options?: { busyTimeoutMs?: number }): AskStore
}

const cleanups: Array<() => void | Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function fresh(dialect: DialectName): Promise<Storage> {
  if (dialect === 'sqlite') {
    const temp = tempDirectory()
    cleanups.push(temp.remove)
    const path = temp.file()
    return {
      dialect,
      location: path,
      open(options = {}) {
        const store = createSqliteStore({ path, pollIntervalMs: 10, ...options })
        cleanups.push(() => store.close())
        return store
      },
    }
  }
  const schema = await freshSchema()
  cleanups.push(schema.drop)
  return {
    dialect,
    location: schema.url,
    open() {
      const store = createPostgresStore({ connectionString: schema.url })
      cleanups.push(() => store.close())
      return store
    },
  }
}

/**
 * Runs `body` once per durable dialect, each `describe` named after it;
 * `storage()` gives the test a fresh one. The Postgres block runs as
 * `describePostgres` does: it fails under CI without a server.
 */
export function describeDialects(
  name: string,
  body: (storage: () => Promise<Storage>) => void,
  dialects: readonly DialectName[] = ['sqlite', 'postgres'],
): void {
  for (const dialect of dialects) {
    const block = () => body(() => fresh(dialect))
    if (dialect === 'postgres') describePostgres(`${name} (postgres)`, block)
    else describe(`${name} (sqlite)`, block)
  }
}
