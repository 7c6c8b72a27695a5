/**
 * Migration 3 adds the asking process's trace context to every ask row
 * (DESIGN §13). A file or schema written before it (migration 1: no
 * `trace_context` column) is brought up on open, and the asks pending in it
 * read exactly as before. The older storage is the current one with the
 * column and its migration taken back out, and every later one with it
 * (migration 4, the record of asks): what the schema of migration 2
 * creates, table for table.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { AskRecord, AskStore } from '../../src/protocol/store/index.js'
import { createPostgresStore } from '../../src/stores/postgres/index.js'
import { LATEST_MIGRATION as POSTGRES_LATEST } from '../../src/stores/postgres/schema.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { LATEST_MIGRATION as SQLITE_LATEST } from '../../src/stores/sqlite/schema.js'
import { describePostgres, freshSchema, withClient } from '../support/postgres.js'
import { afterThisTest, rawConnection } from './sqlite/harness.js'
import { tempDirectory } from './sqlite/temp-file.js'
import { newAsk } from './store-contract.js'

const traceContext = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
}

/** The pending ask written before the migration, as its row had it. */
const before = newAsk({ key: 'written-before', deadline: 1_900_000_000_000, agentId: 'root' })
const beforeRecord: AskRecord = { ...before, state: 'pending' }

/** After the migration: the old ask reads as it did, and a new one keeps its trace context. */
async function checkMigrated(store: AskStore): Promise<void> {
  expect(await store.get(before.askId)).toEqual(beforeRecord)
  expect(await store.pending()).toEqual([beforeRecord])
  const after = newAsk({ traceContext })
  await store.admit(after)
  expect((await store.get(after.askId))?.traceContext).toEqual(traceContext)
}

describe('SQLite: a file of migration 1', () => {
  it('is migrated on open, and its pending ask still reads', async () => {
    const temp = tempDirectory()
    afterThisTest(temp.remove)
    const path = temp.file()
    const current = createSqliteStore({ path })
    await current.pending()
    await current.close()

    const raw = rawConnection(path)
    raw.exec(`DROP TABLE ask_events; DROP INDEX asks_by_agent; DROP INDEX asks_by_started_at;
      ALTER TABLE asks DROP COLUMN policy; ALTER TABLE asks DROP COLUMN trace_context;
      DELETE FROM migrations WHERE version >= 3`)
    raw
      .prepare(
        `INSERT INTO asks (ask_id, ask_key, questions, agent_id, owner_seam_id, started_at, deadline,
           state, outcome, settled_at, revision, schema_version)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', NULL, NULL, 1, 1)`,
      )
      .run(
        before.askId,
        before.key,
        JSON.stringify(before.questions),
        before.agentId,
        before.ownerSeamId,
        before.startedAt,
        before.deadline,
      )
    raw.exec('UPDATE revision SET asks = 1')
    raw.close()

    const store = createSqliteStore({ path })
    afterThisTest(() => store.close())
    await checkMigrated(store)
    const check = rawConnection(path)
    expect(check.prepare('SELECT max(version) AS version FROM migrations').get()).toEqual({
      version: SQLITE_LATEST,
    })
  })
})

describePostgres('Postgres: a schema of migration 1', () => {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  it('is migrated on first use, and its pending ask still reads', async () => {
    const fresh = await freshSchema()
    cleanups.push(fresh.drop)
    const current = createPostgresStore({ connectionString: fresh.url })
    await current.pending()
    await current.close()

    await withClient(fresh.url, async (client) => {
      await client.query('DROP TABLE askseam_ask_events')
      await client.query('DROP INDEX askseam_asks_agent')
      await client.query('DROP INDEX askseam_asks_started')
      await client.query('ALTER TABLE askseam_asks DROP COLUMN policy')
      await client.query('ALTER TABLE askseam_asks DROP COLUMN trace_context')
      await client.query('DELETE FROM askseam_migrations WHERE version >= 3')
      await client.query(
        `INSERT INTO askseam_asks
           (ask_id, ask_key, questions, agent_id, owner_seam_id, started_at, deadline, state, schema_version)
         VALUES ($1, $2, $3::json, $4, $5, $6, $7, 'pending', 1)`,
        [
          before.askId,
          before.key,
          JSON.stringify(before.questions),
          before.agentId,
          before.ownerSeamId,
          before.startedAt,
          before.deadline,
        ],
      )
    })

    const store = createPostgresStore({ connectionString: fresh.url })
    cleanups.push(() => store.close())
    await checkMigrated(store)
    const { rows } = await withClient(fresh.url, (client) =>
      client.query<{ version: number }>('SELECT max(version) AS version FROM askseam_migrations'),
    )
    expect(rows).toEqual([{ version: POSTGRES_LATEST }])
  })
})
