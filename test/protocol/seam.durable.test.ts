import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { UserQuestionError, createMemoryStore } from '../../src/protocol/index.js'
import type { AskStore } from '../../src/protocol/index.js'
import { CorruptRowError } from '../../src/protocol/store/index.js'
import type { AdmitResult, StoreChange } from '../../src/protocol/store/index.js'
import { dropSeamForTesting } from '../../src/protocol/seam.js'
import {
  HEARTBEAT_MS,
  LEASE_MS,
  MAX_COMMIT_RETRIES,
  MAX_RETRY_DELAY_MS,
} from '../../src/machines/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { settle } from '../support/settle.js'
import {
  answer,
  durableMemoryStore,
  fleetWithConsole,
  lateReadsStore,
  outcomeOf,
  presentingOn,
  questions,
  seamOn,
  useStoreSeams,
} from './seam-store-fixtures.js'

/** DESIGN §10 on the memory store: close, crashes, store failures, purges. */

useStoreSeams()

describe('§10 close and crashes', () => {
  it('close() rejects this seam’s callers, leaves a keyed ask pending and answerable elsewhere, ends a keyless one, and keeps the store open', async () => {
    const { store, worker, there } = await fleetWithConsole()
    const keyed = worker.ask({ questions, key: 'resume-me' })
    const keyless = worker.ask({ questions })
    await settle()
    const keyedId = there.calls[0]!.request.askId
    const keylessId = there.calls[1]!.request.askId
    await worker.close()
    await expect(keyed).rejects.toMatchObject({ code: 'SEAM_CLOSED' })
    await expect(keyless).rejects.toMatchObject({ code: 'SEAM_CLOSED' })
    expect((await store.get(keyedId))?.state).toBe('pending')
    expect((await store.get(keylessId))?.outcome).toMatchObject({
      status: 'rejected',
      error: { code: 'SEAM_CLOSED' },
    })
    expect(there.calls[0]!.request.signal.aborted).toBe(false)
    const resumed = seamOn(store).ask({ questions, key: 'resume-me' })
    await settle()
    there.calls[0]!.resolve(answer)
    await expect(resumed).resolves.toEqual(answer)
  })

  it('a dropped seam’s keyless ask ends owner-gone once its lease lapses; its keyed ask stays pending', async () => {
    const { store, worker } = await fleetWithConsole()
    void worker.ask({ questions })
    void worker.ask({ questions, key: 'kept' })
    await settle()
    const listed = await store.pending()
    const keyless = listed.find((each) => each.key === undefined)
    const keyed = listed.find((each) => each.key === 'kept')
    dropSeamForTesting(worker)
    await settle()
    await vi.advanceTimersByTimeAsync(LEASE_MS + 1)
    await settle()
    expect((await store.get(keyless!.askId))?.outcome).toMatchObject({
      status: 'rejected',
      error: { code: 'ASK_ABORTED', details: { reason: 'owner-gone' } },
    })
    expect((await store.get(keyed!.askId))?.state).toBe('pending')
  })

  it('three dropped seams: each one’s keyless ask ends owner-gone when its own lease lapses, the earliest first', async () => {
    const { store, there } = await fleetWithConsole()
    // The seam dropped first holds neither the oldest lease nor the newest: the earliest lapse is found, not the first or the last read.
    const [older, early, newer] = [seamOn(store), seamOn(store), seamOn(store)]
    for (const seam of [older, early, newer]) void seam.ask({ questions })
    await settle()
    const [olderAsk, earlyAsk, newerAsk] = there.calls.map((call) => call.request.askId)
    const state = async (askId: string | undefined) => (await store.get(askId!))?.state
    dropSeamForTesting(early)
    await vi.advanceTimersByTimeAsync(5_000)
    dropSeamForTesting(older)
    dropSeamForTesting(newer)
    await settle()
    await vi.advanceTimersByTimeAsync(LEASE_MS - 5_000 + 1)
    await settle()
    expect(await state(earlyAsk)).toBe('settled')
    expect([await state(olderAsk), await state(newerAsk)]).toEqual(['pending', 'pending'])
    await vi.advanceTimersByTimeAsync(5_000)
    await settle()
    for (const askId of [olderAsk, newerAsk]) {
      expect((await store.get(askId!))?.outcome).toMatchObject({
        error: { code: 'ASK_ABORTED', details: { reason: 'owner-gone' } },
      })
    }
  })

  it('on a durable store a dropped seam’s keyless ask ends owner-gone at a live seam’s first heartbeat after its lease lapses', async () => {
    const { store, worker, there } = await fleetWithConsole(durableMemoryStore())
    void worker.ask({ questions }).catch(() => undefined)
    await settle()
    const shown = there.last().request
    dropSeamForTesting(worker)
    // Its last lease, written as it started, is live for LEASE_MS.
    await vi.advanceTimersByTimeAsync(LEASE_MS - 1)
    await settle()
    expect((await store.get(shown.askId))?.state).toBe('pending')
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS)
    await settle()
    expect((await store.get(shown.askId))?.outcome).toMatchObject({
      status: 'rejected',
      error: { code: 'ASK_ABORTED', details: { reason: 'owner-gone' } },
    })
    expect(shown.signal.aborted).toBe(true)
    expect((shown.signal.reason as UserQuestionError).details).toEqual({ reason: 'owner-gone' })
  })

  it('a dropped seam closed afterwards resolves, and sends its stopped fleet nothing (XState would warn)', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    onTestFinished(() => warn.mockRestore())
    for (const store of [createMemoryStore(), durableMemoryStore()]) {
      const seam = seamOn(store)
      await settle()
      dropSeamForTesting(seam)
      await settle()
      await seam.close()
    }
    expect(warn.mock.calls).toEqual([])
  })

  it('any live seam ends an overdue ask ASK_TIMEOUT with the original deadline, and an answer before it wins', async () => {
    const { store, worker, there } = await fleetWithConsole()
    void worker.ask({ questions, key: 'late', timeoutMs: 10_000 })
    void worker.ask({ questions, key: 'early', timeoutMs: 10_000 })
    await settle()
    const listed = await store.pending()
    const late = listed.find((each) => each.key === 'late')
    const early = listed.find((each) => each.key === 'early')
    dropSeamForTesting(worker)
    there.calls[1]!.resolve(answer)
    await vi.advanceTimersByTimeAsync(10_000)
    await settle()
    expect((await store.get(late!.askId))?.outcome).toMatchObject({
      status: 'rejected',
      error: { code: 'ASK_TIMEOUT', details: { deadline: late!.deadline } },
    })
    expect((await store.get(early!.askId))?.outcome).toEqual({ status: 'answered', answer })
    expect(there.calls[0]!.request.signal.aborted).toBe(true)
  })
})

