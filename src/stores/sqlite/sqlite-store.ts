import { parseRows, warnCorruptRowOnce } from '../../protocol/internal.js'
import type { AskStore, CorruptRowError } from '../../protocol/internal.js'
import { createChangeFeed } from './change-feed.js'
import { createConnection } from './connection.js'
import { createLeases } from './leases.js'
import { createNotificationLedger } from './notifications.js'
import { createRecords } from './records.js'
import { decodeAsk } from './rows.js'
import type { AskRow } from './rows.js'
import { statementsOf } from './statements.js'
import { createSweeps } from './sweeps.js'
import { createAskWriter, createAskWrites } from './writes.js'

/** Options of {@link createSqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file; created (with its schema) on first use. Every process sharing asks names the same file. */
  path: string
  /**
   * How long a call waits for a file another writer holds locked before it
   * rejects. The wait yields the event loop: other asks keep being served.
   * @default 5000
   */
  busyTimeoutMs?: number
  /**
   * How often a watched store looks for changes committed by other
   * processes (one cheap `PRAGMA data_version` while nothing changed).
   * @default 25
   */
  pollIntervalMs?: number
  /**
   * Told of every row that does not parse where the store skips it rather
   * than fail a whole list (`pending`, `expireOverdue`, `endOrphans`,
   * `leases`, `history`, the change feed, which also says `resync`). A call about that
   * one ask (`get`, `settle`, `admit` with its key) rejects with the
   * {@link CorruptRowError} instead.
   * @default a process warning, once per distinct row fault
   */
  onCorruptRow?: (error: CorruptRowError) => void
}

/**
 * A durable {@link AskStore} in one SQLite file, shared by every process on
 * the machine that opens the same path: asks outlive the process that raised
 * them, and seams in several processes share them (DESIGN §10). WAL journal,
 * `synchronous=FULL` (a resolved write survives power loss), one conditional
 * `UPDATE` per settlement.
 *
 * Creating the store never throws and touches nothing: the file is opened on
 * first use, and a call that cannot open it (its directory does not exist
 * yet, the file is locked) rejects while the next one tries again. Needs the
 * optional peer `better-sqlite3` (12.x).
 *
 * @example
 * ```ts
 * import { createUserQuestions } from 'askseam'
 * import { createSqliteStore } from 'askseam/sqlite'
 *
 * const store = createSqliteStore({ path: '.askseam/asks.db' })
 * const seam = createUserQuestions({ store })
 * // A tool call re-run after a crash asks with the same key: it gets the
 * // answer the human already gave, or re-attaches to the open question.
 * const answer = await seam.ask({ key: toolCallId, questions })
 * // On shutdown (a seam never closes the store: several may share it):
 * await seam.close()
 * await store.close()
 * ```
 */
export function createSqliteStore(options: SqliteStoreOptions): AskStore {
  const connection = createConnection({
    path: options.path,
    busyTimeoutMs: options.busyTimeoutMs ?? 5_000,
  })
  const onCorruptRow = options.onCorruptRow ?? warnCorruptRowOnce('sqlite')
  const feed = createChangeFeed(connection, {
    // Stryker disable next-line LogicalOperator: a poll every millisecond instead is timing, not behaviour
    intervalMs: options.pollIntervalMs ?? 25,
    onCorruptRow,
  })
  const write = createAskWriter(connection)
  const writes = createAskWrites(write, feed)
  const sweeps = createSweeps(connection, write, feed, onCorruptRow)
  const leases = createLeases(connection, feed, onCorruptRow)
  const records = createRecords(connection, write, feed, onCorruptRow)

  return {
    admit: (ask) => writes.admit(ask),
    settle: (askId, outcome, settledAt) => writes.settle(askId, outcome, settledAt),
    vote: (askId, vote) => records.vote(askId, vote),
    votes: (askId) => records.votes(askId),
    record: (askId, event) => records.record(askId, event),
    history: (query) => records.history(query),

    async get(askId) {
      const row = await connection.run(
        'get',
        (db) => statementsOf(db).byId.get(askId) as AskRow | undefined,
      )
      return row === undefined ? undefined : decodeAsk(row)
    },

    async pending() {
      const rows = await connection.run(
        'pending',
        (db) => statementsOf(db).pending.all() as AskRow[],
      )
      return parseRows(rows, decodeAsk, onCorruptRow)
    },

    expireOverdue: (now) => sweeps.expireOverdue(now),
    endOrphans: (now) => sweeps.endOrphans(now),
    purge: (before) => sweeps.purge(before),
    heartbeat: (lease) => leases.heartbeat(lease),
    release: (seamId) => leases.release(seamId),
    leases: (now) => leases.live(now),
    watch: (listener) => feed.watch(listener),
    notifications: createNotificationLedger(connection),

    async close() {
      feed.close()
      connection.close()
    },
  }
}
