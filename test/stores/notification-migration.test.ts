/**
 * Migration 2 (the notification ledger, DESIGN §13) on storage the previous
 * askseam created: a SQLite file and a Postgres schema at migration 1, each
 * holding a pending ask written as that version writes it. Opening the store
 * migrates them; the ask is still pending and the ledger works.
 */
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { STORE_SCHEMA_VERSION } from '../../src/protocol/internal.js'
import type { AskStore } from '../../src/protocol/index.js'
import { createPostgresStore } from '../../src/stores/postgres/index.js'
import { MIGRATIONS as POSTGRES_MIGRATIONS } from '../../src/stores/postgres/schema.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../src/stores/sqlite/schema.js'
import { newAsk } from '../../src/protocol/store/contract-fixtures.js'
import { describePostgres, freshSchema, withClient } from '../support/postgres.js'
import { tempDirectory } from './sqlite/temp-file.js'
import { LATEST_MIGRATION as SQLITE_LATEST } from '../../src/stores/sqlite/schema.js'
import { LATEST_MIGRATION as POSTGRES_LATEST } from '../../src/stores/postgres/schema.js'

/** Each migration up to `latest` applied once, in order: the ones after 2 come with it. */
const everyMigration = (latest: number) =>
  Array.from({ length: latest }, (_, index) => ({ version: index + 1 }))

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const ask = newAsk({ key: 'kept-across-the-migration', deadline: Date.now() + 3_600_000 })

/** What a store at migration 2 must still hold, and do. */
async function checkMigrated(store: AskStore): Promise<void> {
  const pending = await store.pending()
  expect(pending.map((record) => record.askId)).toEqual([ask.askId])
  expect(pending[0]).toMatchObject({ key: ask.key, questions: ask.questions, state: 'pending' })
  const ledger = store.notifications
  expect(ledger).toBeDefined()
  const event = { eventId: `${ask.askId}.pending`, askId: ask.askId }
  expect(await ledger?.claim({ ...event, holder: 'n', now: 1, expiresAt: 2 })).toEqual({
    status: 'claimed',
  })
  expect(await ledger?.unfinished()).toEqual([{ ...event, holder: 'n', expiresAt: 2 }])
}

describe('migration 2 on a SQLite file of migration 1', () => {
  it('keeps a pending ask and adds the notification ledger', async () => {
    const temp = tempDirectory()
    cleanups.push(temp.remove)
    const path = temp.file()
    // The file as askseam before migration 2 leaves it.
    const db = new Database(path)
    db.pragma('journal_mode = WAL')
    db.exec('CREATE TABLE migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)')
    for (const migration of SQLITE_MIGRATIONS.filter((each) => each.version === 1)) {
      db.exec(migration.sql)
      db.prepare('INSERT INTO migrations (version, applied_at) VALUES (?, ?)').run(1, Date.now())
    }
    db.prepare(
      `INSERT INTO asks (ask_id, ask_key, questions, agent_id, owner_seam_id, started_at, deadline,
         state, outcome, settled_at, revision, schema_version)
       VALUES (?, ?, ?, NULL, ?, ?, ?, 'pending', NULL, NULL, 1, ?)`,
    ).run(
      ask.askId,
      ask.key,
      JSON.stringify(ask.questions),
      ask.ownerSeamId,
      ask.startedAt,
      ask.deadline,
      STORE_SCHEMA_VERSION,
    )
    db.close()

    const store = createSqliteStore({ path })
    cleanups.push(() => store.close())
    await checkMigrated(store)
    const raw = new Database(path, { readonly: true })
    cleanups.push(() => void raw.close())
    expect(raw.prepare('SELECT version FROM migrations ORDER BY version').all()).toEqual(
      everyMigration(SQLITE_LATEST),
    )
  })
})

describePostgres('migration 2 on a Postgres schema of migration 1', () => {
  it('keeps a pending ask and adds the notification ledger', async () => {
    const schema = await freshSchema()
    cleanups.push(schema.drop)
    await withClient(schema.url, async (client) => {
      await client.query(`CREATE TABLE askseam_migrations (
        version integer PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`)
      for (const migration of POSTGRES_MIGRATIONS.filter((each) => each.version === 1)) {
        for (const statement of migration.statements) await client.query(statement)
      }
      await client.query('INSERT INTO askseam_migrations (version) VALUES (1)')
      await client.query(
        `INSERT INTO askseam_asks
          (ask_id, ask_key, questions, agent_id, owner_seam_id, started_at, deadline, state, schema_version)
         VALUES ($1, $2, $3::json, NULL, $4, $5, $6, 'pending', $7)`,
        [
          ask.askId,
          ask.key,
          JSON.stringify(ask.questions),
          ask.ownerSeamId,
          ask.startedAt,
          ask.deadline,
          STORE_SCHEMA_VERSION,
        ],
      )
    })
    const store = createPostgresStore({ connectionString: schema.url })
    cleanups.push(() => store.close())
    await checkMigrated(store)
    const applied = await withClient(schema.url, (client) =>
      client.query('SELECT version FROM askseam_migrations ORDER BY version'),
    )
    expect(applied.rows).toEqual(everyMigration(POSTGRES_LATEST))
  })
})
