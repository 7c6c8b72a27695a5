/**
 * The SQLite store's own promises beyond the contract: errors that name the
 * call and keep the driver's cause, paths that are not files, a file replaced
 * under it, a lock met while opening, the order of a sweep's result, and the
 * default report of a corrupt row.
 */
import { existsSync, renameSync, rmSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { AskStore, StoreChange } from '../../../src/protocol/store/index.js'
import { createSqliteStore } from '../../../src/stores/sqlite/index.js'
import { answered, newAsk } from '../store-contract.js'
import { captureWarnings, withCode } from '../../support/warnings.js'
import { afterThisTest, rawConnection, setup, until } from './harness.js'

async function rejection(call: Promise<unknown>): Promise<Error> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(Error)
  return error as Error
}

describe('a call that fails', () => {
  it('names itself, keeps the driver error as its cause, and keeps the connection', async () => {
    const { path, store, open } = setup()
    const ask = newAsk()
    await store.admit(ask)
    const seen: StoreChange[] = []
    store.watch((change) => seen.push(change))
    const raw = rawConnection(path)
    raw.exec('ALTER TABLE asks RENAME TO asks_away; ALTER TABLE leases RENAME TO leases_away')

    const calls: Record<string, () => Promise<unknown>> = {
      admit: () => store.admit(newAsk()),
      settle: () => store.settle(ask.askId, answered, 1),
      get: () => store.get(ask.askId),
      pending: () => store.pending(),
      expireOverdue: () => store.expireOverdue(1),
      endOrphans: () => store.endOrphans(1),
      heartbeat: () => store.heartbeat({ seamId: 's', providerActive: true, expiresAt: 9 }),
      release: () => store.release('s'),
      leases: () => store.leases(0),
      purge: () => store.purge({ settledBefore: 1 }),
    }
    for (const [name, call] of Object.entries(calls)) {
      const error = await rejection(call())
      expect(error.message).toMatch(new RegExp(`^askseam/sqlite: ${name} failed: no such table`))
      expect(error.cause).toMatchObject({ code: 'SQLITE_ERROR' })
    }

    // An error in a statement is not a broken file: the connection stays,
    // so watchers are not told to resync.
    raw.exec('ALTER TABLE asks_away RENAME TO asks; ALTER TABLE leases_away RENAME TO leases')
    expect((await store.pending()).map((r) => r.askId)).toEqual([ask.askId])
    const later = newAsk()
    await open().admit(later)
    const sawLater = (c: StoreChange) => c.type === 'ask.admitted' && c.record.askId === later.askId
    await until(() => seen.some(sawLater), 'the other connection’s admission')
    expect(seen.filter((c) => c.type === 'resync')).toEqual([])
  })

  it('keeps SQLITE_BUSY as the cause once the busy timeout is over', async () => {
    const { path, store } = setup({ busyTimeoutMs: 0 })
    await store.pending()
    const holder = rawConnection(path)
    holder.exec('BEGIN EXCLUSIVE')
    const error = await rejection(
      store.heartbeat({ seamId: 's', providerActive: true, expiresAt: 9 }),
    )
    expect(error.message).toMatch(
      /^askseam\/sqlite: heartbeat failed: .* stayed locked .*SQLITE_BUSY/,
    )
    expect(error.cause).toMatchObject({ code: expect.stringMatching(/^SQLITE_BUSY/) })
  })

  it('keeps the reason a path cannot be opened as the cause', async () => {
    const { temp } = setup()
    const store = createSqliteStore({ path: `${temp.dir}/missing/asks.db` })
    afterThisTest(() => store.close())
    const error = await rejection(store.pending())
    expect(error.message).toMatch(/^askseam\/sqlite: cannot open .*missing\/asks\.db/)
    expect(error.cause).toMatchObject({
      message: expect.stringMatching(/directory does not exist/),
    })
  })
})

