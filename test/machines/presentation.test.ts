/**
 * presentationMachine, bare and with its effects recorded: opening, the
 * provider's settlement committed (retried with backoff while the store
 * fails), and the three ways it ends — accepted, refused, taken down. The
 * last block runs it inside the seam, on a store that fails a commit.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor, getNextSnapshot } from 'xstate'
import { MAX_RETRY_DELAY_MS, presentationMachine, retryDelay } from '../../src/machines/index.js'
import type { PresentationEvent, PresentationInput } from '../../src/machines/index.js'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import {
  callerAbortOutcome,
  handedOverOutcome,
  ownerGoneOutcome,
  seamClosedOutcome,
  storeFailedOutcome,
  settledElsewhereOutcome,
  timeoutOutcome,
} from '../../src/vocabulary/index.js'
import type { AskOutcome, AskRejection } from '../../src/vocabulary/index.js'
import { createControllableProvider, track } from '../support/controllable-provider.js'
import { holdingStore } from '../support/holding-store.js'
import { planReview } from '../support/plan-review.js'
import { settle } from '../support/settle.js'
import {
  answer,
  answered,
  cancelled,
  presenting,
  presentationInput,
  questions,
  timeout,
  tooLate,
  writing,
} from './presentation-fixtures.js'

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(0)
})
afterEach(() => {
  vi.useRealTimers()
})

describe('presentationMachine: opening', () => {
  it('an ask overdue when it opens is taken down with the timeout, and the provider is never called', () => {
    const { actor, effects } = presenting({ startedAt: 1_000, deadline: 5_000, openedAt: 5_000 })
    const timeout = timeoutOutcome({ deadline: 5_000, startedAt: 1_000 })
    expect(actor.getSnapshot().value).toBe('takenDown')
    expect(actor.getSnapshot().output).toEqual({ verdict: 'takenDown', ending: timeout })
    expect(effects).toMatchObject({ called: 0, offered: [], ended: [timeout], told: [] })
  })

  it.each([
    ['a deadline ahead', { deadline: 5_001, openedAt: 5_000 }],
    ['no deadline', { deadline: null, openedAt: 5_000 }],
  ])('an ask with %s is presented: the provider is called once', (_name, extra) => {
    const { actor, effects } = presenting(extra)
    expect(actor.getSnapshot().context.deadline).toBe(extra.deadline ?? undefined)
    expect(actor.getSnapshot().value).toBe('presenting')
    expect(effects.called).toBe(1)
    actor.stop()
  })

  it('a bare presentation calls nothing and commits what it offers', () => {
    const actor = createActor(presentationMachine, { input: presentationInput() }).start()
    actor.send({ type: 'provider.answered', answer })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'accepted', outcome: answered })
  })

  it('computing a transition with getNextSnapshot runs none of its effects', () => {
    const { actor, effects, machine } = presenting()
    const next = getNextSnapshot(machine, actor.getSnapshot(), {
      type: 'provider.answered',
      answer,
    })
    expect(next.value).toEqual({ committing: 'writing' })
    expect(effects.offered).toEqual([])
    expect(JSON.parse(JSON.stringify(actor.getPersistedSnapshot()))).toEqual(
      actor.getPersistedSnapshot(),
    )
    actor.stop()
  })
})

describe('presentationMachine: the provider’s settlement committed', () => {
  it('an answer is checked and offered in its canonical form, then accepted when the store takes it', () => {
    const { actor, effects } = presenting()
    // Out of question order, and a single-select choice beside a typed answer: canonicalised.
    actor.send({
      type: 'provider.answered',
      answer: {
        answers: [
          { id: 'note', selected: [], custom: 'ship it' },
          { id: 'db', selected: ['SQLite'] },
        ],
      },
    })
    expect(effects.offered).toEqual([answered])
    actor.send({ type: 'commit.done', outcome: answered, won: true })
    expect(actor.getSnapshot().value).toBe('accepted')
    expect(actor.getSnapshot().output).toEqual({ verdict: 'accepted', outcome: answered })
    expect(effects).toMatchObject({ told: [{ status: 'accepted' }], ended: [] })
  })

  it('an answer that does not fit is BAD_ANSWER: committed by itself, the provider told refused, its signal not aborted', () => {
    const { actor, effects } = presenting()
    actor.send({
      type: 'provider.answered',
      answer: { answers: [{ id: 'db', selected: ['MySQL'] }] },
    })
    const [misfit] = effects.offered
    expect(misfit).toMatchObject({ status: 'rejected', error: { code: 'BAD_ANSWER' } })
    actor.send({ type: 'commit.done', outcome: misfit!, won: true })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'accepted', outcome: misfit })
    expect(effects.told).toEqual([{ status: 'refused', error: (misfit as AskRejection).error }])
    expect(effects.ended).toEqual([])
  })

  it('an answer that cannot even be read is BAD_ANSWER too', () => {
    const hostile = {
      get answers(): never {
        throw new Error('no')
      },
    }
    const { actor, effects } = presenting()
    actor.send({ type: 'provider.answered', answer: hostile })
    expect(effects.offered).toEqual([
      { status: 'rejected', error: expect.objectContaining({ code: 'BAD_ANSWER' }) },
    ])
    actor.stop()
  })

  it('a refusal (the UI cancelled) is committed, and accepted when the store takes it', () => {
    const { actor, effects } = presenting()
    actor.send({ type: 'provider.failed', error: cancelled.error })
    expect(effects.offered).toEqual([cancelled])
    actor.send({ type: 'commit.done', outcome: cancelled, won: true })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'accepted', outcome: cancelled })
    expect(effects.told).toEqual([{ status: 'accepted' }])
  })

  it.each<[string, AskOutcome, AskRejection]>([
    [
      'an answer',
      { status: 'answered', answer },
      settledElsewhereOutcome({ status: 'answered', answer }),
    ],
    ['a cancel', cancelled, settledElsewhereOutcome(cancelled)],
    // The answer was given, and the deadline came first: not "nobody answered".
    ['a timeout', timeout, tooLate],
    ['a closed seam', seamClosedOutcome(), seamClosedOutcome()],
    ['a dead owner', ownerGoneOutcome(), ownerGoneOutcome()],
    ['a caller’s abort', callerAbortOutcome(), callerAbortOutcome()],
  ])(
    'a commit lost to %s is refused: the signal aborts with its ending',
    (_name, committed, ending) => {
      const { actor, effects } = writing()
      actor.send({ type: 'commit.done', outcome: committed, won: false })
      expect(actor.getSnapshot().value).toBe('refused')
      expect(actor.getSnapshot().output).toEqual({ verdict: 'refused', outcome: committed })
      expect(effects.ended).toEqual([ending])
      expect(effects.told).toEqual([])
    },
  )
})

describe('presentationMachine: a commit that fails is retried', () => {
  it('waits after a failed commit, retries after the backoff, and is accepted when the store takes it', async () => {
    const { actor, effects } = writing()
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().value).toEqual({ committing: 'waiting' })
    expect(actor.getSnapshot().context.attempts).toBe(1)
    await vi.advanceTimersByTimeAsync(49)
    expect(effects.offered).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(11)
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
    expect(effects.offered).toEqual([answered, answered])
    actor.send({ type: 'commit.done', outcome: answered, won: true })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'accepted', outcome: answered })
    // The provider heard nothing until there was a verdict.
    expect(effects.told).toEqual([{ status: 'accepted' }])
    expect(effects.ended).toEqual([])
  })

  it('backs off doubling from 50 ms up to MAX_RETRY_DELAY_MS, each pause with at most a fifth more', async () => {
    const { actor, effects } = writing()
    const pauses: number[] = []
    for (let attempt = 0; attempt < 10; attempt++) {
      const failedAt = Date.now()
      actor.send({ type: 'commit.failed', lasting: false })
      await vi.advanceTimersToNextTimerAsync()
      pauses.push(effects.offeredAt.at(-1)! - failedAt)
    }
    expect(effects.offered).toHaveLength(11)
    pauses.forEach((pause, attempt) => {
      const base = Math.min(MAX_RETRY_DELAY_MS, 50 * 2 ** attempt)
      expect(pause).toBeGreaterThanOrEqual(base)
      expect(pause).toBeLessThanOrEqual(base * 1.2)
    })
    actor.stop()
  })

  it('retryDelay stays within its bounds whatever the jitter, for any count of failures', () => {
    for (const random of [0, 0.5, 0.999_999]) {
      const jitter = vi.spyOn(Math, 'random').mockReturnValue(random)
      for (const attempts of [0, 1, 2, 5, 6, 7, 16, 17, 1_000, Number.MAX_SAFE_INTEGER]) {
        const base = Math.min(MAX_RETRY_DELAY_MS, 50 * 2 ** Math.min(attempts, 16))
        const delay = retryDelay(attempts)
        expect(delay).toBeGreaterThanOrEqual(base)
        expect(delay).toBeLessThanOrEqual(base * 1.2)
      }
      jitter.mockRestore()
    }
  })

  it('a write that cannot succeed (the ask’s row does not parse) takes it down STORE_FAILED, no retry armed', () => {
    const { actor, effects } = writing()
    actor.send({ type: 'commit.failed', lasting: true })
    expect(actor.getSnapshot().output).toEqual({
      verdict: 'takenDown',
      ending: storeFailedOutcome(),
    })
    expect(effects.ended).toEqual([storeFailedOutcome()])
    expect(vi.getTimerCount()).toBe(0)
  })

  it('an ending while it waits to retry takes it down, its timer cleared', () => {
    const { actor, effects } = writing()
    actor.send({ type: 'commit.failed', lasting: false })
    expect(vi.getTimerCount()).toBe(1)
    actor.send({ type: 'ask.ending', error: callerAbortOutcome() })
    expect(actor.getSnapshot().output).toEqual({
      verdict: 'takenDown',
      ending: callerAbortOutcome(),
    })
    expect(effects.ended).toEqual([callerAbortOutcome()])
    expect(vi.getTimerCount()).toBe(0)
  })

  // The deadline ends the ask here (ask.ending), or another seam commits the timeout (ask.settled).
  const ending = { type: 'ask.ending', error: timeout } as const
  const settled = { type: 'ask.settled', outcome: timeout } as const
  const failed = { type: 'commit.failed', lasting: false } as const
  it.each([
    ['the deadline reached while the write is under way, which then fails', [ending, failed]],
    ['the deadline reached while it waits to retry', [failed, ending]],
    ['another seam commits the timeout while it waits to retry', [failed, settled]],
    [
      'another seam commits the timeout while the write is under way, which fails',
      [settled, failed],
    ],
  ] as const)(
    '%s: the provider hears the answer came too late to be kept, not that nobody answered',
    (_name, events) => {
      const { actor, effects } = writing()
      for (const event of events) actor.send(event)
      expect(actor.getSnapshot().output).toEqual(
        (events as readonly PresentationEvent[]).includes(settled)
          ? { verdict: 'refused', outcome: timeout }
          : { verdict: 'takenDown', ending: tooLate },
      )
      expect(effects.ended).toEqual([tooLate])
    },
  )

  it('a settlement committed elsewhere while it waits to retry refuses it', () => {
    const { actor, effects } = writing()
    actor.send({ type: 'commit.failed', lasting: false })
    actor.send({ type: 'ask.settled', outcome: cancelled })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'refused', outcome: cancelled })
    expect(effects.ended).toEqual([settledElsewhereOutcome(cancelled)])
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('presentationMachine: what reaches it while it writes', () => {
  it('a settlement committed elsewhere waits for the write’s own result: lost', () => {
    const { actor, effects } = writing()
    actor.send({ type: 'ask.settled', outcome: cancelled })
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
    actor.send({ type: 'commit.done', outcome: cancelled, won: false })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'refused', outcome: cancelled })
    expect(effects.ended).toEqual([settledElsewhereOutcome(cancelled)])
  })

  it('a settlement heard while it writes is its own write’s, when the write says it won', () => {
    const { actor, effects } = writing()
    actor.send({ type: 'ask.settled', outcome: answered })
    actor.send({ type: 'commit.done', outcome: answered, won: true })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'accepted', outcome: answered })
    expect(effects).toMatchObject({ told: [{ status: 'accepted' }], ended: [] })
  })

  it('a settlement committed elsewhere and a write that failed: refused, not retried', () => {
    const { actor, effects } = writing()
    actor.send({ type: 'ask.settled', outcome: cancelled })
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'refused', outcome: cancelled })
    expect(effects.offered).toHaveLength(1)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('an ending while it writes lets the write finish: accepted when it won', () => {
    const { actor, effects } = writing()
    actor.send({ type: 'ask.ending', error: callerAbortOutcome() })
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
    expect(actor.getSnapshot().context.yielding).toBe(true)
    actor.send({ type: 'commit.done', outcome: answered, won: true })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'accepted', outcome: answered })
    expect(effects.ended).toEqual([])
  })

  it('an ending while it writes, and a write that failed: taken down with the ending, not retried', () => {
    const { actor, effects } = writing()
    actor.send({ type: 'ask.ending', error: seamClosedOutcome() })
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().output).toEqual({
      verdict: 'takenDown',
      ending: seamClosedOutcome(),
    })
    expect(effects.ended).toEqual([seamClosedOutcome()])
    expect(effects.offered).toHaveLength(1)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('the provider withdrawn while its answer is committed changes nothing: the human’s answer is kept', async () => {
    const { actor, effects } = writing()
    actor.send({ type: 'provider.withdrawn', error: handedOverOutcome() })
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
    actor.send({ type: 'commit.failed', lasting: false })
    actor.send({ type: 'provider.withdrawn', error: handedOverOutcome() })
    expect(actor.getSnapshot().value).toEqual({ committing: 'waiting' })
    await vi.advanceTimersToNextTimerAsync()
    actor.send({ type: 'commit.done', outcome: answered, won: true })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'accepted', outcome: answered })
    expect(effects).toMatchObject({ offered: [answered, answered], ended: [] })
  })
})

describe('presentationMachine: what reaches it while the provider thinks', () => {
  it.each<[string, AskOutcome, AskRejection]>([
    ['an answer', answered, settledElsewhereOutcome(answered)],
    ['a timeout', timeout, timeout],
  ])('%s committed elsewhere refuses it with its ending', (_name, outcome, ending) => {
    const { actor, effects } = presenting()
    actor.send({ type: 'ask.settled', outcome })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'refused', outcome })
    expect(effects.ended).toEqual([ending])
  })

  it.each([
    ['an ending', 'ask.ending', callerAbortOutcome()],
    ['a withdrawal', 'provider.withdrawn', handedOverOutcome()],
  ] as const)('%s takes it down with its error', (_name, type, error) => {
    const { actor, effects } = presenting()
    actor.send({ type, error })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'takenDown', ending: error })
    expect(effects).toMatchObject({ ended: [error], offered: [], told: [] })
  })

  it('a commit result while nothing was offered changes nothing', () => {
    const { actor } = presenting()
    actor.send({ type: 'commit.done', outcome: answered, won: true })
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().value).toBe('presenting')
    actor.stop()
  })
})

describe('presentationMachine in the seam: a commit that fails, then succeeds', () => {
  it('keeps the human’s answer: retried after the backoff, the provider told accepted only once it is committed', async () => {
    const holding = holdingStore(createMemoryStore())
    const seam = createUserQuestions({ store: holding.store })
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    await settle()
    const asked = track(seam.ask({ questions }))
    const call = await provider.call(0)
    const told = track(call.request.settlement!)
    call.resolve(answer)
    await settle()
    expect(holding.held).toHaveLength(1)
    holding.held.shift()!.fail(new Error('database is locked'))
    await settle()
    // Still pending and still presented: the answer waits to be written again.
    expect(seam.pending()).toMatchObject([{ state: 'presenting' }])
    expect(asked.settlement).toEqual({ status: 'pending' })
    expect(told.settlement).toEqual({ status: 'pending' })
    expect(call.request.signal.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(60)
    expect(holding.held.map(({ outcome }) => outcome)).toEqual([answered])
    await holding.held.shift()!.run()
    await settle()
    expect(asked.settlement).toEqual({ status: 'fulfilled', value: answer })
    expect(told.settlement).toEqual({ status: 'fulfilled', value: { status: 'accepted' } })
    expect(call.request.signal.aborted).toBe(false)
    expect(provider.calls).toHaveLength(1)
    await seam.close()
  })
})

describe('presentationMachine: a fresh presentation', () => {
  it('has counted no votes, refusals or attempts, and is neither yielding nor withdrawn', () => {
    const actor = createActor(presentationMachine, { input: presentationInput() }).start()
    expect(actor.getSnapshot().context).toMatchObject({
      proposal: undefined,
      responder: undefined,
      voting: false,
      given: [],
      refusals: 0,
      attempts: 0,
      outcome: undefined,
      won: false,
      yielding: false,
      withdrawn: false,
    })
    actor.stop()
  })
})

describe('presentationMachine: an ask that needs approvals opens on the store’s count', () => {
  const plan = planReview() as unknown as PresentationInput['questions'][number]
  const ann = { id: 'ann', via: 'console' }

  /** A presentation of a plan two must approve, its read of the votes left to the test. */
  function counting() {
    const effects = { reads: 0, called: 0, ended: [] as AskRejection[] }
    const machine = presentationMachine.provide({
      actions: {
        readVotes: () => {
          effects.reads += 1
        },
        callProvider: () => {
          effects.called += 1
        },
        endPresentation: (_, { error }) => {
          effects.ended.push(error)
        },
      },
    })
    const input = presentationInput({ questions: [plan], policy: { approvals: 2 } })
    const actor = createActor(machine, { input }).start()
    expect(actor.getSnapshot().value).toBe('counting')
    return { actor, effects }
  }

  it('reads the votes before the provider is called, and shows the ask with them', () => {
    const { actor, effects } = counting()
    expect(effects).toMatchObject({ reads: 1, called: 0 })
    // Nothing the provider could say has been asked yet.
    actor.send({ type: 'provider.answered', answer })
    expect(actor.getSnapshot().value).toBe('counting')
    actor.send({ type: 'votes.read', given: [ann] })
    expect(actor.getSnapshot().value).toBe('presenting')
    expect(actor.getSnapshot().context.given).toEqual([ann])
    expect(effects).toMatchObject({ reads: 1, called: 1 })
    actor.stop()
  })

  it.each([
    ['no policy', {}],
    ['who may answer, and no count', { policy: { answerers: ['ann'] } }],
  ])('an ask with %s reads no votes', (_name, extra) => {
    const reads = vi.fn()
    const machine = presentationMachine.provide({ actions: { readVotes: reads } })
    const actor = createActor(machine, { input: presentationInput(extra) }).start()
    expect(actor.getSnapshot().value).toBe('presenting')
    expect(reads).not.toHaveBeenCalled()
    actor.stop()
  })

  it('settled elsewhere while it reads: refused, and the provider is never called', () => {
    const { actor, effects } = counting()
    actor.send({ type: 'ask.settled', outcome: answered })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'refused', outcome: answered })
    expect(effects).toMatchObject({ called: 0, ended: [settledElsewhereOutcome(answered)] })
  })

  it.each([
    ['an ending', 'ask.ending', callerAbortOutcome()],
    ['a withdrawal', 'provider.withdrawn', handedOverOutcome()],
  ] as const)(
    '%s while it reads takes it down, and the provider is never called',
    (_name, type, error) => {
      const { actor, effects } = counting()
      actor.send({ type, error })
      expect(actor.getSnapshot().output).toEqual({ verdict: 'takenDown', ending: error })
      expect(effects).toMatchObject({ called: 0, ended: [error] })
    },
  )
})

