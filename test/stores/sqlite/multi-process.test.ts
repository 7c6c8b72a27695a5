/**
 * Real processes on one file: racing admits with one key and settles of one
 * ask (exactly one winner), and children killed with SIGKILL mid-write
 * leaving the file consistent.
 */
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import type { AskStore } from '../../../src/protocol/store/index.js'
import { createSqliteStore } from '../../../src/stores/sqlite/index.js'
import { answered, newAsk } from '../store-contract.js'
import { startChild } from '../../support/processes.js'
import type { Child } from '../../support/processes.js'
import { tempDirectory } from './temp-file.js'

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url))

const cleanups: Array<() => void | Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const start = (path: string, mode: string, arg?: string): Child =>
  startChild(CHILD, [path, mode, ...(arg === undefined ? [] : [arg])], (kill) =>
    cleanups.push(kill),
  )

function storeOn(path: string): AskStore {
  const store = createSqliteStore({ path })
  cleanups.push(() => store.close())
  return store
}

async function race(children: Child[]): Promise<unknown[]> {
  await Promise.all(children.map((c) => c.next((line) => line === 'ready')))
  for (const child of children) child.send('go')
  return Promise.all(children.map(async (c) => JSON.parse(await c.next((l) => l.startsWith('{')))))
}

function integrity(path: string): unknown {
  const db = new Database(path, { readonly: true })
  try {
    return db.pragma('integrity_check', { simple: true })
  } finally {
    db.close()
  }
}

describe('several processes on one SQLite file', () => {
  it('admits one ask when three processes race the same key', async () => {
    const temp = tempDirectory()
    cleanups.push(temp.remove)
    const path = temp.file()
    await storeOn(path).pending()
    const results = (await race(
      [1, 2, 3].map(() => start(path, 'admit-race', 'shared-key')),
    )) as Array<{
      status: string
      askId: string
    }>
    expect(results.filter((r) => r.status === 'admitted')).toHaveLength(1)
    expect(new Set(results.map((r) => r.askId)).size).toBe(1)
    const pending = await storeOn(path).pending()
    expect(pending.map((r) => r.askId)).toEqual([results[0]?.askId])
  }, 60_000)

  it('settles an ask once when three processes race to answer it', async () => {
    const temp = tempDirectory()
    cleanups.push(temp.remove)
    const path = temp.file()
    const store = storeOn(path)
    const ask = newAsk()
    await store.admit(ask)
    const results = (await race(
      [1, 2, 3].map(() => start(path, 'settle-race', ask.askId)),
    )) as Array<{
      mine: string
      winner: string
      wrote: boolean
    }>
    const winners = new Set(results.map((r) => r.winner))
    expect(winners.size).toBe(1)
    const [winner] = winners
    expect(results.filter((r) => r.mine === winner)).toHaveLength(1)
    // The process whose write committed is told so, and only that one.
    expect(results.filter((r) => r.wrote).map((r) => r.mine)).toEqual([winner])
    const held = await store.get(ask.askId)
    expect(held?.outcome).toMatchObject({ answer: { answers: [{ custom: winner }] } })
  }, 60_000)

  it('keeps every committed ask and a consistent file when a writer is killed mid-stream', async () => {
    const temp = tempDirectory()
    cleanups.push(temp.remove)
    const path = temp.file()
    const store = storeOn(path)
    await store.pending()
    const writer = start(path, 'admit-loop')
    await writer.next((line) => line === 'ready')
    // Let it commit a few asks, then kill it wherever it is (most of its time is inside a transaction).
    for (let i = 0; i < 5; i += 1) await writer.next((line) => line.startsWith('{'))
    writer.process.kill('SIGKILL')
    await writer.exited
    const committed = writer.lines
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { committed: string }).committed)
    const held = new Set((await store.pending()).map((r) => r.askId))
    for (const askId of committed) expect(held.has(askId)).toBe(true)
    expect(integrity(path)).toBe('ok')
    // The lock died with the process: the next write goes straight through.
    const after = newAsk()
    expect((await store.admit(after)).status).toBe('admitted')
    expect(await store.settle(after.askId, answered, 1)).toMatchObject({
      record: { outcome: answered },
    })
  }, 60_000)

  it('drops the open transaction of a process killed while holding the write lock', async () => {
    const temp = tempDirectory()
    cleanups.push(temp.remove)
    const path = temp.file()
    const store = createSqliteStore({ path, busyTimeoutMs: 200 })
    cleanups.push(() => store.close())
    const before = newAsk()
    await store.admit(before)
    const holder = start(path, 'hold-transaction')
    await holder.next((line) => line === 'holding')
    await expect(store.admit(newAsk())).rejects.toThrow(/locked by another writer/)
    holder.process.kill('SIGKILL')
    await holder.exited
    const after = newAsk()
    expect((await store.admit(after)).status).toBe('admitted')
    expect((await store.pending()).map((r) => r.askId)).toEqual([before.askId, after.askId])
    expect(integrity(path)).toBe('ok')
  }, 60_000)
})
