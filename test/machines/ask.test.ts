/**
 * askMachine as a bare machine and with its effects provided: admission,
 * purity, data-only context, time, and the durable store's keyed asks.
 * ask-presentation.test.ts has how the ask and its presentation take turns.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor, getNextSnapshot } from 'xstate'
import { MAX_DELAY_MS, askMachine } from '../../src/machines/index.js'
import type { AskInput, HeldAsk } from '../../src/machines/index.js'
import {
  callerAbortOutcome,
  seamClosedOutcome,
  storeFailedOutcome,
} from '../../src/vocabulary/index.js'
import type { AskOutcome } from '../../src/vocabulary/index.js'
import { settle } from '../support/settle.js'
import { captureWarnings, named } from '../support/warnings.js'
import { askInput, questions, recordingAsk, yes } from './ask-input.js'

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(0)
})
afterEach(() => {
  vi.useRealTimers()
})

const held = (extra: Partial<HeldAsk> = {}): HeldAsk => ({
  askId: 'held',
  questions,
  startedAt: 5,
  deadline: 90_000,
  agentId: 'agent-1',
  ...extra,
})

function admitting(extra: Partial<AskInput> = {}) {
  const { machine, effects } = recordingAsk({ admission: 'by the test' })
  const actor = createActor(machine, { input: askInput({ key: 'k', ...extra }) }).start()
  expect(actor.getSnapshot().value).toBe('admitting')
  return { actor, effects }
}

describe('askMachine: admission', () => {
  it('admitted: the ask is presented', () => {
    const { actor, effects } = admitting()
    actor.send({ type: 'admission.done', result: { status: 'admitted' } })
    expect(actor.getSnapshot().value).toEqual({ pending: 'presented' })
    expect(effects.shown).toBe(1)
    actor.stop()
  })

  it('the store already holds the key, pending: the ask follows it under the held ask’s id and deadline', () => {
    const { actor, effects } = admitting({ deadline: 60_000 })
    actor.send({ type: 'admission.done', result: { status: 'existing', ask: held() } })
    const snapshot = actor.getSnapshot()
    expect(snapshot.value).toEqual({ pending: { following: 'watching' } })
    expect(snapshot.context).toMatchObject({
      askId: 'held',
      startedAt: 5,
      deadline: 90_000,
      agentId: 'agent-1',
    })
    // Shown wherever its own seam's provider is: not presented a second time here.
    expect(effects.shown).toBe(0)
    actor.send({ type: 'ask.settled', outcome: { status: 'answered', answer: yes } })
    expect(actor.getSnapshot().output).toEqual({ status: 'answered', answer: yes })
    // Settled while this ask followed it: decided now, not a replay.
    expect(actor.getSnapshot().context.replayed).toBe(false)
    expect(effects.offered).toEqual([])
  })

  it('the ask it follows ends without the human (its caller gave up): it asks anew, as the ask it minted', () => {
    const { actor, effects } = admitting({ deadline: 60_000, agentId: 'mine' })
    actor.send({ type: 'admission.done', result: { status: 'existing', ask: held() } })
    expect(actor.getSnapshot().context.askId).toBe('held')
    actor.send({ type: 'ask.settled', outcome: callerAbortOutcome() })
    const snapshot = actor.getSnapshot()
    expect(snapshot.value).toBe('admitting')
    expect(snapshot.context).toMatchObject({
      askId: 'a1',
      deadline: 60_000,
      agentId: 'mine',
      own: undefined,
      outcome: undefined,
    })
    actor.send({ type: 'admission.done', result: { status: 'admitted' } })
    expect(actor.getSnapshot().value).toEqual({ pending: 'presented' })
    expect(effects.shown).toBe(1)
    actor.stop()
  })

  it('the store already holds the key, settled: its outcome is replayed at once, marked as a replay', () => {
    const { actor, effects } = admitting()
    const outcome = { status: 'answered' as const, answer: yes }
    actor.send({ type: 'admission.done', result: { status: 'existing', ask: held({ outcome }) } })
    expect(actor.getSnapshot().value).toBe('answered')
    expect(actor.getSnapshot().output).toEqual(outcome)
    expect(actor.getSnapshot().context).toMatchObject({ askId: 'held', replayed: true })
    expect(effects).toMatchObject({ shown: 0, offered: [] })
  })

  it('asking anew, it drops the held ask’s timer and keeps its own deadline', async () => {
    const { actor, effects } = admitting({ deadline: 200_000 })
    actor.send({ type: 'admission.done', result: { status: 'existing', ask: held() } })
    actor.send({ type: 'ask.settled', outcome: callerAbortOutcome() })
    actor.send({ type: 'admission.done', result: { status: 'admitted' } })
    // Past the held ask's deadline (90 s): the ask it left no longer times this one out.
    await vi.advanceTimersByTimeAsync(100_000)
    expect(actor.getSnapshot().context.proposal).toBeUndefined()
    await vi.advanceTimersByTimeAsync(100_000)
    expect(effects.offered).toEqual([
      expect.objectContaining({
        error: expect.objectContaining({
          code: 'ASK_TIMEOUT',
          details: { deadline: 200_000, startedAt: 0 },
        }),
      }),
    ])
  })

  it('follows a held ask with the held deadline: it times out then, not at its own', async () => {
    const { actor, effects } = admitting({ deadline: 60_000 })
    actor.send({ type: 'admission.done', result: { status: 'existing', ask: held() } })
    await vi.advanceTimersByTimeAsync(60_000)
    expect(actor.getSnapshot().context.proposal).toBeUndefined()
    await vi.advanceTimersByTimeAsync(30_000)
    expect(effects.offered).toEqual([
      expect.objectContaining({
        error: expect.objectContaining({
          code: 'ASK_TIMEOUT',
          details: { deadline: 90_000, startedAt: 5 },
        }),
      }),
    ])
  })

  it('a held pending ask on a store nothing outlives, with no provider anywhere: NO_PROVIDER, as a new ask would', () => {
    const { actor, effects } = admitting({ providerHere: false, waitForProviderMs: 0 })
    actor.send({ type: 'admission.done', result: { status: 'existing', ask: held() } })
    expect(actor.getSnapshot().value).toBe('failed')
    expect(actor.getSnapshot().output).toMatchObject({ error: { code: 'NO_PROVIDER' } })
    expect(effects.offered).toEqual([])
  })

  it('a held pending ask on a durable store with no provider anywhere is followed: a human may answer it later', () => {
    const { actor } = admitting({ providerHere: false, durable: true })
    actor.send({ type: 'admission.done', result: { status: 'existing', ask: held() } })
    expect(actor.getSnapshot().value).toEqual({ pending: { following: 'watching' } })
    actor.stop()
  })

  it.each<[string, AskOutcome, string]>([
    ['an answer', { status: 'answered', answer: yes }, 'answered'],
    [
      'a cancel',
      { status: 'rejected', error: { code: 'ASK_CANCELLED', message: 'no' } },
      'cancelled',
    ],
    [
      'a timeout',
      {
        status: 'rejected',
        error: { code: 'ASK_TIMEOUT', message: 'late', details: { deadline: 9, startedAt: 5 } },
      },
      'timedOut',
    ],
  ])('the store holds the key settled with %s: that outcome at once', (_name, outcome, ending) => {
    const { actor, effects } = admitting({ providerHere: false })
    actor.send({ type: 'admission.done', result: { status: 'existing', ask: held({ outcome }) } })
    expect(actor.getSnapshot().value).toBe(ending)
    expect(actor.getSnapshot().output).toEqual(
      outcome.status === 'answered' ? outcome : { status: 'rejected', error: outcome.error },
    )
    expect(effects).toMatchObject({ shown: 0, offered: [] })
  })

  it('the store holds the key with other questions: INVALID_REQUEST naming the key and the held ask', () => {
    const { actor, effects } = admitting()
    const other = [{ id: 'other', question: 'Something else?' }]
    actor.send({
      type: 'admission.done',
      result: { status: 'existing', ask: held({ questions: other }) },
    })
    expect(actor.getSnapshot().value).toBe('failed')
    expect(actor.getSnapshot().output).toEqual({
      status: 'rejected',
      error: {
        code: 'INVALID_REQUEST',
        message: 'this key belongs to an ask with other questions',
        details: { field: 'key', askId: 'held', differs: 'questions' },
      },
    })
    expect(effects).toMatchObject({ shown: 0, offered: [] })
  })

  it('the store holds the key with the same questions and other answerers: INVALID_REQUEST, the policy differs', () => {
    const { actor, effects } = admitting()
    actor.send({
      type: 'admission.done',
      result: { status: 'existing', ask: held({ policy: { answerers: ['ann'] } }) },
    })
    expect(actor.getSnapshot().output).toMatchObject({
      status: 'rejected',
      error: { code: 'INVALID_REQUEST', details: { field: 'key', differs: 'policy' } },
    })
    expect(effects).toMatchObject({ shown: 0, offered: [] })
  })

  /** An admission that failed: its failure is offered to the store (the write may have landed). */
  function admissionFailed() {
    const run = admitting()
    run.actor.send({ type: 'admission.failed' })
    expect(run.actor.getSnapshot().value).toEqual({ committing: 'writing' })
    expect(run.effects).toMatchObject({ shown: 0, offered: [storeFailedOutcome()] })
    return run
  }
  const storeFailed = {
    status: 'rejected',
    error: { code: 'STORE_FAILED', message: 'the ask store could not be read or written' },
    cause: 'store',
  }

  it.each([
    ['the store holds no such ask (nothing landed)', { type: 'commit.failed', lasting: true }],
    [
      'the write of the failure fails too: written once, not retried',
      { type: 'commit.failed', lasting: false },
    ],
    [
      'the admission had landed: the failure is committed',
      { type: 'commit.done', outcome: storeFailedOutcome(), won: true },
    ],
  ] as const)(
    'the admission fails, and %s: STORE_FAILED, the store as its cause',
    (_name, event) => {
      const { actor, effects } = admissionFailed()
      actor.send(event)
      expect(actor.getSnapshot().value).toBe('failed')
      expect(actor.getSnapshot().output).toEqual(storeFailed)
      expect(effects.offered).toHaveLength(1)
    },
  )

  it.each([
    ['fails too', { type: 'commit.failed', lasting: false }, true],
    ['is committed', { type: 'commit.done', outcome: storeFailedOutcome(), won: true }, false],
  ] as const)(
    'the write of a failed admission’s ending %s: the seam is told to write it later only if unwritten',
    (_name, event, unwritten) => {
      const { actor } = admissionFailed()
      const told: unknown[] = []
      actor.on('ending.unwritten', (emitted) => told.push(emitted))
      actor.send(event)
      const { askId } = actor.getSnapshot().context
      const expected = { type: 'ending.unwritten', askId, outcome: storeFailedOutcome() }
      expect(told).toEqual(unwritten ? [expected] : [])
    },
  )

  it('an ending whose write waits for a retry as the seam closes is left unwritten, and the seam is told', () => {
    const { actor } = admitting({ key: undefined })
    const told: unknown[] = []
    actor.on('ending.unwritten', (emitted) => told.push(emitted))
    actor.send({ type: 'admission.done', result: { status: 'admitted' } })
    actor.send({ type: 'ask.aborted' })
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().value).toEqual({ committing: 'waiting' })
    expect(told).toEqual([])
    actor.send({ type: 'seam.closed' })
    expect(actor.getSnapshot().output).toMatchObject({ error: { code: 'STORE_FAILED' } })
    expect(told).toMatchObject([{ type: 'ending.unwritten', outcome: storeFailedOutcome() }])
  })

  it('the seam closes during admission, then the admission fails: the failure is written once', () => {
    const { actor, effects } = admitting({ key: undefined })
    actor.send({ type: 'seam.closed' })
    actor.send({ type: 'admission.failed' })
    expect(actor.getSnapshot().context.proposal).toMatchObject({ once: true, cause: 'store' })
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().value).toBe('failed')
    expect(effects.offered).toEqual([storeFailedOutcome()])
  })

  it('the caller aborts during admission, then the seam closes: the abort is written once', () => {
    const { actor, effects } = admitting()
    actor.send({ type: 'ask.aborted' })
    actor.send({ type: 'seam.closed' })
    actor.send({ type: 'admission.done', result: { status: 'admitted' } })
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().value).toBe('failed')
    expect(actor.getSnapshot().output).toMatchObject({ error: { code: 'STORE_FAILED' } })
    expect(effects.offered).toEqual([callerAbortOutcome()])
  })

  it.each([
    [
      'its own ending (its write landed, its reply not yet come, or lost)',
      callerAbortOutcome(),
      'caller',
    ],
    ['another ending committed first', { status: 'answered' as const, answer: yes }, undefined],
  ])(
    'the feed tells of the ask settled while its ending is written, %s: that is its outcome',
    (_name, outcome, cause) => {
      const { actor, effects } = admitting({ key: undefined })
      actor.send({ type: 'admission.done', result: { status: 'admitted' } })
      actor.send({ type: 'ask.aborted' })
      expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
      actor.send({ type: 'ask.settled', outcome })
      expect(actor.getSnapshot().status).toBe('done')
      expect(actor.getSnapshot().context).toMatchObject({ outcome, cause })
      expect(effects.offered).toEqual([callerAbortOutcome()])
    },
  )

  it('the admission fails after it landed, and a console answered it meanwhile: the caller gets that answer', () => {
    const { actor } = admissionFailed()
    const answered = { status: 'answered' as const, answer: { answers: [] } }
    actor.send({ type: 'commit.done', outcome: answered, won: false })
    expect(actor.getSnapshot().value).toBe('answered')
    expect(actor.getSnapshot().output).toEqual({ status: 'answered', answer: { answers: [] } })
  })

  it('the caller aborts during admission: an admitted ask is ended in the store, never shown', () => {
    const { actor, effects } = admitting()
    actor.send({ type: 'ask.aborted' })
    actor.send({ type: 'seam.closed' })
    expect(actor.getSnapshot().value).toBe('admitting')
    actor.send({ type: 'admission.done', result: { status: 'admitted' } })
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
    // The first ending stands.
    expect(effects).toMatchObject({ shown: 0, offered: [callerAbortOutcome()] })
  })

  it('the caller aborts during admission of a key the store holds pending: it leaves, nothing is written', () => {
    const { actor, effects } = admitting()
    actor.send({ type: 'ask.aborted' })
    actor.send({ type: 'admission.done', result: { status: 'existing', ask: held() } })
    expect(actor.getSnapshot().value).toBe('aborted')
    expect(actor.getSnapshot().output).toMatchObject({ error: callerAbortOutcome().error })
    expect(effects).toMatchObject({ shown: 0, offered: [] })
  })

  // SUSPECTED BUG (askMachine, `pending.following`): the caller of a followed ask that aborts
  // goes through `pending`'s `ask.aborted`, which proposes the abort with `commit: true`: the
  // seam writes ASK_ABORTED into the other seam's ask, whose own caller still waits (DESIGN §10:
  // "a caller's abort ends the ask when no other caller is attached to it"). The same abort
  // during admission leaves the held ask alone (`keepHeldAsk`), as a second caller on the same
  // seam does.
  it('the caller of a followed ask that aborts leaves it: nothing is written', () => {
    const { actor, effects } = admitting()
    actor.send({ type: 'admission.done', result: { status: 'existing', ask: held() } })
    actor.send({ type: 'ask.aborted' })
    expect(actor.getSnapshot().value).toBe('aborted')
    expect(effects.offered).toEqual([])
  })

  describe('before the seam has read its fleet', () => {
    const early = (extra: Partial<AskInput> = {}) => {
      const { machine, effects } = recordingAsk({ admission: 'by the test' })
      const input = askInput({ providerHere: false, fleetKnown: false, ...extra })
      const actor = createActor(machine, { input }).start()
      expect(actor.getSnapshot().value).toBe('awaitingFleet')
      return { actor, effects }
    }

    it('no provider anywhere: NO_PROVIDER once the fleet is read, before anything is written', () => {
      const { actor } = early()
      actor.send({ type: 'providers.elsewhere', active: false })
      expect(actor.getSnapshot().value).toBe('failed')
      expect(actor.getSnapshot().output).toMatchObject({ error: { code: 'NO_PROVIDER' } })
    })

    it('a provider on another seam: admitted, then shown there', () => {
      const { actor, effects } = early()
      actor.send({ type: 'providers.elsewhere', active: true })
      expect(actor.getSnapshot().value).toBe('admitting')
      actor.send({ type: 'admission.done', result: { status: 'admitted' } })
      expect(actor.getSnapshot().value).toEqual({ pending: 'presentedElsewhere' })
      expect(effects.shown).toBe(0)
      actor.stop()
    })

    it('a provider registered here first: admitted and presented', () => {
      const { actor } = early()
      actor.send({ type: 'provider.available' })
      actor.send({ type: 'admission.done', result: { status: 'admitted' } })
      expect(actor.getSnapshot().value).toEqual({ pending: 'presented' })
      actor.stop()
    })

    it.each([
      ['the caller’s abort', 'ask.aborted', callerAbortOutcome()],
      ['the seam closing', 'seam.closed', seamClosedOutcome()],
    ] as const)(
      '%s: the ask ends for its caller alone, nothing written',
      (_name, type, outcome) => {
        const { actor, effects } = early()
        actor.send({ type })
        expect(actor.getSnapshot().value).toBe('aborted')
        expect(actor.getSnapshot().output).toMatchObject({ error: outcome.error })
        expect(effects.offered).toEqual([])
      },
    )
  })
})

