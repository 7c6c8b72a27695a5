import {
  STORE_SCHEMA_VERSION,
  TIMEOUT_MESSAGE,
  isReplayedOutcome,
  isTimeoutOutcome,
  parseAskRecord,
  parseOutcome,
} from '../../protocol/internal.js'
import type { AdmitResult, AskStore, NewAskRecord } from '../../protocol/internal.js'
import type { StoreDatabase } from './database.js'
import { firstAsk, toAskRecord } from './rows.js'
import type { AskRow } from './rows.js'
import { statements } from './statements.js'

/** How often admit retries a key that another admit took or gave up meanwhile. */
const KEY_ATTEMPTS = 5

/** The values of `statements.insert` for `ask`. */
const insertValues = (ask: NewAskRecord, channel: string): unknown[] => [
  ask.askId,
  ask.key ?? null,
  JSON.stringify(ask.questions),
  ask.agentId ?? null,
  ask.ownerSeamId,
  ask.startedAt,
  ask.deadline ?? null,
  STORE_SCHEMA_VERSION,
  channel,
  ask.traceContext === undefined ? null : JSON.stringify(ask.traceContext),
  ask.policy === undefined ? null : JSON.stringify(ask.policy),
]

/** The slow path of a keyed admit: the key is held by a committed ask. */
async function admitKeyed(
  db: StoreDatabase,
  ask: NewAskRecord,
  channel: string,
): Promise<AdmitResult> {
  const { query } = db
  const client = await db.pool.connect()
  let broken: Error | undefined
  try {
    // Stryker disable next-line EqualityOperator,AssignmentOperator: only five lost races in a row end the loop; no test can stage them
    for (let attempt = 0; attempt < KEY_ATTEMPTS; attempt += 1) {
      await client.query('BEGIN')
      try {
        const held = firstAsk(await query<AskRow>(statements.lockKey, [ask.key], client))
        // Stryker disable next-line ConditionalExpression: the key's holder vanishes only in a race with purge
        if (held !== undefined) {
          if (held.outcome === undefined || isReplayedOutcome(held.outcome)) {
            await client.query('COMMIT')
            return { status: 'existing', record: held }
          }
          // That outcome said nothing about the human: the key moves to the new ask.
          await query(statements.releaseKey, [held.askId], client)
        }
        const inserted = firstAsk(
          await query<AskRow>(statements.insert, insertValues(ask, channel), client),
        )
        // Stryker disable next-line ConditionalExpression: the insert finds the key taken only in a race with another admit
        if (inserted !== undefined) {
          await client.query('COMMIT')
          return { status: 'admitted', record: inserted }
        }
        // Another admit committed the key after our look-up: look again.
        // Stryker disable next-line StringLiteral: reached only in that race
        await client.query('ROLLBACK')
      } catch (error: unknown) {
        // Stryker disable next-line BlockStatement: only a ROLLBACK that fails (the connection died) comes here
        await client.query('ROLLBACK').catch((rollback: unknown) => {
          broken = rollback instanceof Error ? rollback : new Error(String(rollback))
        })
        throw error
      }
    }
    // Stryker disable next-line StringLiteral: five lost races in a row (above)
    throw new Error(`askseam/postgres: key ${ask.key} kept changing hands; try again`)
  } finally {
    client.release(broken)
  }
}

/** The asks' own writes: `admit` and `settle`, each one conditional statement in the common case. */
export function createAskWrites(db: StoreDatabase): Pick<AskStore, 'admit' | 'settle'> {
  const { open, ready, query } = db
  return {
    async admit(ask) {
      open()
      // What is written is what parses: a malformed trace context is dropped here already.
      const record = parseAskRecord({ ...ask, state: 'pending' })
      const { channel } = await ready()
      const inserted = firstAsk(
        await query<AskRow>(statements.insert, insertValues(record, channel)),
      )
      if (inserted !== undefined) return { status: 'admitted', record: inserted }
      // Only a key conflict inserts nothing (a taken askId throws).
      return admitKeyed(db, record, channel)
    },

    async settle(askId, outcome, settledAt) {
      open()
      const offered = parseOutcome(outcome)
      const { channel } = await ready()
      const [written] = await query<AskRow & { won: string | null }>(statements.settle, [
        askId,
        JSON.stringify(outcome),
        settledAt,
        STORE_SCHEMA_VERSION,
        channel,
        TIMEOUT_MESSAGE,
        isTimeoutOutcome(offered),
      ])
      // Written, though not necessarily with the outcome offered: past the deadline, the timeout.
      if (written !== undefined) return { record: toAskRecord(written), won: written.won === 't' }
      // Not written (or no such ask): the committed row is the answer.
      const record = firstAsk(await query<AskRow>(statements.get, [askId]))
      return record === undefined ? undefined : { record, won: false }
    },
  }
}
