import assert from 'node:assert/strict'
import { AskEndReasons, timeoutOutcome } from '../../vocabulary/index.js'
import type { AskOutcome, AskUserQuestionItem, Responder } from '../../vocabulary/index.js'
import { answered, dayAhead, dayBehind, heard, newAsk, until } from './contract-fixtures.js'
import type { CheckCase } from './contract-fixtures.js'
import { digestOf } from './history.js'
import type { AskRecord, AskStore, NewAskRecord, StoreChange, VoteResult } from './types.js'

/*
 * Who answers, and the record of it (DESIGN §12): the policy an ask keeps,
 * votes (one per responder, one settlement however they race), the events
 * a writer records, and history. Asks here have no deadline, or one a day
 * behind: the checks hold whichever clock the store checks deadlines against.
 */

const ann: Responder = { id: 'ann', name: 'Ann', roles: ['ops'], via: 'web' }
const bob: Responder = { id: 'bob', via: 'terminal' }
const cat: Responder = { id: 'cat', via: 'mcp' }

const planReview: AskUserQuestionItem[] = [
  {
    id: 'plan',
    question: 'Ship it?',
    detail: 'Deploy the release to production.',
    options: [{ label: 'Ship' }, { label: 'Wait' }],
    intent: { kind: 'plan-review', approve: 'Ship' },
  },
]

/** An ask that `required` distinct approvals settle, admitted to `store`. */
async function reviewOf(store: AskStore, required: number, overrides: Partial<NewAskRecord> = {}) {
  const ask = newAsk({ questions: planReview, policy: { approvals: required }, ...overrides })
  await store.admit(ask)
  return ask
}

const approved: AskOutcome = {
  status: 'answered',
  answer: { answers: [{ id: 'plan', selected: ['Ship'] }] },
}

/** The vote of `by` at `at` on an ask `required` approvals settle. */
const voteOf = (by: Responder, at: number, required: number) => ({
  by,
  at,
  required,
  outcome: approved,
})

const settledAs = (ask: NewAskRecord, outcome: AskOutcome, settledAt: number): AskRecord => ({
  ...ask,
  state: 'settled',
  outcome,
  settledAt,
})

/** The types of `askId`'s recorded events, in order. */
async function eventTypes(store: AskStore, askId: string): Promise<string[]> {
  const [history] = await store.history({ askId })
  return history?.events.map((event) => event.type) ?? []
}

