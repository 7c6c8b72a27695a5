import type BetterSqlite3 from 'better-sqlite3'
import {
  CorruptRowError,
  historyOf,
  parseEventRow,
  parseOutcome,
  parseRows,
  readHistoryQuery,
  timeoutOutcome,
} from '../../protocol/internal.js'
import type {
  AskHistoryEvent,
  AskStore,
  HistoryQuery,
  RecordedEvent,
  SettleResult,
  VoteResult,
} from '../../protocol/internal.js'
import { readResponder } from '../../vocabulary/index.js'
import type { Responder } from '../../vocabulary/index.js'
import type { ChangeFeed } from './change-feed.js'
import type { Connection } from './connection.js'
import { ASK_COLUMNS, decodeAsk } from './rows.js'
import type { AskRow } from './rows.js'
import { statementsOf } from './statements.js'
import { announceSettled, settleWithin } from './writes.js'
import type { AskWriter } from './writes.js'

/** An `ask_events` row as the store reads it back. */
interface EventRow {
  ask_id: unknown
  at: unknown
  type: unknown
  by_json: unknown
  detail: unknown
}

/** A delivered row of the notification ledger: a `notified` event of its ask's record. */
interface DeliveredRow {
  ask_id: unknown
  event_id: unknown
  finished_at: unknown
}

/**
 * The record of asks (DESIGN §12) in the store's file: votes, each one
 * IMMEDIATE transaction as `settle` is; events appended to `ask_events`;
 * and history, read in one transaction so that an ask and its events agree.
 */
export function createRecords(
  connection: Connection,
  write: AskWriter,
  feed: ChangeFeed,
  onCorruptRow: (error: CorruptRowError) => void,
): Pick<AskStore, 'vote' | 'votes' | 'record' | 'history'> {
  return {
    async vote(askId, vote) {
      const by = voterOf(vote.by, vote.required)
      const offered = parseOutcome(vote.outcome)
      const { result, revision } = await write<VoteResult | undefined>(
        'vote',
        (s, revision, waitedMs) => {
          // As in settle: the time of the write, a wait for the lock included.
          const at = vote.at + waitedMs
          const row = s.byId.get(askId) as AskRow | undefined
          if (row === undefined) return { result: undefined, changed: false }
          const held = decodeAsk(row)
          if (held.state !== 'pending') {
            return { result: { status: 'settled', record: held, won: false }, changed: false }
          }
          if (held.deadline !== undefined && held.deadline <= at) {
            // Overdue: settled as settle settles it, and the vote is not counted.
            const timedOut = settleWithin(s, askId, timeoutOutcome(held), at, revision)
            return { result: settledBy(timedOut.result, false), changed: timedOut.changed }
          }
          const votes = s.votes.all(askId) as Array<{ by_id: unknown; by_json: unknown }>
          // The column the UNIQUE index holds says who voted, even when its JSON is corrupt.
          const given = parseRows(votes, (each) => voteRow(each.by_json), onCorruptRow)
          if (votes.some((each) => each.by_id === by.id)) {
            return { result: { status: 'already-voted', given }, changed: false }
          }
          // Kept at the time of the write: votes read back in the order they were counted.
          s.insertEvent.run(eventValues(askId, { at, type: 'vote', by }))
          const now = [...given, by]
          if (now.length < vote.required) {
            return { result: { status: 'counted', given: now }, changed: false }
          }
          const settled = settleWithin(s, askId, { ...offered, by: now }, at, revision)
          return {
            result: settledBy(settled.result, settled.result?.won === true),
            changed: settled.changed,
          }
        },
      )
      if (result?.status === 'settled' && revision !== undefined) {
        announceSettled(feed, [result.record], revision)
      }
      return result
    },

    async votes(askId) {
      const votes = await connection.run(
        'votes',
        (db) => statementsOf(db).votes.all(askId) as Array<{ by_json: unknown }>,
      )
      return parseRows(votes, (each) => voteRow(each.by_json), onCorruptRow)
    },

    async record(askId, event) {
      await connection.run('record', (db) =>
        statementsOf(db).recordEvent.run(eventValues(askId, event)),
      )
    },

    async history(query) {
      const checked = readHistoryQuery(query)
      const { asks, events, delivered } = await connection.run('history', (db) =>
        db.transaction(() => {
          const s = statementsOf(db)
          const rows = historyStatement(db, checked).all(filterValues(checked)) as AskRow[]
          const ids = JSON.stringify(rows.map((row) => row[0]))
          return {
            asks: rows,
            events: s.eventsOf.all(ids) as EventRow[],
            delivered: s.deliveredOf.all(ids) as DeliveredRow[],
          }
        })(),
      )
      const kept = new Map<unknown, AskHistoryEvent[]>()
      const keep = (askId: unknown, event: AskHistoryEvent): void => {
        const list = kept.get(askId)
        if (list === undefined) kept.set(askId, [event])
        else list.push(event)
      }
      parseRows(
        events,
        (row) => keep(row.ask_id, parseEventRow({ ...row, by: row.by_json })),
        onCorruptRow,
      )
      parseRows(delivered, (row) => keep(row.ask_id, notifiedEvent(row)), onCorruptRow)
      const records = parseRows(asks, decodeAsk, onCorruptRow)
      return Promise.all(records.map((record) => historyOf(record, kept.get(record.askId) ?? [])))
    },
  }
}

