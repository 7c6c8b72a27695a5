/**
 * The Postgres store's own promises beyond the contract: what its
 * connections call themselves and how many it opens, a pool handed in
 * (its settings reach the LISTEN connection), schema names that need
 * quoting or hashing, changes only the backstop poll can see, deadlines
 * checked against the database's clock, and the default report of a corrupt
 * row.
 */
import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { timeoutOutcome } from '../../../src/protocol/store/index.js'
import type { AskStore, StoreChange } from '../../../src/protocol/store/index.js'
import { createPostgresStore } from '../../../src/stores/postgres/index.js'
import type { PostgresStoreOptions } from '../../../src/stores/postgres/index.js'
import {
  describePostgres,
  freshDatabase,
  freshSchema,
  postgresUrl,
  withClient,
  withSearchPath,
} from '../../support/postgres.js'
import { answered, newAsk } from '../store-contract.js'
import { captureWarnings, withCode } from '../../support/warnings.js'

const opened: AskStore[] = []
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close()
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function track(store: AskStore): AskStore {
  opened.push(store)
  return store
}

async function schema() {
  const fresh = await freshSchema()
  cleanups.push(fresh.drop)
  const open = (options: Omit<PostgresStoreOptions, 'connectionString'> = {}) =>
    track(createPostgresStore({ connectionString: fresh.url, ...options }))
  const sql = (text: string, values: unknown[] = []) =>
    withClient(fresh.url, (client) => client.query(text, values))
  return { ...fresh, open, sql }
}

/** A database of the test's own, so pg_stat_activity shows only this test's connections. */
async function database(): Promise<{ url: string }> {
  const fresh = await freshDatabase()
  cleanups.push(fresh.drop)
  return fresh
}

