import type { Client, ClientConfig, Pool, PoolClient } from 'pg'
import {
  LEASE_RETENTION_MS,
  STORE_SCHEMA_VERSION,
  TIMEOUT_MESSAGE,
  isReplayedOutcome,
  isTimeoutOutcome,
  notifyEach,
  ownerGoneOutcome,
  parseAskRecord,
  parseOutcome,
  parseRows,
  timeoutOutcome,
  warnCorruptRowOnce,
} from '../../protocol/internal.js'
import type {
  AdmitResult,
  AskRecord,
  AskStore,
  NewAskRecord,
  SeamLease,
  StoreChange,
} from '../../protocol/internal.js'
import { createChangeFeed } from './change-feed.js'
import { createNotificationLedger } from './notifications.js'
import { RAW_TEXT, toAskRecord, toSeamLease, toSweptRecord } from './rows.js'
import type { AskRow, LeaseRow, SweptRow } from './rows.js'
import { migrate } from './schema.js'
import type { SchemaFacts } from './schema.js'
import { statements } from './statements.js'
import type { PostgresStoreEvent, PostgresStoreOptions } from './types.js'

/** The parts of the `pg` module the store uses. */
export interface PgModule {
  Pool: new (config: ClientConfig & { max?: number }) => Pool
  Client: new (config: ClientConfig) => Client
}

/** Whether `outcome` is the deadline's own: the one outcome a write past the deadline may still commit. */

/** How often admit retries a key that another admit took or gave up meanwhile. */
const KEY_ATTEMPTS = 5