describe('opening the file', () => {
  it('waits out a lock another writer holds while the store first opens the file', async () => {
    const { path, store, open } = setup({ busyTimeoutMs: 5_000 })
    await store.pending()
    const later = open()
    const holder = rawConnection(path)
    holder.exec('BEGIN IMMEDIATE')
    setTimeout(() => holder.exec('COMMIT'), 150)
    const ask = newAsk()
    expect((await later.admit(ask)).status).toBe('admitted')
    expect(await store.get(ask.askId)).toMatchObject({ state: 'pending' })
  })

  it('opens one connection for calls that race to open the file, and closes it', async () => {
    const { path, store } = setup()
    await Promise.all([store.get('a'), store.pending(), store.leases(0)])
    await store.close()
    // The last connection to close checkpoints and removes the WAL file.
    expect(existsSync(`${path}-wal`)).toBe(false)
  })

  it('keeps a private in-memory database for ":memory:" and ""', async () => {
    for (const path of [':memory:', '']) {
      const store: AskStore = createSqliteStore({ path })
      afterThisTest(() => store.close())
      const ask = newAsk()
      await store.admit(ask)
      expect(await store.get(ask.askId)).toMatchObject({ state: 'pending' })
      expect((await store.pending()).map((r) => r.askId)).toEqual([ask.askId])
    }
  })

  it('rejects the call that finds its file replaced by another, then reads the new one', async () => {
    const { temp, path, store } = setup()
    await store.admit(newAsk())
    const replacementPath = temp.file('replacement.db')
    const replacement = createSqliteStore({ path: replacementPath })
    const kept = newAsk()
    await replacement.admit(kept)
    await replacement.close()
    for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true })
    renameSync(replacementPath, path)

    await expect(store.pending()).rejects.toThrow(/deleted or replaced while open/)
    expect((await store.pending()).map((r) => r.askId)).toEqual([kept.askId])
  })
})

describe('a sweep', () => {
  it('resolves with the asks it ended oldest first, as pending() lists them', async () => {
    const { store } = setup()
    // Admitted out of order, two with one startedAt: only the sort orders them.
    const asks = [
      newAsk({ askId: 'c', startedAt: 3, deadline: 1 }),
      newAsk({ askId: 'b', startedAt: 1, deadline: 1 }),
      newAsk({ askId: 'a', startedAt: 1, deadline: 1 }),
      newAsk({ askId: 'd', startedAt: 2, deadline: 1 }),
    ]
    for (const ask of asks) await store.admit(ask)
    expect((await store.pending()).map((r) => r.askId)).toEqual(['a', 'b', 'd', 'c'])
    expect((await store.expireOverdue(5)).map((r) => r.askId)).toEqual(['a', 'b', 'd', 'c'])

    for (const ask of asks) await store.admit({ ...ask, askId: `orphan-${ask.askId}` })
    expect((await store.endOrphans(5)).map((r) => r.askId)).toEqual([
      'orphan-a',
      'orphan-b',
      'orphan-d',
      'orphan-c',
    ])
  })
})

describe('a corrupt row, without onCorruptRow', () => {
  it('is told as a process warning, once per distinct fault', async () => {
    const { temp } = setup()
    const path = temp.file('warned.db')
    const store = createSqliteStore({ path })
    afterThisTest(() => store.close())
    await store.admit(newAsk())
    const raw = rawConnection(path)
    raw
      .prepare(
        `INSERT INTO asks (ask_id, questions, owner_seam_id, started_at, state, revision, schema_version)
         VALUES ('warned-ask', '{bad', 'seam-x', 1, 'pending', 0, 1)`,
      )
      .run()
    const warnings = captureWarnings(withCode('ASKSEAM_CORRUPT_ROW'))

    await store.pending()
    await store.pending()
    await new Promise((resolve) => setImmediate(resolve))
    expect(warnings.map((w) => w.name)).toEqual(['AskseamStore'])
    expect(warnings.map((w) => w.message)).toEqual([
      'askseam/sqlite skipped a corrupt row: ask warned-ask: questions is not valid JSON',
    ])
  })
})

describe('§10 a deadline is final, at the write', () => {
  it('an answer offered before the deadline whose write waits on the lock past it loses to ASK_TIMEOUT', async () => {
    const { path, store } = setup({ busyTimeoutMs: 5_000 })
    const offeredAt = Date.now()
    const ask = { ...newAsk(), deadline: offeredAt + 150 }
    await store.admit(ask)
    const holder = rawConnection(path)
    holder.exec('BEGIN IMMEDIATE')
    const settling = store.settle(ask.askId, answered, offeredAt)
    // The lock goes only once the deadline has passed.
    await new Promise((resolve) => setTimeout(resolve, 400))
    holder.exec('COMMIT')
    const result = await settling
    expect(result?.won).toBe(false)
    expect(result?.record.outcome).toMatchObject({ error: { code: 'ASK_TIMEOUT' } })
    expect(result?.record.settledAt).toBeGreaterThanOrEqual(ask.deadline)
  })
})
