/**
 * What a real SQLite file can do to the store: be locked by another writer,
 * vanish while open, not be openable yet, or hold rows nobody should trust.
 */
import { mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import type Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { CorruptRowError, timeoutOutcome } from '../../../src/protocol/store/index.js'
import type { StoreChange } from '../../../src/protocol/store/index.js'
import { createSqliteStore } from '../../../src/stores/sqlite/index.js'
import { answered, newAsk } from '../store-contract.js'
import { afterThisTest, rawConnection, setup, until } from './harness.js'
import { tempDirectory } from './temp-file.js'

describe('a file locked by another writer', () => {
  it('rejects writes with a clear error after the busy timeout, keeps the event loop free, and recovers once released', async () => {
    const { path, store } = setup({ busyTimeoutMs: 300 })
    const before = newAsk()
    await store.admit(before)
    const holder = rawConnection(path)
    holder.exec('BEGIN EXCLUSIVE')

    let ticks = 0
    const ticker = setInterval(() => (ticks += 1), 10)
    const started = Date.now()
    const blocked = newAsk()
    await expect(store.admit(blocked)).rejects.toThrow(/locked by another writer for 300 ms/)
    await expect(store.settle(before.askId, answered, 1)).rejects.toThrow(/locked/)
    clearInterval(ticker)
    expect(Date.now() - started).toBeGreaterThanOrEqual(600)
    // The wait is asynchronous: timers kept firing while the store waited.
    expect(ticks).toBeGreaterThan(20)
    // WAL: readers are not blocked by a writer.
    expect(await store.get(before.askId)).toMatchObject({ state: 'pending' })

    holder.exec('ROLLBACK')
    expect((await store.admit(blocked)).status).toBe('admitted')
    expect(await store.settle(before.askId, answered, 1)).toMatchObject({
      record: { outcome: answered },
    })
  })

  it('waits out a lock released within the busy timeout', async () => {
    const { path, store } = setup({ busyTimeoutMs: 5_000 })
    await store.pending()
    const holder = rawConnection(path)
    holder.exec('BEGIN IMMEDIATE')
    setTimeout(() => holder.exec('COMMIT'), 150)
    const ask = newAsk()
    expect((await store.admit(ask)).status).toBe('admitted')
  })
})

describe('a file deleted while open', () => {
  it('rejects the call that finds it gone, then works on the path again, and tells watchers to resync', async () => {
    const { path, store, open } = setup()
    const lost = newAsk()
    await store.admit(lost)
    const seen: StoreChange[] = []
    store.watch((change) => seen.push(change))
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true })

    await expect(store.get(lost.askId)).rejects.toThrow(/deleted or replaced while open/)
    expect(await store.get(lost.askId)).toBeUndefined()
    const fresh = newAsk()
    expect((await store.admit(fresh)).status).toBe('admitted')
    // Written to the file now at the path, not to the unlinked one.
    const other = open()
    expect((await other.pending()).map((r) => r.askId)).toEqual([fresh.askId])
    await until(() => seen.some((c) => c.type === 'resync'), 'a resync')
  })

  it('rejects while its directory is gone and recovers when it is back', async () => {
    const { temp, store } = setup()
    await store.admit(newAsk())
    rmSync(temp.dir, { recursive: true, force: true })
    await expect(store.pending()).rejects.toThrow(/deleted or replaced while open/)
    await expect(store.pending()).rejects.toThrow(/cannot open/)
    mkdirSync(temp.dir)
    expect(await store.pending()).toEqual([])
    expect((await store.admit(newAsk())).status).toBe('admitted')
  })
})

describe('a path that cannot be opened yet', () => {
  it('creates the store without throwing; calls reject until the path can be opened, then work', async () => {
    const temp = tempDirectory()
    afterThisTest(temp.remove)
    const dir = `${temp.dir}/not-yet`
    const store = createSqliteStore({ path: `${dir}/asks.db`, pollIntervalMs: 10 })
    afterThisTest(() => store.close())
    const seen: StoreChange[] = []
    store.watch((change) => seen.push(change))
    const ask = newAsk()
    await expect(store.admit(ask)).rejects.toThrow(/cannot open .*not-yet\/asks\.db/)
    await expect(store.pending()).rejects.toThrow(/cannot open/)
    mkdirSync(dir)
    expect((await store.admit(ask)).status).toBe('admitted')
    expect(await store.get(ask.askId)).toMatchObject({ state: 'pending' })
    await until(() => seen.some((c) => c.type === 'resync'), 'a resync once it opened')
  })

  it('rejects a file that is not a database, and opens the path once it is replaced', async () => {
    const temp = tempDirectory()
    afterThisTest(temp.remove)
    const path = temp.file()
    writeFileSync(path, 'this is not a database, but it is long enough to have a header'.repeat(20))
    const store = createSqliteStore({ path })
    afterThisTest(() => store.close())
    await expect(store.pending()).rejects.toThrow(/cannot open .*not a database/)
    unlinkSync(path)
    expect(await store.pending()).toEqual([])
  })

  it('refuses a file written by a newer schema, naming the versions', async () => {
    const { path, store } = setup()
    await store.pending()
    await store.close()
    const raw = rawConnection(path)
    raw.prepare('INSERT INTO migrations (version, applied_at) VALUES (99, 0)').run()
    raw.close()
    const later = createSqliteStore({ path })
    afterThisTest(() => later.close())
    await expect(later.pending()).rejects.toThrow(/schema version 99; this askseam reads version 2/)
  })
})

