import { describe, expect, it } from 'vitest'
import {
  HarnessError,
  UserQuestionError,
  UserQuestionErrorCodes,
  isUserQuestionError,
  toUserQuestionError,
} from '../../src/vocabulary/index.js'

/** The code table of DESIGN §3, written out independently of the implementation. */
const DESIGN_CODES = [
  'ASK_ABORTED',
  'EMPTY_QUESTIONS',
  'INVALID_REQUEST',
  'CALLER_NOT_LIVE',
  'DELEGATED_CALLER',
  'BAD_INTENT',
  'NO_PROVIDER',
  'DUPLICATE_PROVIDER',
  'ASK_CANCELLED',
  'ASK_TIMEOUT',
  'BAD_ANSWER',
  'PROVIDER_FAILED',
  'SEAM_CLOSED',
  'STORE_FAILED',
] as const

describe('UserQuestionError', () => {
  it('is named UserQuestionError and is a HarnessError and an Error', () => {
    const error = new UserQuestionError('The user closed the dialog', 'ASK_CANCELLED')
    expect(error.name).toBe('UserQuestionError')
    expect(error).toBeInstanceOf(UserQuestionError)
    expect(error).toBeInstanceOf(HarnessError)
    expect(error).toBeInstanceOf(Error)
    expect(error.code).toBe('ASK_CANCELLED')
    expect(error.message).toBe('The user closed the dialog')
    expect(error.stack).toContain('UserQuestionError')
  })

  it('constructs in the reference order (message, code, options) and keeps cause and details', () => {
    const cause = new Error('socket closed')
    const error = new UserQuestionError('the provider failed', 'PROVIDER_FAILED', {
      cause,
      details: { questionId: 'db', reason: 'io' },
    })
    expect(error.cause).toBe(cause)
    expect(error.details).toEqual({ questionId: 'db', reason: 'io' })
  })

  it('keeps a cause that is not an Error, and an explicit undefined cause', () => {
    expect(new UserQuestionError('m', 'ASK_ABORTED', { cause: 'why' }).cause).toBe('why')
    const withUndefined = new UserQuestionError('m', 'ASK_ABORTED', { cause: undefined })
    expect('cause' in withUndefined).toBe(true)
    expect(withUndefined.cause).toBeUndefined()
  })

  it('toJSON gives { name, code, message, details }', () => {
    const error = new UserQuestionError('question "db" has no answer', 'BAD_ANSWER', {
      cause: new Error('hidden'),
      details: { questionId: 'db', rule: 'missing-answer' },
    })
    expect(error.toJSON()).toEqual({
      name: 'UserQuestionError',
      code: 'BAD_ANSWER',
      message: 'question "db" has no answer',
      details: { questionId: 'db', rule: 'missing-answer' },
    })
  })

  it('survives a JSON.stringify round trip with its name, code, message and details', () => {
    const error = new UserQuestionError('nobody answered before the deadline', 'ASK_TIMEOUT', {
      details: { reason: 'deadline', startedAt: 5 },
    })
    const parsed: unknown = JSON.parse(JSON.stringify(error))
    expect(parsed).toEqual({
      name: 'UserQuestionError',
      code: 'ASK_TIMEOUT',
      message: 'nobody answered before the deadline',
      details: { reason: 'deadline', startedAt: 5 },
    })
    expect(isUserQuestionError(parsed)).toBe(true)
    const revived = toUserQuestionError(parsed)
    expect(revived).toBeInstanceOf(UserQuestionError)
    expect(revived.code).toBe('ASK_TIMEOUT')
    expect(revived.message).toBe('nobody answered before the deadline')
    expect(revived.details).toEqual({ reason: 'deadline', startedAt: 5 })
  })

  it('serialises inside a larger payload, as a tool runner would', () => {
    const error = new UserQuestionError('the seam is closed', 'SEAM_CLOSED')
    const wire = JSON.parse(JSON.stringify({ ok: false, error })) as {
      error: { name: string; code: string; message: string }
    }
    expect(wire.error).toMatchObject({
      name: 'UserQuestionError',
      code: 'SEAM_CLOSED',
      message: 'the seam is closed',
    })
  })
})

describe('HarnessError', () => {
  it('carries a free string code and the standard cause', () => {
    const cause = new Error('root')
    const error = new HarnessError('agent id in use', 'AGENT_ID_IN_USE', { cause })
    expect(error).toBeInstanceOf(Error)
    expect(error).not.toBeInstanceOf(UserQuestionError)
    expect(error.code).toBe('AGENT_ID_IN_USE')
    expect(error.cause).toBe(cause)
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      code: 'AGENT_ID_IN_USE',
      message: 'agent id in use',
    })
  })
})

