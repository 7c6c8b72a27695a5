import { createHash } from 'node:crypto'
import type { PoolClient } from 'pg'

/**
 * One schema change, applied once per database schema and recorded in
 * `askseam_migrations`. Never edit a released migration: add the next one.
 */
interface Migration {
  version: number
  statements: readonly string[]
}

/**
 * The tables every askseam store on this schema shares. Times are epoch
 * milliseconds (`bigint`), computed by the seam: the deadline is absolute and
 * written once, at admission, so every host agrees on it whatever its clock
 * did since. `revision` grows with every write to an ask; the change feed's
 * backstop poll reads what changed after the revision it last saw.
 * Questions and outcomes are `json`, not `jsonb`: kept as written (key order
 * included), since the store only ever reads them back whole.
 *
 * Exported for the tests that build storage as an older askseam left it;
 * not part of any entry point.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE SEQUENCE askseam_revision`,
      `CREATE TABLE askseam_asks (
        ask_id text PRIMARY KEY,
        ask_key text UNIQUE,
        questions json NOT NULL,
        agent_id text,
        owner_seam_id text NOT NULL,
        started_at bigint NOT NULL,
        deadline bigint,
        state text NOT NULL CHECK (state IN ('pending', 'settled')),
        outcome json,
        settled_at bigint,
        schema_version integer NOT NULL,
        revision bigint NOT NULL DEFAULT nextval('askseam_revision'),
        CHECK ((state = 'settled') = (outcome IS NOT NULL AND settled_at IS NOT NULL))
      )`,
      // pending() reads in this order; "C" makes the tie-break the byte order
      // JavaScript's comparison of ASCII ids gives, whatever the database's collation.
      `CREATE INDEX askseam_asks_pending ON askseam_asks (started_at, ask_id COLLATE "C")
        WHERE state = 'pending'`,
      `CREATE INDEX askseam_asks_deadline ON askseam_asks (deadline)
        WHERE state = 'pending' AND deadline IS NOT NULL`,
      `CREATE INDEX askseam_asks_keyless_owner ON askseam_asks (owner_seam_id)
        WHERE state = 'pending' AND ask_key IS NULL`,
      `CREATE INDEX askseam_asks_settled ON askseam_asks (settled_at) WHERE state = 'settled'`,
      `CREATE INDEX askseam_asks_revision ON askseam_asks (revision)`,
      `CREATE TABLE askseam_leases (
        seam_id text PRIMARY KEY,
        provider_active boolean NOT NULL,
        expires_at bigint NOT NULL,
        schema_version integer NOT NULL
      )`,
    ],
  },
  {
    // The ledger of webhook notifications (askseam/notify, DESIGN §13): a
    // table of its own, so the asks' rows and their schema version stay as
    // they were. Times are the notifiers' epoch milliseconds.
    version: 2,
    statements: [
      `CREATE TABLE askseam_notifications (
        event_id text PRIMARY KEY,
        ask_id text NOT NULL,
        holder text,
        expires_at bigint,
        ending text CHECK (ending IN ('delivered', 'gone', 'given-up', 'dropped')),
        finished_at bigint
      )`,
      `CREATE INDEX askseam_notifications_unfinished ON askseam_notifications (event_id)
        WHERE ending IS NULL`,
      `CREATE INDEX askseam_notifications_by_ask ON askseam_notifications (ask_id)`,
    ],
  },
  {
    // The asking process's trace context (DESIGN §13); NULL for asks admitted
    // without telemetry and for every row written before it. Rows keep
    // schema_version 1: a column that may be absent changes no row's meaning.
    version: 3,
    statements: [`ALTER TABLE askseam_asks ADD COLUMN trace_context json`],
  },
  {
    // Who answers, and the record of it (DESIGN §12). `policy`: the ask's
    // answerers and approvals (NULL: anyone, once, and every row written
    // before it). `askseam_ask_events` holds what happened to an ask between
    // its admission and its settlement, which the ask's own row says; `seq`
    // keeps the order of votes (written under the ask's row lock). A
    // responder votes once per ask: the partial UNIQUE index. History by
    // agent, and of every ask, reads the two new indexes; by key and by id,
    // the ones that were there.
    version: 4,
    statements: [
      `ALTER TABLE askseam_asks ADD COLUMN policy json`,
      `CREATE TABLE askseam_ask_events (
        seq bigserial PRIMARY KEY,
        ask_id text NOT NULL,
        at bigint NOT NULL,
        type text NOT NULL,
        by_id text,
        by_json json,
        detail json
      )`,
      `CREATE INDEX askseam_ask_events_by_ask ON askseam_ask_events (ask_id, seq)`,
      `CREATE UNIQUE INDEX askseam_ask_events_one_vote ON askseam_ask_events (ask_id, by_id)
        WHERE type = 'vote'`,
      `CREATE INDEX askseam_asks_agent ON askseam_asks (agent_id, started_at, ask_id COLLATE "C")`,
      `CREATE INDEX askseam_asks_started ON askseam_asks (started_at, ask_id COLLATE "C")`,
    ],
  },
]

/** The newest migration this askseam knows. */
export const LATEST_MIGRATION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0

/** What the store learns once the schema is in place. */
export interface SchemaFacts {
  /** The schema the tables live in (the connection's `current_schema()`). */
  schema: string
  /** The NOTIFY channel of that schema's stores. */
  channel: string
}

/**
 * Brings the connection's current schema up to {@link LATEST_MIGRATION}.
 * Several processes starting together are safe: each takes a transaction-level
 * advisory lock named after the schema, so one applies the migrations and the
 * others, once it commits, find nothing left to do.
 */
export async function migrate(client: PoolClient): Promise<SchemaFacts> {
  const found = await client.query<{ schema: string | null }>('SELECT current_schema() AS schema')
  const schema = found.rows[0]?.schema
  if (schema === null || schema === undefined) {
    throw new Error('askseam/postgres: no schema on the search_path to create the tables in')
  }
  await client.query('BEGIN')
  try {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('askseam.migrate.' || $1))`, [schema])
    await client.query(`CREATE TABLE IF NOT EXISTS askseam_migrations (
      version integer PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`)
    const applied = await client.query<{ version: unknown }>(
      'SELECT max(version) AS version FROM askseam_migrations',
    )
    // Number(): a pool handed in may parse integers its own way.
    const current = Number(applied.rows[0]?.version ?? 0)
    if (current > LATEST_MIGRATION) {
      throw new Error(
        `askseam/postgres: schema "${schema}" is at migration ${current}, newer than this askseam knows (${LATEST_MIGRATION}); upgrade askseam`,
      )
    }
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue
      for (const statement of migration.statements) await client.query(statement)
      await client.query('INSERT INTO askseam_migrations (version) VALUES ($1)', [
        migration.version,
      ])
    }
    await client.query('COMMIT')
  } catch (error: unknown) {
    // Stryker disable next-line StringLiteral: the caller releases this client with the error, which ends it and its transaction
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  }
  return { schema, channel: channelFor(schema) }
}

/**
 * NOTIFY channels are database-wide, so the channel names the schema: stores
 * on two schemas of one database do not hear each other. A channel name is an
 * identifier (at most 63 bytes); a long schema name is hashed to fit.
 */
export function channelFor(schema: string): string {
  const plain = `askseam:${schema}`
  if (Buffer.byteLength(plain) <= 63) return plain
  return `askseam:${createHash('sha256').update(schema).digest('hex').slice(0, 40)}`
}

/** A channel as a quoted identifier for LISTEN (which takes no parameters). */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}
