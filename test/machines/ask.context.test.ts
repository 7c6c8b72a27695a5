import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  replayedOutcome,
  outputOf,
  presentationDecided,
  presentationInput,
  MAX_COMMIT_RETRIES,
  propose,
  proposeOnce,
  toEnding,
} from '../../src/machines/ask.context.js'
import type { AskContext, AskEvent } from '../../src/machines/ask.context.js'
import { askGuards } from '../../src/machines/ask.guards.js'
import {
  callerAbortOutcome,
  handedOverOutcome,
  noProviderOutcome,
  seamClosedOutcome,
  storeFailedOutcome,
  timeoutOutcome,
} from '../../src/vocabulary/index.js'
import type {
  AskOutcome,
  AskPolicy,
  AskRejection,
  AskUserQuestionItem,
} from '../../src/vocabulary/index.js'
import { questions, yes } from './ask-input.js'

/** askMachine's data and guards (src/machines/ask.context.ts), each condition on its own. */

afterEach(() => {
  vi.useRealTimers()
})

const context = (extra: Partial<AskContext> = {}): AskContext => ({
  askId: 'a1',
  key: undefined,
  questions,
  agentId: undefined,
  startedAt: 0,
  deadline: undefined,
  waitForProviderMs: 0,
  providerGraceMs: 0,
  replayed: false,
  commitAttempts: 0,
  own: undefined,
  durable: false,
  providerHere: false,
  providerElsewhere: false,
  fleetKnown: true,
  policy: undefined,
  proposal: undefined,
  outcome: undefined,
  cause: undefined,
  ...extra,
})
const on = (extra: Partial<AskContext> = {}, event: AskEvent = { type: 'seam.closed' }) => ({
  context: context(extra),
  event,
})
const answered: AskOutcome = { status: 'answered', answer: yes }

