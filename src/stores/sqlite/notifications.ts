import type { NotificationClaimResult, NotificationLedger } from '../../protocol/internal.js'
import { parseNotificationRow } from '../../protocol/internal.js'
import type { Connection } from './connection.js'
import { statementsOf } from './statements.js'

interface NotificationRow {
  event_id: unknown
  ask_id: unknown
  holder: unknown
  expires_at: unknown
  ending: unknown
}

/** The notification ledger (DESIGN §13) in the store's file: the `notifications` table of migration 2. */
export function createNotificationLedger(connection: Connection): NotificationLedger {
  return {
    claim(claim) {
      return connection.run('claim a notification', (db) =>
        db
          .transaction((): NotificationClaimResult => {
            const s = statementsOf(db)
            const found = s.notification.get(claim.eventId) as NotificationRow | undefined
            if (found === undefined) {
              if (claim.recordedOnly === true) return { status: 'unrecorded' }
              s.insertNotification.run(claim.eventId, claim.askId, claim.holder, claim.expiresAt)
              return { status: 'claimed' }
            }
            const entry = parseNotificationRow(found)
            if (entry.ending !== undefined) return { status: 'finished', ending: entry.ending }
            const live =
              entry.holder !== undefined &&
              entry.holder !== claim.holder &&
              entry.expiresAt !== undefined &&
              entry.expiresAt > claim.now
            if (live) {
              return {
                status: 'held',
                holder: entry.holder as string,
                expiresAt: entry.expiresAt as number,
              }
            }
            s.claimNotification.run(claim.holder, claim.expiresAt, claim.eventId)
            return { status: 'claimed' }
          })
          .immediate(),
      )
    },

    async finish(finish) {
      await connection.run('finish a notification', (db) =>
        db
          .transaction(() => {
            const s = statementsOf(db)
            s.finishNotification.run(finish.ending, finish.at, finish.eventId)
            if (finish.owes !== undefined) {
              s.oweNotification.run(finish.owes.eventId, finish.owes.askId)
            }
          })
          .immediate(),
      )
    },

    async release(eventId, holder) {
      await connection.run('release a notification', (db) =>
        statementsOf(db).releaseNotification.run(eventId, holder),
      )
    },

    async unfinished() {
      const rows = await connection.run(
        'list unfinished notifications',
        (db) => statementsOf(db).unfinishedNotifications.all() as NotificationRow[],
      )
      return rows.map((row) => {
        const { ending: _ending, ...entry } = parseNotificationRow(row)
        return entry
      })
    },
  }
}
