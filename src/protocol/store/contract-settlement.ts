import assert from 'node:assert/strict'
import type { AskOutcome } from '../../vocabulary/index.js'
import { answered, cancelled, newAsk } from './contract-fixtures.js'
import type { CheckCase } from './contract-fixtures.js'
import type { AskRecord } from './types.js'

/** @internal The contract's checks of `settle` (the deadline aside) and of what a settlement keeps. */
export const settlementChecks: readonly CheckCase[] = [
  {
    name: 'settles once: the first committed outcome wins and every later settle reads it',
    async body({ store }) {
      const ask = newAsk()
      await store.admit(ask)
      const settled: AskRecord = { ...ask, state: 'settled', outcome: answered, settledAt: 100 }
      assert.deepEqual(await store.settle(ask.askId, answered, 100), { record: settled, won: true })
      assert.deepEqual(await store.settle(ask.askId, cancelled, 200), {
        record: settled,
        won: false,
      })
      assert.deepEqual(await store.get(ask.askId), settled)
      assert.equal(await store.settle('no-such-ask', answered, 1), undefined)
    },
  },
  {
    name: 'lets exactly one of many concurrent settles from two handles win',
    async body({ store, reopen }) {
      const other = await reopen()
      const ask = newAsk()
      await store.admit(ask)
      const outcomes: AskOutcome[] = Array.from({ length: 8 }, (_, i) => ({
        status: 'answered',
        answer: { answers: [{ id: 'db', selected: [], custom: `writer ${i}` }] },
      }))
      const results = await Promise.all(
        outcomes.map((outcome, i) => (i % 2 === 0 ? store : other).settle(ask.askId, outcome, i)),
      )
      const committed = new Set(results.map((r) => JSON.stringify(r?.record.outcome)))
      assert.equal(committed.size, 1)
      assert.deepEqual(await other.get(ask.askId), results[0]?.record)
      const wrote = results.flatMap((r, i) => (r?.won === true ? [outcomes[i]] : []))
      assert.deepEqual(wrote, [results[0]?.record.outcome])
    },
  },
  {
    name: 'tells only the writer that won, when two handles offer the same outcome in the same millisecond',
    async body({ store, reopen }) {
      const other = await reopen()
      const ask = newAsk()
      await store.admit(ask)
      const results = await Promise.all([
        store.settle(ask.askId, answered, 42),
        other.settle(ask.askId, answered, 42),
      ])
      const held = await store.get(ask.askId)
      assert.deepEqual(
        results.map((r) => r?.record),
        [held, held],
      )
      assert.equal(results.filter((r) => r?.won === true).length, 1)
    },
  },
  {
    name: 'keeps an outcome as JSON keeps it: dates as text, nothing JSON cannot write',
    async body({ store, reopen }) {
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
      const withDetails = (given: Record<string, unknown>): AskOutcome => ({
        status: 'rejected',
        error: {
          code: 'ASK_CANCELLED',
          message: 'the user dismissed the questions',
          details: given,
        },
      })
      await store.settle(ask.askId, withDetails(details), 7)
      const expected = JSON.parse(JSON.stringify(details)) as Record<string, unknown>
      assert.deepEqual(expected, {
        at: '2023-11-14T22:13:20.000Z',
        notANumber: null,
        list: [1, null, 'two'],
        nested: { negativeZero: 0 },
      })
      for (const handle of [store, await reopen()]) {
        const record = await handle.get(ask.askId)
        assert.deepEqual(record?.outcome, withDetails(expected))
      }
    },
  },
  {
    name: 'refuses an outcome JSON cannot write and leaves the ask pending, for a later settle to win',
    async body({ store }) {
      const ask = newAsk()
      await store.admit(ask)
      const unwritable: AskOutcome = {
        status: 'rejected',
        error: { code: 'ASK_CANCELLED', message: 'the user left', details: { tabs: 2n } },
      }
      await assert.rejects(store.settle(ask.askId, unwritable, 5))
      assert.deepEqual(await store.get(ask.askId), { ...ask, state: 'pending' })
      assert.deepEqual(await store.settle(ask.askId, answered, 6), {
        record: { ...ask, state: 'settled', outcome: answered, settledAt: 6 },
        won: true,
      })
    },
  },
  {
    name: 'round-trips every field of questions and outcomes exactly',
    async body({ store, reopen }) {
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
      const outcome: AskOutcome = {
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
      assert.deepEqual(await (await reopen()).get(ask.askId), {
        ...ask,
        state: 'settled',
        outcome,
        settledAt: 42,
      })
    },
  },
]
