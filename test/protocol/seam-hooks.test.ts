import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/protocol/index.js'
import type { AskStore } from '../../src/protocol/index.js'
import { catchUpWithStore } from '../../src/protocol/seam-hooks.js'
import { AskEndReasons } from '../../src/vocabulary/index.js'
import { settle } from '../support/settle.js'
import { presentingOn, questions, seamOn, useStoreSeams } from './seam-store-fixtures.js'

/*
 * `catchUpWithStore` (src/protocol/seam-hooks.ts): a layer that learnt from
 * the store that an ask changed (an MCP round on an instance that has not
 * heard of it yet) makes a seam read it now, not when its change feed
 * brings it.
 */

useStoreSeams()

/** A memory store whose change feed tells this seam nothing: only a catch-up reads it. */
function deafStore(inner: AskStore) {
  const store = Object.create(inner) as AskStore
  store.watch = () => () => undefined
  return store
}

/** Another seam's ask, admitted through `inner` where the deaf seam cannot hear of it. */
async function askedElsewhere(inner: AskStore) {
  const asker = seamOn(inner, { waitForProviderMs: 60_000 })
  void asker.ask({ questions, key: 'elsewhere' }).catch(() => undefined)
  await settle()
  const [pending] = await inner.pending()
  return pending!.askId
}

describe('§10 catching up with the store (catchUpWithStore)', () => {
  it('shows another seam’s pending ask the feed has not brought', async () => {
    const inner = createMemoryStore()
    const { seam, provider } = presentingOn(deafStore(inner))
    const askId = await askedElsewhere(inner)
    await settle()
    expect(provider.calls).toHaveLength(0)

    await catchUpWithStore(seam, [askId])
    await settle()
    expect(provider.calls.map((call) => call.request.askId)).toEqual([askId])
  })

  it('takes down a shown ask the store holds settled, with settled-elsewhere', async () => {
    const inner = createMemoryStore()
    const { seam, provider } = presentingOn(deafStore(inner))
    const askId = await askedElsewhere(inner)
    await catchUpWithStore(seam, [askId])
    await settle()
    const { signal } = provider.last().request
    const answered = {
      status: 'answered' as const,
      answer: { answers: [] },
      by: [{ id: 'alice', via: 'web' as const }],
    }
    await inner.settle(askId, answered, Date.now())
    await settle()
    expect(signal.aborted).toBe(false)

    await catchUpWithStore(seam, [askId])
    await settle()
    expect(signal.aborted).toBe(true)
    expect(signal.reason).toMatchObject({
      code: 'ASK_ABORTED',
      details: { reason: AskEndReasons.SETTLED_ELSEWHERE },
    })
  })

  it('does nothing for an ask the store does not hold, and resolves', async () => {
    const { seam, provider } = presentingOn(createMemoryStore())
    await expect(catchUpWithStore(seam, ['no-such-ask'])).resolves.toBeUndefined()
    await settle()
    expect(provider.calls).toHaveLength(0)
    expect(seam.pending()).toEqual([])
  })

  it('leaves a read that fails to the feed: it resolves, and the other reads still count', async () => {
    const inner = createMemoryStore()
    const store = deafStore(inner)
    const { seam, provider } = presentingOn(store)
    const askId = await askedElsewhere(inner)
    store.get = (id) => (id === 'unreadable' ? Promise.reject(new Error('locked')) : inner.get(id))

    await expect(catchUpWithStore(seam, ['unreadable', askId])).resolves.toBeUndefined()
    await settle()
    expect(provider.calls.map((call) => call.request.askId)).toEqual([askId])
  })

  it('reads nothing for a closed seam, or for an object no seam made', async () => {
    const inner = createMemoryStore()
    const store = deafStore(inner)
    let reads = 0
    store.get = (id) => {
      reads++
      return inner.get(id)
    }
    const { seam } = presentingOn(store)
    const askId = await askedElsewhere(inner)
    await seam.close()

    await expect(catchUpWithStore(seam, [askId])).resolves.toBeUndefined()
    await expect(catchUpWithStore({ ...seam }, [askId])).resolves.toBeUndefined()
    expect(reads).toBe(0)
  })
})
