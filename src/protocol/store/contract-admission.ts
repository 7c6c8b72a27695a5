import assert from 'node:assert/strict'
import { answered, callerAborted, cancelled, dayAhead, newAsk } from './contract-fixtures.js'
import type { CheckCase } from './contract-fixtures.js'
import type { AskRecord, NewAskRecord } from './types.js'

const pendingAs = (ask: NewAskRecord): AskRecord => ({ ...ask, state: 'pending' })

/** @internal The contract's checks of `admit`, keys, `get` and `pending`. */
export const admissionChecks: readonly CheckCase[] = [
  {
    name: 'admits an ask and reads it back, pending, from another handle',
    async body({ store, reopen }) {
      const ask = newAsk({ agentId: 'root', deadline: 1_800_000_000_000, key: 'call-1' })
      assert.deepEqual(await store.admit(ask), { status: 'admitted', record: pendingAs(ask) })
      const other = await reopen()
      assert.deepEqual(await other.get(ask.askId), pendingAs(ask))
      assert.deepEqual(
        (await other.pending()).map((r) => r.askId),
        [ask.askId],
      )
      assert.equal(await other.get('no-such-ask'), undefined)
    },
  },
  {
    name: 'keeps the trace context written with an ask, through settlement and sweeps',
    async body({ store, reopen }) {
      const traceContext = {
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        tracestate: 'vendor=opaque',
      }
      const ask = newAsk({ traceContext })
      assert.deepEqual(await store.admit(ask), { status: 'admitted', record: pendingAs(ask) })
      const other = await reopen()
      assert.deepEqual((await other.get(ask.askId))?.traceContext, traceContext)
      assert.deepEqual((await other.pending())[0]?.traceContext, traceContext)
      const settled = await other.settle(ask.askId, answered, 10)
      assert.deepEqual(settled?.record.traceContext, traceContext)
      const overdue = newAsk({ traceContext, deadline: 5 })
      await store.admit(overdue)
      const [expired] = await store.expireOverdue(dayAhead())
      assert.deepEqual(expired?.traceContext, traceContext)
      // An ask without one reads back without one.
      const plain = newAsk()
      await store.admit(plain)
      assert.equal('traceContext' in ((await other.get(plain.askId)) ?? {}), false)
    },
  },
  {
    name: 'refuses or drops a trace context that is not a flat map of strings, and keeps the ask',
    async body({ store, reopen }) {
      const malformed = [
        { traceparent: 42 },
        ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
        'traceparent',
        { traceparent: { nested: 'no' } },
      ]
      const other = await reopen()
      for (const traceContext of malformed) {
        const ask = { ...newAsk(), traceContext } as unknown as NewAskRecord
        const admitted = await store.admit(ask).then(
          () => true,
          () => false,
        )
        const read = await other.get(ask.askId)
        if (!admitted) {
          assert.equal(read, undefined, 'a refused admission wrote nothing')
          continue
        }
        assert.notEqual(
          read,
          undefined,
          `the ask with trace context ${JSON.stringify(traceContext)} is kept`,
        )
        assert.equal(read?.traceContext, undefined, 'a malformed trace context is dropped')
      }
    },
  },
  {
    name: 'refuses a second ask with the same askId',
    async body({ store }) {
      const ask = newAsk()
      await store.admit(ask)
      await assert.rejects(store.admit({ ...ask }))
    },
  },
  {
    name: 'lists pending asks oldest first and leaves settled ones out',
    async body({ store }) {
      const late = newAsk({ startedAt: 3 })
      const early = newAsk({ startedAt: 1 })
      const settled = newAsk({ startedAt: 2 })
      for (const ask of [late, early, settled]) await store.admit(ask)
      await store.settle(settled.askId, answered, 10)
      assert.deepEqual(
        (await store.pending()).map((r) => r.askId),
        [early.askId, late.askId],
      )
    },
  },
  {
    name: 'lists asks started in the same millisecond by askId, and settled asks it has not',
    async body({ store }) {
      const base = newAsk().askId
      const [a, b, c] = ['a', 'b', 'c'].map((end) =>
        newAsk({ startedAt: 5, askId: `${base}-${end}` }),
      ) as [NewAskRecord, NewAskRecord, NewAskRecord]
      const settled = newAsk({ startedAt: 5, askId: `${base}-0` })
      for (const ask of [b, settled, c, a]) await store.admit(ask)
      await store.settle(settled.askId, answered, 6)
      assert.deepEqual(
        (await store.pending()).map((r) => r.askId),
        [a.askId, b.askId, c.askId],
      )
    },
  },
  {
    name: 'returns the held ask for a key that is pending or settled with a replayed outcome',
    async body({ store }) {
      const ask = newAsk({ key: 'tool-call-7' })
      await store.admit(ask)
      assert.deepEqual(await store.admit(newAsk({ key: 'tool-call-7' })), {
        status: 'existing',
        record: pendingAs(ask),
      })
      await store.settle(ask.askId, cancelled, 5)
      assert.deepEqual(await store.admit(newAsk({ key: 'tool-call-7' })), {
        status: 'existing',
        record: { ...ask, state: 'settled', outcome: cancelled, settledAt: 5 },
      })
      assert.equal((await store.pending()).length, 0)
    },
  },
  {
    name: 'gives a key up when its ask ended with an outcome that is not replayed',
    async body({ store, reopen }) {
      const ask = newAsk({ key: 'tool-call-8' })
      await store.admit(ask)
      await store.settle(ask.askId, callerAborted, 5)
      const fresh = newAsk({ key: 'tool-call-8' })
      assert.deepEqual(await store.admit(fresh), { status: 'admitted', record: pendingAs(fresh) })
      // Committed: another handle reads the new holder of the key.
      assert.deepEqual(await (await reopen()).get(fresh.askId), pendingAs(fresh))
      // The old ask is still readable by id, with its outcome.
      assert.deepEqual((await store.get(ask.askId))?.outcome, callerAborted)
      const third = await store.admit(newAsk({ key: 'tool-call-8' }))
      assert.equal(third.status, 'existing')
      assert.equal(third.record.askId, fresh.askId)
    },
  },
  {
    name: 'leaves a key with its ask when an admit that would take it over fails',
    async body({ store, reopen }) {
      const keyed = newAsk({ key: 'kept-key' })
      const taken = newAsk()
      await store.admit(keyed)
      await store.admit(taken)
      await store.settle(keyed.askId, callerAborted, 5)
      // The key is free to take over, but the askId is taken: the admit fails whole.
      await assert.rejects(store.admit(newAsk({ askId: taken.askId, key: 'kept-key' })))
      assert.equal((await (await reopen()).get(keyed.askId))?.key, 'kept-key')
      // And the store goes on serving.
      for (let i = 0; i < 3; i += 1) assert.notEqual(await store.get(keyed.askId), undefined)
      assert.equal((await store.admit(newAsk({ key: 'kept-key' }))).status, 'admitted')
    },
  },
  {
    name: 'admits the same key from two handles at once as one ask',
    async body({ store, reopen }) {
      const other = await reopen()
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 === 0 ? store : other).admit(newAsk({ key: 'raced-key' })),
        ),
      )
      assert.equal(results.filter((r) => r.status === 'admitted').length, 1)
      assert.equal(new Set(results.map((r) => r.record.askId)).size, 1)
    },
  },
]
