import type { PoolClient } from 'pg'
import {
  CorruptRowError,
  STORE_SCHEMA_VERSION,
  TIMEOUT_MESSAGE,
  historyOf,
  isTimeoutOutcome,
  parseEventRow,
  parseOutcome,
  parseRows,
  readHistoryQuery,
  timeoutOutcome,
} from '../../protocol/internal.js'
import type {
  AskHistoryEvent,
  AskOutcome,
  AskRecord,
  AskStore,
  HistoryQuery,
  NewVote,
  SettleResult,
  VoteResult,
} from '../../protocol/internal.js'
import { readResponder } from '../../vocabulary/index.js'
import type { Responder } from '../../vocabulary/index.js'
import type { StoreDatabase } from './database.js'
import { askColumns, firstAsk, toAskRecord } from './rows.js'
import type { AskRow } from './rows.js'
import { statements } from './statements.js'

const columns = askColumns()

const SQL = {
  /** $1 askId: the ask, locked until the vote commits; votes on it wait here, one by one. */
  lockAsk: `SELECT ${columns} FROM askseam_asks WHERE ask_id = $1 FOR UPDATE`,
  /** The database's clock, read after the lock: a wait for it counts, as in settle. */
  now: `SELECT floor(extract(epoch FROM clock_timestamp()) * 1000) AS now`,
  /** $1 askId: its votes in the order they were counted. */
  votes: `SELECT by_id, by_json FROM askseam_ask_events
    WHERE ask_id = $1 AND type = 'vote' ORDER BY seq`,
  /** $1 askId, $2 at, $3 type, $4 by's id, $5 by, $6 detail: nothing for an ask not there. */
  record: `INSERT INTO askseam_ask_events (ask_id, at, type, by_id, by_json, detail)
    SELECT $1, $2, $3, $4, $5::json, $6::json
    WHERE EXISTS (SELECT 1 FROM askseam_asks WHERE ask_id = $1)`,
} as const

/** A vote's event row, as the store reads it back. */
interface VoteRow {
  by_id: string | null
  by_json: string | null
}

/** A history row: the ask, its events and its delivered notifications, each list as JSON text. */
type HistoryRow = AskRow & { events: string | null; notified: string | null }

/**
 * The record of asks (DESIGN §12) in the schema's `askseam_ask_events`
 * (migration 4): votes, each one transaction holding the ask's row lock as
 * `settle` does; events appended; and history, one statement (one snapshot).
 */
export function createRecords(
  db: StoreDatabase,
): Pick<AskStore, 'vote' | 'votes' | 'record' | 'history'> {
  const { open, ready, query } = db
  return {
    async vote(askId, vote) {
      open()
      const by = voterOf(vote.by, vote.required)
      const offered = parseOutcome(vote.outcome)
      const { channel } = await ready()
      const client = await db.pool.connect()
      let broken: Error | undefined
      try {
        await client.query('BEGIN')
        try {
          const result = await voteWithin(db, client, channel, askId, { ...vote, by }, offered)
          await client.query('COMMIT')
          return result
        } catch (error: unknown) {
          await client.query('ROLLBACK').catch((rollback: unknown) => {
            broken = rollback instanceof Error ? rollback : new Error(String(rollback))
          })
          throw error
        }
      } finally {
        client.release(broken)
      }
    },

    async votes(askId) {
      open()
      await ready()
      const votes = await query<VoteRow>(SQL.votes, [askId])
      return parseRows(votes, (row) => voterOfRow(row.by_json), db.corrupt)
    },

    async record(askId, event) {
      open()
      await ready()
      await query(SQL.record, [
        askId,
        event.at,
        event.type,
        event.by?.id ?? null,
        event.by === undefined ? null : JSON.stringify(event.by),
        event.detail === undefined ? null : JSON.stringify(event.detail),
      ])
    },

    async history(asked) {
      open()
      const checked = readHistoryQuery(asked)
      await ready()
      const { text, values } = historyStatement(checked)
      const rows = await query<HistoryRow>(text, values)
      const found = parseRows(
        rows,
        (row) => ({ record: toAskRecord(row), kept: keptEvents(row, db.corrupt) }),
        db.corrupt,
      )
      return Promise.all(found.map(({ record, kept }) => historyOf(record, kept)))
    },
  }
}

/**
 * The vote, inside its transaction: the ask locked, then the database's
 * clock read, then the votes counted; a quorum settles with settle's own
 * statement, whose `pg_notify` goes out when the transaction commits.
 */
