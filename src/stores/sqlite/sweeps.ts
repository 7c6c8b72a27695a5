import {
  LEASE_RETENTION_MS,
  TIMEOUT_MESSAGE,
  ownerGoneOutcome,
  parseRows,
  timeoutOutcome,
} from '../../protocol/internal.js'
import type { AskOutcome, AskRecord, AskStore, CorruptRowError } from '../../protocol/internal.js'
import type { ChangeFeed } from './change-feed.js'
import type { Connection } from './connection.js'
import { decodeEnded } from './rows.js'
import type { AskRow } from './rows.js'
import { statementsOf } from './statements.js'
import { announceSettled } from './writes.js'
import type { AskWriter } from './writes.js'

/**
 * The store's sweeps over many asks: the overdue timed out, the orphans
 * ended, the long settled purged. A swept row that does not parse is skipped
 * and reported to `onCorruptRow`.
 */
export function createSweeps(
  connection: Connection,
  write: AskWriter,
  feed: ChangeFeed,
  onCorruptRow: (error: CorruptRowError) => void,
): Pick<AskStore, 'expireOverdue' | 'endOrphans' | 'purge'> {
  const ownerGone = JSON.stringify(ownerGoneOutcome())

  /** Decodes rows a sweep ended at `now`, skipping (and reporting) those that do not parse. */
  const decodeEndedAll = (
    rows: AskRow[],
    now: number,
    outcomeOf: (ask: AskRecord) => AskOutcome,
  ): AskRecord[] => parseRows(rows, (row) => decodeEnded(row, now, outcomeOf), onCorruptRow)

  return {
    async expireOverdue(now) {
      const { result, revision } = await write('expireOverdue', (s, revision) => {
        const rows = s.expire.all({ now, revision, message: TIMEOUT_MESSAGE }) as AskRow[]
        return { result: rows, changed: rows.length > 0 }
      })
      return announceSettled(feed, decodeEndedAll(result, now, timeoutOutcome), revision)
    },

    async endOrphans(now) {
      const { result, revision } = await write('endOrphans', (s, revision) => {
        const rows = s.endOrphans.all({ now, revision, outcome: ownerGone }) as AskRow[]
        // Leases long expired count for no one: their going is no news to watchers.
        s.pruneLeases.run(now - LEASE_RETENTION_MS)
        return { result: rows, changed: rows.length > 0 }
      })
      return announceSettled(feed, decodeEndedAll(result, now, ownerGoneOutcome), revision)
    },

    async purge({ settledBefore }) {
      const { purged, purges } = await connection.run('purge', (db) => {
        const s = statementsOf(db)
        return db
          .transaction(() => {
            s.purgeNotifications.run(settledBefore)
            s.purgeEvents.run(settledBefore)
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
  }
}
