import type BetterSqlite3 from 'better-sqlite3'
import { ASK_COLUMNS } from './rows.js'

/** Every statement the store runs, prepared once per connection. */
export type Statements = ReturnType<typeof prepare>

const cache = new WeakMap<BetterSqlite3.Database, Statements>()

/** The statements of `db`, prepared on first use. */
export function statementsOf(db: BetterSqlite3.Database): Statements {
  let statements = cache.get(db)
  if (statements === undefined) {
    statements = prepare(db)
    cache.set(db, statements)
  }
  return statements
}

function prepare(db: BetterSqlite3.Database) {
  return {
    revision: db.prepare('SELECT asks, leases FROM revision WHERE id = 1'),
    setAsksRevision: db.prepare('UPDATE revision SET asks = ? WHERE id = 1'),
    setLeasesRevision: db.prepare('UPDATE revision SET leases = ? WHERE id = 1'),
    byId: db.prepare(`SELECT ${ASK_COLUMNS} FROM asks WHERE ask_id = ?`),
    byKey: db.prepare(`SELECT ${ASK_COLUMNS} FROM asks WHERE ask_key = ?`),
    giveKeyUp: db.prepare('UPDATE asks SET ask_key = NULL WHERE ask_id = ?'),
    insert: db.prepare(
      `INSERT INTO asks (ask_id, ask_key, questions, agent_id, owner_seam_id, started_at, deadline,
         state, outcome, settled_at, revision, schema_version)
       VALUES (@askId, @key, @questions, @agentId, @ownerSeamId, @startedAt, @deadline,
         'pending', NULL, NULL, @revision, @schemaVersion)`,
    ),
    settle: db.prepare(
      `UPDATE asks SET state = 'settled', outcome = @outcome, settled_at = @settledAt, revision = @revision
       WHERE ask_id = @askId AND state = 'pending'`,
    ),
    pending: db.prepare(
      `SELECT ${ASK_COLUMNS} FROM asks WHERE state = 'pending' ORDER BY started_at, ask_id`,
    ),
    // One write for every overdue ask; the outcome is built here so that no
    // row makes a round trip through JavaScript (timeoutOutcome, in SQL).
    expire: db.prepare(
      `UPDATE asks SET state = 'settled', settled_at = @now, revision = @revision,
         outcome = json_object('status', 'rejected', 'error', json_object(
           'code', 'ASK_TIMEOUT', 'message', @message,
           'details', json_object('deadline', deadline, 'startedAt', started_at)))
       WHERE state = 'pending' AND deadline <= @now
       RETURNING ${ASK_COLUMNS}`,
    ),
    endOrphans: db.prepare(
      `UPDATE asks SET state = 'settled', settled_at = @now, revision = @revision, outcome = @outcome
       WHERE state = 'pending' AND ask_key IS NULL
         AND owner_seam_id NOT IN (SELECT seam_id FROM leases WHERE expires_at > @now)
       RETURNING ${ASK_COLUMNS}`,
    ),
    lease: db.prepare('SELECT provider_active FROM leases WHERE seam_id = ?'),
    upsertLease: db.prepare(
      `INSERT INTO leases (seam_id, provider_active, expires_at, schema_version)
       VALUES (@seamId, @providerActive, @expiresAt, @schemaVersion)
       ON CONFLICT (seam_id) DO UPDATE SET provider_active = excluded.provider_active,
         expires_at = excluded.expires_at, schema_version = excluded.schema_version`,
    ),
    deleteLease: db.prepare('DELETE FROM leases WHERE seam_id = ?'),
    liveLeases: db.prepare(
      'SELECT seam_id, provider_active, expires_at, schema_version FROM leases WHERE expires_at > ?',
    ),
    purge: db.prepare(`DELETE FROM asks WHERE state = 'settled' AND settled_at < ?`),
  }
}
