import { askColumns, askNotice, sweptColumns } from './rows.js'

const columns = askColumns()
const endedColumns = sweptColumns('ended')

/**
 * A sweep that ends more asks than this sends one `resync` instead of a
 * notification per ask: every listener would otherwise read them one by one.
 * (Postgres delivers identical payloads of one transaction once.)
 */
const SWEEP_NOTICES = 100

/**
 * A sweep: `due` (the first common table expressions) names the asks to end,
 * each is settled with `outcome` at $1, and the ended rows come back oldest
 * first with one notification each, or one `resync` for a large sweep on
 * channel $4.
 */
function sweep(due: string, outcome: string): string {
  return `WITH ${due}, ended AS (
      UPDATE askseam_asks AS asks
      SET state = 'settled', settled_at = $1, outcome = ${outcome},
          revision = (SELECT nextval('askseam_revision'))
      FROM due
      WHERE asks.ask_id = due.ask_id AND asks.state = 'pending'
      RETURNING asks.*
    ), total AS (SELECT count(*) AS n FROM ended)
    SELECT ${endedColumns},
      pg_notify($4, CASE WHEN total.n <= ${SWEEP_NOTICES} THEN ${askNotice('settled', 'ended.ask_id')} ELSE 'resync' END)
    FROM ended, total
    ORDER BY ended.started_at, ended.ask_id COLLATE "C"`
}

/**
 * `timeoutOutcome(ask)` built in SQL from the row `asks`' own columns,
 * `message` being the parameter that holds `TIMEOUT_MESSAGE`: a statement
 * that ends an ask with it needs no round trip of the row through JavaScript.
 */
function timeoutJson(message: string): string {
  return `json_build_object(
      'status', 'rejected',
      'error', json_build_object(
        'code', 'ASK_TIMEOUT',
        'message', ${message}::text,
        'details', json_build_object('deadline', asks.deadline, 'startedAt', asks.started_at)))`
}

/**
 * The statements of the Postgres store. Each write notifies in the same
 * statement, so the notification goes out exactly when the write commits.
 */
