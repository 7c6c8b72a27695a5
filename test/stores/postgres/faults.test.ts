import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { CorruptRowError, timeoutOutcome } from '../../../src/protocol/store/index.js'
import type { AskOutcome, AskStore, StoreChange } from '../../../src/protocol/store/index.js'
import { createPostgresStore } from '../../../src/stores/postgres/index.js'
import type { PostgresStoreOptions } from '../../../src/stores/postgres/index.js'
import { describePostgres, freshSchema, withClient } from '../../support/postgres.js'
import { answered, newAsk } from '../store-contract.js'
import { LATEST_MIGRATION } from '../../../src/stores/postgres/schema.js'

/** Each migration applied once, in order. */
const everyMigration = Array.from({ length: LATEST_MIGRATION }, (_, index) => ({
  version: index + 1,
}))

const opened: AskStore[] = []
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close()
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

async function schema() {
  const fresh = await freshSchema()
  cleanups.push(fresh.drop)
  const open = (options: Omit<PostgresStoreOptions, 'connectionString'> = {}) => {
    const store = createPostgresStore({ connectionString: fresh.url, ...options })
    opened.push(store)
    return store
  }
  const sql = (text: string, values: unknown[] = []) =>
    withClient(fresh.url, (client) => client.query(text, values))
  return { ...fresh, open, sql }
}

