import { mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { AskStore } from '../protocol/index.js'

/** Where a command keeps its asks: one SQLite file on this machine, or Postgres for many. */
export interface StoreChoice {
  /** `--store FILE`: a SQLite file shared by the processes on this machine. */
  sqlitePath?: string
  /** `--postgres URL`: a database shared by processes on many hosts. */
  postgresUrl?: string
}

/** Opens the store the flags name (loading its driver only then), or `undefined` for none. */
export async function openStore(choice: StoreChoice): Promise<AskStore | undefined> {
  if (choice.sqlitePath !== undefined && choice.postgresUrl !== undefined) {
    throw new TypeError('give either --store FILE or --postgres URL, not both')
  }
  if (choice.sqlitePath !== undefined) {
    const { createSqliteStore } = await import('../stores/sqlite/index.js')
    return createSqliteStore({ path: path.resolve(choice.sqlitePath) })
  }
  if (choice.postgresUrl !== undefined) {
    const { createPostgresStore } = await import('../stores/postgres/index.js')
    return createPostgresStore({ connectionString: choice.postgresUrl })
  }
  return undefined
}

/**
 * The file `npm start` keeps its asks in, so a demo killed mid-question
 * resumes: `ASKSEAM_DEMO_STORE` when set (two demos on one file would share
 * their questions, as any two processes on one store do).
 */
export function demoStorePath(): string {
  const chosen = process.env.ASKSEAM_DEMO_STORE
  return chosen !== undefined && chosen !== ''
    ? path.resolve(chosen)
    : path.join(tmpdir(), 'askseam-demo', 'asks.sqlite')
}

/**
 * The demo's store: its SQLite file (`--fresh` deletes it first), or, where
 * better-sqlite3 is not installed, `undefined` (the memory store: nothing
 * outlives the process) and a note saying so.
 */
export async function openDemoStore(
  fresh: boolean,
): Promise<{ store: AskStore | undefined; note: string; forget: () => void }> {
  const file = demoStorePath()
  const forget = () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true })
  }
  if (fresh) forget()
  try {
    mkdirSync(path.dirname(file), { recursive: true })
    const store = await openStore({ sqlitePath: file })
    return {
      store,
      note: `Asks kept in ${file}: stop mid-question and run again to resume; --fresh starts over.`,
      forget,
    }
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : String(error)
    return {
      store: undefined,
      note: `Asks are kept in memory only (${reason}).`,
      forget: () => undefined,
    }
  }
}
