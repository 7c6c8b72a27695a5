import { parseNotificationRow } from '../../protocol/internal.js'
import type { NotificationClaimResult, NotificationLedger } from '../../protocol/internal.js'

/** A ledger row as it arrives under `RAW_TEXT`: every column the server's text. */
interface NotificationRow {
  event_id: string | null
  ask_id: string | null
  holder: string | null
  expires_at: string | null
  ending: string | null
}

const COLUMNS = 'event_id, ask_id, holder, expires_at, ending'

const SQL = {
  /**
   * $1 eventId, $2 askId, $3 holder, $4 now, $5 expiresAt. The one
   * conditional write: a row comes back only when the claim is taken.
   */
  claim: `INSERT INTO askseam_notifications AS n (event_id, ask_id, holder, expires_at)
    VALUES ($1, $2, $3, $5)
    ON CONFLICT (event_id) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
    WHERE n.ending IS NULL
      AND (n.holder IS NULL OR n.holder = EXCLUDED.holder OR n.expires_at IS NULL OR n.expires_at <= $4)
    RETURNING event_id`,
  /** As `claim`, for an event the ledger records already: nothing is inserted. */
  claimRecorded: `UPDATE askseam_notifications AS n SET holder = $3, expires_at = $5
    WHERE n.event_id = $1 AND n.ask_id = $2 AND n.ending IS NULL
      AND (n.holder IS NULL OR n.holder = $3 OR n.expires_at IS NULL OR n.expires_at <= $4)
    RETURNING event_id`,
  get: `SELECT ${COLUMNS} FROM askseam_notifications WHERE event_id = $1`,
  /** $1 eventId, $2 ending, $3 at, $4 owed eventId or NULL, $5 its askId. */
  finish: `WITH finished AS (
      UPDATE askseam_notifications SET ending = $2, finished_at = $3, holder = NULL, expires_at = NULL
      WHERE event_id = $1 AND ending IS NULL
    )
    INSERT INTO askseam_notifications (event_id, ask_id)
    SELECT $4::text, $5::text WHERE $4::text IS NOT NULL
    ON CONFLICT (event_id) DO NOTHING`,
  release: `UPDATE askseam_notifications SET holder = NULL, expires_at = NULL
    WHERE event_id = $1 AND holder = $2 AND ending IS NULL`,
  unfinished: `SELECT ${COLUMNS} FROM askseam_notifications WHERE ending IS NULL
    ORDER BY event_id COLLATE "C"`,
} as const

/**
 * The notification ledger (DESIGN §13) in the schema's `askseam_notifications`
 * table (migration 2). `query` runs a statement once the schema is in place.
 */
export function createNotificationLedger(
  query: <TRow>(text: string, values: unknown[]) => Promise<TRow[]>,
): NotificationLedger {
  return {
    async claim(claim) {
      const taken = await query(claim.recordedOnly === true ? SQL.claimRecorded : SQL.claim, [
        claim.eventId,
        claim.askId,
        claim.holder,
        claim.now,
        claim.expiresAt,
      ])
      if (taken.length > 0) return { status: 'claimed' }
      const [row] = await query<NotificationRow>(SQL.get, [claim.eventId])
      // Not taken: finished, another holder's live claim, or (recordedOnly) not there.
      if (row === undefined) {
        if (claim.recordedOnly === true) return { status: 'unrecorded' }
        throw new Error(`askseam/postgres: notification ${claim.eventId} vanished`)
      }
      const entry = parseNotificationRow(row)
      const result: NotificationClaimResult =
        entry.ending !== undefined
          ? { status: 'finished', ending: entry.ending }
          : {
              status: 'held',
              holder: entry.holder ?? '',
              expiresAt: entry.expiresAt ?? claim.now,
            }
      return result
    },

    async finish(finish) {
      await query(SQL.finish, [
        finish.eventId,
        finish.ending,
        finish.at,
        finish.owes?.eventId ?? null,
        finish.owes?.askId ?? null,
      ])
    },

    async release(eventId, holder) {
      await query(SQL.release, [eventId, holder])
    },

    async unfinished() {
      const rows = await query<NotificationRow>(SQL.unfinished, [])
      return rows.map((row) => {
        const { ending: _ending, ...entry } = parseNotificationRow(row)
        return entry
      })
    },
  }
}