/** @internal The contract's checks of policies, votes, recorded events and history. */
export const historyChecks: readonly CheckCase[] = [
  {
    name: 'keeps an ask’s policy as admitted, through every read and its settlement',
    async body({ store, reopen }) {
      const policy = { answerers: ['ann', 'role:ops'], approvals: 2 }
      const ask = newAsk({ questions: planReview, policy, deadline: dayBehind() })
      const admitted = await store.admit(ask)
      assert.deepEqual(admitted, { status: 'admitted', record: { ...ask, state: 'pending' } })
      const other = await reopen()
      assert.deepEqual(await other.get(ask.askId), { ...ask, state: 'pending' })
      assert.deepEqual(await other.pending(), [{ ...ask, state: 'pending' }])
      const now = Date.now()
      const [ended] = await other.expireOverdue(now)
      assert.deepEqual(ended, settledAs(ask, timeoutOutcome(ask), now))
      assert.deepEqual(await store.get(ask.askId), ended)
      const plain = newAsk()
      await store.admit(plain)
      assert.equal('policy' in ((await other.get(plain.askId)) ?? {}), false)
    },
  },
  {
    name: 'vote: counts each responder once, and the required-th settles with every approver in order',
    async body({ store, reopen }) {
      const other = await reopen()
      const ask = await reviewOf(store, 3)
      assert.deepEqual(await store.vote(ask.askId, voteOf(ann, 10, 3)), {
        status: 'counted',
        given: [ann],
      })
      assert.deepEqual(await other.vote(ask.askId, voteOf(ann, 11, 3)), {
        status: 'already-voted',
        given: [ann],
      })
      assert.deepEqual(await other.vote(ask.askId, voteOf(bob, 12, 3)), {
        status: 'counted',
        given: [ann, bob],
      })
      const settled = settledAs(ask, { ...approved, by: [ann, bob, cat] }, 13)
      assert.deepEqual(await store.vote(ask.askId, voteOf(cat, 13, 3)), {
        status: 'settled',
        record: settled,
        won: true,
      })
      assert.deepEqual(await other.get(ask.askId), settled)
      // A vote on another ask is that ask's own, and a deadline still ahead does not stop it.
      const next = await reviewOf(store, 2, { deadline: dayAhead() })
      assert.deepEqual(await other.vote(next.askId, voteOf(ann, 14, 2)), {
        status: 'counted',
        given: [ann],
      })
      assert.equal(await store.vote('no-such-ask', voteOf(ann, 15, 2)), undefined)
    },
  },
  {
    name: 'votes: the approvals counted so far, in order, as any store sharing the data reads them',
    async body({ store, reopen }) {
      const other = await reopen()
      const ask = await reviewOf(store, 3)
      assert.deepEqual(await other.votes(ask.askId), [])
      await store.vote(ask.askId, voteOf(bob, 10, 3))
      await other.vote(ask.askId, voteOf(ann, 11, 3))
      await other.vote(ask.askId, voteOf(bob, 12, 3))
      assert.deepEqual(await other.votes(ask.askId), [bob, ann])
      await store.vote(ask.askId, voteOf(cat, 13, 3))
      // Settled by the last: the record keeps every vote counted.
      assert.deepEqual(await store.votes(ask.askId), [bob, ann, cat])
      assert.deepEqual(await store.votes('no-such-ask'), [])
    },
  },
  {
    name: 'vote: on a settled ask changes nothing and is not counted',
    async body({ store }) {
      const ask = await reviewOf(store, 2)
      await store.vote(ask.askId, voteOf(ann, 10, 2))
      const cancelled: AskOutcome = {
        status: 'rejected',
        error: { code: 'ASK_CANCELLED', message: 'the user dismissed the questions' },
        by: [bob],
      }
      await store.settle(ask.askId, cancelled, 20)
      const settled = settledAs(ask, cancelled, 20)
      assert.deepEqual(await store.vote(ask.askId, voteOf(cat, 30, 2)), {
        status: 'settled',
        record: settled,
        won: false,
      })
      assert.deepEqual(await store.get(ask.askId), settled)
      assert.deepEqual(await eventTypes(store, ask.askId), ['admitted', 'vote', 'settled'])
    },
  },
  {
    name: 'vote: on an overdue ask settles it ASK_TIMEOUT, as settle would, and is not counted',
    async body({ store, reopen }) {
      const other = await reopen()
      const ask = await reviewOf(store, 2, { deadline: dayBehind() })
      const at = Date.now()
      const timedOut = settledAs(ask, timeoutOutcome(ask), at)
      // Even the vote that would complete the count: the deadline is final.
      assert.deepEqual(await other.vote(ask.askId, voteOf(ann, at, 1)), {
        status: 'settled',
        record: timedOut,
        won: false,
      })
      assert.deepEqual(await store.get(ask.askId), timedOut)
      assert.deepEqual(await eventTypes(store, ask.askId), ['admitted', 'settled'])
    },
  },
  {
    name: 'vote: a settlement by vote is told to watchers of every handle',
    async body({ store, reopen }) {
      const other = await reopen()
      const seen: StoreChange[] = []
      other.watch((change) => seen.push(change))
      const ask = await reviewOf(store, 2)
      await store.vote(ask.askId, voteOf(ann, 10, 2))
      await store.vote(ask.askId, voteOf(bob, 11, 2))
      await until(() => heard(seen, 'ask.settled', ask.askId), 'the settlement by vote')
    },
  },
  {
    name: 'vote: of many votes at once from two handles, one settles the ask, with the votes counted before it',
    async body({ store, reopen }) {
      const other = await reopen()
      const ask = await reviewOf(store, 3)
      const voters = Array.from({ length: 8 }, (_, i): Responder => ({
        id: `voter-${i}`,
        via: 'web',
      }))
      const results = await Promise.all(
        voters.map((by, i) => (i % 2 === 0 ? store : other).vote(ask.askId, voteOf(by, 10 + i, 3))),
      )
      const statuses = (want: (result: VoteResult | undefined) => boolean) =>
        results.flatMap((result, i) => (want(result) ? [voters[i]] : []))
      const counted = statuses((result) => result?.status === 'counted')
      const won = statuses((result) => result?.status === 'settled' && result.won)
      const lost = statuses((result) => result?.status === 'settled' && !result.won)
      assert.equal(counted.length, 2)
      assert.equal(won.length, 1)
      assert.equal(lost.length, 5)
      const record = await store.get(ask.askId)
      const by = record?.outcome?.by ?? []
      assert.deepEqual(new Set(by), new Set([...counted, ...won]))
      assert.deepEqual(by[2], won[0])
      for (const result of results) {
        if (result?.status === 'settled') assert.deepEqual(result.record, record)
      }
      // Every counted vote is in the record once; the record orders events by their
      // writers' times, `by` by the order the store counted them.
      const [history] = await other.history({ askId: ask.askId })
      const ids = (list: Array<Responder | undefined>) => list.map((each) => each?.id).sort()
      assert.deepEqual(
        ids(
          history?.events.filter((event) => event.type === 'vote').map((event) => event.by) ?? [],
        ),
        ids(by),
      )
      // One responder voting twice at once is counted once.
      const next = await reviewOf(store, 2)
      const twice = await Promise.all([
        store.vote(next.askId, voteOf(ann, 20, 2)),
        other.vote(next.askId, voteOf(ann, 20, 2)),
      ])
      assert.deepEqual(twice.map((result) => result?.status).sort(), ['already-voted', 'counted'])
    },
  },
  {
    name: 'history: the record of an ask, every event in the order it happened',
    async body({ store, reopen }) {
      const other = await reopen()
      const ask = await reviewOf(store, 2, { key: 'reviewed', agentId: 'agent-h' })
      const t = ask.startedAt
      await store.record(ask.askId, { type: 'presented', at: t + 1, by: ann })
      await other.vote(ask.askId, voteOf(ann, t + 2, 2))
      const forbidden = { reason: AskEndReasons.FORBIDDEN }
      await other.record(ask.askId, { type: 'refused', at: t + 3, by: cat, detail: forbidden })
      await store.vote(ask.askId, voteOf(bob, t + 4, 2))
      const ledger = store.notifications
      const eventId = `${ask.askId}.settled`
      if (ledger !== undefined) {
        await ledger.claim({ eventId, askId: ask.askId, holder: 'n', now: t, expiresAt: t + 60 })
        await ledger.finish({ eventId, ending: 'delivered', at: t + 5 })
        // Only a delivered event is part of the record: one given up, or still held, is not.
        const [givenUp, held] = [`${ask.askId}.pending`, `${ask.askId}.reminder`]
        for (const id of [givenUp, held]) {
          await ledger.claim({
            eventId: id,
            askId: ask.askId,
            holder: 'n',
            now: t,
            expiresAt: t + 60,
          })
        }
        await ledger.finish({ eventId: givenUp, ending: 'given-up', at: t + 6 })
      }
      await store.record('no-such-ask', { type: 'presented', at: t, by: ann })
      assert.deepEqual(await other.history({ askId: 'no-such-ask' }), [])
      const expected = {
        askId: ask.askId,
        key: 'reviewed',
        agentId: 'agent-h',
        questions: planReview,
        digest: await digestOf(planReview),
        startedAt: t,
        settledAt: t + 4,
        outcome: { ...approved, by: [ann, bob] },
        events: [
          { at: t, type: 'admitted', detail: { agentId: 'agent-h' } },
          { at: t + 1, type: 'presented', by: ann },
          { at: t + 2, type: 'vote', by: ann },
          { at: t + 3, type: 'refused', by: cat, detail: forbidden },
          { at: t + 4, type: 'vote', by: bob },
          { at: t + 4, type: 'settled', by: bob, detail: { status: 'answered' } },
          ...(ledger === undefined ? [] : [{ at: t + 5, type: 'notified', detail: { eventId } }]),
        ],
      }
      for (const handle of [store, other]) {
        assert.deepEqual(await handle.history({ askId: ask.askId }), [expected])
        assert.deepEqual(await handle.history({ key: 'reviewed' }), [expected])
      }
    },
  },
  {
    name: 'history: finds asks by id, key and agent, newest first, at most limit of them',
    async body({ store, reopen }) {
      const other = await reopen()
      const at = (startedAt: number, overrides: Partial<NewAskRecord> = {}) =>
        newAsk({ startedAt, agentId: 'agent-x', ...overrides })
      const oldest = at(1_000)
      const keyed = at(2_000, { key: 'the-key' })
      // Three of one millisecond, admitted out of order: the greater askId first, the
      // reverse of pending()'s order.
      const tiedLow = at(3_000, { askId: `${oldest.askId}-a` })
      const tiedMid = at(3_000, { askId: `${oldest.askId}-b` })
      const tiedHigh = at(3_000, { askId: `${oldest.askId}-c` })
      const elsewhere = at(4_000, { agentId: 'agent-y' })
      const { agentId: _none, ...agentless } = at(5_000)
      for (const ask of [oldest, keyed, tiedMid, tiedHigh, tiedLow, elsewhere, agentless]) {
        await store.admit(ask)
      }
      await store.settle(keyed.askId, answered, 2_500)
      const ids = async (query: Parameters<AskStore['history']>[0]) =>
        (await other.history(query)).map((history) => history.askId)
      assert.deepEqual(await ids({ agentId: 'agent-x' }), [
        tiedHigh.askId,
        tiedMid.askId,
        tiedLow.askId,
        keyed.askId,
        oldest.askId,
      ])
      assert.deepEqual(await ids({ agentId: 'agent-x', limit: 2 }), [tiedHigh.askId, tiedMid.askId])
      assert.deepEqual(await ids({}), [
        agentless.askId,
        elsewhere.askId,
        tiedHigh.askId,
        tiedMid.askId,
        tiedLow.askId,
        keyed.askId,
        oldest.askId,
      ])
      assert.deepEqual(await ids({ limit: 1 }), [agentless.askId])
      assert.deepEqual(await ids({ key: 'the-key' }), [keyed.askId])
      assert.deepEqual(await ids({ key: 'the-key', agentId: 'agent-x' }), [keyed.askId])
      assert.deepEqual(await ids({ key: 'the-key', agentId: 'agent-y' }), [])
      assert.deepEqual(await ids({ askId: elsewhere.askId }), [elsewhere.askId])
      assert.deepEqual(await ids({ key: 'no-such-key' }), [])
      assert.deepEqual(await ids({ agentId: 'no-such-agent' }), [])
      for (const limit of [0, 1.5, 1_001]) {
        await assert.rejects(other.history({ limit }), TypeError)
      }
    },
  },
  {
    name: 'history: purge removes an ask’s record whole, its events included',
    async body({ store, reopen }) {
      const other = await reopen()
      const ask = await reviewOf(store, 3)
      await store.record(ask.askId, { type: 'presented', at: 10, by: ann })
      await store.vote(ask.askId, voteOf(ann, 11, 3))
      await store.vote(ask.askId, voteOf(bob, 12, 3))
      await store.settle(ask.askId, approved, 100)
      const kept = await reviewOf(store, 2)
      await store.vote(kept.askId, voteOf(ann, 13, 2))
      assert.equal(await other.purge({ settledBefore: 200 }), 1)
      assert.deepEqual(await store.history({ askId: ask.askId }), [])
      // An ask admitted again under the purged id starts with no record, and no votes.
      await store.admit(ask)
      assert.deepEqual(await eventTypes(other, ask.askId), ['admitted'])
      assert.deepEqual(await other.vote(ask.askId, voteOf(ann, 14, 3)), {
        status: 'counted',
        given: [ann],
      })
      assert.deepEqual(await eventTypes(store, kept.askId), ['admitted', 'vote'])
    },
  },
]