describe('askMachine is pure and its context is data', () => {
  const presented = () => {
    const spies = {
      offerCommit: vi.fn(),
      takeDownPresentation: vi.fn(),
      withdrawPresentation: vi.fn(),
      forwardSettlement: vi.fn(),
    }
    const machine = askMachine.provide({ actions: spies })
    const actor = createActor(machine, {
      input: askInput({ startedAt: 1_000, deadline: 61_000, providerGraceMs: 5_000 }),
    }).start()
    expect(actor.getSnapshot().value).toEqual({ pending: 'presented' })
    return { machine, actor, spies }
  }
  const called = (spies: Record<string, ReturnType<typeof vi.fn>>) =>
    Object.entries(spies)
      .filter(([, spy]) => spy.mock.calls.length > 0)
      .map(([name]) => name)

  it('computing a transition with getNextSnapshot runs none of its effects', () => {
    const { machine, actor, spies } = presented()
    const before = actor.getSnapshot()
    const events = [
      { type: 'provider.disposed' },
      { type: 'ask.aborted' },
      { type: 'seam.closed' },
      { type: 'ask.deadline', final: true },
      { type: 'ask.settled', outcome: { status: 'answered', answer: yes } },
    ] as const
    const next = events.map((event) => getNextSnapshot(machine, before, event))
    expect(next[0]!.context.providerHere).toBe(false)
    expect(next[1]!.context.proposal?.outcome).toEqual(callerAbortOutcome())
    expect(next[3]!.context.proposal?.outcome.error.code).toBe('ASK_TIMEOUT')
    expect(called(spies)).toEqual([])
    expect(actor.getSnapshot()).toBe(before)

    actor.send({ type: 'provider.disposed' })
    expect(called(spies)).toEqual(['withdrawPresentation'])
    actor.stop()
  })

  it('computing the step into committing offers nothing to the store', () => {
    const { machine, actor, spies } = presented()
    const waiting = createActor(machine, {
      input: askInput({ providerHere: false, waitForProviderMs: 1_000 }),
    }).start()
    const next = getNextSnapshot(machine, waiting.getSnapshot(), { type: 'ask.aborted' })
    expect(next.value).toEqual({ committing: 'writing' })
    expect(called(spies)).toEqual([])
    waiting.send({ type: 'ask.aborted' })
    expect(called(spies)).toEqual(['offerCommit'])
    actor.stop()
    waiting.stop()
  })

  it('a presented ask persists as plain JSON, its deadline absolute, its presentation as data', () => {
    const { actor } = presented()
    actor.send({ type: 'provider.disposed' })
    actor.send({ type: 'provider.available' })
    const persisted: unknown = actor.getPersistedSnapshot()
    expect(JSON.parse(JSON.stringify(persisted))).toEqual(persisted)
    const plain = (value: unknown): boolean => {
      if (value === null || typeof value !== 'object') return typeof value !== 'function'
      const prototype = Object.getPrototypeOf(value) as unknown
      if (prototype !== Object.prototype && prototype !== Array.prototype) return false
      return Object.values(value).every(plain)
    }
    expect(plain(persisted)).toBe(true)
    const { context, children } = persisted as {
      context: Record<string, unknown>
      children: Record<string, { snapshot: { value: unknown; context: Record<string, unknown> } }>
    }
    expect(context).toMatchObject({ askId: 'a1', startedAt: 1_000, deadline: 61_000 })
    expect(children.presentation?.snapshot).toMatchObject({
      value: 'presenting',
      context: { askId: 'a1', deadline: 61_000 },
    })
    actor.stop()
  })

  it('a proposal and an outcome persist as data too', () => {
    const { machine } = recordingAsk()
    const actor = createActor(machine, { input: askInput() }).start()
    actor.send({ type: 'ask.aborted' })
    actor.send({ type: 'commit.failed', lasting: true })
    const persisted = actor.getPersistedSnapshot()
    expect(JSON.parse(JSON.stringify(persisted))).toEqual(persisted)
    expect(persisted).toMatchObject({
      context: { proposal: { cause: 'caller' }, outcome: { error: { code: 'STORE_FAILED' } } },
    })
  })

  it('restores a presented ask with its presentation still presenting', () => {
    const { machine } = recordingAsk()
    const actor = createActor(machine, { input: askInput() }).start()
    const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as ReturnType<
      typeof actor.getPersistedSnapshot
    >
    actor.stop()
    const restored = createActor(machine, { snapshot: persisted, input: askInput() }).start()
    const child = restored.getSnapshot().children.presentation
    expect(child?.getSnapshot()).toMatchObject({
      status: 'active',
      value: 'presenting',
      context: { askId: 'a1' },
    })
    restored.stop()
  })

  it.each([
    ['holds the deadline when the ask has one', { agentId: 'agent-1', deadline: 5_000 }],
    ['holds no deadline when the ask has none', {}],
  ])('the presentation it runs %s', (_name, extra: Partial<AskInput>) => {
    const { machine } = recordingAsk()
    const actor = createActor(machine, { input: askInput(extra) }).start()
    const input = actor.getSnapshot().children.presentation!.getSnapshot().context
    expect(input).toMatchObject({ askId: 'a1', questions, startedAt: 0, openedAt: 0 })
    expect(input.deadline).toEqual(extra.deadline)
    // The agent is the provider's to hear (`ProviderRequest.agent`), not the presentation's.
    expect('agentId' in input).toBe(false)
    actor.stop()
  })

  it('a presentation its ask leaves is stopped and gone from its children', () => {
    const { machine } = recordingAsk()
    const actor = createActor(machine, { input: askInput() }).start()
    const child = actor.getSnapshot().children.presentation!
    actor.send({ type: 'ask.aborted' })
    expect(child.getSnapshot().status).not.toBe('active')
    expect(actor.getSnapshot().children.presentation).toBeUndefined()
  })
})

