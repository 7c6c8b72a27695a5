import type { Client, ClientConfig, Pool } from 'pg'
import { parseRows, warnCorruptRowOnce } from '../../protocol/internal.js'
import type { AskStore } from '../../protocol/internal.js'
import { connectionConfig, migrateOnce, queryRows } from './database.js'
import type { StoreDatabase } from './database.js'
import { createLeases } from './leases.js'
import { createNotificationLedger } from './notifications.js'
import { createRecords } from './records.js'
import { firstAsk, toAskRecord } from './rows.js'
import type { AskRow } from './rows.js'
import { statements } from './statements.js'
import { createSweeps } from './sweeps.js'
import type { PostgresStoreEvent, PostgresStoreOptions } from './types.js'
import { createWatchers } from './watchers.js'
import { createAskWrites } from './writes.js'

/** The parts of the `pg` module the store uses. */
export interface PgModule {
  Pool: new (config: ClientConfig & { max?: number }) => Pool
  Client: new (config: ClientConfig) => Client
}

/** The store behind `createPostgresStore`, given the loaded driver. */
export function createStoreWith(pg: PgModule, options: PostgresStoreOptions): AskStore {
  if (options.pool !== undefined && options.connectionString !== undefined) {
    throw new TypeError('askseam/postgres: give a connectionString or a pool, not both')
  }
  const ownsPool = options.pool === undefined
  const connection = connectionConfig(options)
  // The pool connects on first use: creating the store never touches the network.
  const pool = options.pool ?? new pg.Pool({ ...connection, max: options.maxConnections ?? 10 })
  // An idle client whose server went away is reported here; the next query
  // opens a fresh one. Without a listener the process would crash.
  if (ownsPool) pool.on('error', () => undefined)

  let closed = false
  let closing: Promise<void> | undefined
  const db: StoreDatabase = {
    pool,
    open: () => {
      if (closed) throw new Error('askseam/postgres: the store is closed')
    },
    ready: migrateOnce(pool),
    query: (text, values, on = pool) => queryRows(on, text, values),
    corrupt: options.onCorruptRow ?? warnCorruptRowOnce('postgres'),
  }
  const { open, ready, query } = db

  const watchers = createWatchers({
    ready,
    query: (text, values) => query(text, values),
    newClient: () => new pg.Client({ ...connection, application_name: 'askseam-listener' }),
    report: (event: PostgresStoreEvent): void => options.onEvent?.(event),
    corrupt: db.corrupt,
    pollIntervalMs: options.pollIntervalMs ?? 2_000,
  })
  const writes = createAskWrites(db)
  const sweeps = createSweeps(db)
  const leases = createLeases(db)
  const records = createRecords(db)

  return {
    admit: (ask) => writes.admit(ask),
    settle: (askId, outcome, settledAt) => writes.settle(askId, outcome, settledAt),
    vote: (askId, vote) => records.vote(askId, vote),
    votes: (askId) => records.votes(askId),
    record: (askId, event) => records.record(askId, event),
    history: (query) => records.history(query),

    async get(askId) {
      open()
      await ready()
      return firstAsk(await query<AskRow>(statements.get, [askId]))
    },

    async pending() {
      open()
      await ready()
      return parseRows(await query<AskRow>(statements.pending, []), toAskRecord, db.corrupt)
    },

    expireOverdue: (now) => sweeps.expireOverdue(now),
    endOrphans: (now) => sweeps.endOrphans(now),
    purge: (before) => sweeps.purge(before),
    heartbeat: (lease) => leases.heartbeat(lease),
    release: (seamId) => leases.release(seamId),
    leases: (now) => leases.leases(now),

    watch(listener) {
      if (closed) return () => undefined
      return watchers.watch(listener)
    },

    notifications: createNotificationLedger(async (text, values) => {
      open()
      await ready()
      return query(text, values)
    }),

    close() {
      closing ??= (async () => {
        closed = true
        await watchers.stop()
        if (ownsPool) await pool.end()
      })()
      return closing
    },
  }
}
