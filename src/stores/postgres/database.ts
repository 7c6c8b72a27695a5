import type { ClientConfig, Pool, PoolClient } from 'pg'
import type { CorruptRowError } from '../../protocol/internal.js'
import { RAW_TEXT } from './rows.js'
import { migrate } from './schema.js'
import type { SchemaFacts } from './schema.js'
import type { PostgresStoreOptions } from './types.js'

/** What the store's parts share: its pool, its schema, and whether it is still open. */
export interface StoreDatabase {
  pool: Pool
  /** Throws once the store is closed. */
  open(): void
  /** The schema's facts, migrated on the first call; after a failure the next call tries again. */
  ready(): Promise<SchemaFacts>
  /** Runs one statement on `on` (the pool unless a client is given); rows in raw text. */
  query<TRow>(text: string, values: unknown[], on?: Pool | PoolClient): Promise<TRow[]>
  /** Told of a row a list skips because it does not parse. */
  corrupt(error: CorruptRowError): void
}

/** The settings of every connection the store opens, its pool's and its LISTEN connection's. */
export function connectionConfig(options: PostgresStoreOptions): ClientConfig {
  return {
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
}

/** Runs one statement on `on`, every column read as the server's text. */
export async function queryRows<TRow>(
  on: Pool | PoolClient,
  text: string,
  values: unknown[],
): Promise<TRow[]> {
  const result = await on.query({ text, values, types: RAW_TEXT })
  return result.rows as TRow[]
}

/**
 * The schema of `pool`'s connections, migrated once: every caller waits for
 * the same migration, and one that failed is tried again by the next call.
 */
export function migrateOnce(pool: Pool): () => Promise<SchemaFacts> {
  let facts: Promise<SchemaFacts> | undefined
  return () => {
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
}
