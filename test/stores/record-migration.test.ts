/**
 * Migration 4 (who answers, and the record of it: DESIGN §12) on storage the
 * previous askseam left: a SQLite file and a Postgres schema at migration 3,
 * built from the migrations that version ran, each holding pending asks
 * written as it wrote them. The new store opens them, keeps the asks, and
 * settles, votes on and records them. And, on the migrated tables, rows of
 * the record that do not parse are skipped and reported, never trusted.
 */
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { CorruptRowError, STORE_SCHEMA_VERSION } from '../../src/protocol/internal.js'
import type { AskStore, NewAskRecord } from '../../src/protocol/store/index.js'
import { createPostgresStore } from '../../src/stores/postgres/index.js'
import {
  MIGRATIONS as POSTGRES_MIGRATIONS,
  LATEST_MIGRATION as POSTGRES_LATEST,
} from '../../src/stores/postgres/schema.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import {
  MIGRATIONS as SQLITE_MIGRATIONS,
  LATEST_MIGRATION as SQLITE_LATEST,
} from '../../src/stores/sqlite/schema.js'
import type { AskOutcome, Responder } from '../../src/vocabulary/index.js'
import { describePostgres, freshSchema, withClient } from '../support/postgres.js'
import { tempDirectory } from './sqlite/temp-file.js'
import { answered, newAsk } from './store-contract.js'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const planReview = [
  {
    id: 'plan',
    question: 'Ship it?',
    detail: 'Deploy the release to production.',
    options: [{ label: 'Ship' }, { label: 'Wait' }],
    intent: { kind: 'plan-review' as const, approve: 'Ship' },
  },
]
const approved: AskOutcome = {
  status: 'answered',
  answer: { answers: [{ id: 'plan', selected: ['Ship'] }] },
}
const ann: Responder = { id: 'ann', via: 'web' }
const bob: Responder = { id: 'bob', via: 'terminal' }

/** Written before the migration: one to settle, one plan review to vote on. */
const toSettle = newAsk({ key: 'settled-after', deadline: Date.now() + 3_600_000 })
const toVote = newAsk({ key: 'voted-after', questions: planReview, agentId: 'agent-m' })
const before = [toSettle, toVote]

/** What the migrated store must still hold, and do. */
async function checkMigrated(store: AskStore): Promise<void> {
  expect(await store.pending()).toEqual(before.map((ask) => ({ ...ask, state: 'pending' })))
  const at = Date.now()
  expect(await store.settle(toSettle.askId, answered, at)).toEqual({
    record: { ...toSettle, state: 'settled', outcome: answered, settledAt: at },
    won: true,
  })
  // An ask of the old version has no policy: the writer says how many approve.
  await store.record(toVote.askId, { type: 'presented', at: at + 1, by: ann })
  const vote = (by: Responder, offset: number) => ({
    by,
    at: at + offset,
    required: 2,
    outcome: approved,
  })
  expect(await store.vote(toVote.askId, vote(ann, 2))).toEqual({ status: 'counted', given: [ann] })
  expect(await store.vote(toVote.askId, vote(ann, 3))).toEqual({
    status: 'already-voted',
    given: [ann],
  })
  const settled = await store.vote(toVote.askId, vote(bob, 4))
  expect(settled).toMatchObject({ status: 'settled', won: true })
  const [history] = await store.history({ agentId: 'agent-m' })
  expect(history?.outcome).toEqual({ ...approved, by: [ann, bob] })
  expect(history?.events.map((event) => event.type)).toEqual([
    'admitted',
    'presented',
    'vote',
    'vote',
    'settled',
  ])
}

/** The columns every version wrote, in the INSERTs below' order. */
const oldValues = (ask: NewAskRecord) => [
  ask.askId,
  ask.key ?? null,
  JSON.stringify(ask.questions),
  ask.agentId ?? null,
  ask.ownerSeamId,
  ask.startedAt,
  ask.deadline ?? null,
  STORE_SCHEMA_VERSION,
]