describe('rows of garbage inserted by hand', () => {
  const insert = (db: Database.Database, row: Record<string, unknown>): void => {
    db.transaction(() => {
      const { asks } = db.prepare('SELECT asks FROM revision').get() as { asks: number }
      db.prepare(
        `INSERT INTO asks (ask_id, ask_key, questions, agent_id, owner_seam_id, started_at,
           deadline, state, outcome, settled_at, revision, schema_version)
         VALUES (@askId, @key, @questions, NULL, 'seam-x', @startedAt, @deadline, @state,
           @outcome, @settledAt, @revision, @schemaVersion)`,
      ).run({
        key: null,
        deadline: null,
        outcome: null,
        settledAt: null,
        startedAt: 1,
        schemaVersion: 1,
        state: 'pending',
        questions: '[{"id":"q","question":"?"}]',
        ...row,
        revision: asks + 1,
      })
      db.prepare('UPDATE revision SET asks = ?').run(asks + 1)
    })()
  }

  it('fails only the calls about the bad ask, skips it in lists and reports it', async () => {
    const reported: CorruptRowError[] = []
    const { path, store } = setup({ onCorruptRow: (error) => reported.push(error) })
    const good = newAsk({ deadline: 10 })
    await store.admit(good)
    const raw = rawConnection(path)
    insert(raw, { askId: 'bad-json', questions: '{not json', key: 'bad-key', deadline: 5 })
    insert(raw, {
      askId: 'bad-outcome',
      state: 'settled',
      outcome: '{"status":"answered"}',
      settledAt: 3,
    })
    insert(raw, { askId: 'other-version', schemaVersion: 2 })
    insert(raw, { askId: 'bad-time', startedAt: 'yesterday' })

    await expect(store.get('bad-json')).rejects.toThrow(CorruptRowError)
    await expect(store.get('bad-json')).rejects.toThrow(/bad-json: questions is not valid JSON/)
    await expect(store.get('bad-outcome')).rejects.toThrow(/no answers array/)
    await expect(store.get('other-version')).rejects.toThrow(/schema version 2/)
    await expect(store.get('bad-time')).rejects.toThrow(/startedAt is not a time/)
    await expect(store.settle('bad-json', answered, 9)).rejects.toThrow(CorruptRowError)
    // The rejected settle left the row as it was.
    const row = raw.prepare("SELECT state FROM asks WHERE ask_id = 'bad-json'").get()
    expect(row).toEqual({ state: 'pending' })
    await expect(store.admit(newAsk({ key: 'bad-key' }))).rejects.toThrow(CorruptRowError)

    expect((await store.pending()).map((r) => r.askId)).toEqual([good.askId])
    expect(reported.map((e) => e.message).join('\n')).toMatch(/bad-json[\s\S]*other-version/)

    // One bad overdue row does not stop the others from ending.
    reported.length = 0
    const ended = await store.expireOverdue(100)
    expect(ended.map((r) => r.askId)).toEqual([good.askId])
    expect(ended[0]?.outcome).toEqual(timeoutOutcome(good))
    expect(reported.map((e) => e.message)).toEqual([expect.stringMatching(/bad-json/)])

    // Keyless asks of a dead owner: the good ones end, the bad ones are reported.
    const orphan = newAsk({ ownerSeamId: 'gone' })
    await store.admit(orphan)
    expect((await store.endOrphans(100)).map((r) => r.askId)).toEqual([orphan.askId])
    // The store keeps serving other asks.
    const later = newAsk()
    expect((await store.admit(later)).status).toBe('admitted')
    expect(await store.settle(later.askId, answered, 7)).toMatchObject({
      record: { outcome: answered },
    })
  })

  it('tells a watcher in another connection to resync when a changed row does not parse', async () => {
    const reported: CorruptRowError[] = []
    const { path, store } = setup({ onCorruptRow: (error) => reported.push(error) })
    await store.pending()
    const seen: StoreChange[] = []
    store.watch((change) => seen.push(change))
    const raw = rawConnection(path)
    insert(raw, { askId: 'bad-watch', questions: 'garbage' })
    await until(() => seen.some((c) => c.type === 'resync'), 'a resync')
    expect(seen.filter((c) => c.type !== 'resync')).toEqual([])
    expect(reported.map((e) => e.message)).toEqual([expect.stringMatching(/bad-watch/)])
  })

  it('says which column of a row is not what it should be', async () => {
    const { path, store } = setup({ onCorruptRow: () => undefined })
    await store.pending()
    const raw = rawConnection(path)
    // A BLOB keeps its type in a TEXT column; a JSON column must hold text.
    insert(raw, { askId: 'blob-questions', questions: Buffer.from('[]') })
    insert(raw, { askId: 'bad-json-outcome', state: 'settled', outcome: '{oops', settledAt: 3 })
    await expect(store.get('blob-questions')).rejects.toThrow(
      'ask blob-questions: questions is not text',
    )
    await expect(store.get('bad-json-outcome')).rejects.toThrow(
      'ask bad-json-outcome: outcome is not valid JSON',
    )
  })

  it('skips a malformed lease and keeps the live ones', async () => {
    const reported: CorruptRowError[] = []
    const { path, store } = setup({ onCorruptRow: (error) => reported.push(error) })
    await store.heartbeat({ seamId: 'ok', providerActive: true, expiresAt: 1_000 })
    const raw = rawConnection(path)
    // A BLOB seam id and a TEXT expiry keep their types (a text sorts above
    // every number, so that lease reads as live).
    raw
      .prepare(
        `INSERT INTO leases VALUES ('broken', 'yes', 1000, 1), ('old', 1, 1000, 9),
           (X'00', 1, 1000, 1), ('when', 1, 'soon', 1)`,
      )
      .run()
    expect(await store.leases(0)).toEqual([
      { seamId: 'ok', providerActive: true, expiresAt: 1_000 },
    ])
    expect(reported.map((e) => e.message).sort()).toEqual([
      'lease \u0000 is malformed',
      'lease broken is malformed',
      'lease old is malformed',
      'lease when is malformed',
    ])
  })
})

