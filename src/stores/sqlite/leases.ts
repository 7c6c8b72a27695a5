import { STORE_SCHEMA_VERSION, parseRows } from '../../protocol/internal.js'
import type { CorruptRowError, SeamLease } from '../../protocol/internal.js'
import type { ChangeFeed } from './change-feed.js'
import type { Connection } from './connection.js'
import { decodeLease } from './rows.js'
import type { LeaseRow } from './rows.js'
import { statementsOf } from './statements.js'
import type { Statements } from './statements.js'

/** The seams' leases in the file: heartbeats, releases, and the live ones. */
export function createLeases(
  connection: Connection,
  feed: ChangeFeed,
  onCorruptRow: (error: CorruptRowError) => void,
) {
  const writeLease = async (what: string, work: (s: Statements) => boolean): Promise<void> => {
    const revision = await connection.run(what, (db) => {
      const s = statementsOf(db)
      return db
        .transaction(() => {
          if (!work(s)) return undefined
          // Only a lease that appears, goes, or turns its provider on or off is news.
          const next = (s.revision.get() as { leases: number }).leases + 1
          s.setLeasesRevision.run(next)
          return next
        })
        .immediate()
    })
    if (revision !== undefined) feed.local({ type: 'leases.changed' }, { leases: revision })
  }

  return {
    heartbeat(lease: SeamLease): Promise<void> {
      return writeLease('heartbeat', (s) => {
        const before = s.lease.get(lease.seamId) as { provider_active: unknown } | undefined
        const active = lease.providerActive ? 1 : 0
        s.upsertLease.run({
          seamId: lease.seamId,
          providerActive: active,
          expiresAt: lease.expiresAt,
          schemaVersion: STORE_SCHEMA_VERSION,
        })
        return before === undefined || before.provider_active !== active
      })
    },

    release(seamId: string): Promise<void> {
      return writeLease('release', (s) => s.deleteLease.run(seamId).changes > 0)
    },

    async live(now: number): Promise<SeamLease[]> {
      const rows = await connection.run(
        'leases',
        (db) => statementsOf(db).liveLeases.all(now) as LeaseRow[],
      )
      return parseRows(rows, decodeLease, onCorruptRow)
    },
  }
}