describe('askGuards', () => {
  it('reads the provider flags and waits', () => {
    expect(askGuards.hasProviderHere(on({ providerHere: true }))).toBe(true)
    expect(askGuards.hasProviderHere(on())).toBe(false)
    expect(askGuards.hasProviderElsewhere(on({ providerElsewhere: true }))).toBe(true)
    expect(askGuards.hasProviderElsewhere(on())).toBe(false)
    expect(askGuards.mayWaitForProvider(on({ waitForProviderMs: 1 }))).toBe(true)
    expect(askGuards.mayWaitForProvider(on())).toBe(false)
    expect(askGuards.hasProviderGrace(on({ providerGraceMs: 1 }))).toBe(true)
    expect(askGuards.hasProviderGrace(on())).toBe(false)
  })

  it('reads a presentation as withdrawn when its provider is gone, or its ending is a hand-over', () => {
    const takenDown = (ending: AskRejection) =>
      ({
        type: 'xstate.done.actor.presentation',
        output: { verdict: 'takenDown', ending },
      }) as unknown as AskEvent
    const withdrawn = (extra: Partial<AskContext>, ending: AskRejection) => ({
      context: context(extra),
      event: takenDown(ending),
    })
    expect(askGuards.isWithdrawn(withdrawn({}, timeoutOutcome({ startedAt: 0 })))).toBe(true)
    expect(askGuards.isWithdrawn(withdrawn({ providerHere: true }, handedOverOutcome()))).toBe(true)
    expect(
      askGuards.isWithdrawn(withdrawn({ providerHere: true }, timeoutOutcome({ startedAt: 0 }))),
    ).toBe(false)
    const accepted = {
      type: 'xstate.done.actor.presentation',
      output: { verdict: 'accepted', outcome: answered },
    } as unknown as AskEvent
    expect(
      askGuards.isWithdrawn({ context: context({ providerHere: true }), event: accepted }),
    ).toBe(false)
  })

  it('takes an ask over later through a provider elsewhere, a grace, or a human', () => {
    expect(askGuards.isTakenOverLater(on())).toBe(false)
    expect(askGuards.isTakenOverLater(on({ providerElsewhere: true }))).toBe(true)
    expect(askGuards.isTakenOverLater(on({ providerGraceMs: 1 }))).toBe(true)
    expect(askGuards.isTakenOverLater(on({ durable: true, key: 'k' }))).toBe(true)
    expect(askGuards.isTakenOverLater(on({ durable: true }))).toBe(false)
    expect(askGuards.isTakenOverLater(on({ key: 'k' }))).toBe(false)
    expect(askGuards.waitsForHuman(on({ durable: true, key: 'k' }))).toBe(true)
    expect(askGuards.waitsForHuman(on({ durable: true }))).toBe(false)
    expect(askGuards.waitsForHuman(on({ key: 'k' }))).toBe(false)
  })

  it('knows the fleet unknown only with no provider here', () => {
    expect(askGuards.isFleetUnknown(on({ fleetKnown: false }))).toBe(true)
    expect(askGuards.isFleetUnknown(on({ fleetKnown: false, providerHere: true }))).toBe(false)
    expect(askGuards.isFleetUnknown(on())).toBe(false)
  })

  it('refuses a keyless ask nobody anywhere could take, and only that one', () => {
    expect(askGuards.isRefusedForNoProvider(on())).toBe(true)
    for (const extra of [
      { key: 'k' },
      { waitForProviderMs: 1 },
      { fleetKnown: false },
      { providerHere: true },
      { providerElsewhere: true },
    ]) {
      expect(askGuards.isRefusedForNoProvider(on(extra)), JSON.stringify(extra)).toBe(false)
    }
  })

  it('fails a followed ask with no provider only on a store nothing outlives', () => {
    expect(askGuards.isFollowedWithNoProvider(on())).toBe(true)
    for (const extra of [
      { durable: true },
      { waitForProviderMs: 1 },
      { providerHere: true },
      { providerElsewhere: true },
    ]) {
      expect(askGuards.isFollowedWithNoProvider(on(extra)), JSON.stringify(extra)).toBe(false)
    }
  })

  it('reads its events', () => {
    expect(
      askGuards.isFleetProviderGone(on({}, { type: 'providers.elsewhere', active: false })),
    ).toBe(true)
    expect(
      askGuards.isFleetProviderGone(on({}, { type: 'providers.elsewhere', active: true })),
    ).toBe(false)
    expect(askGuards.isDeadlineReached(on({}, { type: 'ask.deadline', final: true }))).toBe(true)
    expect(askGuards.isDeadlineReached(on({}, { type: 'ask.deadline', final: false }))).toBe(false)
    const proposal = { outcome: callerAbortOutcome(), commit: true }
    expect(askGuards.isFirstEndingByDeadline(on({}, { type: 'ask.deadline', final: true }))).toBe(
      true,
    )
    expect(
      askGuards.isFirstEndingByDeadline(on({ proposal }, { type: 'ask.deadline', final: true })),
    ).toBe(false)
    expect(askGuards.isFirstEndingByDeadline(on({}, { type: 'ask.deadline', final: false }))).toBe(
      false,
    )
    expect(askGuards.hasNoProposal(on())).toBe(true)
    expect(askGuards.hasNoProposal(on({ proposal }))).toBe(false)
    expect(askGuards.hasProposal(on({ proposal }))).toBe(true)
    expect(askGuards.hasProposal(on())).toBe(false)
    expect(askGuards.isCommittedProposal(on({ proposal }))).toBe(true)
    expect(askGuards.isCommittedProposal(on({ proposal: { ...proposal, commit: false } }))).toBe(
      false,
    )
    expect(askGuards.isCommittedProposal(on())).toBe(false)
  })

  it('reads the admission', () => {
    const admitted: AskEvent = { type: 'admission.done', result: { status: 'admitted' } }
    const existing = (held: AskUserQuestionItem[], policy?: AskPolicy): AskEvent => ({
      type: 'admission.done',
      result: {
        status: 'existing',
        ask: { askId: 'h', questions: held, startedAt: 0, ...(policy && { policy }) },
      },
    })
    expect(askGuards.isAdmitted(on({}, admitted))).toBe(true)
    expect(askGuards.isAdmitted(on({}, existing(questions)))).toBe(false)
    expect(askGuards.holdsOtherAsk(on({}, admitted))).toBe(false)
    expect(askGuards.holdsOtherAsk(on({}, existing(questions)))).toBe(false)
    expect(askGuards.holdsOtherAsk(on({}, existing([{ id: 'other', question: 'Other?' }])))).toBe(
      true,
    )
    expect(askGuards.holdsOtherAsk(on({}, existing(questions, { answerers: ['ann'] })))).toBe(true)
  })

  it('tells an ending without the human from one the human or the clock decided', () => {
    const settled = (outcome: AskOutcome): AskEvent => ({ type: 'ask.settled', outcome })
    expect(askGuards.isEndedWithoutHuman(on({}, settled(callerAbortOutcome())))).toBe(true)
    expect(askGuards.isEndedWithoutHuman(on({}, settled(noProviderOutcome())))).toBe(true)
    expect(askGuards.isEndedWithoutHuman(on({}, settled(answered)))).toBe(false)
    expect(
      askGuards.isEndedWithoutHuman(
        on({}, settled({ status: 'rejected', error: { code: 'ASK_CANCELLED', message: 'no' } })),
      ),
    ).toBe(false)
    expect(
      askGuards.isEndedWithoutHuman(
        on({}, settled({ status: 'rejected', error: { code: 'ASK_TIMEOUT', message: 'late' } })),
      ),
    ).toBe(false)
  })

  it('asks whether an outcome is decided, and which ending it is', () => {
    expect(askGuards.isDecided(undefined, { outcome: answered })).toBe(true)
    expect(askGuards.isDecided(undefined, { outcome: undefined })).toBe(false)
    expect(askGuards.endsIn(on({ outcome: answered }), { ending: 'answered' })).toBe(true)
    expect(askGuards.endsIn(on({ outcome: answered }), { ending: 'aborted' })).toBe(false)
    expect(askGuards.endsIn(on({ outcome: seamClosedOutcome() }), { ending: 'aborted' })).toBe(true)
    expect(askGuards.endsIn(on(), { ending: 'answered' })).toBe(false)
  })
})

