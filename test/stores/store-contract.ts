/**
 * The AskStore contract (src/protocol/store.ts), as one suite every store
 * runs: the memory store, SQLite, Postgres. `open` gives a fresh, empty
 * storage and a way to open a second, independent handle on the same storage
 * (another connection, as another process would have).
 */
import { afterEach, describe, expect, it } from 'vitest'
import {
  LEASE_RETENTION_MS,
  TIMEOUT_MESSAGE,
  ownerGoneOutcome,
  timeoutOutcome,
} from '../../src/protocol/index.js'
import type {
  AskRecord,
  AskStore,
  NewAskRecord,
  SeamLease,
  StoreChange,
  StoredOutcome,
} from '../../src/protocol/index.js'
import { collectingUncaught } from '../support/uncaught.js'

export interface StoreUnderTest {
  store: AskStore
  /** A second handle on the same storage. */
  reopen(): Promise<AskStore>
  /** Removes the storage (after every handle is closed). */
  destroy?(): Promise<void>
}

let sequence = 0
export function newAsk(overrides: Partial<NewAskRecord> = {}): NewAskRecord {
  sequence += 1
  return {
    askId: `contract-${process.pid}-${Date.now()}-${sequence}`,
    questions: [
      {
        id: 'db',
        question: 'Which database?',
        options: [{ label: 'Postgres' }, { label: 'SQLite', description: 'one file' }],
      },
    ],
    ownerSeamId: 'seam-a',
    startedAt: 1_700_000_000_000 + sequence,
    ...overrides,
  }
}

export const answered: StoredOutcome = {
  status: 'answered',
  answer: { answers: [{ id: 'db', selected: ['SQLite'] }] },
}
export const callerAborted: StoredOutcome = {
  status: 'rejected',
  error: {
    code: 'ASK_ABORTED',
    message: 'the caller aborted the ask',
    details: { reason: 'caller-aborted' },
  },
}
export const cancelled: StoredOutcome = {
  status: 'rejected',
  error: { code: 'ASK_CANCELLED', message: 'the user dismissed the questions' },
}

