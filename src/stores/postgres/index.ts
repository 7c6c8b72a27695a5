/**
 * askseam/postgres: asks kept in a Postgres database, shared by every process
 * on every host that opens the same database (DESIGN §10). See
 * docs/postgres.md for the schema, migrations, retention and what to monitor.
 *
 * @example
 * ```ts
 * import { createUserQuestions } from 'askseam'
 * import { createPostgresStore } from 'askseam/postgres'
 *
 * const store = createPostgresStore({ connectionString: process.env.DATABASE_URL })
 * const seam = createUserQuestions({ store })
 * // ... on shutdown: seams first, then the store they share
 * await seam.close()
 * await store.close()
 * ```
 */
import { importPeer } from '../../protocol/internal.js'
import type { AskStore } from '../../protocol/internal.js'
import { createStoreWith } from './store.js'
import type { PostgresStoreOptions } from './types.js'

const { default: pg } = await importPeer('askseam/postgres', 'pg', () => import('pg'))

/**
 * A store in Postgres (the `pg` driver, 8.x). Creating it never touches the
 * network: the pool connects on the first call, the tables are created (or
 * migrated) then, once, and every call rejects while the server is down and
 * works again once it is back.
 *
 * - The first settlement wins through one conditional `UPDATE ... WHERE
 *   state = 'pending'`; a loser reads back the committed row.
 * - A deadline is final, by the database's clock: a settlement that reaches
 *   the database after it ends the ask `ASK_TIMEOUT` instead. The seams
 *   compute deadlines from their own clocks, so keep every host in sync with
 *   the database's (NTP).
 * - `watch()` LISTENs on one dedicated connection (not a pool client),
 *   reconnects with backoff when it drops and emits `resync` each time it is
 *   back, since notifications sent meanwhile are gone; a slow poll backs it up.
 * - `expireOverdue` and `endOrphans` end every due ask in one statement with
 *   `FOR UPDATE SKIP LOCKED`, so any number of seams can sweep at once.
 * - Every row read is parsed: a bad row rejects the call that asked for that
 *   ask, and is skipped by `pending()` and the sweeps and reported to
 *   `onCorruptRow`.
 * - `close()` ends the LISTEN connection, and the pool if the store created it.
 *
 * @example
 * ```ts
 * const store = createPostgresStore({
 *   connectionString: 'postgres://askseam@db.internal/app',
 *   onCorruptRow: (error) => log.error(error),
 *   onEvent: (event) => {
 *     if (event.type === 'listener.connected' && event.reconnect) metrics.increment('askseam.listener.reconnects')
 *   },
 * })
 * await store.purge({ settledBefore: Date.now() - 30 * 86_400_000 }) // keep 30 days
 * ```
 */
export function createPostgresStore(options: PostgresStoreOptions = {}): AskStore {
  return createStoreWith(pg, options)
}

export type { PostgresStoreEvent, PostgresStoreOptions } from './types.js'