/** The store behind `createPostgresStore`, given the loaded driver. */
export function createStoreWith(pg: PgModule, options: PostgresStoreOptions): AskStore {
  if (options.pool !== undefined && options.connectionString !== undefined) {
    throw new TypeError('askseam/postgres: give a connectionString or a pool, not both')
  }
  const ownsPool = options.pool === undefined
  const connection: ClientConfig = {
    // Without a timeout, a server that drops packets would hang every call.
    connectionTimeoutMillis: 5_000,
    // A server that accepts a statement and never answers would leave a seam
    // waiting forever; this turns it into a rejection (STORE_FAILED).
    query_timeout: 30_000,
    keepAlive: true,
    application_name: 'askseam',
    ...(options.pool?.options ?? {}),
    ...(options.connectionString === undefined
      ? {}
      : { connectionString: options.connectionString }),
  }
  // The pool connects on first use: creating the store never touches the network.
  const pool = options.pool ?? new pg.Pool({ ...connection, max: options.maxConnections ?? 10 })
  // An idle client whose server went away is reported here; the next query
  // opens a fresh one. Without a listener the process would crash.
  if (ownsPool) pool.on('error', () => undefined)

  const report = (event: PostgresStoreEvent): void => options.onEvent?.(event)
  const corrupt = options.onCorruptRow ?? warnCorruptRowOnce('postgres')
  const listeners = new Set<(change: StoreChange) => void>()
  let closed = false
  let closing: Promise<void> | undefined

  let facts: Promise<SchemaFacts> | undefined
  const ready = (): Promise<SchemaFacts> => {
    facts ??= (async () => {
      const client = await pool.connect()
      try {
        const found = await migrate(client)
        client.release()
        return found
      } catch (error: unknown) {
        // Stryker disable next-line BooleanLiteral: migrate throws only Errors
        client.release(error instanceof Error ? error : true)
        throw error
      }
    })().catch((error: unknown) => {
      // The next call tries again: the server may be up by then.
      facts = undefined
      throw error
    })
    return facts
  }

  const open = (): void => {
    if (closed) throw new Error('askseam/postgres: the store is closed')
  }
  const query = async <TRow>(
    text: string,
    values: unknown[],
    on: Pool | PoolClient = pool,
  ): Promise<TRow[]> => {
    const result = await on.query({ text, values, types: RAW_TEXT })
    return result.rows as TRow[]
  }
  /** Parses rows for a call that lists asks: a bad row is skipped and reported, not fatal. */
  const parseEach = <TRow>(rows: TRow[], parse: (row: TRow) => AskRecord): AskRecord[] =>
    parseRows(rows, parse, corrupt)
  const one = (rows: AskRow[]): AskRecord | undefined =>
    rows[0] === undefined ? undefined : toAskRecord(rows[0])

  const feed = createChangeFeed({
    ready,
    query: (text, values) => query(text, values),
    newClient: () => new pg.Client({ ...connection, application_name: 'askseam-listener' }),
    emit: (change) => notifyEach(listeners, change),
    report,
    corrupt,
    pollIntervalMs: options.pollIntervalMs ?? 2_000,
  })

  const insertValues = (ask: NewAskRecord, channel: string): unknown[] => [
    ask.askId,
    ask.key ?? null,
    JSON.stringify(ask.questions),
    ask.agentId ?? null,
    ask.ownerSeamId,
    ask.startedAt,
    ask.deadline ?? null,
    STORE_SCHEMA_VERSION,
    channel,
    ask.traceContext === undefined ? null : JSON.stringify(ask.traceContext),
  ]

  /** The slow path of a keyed admit: the key is held by a committed ask. */
  const admitKeyed = async (ask: NewAskRecord, channel: string): Promise<AdmitResult> => {
    const client = await pool.connect()
    let broken: Error | undefined
    try {
      // Stryker disable next-line EqualityOperator,AssignmentOperator: only five lost races in a row end the loop; no test can stage them
      for (let attempt = 0; attempt < KEY_ATTEMPTS; attempt += 1) {
        await client.query('BEGIN')
        try {
          const held = one(await query<AskRow>(statements.lockKey, [ask.key], client))
          // Stryker disable next-line ConditionalExpression: the key's holder vanishes only in a race with purge
          if (held !== undefined) {
            if (held.outcome === undefined || isReplayedOutcome(held.outcome)) {
              await client.query('COMMIT')
              return { status: 'existing', record: held }
            }
            // That outcome said nothing about the human: the key moves to the new ask.
            await query(statements.releaseKey, [held.askId], client)
          }
          const inserted = one(
            await query<AskRow>(statements.insert, insertValues(ask, channel), client),
          )
          // Stryker disable next-line ConditionalExpression: the insert finds the key taken only in a race with another admit
          if (inserted !== undefined) {
            await client.query('COMMIT')
            return { status: 'admitted', record: inserted }
          }
          // Another admit committed the key after our look-up: look again.
          // Stryker disable next-line StringLiteral: reached only in that race
          await client.query('ROLLBACK')
        } catch (error: unknown) {
          // Stryker disable next-line BlockStatement: only a ROLLBACK that fails (the connection died) comes here
          await client.query('ROLLBACK').catch((rollback: unknown) => {
            broken = rollback instanceof Error ? rollback : new Error(String(rollback))
          })
          throw error
        }
      }
      // Stryker disable next-line StringLiteral: five lost races in a row (above)
      throw new Error(`askseam/postgres: key ${ask.key} kept changing hands; try again`)
    } finally {
      client.release(broken)
    }
  }

  return {
    async admit(ask) {
      open()
      // What is written is what parses: a malformed trace context is dropped here already.
      const record = parseAskRecord({ ...ask, state: 'pending' })
      const { channel } = await ready()
      const inserted = one(await query<AskRow>(statements.insert, insertValues(record, channel)))
      if (inserted !== undefined) return { status: 'admitted', record: inserted }
      // Only a key conflict inserts nothing (a taken askId throws).
      return admitKeyed(record, channel)
    },

    async settle(askId, outcome, settledAt) {
      open()
      const offered = parseOutcome(outcome)
      const { channel } = await ready()
      const [written] = await query<AskRow & { won: string | null }>(statements.settle, [
        askId,
        JSON.stringify(outcome),
        settledAt,
        STORE_SCHEMA_VERSION,
        channel,
        TIMEOUT_MESSAGE,
        isTimeoutOutcome(offered),
      ])
      // Written, though not necessarily with the outcome offered: past the deadline, the timeout.
      if (written !== undefined) return { record: toAskRecord(written), won: written.won === 't' }
      // Not written (or no such ask): the committed row is the answer.
      const record = one(await query<AskRow>(statements.get, [askId]))
      return record === undefined ? undefined : { record, won: false }
    },

    async get(askId) {
      open()
      await ready()
      return one(await query<AskRow>(statements.get, [askId]))
    },

    async pending() {
      open()
      await ready()
      return parseEach(await query<AskRow>(statements.pending, []), toAskRecord)
    },

    async expireOverdue(now) {
      open()
      const { channel } = await ready()
      return parseEach(
        await query<SweptRow>(statements.expireOverdue, [
          now,
          TIMEOUT_MESSAGE,
          STORE_SCHEMA_VERSION,
          channel,
        ]),
        (row) => toSweptRecord(row, now, timeoutOutcome),
      )
    },

    async endOrphans(now) {
      open()
      const { channel } = await ready()
      return parseEach(
        await query<SweptRow>(statements.endOrphans, [
          now,
          JSON.stringify(ownerGoneOutcome()),
          STORE_SCHEMA_VERSION,
          channel,
          now - LEASE_RETENTION_MS,
        ]),
        (row) => toSweptRecord(row, now, ownerGoneOutcome),
      )
    },

    async heartbeat(lease: SeamLease) {
      open()
      const { channel } = await ready()
      await query(statements.heartbeat, [
        lease.seamId,
        lease.providerActive,
        lease.expiresAt,
        STORE_SCHEMA_VERSION,
        channel,
      ])
    },

    async release(seamId) {
      open()
      const { channel } = await ready()
      await query(statements.release, [seamId, channel])
    },

    async leases(now) {
      open()
      await ready()
      const rows = await query<LeaseRow>(statements.leases, [now])
      return parseRows(rows, toSeamLease, corrupt)
    },

    watch(listener) {
      if (closed) return () => undefined
      const own = (change: StoreChange) => listener(change)
      listeners.add(own)
      feed.start()
      return () => {
        if (!listeners.delete(own)) return
        // The last watcher gone, the LISTEN connection has no one to serve.
        if (listeners.size === 0) void feed.stop()
      }
    },

    notifications: createNotificationLedger(async (text, values) => {
      open()
      await ready()
      return query(text, values)
    }),

    async purge({ settledBefore }) {
      open()
      const { channel } = await ready()
      const rows = await query<{ purged: string }>(statements.purge, [settledBefore, channel])
      return Number(rows[0]?.purged ?? 0)
    },

    close() {
      closing ??= (async () => {
        closed = true
        listeners.clear()
        await feed.stop()
        if (ownsPool) await pool.end()
      })()
      return closing
    },
  }
}
