import { describe, expect, it } from 'vitest'
import {
  UserQuestionError,
  callerAbortOutcome,
  errorData,
  noProviderOutcome,
  outcomeError,
} from '../../src/vocabulary/index.js'

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
