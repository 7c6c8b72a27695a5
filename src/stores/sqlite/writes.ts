import type BetterSqlite3 from 'better-sqlite3'
import type { Connection } from './connection.js'
import { statementsOf } from './statements.js'
import type { Statements } from './statements.js'

/**
 * The store's writes to asks: each runs `work` in an IMMEDIATE transaction
 * (the write lock taken up front, so two writers never both read, then both
 * write) with the next ask revision at hand; `work` says whether it used it.
 */
export function createAskWriter(connection: Connection) {
  /** One compiled transaction per connection: better-sqlite3 builds a wrapper on every `transaction()` call. */
  const writers = new WeakMap<
    BetterSqlite3.Database,
    BetterSqlite3.Transaction<
      (
        work: (
          s: Statements,
          revision: number,
          waitedMs: number,
        ) => {
          result: unknown
          changed: boolean
        },
        waitedMs: number,
      ) => {
        result: unknown
        revision: number | undefined
      }
    >
  >()
  const writerOf = (db: BetterSqlite3.Database) => {
    let writer = writers.get(db)
    if (writer === undefined) {
      const s = statementsOf(db)
      writer = db.transaction((work, waitedMs) => {
        const revision = (s.revision.get() as { asks: number }).asks + 1
        const { result, changed } = work(s, revision, waitedMs)
        if (changed) s.setAsksRevision.run(revision)
        return { result, revision: changed ? revision : undefined }
      })
      writers.set(db, writer)
    }
    return writer
  }
  /** `waitedMs`: how long the write waited for another writer's lock before it got it. */
  return <T>(
    what: string,
    work: (s: Statements, revision: number, waitedMs: number) => { result: T; changed: boolean },
  ): Promise<{ result: T; revision: number | undefined }> => {
    const calledAt = Date.now()
    let tries = 0
    return connection.run(what, (db: BetterSqlite3.Database) => {
      tries += 1
      const waitedMs = tries === 1 ? 0 : Date.now() - calledAt
      return writerOf(db).immediate(work, waitedMs) as {
        result: T
        revision: number | undefined
      }
    })
  }
}