async function until(check: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const end = Date.now() + limitMs
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const questions = JSON.stringify(newAsk().questions)
const insertRow = `INSERT INTO askseam_asks
  (ask_id, questions, owner_seam_id, started_at, deadline, state, outcome, settled_at, schema_version)
  VALUES ($1, $2::json, 'seam-a', 1, $3, $4, $5::json, $6, $7)`

describePostgres('postgres store faults', () => {
  it('rejects the calls that touch a bad row and keeps serving the other asks', async () => {
    const db = await schema()
    const faults: CorruptRowError[] = []
    const store = db.open({ onCorruptRow: (error) => faults.push(error) })
    const good = newAsk({ deadline: 5 })
    await store.admit(good)
    // Rows written by hand: JSON of the wrong shape, an outcome that is not
    // one, a row of a schema version this askseam does not read.
    await db.sql(insertRow, ['bad-questions', '{"not":"a list"}', 5, 'pending', null, null, 1])
    await db.sql(insertRow, ['bad-outcome', questions, null, 'settled', '"garbage"', 9, 1])
    await db.sql(insertRow, ['future-row', questions, 5, 'pending', null, null, 2])

    for (const askId of ['bad-questions', 'bad-outcome', 'future-row']) {
      await expect(store.get(askId)).rejects.toBeInstanceOf(CorruptRowError)
    }
    await expect(store.settle('bad-outcome', answered, 10)).rejects.toBeInstanceOf(CorruptRowError)
    expect((await store.pending()).map((r) => r.askId)).toEqual([good.askId])
    expect(faults.map((error) => error.message).sort()).toEqual([
      expect.stringMatching(/^ask bad-questions: questions/),
      'ask future-row: schema version 2, not 1',
    ])

    // The sweep ends the good overdue ask and the bad pending one of this
    // version (reporting it), and leaves the other version's row alone.
    faults.length = 0
    const ended = await store.expireOverdue(100)
    expect(ended).toEqual([
      { ...good, state: 'settled', outcome: timeoutOutcome(good), settledAt: 100 },
    ])
    expect(faults.map((error) => error.message)).toEqual([
      expect.stringMatching(/^ask bad-questions: /),
    ])
    const left = await db.sql(`SELECT state FROM askseam_asks WHERE ask_id = 'future-row'`)
    expect(left.rows).toEqual([{ state: 'pending' }])

    // A key held by a bad row: the admit that needs that row rejects.
    await db.sql(`UPDATE askseam_asks SET ask_key = 'bad-key' WHERE ask_id = 'bad-questions'`)
    await expect(store.admit(newAsk({ key: 'bad-key' }))).rejects.toBeInstanceOf(CorruptRowError)

    const later = newAsk({ key: 'good-key' })
    expect((await store.admit(later)).status).toBe('admitted')
    expect(await store.settle(later.askId, answered, 20)).toMatchObject({
      record: { outcome: answered },
    })
  })

  it('says what is wrong with a row: a time past 2^53, a lease it cannot read', async () => {
    const db = await schema()
    const faults: CorruptRowError[] = []
    const store = db.open({ onCorruptRow: (error) => faults.push(error) })
    await store.pending()
    const huge = '9007199254740993'
    await db.sql(insertRow, ['huge-deadline', questions, huge, 'pending', null, null, 1])
    await db.sql(insertRow, ['huge-settled', questions, null, 'settled', '{}', huge, 1])
    await db.sql(insertRow, ['huge-started', questions, null, 'pending', null, null, 1])
    await db.sql(`UPDATE askseam_asks SET started_at = $1 WHERE ask_id = 'huge-started'`, [huge])
    await expect(store.get('huge-deadline')).rejects.toThrow(
      'ask huge-deadline: deadline is not a time',
    )
    await expect(store.get('huge-settled')).rejects.toThrow(
      'ask huge-settled: settledAt is not a time',
    )
    await expect(store.get('huge-started')).rejects.toThrow(
      'ask huge-started: startedAt is not a time',
    )

    await store.heartbeat({ seamId: 'good', providerActive: false, expiresAt: 1_000 })
    await db.sql(
      `INSERT INTO askseam_leases (seam_id, provider_active, expires_at, schema_version)
       VALUES ('far', true, $1, 1), ('newer', true, 1000, 2)`,
      [huge],
    )
    expect(await store.leases(0)).toEqual([
      { seamId: 'good', providerActive: false, expiresAt: 1_000 },
    ])
    expect(faults.map((error) => error.message).sort()).toEqual([
      'lease far: not a lease of this schema version',
      'lease newer: not a lease of this schema version',
    ])
  })

  it('lets one of two stores win each of many raced settles, and both read that winner', async () => {
    const db = await schema()
    const left = db.open()
    const right = db.open()
    const asks = Array.from({ length: 30 }, () => newAsk())
    for (const ask of asks) await left.admit(ask)
    const say = (who: string): AskOutcome => ({
      status: 'answered',
      answer: { answers: [{ id: 'db', selected: [], custom: who }] },
    })
    const results = await Promise.all(
      asks.flatMap((ask) => [
        left.settle(ask.askId, say('left'), 1),
        right.settle(ask.askId, say('right'), 2),
      ]),
    )
    for (let i = 0; i < asks.length; i += 1) {
      const [a, b] = [results[2 * i], results[2 * i + 1]]
      expect(a?.record).toEqual(b?.record)
      expect([a?.won, b?.won].sort()).toEqual([false, true])
      const stored = await right.get(asks[i]!.askId)
      expect(stored).toEqual(a?.record)
      expect([say('left'), say('right')]).toContainEqual(stored?.outcome)
    }
  })

  it('splits one sweep between four stores sweeping at once: each ask ended once', async () => {
    const db = await schema()
    const stores = Array.from({ length: 4 }, () => db.open())
    const values = Array.from({ length: 2_000 }, (_, i) => `('sweep-${i}')`).join(',')
    await stores[0]!.pending() // creates the tables
    await db.sql(`INSERT INTO askseam_asks
      (ask_id, questions, owner_seam_id, started_at, deadline, state, schema_version)
      SELECT id, '${questions}'::json, 'seam-a', 1, 10, 'pending', 1
      FROM (VALUES ${values}) AS ids (id)`)
    const swept = await Promise.all(stores.map((store) => store.expireOverdue(20)))
    const ids = swept.flat().map((record) => record.askId)
    expect(ids).toHaveLength(2_000)
    expect(new Set(ids).size).toBe(2_000)
    expect(await stores[1]!.pending()).toEqual([])
  })

  it('migrates once when several stores start on an empty schema together', async () => {
    const db = await schema()
    const stores = Array.from({ length: 6 }, () => db.open())
    await Promise.all(stores.map((store) => store.pending()))
    const applied = await db.sql('SELECT version FROM askseam_migrations ORDER BY version')
    expect(applied.rows).toEqual(everyMigration)
  })

  it('refuses a schema migrated by a newer askseam, saying so', async () => {
    const db = await schema()
    await db.open().pending()
    await db.sql('INSERT INTO askseam_migrations (version) VALUES (99)')
    await expect(db.open().pending()).rejects.toThrow(/migration 99, newer than this askseam/)
  })

  it('sends a notification per ask for a small sweep and one resync for a large one', async () => {
    const db = await schema()
    const watcher = db.open()
    const writer = db.open()
    const seen: StoreChange[] = []
    watcher.watch((change) => seen.push(change))
    await until(() => seen.some((c) => c.type === 'resync'), 'the listener')
    const few = Array.from({ length: 3 }, () => newAsk({ deadline: 1 }))
    for (const ask of few) await writer.admit(ask)
    await until(() => seen.filter((c) => c.type === 'ask.admitted').length === 3, 'admissions')
    seen.length = 0
    await writer.expireOverdue(2)
    await until(() => seen.length === 3, 'three settlements')
    expect(seen.map((c) => c.type)).toEqual(['ask.settled', 'ask.settled', 'ask.settled'])

    for (let i = 0; i < 101; i += 1) await writer.admit(newAsk({ deadline: 1 }))
    await until(() => seen.filter((c) => c.type === 'ask.admitted').length === 101, 'admissions')
    seen.length = 0
    expect(await writer.expireOverdue(2)).toHaveLength(101)
    await until(() => seen.length > 0, 'the sweep')
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(seen).toEqual([{ type: 'resync' }])
  })

  it('asks watchers to resync for an askId too long for a notification', async () => {
    const db = await schema()
    const watcher = db.open()
    const seen: StoreChange[] = []
    watcher.watch((change) => seen.push(change))
    await until(() => seen.some((c) => c.type === 'resync'), 'the listener')
    seen.length = 0
    const long = newAsk({ askId: 'x'.repeat(9_000) })
    await db.open().admit(long)
    await until(() => seen.length > 0, 'the admission')
    expect(seen).toEqual([{ type: 'resync' }])
    expect(await watcher.get(long.askId)).toMatchObject({ state: 'pending' })
  })

  it('reports through its poll a change whose notification was lost', async () => {
    const db = await schema()
    const watcher = db.open({ pollIntervalMs: 100 })
    const ask = newAsk()
    await watcher.admit(ask)
    const seen: StoreChange[] = []
    watcher.watch((change) => seen.push(change))
    await until(() => seen.some((c) => c.type === 'resync'), 'the listener')
    // Let the poll learn where the revisions stand before the silent write.
    await new Promise((resolve) => setTimeout(resolve, 250))
    seen.length = 0
    // A write that sends no NOTIFY, as if the notification were lost.
    await db.sql(
      `UPDATE askseam_asks
      SET state = 'settled', outcome = $2::json, settled_at = 7, revision = nextval('askseam_revision')
      WHERE ask_id = $1`,
      [ask.askId, JSON.stringify(answered)],
    )
    await until(() => seen.some((c) => c.type === 'ask.settled'), 'the poll')
    expect(seen).toContainEqual({
      type: 'ask.settled',
      record: { ...ask, state: 'settled', outcome: answered, settledAt: 7 },
    })
    const settledSeen = seen.filter((c) => c.type === 'ask.settled').length
    await new Promise((resolve) => setTimeout(resolve, 400))
    // Reported once, not by every later poll.
    expect(seen.filter((c) => c.type === 'ask.settled').length).toBe(settledSeen)
  })

  it('gives questions and outcomes back as written, key order included', async () => {
    const db = await schema()
    const store = db.open()
    // In the order a seam writes them (validation's copy), which is not jsonb's (shorter keys first).
    const ask = newAsk({
      questions: [
        {
          id: 'z',
          question: 'Zebra first?',
          options: [{ label: 'Yes', description: 'go' }, { label: 'No' }],
        },
      ],
    })
    await store.admit(ask)
    const outcome: AskOutcome = {
      status: 'rejected',
      // parseOutcome rebuilds status/code/message in its own order; details pass through.
      error: { code: 'ASK_CANCELLED', message: 'later', details: { z: 1, a: 2 } },
    }
    await store.settle(ask.askId, outcome, 3)
    const read = await db.open().get(ask.askId)
    expect(JSON.stringify(read?.questions)).toBe(JSON.stringify(ask.questions))
    expect(JSON.stringify(read?.outcome)).toBe(JSON.stringify(outcome))
  })

  it('ends its own pool on close but never a pool it was given; close twice is fine', async () => {
    const db = await schema()
    const pool = new pg.Pool({ connectionString: db.url })
    cleanups.push(() => pool.end())
    const store = createPostgresStore({ pool })
    const unwatch = store.watch(() => undefined)
    await store.admit(newAsk())
    await store.close()
    await store.close()
    unwatch()
    await expect(store.pending()).rejects.toThrow(/closed/)
    expect(store.watch(() => undefined)).toBeTypeOf('function')
    expect((await pool.query('SELECT count(*)::int AS n FROM askseam_asks')).rows).toEqual([
      { n: 1 },
    ])
    expect(() => createPostgresStore({ pool, connectionString: db.url })).toThrow(TypeError)
  })
})