describe('UserQuestionErrorCodes', () => {
  it('holds every code of the DESIGN §3 table exactly once, each mapped to itself', () => {
    const keys = Object.keys(UserQuestionErrorCodes)
    expect([...keys].sort()).toEqual([...DESIGN_CODES].sort())
    expect(new Set(Object.values(UserQuestionErrorCodes)).size).toBe(DESIGN_CODES.length)
    for (const code of DESIGN_CODES) expect(UserQuestionErrorCodes[code]).toBe(code)
  })

  it('constructs an error for every code', () => {
    for (const code of DESIGN_CODES) {
      const error = new UserQuestionError(`m ${code}`, code)
      expect(error.code).toBe(code)
      expect(isUserQuestionError(error)).toBe(true)
    }
  })
})

describe('isUserQuestionError', () => {
  it('recognises ours and look-alikes with a known code, and nothing else', () => {
    expect(isUserQuestionError(new UserQuestionError('m', 'NO_PROVIDER'))).toBe(true)
    expect(isUserQuestionError({ name: 'UserQuestionError', code: 'NO_PROVIDER' })).toBe(true)
    expect(isUserQuestionError({ name: 'UserQuestionError', code: 'NOT_A_CODE' })).toBe(false)
    expect(isUserQuestionError({ name: 'Error', code: 'NO_PROVIDER' })).toBe(false)
    expect(isUserQuestionError(new HarnessError('m', 'NO_PROVIDER'))).toBe(false)
    expect(isUserQuestionError(new Error('m'))).toBe(false)
    expect(isUserQuestionError(null)).toBe(false)
    expect(isUserQuestionError('ASK_CANCELLED')).toBe(false)
  })
})

describe('toUserQuestionError', () => {
  it('passes one of ours through unchanged', () => {
    const error = new UserQuestionError('dismissed', 'ASK_CANCELLED')
    expect(toUserQuestionError(error)).toBe(error)
  })

  it('turns anything else into PROVIDER_FAILED by default, keeping it as cause', () => {
    const plain = new Error('boom')
    const converted = toUserQuestionError(plain)
    expect(converted).toBeInstanceOf(UserQuestionError)
    expect(converted.code).toBe('PROVIDER_FAILED')
    expect(converted.cause).toBe(plain)
    expect(converted.message).toContain('boom')

    const fromString = toUserQuestionError('just a string')
    expect(fromString.code).toBe('PROVIDER_FAILED')
    expect(fromString.cause).toBe('just a string')
  })

  it('uses the fallback code and message it is given', () => {
    const converted = toUserQuestionError(new Error('x'), 'ASK_ABORTED', 'the caller went away')
    expect(converted.code).toBe('ASK_ABORTED')
    expect(converted.message).toContain('the caller went away')
  })

  it('adopts a foreign copy of the class, keeping its code and details', () => {
    const foreign = Object.assign(new Error('dismissed elsewhere'), {
      name: 'UserQuestionError',
      code: 'ASK_CANCELLED',
      details: { reason: 'user' },
    })
    const converted = toUserQuestionError(foreign)
    expect(converted).toBeInstanceOf(UserQuestionError)
    expect(converted.code).toBe('ASK_CANCELLED')
    expect(converted.message).toBe('dismissed elsewhere')
    expect(converted.details).toEqual({ reason: 'user' })
    expect(converted.cause).toBe(foreign)
  })
})

describe('edges of the error helpers', () => {
  it('toJSON leaves details out when there are none', () => {
    const json = new UserQuestionError('gone', 'ASK_ABORTED').toJSON()
    expect(json).toStrictEqual({ name: 'UserQuestionError', code: 'ASK_ABORTED', message: 'gone' })
    expect(Object.keys(json)).not.toContain('details')
  })

  it('tells ours from look-alikes precisely', () => {
    expect(isUserQuestionError(new UserQuestionError('x', 'ASK_TIMEOUT'))).toBe(true)
    expect(isUserQuestionError({ name: 'UserQuestionError', code: 'ASK_TIMEOUT' })).toBe(true)
    expect(isUserQuestionError({ name: 'UserQuestionError', code: 7 })).toBe(false)
    expect(isUserQuestionError({ name: 'UserQuestionError', code: 'toString' })).toBe(false)
    expect(isUserQuestionError('UserQuestionError')).toBe(false)
    expect(isUserQuestionError(null)).toBe(false)
  })

  it('adopts a foreign copy without details as a copy without details', () => {
    const foreign = {
      name: 'UserQuestionError',
      code: 'ASK_CANCELLED',
      message: 'closed',
      details: null,
    }
    const adopted = toUserQuestionError(foreign)
    expect(adopted).toBeInstanceOf(UserQuestionError)
    expect(adopted.code).toBe('ASK_CANCELLED')
    expect(adopted.details).toBeUndefined()
    expect(adopted.cause).toBe(foreign)
    const withText = toUserQuestionError({ ...foreign, details: 'not an object' })
    expect(withText.details).toBeUndefined()
  })
})

