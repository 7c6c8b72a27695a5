import { describe, expect, it } from 'vitest'
import {
  UserQuestionError,
  callerAbortOutcome,
  endedAs,
  errorData,
  handedOverOutcome,
  isReplayedOutcome,
  isTimeoutOutcome,
  noProviderOutcome,
  otherAskOutcome,
  outcomeError,
  outcomeName,
  ownerGoneOutcome,
  presentationEnding,
  providerGoneOutcome,
  seamFaultOutcome,
  settledElsewhereOutcome,
} from '../../src/vocabulary/index.js'
import type { AskOutcome, UserQuestionErrorCode } from '../../src/vocabulary/index.js'

/** Outcomes and errors as data (src/vocabulary/outcome.ts): what a store keeps and a caller gets back. */

describe('outcomes as data', () => {
  it('keeps no details key on an outcome that has no details', () => {
    expect(Object.keys(noProviderOutcome().error)).toEqual(['code', 'message'])
    expect(Object.keys(callerAbortOutcome().error)).toEqual(['code', 'message', 'details'])
  })

  it('rebuilds an error with its code, message and details; an unknown code is PROVIDER_FAILED', () => {
    const kept = outcomeError({ code: 'ASK_TIMEOUT', message: 'late', details: { deadline: 5 } })
    expect(kept).toBeInstanceOf(UserQuestionError)
    expect([kept.code, kept.message, kept.details]).toEqual([
      'ASK_TIMEOUT',
      'late',
      { deadline: 5 },
    ])
    expect(outcomeError({ code: 'ASK_CANCELLED', message: 'no' }).details).toBeUndefined()
    // A row written by a newer askseam may carry a code this one does not know.
    const unknown = JSON.parse('{"code":"NOT_A_CODE","message":"odd"}') as Parameters<
      typeof outcomeError
    >[0]
    expect(outcomeError(unknown).code).toBe('PROVIDER_FAILED')
  })

  it('reads an error into data, with a copy of its details and none when it has none', () => {
    const details = { rule: 'x' }
    const data = errorData(new UserQuestionError('bad', 'BAD_ANSWER', { details }))
    expect(data).toEqual({ code: 'BAD_ANSWER', message: 'bad', details: { rule: 'x' } })
    expect(data.details).not.toBe(details)
    expect(errorData(new UserQuestionError('gone', 'ASK_CANCELLED'))).toEqual({
      code: 'ASK_CANCELLED',
      message: 'gone',
    })
  })
})

