import { describe, expect, it } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type { AskOutcome } from '../../src/protocol/store/index.js'
import { answered, cancelled, describeStoreContract, newAsk } from '../stores/store-contract.js'

// Two handles on one memory store are the same object: in one process, seams
// share a memory store by sharing the instance.
describeStoreContract('memory', {
  open: async () => {
    const store = createMemoryStore()
    return { store, reopen: async () => store }
  },
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
    await expect(store.history({ askId: ask.askId })).rejects.toThrow(closed)
    await expect(store.record(ask.askId, { type: 'presented', at: 2 })).rejects.toThrow(closed)
    await expect(store.votes(ask.askId)).rejects.toThrow(closed)
    const ledger = store.notifications!
    const event = { eventId: `${ask.askId}.pending`, askId: ask.askId }
    await expect(ledger.claim({ ...event, holder: 'n', now: 1, expiresAt: 2 })).rejects.toThrow(
      closed,
    )
    await expect(ledger.finish({ ...event, ending: 'delivered', at: 2 })).rejects.toThrow(closed)
    await expect(ledger.release(event.eventId, 'n')).rejects.toThrow(closed)
    await expect(ledger.unfinished()).rejects.toThrow(closed)
    expect(seen).toEqual([])
  })

  it('takes a vote at its ask’s very deadline as too late: the deadline is final', async () => {
    const store = createMemoryStore()
    const ask = newAsk({ deadline: 1_000 })
    await store.admit(ask)
    const by = { id: 'ann', via: 'web' }
    const result = await store.vote(ask.askId, { by, at: 1_000, required: 2, outcome: answered })
    expect(result).toMatchObject({ status: 'settled', won: false })
    expect(result?.status === 'settled' && result.record.outcome).toMatchObject({
      error: { code: 'ASK_TIMEOUT' },
    })
    expect(await store.votes(ask.askId)).toEqual([])
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

describe('what a memory store tells its watchers', () => {
  const changesOf = async (
    act: (store: ReturnType<typeof createMemoryStore>) => Promise<unknown>,
  ) => {
    const store = createMemoryStore()
    await store.heartbeat({ seamId: 's', providerActive: true, expiresAt: 10 })
    const ask = newAsk()
    await store.admit(ask)
    await store.settle(ask.askId, answered, 5)
    await new Promise((resolve) => setTimeout(resolve, 0))
    const seen: unknown[] = []
    store.watch((change) => seen.push(change))
    await act(store)
    await new Promise((resolve) => setTimeout(resolve, 0))
    return seen
  }

  it('says nothing of a heartbeat that changes no lease, and tells one that does', async () => {
    expect(
      await changesOf((store) =>
        store.heartbeat({ seamId: 's', providerActive: true, expiresAt: 10 }),
      ),
    ).toEqual([])
    expect(
      await changesOf((store) =>
        store.heartbeat({ seamId: 's', providerActive: false, expiresAt: 10 }),
      ),
    ).toEqual([{ type: 'leases.changed' }])
    expect(
      await changesOf((store) =>
        store.heartbeat({ seamId: 's', providerActive: true, expiresAt: 11 }),
      ),
    ).toEqual([{ type: 'leases.changed' }])
  })

  it('asks for no resync after a purge that deleted nothing', async () => {
    expect(await changesOf((store) => store.purge({ settledBefore: 5 }))).toEqual([])
    expect(await changesOf((store) => store.purge({ settledBefore: 6 }))).toEqual([
      { type: 'resync' },
    ])
  })
})

describe('what a memory store hands out', () => {
  it('a settled outcome frozen all the way down, and its own copy of what it was given', async () => {
    const store = createMemoryStore()
    const ask = newAsk()
    await store.admit(ask)
    const given: AskOutcome = {
      status: 'answered',
      answer: { answers: [{ id: 'db', selected: ['SQLite'] }] },
    }
    const settled = await store.settle(ask.askId, given, 5)
    given.answer.answers[0]!.selected.push('changed afterwards')
    const outcome = settled?.record.outcome
    if (outcome?.status !== 'answered') throw new Error('the store did not keep the answer')
    expect(Object.isFrozen(outcome)).toBe(true)
    expect(Object.isFrozen(outcome.answer.answers)).toBe(true)
    expect(Object.isFrozen(outcome.answer.answers[0]!.selected)).toBe(true)
    expect((await store.get(ask.askId))?.outcome).toEqual(answered)
  })
})

describe('what a memory store keeps of settled asks', () => {
  it('keeps the newest keepSettled settled asks without a key and forgets the older ones', async () => {
    const store = createMemoryStore({ keepSettled: 2 })
    const asks = [newAsk(), newAsk(), newAsk()]
    for (const ask of asks) {
      await store.admit(ask)
      await store.settle(ask.askId, answered, 5)
    }
    expect(await store.get(asks[0]!.askId)).toBeUndefined()
    expect((await store.get(asks[1]!.askId))?.state).toBe('settled')
    expect((await store.get(asks[2]!.askId))?.state).toBe('settled')
    // A second settlement of a forgotten ask finds nothing; of a kept one, the first outcome.
    expect(await store.settle(asks[0]!.askId, cancelled, 6)).toBeUndefined()
    expect(await store.settle(asks[2]!.askId, cancelled, 6)).toMatchObject({
      record: { outcome: answered },
      won: false,
    })
  })

  it('keeps settled asks with a key until purge, so the key replays its outcome', async () => {
    const store = createMemoryStore({ keepSettled: 0 })
    const keyed = newAsk({ key: 'deploy' })
    await store.admit(keyed)
    await store.settle(keyed.askId, answered, 5)
    const other = newAsk()
    await store.admit(other)
    await store.settle(other.askId, answered, 5)
    expect(await store.get(other.askId)).toBeUndefined()
    const again = await store.admit(newAsk({ key: 'deploy' }))
    expect(again).toMatchObject({ status: 'existing', record: { askId: keyed.askId } })
    expect(await store.purge({ settledBefore: 6 })).toBe(1)
    expect(await store.get(keyed.askId)).toBeUndefined()
  })

  it('forgets an ask whose key was given up, like any other without one', async () => {
    const store = createMemoryStore({ keepSettled: 0 })
    const keyed = newAsk({ key: 'deploy' })
    await store.admit(keyed)
    // Closing the seam is no answer from the human: the next ask with the key starts afresh.
    await store.settle(
      keyed.askId,
      { status: 'rejected', error: { code: 'SEAM_CLOSED', message: 'closed' } },
      5,
    )
    const fresh = newAsk({ key: 'deploy' })
    expect(await store.admit(fresh)).toMatchObject({ status: 'admitted' })
    expect(await store.get(keyed.askId)).toBeUndefined()
  })

  it('does not grow with every ask a long-running seam settles (keepSettled defaults to 1,000)', async () => {
    const store = createMemoryStore()
    const seam = createUserQuestions({ store })
    const ids: string[] = []
    seam.registerProvider({
      ask: async ({ askId, questions }) => {
        ids.push(askId)
        return { answers: questions.map(({ id }) => ({ id, selected: [] })) }
      },
    })
    for (let i = 0; i < 1_001; i++) await seam.ask({ questions: [{ id: 'q', question: 'Go on?' }] })
    expect(await store.get(ids[0]!)).toBeUndefined()
    expect((await store.get(ids[1]!))?.state).toBe('settled')
    expect((await store.get(ids[1_000]!))?.state).toBe('settled')
    await seam.close()
  })

  it.each([-1, 1.5, Number.NaN, Infinity, '10'])('refuses keepSettled %j', (keepSettled) => {
    expect(() => createMemoryStore({ keepSettled: keepSettled as number })).toThrow(
      new TypeError('createMemoryStore: keepSettled must be a whole number of asks, 0 or more'),
    )
  })
})