async function until(check: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const end = Date.now() + limitMs
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describePostgres('postgres store options', () => {
  it('names its connections and keeps its pool to maxConnections', async () => {
    const db = await database()
    const store = track(createPostgresStore({ connectionString: db.url, maxConnections: 1 }))
    const seen: StoreChange[] = []
    store.watch((change) => seen.push(change))
    await until(() => seen.some((c) => c.type === 'resync'), 'the listener')
    await Promise.all(Array.from({ length: 8 }, () => store.get('none')))
    const { rows } = await withClient(db.url, (client) =>
      client.query<{ application_name: string; n: number }>(
        `SELECT application_name, count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()
         GROUP BY application_name ORDER BY application_name`,
      ),
    )
    expect(rows).toEqual([
      { application_name: 'askseam', n: 1 },
      { application_name: 'askseam-listener', n: 1 },
    ])
  })

  it('listens with the settings of a pool it was given', async () => {
    const db = await schema()
    const pool = new pg.Pool({ connectionString: db.url })
    cleanups.push(() => pool.end())
    const store = track(createPostgresStore({ pool }))
    const seen: StoreChange[] = []
    store.watch((change) => seen.push(change))
    await until(() => seen.some((c) => c.type === 'resync'), 'the listener')
    const ask = newAsk()
    await db.open().admit(ask)
    await until(
      () => seen.some((c) => c.type === 'ask.admitted' && c.record.askId === ask.askId),
      'the admission, heard on the pool’s database and schema',
    )
  })

  it('refuses a pool and a connection string together, saying so', () => {
    const pool = new pg.Pool({ connectionString: postgresUrl })
    cleanups.push(() => pool.end())
    expect(() => createPostgresStore({ pool, connectionString: postgresUrl as string })).toThrow(
      'askseam/postgres: give a connectionString or a pool, not both',
    )
  })

  it('rejects with a clear error when the search_path names no schema that exists', async () => {
    const url = withSearchPath(postgresUrl as string, 'askseam_no_such_schema')
    const store = track(createPostgresStore({ connectionString: url }))
    await expect(store.pending()).rejects.toThrow(
      'askseam/postgres: no schema on the search_path to create the tables in',
    )
  })

  it('works on a schema whose name needs quoting, and on one too long for a channel name', async () => {
    const unique = `${process.pid}_${Date.now().toString(36)}`
    // 60 bytes: "askseam:" and the name pass the 63 bytes of a channel name.
    for (const name of [`Ask "quoted" ${unique}`, `askseam_${unique}_`.padEnd(60, 'x')]) {
      const quoted = `"${name.replace(/"/g, '""')}"`
      await withClient(postgresUrl as string, (client) => client.query(`CREATE SCHEMA ${quoted}`))
      cleanups.push(async () => {
        await withClient(postgresUrl as string, (client) =>
          client.query(`DROP SCHEMA ${quoted} CASCADE`),
        )
      })
      // libpq's options: a backslash keeps a space inside one -c setting.
      const parsed = new URL(postgresUrl as string)
      parsed.searchParams.set('options', `-c search_path=${quoted.replace(/ /g, '\\ ')}`)
      const url = parsed.toString()
      const watcher = track(createPostgresStore({ connectionString: url }))
      const seen: StoreChange[] = []
      watcher.watch((change) => seen.push(change))
      await until(() => seen.some((c) => c.type === 'resync'), `the listener on schema ${name}`)
      const ask = newAsk()
      await track(createPostgresStore({ connectionString: url })).admit(ask)
      await until(
        () => seen.some((c) => c.type === 'ask.admitted' && c.record.askId === ask.askId),
        `the admission on schema ${name}`,
      )
    }
  })
})

describePostgres('postgres store watchers', () => {
  const listeners = (url: string) =>
    withClient(url, async (client) => {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'askseam-listener'`,
      )
      return rows[0]?.n
    })

  it('keeps its LISTEN connection while anyone watches and ends it after the last', async () => {
    const db = await database()
    const store = track(createPostgresStore({ connectionString: db.url }))
    const kept: StoreChange[] = []
    store.watch((change) => kept.push(change))
    const unwatch = store.watch(() => undefined)
    await until(() => kept.some((c) => c.type === 'resync'), 'the listener')
    unwatch()
    unwatch()
    const ask = newAsk()
    await track(createPostgresStore({ connectionString: db.url })).admit(ask)
    await until(
      () => kept.some((c) => c.type === 'ask.admitted' && c.record.askId === ask.askId),
      'the admission, told to the watcher left',
    )
    expect(await listeners(db.url)).toBe(1)

    const last = store.watch(() => undefined)
    store.watch(() => undefined)()
    last()
    // The watcher from the start is still there: unwatching others must not end it.
    expect(await listeners(db.url)).toBe(1)
  })

  it('ends its LISTEN connection when the one watcher stops', async () => {
    const db = await database()
    const store = track(createPostgresStore({ connectionString: db.url }))
    const seen: StoreChange[] = []
    const unwatch = store.watch((change) => seen.push(change))
    await until(() => seen.some((c) => c.type === 'resync'), 'the listener')
    unwatch()
    let left: number | undefined = 1
    const end = Date.now() + 10_000
    while (left !== 0 && Date.now() < end) {
      left = await listeners(db.url)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(left).toBe(0)
  })
})

describePostgres('postgres store backstop poll', () => {
  it('tells a lease changed without a notification', async () => {
    const db = await schema()
    const watcher = db.open({ pollIntervalMs: 50 })
    await watcher.heartbeat({ seamId: 'before', providerActive: true, expiresAt: 10 })
    const seen: StoreChange[] = []
    watcher.watch((change) => seen.push(change))
    await until(() => seen.some((c) => c.type === 'resync'), 'the listener')
    // Two polls, so the poll knows the leases as they stand.
    await new Promise((resolve) => setTimeout(resolve, 200))
    seen.length = 0
    await db.sql(`UPDATE askseam_leases SET provider_active = false WHERE seam_id = 'before'`)
    await until(() => seen.some((c) => c.type === 'leases.changed'), 'the lease change')
  })

  it('says resync instead of reading out more silent changes than one poll emits', async () => {
    const db = await schema()
    const watcher = db.open({ pollIntervalMs: 50 })
    await watcher.pending()
    const seen: StoreChange[] = []
    watcher.watch((change) => seen.push(change))
    await until(() => seen.some((c) => c.type === 'resync'), 'the listener')
    await new Promise((resolve) => setTimeout(resolve, 200))
    seen.length = 0
    await db.sql(
      `INSERT INTO askseam_asks (ask_id, questions, owner_seam_id, started_at, state, schema_version)
       SELECT 'silent-' || i, '[{"id":"q","question":"?"}]', 'seam-a', i, 'pending', 1
       FROM generate_series(1, 501) AS i`,
    )
    await until(() => seen.length > 0, 'the poll')
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(seen).toEqual([{ type: 'resync' }])
  })
})

describePostgres('postgres store deadlines', () => {
  // The contract's deadlines lie a day from every clock; these lie between
  // the database's clock and the settledAt a writer passes, so only the
  // clock the store checks against decides.
  it('checks a deadline against the database clock, not the settledAt it is given', async () => {
    const db = await schema()
    const store = db.open()
    await store.pending()
    const { rows } = await db.sql(
      `SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS now`,
    )
    const databaseNow = Number((rows[0] as { now: string }).now)
    // A minute ahead of the database's clock, behind the settledAt given: in time.
    const ahead = newAsk({ deadline: databaseNow + 60_000 })
    // Passed by the database's clock (it only moves on), ahead of the settledAt given: too late.
    const behind = newAsk({ deadline: databaseNow })
    for (const ask of [ahead, behind]) await store.admit(ask)

    const late = databaseNow + 120_000
    expect(await store.settle(ahead.askId, answered, late)).toEqual({
      record: { ...ahead, state: 'settled', outcome: answered, settledAt: late },
      won: true,
    })
    // settledAt stays the writer's: the database's clock only decides the outcome.
    const early = databaseNow - 60_000
    expect(await store.settle(behind.askId, answered, early)).toEqual({
      record: { ...behind, state: 'settled', outcome: timeoutOutcome(behind), settledAt: early },
      won: false,
    })
  })

  it("checks the deadline once it holds the row, so a wait on another transaction's lock counts", async () => {
    const db = await schema()
    const store = db.open()
    await store.pending()
    const databaseNow = async () => {
      const { rows } = await db.sql(
        `SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS now`,
      )
      return Number((rows[0] as { now: string }).now)
    }
    const ask = newAsk({ deadline: (await databaseNow()) + 300 })
    await store.admit(ask)
    await withClient(db.url, async (locker) => {
      await locker.query('BEGIN')
      await locker.query(`SELECT 1 FROM askseam_asks WHERE ask_id = $1 FOR UPDATE`, [ask.askId])
      // Offered in time; the deadline passes while the settle waits for the locker's row lock.
      const settling = store.settle(ask.askId, answered, Date.now())
      await untilWaiting(db.sql)
      while ((await databaseNow()) <= (ask.deadline as number)) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      await locker.query('COMMIT')
      const result = await settling
      expect(result?.won).toBe(false)
      expect(result?.record.outcome).toEqual(timeoutOutcome(ask))
    })
  })
})

/** Waits until some connection waits on a lock (the settle queued behind the locker). */
async function untilWaiting(
  sql: (text: string) => Promise<{ rows: unknown[] }>,
  limitMs = 10_000,
): Promise<void> {
  const end = Date.now() + limitMs
  for (;;) {
    const { rows } = await sql(
      `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
    )
    if (rows.length > 0) return
    if (Date.now() > end) throw new Error('timed out waiting for the settle to wait on the lock')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describePostgres('a corrupt row, without onCorruptRow', () => {
  it('is told as a process warning, once per distinct fault', async () => {
    const db = await schema()
    const store = db.open()
    await store.pending()
    await db.sql(
      `INSERT INTO askseam_asks (ask_id, questions, owner_seam_id, started_at, state, schema_version)
       VALUES ('warned-ask', '{"not":"a list"}', 'seam-x', 1, 'pending', 1)`,
    )
    const warnings = captureWarnings(withCode('ASKSEAM_CORRUPT_ROW'))
    await store.pending()
    await store.pending()
    await new Promise((resolve) => setImmediate(resolve))
    expect(warnings.map((w) => w.message)).toEqual([
      'askseam/postgres skipped a corrupt row: ask warned-ask: questions are not valid questions: questions must be an array',
    ])
  })
})
