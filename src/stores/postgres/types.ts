import type { Pool } from 'pg'
import type { CorruptRowError } from '../../protocol/internal.js'

/** Options of {@link createPostgresStore}. Give a `connectionString` or a `pool`, not both. */
export interface PostgresStoreOptions {
  /**
   * A libpq-style URL, e.g. `postgres://user@db.internal:5432/app`. The store
   * creates its own pool (and ends it in `close()`). A `search_path` in the
   * URL's `options` parameter puts the tables in that schema.
   * Without a connection string or a pool, `pg`'s defaults apply (the
   * `PGHOST`, `PGUSER`, ... environment variables).
   */
  connectionString?: string
  /**
   * A pool of your own. The store runs its statements on it and never ends
   * it; it opens one more connection of its own with the pool's settings for
   * LISTEN. Give the pool an `'error'` listener: an idle client of a pool
   * without one crashes the process when the server restarts.
   */
  pool?: Pool
  /**
   * Told of every row that does not parse where the store skips it rather
   * than fail a whole list (`pending`, `expireOverdue`, `endOrphans`,
   * `leases`, the change feed, which also says `resync`). A call about that
   * one ask (`get`, `settle`, `admit` with its key) rejects with the
   * {@link CorruptRowError} instead. A row of another schema version counts
   * as one that does not parse.
   * @default a process warning, once per distinct row fault
   */
  onCorruptRow?: (error: CorruptRowError) => void
  /**
   * Hears the LISTEN connection come and go and the backstop poll fail:
   * what an operator counts (reconnects above all). Called synchronously;
   * must not throw.
   */
  onEvent?: (event: PostgresStoreEvent) => void
  /**
   * How often the change feed's backstop poll runs while anyone watches: it
   * checks the LISTEN connection is alive and reports rows changed since the
   * last polls, in case a notification was lost.
   * @default 2000
   */
  pollIntervalMs?: number
  /**
   * Connections the store's own pool may open (with `connectionString`).
   * @default 10
   */
  maxConnections?: number
}

/** What {@link PostgresStoreOptions.onEvent} hears. */
export type PostgresStoreEvent =
  /** The LISTEN connection is up (`reconnect`: not the first since the store began watching); watchers got `resync`. */
  | { type: 'listener.connected'; reconnect: boolean }
  /** The LISTEN connection dropped; it reconnects with backoff. */
  | { type: 'listener.lost'; error: unknown }
  /** An attempt to open the LISTEN connection failed; it tries again with backoff. */
  | { type: 'listener.failed'; error: unknown }
  /** The backstop poll could not read the database this time. */
  | { type: 'poll.failed'; error: unknown }