export const statements = {
  /**
   * $1 askId, $2 key, $3 questions, $4 agentId, $5 owner, $6 startedAt,
   * $7 deadline, $8 schema version, $9 channel, $10 trace context, $11 policy. A taken
   * key inserts nothing; a taken askId throws.
   */
  insert: `WITH inserted AS (
      INSERT INTO askseam_asks
        (ask_id, ask_key, questions, agent_id, owner_seam_id, started_at, deadline, state,
         schema_version, trace_context, policy)
      VALUES ($1, $2, $3::json, $4, $5, $6, $7, 'pending', $8, $10::json, $11::json)
      ON CONFLICT (ask_key) DO NOTHING
      RETURNING *
    )
    SELECT ${columns}, pg_notify($9, ${askNotice('admitted')}) FROM inserted`,

  /** $1 key: the ask holding it, locked until the admit commits. */
  lockKey: `SELECT ${columns} FROM askseam_asks WHERE ask_key = $1 FOR UPDATE`,

  /** $1 askId: gives its key up. */
  releaseKey: `UPDATE askseam_asks SET ask_key = NULL WHERE ask_id = $1`,

  /**
   * The one conditional write. $1 askId, $2 outcome, $3 settledAt,
   * $4 schema version, $5 channel, $6 the timeout message, $7 whether $2 is
   * the timeout itself. No row: the ask was settled already (or is not
   * there, or is of another schema version).
   *
   * A deadline is final, and the database's clock says when it passed (not
   * $3: the hosts' clocks may disagree, the database's is one). `held` locks
   * the row first, so a wait on another transaction's lock counts; `verdict`
   * then reads that clock once, so the outcome written and the `won` returned
   * come from the same reading; past the deadline the ask ends with the
   * timeout, and the writer wins only if it offered it.
   */
  settle: `WITH held AS MATERIALIZED (
      SELECT ask_id, deadline FROM askseam_asks
      WHERE ask_id = $1 AND state = 'pending' FOR UPDATE
    ), verdict AS MATERIALIZED (
      SELECT ask_id,
        (deadline IS NOT NULL AND NOT $7::boolean
          AND deadline <= floor(extract(epoch FROM clock_timestamp()) * 1000)) AS too_late
      FROM held
    ), settled AS (
      UPDATE askseam_asks AS asks
      SET state = 'settled', settled_at = $3, revision = nextval('askseam_revision'),
          outcome = CASE WHEN verdict.too_late THEN ${timeoutJson('$6')} ELSE $2::json END
      FROM verdict
      WHERE asks.ask_id = verdict.ask_id AND asks.state = 'pending' AND asks.schema_version = $4
      RETURNING asks.*, NOT verdict.too_late AS won
    )
    SELECT ${columns}, won, pg_notify($5, ${askNotice('settled')}) FROM settled`,

  /** $1 askId. */
  get: `SELECT ${columns} FROM askseam_asks WHERE ask_id = $1`,

  pending: `SELECT ${columns} FROM askseam_asks
    WHERE state = 'pending'
    ORDER BY started_at, ask_id COLLATE "C"`,

  /**
   * $1 now, $2 the timeout message, $3 schema version, $4 channel. SKIP
   * LOCKED: seams sweeping at once split the overdue asks between them
   * instead of queueing on each other's locks. One revision for the whole
   * sweep (a sub-select runs once): the change feed only asks which rows
   * moved past its last revision.
   */
  expireOverdue: sweep(
    `due AS (
      SELECT ask_id FROM askseam_asks
      WHERE state = 'pending' AND deadline <= $1 AND schema_version = $3
      FOR UPDATE SKIP LOCKED
    )`,
    timeoutJson('$2'),
  ),

  /**
   * $1 now, $2 the owner-gone outcome, $3 schema version, $4 channel, $5 the
   * oldest expiry a lease may have and be kept. Keyed asks stay pending: a
   * later ask with the key resumes them. Leases long expired are deleted in
   * the same statement, unannounced: they counted as dead already.
   */
  endOrphans: sweep(
    `pruned AS (
      DELETE FROM askseam_leases WHERE expires_at <= $5
    ), due AS (
      SELECT asks.ask_id FROM askseam_asks AS asks
      WHERE asks.state = 'pending' AND asks.ask_key IS NULL AND asks.schema_version = $3
        AND NOT EXISTS (
          SELECT 1 FROM askseam_leases AS leases
          WHERE leases.seam_id = asks.owner_seam_id AND leases.expires_at > $1)
      FOR UPDATE OF asks SKIP LOCKED
    )`,
    '$2::json',
  ),

  /**
   * $1 seamId, $2 providerActive, $3 expiresAt, $4 schema version,
   * $5 channel. Notifies only for a new lease or a changed provider flag: a
   * mere renewal changes nothing anyone counts.
   */
  heartbeat: `WITH previous AS (
      SELECT provider_active FROM askseam_leases WHERE seam_id = $1
    ), written AS (
      INSERT INTO askseam_leases (seam_id, provider_active, expires_at, schema_version)
      VALUES ($1, $2, $3, $4)
      ON CONFLICT (seam_id) DO UPDATE
      SET provider_active = EXCLUDED.provider_active, expires_at = EXCLUDED.expires_at,
          schema_version = EXCLUDED.schema_version
      RETURNING provider_active
    )
    SELECT pg_notify($5, 'leases') FROM written
    WHERE NOT EXISTS (SELECT 1 FROM previous)
       OR (SELECT provider_active FROM previous) IS DISTINCT FROM written.provider_active`,

  /** $1 seamId, $2 channel. */
  release: `WITH gone AS (DELETE FROM askseam_leases WHERE seam_id = $1 RETURNING seam_id)
    SELECT pg_notify($2, 'leases') FROM gone`,

  /** $1 now. */
  leases: `SELECT seam_id, provider_active, expires_at, schema_version FROM askseam_leases
    WHERE expires_at > $1 ORDER BY seam_id COLLATE "C"`,

  /**
   * $1 settledBefore, $2 channel. Listeners are told to resync when rows went:
   * one may not yet have read the settlement of an ask whose row is gone.
   * The notification ledger's events about the purged asks, and their
   * records' events, go with them.
   */
  purge: `WITH purged AS (
      DELETE FROM askseam_asks WHERE state = 'settled' AND settled_at < $1 RETURNING ask_id
    ), forgotten AS (
      DELETE FROM askseam_notifications WHERE ask_id IN (SELECT ask_id FROM purged)
    ), unrecorded AS (
      DELETE FROM askseam_ask_events WHERE ask_id IN (SELECT ask_id FROM purged)
    )
    SELECT count(*) AS purged, CASE WHEN count(*) > 0 THEN pg_notify($2, 'resync') END
    FROM purged`,
} as const