describe('every outcome, exactly', () => {
  it('builds each ending with its code, message and details', () => {
    expect(callerAbortOutcome()).toStrictEqual({
      status: 'rejected',
      error: {
        code: 'ASK_ABORTED',
        message: 'the caller aborted the ask',
        details: { reason: 'caller-aborted' },
      },
    })
    expect(noProviderOutcome()).toStrictEqual({
      status: 'rejected',
      error: { code: 'NO_PROVIDER', message: 'no question provider is registered to ask the user' },
    })
    expect(providerGoneOutcome().error).toStrictEqual({
      code: 'ASK_ABORTED',
      message: 'the provider was disposed while the ask was pending',
      details: { reason: 'provider-disposed' },
    })
    expect(ownerGoneOutcome().error).toStrictEqual({
      code: 'ASK_ABORTED',
      message: 'the process that asked is gone',
      details: { reason: 'owner-gone' },
    })
    expect(seamFaultOutcome().error).toStrictEqual({
      code: 'PROVIDER_FAILED',
      message: 'the ask failed inside the seam',
    })
    expect(settledElsewhereOutcome().error).toStrictEqual({
      code: 'ASK_ABORTED',
      message: 'another settlement of this ask was committed first',
      details: { reason: 'settled-elsewhere' },
    })
    expect(handedOverOutcome().error).toStrictEqual({
      code: 'ASK_ABORTED',
      message: 'the provider was disposed; the ask waits for the next one',
      details: { reason: 'provider-disposed', handOver: true },
    })
    expect(otherAskOutcome('ask-1', 'questions').error).toStrictEqual({
      code: 'INVALID_REQUEST',
      message: 'this key belongs to an ask with other questions',
      details: { field: 'key', askId: 'ask-1', differs: 'questions' },
    })
    expect(otherAskOutcome('ask-1', 'policy').error).toStrictEqual({
      code: 'INVALID_REQUEST',
      message: 'this key belongs to an ask with other answerers or approvals',
      details: { field: 'key', askId: 'ask-1', differs: 'policy' },
    })
  })

  const answered: AskOutcome = { status: 'answered', answer: { answers: [] } }
  const rejectedWith = (code: UserQuestionErrorCode): AskOutcome => ({
    status: 'rejected',
    error: { code, message: 'm' },
  })

  it('tells the timeout from every other outcome', () => {
    expect(isTimeoutOutcome(rejectedWith('ASK_TIMEOUT'))).toBe(true)
    expect(isTimeoutOutcome(rejectedWith('ASK_CANCELLED'))).toBe(false)
    expect(isTimeoutOutcome(answered)).toBe(false)
  })

  it('replays what the human or the clock decided, and nothing else', () => {
    expect(isReplayedOutcome(answered)).toBe(true)
    for (const code of ['ASK_TIMEOUT', 'ASK_CANCELLED', 'BAD_ANSWER', 'PROVIDER_FAILED'] as const) {
      expect(isReplayedOutcome(rejectedWith(code)), code).toBe(true)
    }
    for (const code of ['ASK_ABORTED', 'NO_PROVIDER', 'STORE_FAILED', 'SEAM_CLOSED'] as const) {
      expect(isReplayedOutcome(rejectedWith(code)), code).toBe(false)
    }
  })

  it('tells a losing presentation why it comes down, naming how the ask ended', () => {
    expect(presentationEnding(answered).error).toStrictEqual({
      code: 'ASK_ABORTED',
      message: 'another settlement of this ask was committed first',
      details: { reason: 'settled-elsewhere', ending: 'answered' },
    })
    expect(presentationEnding(rejectedWith('ASK_CANCELLED'))).toStrictEqual(
      settledElsewhereOutcome(rejectedWith('ASK_CANCELLED')),
    )
    expect(presentationEnding(rejectedWith('ASK_CANCELLED')).error.details).toStrictEqual({
      reason: 'settled-elsewhere',
      ending: 'cancelled',
    })
    expect(presentationEnding(rejectedWith('BAD_ANSWER')).error.details?.ending).toBe('failed')
    const timeout = rejectedWith('ASK_TIMEOUT')
    expect(presentationEnding(timeout)).toBe(timeout)
    const closed = rejectedWith('SEAM_CLOSED')
    expect(presentationEnding(closed)).toBe(closed)
  })

  it('reads how an ask really ended from the error that took its presentation down', () => {
    for (const outcome of [answered, rejectedWith('ASK_CANCELLED'), rejectedWith('BAD_ANSWER')]) {
      expect(endedAs(presentationEnding(outcome).error)).toBe(outcomeName(outcome))
    }
    expect(endedAs({ code: 'ASK_TIMEOUT', message: 'm' })).toBe('timed-out')
    expect(endedAs(callerAbortOutcome().error)).toBe('aborted')
    expect(endedAs({ code: 'SEAM_CLOSED', message: 'm' })).toBe('aborted')
    // Settled elsewhere, but the store no longer says how: nothing is claimed.
    expect(endedAs(settledElsewhereOutcome().error)).toBe('aborted')
    const forged = settledElsewhereOutcome().error
    expect(endedAs({ ...forged, details: { ...forged.details, ending: 'won' } })).toBe('aborted')
  })

  it('rebuilds an error with its cause only when one is given, and no details key without details', () => {
    const cause = new Error('live')
    expect(outcomeError({ code: 'ASK_ABORTED', message: 'm' }, cause).cause).toBe(cause)
    const without = outcomeError({ code: 'ASK_ABORTED', message: 'm' })
    expect('cause' in without).toBe(false)
    expect(Object.keys(without.toJSON())).toEqual(['name', 'code', 'message'])
  })
})
