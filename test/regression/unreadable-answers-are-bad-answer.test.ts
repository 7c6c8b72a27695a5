import { describe, expect, it } from 'vitest'
import { UserQuestionError, validateAnswer, validateRequest } from '../../src/protocol/index.js'
import { proxyThrowingOn, revokedProxy, selfThrowing, throwingGetters } from './hostile-values.js'

// Issue 10: an answer is as untrusted as a request. validateAnswer throws
// BAD_ANSWER for anything it cannot read, never a raw error, and reads each
// field once.

const { questions } = validateRequest({
  questions: [
    { id: 'db', question: 'Which?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
  ],
})

function verdict(answer: unknown): UserQuestionError {
  try {
    validateAnswer(questions, answer)
  } catch (error: unknown) {
    expect(error).toBeInstanceOf(UserQuestionError)
    return error as UserQuestionError
  }
  throw new Error('validateAnswer accepted the answer')
}

describe('an answer that cannot be read is BAD_ANSWER', () => {
  it.each<readonly [string, () => unknown]>([
    ...Object.entries(selfThrowing).map(([name, make]) => [name, make] as const),
    ['answers with a throwing getter', () => throwingGetters(['answers'])],
    [
      'an item Proxy whose get throws',
      () => ({ answers: [proxyThrowingOn({ id: 'db', selected: [] })] }),
    ],
    ['a revoked Proxy item', () => ({ answers: [revokedProxy()] })],
    ['a revoked selected', () => ({ answers: [{ id: 'db', selected: revokedProxy() }] })],
    ['a sparse selected', () => ({ answers: [{ id: 'db', selected: new Array(2) }] })],
    [
      'a Proxy that throws a look-alike UserQuestionError',
      () => ({
        answers: new Proxy([], {
          get() {
            throw { name: 'UserQuestionError', code: 'ASK_CANCELLED', message: 'not really' }
          },
        }),
      }),
    ],
  ])('%s', (_name, make) => {
    const error = verdict(make())
    expect(error.code).toBe('BAD_ANSWER')
  })

  it('reads custom once: a getter that turns into an object on the second read cannot slip through', () => {
    let reads = 0
    const item = {
      id: 'db',
      selected: [],
      get custom() {
        reads += 1
        return reads === 1 ? 'MariaDB' : { not: 'a string' }
      },
    }
    expect(validateAnswer(questions, { answers: [item] })).toEqual({
      answers: [{ id: 'db', selected: [], custom: 'MariaDB' }],
    })
    expect(reads).toBe(1)
  })

  it('still returns labels in option order and refuses repeats after the linear rewrite', () => {
    const { questions: multi } = validateRequest({
      questions: [
        {
          id: 'm',
          question: 'Which?',
          multiSelect: true,
          options: [{ label: 'a' }, { label: 'b' }, { label: 'c' }],
        },
      ],
    })
    expect(validateAnswer(multi, { answers: [{ id: 'm', selected: ['c', 'a'] }] })).toEqual({
      answers: [{ id: 'm', selected: ['a', 'c'] }],
    })
    expect(() => validateAnswer(multi, { answers: [{ id: 'm', selected: ['c', 'c'] }] })).toThrow(
      /selected twice/,
    )
  })

  it('questions that are not frozen are indexed afresh, so a change to them counts', () => {
    const mutable = [{ id: 'q', question: 'Q?', options: [{ label: 'old' }] }]
    expect(validateAnswer(mutable, { answers: [{ id: 'q', selected: ['old'] }] })).toBeTruthy()
    mutable[0]!.options[0]!.label = 'new'
    expect(validateAnswer(mutable, { answers: [{ id: 'q', selected: ['new'] }] })).toEqual({
      answers: [{ id: 'q', selected: ['new'] }],
    })
  })
})