describe('the ask’s data', () => {
  it('propose keeps the cause only when there is one', () => {
    const outcome = callerAbortOutcome()
    expect(propose(outcome, true)).toStrictEqual({ proposal: { outcome, commit: true } })
    expect(propose(outcome, false, 'caller')).toStrictEqual({
      proposal: { outcome, commit: false, cause: 'caller' },
    })
  })

  it('proposeOnce marks a proposal written once, whose failed write mayRetryCommit does not try again', () => {
    const failed: AskEvent = { type: 'commit.failed', lasting: false }
    const once = proposeOnce(storeFailedOutcome(), true, 'store').proposal
    expect(once).toStrictEqual({
      outcome: storeFailedOutcome(),
      commit: true,
      cause: 'store',
      once: true,
    })
    expect(askGuards.mayRetryCommit(on({ proposal: once }, failed))).toBe(false)
    // Not its code: any other proposal, with one of those codes too, is retried while it has tries.
    for (const outcome of [storeFailedOutcome(), seamClosedOutcome()]) {
      const proposal = propose(outcome, true).proposal
      expect(askGuards.mayRetryCommit(on({ proposal }, failed))).toBe(true)
      expect(
        askGuards.mayRetryCommit(on({ proposal, commitAttempts: MAX_COMMIT_RETRIES }, failed)),
      ).toBe(false)
      expect(
        askGuards.mayRetryCommit(on({ proposal }, { type: 'commit.failed', lasting: true })),
      ).toBe(false)
    }
  })

  it('replayedOutcome is the held ask’s outcome, marked replayed; none when admitted', () => {
    const admitted = { type: 'admission.done', result: { status: 'admitted' } } as const
    expect(replayedOutcome({ event: admitted })).toStrictEqual({
      outcome: undefined,
      replayed: true,
    })
    const held = {
      type: 'admission.done',
      result: {
        status: 'existing',
        ask: { askId: 'h', questions, startedAt: 0, outcome: answered },
      },
    } as const
    expect(replayedOutcome({ event: held })).toStrictEqual({ outcome: answered, replayed: true })
  })

  it('presentationInput copies what a presentation needs, opened now', () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(700)
    expect(presentationInput(context({ startedAt: 5 }))).toStrictEqual({
      askId: 'a1',
      questions,
      startedAt: 5,
      deadline: undefined,
      openedAt: 700,
      policy: undefined,
    })
    const policy = { answerers: ['ana'] }
    expect(presentationInput(context({ agentId: 'g', deadline: 900, policy }))).toStrictEqual({
      askId: 'a1',
      questions,
      startedAt: 0,
      openedAt: 700,
      deadline: 900,
      policy,
    })
  })

  it('outputOf leaves who answered out, and keeps the cause only when there is one', () => {
    expect(
      outputOf(context({ outcome: { ...answered, by: [{ id: 'a', via: 'w' }] } })),
    ).toStrictEqual({ status: 'answered', answer: yes })
    const rejected = seamClosedOutcome()
    expect(outputOf(context({ outcome: rejected }))).toStrictEqual({
      status: 'rejected',
      error: rejected.error,
    })
    expect(outputOf(context({ outcome: rejected, cause: 'store' }))).toStrictEqual({
      status: 'rejected',
      error: rejected.error,
      cause: 'store',
    })
  })

  it('presentationDecided: the provider’s own answer carries its cause; a takedown decides nothing', () => {
    expect(
      presentationDecided({ verdict: 'takenDown', ending: seamClosedOutcome() }),
    ).toStrictEqual({ outcome: undefined })
    expect(presentationDecided({ verdict: 'accepted', outcome: answered })).toStrictEqual({
      outcome: answered,
      cause: 'provider',
    })
    expect(presentationDecided({ verdict: 'refused', outcome: answered })).toStrictEqual({
      outcome: answered,
    })
  })

  it('toEnding guards on and records what is decided', () => {
    const decided = () => ({ outcome: answered })
    expect(toEnding(decided)).toStrictEqual({
      guard: { type: 'isDecided', params: decided },
      target: '#ask.ending',
      actions: { type: 'recordOutcome', params: decided },
    })
  })
})
