/**
 * The askMachine's outcomes, read through its final state and its output:
 * which final state each outcome leads to (committed here, lost to another
 * commit, settled elsewhere) and the data of each local ending it proposes.
 * How errors become data and back is test/vocabulary/outcome.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor } from 'xstate'
import { MAX_COMMIT_RETRIES, MAX_RETRY_DELAY_MS, askMachine } from '../../src/machines/index.js'
import type { AskEvent, AskInput } from '../../src/machines/index.js'
import { report } from '../../src/protocol/effects.js'
import { createMemoryStore } from '../../src/protocol/index.js'
import type { AskStore, UserQuestionError } from '../../src/protocol/index.js'
import { callerAbortOutcome, endingOf, noProviderOutcome } from '../../src/vocabulary/index.js'
import type { AskOutcome, AskRejection, UserQuestionErrorCode } from '../../src/vocabulary/index.js'
import { rejectionOf, seamWithProvider } from '../support/controllable-provider.js'
import { holdingStore } from '../support/holding-store.js'
import { settle } from '../support/settle.js'
import { askInput, questions, recordingAsk, tellPresentation, yes } from './ask-input.js'

const rejection = (code: UserQuestionErrorCode, details?: Record<string, unknown>): AskOutcome => ({
  status: 'rejected',
  error: { code, message: `${code} happened`, ...(details ? { details } : {}) },
})
const endings: [AskOutcome, string][] = [
  [{ status: 'answered', answer: yes }, 'answered'],
  [rejection('ASK_CANCELLED'), 'cancelled'],
  [rejection('ASK_TIMEOUT'), 'timedOut'],
  [rejection('ASK_ABORTED'), 'aborted'],
  [rejection('SEAM_CLOSED'), 'aborted'],
  [rejection('NO_PROVIDER'), 'failed'],
  [rejection('STORE_FAILED'), 'failed'],
  [rejection('BAD_ANSWER'), 'failed'],
  [rejection('PROVIDER_FAILED'), 'failed'],
]
const outputOf = (outcome: AskOutcome) =>
  outcome.status === 'answered' ? outcome : { status: 'rejected', error: outcome.error }

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(0)
})
afterEach(() => {
  vi.useRealTimers()
})

describe('askMachine: the final state an outcome leads to', () => {
  it.each(endings)('%j settled elsewhere while presented ends in %s', (outcome, ending) => {
    const { machine, effects } = recordingAsk()
    const actor = createActor(machine, { input: askInput() }).start()
    actor.send({ type: 'ask.settled', outcome })
    const snapshot = actor.getSnapshot()
    expect(snapshot.value).toBe(ending)
    expect(endingOf(outcome)).toBe(ending)
    // The outcome is the store's, not this seam's: nothing offered, no live cause.
    expect(snapshot.output).toEqual(outputOf(outcome))
    expect(effects.offered).toEqual([])
  })

  it.each(endings)(
    '%j settled elsewhere while waiting for a provider ends in %s',
    (outcome, ending) => {
      const { machine, effects } = recordingAsk()
      const actor = createActor(machine, {
        input: askInput({ providerHere: false, waitForProviderMs: 1_000 }),
      }).start()
      expect(actor.getSnapshot().value).toEqual({ pending: { waitingForProvider: 'first' } })
      actor.send({ type: 'ask.settled', outcome })
      expect(actor.getSnapshot().value).toBe(ending)
      expect(actor.getSnapshot().output).toEqual(outputOf(outcome))
      expect(effects.offered).toEqual([])
      expect(vi.getTimerCount()).toBe(0)
    },
  )

  it.each(endings)(
    'a commit lost to %j ends in %s, not in the proposal’s state, and without its cause',
    (outcome, ending) => {
      const { machine, effects } = recordingAsk()
      const actor = createActor(machine, { input: askInput() }).start()
      actor.send({ type: 'ask.aborted' })
      expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
      expect(effects.offered).toEqual([callerAbortOutcome()])
      actor.send({ type: 'commit.done', outcome, won: false })
      expect(actor.getSnapshot().value).toBe(ending)
      expect(actor.getSnapshot().output).toEqual(outputOf(outcome))
    },
  )

  it('a commit won ends in the proposal’s state with its live cause', () => {
    const { machine } = recordingAsk()
    const actor = createActor(machine, { input: askInput() }).start()
    actor.send({ type: 'ask.aborted' })
    actor.send({ type: 'commit.done', outcome: callerAbortOutcome(), won: true })
    expect(actor.getSnapshot().value).toBe('aborted')
    expect(actor.getSnapshot().output).toEqual({
      status: 'rejected',
      error: callerAbortOutcome().error,
      cause: 'caller',
    })
  })

  it('a commit that cannot succeed (a row that does not parse) ends the ask STORE_FAILED at once, the store as its cause', () => {
    const { machine, effects } = recordingAsk()
    const actor = createActor(machine, { input: askInput() }).start()
    actor.send({ type: 'seam.closed' })
    actor.send({ type: 'commit.failed', lasting: true })
    expect(actor.getSnapshot().value).toBe('failed')
    expect(actor.getSnapshot().output).toMatchObject({
      status: 'rejected',
      error: { code: 'STORE_FAILED' },
      cause: 'store',
    })
    expect(effects.offered).toHaveLength(1)
  })

  it('a commit that fails for a reason that may pass is offered again after a pause, until the store answers', async () => {
    const { machine, effects } = recordingAsk()
    const actor = createActor(machine, { input: askInput() }).start()
    actor.send({ type: 'ask.aborted' })
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().value).toEqual({ committing: 'waiting' })
    expect(effects.offered).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(MAX_RETRY_DELAY_MS * 1.2)
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
    expect(effects.offered).toEqual([callerAbortOutcome(), callerAbortOutcome()])
    actor.send({ type: 'commit.done', outcome: callerAbortOutcome(), won: true })
    expect(actor.getSnapshot().output).toEqual({
      status: 'rejected',
      error: callerAbortOutcome().error,
      cause: 'caller',
    })
  })

  it(`gives up after ${MAX_COMMIT_RETRIES} more tries: STORE_FAILED, the store as its cause`, async () => {
    const { machine, effects } = recordingAsk()
    const actor = createActor(machine, { input: askInput() }).start()
    actor.send({ type: 'ask.aborted' })
    for (let tries = 0; tries < MAX_COMMIT_RETRIES; tries++) {
      actor.send({ type: 'commit.failed', lasting: false })
      expect(actor.getSnapshot().value).toEqual({ committing: 'waiting' })
      await vi.advanceTimersByTimeAsync(MAX_RETRY_DELAY_MS * 1.2)
    }
    expect(effects.offered).toHaveLength(MAX_COMMIT_RETRIES + 1)
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().output).toMatchObject({
      status: 'rejected',
      error: { code: 'STORE_FAILED' },
      cause: 'store',
    })
  })

  it('an outcome committed elsewhere during the pause is the ask’s', () => {
    const { machine, effects } = recordingAsk()
    const actor = createActor(machine, { input: askInput() }).start()
    actor.send({ type: 'ask.aborted' })
    actor.send({ type: 'commit.failed', lasting: false })
    actor.send({ type: 'ask.settled', outcome: { status: 'answered', answer: yes } })
    expect(actor.getSnapshot().value).toBe('answered')
    expect(actor.getSnapshot().output).toEqual({ status: 'answered', answer: yes })
    expect(effects.offered).toHaveLength(1)
  })

  it('the seam closing stops the tries: its own ending is written once, a pause ends at once, a write under way is the last', () => {
    const closing = recordingAsk()
    const closed = createActor(closing.machine, { input: askInput() }).start()
    closed.send({ type: 'seam.closed' })
    closed.send({ type: 'commit.failed', lasting: false })
    expect(closed.getSnapshot().output).toMatchObject({ error: { code: 'STORE_FAILED' } })
    expect(closing.effects.offered).toHaveLength(1)

    const paused = recordingAsk()
    const resting = createActor(paused.machine, { input: askInput() }).start()
    resting.send({ type: 'ask.aborted' })
    resting.send({ type: 'commit.failed', lasting: false })
    resting.send({ type: 'seam.closed' })
    expect(resting.getSnapshot().output).toMatchObject({ error: { code: 'STORE_FAILED' } })
    expect(paused.effects.offered).toHaveLength(1)

    const writing = recordingAsk()
    const actor = createActor(writing.machine, { input: askInput() }).start()
    actor.send({ type: 'ask.aborted' })
    actor.send({ type: 'seam.closed' })
    expect(actor.getSnapshot().value).toEqual({ committing: 'lastWrite' })
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().output).toMatchObject({ error: { code: 'STORE_FAILED' } })
    expect(writing.effects.offered).toHaveLength(1)
  })

  it('the seam closing while a presentation still commits makes the ending proposed before it the last write', () => {
    const { machine, effects } = recordingAsk()
    const actor = createActor(machine, { input: askInput() }).start()
    tellPresentation(actor, { type: 'provider.answered', answer: yes })
    actor.send({ type: 'ask.aborted' })
    actor.send({ type: 'seam.closed' })
    expect(actor.getSnapshot().context.proposal).toMatchObject({ once: true })
    // The presentation's write fails; it comes down, and the ask writes its abort, once.
    tellPresentation(actor, { type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().output).toMatchObject({ error: { code: 'STORE_FAILED' } })
    expect(effects.offered).toEqual([callerAbortOutcome()])
  })

  it('ignores a commit result while nothing was offered', () => {
    const { machine } = recordingAsk()
    const actor = createActor(machine, { input: askInput() }).start()
    actor.send({ type: 'commit.done', outcome: { status: 'answered', answer: yes }, won: true })
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().value).toEqual({ pending: 'presented' })
    expect(actor.getSnapshot().context.outcome).toBeUndefined()
    actor.stop()
  })

  it('a bare machine commits what it offers, in the same step', () => {
    const actor = createActor(askMachine, { input: askInput() }).start()
    actor.send({ type: 'seam.closed' })
    expect(actor.getSnapshot().value).toBe('aborted')
    expect(actor.getSnapshot().output).toMatchObject({ error: { code: 'SEAM_CLOSED' } })
  })
})

describe('askMachine: each local ending, once committed, ends in its own final state', () => {
  const cases: [
    string,
    Partial<AskInput>,
    ((actor: { send(event: AskEvent): void }) => void) | undefined,
    string,
  ][] = [
    ['the caller’s abort', {}, (actor) => actor.send({ type: 'ask.aborted' }), 'aborted'],
    ['the seam closing', {}, (actor) => actor.send({ type: 'seam.closed' }), 'aborted'],
    [
      'the deadline',
      { deadline: 9e12 },
      (actor) => actor.send({ type: 'ask.deadline', final: true }),
      'timedOut',
    ],
    [
      'the provider gone, with no grace',
      {},
      (actor) => actor.send({ type: 'provider.disposed' }),
      'aborted',
    ],
    ['no provider, and no wait', { key: 'k', providerHere: false }, undefined, 'failed'],
  ]
  it.each(cases)('%s ends in its state', (_name, extra, send, ending) => {
    const { machine, effects } = recordingAsk()
    const actor = createActor(machine, { input: askInput(extra) }).start()
    send?.(actor)
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
    const [offered] = effects.offered
    actor.send({ type: 'commit.done', outcome: offered!, won: true })
    expect(actor.getSnapshot().value).toBe(ending)
    expect(actor.getSnapshot().output).toMatchObject({
      status: 'rejected',
      error: offered!.status === 'rejected' ? offered!.error : {},
    })
  })
})

describe('askMachine: the local endings it proposes', () => {
  const proposalAfter = (
    extra: Partial<AskInput>,
    send?: (actor: ReturnType<typeof run>) => void,
  ) => {
    const actor = run(extra)
    send?.(actor)
    return { actor, proposal: actor.getSnapshot().context.proposal }
  }
  const run = (extra: Partial<AskInput>) => {
    const { machine, effects } = recordingAsk()
    const actor = createActor(machine, { input: askInput(extra) }).start()
    return Object.assign(actor, { effects })
  }

  it('the caller’s abort: ASK_ABORTED caller-aborted, committed, the caller’s reason as cause', () => {
    const { actor, proposal } = proposalAfter({}, (ask) => ask.send({ type: 'ask.aborted' }))
    expect(proposal).toEqual({
      outcome: {
        status: 'rejected',
        error: {
          code: 'ASK_ABORTED',
          message: 'the caller aborted the ask',
          details: { reason: 'caller-aborted' },
        },
      },
      commit: true,
      cause: 'caller',
    })
    expect(actor.effects.offered).toEqual([proposal!.outcome])
  })

  it('the seam closing a keyless ask: SEAM_CLOSED, committed to the store', () => {
    const { actor, proposal } = proposalAfter({}, (ask) => ask.send({ type: 'seam.closed' }))
    expect(proposal).toEqual({
      outcome: {
        status: 'rejected',
        error: { code: 'SEAM_CLOSED', message: 'the seam was closed while the ask was pending' },
      },
      commit: true,
      // Written once: `close()` does not wait on a failing store.
      once: true,
    })
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
  })

  it('the seam closing a keyed ask: SEAM_CLOSED for the caller alone, the ask left in the store for its key', () => {
    const { actor, proposal } = proposalAfter({ key: 'k' }, (ask) =>
      ask.send({ type: 'seam.closed' }),
    )
    expect(proposal).toMatchObject({ outcome: { error: { code: 'SEAM_CLOSED' } }, commit: false })
    expect(actor.getSnapshot().value).toBe('aborted')
    expect(actor.getSnapshot().output).toMatchObject({ error: { code: 'SEAM_CLOSED' } })
    expect(actor.effects.offered).toEqual([])
  })

  it('the deadline: ASK_TIMEOUT with the original deadline and start time', async () => {
    vi.setSystemTime(1_000)
    const actor = run({ startedAt: 1_000, deadline: 6_000 })
    await vi.advanceTimersByTimeAsync(4_999)
    expect(actor.getSnapshot().context.proposal).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    expect(actor.getSnapshot().context.proposal).toEqual({
      outcome: {
        status: 'rejected',
        error: {
          code: 'ASK_TIMEOUT',
          message: 'nobody answered before the deadline',
          details: { deadline: 6_000, startedAt: 1_000 },
        },
      },
      commit: true,
    })
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
    // The presentation came down with the same ending before the ask proposed it.
    expect(actor.effects.ended).toEqual([actor.getSnapshot().context.proposal!.outcome.error])
  })

  it('no provider for a keyed ask (nothing refuses it before admission): NO_PROVIDER, committed', () => {
    const { actor, proposal } = proposalAfter({ key: 'k', providerHere: false })
    expect(proposal).toEqual({ outcome: noProviderOutcome(), commit: true })
    expect(actor.effects.offered).toEqual([noProviderOutcome()])
  })

  it('no provider for a keyless ask: NO_PROVIDER before admission, nothing offered', () => {
    const { actor, proposal } = proposalAfter({ providerHere: false })
    expect(proposal).toBeUndefined()
    expect(actor.getSnapshot().value).toBe('failed')
    expect(actor.getSnapshot().output).toEqual({
      status: 'rejected',
      error: noProviderOutcome().error,
    })
    expect(actor.effects.offered).toEqual([])
  })

  it('no provider within the wait: NO_PROVIDER once it elapses', async () => {
    const actor = run({ key: 'k', providerHere: false, waitForProviderMs: 1_000 })
    await vi.advanceTimersByTimeAsync(999)
    expect(actor.getSnapshot().value).toEqual({ pending: { waitingForProvider: 'first' } })
    await vi.advanceTimersByTimeAsync(1)
    expect(actor.getSnapshot().context.proposal).toEqual({
      outcome: noProviderOutcome(),
      commit: true,
    })
  })

  const providerGone = {
    status: 'rejected',
    error: {
      code: 'ASK_ABORTED',
      message: 'the provider was disposed while the ask was pending',
      details: { reason: 'provider-disposed' },
    },
  }

  it('the provider gone with no grace: ASK_ABORTED provider-disposed, and its presentation taken down with it', () => {
    const { actor, proposal } = proposalAfter({}, (ask) => ask.send({ type: 'provider.disposed' }))
    expect(proposal).toEqual({ outcome: providerGone, commit: true })
    expect(actor.effects.ended).toEqual([providerGone.error])
    expect(actor.getSnapshot().value).toEqual({ committing: 'writing' })
  })

  it('the provider gone and no other within the grace: ASK_ABORTED provider-disposed once it elapses', async () => {
    const actor = run({ providerGraceMs: 2_000 })
    actor.send({ type: 'provider.disposed' })
    expect(actor.getSnapshot().value).toEqual({ pending: { waitingForProvider: 'handOver' } })
    // The presentation was withdrawn as a hand-over: the provider is told it is not the end.
    expect(actor.effects.ended).toEqual([
      expect.objectContaining({ details: { reason: 'provider-disposed', handOver: true } }),
    ])
    await vi.advanceTimersByTimeAsync(2_000)
    expect(actor.getSnapshot().context.proposal).toEqual({ outcome: providerGone, commit: true })
  })

  it('a provider back within the grace presents the ask again, and nothing is proposed', async () => {
    const actor = run({ providerGraceMs: 2_000 })
    actor.send({ type: 'provider.disposed' })
    await vi.advanceTimersByTimeAsync(1_999)
    actor.send({ type: 'provider.available' })
    expect(actor.getSnapshot().value).toEqual({ pending: 'presented' })
    await vi.advanceTimersByTimeAsync(5_000)
    expect(actor.getSnapshot().context.proposal).toBeUndefined()
    expect(actor.effects.shown).toBe(2)
    actor.stop()
  })
})

describe('askMachine: the provider’s own settlement, through its presentation', () => {
  it.each([
    ['an answer', { type: 'provider.answered', answer: yes } as const, 'answered'],
    [
      'a UI cancel',
      {
        type: 'provider.failed',
        error: { code: 'ASK_CANCELLED', message: 'dismissed' },
      } as const,
      'cancelled',
    ],
    [
      'an answer that does not fit',
      {
        type: 'provider.answered',
        answer: { answers: [{ id: 'q', selected: ['Maybe'] }] },
      } as const,
      'failed',
    ],
    [
      'a provider failure',
      { type: 'provider.failed', error: { code: 'PROVIDER_FAILED', message: 'boom' } } as const,
      'failed',
    ],
    [
      // The final state follows the code, whoever decided it.
      'a provider rejecting with another code of the table',
      { type: 'provider.failed', error: { code: 'ASK_ABORTED', message: 'gone' } } as const,
      'aborted',
    ],
  ])('%s the store commits ends in %s, the provider as its cause', (_name, event, ending) => {
    const { machine, effects } = recordingAsk()
    const actor = createActor(machine, { input: askInput() }).start()
    tellPresentation(actor, event)
    expect(actor.getSnapshot().value).toEqual({ pending: 'presented' })
    const [offered] = effects.presentationOffers
    tellPresentation(actor, { type: 'commit.done', outcome: offered!, won: true })
    expect(actor.getSnapshot().value).toBe(ending)
    expect(actor.getSnapshot().output).toEqual(
      offered!.status === 'answered'
        ? offered
        : { status: 'rejected', error: offered!.error, cause: 'provider' },
    )
    // The ask offers nothing of its own: the presentation's commit is the outcome.
    expect(effects.offered).toEqual([])
  })
})

describe('askMachine: its effects, as the seam runs them', () => {
  it('a report that arrives after the ask stopped is dropped', async () => {
    const actor = createActor(askMachine, { input: askInput() }).start()
    let release!: () => void
    const send = vi.spyOn(actor, 'send')
    report(
      actor,
      new Promise<void>((resolve) => (release = resolve)),
      () => ({ type: 'ask.aborted' }),
      () => ({ type: 'commit.failed' }),
    )
    actor.stop()
    release()
    await settle()
    expect(send).not.toHaveBeenCalled()
    expect(actor.getSnapshot().status).toBe('stopped')
  })

  const failingStores: [string, (inner: AskStore) => AskStore['settle']][] = [
    ['rejects the commit', () => () => Promise.reject(new Error('disk full'))],
    [
      'throws before it returns a promise',
      () => () => {
        throw new Error('no connection')
      },
    ],
  ]
  it.each(failingStores)(
    'a store that %s on every try ends the ask STORE_FAILED after the retries, the store’s error as cause',
    async (_name, settleWith) => {
      const inner = createMemoryStore()
      const store: AskStore = Object.create(inner) as AskStore
      const tries = vi.fn(settleWith(inner))
      store.settle = tries
      const { seam, provider } = seamWithProvider({ store })
      await settle()
      const caller = new AbortController()
      const asked = rejectionOf(seam.ask({ questions, signal: caller.signal }), 'STORE_FAILED')
      await provider.call(0)
      caller.abort(new Error('caller gave up'))
      for (let pause = 0; pause < MAX_COMMIT_RETRIES; pause++) {
        await vi.advanceTimersByTimeAsync(MAX_RETRY_DELAY_MS * 1.2)
      }
      const error = await asked
      const offered = tries.mock.calls.map(([, outcome]) => (outcome as AskRejection).error.code)
      // The abort, then STORE_FAILED (what the caller got) at each beat of the seam's fleet.
      const aborts = offered.filter((code) => code === 'ASK_ABORTED')
      expect(aborts).toHaveLength(MAX_COMMIT_RETRIES + 1)
      expect(offered.slice(aborts.length)).toContain('STORE_FAILED')
      expect(new Set(offered.slice(aborts.length))).toEqual(new Set(['STORE_FAILED']))
      expect((error.cause as Error).message).toMatch(/disk full|no connection/)
      // The provider's question came down with the ending the store did not take.
      expect((provider.last().request.signal.reason as UserQuestionError).code).toBe('ASK_ABORTED')
      await seam.close()
    },
  )

  it('close() does not wait on the retries of an ending proposed before it: that ending is written once', async () => {
    const holding = holdingStore(createMemoryStore(), { admissions: true })
    const { seam } = seamWithProvider({ store: holding.store })
    await settle()
    const caller = new AbortController()
    const asked = rejectionOf(seam.ask({ questions, signal: caller.signal }), 'STORE_FAILED')
    await settle()
    caller.abort(new Error('caller gave up'))
    let closed = false
    const closing = seam.close().then(() => (closed = true))
    await holding.held.shift()!.run()
    await settle()
    expect(holding.held.map((write) => write.kind)).toEqual(['settle'])
    holding.held.shift()!.fail(new Error('disk I/O error'))
    // No timer moves: a retry would hold close() for its pause.
    await settle()
    expect(closed).toBe(true)
    await closing
    await asked
    expect(holding.held).toEqual([])
  })

  it('the caller of an ask the store committed gets the very error its provider’s signal aborted with', async () => {
    const { seam, provider } = seamWithProvider()
    await settle()
    const caller = new AbortController()
    const asked = rejectionOf(seam.ask({ questions, signal: caller.signal }), 'ASK_ABORTED')
    await provider.call(0)
    caller.abort('caller gave up')
    const error = await asked
    expect(error.details).toEqual({ reason: 'caller-aborted' })
    expect(error.cause).toBe('caller gave up')
    expect(provider.last().request.signal.reason).toBe(error)
    await seam.close()
  })
})
