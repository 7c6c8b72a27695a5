import { describe, expect, it } from 'vitest'
import { validateRequest } from '../../src/vocabulary/index.js'
import { choice, thrownBy } from '../support/controllable-provider.js'
import { planReview } from '../support/plan-review.js'

/** Builds a request from loosely typed questions: the point here is malformed input. */
function requestOf(...questions: unknown[]): unknown {
  return { questions }
}

describe('validateRequest: the request itself', () => {
  it.each([
    ['null', null],
    ['a string', 'which database?'],
    ['a number', 42],
    ['an array', [choice('a')]],
    ['undefined', undefined],
  ])('rejects a request that is %s with INVALID_REQUEST', (_name, request) => {
    const error = thrownBy(() => validateRequest(request), 'INVALID_REQUEST')
    expect(error.details).toEqual({ field: 'request' })
    expect(error.message).toContain('request')
  })

  it.each([
    ['missing', undefined],
    ['a string', 'a,b'],
    ['an object', { 0: choice('a') }],
    ['null', null],
  ])('rejects questions that is %s with INVALID_REQUEST', (_name, questions) => {
    const error = thrownBy(() => validateRequest({ questions }), 'INVALID_REQUEST')
    expect(error.details).toEqual({ field: 'questions' })
    expect(error.message).toContain('questions')
  })

  it('rejects an empty questions array with EMPTY_QUESTIONS', () => {
    const error = thrownBy(() => validateRequest({ questions: [] }), 'EMPTY_QUESTIONS')
    expect(error.details).toEqual({ field: 'questions' })
  })

  it.each([
    ['null', null],
    ['a string', 'Which database?'],
    ['an array', [choice('a')]],
  ])('rejects a question that is %s with INVALID_REQUEST naming its position', (_n, question) => {
    const error = thrownBy(
      () => validateRequest(requestOf(choice('a'), question)),
      'INVALID_REQUEST',
    )
    expect(error.details).toEqual({ field: 'questions[1]' })
    expect(error.message).toContain('questions[1]')
  })
})

describe('validateRequest: question fields', () => {
  it.each([
    ['empty', ''],
    ['blank', '   \t'],
    ['a number', 7],
    ['missing', undefined],
  ])('rejects an id that is %s', (_name, id) => {
    const error = thrownBy(
      () => validateRequest(requestOf(choice('a'), { ...choice('b'), id })),
      'INVALID_REQUEST',
    )
    expect(error.details).toEqual({ field: 'questions[1].id' })
    expect(error.message).toContain('questions[1].id')
  })

  it.each([
    ['empty', ''],
    ['blank', '  '],
    ['a number', 3],
    ['missing', undefined],
  ])('rejects question text that is %s, naming the question', (_name, question) => {
    const error = thrownBy(
      () => validateRequest(requestOf({ ...choice('db'), question })),
      'INVALID_REQUEST',
    )
    expect(error.details).toEqual({ questionId: 'db', field: 'questions[0].question' })
    expect(error.message).toContain('questions[0].question')
  })

  it.each([
    ['empty', ''],
    ['blank', ' '],
    ['a number', 1],
    ['missing', undefined],
  ])('rejects an option label that is %s, naming the question and option', (_name, label) => {
    const error = thrownBy(
      () =>
        validateRequest(
          requestOf({ id: 'db', question: 'Which?', options: [{ label: 'Postgres' }, { label }] }),
        ),
      'INVALID_REQUEST',
    )
    expect(error.details).toEqual({ questionId: 'db', field: 'questions[0].options[1].label' })
    expect(error.message).toContain('questions[0].options[1].label')
  })

  it('rejects two questions with one id, naming the id', () => {
    const error = thrownBy(
      () => validateRequest(requestOf(choice('db'), choice('cache'), choice('db'))),
      'INVALID_REQUEST',
    )
    expect(error.details).toEqual({ questionId: 'db', field: 'questions[2].id' })
    expect(error.message).toContain('"db"')
  })

  it('rejects two options with one label in a question, naming the label', () => {
    const error = thrownBy(
      () =>
        validateRequest(requestOf(choice('a'), choice('db', ['Postgres', 'SQLite', 'Postgres']))),
      'INVALID_REQUEST',
    )
    expect(error.details).toEqual({ questionId: 'db', field: 'questions[1].options[2].label' })
    expect(error.message).toContain('questions[1]')
    expect(error.message).toContain('"Postgres"')
  })

  it('accepts one label in two different questions', () => {
    expect(() =>
      validateRequest(requestOf(choice('a', ['Yes', 'No']), choice('b', ['Yes', 'No']))),
    ).not.toThrow()
  })

  it.each([
    ['a string', 'yes'],
    ['a number', 1],
    ['null', null],
  ])('rejects multiSelect that is %s', (_name, multiSelect) => {
    const error = thrownBy(
      () => validateRequest(requestOf({ ...choice('db'), multiSelect })),
      'INVALID_REQUEST',
    )
    expect(error.details).toEqual({ questionId: 'db', field: 'questions[0].multiSelect' })
  })

  it('rejects options that are not an array, and an option that is not an object', () => {
    const notArray = thrownBy(
      () => validateRequest(requestOf({ ...choice('db'), options: { label: 'x' } })),
      'INVALID_REQUEST',
    )
    expect(notArray.details).toEqual({ questionId: 'db', field: 'questions[0].options' })
    const notObject = thrownBy(
      () => validateRequest(requestOf({ ...choice('db'), options: ['Postgres'] })),
      'INVALID_REQUEST',
    )
    expect(notObject.details).toEqual({ questionId: 'db', field: 'questions[0].options[0]' })
  })

  it.each(['detail', 'header'])('rejects a %s that is not a string', (field) => {
    const error = thrownBy(
      () => validateRequest(requestOf({ ...choice('db'), [field]: 5 })),
      'INVALID_REQUEST',
    )
    expect(error.details).toEqual({ questionId: 'db', field: `questions[0].${field}` })
  })

  it('rejects an option description that is not a string', () => {
    const error = thrownBy(
      () =>
        validateRequest(
          requestOf({ id: 'db', question: 'Which?', options: [{ label: 'A', description: 1 }] }),
        ),
      'INVALID_REQUEST',
    )
    expect(error.details).toEqual({
      questionId: 'db',
      field: 'questions[0].options[0].description',
    })
  })
})

