import { STORE_SCHEMA_VERSION, parseRows } from '../../protocol/internal.js'
import type { AskStore } from '../../protocol/internal.js'
import type { StoreDatabase } from './database.js'
import { toSeamLease } from './rows.js'
import type { LeaseRow } from './rows.js'
import { statements } from './statements.js'

/** The seams' leases in the schema: heartbeats, releases, and the live ones. */
export function createLeases(
  db: StoreDatabase,
): Pick<AskStore, 'heartbeat' | 'release' | 'leases'> {
  const { open, ready, query } = db
  return {
    async heartbeat(lease) {
      open()
      const { channel } = await ready()
      await query(statements.heartbeat, [
        lease.seamId,
        lease.providerActive,
        lease.expiresAt,
        STORE_SCHEMA_VERSION,
        channel,
      ])
    },

    async release(seamId) {
      open()
      const { channel } = await ready()
      await query(statements.release, [seamId, channel])
    },

    async leases(now) {
      open()
      await ready()
      const rows = await query<LeaseRow>(statements.leases, [now])
      return parseRows(rows, toSeamLease, db.corrupt)
    },
  }
}
