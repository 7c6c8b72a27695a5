import type BetterSqlite3 from 'better-sqlite3'

/**
 * The schema, one migration per version. A migration runs inside the
 * IMMEDIATE transaction that checks the version, so two processes opening a
 * fresh file at once apply it once.
 *
 * `revision` is a store-wide counter bumped by every write that others should
 * hear of; each ask row keeps the value of its last change, so a watcher in
 * another process reads exactly the rows above the last revision it saw.
 * A counter of its own (not `max(asks.revision)`) because `purge` deletes
 * rows, and a maximum that went down would hide later changes.
 *
 * A purge that deletes rows also bumps the file's `user_version` (unused
 * otherwise; a header field, so no schema change an older askseam would
 * refuse): a watcher that sees it move may have missed the settlement of an
 * ask whose row is gone before it read it, and rereads.
 *
 * Exported for the tests that build storage as an older askseam left it;
 * not part of any entry point.
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
      CREATE TABLE asks (
        ask_id TEXT PRIMARY KEY NOT NULL,
        ask_key TEXT,
        questions TEXT NOT NULL,
        agent_id TEXT,
        owner_seam_id TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        deadline INTEGER,
        state TEXT NOT NULL,
        outcome TEXT,
        settled_at INTEGER,
        revision INTEGER NOT NULL,
        schema_version INTEGER NOT NULL
      );
      -- NULLs are distinct in a UNIQUE index: only rows that hold a key compete for it.
      CREATE UNIQUE INDEX asks_by_key ON asks (ask_key);
      CREATE INDEX asks_pending ON asks (started_at, ask_id) WHERE state = 'pending';
      CREATE INDEX asks_by_deadline ON asks (deadline) WHERE state = 'pending';
      CREATE INDEX asks_by_revision ON asks (revision);
      CREATE INDEX asks_by_settled_at ON asks (settled_at) WHERE state = 'settled';
      CREATE TABLE leases (
        seam_id TEXT PRIMARY KEY NOT NULL,
        provider_active INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        schema_version INTEGER NOT NULL
      );
      CREATE TABLE revision (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        asks INTEGER NOT NULL,
        leases INTEGER NOT NULL
      );
      INSERT INTO revision (id, asks, leases) VALUES (1, 0, 0);
    `,
  },
  {
    // The ledger of webhook notifications (askseam/notify): a table of its
    // own, so the asks' rows and their schema version are untouched.
    version: 2,
    sql: `
      CREATE TABLE notifications (
        event_id TEXT PRIMARY KEY NOT NULL,
        ask_id TEXT NOT NULL,
        holder TEXT,
        expires_at INTEGER,
        ending TEXT,
        finished_at INTEGER
      );
      CREATE INDEX notifications_unfinished ON notifications (event_id) WHERE ending IS NULL;
      CREATE INDEX notifications_by_ask ON notifications (ask_id);
    `,
  },
  {
    // The asking process's trace context (DESIGN §13), as JSON; NULL for asks
    // admitted without telemetry and for every row written before it.
    version: 3,
    sql: `ALTER TABLE asks ADD COLUMN trace_context TEXT;`,
  },
  {
    // Who answers, and the record of it (DESIGN §12). `policy` is the ask's
    // answerers and approvals as JSON (NULL: anyone, once, and every row
    // written before it). `ask_events` holds what happened to an ask between
    // its admission and its settlement, which the ask's own row says: `seq`
    // keeps the order they were written in; a responder votes once per ask
    // (the partial UNIQUE index), whatever races. History by agent reads
    // `asks_by_agent`; by key and by id, the indexes that were there.
    version: 4,
    sql: `
      ALTER TABLE asks ADD COLUMN policy TEXT;
      CREATE TABLE ask_events (
        seq INTEGER PRIMARY KEY,
        ask_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        type TEXT NOT NULL,
        by_id TEXT,
        by_json TEXT,
        detail TEXT
      );
      CREATE INDEX ask_events_by_ask ON ask_events (ask_id, seq);
      CREATE UNIQUE INDEX ask_events_one_vote ON ask_events (ask_id, by_id) WHERE type = 'vote';
      CREATE INDEX asks_by_agent ON asks (agent_id, started_at, ask_id);
      CREATE INDEX asks_by_started_at ON asks (started_at, ask_id);
    `,
  },
]

/** The newest migration this askseam knows. Rows carry `STORE_SCHEMA_VERSION`, which a migration that only adds a column leaves alone. */
export const LATEST_MIGRATION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0

/**
 * Brings the file to {@link LATEST_MIGRATION}; throws for a file written
 * by a newer askseam (its rows may mean something this version cannot read).
 */
export function migrate(db: BetterSqlite3.Database): void {
  // A file already at this version needs no write lock to open: another process
  // holding the lock (a long write) must not keep this one from reading.
  if (appliedVersion(db) === LATEST_MIGRATION) return
  db.transaction(() => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)',
    )
    const { version } = db
      .prepare('SELECT coalesce(max(version), 0) AS version FROM migrations')
      .get() as { version: number }
    if (version > LATEST_MIGRATION) {
      throw new Error(
        `the file has schema version ${version}; this askseam reads version ${LATEST_MIGRATION}`,
      )
    }
    const record = db.prepare('INSERT INTO migrations (version, applied_at) VALUES (?, ?)')
    for (const migration of MIGRATIONS) {
      if (migration.version <= version) continue
      db.exec(migration.sql)
      record.run(migration.version, Date.now())
    }
  }).immediate()
}

/** The newest migration the file records, read without a transaction; 0 for a new file. */
function appliedVersion(db: BetterSqlite3.Database): number {
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'")
    .get()
  if (table === undefined) return 0
  return (
    db.prepare('SELECT coalesce(max(version), 0) AS version FROM migrations').get() as {
      version: number
    }
  ).version
}