describe('§10 deadlines of another seam’s asks', () => {
  it('a live seam without a provider ends each overdue ask of a dropped seam at its own deadline, one after another', async () => {
    const store = createMemoryStore()
    const worker = seamOn(store, { waitForProviderMs: 60_000 })
    const watcher = seamOn(store)
    // Not asked in the order of their deadlines: the earliest is found, neither the first nor the last.
    const deadlines = { at20: 20_000, at5: 5_000, at10: 10_000, at15: 15_000 }
    for (const [key, timeoutMs] of Object.entries(deadlines))
      void worker.ask({ questions, key, timeoutMs })
    void worker.ask({ questions, key: 'open', timeoutMs: Infinity })
    await settle()
    const byKey = new Map((await store.pending()).map((each) => [each.key, each]))
    dropSeamForTesting(worker)
    await settle()
    type Key = keyof typeof deadlines
    /** The keys whose ask has ended, earliest deadline first. */
    const ended = async () => {
      const keys: Key[] = []
      for (const key of Object.keys(deadlines) as Key[]) {
        if ((await store.get(byKey.get(key)!.askId))?.outcome !== undefined) keys.push(key)
      }
      return keys.sort((a, b) => deadlines[a] - deadlines[b])
    }
    await vi.advanceTimersByTimeAsync(5_000)
    await settle()
    expect(await ended()).toEqual(['at5'])
    await vi.advanceTimersByTimeAsync(5_000)
    await settle()
    expect(await ended()).toEqual(['at5', 'at10'])
    await vi.advanceTimersByTimeAsync(5_000)
    await settle()
    expect(await ended()).toEqual(['at5', 'at10', 'at15'])
    await vi.advanceTimersByTimeAsync(5_000)
    await settle()
    expect(await ended()).toEqual(['at5', 'at10', 'at15', 'at20'])
    for (const key of Object.keys(deadlines)) {
      expect((await store.get(byKey.get(key)!.askId))?.outcome).toMatchObject({
        error: { code: 'ASK_TIMEOUT' },
      })
    }
    expect(watcher.pending().map(({ askId }) => askId)).toEqual([byKey.get('open')!.askId])
  })

  it('a sweep that fails is tried again a beat later, once, not at once and not never', async () => {
    const store = createMemoryStore()
    const worker = seamOn(store, { waitForProviderMs: 60_000 })
    let sweeps = 0
    const watcher = seamOn(
      Object.assign(Object.create(store) as AskStore, {
        expireOverdue(now: number) {
          sweeps += 1
          return sweeps === 1
            ? Promise.reject(new Error('database is locked'))
            : store.expireOverdue(now)
        },
      }),
    )
    void worker.ask({ questions, key: 'overdue', timeoutMs: 1_000 })
    await settle()
    const [ask] = await store.pending()
    dropSeamForTesting(worker)
    await vi.advanceTimersByTimeAsync(1_000)
    await settle()
    expect(sweeps).toBe(1)
    expect((await store.get(ask!.askId))?.state).toBe('pending')
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS - 1)
    expect(sweeps).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    await settle()
    expect(sweeps).toBe(2)
    expect((await store.get(ask!.askId))?.outcome).toMatchObject({ error: { code: 'ASK_TIMEOUT' } })
    await vi.advanceTimersByTimeAsync(3 * HEARTBEAT_MS)
    expect(sweeps).toBe(2)
    expect(watcher.pending()).toEqual([])
  })

  it('on a durable store a seam that could not read the pending asks as it started still ends an overdue one at its next heartbeat', async () => {
    const inner = durableMemoryStore()
    const deadline = Date.now() + 1_000
    // Keyed: its owner's lapse alone would not end it.
    await inner.admit({
      askId: 'unread',
      key: 'left-behind',
      questions,
      ownerSeamId: 'a process long gone',
      startedAt: Date.now(),
      deadline,
    })
    let unreachable = true
    const store = Object.create(inner) as AskStore
    store.pending = () => {
      if (!unreachable) return inner.pending()
      unreachable = false
      return Promise.reject(new Error('connection refused'))
    }
    seamOn(store)
    await settle()
    expect(unreachable).toBe(false)
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS)
    await settle()
    expect((await inner.get('unread'))?.outcome).toMatchObject({
      status: 'rejected',
      error: { code: 'ASK_TIMEOUT', details: { deadline } },
    })
  })

  it('a seam that starts after another seam’s ask is overdue never shows it, and ends it ASK_TIMEOUT at once', async () => {
    const store = createMemoryStore()
    await store.admit({
      askId: 'overdue',
      key: 'left-behind',
      questions,
      ownerSeamId: 'a process long gone',
      startedAt: Date.now() - 10_000,
      deadline: Date.now() - 1_000,
    })
    const { provider } = presentingOn(store)
    await settle()
    expect(provider.calls).toHaveLength(0)
    expect((await store.get('overdue'))?.outcome).toMatchObject({
      status: 'rejected',
      error: { code: 'ASK_TIMEOUT' },
    })
  })

  it('no sweep stays armed once the last of another seam’s asks has ended', async () => {
    const { worker, console_, there } = await fleetWithConsole()
    const asked = worker.ask({ questions, timeoutMs: 60_000 })
    ;(await there.call(0)).resolve(answer)
    await expect(asked).resolves.toEqual(answer)
    await settle()
    await worker.close()
    await settle()
    expect(console_.pending()).toEqual([])
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('§10 a closed seam and other seams’ asks', () => {
  it('lists none of them once closed', async () => {
    const store = createMemoryStore()
    const worker = seamOn(store, { waitForProviderMs: 60_000 })
    const watcher = seamOn(store)
    outcomeOf(worker.ask({ questions, key: 'seen' }))
    await settle()
    expect(watcher.pending()).toHaveLength(1)
    await watcher.close()
    expect(watcher.pending()).toEqual([])
  })

  it('neither shows nor lists an ask the store was handing out as it closed', async () => {
    const store = createMemoryStore()
    // Told of the admission before the watcher is, in the same delivery: it closes the watcher.
    store.watch((change) => {
      if (change.type === 'ask.admitted') void watcher.close()
    })
    const { seam: watcher, provider } = presentingOn(store)
    const worker = seamOn(store, { waitForProviderMs: 60_000 })
    await settle()
    outcomeOf(worker.ask({ questions, key: 'handed-out' }))
    await settle()
    expect(provider.calls).toHaveLength(0)
    expect(watcher.pending()).toEqual([])
  })

  it('lists none of what a reread under way when it closed brings back', async () => {
    const store = createMemoryStore()
    const worker = seamOn(store, { waitForProviderMs: 60_000 })
    outcomeOf(worker.ask({ questions, key: 'read-late' }))
    await settle()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const watcher = seamOn({
      ...store,
      pending: async () => {
        await gate
        return store.pending()
      },
    })
    await settle()
    const closed = watcher.close()
    release()
    await closed
    await settle()
    expect(watcher.pending()).toEqual([])
  })
})

describe('§10 store failures', () => {
  it('STORE_FAILED with the cause when admission fails, and the seam goes on working', async () => {
    const inner = createMemoryStore()
    const failure = new Error('database is locked')
    let failNext = true
    const store: AskStore = Object.create(inner) as AskStore
    store.admit = (ask) => {
      if (failNext) {
        failNext = false
        return Promise.reject(failure)
      }
      return inner.admit(ask)
    }
    const seam = seamOn(store)
    seam.registerProvider({ ask: async () => answer })
    const error = (await seam.ask({ questions }).catch((e: unknown) => e)) as UserQuestionError
    expect(error.code).toBe('STORE_FAILED')
    expect(error.cause).toBe(failure)
    await expect(seam.ask({ questions })).resolves.toEqual(answer)
  })

  it('an answer whose commit keeps failing is kept until the deadline, whose ending is tried again, then fails STORE_FAILED with the cause', async () => {
    const inner = createMemoryStore()
    const failure = new Error('disk I/O error')
    const store: AskStore = Object.create(inner) as AskStore
    store.settle = () => Promise.reject(failure)
    const { seam, provider } = presentingOn(store)
    const asked = outcomeOf(seam.ask({ questions, timeoutMs: 30_000 }))
    await settle()
    provider.last().resolve(answer)
    await vi.advanceTimersByTimeAsync(29_000)
    expect(asked.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1_000)
    await settle()
    // The timeout is a proposal the store must take: it is tried again with backoff first.
    expect(asked.settled).toBe(false)
    for (let pause = 0; pause < MAX_COMMIT_RETRIES; pause++) {
      await vi.advanceTimersByTimeAsync(MAX_RETRY_DELAY_MS * 1.2)
    }
    await settle()
    const error = asked.error as UserQuestionError
    expect(error.code).toBe('STORE_FAILED')
    expect(error.cause).toBe(failure)
    // The human did answer: the provider hears that the answer came too late to be kept.
    const { request } = provider.last()
    const told = await request.settlement
    expect(told?.status === 'refused' && [told.error.code, told.error.message]).toEqual([
      'ASK_TIMEOUT',
      'the deadline passed before the answer given could be committed',
    ])
    expect((request.signal.reason as UserQuestionError).message).toBe(
      'the deadline passed before the answer given could be committed',
    )
  })

  it('an answer waiting to be retried when another seam commits the timeout: its provider hears the answer came too late', async () => {
    const shared = createMemoryStore()
    // The console's writes fail (a lock held elsewhere); the worker's own still go through.
    const locked: AskStore = Object.create(shared) as AskStore
    locked.settle = () => Promise.reject(new Error('database is locked'))
    const worker = seamOn(shared, { waitForProviderMs: 60_000 })
    const { provider } = presentingOn(locked)
    await settle()
    const asked = outcomeOf(worker.ask({ questions, timeoutMs: 30_000 }))
    await vi.waitFor(() => expect(provider.calls).toHaveLength(1))
    provider.last().resolve(answer)
    await settle()
    await vi.advanceTimersByTimeAsync(30_000)
    await settle()
    expect((asked.error as UserQuestionError).code).toBe('ASK_TIMEOUT')
    const told = await provider.last().request.settlement
    expect(told?.status === 'refused' && [told.error.code, told.error.message]).toEqual([
      'ASK_TIMEOUT',
      'the deadline passed before the answer given could be committed',
    ])
  })

  it.each([
    [
      'neither admitted nor existing',
      () => ({ status: 'queued' }),
      /neither admitted nor existing/,
    ],
    [
      'an existing ask that is not an ask',
      () => ({ status: 'existing', record: { askId: 7 } }),
      /no askId/,
    ],
    ['nothing at all', () => undefined, /neither admitted nor existing/],
  ])(
    'STORE_FAILED when the store answers an admission with %s; the seam goes on working',
    async (_name, answerAdmission, why) => {
      const inner = createMemoryStore()
      let broken = true
      const store: AskStore = Object.create(inner) as AskStore
      store.admit = async (ask) => (broken ? (answerAdmission() as AdmitResult) : inner.admit(ask))
      const seam = seamOn(store)
      seam.registerProvider({ ask: async () => answer })
      const error = (await seam
        .ask({ questions, key: 'k' })
        .catch((e: unknown) => e)) as UserQuestionError
      expect(error).toBeInstanceOf(UserQuestionError)
      expect(error.code).toBe('STORE_FAILED')
      expect(error.cause).toBeInstanceOf(CorruptRowError)
      expect((error.cause as Error).message).toMatch(why)
      expect(seam.pending()).toEqual([])
      broken = false
      await expect(seam.ask({ questions })).resolves.toEqual(answer)
    },
  )

  it('creating a seam on an unreachable store never throws; asks get STORE_FAILED', async () => {
    const down = new Error('connection refused')
    const store = new Proxy({} as AskStore, {
      get: (_target, name) =>
        name === 'watch' ? () => () => undefined : () => Promise.reject(down),
    })
    const seam = seamOn(store, { waitForProviderMs: 1_000 })
    seam.registerProvider(createControllableProvider())
    const error = (await seam.ask({ questions }).catch((e: unknown) => e)) as UserQuestionError
    expect(error.code).toBe('STORE_FAILED')
    expect(error.cause).toBe(down)
  })
})

describe('§10 an ask purged before a seam heard it settle', () => {
  /** `store` as a seam sees it when the change feed lost every settlement (a listener down, say). */
  const missingSettlements = (store: AskStore): AskStore => ({
    ...store,
    watch: (listener) =>
      store.watch((change) => {
        if (change.type !== 'ask.settled') listener(change)
      }),
  })
  /** The outcome a UI elsewhere commits when its human dismisses the ask. */
  const cancelled = (message: string) => ({
    status: 'rejected' as const,
    error: { code: 'ASK_CANCELLED' as const, message },
  })

  /** A seam that asks, and a console whose store view never hears a settlement (only resyncs). */
  const workerAndDeafConsole = async () => {
    const store = createMemoryStore()
    const worker = seamOn(store)
    const { provider } = presentingOn(missingSettlements(store))
    await settle()
    return { store, worker, provider }
  }

  it('an ask admitted while the seam’s first read was under way is not taken for a purged one', async () => {
    const { store, holding, readsLand } = lateReadsStore()
    const { seam, provider } = presentingOn(store)
    const asked = outcomeOf(seam.ask({ questions }))
    await settle()
    expect(holding.held.map((write) => write.kind)).toEqual(['admit'])
    await holding.release()
    const shown = await provider.call(0)
    readsLand.resolve()
    await settle()
    expect(asked.settled).toBe(false)
    expect(shown.request.signal.aborted).toBe(false)
    expect(seam.pending()).toMatchObject([{ askId: shown.request.askId, state: 'presenting' }])
    shown.resolve(answer)
    await holding.release()
    await settle()
    expect(asked.value).toEqual(answer)
  })
  it("another seam's ask: the question comes down at the resync the purge brings", async () => {
    const { store, worker, provider } = await workerAndDeafConsole()
    const asked = outcomeOf(worker.ask({ questions, key: 'purged' }))
    const shown = await provider.call(0)
    await settle()
    const askId = shown.request.askId
    await store.settle(askId, cancelled('no'), Date.now())
    await settle()
    expect(shown.request.signal.aborted).toBe(false)
    expect(await store.purge({ settledBefore: Date.now() + 1 })).toBe(1)
    await settle()
    expect(shown.request.signal.aborted).toBe(true)
    expect((shown.request.signal.reason as UserQuestionError).details).toMatchObject({
      reason: 'settled-elsewhere',
    })
    expect(asked.error).toMatchObject({ code: 'ASK_CANCELLED' })
  })

  it('an ask settled but not purged, whose settlement the feed lost, ends at the same resync', async () => {
    const { store, worker, provider } = await workerAndDeafConsole()
    const purged = outcomeOf(worker.ask({ questions, key: 'purged' }))
    const kept = outcomeOf(worker.ask({ questions, key: 'kept' }))
    const [first, second] = [await provider.call(0), await provider.call(1)]
    await settle()
    await store.settle(first.request.askId, cancelled('first'), Date.now())
    await vi.advanceTimersByTimeAsync(10)
    await store.settle(second.request.askId, cancelled('second'), Date.now())
    await settle()
    expect(second.request.signal.aborted).toBe(false)
    expect(await store.purge({ settledBefore: Date.now() - 5 })).toBe(1)
    await settle()
    expect(second.request.signal.aborted).toBe(true)
    expect(kept.error).toMatchObject({ code: 'ASK_CANCELLED', message: 'second' })
    expect(purged.error).toMatchObject({ code: 'ASK_CANCELLED', message: 'first' })
  })

  it('a read that fails at a resync ends nothing, and is tried again at the next beat', async () => {
    const store = createMemoryStore()
    let reads = 0
    const seam = seamOn({
      ...missingSettlements(store),
      get: async (askId) => {
        reads += 1
        if (reads === 1) throw new Error('database is locked')
        return store.get(askId)
      },
    })
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    await settle()
    const keys = ['read-fails', 'purged-first', 'purged-next']
    const [asked, first, next] = keys.map((key) => outcomeOf(seam.ask({ questions, key })))
    const shown = await Promise.all(keys.map((_, index) => provider.call(index)))
    // Settled 10 ms apart, oldest first: purged-first, purged-next, read-fails.
    for (const index of [1, 2, 0]) {
      await store.settle(shown[index]!.request.askId, cancelled(keys[index]!), Date.now())
      await vi.advanceTimersByTimeAsync(10)
    }
    await store.purge({ settledBefore: Date.now() - 25 })
    await settle()
    expect(reads).toBe(3)
    expect(first!.error).toMatchObject({ code: 'STORE_FAILED' })
    expect(next!.error).toMatchObject({ code: 'ASK_CANCELLED', message: 'purged-next' })
    expect(asked!.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS - 1)
    expect(asked!.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await settle()
    expect(reads).toBe(4)
    expect(asked!.error).toMatchObject({ code: 'ASK_CANCELLED', message: 'read-fails' })
  })

  it('an ask purged as soon as it settled: the caller gets the outcome the feed brought, not STORE_FAILED', async () => {
    const store = createMemoryStore()
    const { seam, provider } = presentingOn(store)
    await settle()
    const asked = outcomeOf(seam.ask({ questions, key: 'purged-at-once' }))
    const shown = await provider.call(0)
    await store.settle(shown.request.askId, cancelled('elsewhere'), Date.now())
    expect(await store.purge({ settledBefore: Date.now() + 1 })).toBe(1)
    await settle()
    expect(asked.error).toBeInstanceOf(UserQuestionError)
    expect(asked.error).toMatchObject({ code: 'ASK_CANCELLED', message: 'elsewhere' })
  })

  it('a resync reads one by one only the asks it no longer finds pending, not every ask it knows', async () => {
    const store = createMemoryStore()
    const reads: string[] = []
    const seam = seamOn({
      ...missingSettlements(store),
      get: async (askId) => {
        reads.push(askId)
        return store.get(askId)
      },
    })
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    await settle()
    const waiting = outcomeOf(seam.ask({ questions, key: 'still-pending' }))
    const purged = outcomeOf(seam.ask({ questions, key: 'purged' }))
    const [stillPending, gone] = [await provider.call(0), await provider.call(1)]
    await store.settle(gone.request.askId, cancelled('purged'), Date.now())
    await store.purge({ settledBefore: Date.now() + 1 })
    await settle()
    expect(purged.error).toMatchObject({ code: 'STORE_FAILED' })
    expect(reads).toEqual([gone.request.askId])
    expect(waiting.settled).toBe(false)
    expect(stillPending.request.signal.aborted).toBe(false)
  })

  it('its own ask: the caller gets STORE_FAILED instead of waiting for ever', async () => {
    const store = createMemoryStore()
    const seam = seamOn(missingSettlements(store))
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    await settle()
    const asked = outcomeOf(seam.ask({ questions, key: 'own-purged' }))
    const shown = await provider.call(0)
    await store.settle(shown.request.askId, cancelled('elsewhere'), Date.now())
    await settle()
    expect(asked.settled).toBe(false)
    await store.purge({ settledBefore: Date.now() + 1 })
    await settle()
    expect(asked.error).toBeInstanceOf(UserQuestionError)
    expect(asked.error).toMatchObject({
      code: 'STORE_FAILED',
      message: `ask ${shown.request.askId} is no longer in the store`,
    })
    expect(shown.request.signal.aborted).toBe(true)
    expect(seam.pending()).toEqual([])
  })
})

describe('§10 a feed that missed changes', () => {
  /**
   * `store` as a console sees it over a connection that drops: while `down`
   * the feed loses every change and reads fail; `reconnect()` brings the feed
   * back with a `resync`, whose read fails `failingReads` more times.
   */
  const droppingConnection = (store: AskStore) => {
    const link = {
      down: false,
      failingReads: 0,
      listeners: new Set<(change: StoreChange) => void>(),
    }
    // Over the store itself, as a durable one (its prototype) is no plain object to spread.
    const view: AskStore = Object.assign(Object.create(store) as AskStore, {
      watch(listener: (change: StoreChange) => void) {
        link.listeners.add(listener)
        const unwatch = store.watch((change) => {
          if (!link.down) listener(change)
        })
        return () => {
          link.listeners.delete(listener)
          unwatch()
        }
      },
      pending() {
        if (link.down || link.failingReads > 0) {
          link.failingReads = Math.max(0, link.failingReads - 1)
          return Promise.reject(new Error('connection terminated unexpectedly'))
        }
        return store.pending()
      },
    })
    const reconnect = (failingReads: number) => {
      link.down = false
      link.failingReads = failingReads
      for (const listener of link.listeners) listener({ type: 'resync' })
    }
    return { view, link, reconnect }
  }

  it('a resync whose read fails is tried again at the next beat: the ask the feed missed is shown then', async () => {
    const store = durableMemoryStore()
    const { view, link, reconnect } = droppingConnection(store)
    const { provider } = presentingOn(view)
    const worker = seamOn(store)
    await vi.advanceTimersByTimeAsync(0)
    link.down = true
    const asked = outcomeOf(worker.ask({ questions, key: 'asked-while-down' }))
    await settle()
    expect(provider.calls).toHaveLength(0)
    reconnect(1)
    await settle()
    expect(provider.calls).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS)
    await settle()
    expect(provider.calls).toHaveLength(1)
    const shown = provider.calls[0]!
    expect((await store.pending()).map(({ key }) => key)).toEqual(['asked-while-down'])
    shown.resolve(answer)
    await settle()
    expect(asked.value).toEqual(answer)
  })
})