/** A vote's `by`, checked: a store keys votes by its id. */
function voterOf(by: unknown, required: unknown): Responder {
  const voter = readResponder(by)
  if (voter === undefined) throw new TypeError('vote: by names no responder')
  if (typeof required !== 'number' || !Number.isInteger(required) || required < 1) {
    throw new TypeError('vote: required must be a whole number, 1 or more')
  }
  return voter
}

/** A vote's responder, as kept: a vote that names none is a corrupt row. */
function voteRow(by: unknown): Responder {
  const event = parseEventRow({ at: 0, type: 'vote', by })
  if (event.by === undefined) throw new CorruptRowError('a vote names no responder')
  return event.by
}

function settledBy(settled: SettleResult | undefined, won: boolean): VoteResult {
  // The row was read in the same transaction, so it is there.
  if (settled === undefined) throw new Error('askseam/sqlite: an ask vanished inside its vote')
  return { status: 'settled', record: settled.record, won }
}

/** The parameters of `insertEvent` and `recordEvent`. */
function eventValues(askId: string, event: RecordedEvent | AskHistoryEvent) {
  return {
    askId,
    at: event.at,
    type: event.type,
    byId: event.by?.id ?? null,
    by: event.by === undefined ? null : JSON.stringify(event.by),
    detail: event.detail === undefined ? null : JSON.stringify(event.detail),
  }
}

/** A delivered notification, as the record of its ask shows it. */
function notifiedEvent(row: DeliveredRow): AskHistoryEvent {
  if (typeof row.event_id !== 'string') throw new CorruptRowError('a notification has no event id')
  return parseEventRow({ at: row.finished_at, type: 'notified', detail: { eventId: row.event_id } })
}

type Filter = Pick<HistoryQuery, 'askId' | 'key' | 'agentId'> & { limit: number }

const FILTERS = [
  ['askId', 'ask_id'],
  ['key', 'ask_key'],
  ['agentId', 'agent_id'],
] as const

/** The named parameters of {@link historyStatement}: the fields the query gives, and the limit. */
function filterValues(query: Filter): Record<string, unknown> {
  const values: Record<string, unknown> = { limit: query.limit }
  for (const [field] of FILTERS) if (query[field] !== undefined) values[field] = query[field]
  return values
}

/** One prepared statement per connection and set of fields given: each uses its own index. */
const historyStatements = new WeakMap<
  BetterSqlite3.Database,
  Map<string, BetterSqlite3.Statement>
>()

/** The asks a history query matches, newest first (the memory store's order), in raw mode. */
function historyStatement(db: BetterSqlite3.Database, query: Filter): BetterSqlite3.Statement {
  const given = FILTERS.filter(([field]) => query[field] !== undefined)
  const name = given.map(([field]) => field).join(',')
  let cached = historyStatements.get(db)
  if (cached === undefined) historyStatements.set(db, (cached = new Map()))
  let statement = cached.get(name)
  if (statement === undefined) {
    const where = given.map(([field, column]) => `${column} = @${field}`).join(' AND ')
    statement = db
      .prepare(
        `SELECT ${ASK_COLUMNS} FROM asks ${where === '' ? '' : `WHERE ${where}`}
         ORDER BY started_at DESC, ask_id DESC LIMIT @limit`,
      )
      .raw(true)
    cached.set(name, statement)
  }
  return statement
}
