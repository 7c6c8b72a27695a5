/**
 * The soak's view of the shared database: it creates the store's tables (by
 * opening a store), adds an audit trigger that records every settlement the
 * rows go through, and reads the rows and that record back. The trigger is
 * the soak's own, on the soak's own database or file: the store never reads
 * `soak_settles`.
 */
import Database from 'better-sqlite3'
import pg from 'pg'
import type { AskOutcome } from '../../src/protocol/store/index.js'
import { createPostgresStore } from '../../src/stores/postgres/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'

/** One ask row, from the store's own columns. */
export interface AskRow {
  askId: string
  key: string | null
  /** The `detail` of its question: names the key even after the key was given up. */
  detail: string
  state: string
  outcome: AskOutcome | null
  startedAt: number
  deadline: number | null
  settledAt: number | null
}

/** One settlement the audit trigger saw: a row entering `settled`, or a settled row's outcome changing. */
export interface SettleEvent {
  askId: string
  previousState: string
  outcome: AskOutcome
  settledAt: number
  deadline: number | null
  /** The database's clock (epoch ms) when the row was written. */
  writtenAt: number
}

export interface SoakDatabase {
  /** Rows still pending. */
  pendingCount(): Promise<number>
  rows(): Promise<AskRow[]>
  settles(): Promise<SettleEvent[]>
  close(): Promise<void>
}

const nullableNumber = (value: unknown): number | null => (value === null ? null : Number(value))
const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value)
const detailOf = (questions: unknown): string =>
  String((json(questions) as Array<{ detail?: string }>)[0]?.detail ?? '')

function toRow(row: Record<string, unknown>): AskRow {
  return {
    askId: String(row.ask_id),
    key: row.ask_key === null ? null : String(row.ask_key),
    detail: detailOf(row.questions),
    state: String(row.state),
    outcome: row.outcome === null ? null : (json(row.outcome) as AskOutcome),
    startedAt: Number(row.started_at),
    deadline: nullableNumber(row.deadline),
    settledAt: nullableNumber(row.settled_at),
  }
}

function toSettle(row: Record<string, unknown>): SettleEvent {
  return {
    askId: String(row.ask_id),
    previousState: String(row.previous_state),
    outcome: json(row.outcome) as AskOutcome,
    settledAt: Number(row.settled_at),
    deadline: nullableNumber(row.deadline),
    writtenAt: Number(row.written_at),
  }
}

const ROW_COLUMNS = 'ask_id, ask_key, questions, state, outcome, started_at, deadline, settled_at'
const SETTLE_COLUMNS = 'ask_id, previous_state, outcome, settled_at, deadline, written_at'

/** Postgres: `url` names a database of the soak's own. */
export async function preparePostgres(url: string): Promise<SoakDatabase> {
  const store = createPostgresStore({ connectionString: url })
  await store.pending()
  await store.close()
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query(`CREATE TABLE soak_settles (
      id bigserial PRIMARY KEY, ask_id text NOT NULL, previous_state text NOT NULL,
      outcome json NOT NULL, settled_at bigint NOT NULL, deadline bigint, written_at bigint NOT NULL)`)
  await client.query(`CREATE FUNCTION soak_record_settle() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO soak_settles (ask_id, previous_state, outcome, settled_at, deadline, written_at)
        VALUES (NEW.ask_id, OLD.state, NEW.outcome, NEW.settled_at, NEW.deadline,
                floor(extract(epoch FROM clock_timestamp()) * 1000));
        RETURN NULL;
      END $$`)
  await client.query(`CREATE TRIGGER soak_record_settle AFTER UPDATE ON askseam_asks
      FOR EACH ROW WHEN (NEW.state = 'settled' AND (OLD.state <> 'settled'
        OR OLD.outcome::text IS DISTINCT FROM NEW.outcome::text
        OR OLD.settled_at IS DISTINCT FROM NEW.settled_at))
      EXECUTE FUNCTION soak_record_settle()`)
  const all = async (sql: string) => (await client.query<Record<string, unknown>>(sql)).rows
  return {
    pendingCount: async () =>
      Number((await all(`SELECT count(*) AS n FROM askseam_asks WHERE state = 'pending'`))[0]?.n),
    rows: async () => (await all(`SELECT ${ROW_COLUMNS} FROM askseam_asks`)).map(toRow),
    settles: async () =>
      (await all(`SELECT ${SETTLE_COLUMNS} FROM soak_settles ORDER BY id`)).map(toSettle),
    close: () => client.end(),
  }
}

/** SQLite: `path` is a file of the soak's own. */
export async function prepareSqlite(path: string): Promise<SoakDatabase> {
  const store = createSqliteStore({ path })
  await store.pending()
  await store.close()
  const db = new Database(path)
  db.pragma('busy_timeout = 60000')
  db.exec(`CREATE TABLE soak_settles (
      id INTEGER PRIMARY KEY, ask_id TEXT NOT NULL, previous_state TEXT NOT NULL,
      outcome TEXT NOT NULL, settled_at INTEGER NOT NULL, deadline INTEGER, written_at INTEGER NOT NULL);
    CREATE TRIGGER soak_record_settle AFTER UPDATE ON asks
      FOR EACH ROW WHEN NEW.state = 'settled' AND (OLD.state IS NOT 'settled'
        OR OLD.outcome IS NOT NEW.outcome OR OLD.settled_at IS NOT NEW.settled_at)
      BEGIN
        INSERT INTO soak_settles (ask_id, previous_state, outcome, settled_at, deadline, written_at)
        VALUES (NEW.ask_id, OLD.state, NEW.outcome, NEW.settled_at, NEW.deadline,
                CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER));
      END;`)
  const all = (sql: string) => db.prepare(sql).all() as Array<Record<string, unknown>>
  return {
    pendingCount: async () =>
      Number(all(`SELECT count(*) AS n FROM asks WHERE state = 'pending'`)[0]?.n),
    rows: async () => all(`SELECT ${ROW_COLUMNS} FROM asks`).map(toRow),
    settles: async () =>
      all(`SELECT ${SETTLE_COLUMNS} FROM soak_settles ORDER BY id`).map(toSettle),
    close: async () => {
      db.close()
    },
  }
}
