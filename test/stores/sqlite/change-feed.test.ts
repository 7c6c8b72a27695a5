/**
 * The SQLite change feed: this connection's writes told once and only when
 * they changed something, another connection's writes never lost to ours,
 * resync when the file's history is unknown, and no polling once nobody
 * watches.
 */
import { existsSync, rmSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { StoreChange } from '../../../src/protocol/store/index.js'
import { answered, cancelled, newAsk } from '../store-contract.js'
import { rawConnection, setup, until } from './harness.js'
import { collectingUncaught } from '../../support/uncaught.js'

const label = (change: StoreChange): string =>
  'record' in change ? `${change.type} ${change.record.askId}` : change.type

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the change feed of one connection', () => {
  it('tells each of its own writes once, and nothing for a write that changed nothing', async () => {
    const { store, open } = setup()
    await store.pending()
    const other = open()
    await other.pending()
    const seen: StoreChange[] = []
    store.watch((change) => seen.push(change))

    const mine = newAsk({ askId: 'mine', key: 'mine' })
    await store.admit(mine)
    // None of these writes anything: no change to tell, no revision drawn.
    await store.admit(newAsk({ key: 'mine' }))
    await store.settle('no-such-ask', answered, 1)
    await store.expireOverdue(0)
    await store.endOrphans(0)
    await store.heartbeat({ seamId: 'me', providerActive: false, expiresAt: 10 })
    await store.heartbeat({ seamId: 'me', providerActive: false, expiresAt: 20 })
    await store.heartbeat({ seamId: 'me', providerActive: true, expiresAt: 20 })
    await store.release('nobody')
    await store.admit(newAsk({ askId: 'late', deadline: 1 }))
    await store.expireOverdue(2)
    await store.admit(newAsk({ askId: 'orphan' }))
    await store.endOrphans(100)
    await store.settle(mine.askId, answered, 5)
    await store.settle(mine.askId, cancelled, 6)
    // Another connection's write makes the poll read: it must find only that one.
    await other.admit(newAsk({ askId: 'theirs' }))
    await until(() => seen.some((c) => label(c) === 'ask.admitted theirs'), 'their admission')

    expect(seen.map(label)).toEqual([
      'ask.admitted mine',
      'leases.changed',
      'leases.changed',
      'ask.admitted late',
      'ask.settled late',
      'ask.admitted orphan',
      'ask.settled orphan',
      'ask.settled mine',
      'ask.admitted theirs',
    ])
  })

  it('does not lose another connection’s write committed just before one of its own', async () => {
    // A slow poll, so both writes land between two ticks.
    const { store, open } = setup({ pollIntervalMs: 200 })
    await store.pending()
    const other = open()
    await other.pending()
    const seen: StoreChange[] = []
    store.watch((change) => seen.push(change))

    await other.admit(newAsk({ askId: 'theirs' }))
    await store.admit(newAsk({ askId: 'mine' }))
    await until(() => seen.some((c) => label(c) === 'ask.admitted theirs'), 'their admission')
    expect(seen.map(label)).toContain('ask.admitted mine')

    await other.heartbeat({ seamId: 'them', providerActive: true, expiresAt: 10 })
    await store.heartbeat({ seamId: 'me', providerActive: true, expiresAt: 10 })
    await until(
      () => seen.filter((c) => c.type === 'leases.changed').length >= 2,
      'both lease changes',
    )
  })

  it('keeps the first watcher’s history when a second one starts watching', async () => {
    const { store, open } = setup({ pollIntervalMs: 200 })
    await store.pending()
    const other = open()
    await other.pending()
    const first: StoreChange[] = []
    store.watch((change) => first.push(change))
    await other.admit(newAsk({ askId: 'between' }))
    const second: StoreChange[] = []
    store.watch((change) => second.push(change))
    await until(() => first.some((c) => label(c) === 'ask.admitted between'), 'the admission')
  })

  it('keeps telling the watchers left when one stops', async () => {
    const { store, open } = setup()
    await store.pending()
    const other = open()
    const kept: StoreChange[] = []
    store.watch((change) => kept.push(change))
    const unwatch = store.watch(() => undefined)
    unwatch()
    await other.admit(newAsk({ askId: 'after' }))
    await until(() => kept.some((c) => label(c) === 'ask.admitted after'), 'the admission')
  })

  it('stops polling once nobody watches: a deleted file stays gone', async () => {
    const { path, store } = setup()
    await store.pending()
    const unwatch = store.watch(() => undefined)
    unwatch()
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true })
    // Ten poll intervals: a poll still running would open the path anew.
    await sleep(100)
    expect(existsSync(path)).toBe(false)
  })

  it('says resync once when watched before the file opened, then tells changes', async () => {
    const { store, open } = setup()
    const seen: StoreChange[] = []
    store.watch((change) => seen.push(change))
    await until(() => seen.length > 0, 'the first read')
    await open().admit(newAsk({ askId: 'next' }))
    await until(() => seen.some((c) => label(c) === 'ask.admitted next'), 'the admission')
    expect(seen.map(label)).toEqual(['resync', 'ask.admitted next'])
  })

  it('says resync at once when watched before the file opened, not a poll later', async () => {
    const { store } = setup({ pollIntervalMs: 60_000 })
    const seen: StoreChange[] = []
    store.watch((change) => seen.push(change))
    await until(() => seen.length > 0, 'the first read')
    expect(seen).toEqual([{ type: 'resync' }])
  })

  it('says resync when the file’s revision went back (a copy restored in place)', async () => {
    const { path, store } = setup()
    await store.admit(newAsk())
    await store.admit(newAsk())
    const seen: StoreChange[] = []
    store.watch((change) => seen.push(change))
    rawConnection(path).exec('UPDATE revision SET asks = 1')
    await until(() => seen.length > 0, 'a change')
    expect(seen).toEqual([{ type: 'resync' }])
  })

  it('tells every listener even when one throws, and lets the throw reach the process', async () => {
    const { store, open } = setup()
    await store.pending()
    const other = open()
    await collectingUncaught(async (uncaught) => {
      const seen: StoreChange[] = []
      store.watch(() => {
        throw new Error('listener fault')
      })
      store.watch((change) => seen.push(change))
      await store.admit(newAsk({ askId: 'own' }))
      await other.admit(newAsk({ askId: 'polled' }))
      await until(() => seen.some((c) => label(c) === 'ask.admitted polled'), 'the poll')
      expect(seen.map(label)).toEqual(['ask.admitted own', 'ask.admitted polled'])
      await until(() => uncaught.length >= 2, 'the listener faults')
      expect(uncaught).toEqual([new Error('listener fault'), new Error('listener fault')])
    })
  })
})
