import type {
  NotificationClaimResult,
  NotificationEnding,
  NotificationEntry,
  NotificationLedger,
} from '../../protocol/internal.js'
import { CorruptRowError } from '../../protocol/internal.js'
import type { Connection } from './connection.js'
import { statementsOf } from './statements.js'

interface NotificationRow {
  event_id: unknown
  ask_id: unknown
  holder: unknown
  expires_at: unknown
  ending: unknown
}

const ENDINGS: ReadonlySet<unknown> = new Set(['delivered', 'gone', 'given-up', 'dropped'])

/** A ledger row as the ledger's types say, or a {@link CorruptRowError}. */
function decode(row: NotificationRow): NotificationEntry & { ending?: NotificationEnding } {
  const { event_id: eventId, ask_id: askId, holder, expires_at: expiresAt, ending } = row
  if (typeof eventId !== 'string' || typeof askId !== 'string') {
    throw new CorruptRowError(`notification ${String(eventId)}: no event or ask id`)
  }
  if (
    (holder !== null && typeof holder !== 'string') ||
    (expiresAt !== null && typeof expiresAt !== 'number') ||
    (ending !== null && !ENDINGS.has(ending))
  ) {
    throw new CorruptRowError(`notification ${eventId}: not a row of the notification ledger`)
  }
  return {
    eventId,
    askId,
    ...(holder === null ? {} : { holder }),
    ...(expiresAt === null ? {} : { expiresAt }),
    ...(ending === null ? {} : { ending: ending as NotificationEnding }),
  }
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
            const entry = decode(found)
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
        const { ending: _ending, ...entry } = decode(row)
        return entry
      })
    },
  }
}
