import type BetterSqlite3 from 'better-sqlite3'
import { ASK_COLUMNS, ENDED_COLUMNS } from './rows.js'

/**
 * `timeoutOutcome(ask)` built in SQL from the row's own columns, @message
 * being `TIMEOUT_MESSAGE`: a statement that ends an ask with it needs no
 * round trip of the row through JavaScript.
 */
const TIMEOUT_OUTCOME = `json_object('status', 'rejected', 'error', json_object(
           'code', 'ASK_TIMEOUT', 'message', @message,
           'details', json_object('deadline', deadline, 'startedAt', started_at)))`

/**
 * Whether a settlement at @settledAt comes too late for the outcome offered
 * (@offersTimeout: 1 when it is the timeout itself, else 0). A pure function
 * of the row's deadline and the parameters, so the `SET` and the `RETURNING`
 * that name it agree.
 */
const TOO_LATE = '(deadline IS NOT NULL AND deadline <= @settledAt AND NOT @offersTimeout)'

/**
 * Every statement the store runs. Those that read asks run in raw mode
 * (arrays in {@link ASK_COLUMNS} order): no object per row to build in C++.
 */
const SQL = {
  // Bumped on this connection when another one commits: the change feed's tick.
  dataVersion: 'PRAGMA data_version',
  revision: 'SELECT asks, leases FROM revision WHERE id = 1',
  // Counts purges that deleted rows (see schema.ts).
  purges: 'PRAGMA user_version',
  setAsksRevision: 'UPDATE revision SET asks = ? WHERE id = 1',
  setLeasesRevision: 'UPDATE revision SET leases = ? WHERE id = 1',
  byId: `SELECT ${ASK_COLUMNS} FROM asks WHERE ask_id = ?`,
  byKey: `SELECT ${ASK_COLUMNS} FROM asks WHERE ask_key = ?`,
  giveKeyUp: 'UPDATE asks SET ask_key = NULL WHERE ask_id = ?',
  insert: `INSERT INTO asks (ask_id, ask_key, questions, agent_id, owner_seam_id, started_at, deadline,
         state, outcome, settled_at, revision, schema_version, trace_context, policy)
       VALUES (@askId, @key, @questions, @agentId, @ownerSeamId, @startedAt, @deadline,
         'pending', NULL, NULL, @revision, @schemaVersion, @traceContext, @policy)`,
  // The one conditional write. A deadline is final: past it, the outcome
  // written is the timeout, and the writer wins only with the outcome it offered.
  settle: `UPDATE asks SET state = 'settled', settled_at = @settledAt, revision = @revision,
         outcome = CASE WHEN ${TOO_LATE} THEN ${TIMEOUT_OUTCOME} ELSE @outcome END
       WHERE ask_id = @askId AND state = 'pending'
       RETURNING NOT ${TOO_LATE} AS won`,
  pending: `SELECT ${ASK_COLUMNS} FROM asks WHERE state = 'pending' ORDER BY started_at, ask_id`,
  changedSince: `SELECT ${ASK_COLUMNS} FROM asks WHERE revision > ? AND revision <= ? ORDER BY revision`,
  // One write for every overdue ask.
  expire: `UPDATE asks SET state = 'settled', settled_at = @now, revision = @revision,
         outcome = ${TIMEOUT_OUTCOME}
       WHERE state = 'pending' AND deadline <= @now
       RETURNING ${ENDED_COLUMNS}`,
  endOrphans: `UPDATE asks SET state = 'settled', settled_at = @now, revision = @revision, outcome = @outcome
       WHERE state = 'pending' AND ask_key IS NULL
         AND owner_seam_id NOT IN (SELECT seam_id FROM leases WHERE expires_at > @now)
       RETURNING ${ENDED_COLUMNS}`,
  lease: 'SELECT provider_active FROM leases WHERE seam_id = ?',
  upsertLease: `INSERT INTO leases (seam_id, provider_active, expires_at, schema_version)
       VALUES (@seamId, @providerActive, @expiresAt, @schemaVersion)
       ON CONFLICT (seam_id) DO UPDATE SET provider_active = excluded.provider_active,
         expires_at = excluded.expires_at, schema_version = excluded.schema_version`,
  deleteLease: 'DELETE FROM leases WHERE seam_id = ?',
  pruneLeases: 'DELETE FROM leases WHERE expires_at <= ?',
  liveLeases:
    'SELECT seam_id, provider_active, expires_at, schema_version FROM leases WHERE expires_at > ?',
  purge: `DELETE FROM asks WHERE state = 'settled' AND settled_at < ?`,
  // Before the asks go: the ledger's events, and the record's, of the asks purge is about to delete.
  purgeNotifications: `DELETE FROM notifications WHERE ask_id IN
       (SELECT ask_id FROM asks WHERE state = 'settled' AND settled_at < ?)`,
  purgeEvents: `DELETE FROM ask_events WHERE ask_id IN
       (SELECT ask_id FROM asks WHERE state = 'settled' AND settled_at < ?)`,
  // The record of asks (DESIGN §12, history.ts).
  votes: `SELECT by_id, by_json FROM ask_events WHERE ask_id = ? AND type = 'vote' ORDER BY seq`,
  insertEvent: `INSERT INTO ask_events (ask_id, at, type, by_id, by_json, detail)
       VALUES (@askId, @at, @type, @byId, @by, @detail)`,
  // Nothing for an ask the store does not hold.
  recordEvent: `INSERT INTO ask_events (ask_id, at, type, by_id, by_json, detail)
       SELECT @askId, @at, @type, @byId, @by, @detail
       WHERE EXISTS (SELECT 1 FROM asks WHERE ask_id = @askId)`,
  // ? a JSON array of askIds.
  eventsOf: `SELECT ask_id, at, type, by_json, detail FROM ask_events
       WHERE ask_id IN (SELECT value FROM json_each(?)) ORDER BY seq`,
  deliveredOf: `SELECT ask_id, event_id, finished_at FROM notifications
       WHERE ask_id IN (SELECT value FROM json_each(?)) AND ending = 'delivered'
       ORDER BY finished_at, event_id`,
  // The notification ledger (notifications.ts).
  notification: `SELECT event_id, ask_id, holder, expires_at, ending FROM notifications WHERE event_id = ?`,
  insertNotification:
    'INSERT INTO notifications (event_id, ask_id, holder, expires_at) VALUES (?, ?, ?, ?)',
  claimNotification: 'UPDATE notifications SET holder = ?, expires_at = ? WHERE event_id = ?',
  finishNotification: `UPDATE notifications SET ending = ?, finished_at = ?, holder = NULL, expires_at = NULL
       WHERE event_id = ? AND ending IS NULL`,
  oweNotification:
    'INSERT INTO notifications (event_id, ask_id) VALUES (?, ?) ON CONFLICT (event_id) DO NOTHING',
  releaseNotification: `UPDATE notifications SET holder = NULL, expires_at = NULL
       WHERE event_id = ? AND holder = ? AND ending IS NULL`,
  unfinishedNotifications: `SELECT event_id, ask_id, holder, expires_at, ending FROM notifications
       WHERE ending IS NULL ORDER BY event_id`,
} satisfies Record<string, string>

const READS_ASKS: ReadonlySet<string> = new Set([
  'byId',
  'byKey',
  'pending',
  'changedSince',
  'expire',
  'endOrphans',
])

/** The store's statements on one connection. */
export type Statements = Record<keyof typeof SQL, BetterSqlite3.Statement>

const cache = new WeakMap<BetterSqlite3.Database, Statements>()

/** The statements of `db`, prepared on first use. */
export function statementsOf(db: BetterSqlite3.Database): Statements {
  let statements = cache.get(db)
  // Stryker disable next-line ConditionalExpression: preparing again on every call is slower, not different
  if (statements === undefined) {
    const prepared: Partial<Statements> = {}
    for (const [name, sql] of Object.entries(SQL) as Array<[keyof typeof SQL, string]>) {
      const statement = db.prepare(sql)
      prepared[name] = READS_ASKS.has(name) ? statement.raw(true) : statement
    }
    statements = prepared as Statements
    cache.set(db, statements)
  }
  return statements
}
