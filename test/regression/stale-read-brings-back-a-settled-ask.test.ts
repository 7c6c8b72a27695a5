/**
 * Seen once in CI (`test/e2e/durable-postgres.test.ts`, a console listing an
 * ask twice): a seam that reads the store's pending asks, or one ask, sees
 * them as they were when the read began. An ask of another seam that settled
 * while the read was under way (its settlement heard on the change feed
 * first) was brought back when the read landed: listed in the seam's
 * `pending()` for good and shown to its provider again, where any answer was
 * refused. Now a read's asks that were heard settled since it began are left
 * out. The fix first counted only settlements heard on the feed, and CI saw
 * it again: the console's own presentation had committed the answer, and a
 * second read (the feed's resync as it began listening) landed before the
 * feed told of the settlement. An ask's presentation ending here counts as
 * hearing it settled.
 */
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/protocol/index.js'
import type { AskStore } from '../../src/protocol/index.js'
import { catchUpWithStore } from '../../src/protocol/internal.js'
import type { StoreChange } from '../../src/protocol/internal.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { deferred } from '../support/deferred.js'
import { settle } from '../support/settle.js'
import {
  answer,
  outcomeOf,
  presentingOn,
  questions,
  seamOn,
  useStoreSeams,
} from '../protocol/seam-store-fixtures.js'

useStoreSeams()

/** A memory store whose reads see it as it is when made, but answer only once `readsLand` resolves. */
function lateReads() {
  const inner = createMemoryStore()
  const readsLand = deferred()
  const store = Object.create(inner) as AskStore
  store.pending = () => {
    const read = inner.pending()
    return readsLand.promise.then(() => read)
  }
  store.get = (askId) => {
    const read = inner.get(askId)
    return readsLand.promise.then(() => read)
  }
  return { inner, store, readsLand }
}

/** A worker on `inner` asks, and its own provider shows the ask; the console seam starts on `store`. */
async function askedBeforeTheConsoleRead(inner: AskStore, store: AskStore) {
  const { seam: worker, provider } = presentingOn(inner)
  const asked = outcomeOf(worker.ask({ questions }))
  const shown = await provider.call(0)
  const console_ = seamOn(store)
  const there = createControllableProvider()
  console_.registerProvider(there)
  await settle()
  return { asked, shown, console_, there }
}

describe('a read begun before an ask settled, landing after', () => {
  it('the first read of pending asks does not list or show it again', async () => {
    const { inner, store, readsLand } = lateReads()
    const { asked, shown, console_, there } = await askedBeforeTheConsoleRead(inner, store)
    // The console's first read of pending asks is under way; the ask is answered meanwhile.
    shown.resolve(answer)
    await settle()
    expect(asked.value).toEqual(answer)
    readsLand.resolve()
    await settle()
    expect(console_.pending()).toEqual([])
    expect(there.calls).toHaveLength(0)
  })

  it('a catch-up read of the ask does not list or show it again', async () => {
    const { inner, store, readsLand } = lateReads()
    const { asked, shown, console_, there } = await askedBeforeTheConsoleRead(inner, store)
    readsLand.resolve()
    await settle()
    expect(there.calls.map((call) => call.request.askId)).toEqual([shown.request.askId])
    // Reads land late again: one of the ask begins, and the ask is answered meanwhile.
    const later = deferred()
    store.get = (askId) => {
      const read = inner.get(askId)
      return later.promise.then(() => read)
    }
    const caughtUp = catchUpWithStore(console_, [shown.request.askId])
    shown.resolve(answer)
    await settle()
    expect(asked.value).toEqual(answer)
    expect(there.last().request.signal.aborted).toBe(true)
    later.resolve()
    await caughtUp
    await settle()
    expect(console_.pending()).toEqual([])
    expect(there.calls).toHaveLength(1)
  })

  it('a read landing after this console committed the answer, before the feed told of it, does not list or show it again', async () => {
    const inner = createMemoryStore()
    // The console's view: its feed holds back settlements, and its reads after the first land late.
    const heldBack: StoreChange[] = []
    let listener: ((change: StoreChange) => void) | undefined
    const readsLand = deferred()
    let reads = 0
    const store = Object.create(inner) as AskStore
    store.watch = (listen) => {
      listener = listen
      return inner.watch((change) =>
        change.type === 'ask.settled' ? heldBack.push(change) : listen(change),
      )
    }
    store.pending = () => {
      const read = inner.pending()
      reads += 1
      return reads === 1 ? read : readsLand.promise.then(() => read)
    }
    const worker = seamOn(inner, { waitForProviderMs: 60_000 })
    const asked = outcomeOf(worker.ask({ questions }))
    await settle()
    const console_ = seamOn(store)
    const there = createControllableProvider()
    console_.registerProvider(there)
    const shown = await there.call(0)
    // The feed says it may have missed changes: the console reads the pending asks again.
    listener!({ type: 'resync' })
    expect(reads).toBe(2)
    shown.resolve(answer)
    await settle()
    expect(asked.value).toEqual(answer)
    expect(heldBack.map((change) => change.type)).toEqual(['ask.settled'])
    readsLand.resolve()
    await settle()
    expect(console_.pending()).toEqual([])
    expect(there.calls).toHaveLength(1)
  })
})