async function voteWithin(
  db: StoreDatabase,
  client: PoolClient,
  channel: string,
  askId: string,
  vote: NewVote,
  offered: AskOutcome,
): Promise<VoteResult | undefined> {
  const held = firstAsk(await db.query<AskRow>(SQL.lockAsk, [askId], client))
  if (held === undefined) return undefined
  if (held.state !== 'pending') return { status: 'settled', record: held, won: false }
  const [clock] = await db.query<{ now: string }>(SQL.now, [], client)
  const now = Number(clock?.now)
  if (held.deadline !== undefined && held.deadline <= now) {
    // Overdue: settled as settle settles it, and the vote is not counted.
    const timedOut = await settleOn(db, client, channel, held, timeoutOutcome(held), vote.at)
    return { status: 'settled', record: timedOut.record, won: false }
  }
  const votes = await db.query<VoteRow>(SQL.votes, [askId], client)
  // The column the UNIQUE index holds says who voted, even when its JSON is corrupt.
  const given = parseRows(votes, (row) => voterOfRow(row.by_json), db.corrupt)
  if (votes.some((row) => row.by_id === vote.by.id)) return { status: 'already-voted', given }
  const counted = [...given, vote.by]
  if (counted.length >= vote.required) {
    // Settled first: if the deadline passed since the clock was read, the
    // ask times out and the vote is not written.
    const settled = await settleOn(db, client, channel, held, { ...offered, by: counted }, vote.at)
    if (settled.won) await insertVote(db, client, askId, vote)
    return { status: 'settled', record: settled.record, won: settled.won }
  }
  await insertVote(db, client, askId, vote)
  return { status: 'counted', given: counted }
}

async function insertVote(
  db: StoreDatabase,
  client: PoolClient,
  askId: string,
  vote: NewVote,
): Promise<void> {
  await db.query(
    SQL.record,
    [askId, vote.at, 'vote', vote.by.id, JSON.stringify(vote.by), null],
    client,
  )
}

/** Settle's one conditional statement, on the vote's client (its lock held already). */
async function settleOn(
  db: StoreDatabase,
  client: PoolClient,
  channel: string,
  held: AskRecord,
  outcome: AskOutcome,
  settledAt: number,
): Promise<SettleResult> {
  const [written] = await db.query<AskRow & { won: string | null }>(
    statements.settle,
    [
      held.askId,
      JSON.stringify(outcome),
      settledAt,
      STORE_SCHEMA_VERSION,
      channel,
      TIMEOUT_MESSAGE,
      isTimeoutOutcome(outcome),
    ],
    client,
  )
  // The row is locked and pending, and parsed at this schema version: the write happens.
  if (written === undefined) throw new Error(`askseam/postgres: ask ${held.askId} did not settle`)
  return { record: toAskRecord(written), won: written.won === 't' }
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
function voterOfRow(by: string | null): Responder {
  const event = parseEventRow({ at: 0, type: 'vote', by })
  if (event.by === undefined) throw new CorruptRowError('a vote names no responder')
  return event.by
}

/** The events kept about a history row's ask; one that does not parse is skipped and reported. */
function keptEvents(row: HistoryRow, corrupt: (error: CorruptRowError) => void): AskHistoryEvent[] {
  const list = (text: string | null): unknown[] => {
    const parsed = text === null ? [] : (JSON.parse(text) as unknown)
    if (!Array.isArray(parsed)) throw new CorruptRowError(`ask ${row.ask_id}: events not a list`)
    return parsed as unknown[]
  }
  const events = parseRows(
    list(row.events) as Array<{ at: unknown; type: unknown; by: unknown; detail: unknown }>,
    parseEventRow,
    corrupt,
  )
  const notified = parseRows(
    list(row.notified) as Array<{ at: unknown; eventId: unknown }>,
    ({ at, eventId }) => {
      if (typeof eventId !== 'string') throw new CorruptRowError('a notification has no event id')
      return parseEventRow({ at, type: 'notified', detail: { eventId } })
    },
    corrupt,
  )
  return [...events, ...notified]
}

const FILTERS = [
  ['askId', 'ask_id'],
  ['key', 'ask_key'],
  ['agentId', 'agent_id'],
] as const

/**
 * The asks a history query matches, newest first (the memory store's
 * order: "C" compares ids as JavaScript does), each with its events in the
 * order they were written and its delivered notifications. Only the fields
 * given are compared, so each query reads its own index.
 */
function historyStatement(query: HistoryQuery & { limit: number }): {
  text: string
  values: unknown[]
} {
  const values: unknown[] = []
  const where: string[] = []
  for (const [field, column] of FILTERS) {
    const value = query[field]
    if (value === undefined) continue
    values.push(value)
    where.push(`${column} = $${values.length}`)
  }
  values.push(query.limit)
  const order = 'ORDER BY started_at DESC, ask_id COLLATE "C" DESC'
  return {
    text: `WITH found AS (
        SELECT ${columns} FROM askseam_asks
        ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
        ${order} LIMIT $${values.length}
      )
      SELECT found.*,
        (SELECT json_agg(json_build_object('at', e.at, 'type', e.type, 'by', e.by_json,
            'detail', e.detail) ORDER BY e.seq)
          FROM askseam_ask_events AS e WHERE e.ask_id = found.ask_id) AS events,
        (SELECT json_agg(json_build_object('at', n.finished_at, 'eventId', n.event_id)
            ORDER BY n.finished_at, n.event_id COLLATE "C")
          FROM askseam_notifications AS n
          WHERE n.ask_id = found.ask_id AND n.ending = 'delivered') AS notified
      FROM found ${order}`,
    values,
  }
}
