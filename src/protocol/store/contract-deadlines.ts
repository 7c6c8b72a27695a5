import assert from 'node:assert/strict'
import { TIMEOUT_MESSAGE, timeoutOutcome } from '../../vocabulary/index.js'
import type { AskOutcome } from '../../vocabulary/index.js'
import { answered, cancelled, dayAhead, dayBehind, newAsk } from './contract-fixtures.js'
import type { CheckCase } from './contract-fixtures.js'
import type { AskRecord, NewAskRecord } from './types.js'

/*
 * A deadline is final (DESIGN §10). A check that settles an ask with a
 * deadline puts the deadline a day from this host's clock, so that it has
 * passed, or not, by every clock a store may check it against; only the
 * checks marked `clock: 'settledAt'` rely on the time the writer passes.
 */

const settledAs = (ask: NewAskRecord, outcome: AskOutcome, settledAt: number): AskRecord => ({
  ...ask,
  state: 'settled',
  outcome,
  settledAt,
})

/** @internal The contract's checks of final deadlines and of `expireOverdue`. */
export const deadlineChecks: readonly CheckCase[] = [
  {
    name: 'commits an answer offered before the deadline, and tells its writer it won',
    async body({ store, reopen }) {
      const ask = newAsk({ deadline: dayAhead() })
      await store.admit(ask)
      const at = Date.now()
      const settled = settledAs(ask, answered, at)
      assert.deepEqual(await store.settle(ask.askId, answered, at), { record: settled, won: true })
      assert.deepEqual(await (await reopen()).get(ask.askId), settled)
    },
  },
  {
    name: 'ends an ask ASK_TIMEOUT when an answer or a cancel comes after its deadline, and tells the writer it lost',
    async body({ store, reopen }) {
      const other = await reopen()
      for (const offered of [answered, cancelled]) {
        const ask = newAsk({ deadline: dayBehind() })
        await store.admit(ask)
        const at = Date.now()
        const timedOut = settledAs(ask, timeoutOutcome(ask), at)
        assert.deepEqual(await store.settle(ask.askId, offered, at), {
          record: timedOut,
          won: false,
        })
        assert.deepEqual(await other.get(ask.askId), timedOut)
        assert.deepEqual(timedOut.outcome, {
          status: 'rejected',
          error: {
            code: 'ASK_TIMEOUT',
            message: TIMEOUT_MESSAGE,
            details: { deadline: ask.deadline, startedAt: ask.startedAt },
          },
        })
      }
    },
  },
  {
    name: 'ends an ask ASK_TIMEOUT when an answer comes at its deadline',
    async body({ store }) {
      const deadline = dayBehind()
      const ask = newAsk({ deadline })
      await store.admit(ask)
      assert.deepEqual(await store.settle(ask.askId, answered, deadline), {
        record: settledAs(ask, timeoutOutcome(ask), deadline),
        won: false,
      })
    },
  },
  {
    name: 'commits the timeout offered after the deadline, and tells its writer it won',
    async body({ store, reopen }) {
      const ask = newAsk({ deadline: dayBehind() })
      await store.admit(ask)
      const at = Date.now()
      const timedOut = settledAs(ask, timeoutOutcome(ask), at)
      assert.deepEqual(await store.settle(ask.askId, timeoutOutcome(ask), at), {
        record: timedOut,
        won: true,
      })
      assert.deepEqual(await (await reopen()).get(ask.askId), timedOut)
    },
  },
  {
    name: 'leaves an ask that is settled as it is when a write comes after its deadline, the timeout included',
    async body({ store }) {
      // Ended by its dead owner after its deadline passed: sweeps other than
      // expireOverdue do not look at deadlines.
      const ask = newAsk({ deadline: dayBehind(), ownerSeamId: 'gone-before-its-deadline' })
      await store.admit(ask)
      const at = Date.now()
      const [orphaned] = await store.endOrphans(at)
      assert.equal(orphaned?.askId, ask.askId)
      for (const offered of [answered, timeoutOutcome(ask)]) {
        assert.deepEqual(await store.settle(ask.askId, offered, at + 1), {
          record: orphaned,
          won: false,
        })
      }
      assert.deepEqual(await store.expireOverdue(at + 1), [])
      assert.deepEqual(await store.get(ask.askId), orphaned)
    },
  },
  {
    name: 'checks the deadline against settledAt, to the millisecond, whatever the time is now',
    clock: 'settledAt',
    async body({ store }) {
      // Both deadlines passed long ago by this host's clock: only settledAt decides.
      const inTime = newAsk({ deadline: 1_000 })
      const atIt = newAsk({ deadline: 1_000 })
      for (const ask of [inTime, atIt]) await store.admit(ask)
      const answeredInTime = settledAs(inTime, answered, 999)
      assert.deepEqual(await store.settle(inTime.askId, answered, 999), {
        record: answeredInTime,
        won: true,
      })
      // Settled before its deadline: a later write, the timeout too, changes nothing.
      for (const offered of [cancelled, timeoutOutcome(inTime)]) {
        assert.deepEqual(await store.settle(inTime.askId, offered, 1_000), {
          record: answeredInTime,
          won: false,
        })
      }
      assert.deepEqual(await store.settle(atIt.askId, answered, 1_000), {
        record: settledAs(atIt, timeoutOutcome(atIt), 1_000),
        won: false,
      })
    },
  },
  {
    name: 'tells exactly one of two handles racing to settle with the timeout after the deadline that it won',
    async body({ store, reopen }) {
      const other = await reopen()
      const ask = newAsk({ deadline: dayBehind() })
      await store.admit(ask)
      const at = Date.now()
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 === 0 ? store : other).settle(ask.askId, timeoutOutcome(ask), at),
        ),
      )
      const timedOut = settledAs(ask, timeoutOutcome(ask), at)
      assert.deepEqual(await other.get(ask.askId), timedOut)
      assert.deepEqual(
        results.map((r) => r?.record),
        results.map(() => timedOut),
      )
      assert.equal(results.filter((r) => r?.won === true).length, 1)
    },
  },
  {
    name: 'never tells a writer of an answer after the deadline that it won, whoever it races on two handles',
    async body({ store, reopen }) {
      const other = await reopen()
      const ask = newAsk({ deadline: dayBehind() })
      await store.admit(ask)
      const at = Date.now()
      const offers = [answered, timeoutOutcome(ask), cancelled, answered, timeoutOutcome(ask)]
      const results = await Promise.all(
        offers.map((offered, i) => (i % 2 === 0 ? store : other).settle(ask.askId, offered, at)),
      )
      const timedOut = settledAs(ask, timeoutOutcome(ask), at)
      assert.deepEqual(
        results.map((r) => r?.record),
        offers.map(() => timedOut),
      )
      // An answer that came first ended the ask with the timeout it did not
      // offer: then no writer won, and a later timeout found the ask settled.
      const winners = offers.filter((_, i) => results[i]?.won === true)
      assert.ok(winners.length <= 1, `${winners.length} writers were told they won`)
      for (const winner of winners) assert.deepEqual(winner, timeoutOutcome(ask))
    },
  },
  {
    name: 'leaves an ask alone once it is settled: no timeout, no owner-gone',
    async body({ store }) {
      const later = dayAhead()
      const overdue = newAsk({ deadline: later + 100, ownerSeamId: 'gone' })
      const endless = newAsk({ ownerSeamId: 'gone', key: 'k-endless' })
      await store.admit(overdue)
      await store.admit(endless)
      await store.settle(overdue.askId, answered, later + 50)
      assert.deepEqual(await store.expireOverdue(later + 1_000), [])
      assert.deepEqual(await store.endOrphans(later + 1_000), [])
      assert.deepEqual((await store.get(overdue.askId))?.outcome, answered)
      assert.equal((await store.get(endless.askId))?.state, 'pending')
    },
  },
  {
    name: 'ends overdue asks with ASK_TIMEOUT carrying the original deadline, once',
    async body({ store, reopen }) {
      const later = dayAhead()
      const overdue = newAsk({ deadline: later + 1_000 })
      const notYet = newAsk({ deadline: later + 5_000 })
      const none = newAsk()
      const answeredInTime = newAsk({ deadline: later + 900 })
      for (const ask of [overdue, notYet, none, answeredInTime]) await store.admit(ask)
      await store.settle(answeredInTime.askId, answered, later + 800)
      const sweptAt = later + 2_000
      const ended = await store.expireOverdue(sweptAt)
      assert.deepEqual(
        ended.map((r) => r.askId),
        [overdue.askId],
      )
      assert.deepEqual(ended[0]?.outcome, timeoutOutcome(overdue))
      assert.equal(
        (ended[0]?.outcome as { error: { message: string } }).error.message,
        TIMEOUT_MESSAGE,
      )
      assert.deepEqual(
        await store.get(overdue.askId),
        settledAs(overdue, timeoutOutcome(overdue), sweptAt),
      )
      // What the sweep resolves with is what it wrote, as any handle reads it back.
      assert.deepEqual(await (await reopen()).get(overdue.askId), ended[0])
      assert.deepEqual(await store.expireOverdue(sweptAt), [])
      assert.deepEqual((await store.get(answeredInTime.askId))?.outcome, answered)
    },
  },
  {
    // 2,000 keeps a durable store's check quick (each admission is a synced
    // write); askseam's benchmark ends 10,000.
    name: 'expires many overdue asks in one call',
    timeoutMs: 120_000,
    async body({ store }) {
      for (let i = 0; i < 2_000; i += 1) await store.admit(newAsk({ deadline: 10 }))
      const ended = await store.expireOverdue(20)
      assert.equal(ended.length, 2_000)
      assert.deepEqual(await store.pending(), [])
    },
  },
]
