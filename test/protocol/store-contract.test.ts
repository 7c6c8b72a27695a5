/**
 * The public store contract as a harness (src/protocol/store/contract.ts):
 * what it cleans up, which failure it reports, and which checks it hands
 * out. That askseam's stores pass it is proved by the store tests.
 */
import { AssertionError } from 'node:assert'
import { describe, expect, it } from 'vitest'
import { createMemoryStore, storeContract } from '../../src/protocol/store/index.js'
import type { AskStore, StoreCheck } from '../../src/protocol/store/index.js'

/** A handle on `store` whose close is counted; `lying` claims every settlement for its writer. */
function handleOn(store: AskStore, closed: AskStore[], lying: boolean): AskStore {
  const handle: AskStore = {
    ...store,
    async settle(askId, outcome, settledAt) {
      const result = await store.settle(askId, outcome, settledAt)
      return lying && result !== undefined ? { ...result, won: true } : result
    },
    async close() {
      closed.push(handle)
    },
  }
  return handle
}

function storage({ lying = false, destroyFails = false } = {}) {
  const closed: AskStore[] = []
  let destroyed = 0
  const checks = storeContract({
    open: async () => {
      const store = createMemoryStore()
      return {
        store: handleOn(store, closed, lying),
        reopen: async () => handleOn(store, closed, lying),
        destroy: async () => {
          destroyed += 1
          if (destroyFails) throw new Error('the storage would not go')
        },
      }
    },
  })
  const named = (name: string): StoreCheck => {
    const check = checks.find((each) => each.name.startsWith(name))
    if (check === undefined) throw new Error(`no check named ${name}`)
    return check
  }
  return { named, closed, destroyed: () => destroyed }
}

const WON_ONCE = 'tells only the writer that won'

describe('storeContract', () => {
  it('closes every handle a check opened and destroys the storage, whether it passed or not', async () => {
    const honest = storage()
    await honest.named(WON_ONCE).run()
    expect(new Set(honest.closed).size).toBe(2)
    expect(honest.destroyed()).toBe(1)

    const lying = storage({ lying: true })
    await expect(lying.named(WON_ONCE).run()).rejects.toBeInstanceOf(AssertionError)
    expect(new Set(lying.closed).size).toBe(2)
    expect(lying.destroyed()).toBe(1)
  })

  it('reports the check’s own failure over a failure to clean up, and fails a passing check that cannot', async () => {
    const lying = storage({ lying: true, destroyFails: true })
    await expect(lying.named(WON_ONCE).run()).rejects.toBeInstanceOf(AssertionError)

    const honest = storage({ destroyFails: true })
    const failure = await honest
      .named(WON_ONCE)
      .run()
      .then(
        () => undefined,
        (error: unknown) => error,
      )
    expect(failure).toBeInstanceOf(AggregateError)
    expect((failure as AggregateError).errors).toEqual([new Error('the storage would not go')])
  })

  it('checks the deadline to the millisecond only for a store that checks it against settledAt', () => {
    const open = () => Promise.reject(new Error('not opened'))
    const names = (checks: StoreCheck[]) => checks.map((check) => check.name)
    const bySettledAt = names(storeContract({ open }))
    const byStoreClock = names(storeContract({ open, deadlineClock: 'store' }))
    expect(bySettledAt).toEqual(names(storeContract({ open, deadlineClock: 'settledAt' })))
    expect(bySettledAt.filter((name) => !byStoreClock.includes(name))).toEqual([
      'checks the deadline against settledAt, to the millisecond, whatever the time is now',
    ])
    expect(byStoreClock.every((name) => bySettledAt.includes(name))).toBe(true)
    // A caller without the types may pass anything.
    const unknownClock: string = 'wall'
    expect(() => storeContract({ open, deadlineClock: unknownClock as 'store' })).toThrow(TypeError)
  })
})