describe('presentationMachine: refusals of who answered', () => {
  it('counts each refused answer, and shows the ask again after each pause', async () => {
    const { actor, effects } = presenting({ policy: { answerers: ['bob'] } })
    actor.send({ type: 'provider.answered', answer })
    expect(actor.getSnapshot().value).toBe('pausing')
    expect(actor.getSnapshot().context.refusals).toBe(1)
    await vi.advanceTimersByTimeAsync(MAX_RETRY_DELAY_MS * 2)
    expect(actor.getSnapshot().value).toBe('presenting')
    expect(effects.called).toBe(2)
    actor.send({ type: 'provider.answered', answer })
    expect(actor.getSnapshot().context.refusals).toBe(2)
    expect(effects.offered).toEqual([])
    actor.stop()
  })
  it('an answer refused for who gave it is no answer to keep: the timeout then committed elsewhere is told as it is', () => {
    const { actor, effects } = presenting({ policy: { answerers: ['bob'] } })
    actor.send({ type: 'provider.answered', answer })
    expect(actor.getSnapshot().value).toBe('pausing')
    actor.send({ type: 'ask.settled', outcome: timeout })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'refused', outcome: timeout })
    expect(effects.ended).toEqual([timeout])
  })

  it('an approval counted is kept: the timeout then committed elsewhere is told as it is', () => {
    const plan = planReview() as unknown as PresentationInput['questions'][number]
    const ann = { id: 'ann', via: 'console' }
    const { actor, effects } = presenting({ questions: [plan], policy: { approvals: 2 } })
    actor.send({
      type: 'provider.answered',
      answer: { answers: [{ id: 'plan', selected: ['Approve'] }], by: ann },
    })
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
    actor.send({ type: 'vote.counted', given: [ann] })
    expect(actor.getSnapshot().value).toBe('presenting')
    actor.send({ type: 'ask.settled', outcome: timeout })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'refused', outcome: timeout })
    expect(effects.ended).toEqual([timeout])
  })
})