describe('migration 4 on a SQLite file of migration 3', () => {
  it('keeps the pending asks, which then settle, take votes and keep a record', async () => {
    const temp = tempDirectory()
    cleanups.push(temp.remove)
    const path = temp.file()
    const db = new Database(path)
    db.pragma('journal_mode = WAL')
    db.exec('CREATE TABLE migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)')
    for (const migration of SQLITE_MIGRATIONS.filter((each) => each.version <= 3)) {
      db.exec(migration.sql)
      db.prepare('INSERT INTO migrations (version, applied_at) VALUES (?, ?)').run(
        migration.version,
        Date.now(),
      )
    }
    const insert = db.prepare(
      `INSERT INTO asks (ask_id, ask_key, questions, agent_id, owner_seam_id, started_at, deadline,
         state, outcome, settled_at, revision, schema_version, trace_context)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', NULL, NULL, 1, ?, NULL)`,
    )
    for (const ask of before) insert.run(...oldValues(ask))
    db.exec('UPDATE revision SET asks = 1')
    db.close()

    const store = createSqliteStore({ path })
    cleanups.push(() => store.close())
    await checkMigrated(store)
    const raw = new Database(path, { readonly: true })
    cleanups.push(() => void raw.close())
    expect(raw.prepare('SELECT max(version) AS version FROM migrations').get()).toEqual({
      version: SQLITE_LATEST,
    })
  })

  it('skips and reports event rows that do not parse, and refuses an ask whose policy does not', async () => {
    const temp = tempDirectory()
    cleanups.push(temp.remove)
    const path = temp.file()
    const reported: CorruptRowError[] = []
    const store = createSqliteStore({ path, onCorruptRow: (error) => reported.push(error) })
    cleanups.push(() => store.close())
    const ask = newAsk({ questions: planReview })
    await store.admit(ask)
    await store.record(ask.askId, { type: 'presented', at: 5, by: ann })
    const raw = new Database(path)
    cleanups.push(() => void raw.close())
    const insert = raw.prepare(
      'INSERT INTO ask_events (ask_id, at, type, by_id, by_json, detail) VALUES (?, ?, ?, ?, ?, ?)',
    )
    insert.run(ask.askId, 6, 'presented', null, '{not json', null)
    insert.run(ask.askId, 7, 'exploded', null, null, null)
    insert.run(ask.askId, 8, 'presented', null, '{"id":""}', null)
    insert.run(ask.askId, 9, 'refused', null, null, '[1]')
    insert.run(ask.askId, 'soon', 'refused', null, null, null)
    const [history] = await store.history({ askId: ask.askId })
    expect(history?.events).toEqual([
      { at: ask.startedAt, type: 'admitted' },
      { at: 5, type: 'presented', by: ann },
    ])
    expect(reported).toHaveLength(5)
    expect(reported.every((error) => error instanceof CorruptRowError)).toBe(true)

    // A vote whose JSON is corrupt still names its voter (by_id): no second vote for them.
    insert.run(ask.askId, 10, 'vote', 'bob', '{broken', null)
    const vote = { by: bob, at: 11, required: 3, outcome: approved }
    expect(await store.vote(ask.askId, vote)).toEqual({ status: 'already-voted', given: [] })

    raw
      .prepare('UPDATE asks SET policy = ? WHERE ask_id = ?')
      .run('{"approvals":"many"}', ask.askId)
    await expect(store.get(ask.askId)).rejects.toBeInstanceOf(CorruptRowError)
    expect(await store.history({ askId: ask.askId })).toEqual([])
  })
})

describePostgres('migration 4 on a Postgres schema of migration 3', () => {
  it('keeps the pending asks, which then settle, take votes and keep a record', async () => {
    const schema = await freshSchema()
    cleanups.push(schema.drop)
    await withClient(schema.url, async (client) => {
      await client.query(`CREATE TABLE askseam_migrations (
        version integer PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`)
      for (const migration of POSTGRES_MIGRATIONS.filter((each) => each.version <= 3)) {
        for (const statement of migration.statements) await client.query(statement)
        await client.query('INSERT INTO askseam_migrations (version) VALUES ($1)', [
          migration.version,
        ])
      }
      for (const ask of before) {
        await client.query(
          `INSERT INTO askseam_asks
            (ask_id, ask_key, questions, agent_id, owner_seam_id, started_at, deadline, state,
             schema_version)
           VALUES ($1, $2, $3::json, $4, $5, $6, $7, 'pending', $8)`,
          oldValues(ask),
        )
      }
    })
    const store = createPostgresStore({ connectionString: schema.url })
    cleanups.push(() => store.close())
    await checkMigrated(store)
    const applied = await withClient(schema.url, (client) =>
      client.query('SELECT max(version) AS version FROM askseam_migrations'),
    )
    expect(applied.rows).toEqual([{ version: POSTGRES_LATEST }])
  })

  it('skips and reports event rows that do not parse, and refuses an ask whose policy does not', async () => {
    const schema = await freshSchema()
    cleanups.push(schema.drop)
    const reported: CorruptRowError[] = []
    const store = createPostgresStore({
      connectionString: schema.url,
      onCorruptRow: (error) => reported.push(error),
    })
    cleanups.push(() => store.close())
    const ask = newAsk({ questions: planReview })
    await store.admit(ask)
    await store.record(ask.askId, { type: 'presented', at: 5, by: ann })
    await withClient(schema.url, async (client) => {
      const insert = (at: number, type: string, by: string | null, detail: string | null) =>
        client.query(
          `INSERT INTO askseam_ask_events (ask_id, at, type, by_json, detail)
           VALUES ($1, $2, $3, $4::json, $5::json)`,
          [ask.askId, at, type, by, detail],
        )
      await insert(7, 'exploded', null, null)
      await insert(8, 'presented', '{"id":""}', null)
      await insert(9, 'refused', null, '[1]')
    })
    const [history] = await store.history({ askId: ask.askId })
    expect(history?.events).toEqual([
      { at: ask.startedAt, type: 'admitted' },
      { at: 5, type: 'presented', by: ann },
    ])
    expect(reported).toHaveLength(3)

    await withClient(schema.url, (client) =>
      client.query(`UPDATE askseam_asks SET policy = '{"approvals":"many"}' WHERE ask_id = $1`, [
        ask.askId,
      ]),
    )
    await expect(store.get(ask.askId)).rejects.toBeInstanceOf(CorruptRowError)
    expect(await store.history({ askId: ask.askId })).toEqual([])
  })
})
