import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/protocol/index.js'
import { answered, describeStoreContract, newAsk } from '../stores/store-contract.js'

// Two handles on one memory store are the same object: in one process, seams
// share a memory store by sharing the instance.
describeStoreContract('memory', async () => {
  const store = createMemoryStore()
  return { store, reopen: async () => store }
})

describe('a closed memory store', () => {
  it('refuses every call, saying it is closed, and tells its watchers nothing more', async () => {
    const store = createMemoryStore()
    const seen: unknown[] = []
    store.watch((change) => seen.push(change))
    const ask = newAsk()
    await store.admit(ask)
    await new Promise((resolve) => setTimeout(resolve, 0))
    seen.length = 0
    await store.close()
    const closed = /the memory store is closed/
    await expect(store.admit(newAsk())).rejects.toThrow(closed)
    await expect(store.settle(ask.askId, answered, 1)).rejects.toThrow(closed)
    await expect(store.get(ask.askId)).rejects.toThrow(closed)
    await expect(store.pending()).rejects.toThrow(closed)
    await expect(store.expireOverdue(1)).rejects.toThrow(closed)
    await expect(store.endOrphans(1)).rejects.toThrow(closed)
    await expect(
      store.heartbeat({ seamId: 's', providerActive: true, expiresAt: 10 }),
    ).rejects.toThrow(closed)
    await expect(store.purge({ settledBefore: 10 })).rejects.toThrow(closed)
    expect(seen).toEqual([])
  })

  it('names the askId it already holds', async () => {
    const store = createMemoryStore()
    const ask = newAsk()
    await store.admit(ask)
    await expect(store.admit({ ...ask })).rejects.toThrow(
      `askId ${ask.askId} is already in the store`,
    )
  })

  it('tells its watchers when a lease is released, and not for a lease it does not hold', async () => {
    const store = createMemoryStore()
    await store.heartbeat({ seamId: 's', providerActive: true, expiresAt: 10 })
    const seen: unknown[] = []
    store.watch((change) => seen.push(change))
    await store.release('nobody')
    await store.release('s')
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(seen).toEqual([{ type: 'leases.changed' }])
  })
})