describe('presentationMachine: what the store says of an approval being written', () => {
  const plan = planReview() as unknown as PresentationInput['questions'][number]
  const ann = { id: 'ann', via: 'console' }
  const bob = { id: 'bob', via: 'console' }

  /** A plan two must approve, ann's approval being written. */
  function approving() {
    const run = presenting({ questions: [plan], policy: { approvals: 2 } })
    run.actor.send({
      type: 'provider.answered',
      answer: { answers: [{ id: 'plan', selected: ['Approve'] }], by: ann },
    })
    expect(run.actor.getSnapshot().value).toEqual({ committing: 'writing' })
    return run
  }

  it('counted while its provider was withdrawn: taken down, the provider told its vote counted, with the count', () => {
    const { actor, effects } = approving()
    actor.send({ type: 'provider.withdrawn', error: handedOverOutcome() })
    actor.send({ type: 'vote.counted', given: [bob, ann] })
    expect(actor.getSnapshot().output).toEqual({
      verdict: 'takenDown',
      ending: handedOverOutcome(),
    })
    expect(effects.told).toEqual([
      { status: 'counted', approvals: { required: 2, given: [bob, ann] } },
    ])
  })

  it('counted on a retry after its provider was withdrawn while it waited: taken down, not shown again', async () => {
    const { actor, effects } = approving()
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().value).toEqual({ committing: 'waiting' })
    actor.send({ type: 'provider.withdrawn', error: handedOverOutcome() })
    await vi.advanceTimersByTimeAsync(MAX_RETRY_DELAY_MS * 2)
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
    actor.send({ type: 'vote.counted', given: [ann] })
    expect(actor.getSnapshot().output).toEqual({
      verdict: 'takenDown',
      ending: handedOverOutcome(),
    })
    expect(effects.called).toBe(1)
  })

  it('already counted, and the ask settled meanwhile: refused with what settled it', () => {
    const { actor } = approving()
    actor.send({ type: 'ask.settled', outcome: timeout })
    actor.send({ type: 'vote.already', given: [ann] })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'refused', outcome: timeout })
  })

  it('already counted (the same person approved elsewhere): refused already-voted, and shown again with the store’s count', () => {
    const { actor, effects } = approving()
    actor.send({ type: 'vote.already', given: [ann] })
    expect(actor.getSnapshot().value).toBe('pausing')
    expect(actor.getSnapshot().context.given).toEqual([ann])
    expect(effects.told).toMatchObject([
      { status: 'refused', error: { code: 'BAD_ANSWER', details: { reason: 'already-voted' } } },
    ])
    actor.stop()
  })
})