describe('askMachine: its deadline timer', () => {
  it.each([
    ['presented here', {}, { pending: 'presented' }],
    [
      'left for a human (keyed, on a durable store, no UI anywhere)',
      { providerHere: false, durable: true, key: 'k' },
      { pending: { waitingForProvider: 'forHuman' } },
    ],
    [
      'presented on another seam',
      { providerHere: false, providerElsewhere: true },
      { pending: 'presentedElsewhere' },
    ],
  ])(
    'a deadline further off than a timer can hold fires early, not final, and is armed again: %s',
    async (_name, extra, state) => {
      const deadline = 40 * 24 * 3_600_000
      const { machine, effects } = recordingAsk()
      const actor = createActor(machine, { input: askInput({ deadline, ...extra }) }).start()
      expect(actor.getSnapshot().value).toEqual(state)
      expect(vi.getTimerCount()).toBe(1)
      // A delay past 2^31−1 ms would fire after 1 ms; clamped, the first timer fires at the limit.
      await vi.advanceTimersToNextTimerAsync()
      expect(Date.now()).toBe(MAX_DELAY_MS)
      expect(actor.getSnapshot().value).toEqual(state)
      expect(actor.getSnapshot().context.proposal).toBeUndefined()
      expect(vi.getTimerCount()).toBe(1)
      await vi.advanceTimersToNextTimerAsync()
      expect(Date.now()).toBe(deadline)
      expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
      expect(effects.offered).toEqual([
        expect.objectContaining({
          error: expect.objectContaining({
            code: 'ASK_TIMEOUT',
            details: { deadline, startedAt: 0 },
          }),
        }),
      ])
    },
  )

  it('arms its far deadline without a TimeoutOverflowWarning', async () => {
    vi.useRealTimers()
    const overflows = captureWarnings(named('TimeoutOverflowWarning'))
    const actor = createActor(recordingAsk().machine, {
      input: askInput({ startedAt: Date.now(), deadline: Date.now() + 40 * 24 * 3_600_000 }),
    }).start()
    // Node emits the warning on a later tick of the one that armed the timer.
    await settle()
    expect(actor.getSnapshot().value).toEqual({ pending: 'presented' })
    actor.stop()
    expect(overflows).toEqual([])
  })

  it('an ask with no deadline arms no timer', () => {
    const actor = createActor(recordingAsk().machine, { input: askInput() }).start()
    expect(vi.getTimerCount()).toBe(0)
    actor.stop()
  })
})