describe('validateRequest: intents', () => {
  it('accepts a plan review whose approve names one of its options', () => {
    const { questions } = validateRequest(requestOf(planReview()))
    expect(questions[0]?.intent).toEqual({ kind: 'plan-review', approve: 'Approve' })
  })

  it('rejects an approve that names none of the options with BAD_INTENT', () => {
    const error = thrownBy(
      () =>
        validateRequest(
          requestOf(planReview({ intent: { kind: 'plan-review', approve: 'Ship it' } })),
        ),
      'BAD_INTENT',
    )
    expect(error.details).toMatchObject({ questionId: 'plan', rule: 'approve-not-an-option' })
    expect(error.message).toContain('"plan"')
    expect(error.message).toContain('Ship it')
  })

  it('rejects an approve on a question that has no options with BAD_INTENT', () => {
    const withoutOptions = planReview()
    delete withoutOptions.options
    const error = thrownBy(() => validateRequest(requestOf(withoutOptions)), 'BAD_INTENT')
    expect(error.details).toMatchObject({ questionId: 'plan', rule: 'approve-not-an-option' })
    expect(error.message).toContain('"plan"')
  })

  it('does not match approve by position', () => {
    thrownBy(
      () =>
        validateRequest(requestOf(planReview({ intent: { kind: 'plan-review', approve: '0' } }))),
      'BAD_INTENT',
    )
  })

  it.each([
    ['missing', undefined],
    ['blank', '   '],
  ])('rejects an intent on a question whose detail is %s with BAD_INTENT', (_name, detail) => {
    const question = planReview({ detail })
    if (detail === undefined) delete question.detail
    const error = thrownBy(() => validateRequest(requestOf(question)), 'BAD_INTENT')
    expect(error.details).toMatchObject({ questionId: 'plan', rule: 'needs-detail' })
    expect(error.message).toContain('"plan"')
  })

  it('rejects an intent that is not an object with approve as INVALID_REQUEST (shape, not intent)', () => {
    const error = thrownBy(
      () => validateRequest(requestOf(planReview({ intent: { kind: 'plan-review' } }))),
      'INVALID_REQUEST',
    )
    expect(error.details).toEqual({ questionId: 'plan', field: 'questions[0].intent' })
  })
})

describe('validateRequest: timeoutMs and signal', () => {
  it.each([
    ['negative', -1],
    ['NaN', Number.NaN],
    ['negative Infinity', -Infinity],
    ['a string', '1000'],
    ['longer than a timer can hold', 2_147_483_648],
  ])('rejects a timeoutMs that is %s with INVALID_REQUEST', (_name, timeoutMs) => {
    const error = thrownBy(
      () => validateRequest({ questions: [choice('a')], timeoutMs }),
      'INVALID_REQUEST',
    )
    expect(error.details).toEqual({ field: 'timeoutMs' })
    expect(error.message).toContain('timeoutMs')
  })

  it.each([0, 1, 60_000, 2_147_483_647, Infinity])('accepts timeoutMs %s', (timeoutMs) => {
    expect(validateRequest({ questions: [choice('a')], timeoutMs }).timeoutMs).toBe(timeoutMs)
  })

  it('rejects a signal that is not an AbortSignal', () => {
    const error = thrownBy(
      () => validateRequest({ questions: [choice('a')], signal: { aborted: 'no' } }),
      'INVALID_REQUEST',
    )
    expect(error.details).toEqual({ field: 'signal' })
  })
})

