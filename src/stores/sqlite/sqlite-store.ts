import {
  LEASE_RETENTION_MS,
  TIMEOUT_MESSAGE,
  isReplayedOutcome,
  isTimeoutOutcome,
  ownerGoneOutcome,
  parseAskRecord,
  parseOutcome,
  parseRows,
  timeoutOutcome,
  warnCorruptRowOnce,
} from '../../protocol/internal.js'
import type { AdmitResult, AskRecord, AskStore, CorruptRowError } from '../../protocol/internal.js'
import { createChangeFeed } from './change-feed.js'
import { createConnection } from './connection.js'
import { createLeases } from './leases.js'
import { createNotificationLedger } from './notifications.js'
import { createAskWriter } from './writes.js'
import { decodeAsk, decodeEnded, encodeNewAsk } from './rows.js'
import type { AskRow } from './rows.js'
import { statementsOf } from './statements.js'

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
   * `leases`, the change feed, which also says `resync`). A call about that
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
  const ownerGone = JSON.stringify(ownerGoneOutcome())

  /** Decodes rows, skipping (and reporting) those that do not parse. */
  const decodeAll = (rows: AskRow[], decode: (row: AskRow) => AskRecord = decodeAsk): AskRecord[] =>
    parseRows(rows, decode, onCorruptRow)

  const write = createAskWriter(connection)

  const settled = (records: AskRecord[], revision: number | undefined): AskRecord[] => {
    for (const record of records) feed.local({ type: 'ask.settled', record }, { asks: revision })
    // Stryker disable next-line EqualityOperator: askIds are unique, so no two are equal
    return records.sort((a, b) => a.startedAt - b.startedAt || (a.askId < b.askId ? -1 : 1))
  }

  const leases = createLeases(connection, feed, onCorruptRow)

  return {
    async admit(ask): Promise<AdmitResult> {
      const record = parseAskRecord({ ...ask, state: 'pending' })
      const { result, revision } = await write('admit', (s, revision) => {
        // Stryker disable next-line ConditionalExpression: no row has a NULL key to find
        if (record.key !== undefined) {
          const row = s.byKey.get(record.key) as AskRow | undefined
          if (row !== undefined) {
            const held = decodeAsk(row)
            if (held.outcome === undefined || isReplayedOutcome(held.outcome)) {
              return { result: { status: 'existing', record: held } as AdmitResult, changed: false }
            }
            // That outcome said nothing about the human: the key starts a new ask.
            s.giveKeyUp.run(held.askId)
          }
        }
        s.insert.run(encodeNewAsk(record, revision))
        return { result: { status: 'admitted', record } as AdmitResult, changed: true }
      })
      if (result.status === 'admitted') {
        feed.local({ type: 'ask.admitted', record: result.record }, { asks: revision })
      }
      return result
    },

    async settle(askId, outcome, settledAt) {
      const offered = parseOutcome(outcome)
      const values = {
        outcome: JSON.stringify(offered),
        offersTimeout: isTimeoutOutcome(offered) ? 1 : 0,
        message: TIMEOUT_MESSAGE,
        askId,
      }
      const { result, revision } = await write('settle', (s, revision, waitedMs) => {
        // No row: the ask was settled already, or is not in the store.
        // The deadline is checked at the write, not at the call: a wait for the lock counts.
        const at = settledAt + waitedMs
        const written = s.settle.get({ ...values, settledAt: at, revision }) as
          { won: unknown } | undefined
        const row = s.byId.get(askId) as AskRow | undefined
        // Decoded inside the transaction: a corrupt ask rejects and is left as it was.
        return {
          result:
            row === undefined ? undefined : { record: decodeAsk(row), won: written?.won === 1 },
          // A write that lost to the deadline still ended the ask: watchers hear of it.
          changed: written !== undefined,
        }
      })
      if (result !== undefined && revision !== undefined) settled([result.record], revision)
      return result
    },

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
      return decodeAll(rows)
    },

    async expireOverdue(now) {
      const { result, revision } = await write('expireOverdue', (s, revision) => {
        const rows = s.expire.all({ now, revision, message: TIMEOUT_MESSAGE }) as AskRow[]
        return { result: rows, changed: rows.length > 0 }
      })
      return settled(
        decodeAll(result, (row) => decodeEnded(row, now, timeoutOutcome)),
        revision,
      )
    },

    async endOrphans(now) {
      const { result, revision } = await write('endOrphans', (s, revision) => {
        const rows = s.endOrphans.all({ now, revision, outcome: ownerGone }) as AskRow[]
        // Leases long expired count for no one: their going is no news to watchers.
        s.pruneLeases.run(now - LEASE_RETENTION_MS)
        return { result: rows, changed: rows.length > 0 }
      })
      return settled(
        decodeAll(result, (row) => decodeEnded(row, now, ownerGoneOutcome)),
        revision,
      )
    },

    heartbeat: (lease) => leases.heartbeat(lease),
    release: (seamId) => leases.release(seamId),
    leases: (now) => leases.live(now),
    watch: (listener) => feed.watch(listener),
    notifications: createNotificationLedger(connection),

    async purge({ settledBefore }) {
      const { purged, purges } = await connection.run('purge', (db) => {
        const s = statementsOf(db)
        return db
          .transaction(() => {
            s.purgeNotifications.run(settledBefore)
            const deleted = s.purge.run(settledBefore).changes
            if (deleted === 0) return { purged: 0, purges: undefined }
            const next = (s.purges.get() as { user_version: number }).user_version + 1
            // A pragma takes no parameters; `next` is an integer read just above.
            db.pragma(`user_version = ${next}`)
            return { purged: deleted, purges: next }
          })
          .immediate()
      })
      // A watcher may hold an ask whose settlement it never read, and whose row is now gone.
      if (purges !== undefined) feed.local({ type: 'resync' }, { purges })
      return purged
    },

    async close() {
      feed.close()
      connection.close()
    },
  }
}

/** Whether `outcome` is the deadline's own: the one outcome a write past the deadline may still commit. */