/** Waits until `predicate` holds for the changes seen, polling the event loop (bounded). */
async function until(check: () => boolean, what: string, limitMs = 5_000): Promise<void> {
  const end = Date.now() + limitMs
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

export function describeStoreContract(name: string, open: () => Promise<StoreUnderTest>): void {
  describe(`AskStore contract: ${name}`, () => {
    const opened: AskStore[] = []
    let current: StoreUnderTest | undefined
    const setup = async () => {
      current = await open()
      opened.push(current.store)
      return current
    }
    const second = async () => {
      const store = await (current as StoreUnderTest).reopen()
      opened.push(store)
      return store
    }
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close()
      await current?.destroy?.()
      current = undefined
    })

    it('admits an ask and reads it back, pending, from another handle', async () => {
      const { store } = await setup()
      const ask = newAsk({ agentId: 'root', deadline: 1_800_000_000_000, key: 'call-1' })
      const result = await store.admit(ask)
      expect(result.status).toBe('admitted')
      expect(result.record).toEqual({ ...ask, state: 'pending' })
      const other = await second()
      expect(await other.get(ask.askId)).toEqual({ ...ask, state: 'pending' })
      expect((await other.pending()).map((r) => r.askId)).toEqual([ask.askId])
      expect(await other.get('no-such-ask')).toBeUndefined()
    })

    it('refuses a second ask with the same askId', async () => {
      const { store } = await setup()
      const ask = newAsk()
      await store.admit(ask)
      await expect(store.admit({ ...ask })).rejects.toBeDefined()
    })

    it('lists pending asks oldest first and leaves settled ones out', async () => {
      const { store } = await setup()
      const late = newAsk({ startedAt: 3 })
      const early = newAsk({ startedAt: 1 })
      const settled = newAsk({ startedAt: 2 })
      for (const ask of [late, early, settled]) await store.admit(ask)
      await store.settle(settled.askId, answered, 10)
      expect((await store.pending()).map((r) => r.askId)).toEqual([early.askId, late.askId])
    })

    it('lists asks started in the same millisecond by askId, and settled asks it has not', async () => {
      const { store } = await setup()
      const base = newAsk().askId
      const [a, b, c] = ['a', 'b', 'c'].map((end) =>
        newAsk({ startedAt: 5, askId: `${base}-${end}` }),
      ) as [NewAskRecord, NewAskRecord, NewAskRecord]
      const settled = newAsk({ startedAt: 5, askId: `${base}-0` })
      for (const ask of [b, settled, c, a]) await store.admit(ask)
      await store.settle(settled.askId, answered, 6)
      expect((await store.pending()).map((r) => r.askId)).toEqual([a.askId, b.askId, c.askId])
    })

    it('leaves an ask alone once it is settled: no timeout, no owner-gone', async () => {
      const { store } = await setup()
      const overdue = newAsk({ deadline: 100, ownerSeamId: 'gone' })
      const endless = newAsk({ ownerSeamId: 'gone', key: 'k-endless' })
      await store.admit(overdue)
      await store.admit(endless)
      await store.settle(overdue.askId, answered, 50)
      expect(await store.expireOverdue(1_000)).toEqual([])
      expect(await store.endOrphans(1_000)).toEqual([])
      expect((await store.get(overdue.askId))?.outcome).toEqual(answered)
      expect((await store.get(endless.askId))?.state).toBe('pending')
    })

    it('settles once: the first committed outcome wins and every later settle reads it', async () => {
      const { store } = await setup()
      const ask = newAsk()
      await store.admit(ask)
      const first = await store.settle(ask.askId, answered, 100)
      expect(first).toMatchObject({
        record: { state: 'settled', outcome: answered, settledAt: 100 },
        won: true,
      })
      const second = await store.settle(ask.askId, cancelled, 200)
      expect(second).toMatchObject({
        record: { state: 'settled', outcome: answered, settledAt: 100 },
        won: false,
      })
      expect(await store.get(ask.askId)).toMatchObject({ outcome: answered })
      expect(await store.settle('no-such-ask', answered, 1)).toBeUndefined()
    })

    it('lets exactly one of many concurrent settles from two handles win', async () => {
      const { store } = await setup()
      const other = await second()
      const ask = newAsk()
      await store.admit(ask)
      const outcomes: StoredOutcome[] = Array.from({ length: 8 }, (_, i) => ({
        status: 'answered',
        answer: { answers: [{ id: 'db', selected: [], custom: `writer ${i}` }] },
      }))
      const results = await Promise.all(
        outcomes.map((outcome, i) => (i % 2 === 0 ? store : other).settle(ask.askId, outcome, i)),
      )
      const winners = new Set(results.map((r) => JSON.stringify(r?.record.outcome)))
      expect(winners.size).toBe(1)
      expect(await other.get(ask.askId)).toEqual(results[0]?.record)
      const wrote = results.flatMap((r, i) => (r?.won === true ? [outcomes[i]] : []))
      expect(wrote).toEqual([results[0]?.record.outcome])
    })

    it('tells only the writer that won, when two handles offer the same outcome in the same millisecond', async () => {
      const { store } = await setup()
      const other = await second()
      const ask = newAsk()
      await store.admit(ask)
      const results = await Promise.all([
        store.settle(ask.askId, answered, 42),
        other.settle(ask.askId, answered, 42),
      ])
      expect(results.map((r) => r?.record)).toEqual([
        await store.get(ask.askId),
        await store.get(ask.askId),
      ])
      expect(results.filter((r) => r?.won === true)).toHaveLength(1)
    })

    it('returns the held ask for a key that is pending or settled with a replayed outcome', async () => {
      const { store } = await setup()
      const ask = newAsk({ key: 'tool-call-7' })
      await store.admit(ask)
      const again = await store.admit(newAsk({ key: 'tool-call-7' }))
      expect(again).toMatchObject({
        status: 'existing',
        record: { askId: ask.askId, state: 'pending' },
      })
      await store.settle(ask.askId, cancelled, 5)
      const replay = await store.admit(newAsk({ key: 'tool-call-7' }))
      expect(replay).toMatchObject({
        status: 'existing',
        record: { askId: ask.askId, outcome: cancelled },
      })
      expect((await store.pending()).length).toBe(0)
    })

    it('gives a key up when its ask ended with an outcome that is not replayed', async () => {
      const { store } = await setup()
      const ask = newAsk({ key: 'tool-call-8' })
      await store.admit(ask)
      await store.settle(ask.askId, callerAborted, 5)
      const fresh = newAsk({ key: 'tool-call-8' })
      const result = await store.admit(fresh)
      expect(result).toMatchObject({
        status: 'admitted',
        record: { askId: fresh.askId, key: 'tool-call-8' },
      })
      // Committed: another handle reads the new holder of the key.
      expect(await (await second()).get(fresh.askId)).toMatchObject({ key: 'tool-call-8' })
      // The old ask is still readable by id, with its outcome.
      expect(await store.get(ask.askId)).toMatchObject({ outcome: callerAborted })
      const third = await store.admit(newAsk({ key: 'tool-call-8' }))
      expect(third).toMatchObject({ status: 'existing', record: { askId: fresh.askId } })
    })

    it('leaves a key with its ask when an admit that would take it over fails', async () => {
      const { store } = await setup()
      const keyed = newAsk({ key: 'kept-key' })
      const taken = newAsk()
      await store.admit(keyed)
      await store.admit(taken)
      await store.settle(keyed.askId, callerAborted, 5)
      // The key is free to take over, but the askId is taken: the admit fails whole.
      await expect(
        store.admit(newAsk({ askId: taken.askId, key: 'kept-key' })),
      ).rejects.toBeDefined()
      expect(await (await second()).get(keyed.askId)).toMatchObject({ key: 'kept-key' })
      // And the store goes on serving.
      for (let i = 0; i < 3; i += 1) expect(await store.get(keyed.askId)).toBeDefined()
      expect((await store.admit(newAsk({ key: 'kept-key' }))).status).toBe('admitted')
    })

    it('admits the same key from two handles at once as one ask', async () => {
      const { store } = await setup()
      const other = await second()
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 === 0 ? store : other).admit(newAsk({ key: 'raced-key' })),
        ),
      )
      expect(results.filter((r) => r.status === 'admitted')).toHaveLength(1)
      expect(new Set(results.map((r) => r.record.askId)).size).toBe(1)
    })

    it('ends overdue asks with ASK_TIMEOUT carrying the original deadline, once', async () => {
      const { store } = await setup()
      const overdue = newAsk({ deadline: 1_000 })
      const later = newAsk({ deadline: 5_000 })
      const none = newAsk()
      const answeredInTime = newAsk({ deadline: 900 })
      for (const ask of [overdue, later, none, answeredInTime]) await store.admit(ask)
      await store.settle(answeredInTime.askId, answered, 800)
      const ended = await store.expireOverdue(2_000)
      expect(ended.map((r) => r.askId)).toEqual([overdue.askId])
      expect(ended[0]?.outcome).toEqual(timeoutOutcome(overdue))
      expect((ended[0]?.outcome as { error: { message: string } }).error.message).toBe(
        TIMEOUT_MESSAGE,
      )
      expect(await store.get(overdue.askId)).toMatchObject({ state: 'settled', settledAt: 2_000 })
      // What the sweep resolves with is what it wrote, as any handle reads it back.
      expect(await (await second()).get(overdue.askId)).toEqual(ended[0])
      expect(await store.expireOverdue(2_000)).toEqual([])
      expect(await store.get(answeredInTime.askId)).toMatchObject({ outcome: answered })
    })

    // 2,000 keeps a durable store's test quick (each admission is a synced
    // write); the benchmark ends 10,000.
    it('expires many overdue asks in one call', async () => {
      const { store } = await setup()
      for (let i = 0; i < 2_000; i += 1) await store.admit(newAsk({ deadline: 10 }))
      const ended = await store.expireOverdue(20)
      expect(ended).toHaveLength(2_000)
      expect(await store.pending()).toEqual([])
    }, 120_000)

    it('ends keyless asks of a seam without a live lease, and keeps keyed ones', async () => {
      const { store } = await setup()
      await store.heartbeat({ seamId: 'alive', providerActive: false, expiresAt: 10_000 })
      await store.heartbeat({ seamId: 'expired', providerActive: true, expiresAt: 500 })
      const ofAlive = newAsk({ ownerSeamId: 'alive' })
      const ofExpired = newAsk({ ownerSeamId: 'expired' })
      const ofUnknown = newAsk({ ownerSeamId: 'never-seen' })
      const keyed = newAsk({ ownerSeamId: 'expired', key: 'survives' })
      for (const ask of [ofAlive, ofExpired, ofUnknown, keyed]) await store.admit(ask)
      const ended = await store.endOrphans(1_000)
      expect(ended.map((r) => r.askId).sort()).toEqual([ofExpired.askId, ofUnknown.askId].sort())
      for (const record of ended) {
        expect(record.outcome).toEqual(ownerGoneOutcome())
        expect(await store.get(record.askId)).toEqual(record)
      }
      expect((await store.pending()).map((r) => r.askId).sort()).toEqual(
        [ofAlive.askId, keyed.askId].sort(),
      )
    })

    it('deletes leases long expired when it ends orphans, and keeps the others', async () => {
      const { store } = await setup()
      const other = await second()
      const now = 1_700_000_000_000
      await store.heartbeat({
        seamId: 'long-dead',
        providerActive: true,
        expiresAt: now - LEASE_RETENTION_MS,
      })
      await store.heartbeat({
        seamId: 'lately-dead',
        providerActive: false,
        expiresAt: now - LEASE_RETENTION_MS + 1,
      })
      await store.heartbeat({ seamId: 'alive', providerActive: true, expiresAt: now + 1_000 })
      // A live seam's orphan sweep, in another process.
      await other.endOrphans(now)
      // Read as of long ago, when all three were live: only the long-dead one is gone.
      const kept = await store.leases(0)
      expect(kept.map((lease) => lease.seamId).sort()).toEqual(['alive', 'lately-dead'])
      expect(await store.leases(now)).toEqual([
        { seamId: 'alive', providerActive: true, expiresAt: now + 1_000 },
      ])
    })

    it('counts a lease live until the millisecond it expires, not at it', async () => {
      const { store } = await setup()
      await store.heartbeat({ seamId: 'edge', providerActive: true, expiresAt: 3_000 })
      expect((await store.leases(2_999)).map((lease) => lease.seamId)).toEqual(['edge'])
      expect(await store.leases(3_000)).toEqual([])
    })

    it('keeps leases: renewed, filtered by time, released', async () => {
      const { store } = await setup()
      const other = await second()
      await store.heartbeat({ seamId: 's1', providerActive: false, expiresAt: 1_000 })
      await other.heartbeat({ seamId: 's2', providerActive: true, expiresAt: 2_000 })
      await store.heartbeat({ seamId: 's1', providerActive: true, expiresAt: 3_000 })
      await other.heartbeat({ seamId: 's3', providerActive: false, expiresAt: 4_000 })
      const bySeam = (leases: SeamLease[]) => leases.sort((a, b) => (a.seamId < b.seamId ? -1 : 1))
      expect(bySeam(await other.leases(1_500))).toEqual([
        { seamId: 's1', providerActive: true, expiresAt: 3_000 },
        { seamId: 's2', providerActive: true, expiresAt: 2_000 },
        { seamId: 's3', providerActive: false, expiresAt: 4_000 },
      ])
      expect(bySeam(await store.leases(2_500)).map((l) => l.seamId)).toEqual(['s1', 's3'])
      await other.release('s1')
      expect(bySeam(await store.leases(0))).toEqual([
        { seamId: 's2', providerActive: true, expiresAt: 2_000 },
        { seamId: 's3', providerActive: false, expiresAt: 4_000 },
      ])
    })

    it('tells watchers of asks admitted and settled through another handle', async () => {
      const { store } = await setup()
      const other = await second()
      const seen: StoreChange[] = []
      const unwatch = store.watch((change) => seen.push(change))
      const ask = newAsk()
      await other.admit(ask)
      const sawAsk = (type: StoreChange['type']) => () =>
        seen.some(
          (c) =>
            c.type === 'resync' ||
            (c.type === type && (c as { record: AskRecord }).record.askId === ask.askId),
        )
      await until(sawAsk('ask.admitted'), 'the admission')
      seen.length = 0
      await other.settle(ask.askId, answered, 5)
      await until(sawAsk('ask.settled'), 'the settlement')
      const settled = seen.find((c) => c.type === 'ask.settled')
      if (settled !== undefined && settled.type === 'ask.settled') {
        expect(settled.record.outcome).toEqual(answered)
      }
      unwatch()
      unwatch()
      seen.length = 0
      await other.admit(newAsk())
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(seen).toEqual([])
    })

    it('tells every watcher even when one throws, and lets the throw reach the process', async () => {
      const { store } = await setup()
      const other = await second()
      await collectingUncaught(async (uncaught) => {
        const seen: StoreChange[] = []
        store.watch(() => {
          throw new Error('listener fault')
        })
        store.watch((change) => seen.push(change))
        const ask = newAsk()
        await other.admit(ask)
        await until(
          () =>
            seen.some(
              (c) =>
                c.type === 'resync' || (c.type === 'ask.admitted' && c.record.askId === ask.askId),
            ),
          'the second watcher',
        )
        await until(() => uncaught.length > 0, 'the listener fault')
        expect(uncaught.length).toBeGreaterThan(0)
        for (const error of uncaught) expect(error).toEqual(new Error('listener fault'))
      })
    })

    it('tells watchers when another handle changes a lease', async () => {
      const { store } = await setup()
      const other = await second()
      const seen: StoreChange[] = []
      store.watch((change) => seen.push(change))
      await other.heartbeat({
        seamId: 'fresh',
        providerActive: true,
        expiresAt: Date.now() + 10_000,
      })
      await until(
        () => seen.some((c) => c.type === 'leases.changed' || c.type === 'resync'),
        'the lease change',
      )
    })

    it('purges settled asks before a time and frees their keys', async () => {
      const { store } = await setup()
      const old = newAsk({ key: 'old-key' })
      const recent = newAsk()
      const open = newAsk()
      for (const ask of [old, recent, open]) await store.admit(ask)
      await store.settle(old.askId, answered, 100)
      await store.settle(recent.askId, answered, 300)
      const atTheLine = newAsk()
      await store.admit(atTheLine)
      await store.settle(atTheLine.askId, answered, 200)
      expect(await store.purge({ settledBefore: 200 })).toBe(1)
      expect(await store.get(atTheLine.askId)).toBeDefined()
      expect(await store.get(old.askId)).toBeUndefined()
      expect(await store.get(recent.askId)).toBeDefined()
      expect(await store.get(open.askId)).toBeDefined()
      expect((await store.admit(newAsk({ key: 'old-key' }))).status).toBe('admitted')
    })

    it('tells watchers to resync when another handle purges asks', async () => {
      const { store } = await setup()
      const other = await second()
      const old = newAsk()
      await store.admit(old)
      await store.settle(old.askId, answered, 100)
      const seen: StoreChange[] = []
      store.watch((change) => seen.push(change))
      // Once the watch is surely live (it reported the probe, or said resync as a feed that
      // connects first does), only the purge can speak.
      const probe = newAsk()
      await other.admit(probe)
      await until(
        () =>
          seen.some(
            (c) =>
              c.type === 'resync' || (c.type === 'ask.admitted' && c.record.askId === probe.askId),
          ),
        'the watch to start',
      )
      seen.length = 0
      expect(await other.purge({ settledBefore: 50 })).toBe(0)
      expect(await other.purge({ settledBefore: 200 })).toBe(1)
      // The watcher may never have read the settlement of an ask it still shows.
      await until(() => seen.some((c) => c.type === 'resync'), 'the resync')
    })

    it('keeps an outcome as JSON keeps it: dates as text, nothing JSON cannot write', async () => {
      const { store } = await setup()
      const ask = newAsk()
      await store.admit(ask)
      const details = {
        at: new Date(1_700_000_000_000),
        gone: undefined,
        call: () => 'never stored',
        hidden: { toJSON: () => undefined },
        notANumber: Number.NaN,
        list: [1, undefined, 'two'],
        nested: { negativeZero: -0 },
      }
      const withDetails = (given: Record<string, unknown>): StoredOutcome => ({
        status: 'rejected',
        error: {
          code: 'ASK_CANCELLED',
          message: 'the user dismissed the questions',
          details: given,
        },
      })
      await store.settle(ask.askId, withDetails(details), 7)
      const expected = JSON.parse(JSON.stringify(details)) as Record<string, unknown>
      expect(expected).toEqual({
        at: '2023-11-14T22:13:20.000Z',
        notANumber: null,
        list: [1, null, 'two'],
        nested: { negativeZero: 0 },
      })
      for (const handle of [store, await second()]) {
        const record = await handle.get(ask.askId)
        expect(record?.outcome).toEqual(withDetails(expected))
      }
    })

    it('round-trips every field of questions and outcomes exactly', async () => {
      const { store } = await setup()
      const ask = newAsk({
        questions: [
          {
            id: 'plan',
            question: 'Ship it?',
            header: 'Deploy',
            detail: '# Plan\n\n- step 1 ✔\n- “quoted” \u202e',
            options: [{ label: 'Ship' }, { label: 'Wait', description: 'not yet' }],
            intent: { kind: 'plan-review', approve: 'Ship' },
          },
          {
            id: 'why',
            question: 'Why?',
            multiSelect: true,
            options: [{ label: 'A' }, { label: 'B' }],
          },
        ],
      })
      await store.admit(ask)
      const outcome: StoredOutcome = {
        status: 'rejected',
        error: {
          code: 'ASK_TIMEOUT',
          message: 'nobody answered before the deadline',
          details: {
            deadline: 1_700_000_000_123,
            startedAt: 1_700_000_000_000,
            nested: { a: [1, 'b'] },
          },
        },
      }
      await store.settle(ask.askId, outcome, 42)
      const other = await second()
      expect(await other.get(ask.askId)).toEqual({
        ...ask,
        state: 'settled',
        outcome,
        settledAt: 42,
      })
    })
  })
}