describe('toUserQuestionError and isUserQuestionError on hostile and odd values', () => {
  const boom = new Error('boom')
  const throwing = <T extends object>(target: T, key: string): T =>
    Object.defineProperty(target, key, {
      get() {
        throw boom
      },
    })
  const lookAlike = (fields: Record<string, unknown> = {}) => ({
    name: 'UserQuestionError',
    code: 'ASK_CANCELLED',
    message: 'closed',
    ...fields,
  })

  it('names HarnessError as such', () => {
    expect(new HarnessError('m', 'X').name).toBe('HarnessError')
  })

  it('the default fallback is PROVIDER_FAILED with the default message, no details', () => {
    const converted = toUserQuestionError(42)
    expect(converted.message).toBe('The question provider failed')
    expect(converted.details).toBeUndefined()
    expect(converted.cause).toBe(42)
    expect(toUserQuestionError({ message: 'not an Error' }).message).toBe(
      'The question provider failed',
    )
    expect(toUserQuestionError(Object.assign(new Error(), { message: 5 })).message).toBe(
      'The question provider failed',
    )
    expect(toUserQuestionError(new Error('boom')).message).toBe(
      'The question provider failed: boom',
    )
  })

  it('does not adopt a known code from something that is not ours', () => {
    const error = Object.assign(new Error('late'), { code: 'ASK_TIMEOUT' })
    const converted = toUserQuestionError(error)
    expect(converted.code).toBe('PROVIDER_FAILED')
    expect(converted.message).toBe('The question provider failed: late')
  })

  it('adopts a look-alike whose message is not a string with an empty message', () => {
    const adopted = toUserQuestionError(lookAlike({ message: 5 }))
    expect(adopted.code).toBe('ASK_CANCELLED')
    expect(adopted.message).toBe('')
  })

  it('adopts a look-alike that is a function', () => {
    const fn = Object.assign(() => undefined, { code: 'ASK_TIMEOUT', message: 'late' })
    Object.defineProperty(fn, 'name', { value: 'UserQuestionError' })
    expect(isUserQuestionError(fn)).toBe(true)
    expect(toUserQuestionError(fn).code).toBe('ASK_TIMEOUT')
  })

  it.each([
    ['its message', () => throwing(lookAlike(), 'message')],
    ['its details', () => throwing(lookAlike(), 'details')],
    [
      'the keys of its details',
      () =>
        lookAlike({
          details: new Proxy(
            {},
            {
              ownKeys() {
                throw boom
              },
            },
          ),
        }),
    ],
    ['its name', () => throwing(new UserQuestionError('closed', 'ASK_CANCELLED'), 'name')],
  ])('falls back when %s cannot be read', (_name, value) => {
    const given = value()
    const converted = toUserQuestionError(given)
    expect(converted.code).toBe('PROVIDER_FAILED')
    expect(converted.message).toBe(
      'The question provider failed: its ASK_CANCELLED error could not be read',
    )
    expect(converted.cause).toBe(given)
  })

  it('is not one of ours when its message cannot be read, or its code only converts to one', () => {
    expect(isUserQuestionError(throwing(lookAlike(), 'message'))).toBe(false)
    expect(isUserQuestionError(lookAlike({ code: { toString: () => 'ASK_TIMEOUT' } }))).toBe(false)
    const proxy = new Proxy(new UserQuestionError('m', 'ASK_TIMEOUT'), {
      getPrototypeOf() {
        throw boom
      },
    })
    // instanceof throws: only the name can say it is ours.
    expect(isUserQuestionError(proxy)).toBe(true)
    expect(toUserQuestionError(proxy).code).toBe('ASK_TIMEOUT')
  })

  it('names an unknown code, and what the error said', () => {
    const converted = toUserQuestionError(lookAlike({ code: 'NOPE', message: 'odd' }))
    expect(converted.code).toBe('PROVIDER_FAILED')
    expect(converted.message).toBe(
      'The question provider failed: it raised the unknown code "NOPE" (odd)',
    )
    expect(converted.details).toStrictEqual({ unknownCode: 'NOPE' })
    const silent = toUserQuestionError(lookAlike({ code: 'NOPE', message: undefined }))
    expect(silent.message).toBe('The question provider failed: it raised the unknown code "NOPE"')
  })

  it('quotes at most 200 characters of a foreign code or message', () => {
    const code = 'C'.repeat(201)
    const exact = 'M'.repeat(200)
    const converted = toUserQuestionError(lookAlike({ code, message: exact }))
    expect(converted.details).toStrictEqual({ unknownCode: `${'C'.repeat(200)}…` })
    expect(converted.message).toBe(
      `The question provider failed: it raised the unknown code "${'C'.repeat(200)}…" (${exact})`,
    )
  })
})

describe('look-alikes that are not ours', () => {
  it('a value whose instanceof check throws is ours only by name', () => {
    const proxy = new Proxy(
      { name: 'Other', code: 'ASK_TIMEOUT', message: 'm' },
      {
        getPrototypeOf() {
          throw new Error('trap')
        },
      },
    )
    expect(isUserQuestionError(proxy)).toBe(false)
  })

  it('a look-alike whose code is not text is no unknown code', () => {
    const converted = toUserQuestionError({ name: 'UserQuestionError', code: 7, message: 'm' })
    expect(converted.message).toBe('The question provider failed')
    expect(converted.details).toBeUndefined()
  })
})