describe('askMachine: keyed asks on a durable store wait for a human', () => {
  const durable = (extra: Partial<AskInput>) => {
    const { machine, effects } = recordingAsk()
    const actor = createActor(machine, {
      input: askInput({ key: 'k', durable: true, ...extra }),
    }).start()
    return { actor, effects }
  }

  it('no provider anywhere: it waits for one, with no NO_PROVIDER and no timer', () => {
    const { actor, effects } = durable({ providerHere: false })
    expect(actor.getSnapshot().value).toEqual({ pending: { waitingForProvider: 'forHuman' } })
    expect(vi.getTimerCount()).toBe(0)
    actor.send({ type: 'provider.available' })
    expect(actor.getSnapshot().value).toEqual({ pending: 'presented' })
    expect(effects.shown).toBe(1)
    actor.stop()
  })

  it('its provider goes, with no grace: the presentation is handed over and the ask waits again', () => {
    const { actor, effects } = durable({})
    actor.send({ type: 'provider.disposed' })
    expect(actor.getSnapshot().value).toEqual({ pending: { waitingForProvider: 'forHuman' } })
    expect(actor.getSnapshot().context.proposal).toBeUndefined()
    expect(effects.ended).toEqual([
      expect.objectContaining({ details: { reason: 'provider-disposed', handOver: true } }),
    ])
    actor.stop()
  })

  it('the last provider elsewhere goes: it waits again', () => {
    const { actor } = durable({ providerHere: false, providerElsewhere: true })
    expect(actor.getSnapshot().value).toEqual({ pending: 'presentedElsewhere' })
    actor.send({ type: 'providers.elsewhere', active: false })
    expect(actor.getSnapshot().value).toEqual({ pending: { waitingForProvider: 'forHuman' } })
    actor.stop()
  })

  it('the same ask keyless, or on a store nothing outlives, ends NO_PROVIDER or provider-gone', () => {
    const keyless = createActor(recordingAsk().machine, {
      input: askInput({ durable: true, providerHere: false }),
    }).start()
    expect(keyless.getSnapshot().output).toMatchObject({ error: { code: 'NO_PROVIDER' } })
    const local = recordingAsk()
    const memory = createActor(local.machine, { input: askInput({ key: 'k' }) }).start()
    memory.send({ type: 'provider.disposed' })
    expect(local.effects.offered).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ code: 'ASK_ABORTED' }) }),
    ])
  })
})

describe('askMachine: bare', () => {
  it('knows the fleet unless told otherwise, and commits what it offers with its cause', () => {
    const actor = createActor(askMachine, { input: askInput() }).start()
    expect(actor.getSnapshot().context.fleetKnown).toBe(true)
    actor.send({ type: 'ask.aborted' })
    expect(actor.getSnapshot().output).toStrictEqual({
      status: 'rejected',
      error: callerAbortOutcome().error,
      cause: 'caller',
    })
  })
})