describe('the change feed', () => {
  it('reports another connection’s admission and settlement as themselves, not as resync', async () => {
    const { store, open } = setup()
    await store.pending()
    const other = open()
    const seen: StoreChange[] = []
    const unwatch = store.watch((change) => seen.push(change))
    const ask = newAsk()
    await other.admit(ask)
    await until(() => seen.length > 0, 'the admission')
    await other.settle(ask.askId, answered, 5)
    await until(() => seen.length > 1, 'the settlement')
    await other.heartbeat({ seamId: 'w', providerActive: true, expiresAt: Date.now() + 60_000 })
    await until(() => seen.length > 2, 'the lease')
    // A renewal that changes nothing a watcher counts is no news.
    await other.heartbeat({ seamId: 'w', providerActive: true, expiresAt: Date.now() + 90_000 })
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(seen.map((c) => c.type)).toEqual(['ask.admitted', 'ask.settled', 'leases.changed'])
    expect(seen[1]).toMatchObject({ record: { askId: ask.askId, outcome: answered } })
    unwatch()
  })

  it('reports this connection’s own writes once', async () => {
    const { store } = setup()
    await store.pending()
    const seen: StoreChange[] = []
    store.watch((change) => seen.push(change))
    const ask = newAsk({ deadline: 1 })
    await store.admit(ask)
    await store.expireOverdue(2)
    await store.heartbeat({ seamId: 's', providerActive: false, expiresAt: 5 })
    await store.release('s')
    const answeredAsk = newAsk()
    await store.admit(answeredAsk)
    await store.settle(answeredAsk.askId, answered, 3)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(seen.map((c) => c.type)).toEqual([
      'ask.admitted',
      'ask.settled',
      'leases.changed',
      'leases.changed',
      'ask.admitted',
      'ask.settled',
    ])
  })

  it('reports to another connection the asks a sweep ended', async () => {
    const { store, open } = setup()
    await store.pending()
    const sweeper = open()
    const overdue = newAsk({ askId: 'overdue', deadline: 1 })
    const orphan = newAsk({ askId: 'orphan', ownerSeamId: 'gone' })
    await sweeper.admit(overdue)
    await sweeper.admit(orphan)
    const seen: StoreChange[] = []
    store.watch((change) => seen.push(change))
    const settled = (askId: string) => () =>
      seen.some((c) => c.type === 'ask.settled' && c.record.askId === askId)
    await sweeper.expireOverdue(2)
    await until(settled('overdue'), 'the expiry')
    await sweeper.endOrphans(2)
    await until(settled('orphan'), 'the orphan ended')
  })

  it('closes idempotently and rejects calls after close', async () => {
    const { store } = setup()
    await store.pending()
    store.watch(() => undefined)
    await store.close()
    await store.close()
    await expect(store.pending()).rejects.toThrow(/closed/)
  })
})
