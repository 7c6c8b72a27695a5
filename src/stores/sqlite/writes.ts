import type BetterSqlite3 from 'better-sqlite3'
import {
  TIMEOUT_MESSAGE,
  isReplayedOutcome,
  isTimeoutOutcome,
  parseAskRecord,
  parseOutcome,
} from '../../protocol/internal.js'
import type {
  AdmitResult,
  AskOutcome,
  AskRecord,
  AskStore,
  SettleResult,
} from '../../protocol/internal.js'
import type { ChangeFeed } from './change-feed.js'
import type { Connection } from './connection.js'
import { decodeAsk, encodeNewAsk } from './rows.js'
import type { AskRow } from './rows.js'
import { statementsOf } from './statements.js'
import type { Statements } from './statements.js'

/**
 * The store's writes to asks: each runs `work` in an IMMEDIATE transaction
 * (the write lock taken up front, so two writers never both read, then both
 * write) with the next ask revision at hand; `work` says whether it used it.
 */
export function createAskWriter(connection: Connection) {
  /** One compiled transaction per connection: better-sqlite3 builds a wrapper on every `transaction()` call. */
  const writers = new WeakMap<
    BetterSqlite3.Database,
    BetterSqlite3.Transaction<
      (
        work: (
          s: Statements,
          revision: number,
          waitedMs: number,
        ) => {
          result: unknown
          changed: boolean
        },
        waitedMs: number,
      ) => {
        result: unknown
        revision: number | undefined
      }
    >
  >()
  const writerOf = (db: BetterSqlite3.Database) => {
    let writer = writers.get(db)
    if (writer === undefined) {
      const s = statementsOf(db)
      writer = db.transaction((work, waitedMs) => {
        const revision = (s.revision.get() as { asks: number }).asks + 1
        const { result, changed } = work(s, revision, waitedMs)
        if (changed) s.setAsksRevision.run(revision)
        return { result, revision: changed ? revision : undefined }
      })
      writers.set(db, writer)
    }
    return writer
  }
  /** `waitedMs`: how long the write waited for another writer's lock before it got it. */
  return <T>(
    what: string,
    work: (s: Statements, revision: number, waitedMs: number) => { result: T; changed: boolean },
  ): Promise<{ result: T; revision: number | undefined }> => {
    const calledAt = Date.now()
    let tries = 0
    return connection.run(what, (db: BetterSqlite3.Database) => {
      tries += 1
      const waitedMs = tries === 1 ? 0 : Date.now() - calledAt
      return writerOf(db).immediate(work, waitedMs) as {
        result: T
        revision: number | undefined
      }
    })
  }
}

/** A store's one {@link createAskWriter}. */
export type AskWriter = ReturnType<typeof createAskWriter>

/**
 * Tells this process's watchers of asks a write settled, at the asks'
 * `revision`; returns them oldest first.
 */
export function announceSettled(
  feed: ChangeFeed,
  records: AskRecord[],
  revision: number | undefined,
): AskRecord[] {
  for (const record of records) feed.local({ type: 'ask.settled', record }, { asks: revision })
  // Stryker disable next-line EqualityOperator: askIds are unique, so no two are equal
  return records.sort((a, b) => a.startedAt - b.startedAt || (a.askId < b.askId ? -1 : 1))
}

/** The asks' own writes: `admit` and `settle`, each one conditional write. */
export function createAskWrites(
  write: AskWriter,
  feed: ChangeFeed,
): Pick<AskStore, 'admit' | 'settle'> {
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
      const { result, revision } = await write('settle', (s, revision, waitedMs) =>
        // The deadline is checked at the write, not at the call: a wait for the lock counts.
        settleWithin(s, askId, offered, settledAt + waitedMs, revision),
      )
      if (result !== undefined && revision !== undefined) {
        announceSettled(feed, [result.record], revision)
      }
      return result
    },
  }
}

/**
 * The one conditional write, inside a writer's transaction: settles `askId`
 * with `offered` at `at` if it is still pending (past its deadline, with the
 * timeout). `changed`: whether it ended the ask, so watchers hear of it.
 */
export function settleWithin(
  s: Statements,
  askId: string,
  offered: AskOutcome,
  at: number,
  revision: number,
): { result: SettleResult | undefined; changed: boolean } {
  // No row: the ask was settled already, or is not in the store.
  const written = s.settle.get({
    outcome: JSON.stringify(offered),
    offersTimeout: isTimeoutOutcome(offered) ? 1 : 0,
    message: TIMEOUT_MESSAGE,
    askId,
    settledAt: at,
    revision,
  }) as { won: unknown } | undefined
  const row = s.byId.get(askId) as AskRow | undefined
  // Decoded inside the transaction: a corrupt ask rejects and is left as it was.
  return {
    result: row === undefined ? undefined : { record: decodeAsk(row), won: written?.won === 1 },
    // A write that lost to the deadline still ended the ask: watchers hear of it.
    changed: written !== undefined,
  }
}
