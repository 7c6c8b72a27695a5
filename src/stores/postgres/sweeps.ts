import {
  LEASE_RETENTION_MS,
  STORE_SCHEMA_VERSION,
  TIMEOUT_MESSAGE,
  ownerGoneOutcome,
  parseRows,
  timeoutOutcome,
} from '../../protocol/internal.js'
import type { AskStore } from '../../protocol/internal.js'
import type { StoreDatabase } from './database.js'
import { toSweptRecord } from './rows.js'
import type { SweptRow } from './rows.js'
import { statements } from './statements.js'

/**
 * The store's sweeps over many asks, each one statement: the overdue timed
 * out, the orphans ended (and leases long dead pruned), the long settled
 * purged. A swept row that does not parse is skipped and reported.
 */
export function createSweeps(
  db: StoreDatabase,
): Pick<AskStore, 'expireOverdue' | 'endOrphans' | 'purge'> {
  const { open, ready, query } = db
  return {
    async expireOverdue(now) {
      open()
      const { channel } = await ready()
      return parseRows(
        await query<SweptRow>(statements.expireOverdue, [
          now,
          TIMEOUT_MESSAGE,
          STORE_SCHEMA_VERSION,
          channel,
        ]),
        (row) => toSweptRecord(row, now, timeoutOutcome),
        db.corrupt,
      )
    },

    async endOrphans(now) {
      open()
      const { channel } = await ready()
      return parseRows(
        await query<SweptRow>(statements.endOrphans, [
          now,
          JSON.stringify(ownerGoneOutcome()),
          STORE_SCHEMA_VERSION,
          channel,
          now - LEASE_RETENTION_MS,
        ]),
        (row) => toSweptRecord(row, now, ownerGoneOutcome),
        db.corrupt,
      )
    },

    async purge({ settledBefore }) {
      open()
      const { channel } = await ready()
      const rows = await query<{ purged: string }>(statements.purge, [settledBefore, channel])
      return Number(rows[0]?.purged ?? 0)
    },
  }
}