describe('validateRequest: the copy it returns', () => {
  it('copies the known fields and drops unknown ones', () => {
    const original = {
      id: 'db',
      question: 'Which?',
      header: 'Storage',
      detail: 'we need one',
      multiSelect: true,
      options: [{ label: 'Postgres', description: 'relational', color: 'blue' }],
      extra: 'dropped',
    }
    const { questions } = validateRequest(requestOf(original))
    expect(questions).toEqual([
      {
        id: 'db',
        question: 'Which?',
        header: 'Storage',
        detail: 'we need one',
        multiSelect: true,
        options: [{ label: 'Postgres', description: 'relational' }],
      },
    ])
    original.options[0]!.label = 'MySQL'
    original.question = 'changed'
    expect(questions[0]?.options?.[0]?.label).toBe('Postgres')
    expect(questions[0]?.question).toBe('Which?')
  })
})

describe('the checked copy', () => {
  it('holds exactly the fields that were given, deeply frozen', () => {
    const { questions } = validateRequest({
      questions: [
        { id: 'a', question: 'A?', extra: 'dropped' },
        {
          id: 'p',
          question: 'Approve?',
          detail: 'the plan',
          header: 'Plan',
          options: [{ label: 'Yes', description: 'go' }, { label: 'No' }],
          multiSelect: false,
          intent: { kind: 'plan-review', approve: 'Yes' },
        },
      ],
    })
    expect(questions[0]).toStrictEqual({ id: 'a', question: 'A?' })
    expect(Object.keys(questions[0]!)).toEqual(['id', 'question'])
    expect(Object.keys(questions[1]!)).toEqual([
      'id',
      'question',
      'detail',
      'header',
      'options',
      'multiSelect',
      'intent',
    ])
    expect(Object.keys(questions[1]!.options![1]!)).toEqual(['label'])
    for (const frozen of [
      questions,
      questions[0],
      questions[1],
      questions[1]!.options,
      questions[1]!.options![0],
      questions[1]!.intent,
    ]) {
      expect(Object.isFrozen(frozen)).toBe(true)
    }
  })

  it('keeps no agent key when none was given', () => {
    expect('agent' in validateRequest({ questions: [{ id: 'a', question: 'A?' }] })).toBe(false)
  })
})

describe('intent and signal shapes', () => {
  it.each([
    { kind: 5, approve: 'Yes' },
    { kind: 'plan-review', approve: 5 },
    { kind: 'plan-review' },
    'plan-review',
  ])('an intent of the wrong shape (%j) is INVALID_REQUEST', (intent) => {
    const error = thrownBy(
      () =>
        validateRequest({
          questions: [
            { id: 'p', question: 'Ok?', detail: 'plan', options: [{ label: 'Yes' }], intent },
          ],
        }),
      'INVALID_REQUEST',
    )
    expect(error.details).toMatchObject({ questionId: 'p', field: 'questions[0].intent' })
  })

  it('an intent of an unknown kind is BAD_INTENT', () => {
    const error = thrownBy(
      () =>
        validateRequest({
          questions: [
            {
              id: 'p',
              question: 'Ok?',
              detail: 'plan',
              options: [{ label: 'Yes' }],
              intent: { kind: 'vote', approve: 'Yes' },
            },
          ],
        }),
      'BAD_INTENT',
    )
    expect(error.details).toMatchObject({ questionId: 'p', rule: 'unknown-kind' })
  })

  it.each([
    { aborted: false },
    { aborted: false, addEventListener: () => undefined },
    { aborted: 'no', addEventListener: () => undefined, removeEventListener: () => undefined },
    { addEventListener: () => undefined, removeEventListener: () => undefined },
  ])('a signal that is not an AbortSignal (%j) is INVALID_REQUEST', (signal) => {
    const error = thrownBy(
      () => validateRequest({ questions: [{ id: 'a', question: 'A?' }], signal }),
      'INVALID_REQUEST',
    )
    expect(error.details).toStrictEqual({ field: 'signal' })
  })

  it('accepts an AbortSignal look-alike with the three members', () => {
    const signal = {
      aborted: false,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    }
    expect(validateRequest({ questions: [{ id: 'a', question: 'A?' }], signal }).signal).toBe(
      signal,
    )
  })
})
