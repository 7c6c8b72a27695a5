import { describe, expect, it } from 'vitest'
import { encodeAnswer, validateAnswer } from '../../src/vocabulary/index.js'
import type { AskUserQuestionItem } from '../../src/vocabulary/index.js'
import { thrownBy } from '../support/controllable-provider.js'

const questions: AskUserQuestionItem[] = [
  {
    id: 'db',
    question: 'Which database?',
    options: [{ label: 'Postgres' }, { label: 'SQLite' }],
  },
  {
    id: 'features',
    question: 'Which features?',
    multiSelect: true,
    options: [{ label: 'Auth' }, { label: 'Billing' }, { label: 'Search' }],
  },
  { id: 'name', question: 'Project name?' },
]

function expectBadAnswer(answer: unknown, questionId: string | undefined, rule: string): void {
  const error = thrownBy(() => validateAnswer(questions, answer), 'BAD_ANSWER')
  expect(error.details).toEqual(questionId === undefined ? { rule } : { questionId, rule })
  if (questionId !== undefined) expect(error.message).toContain(`"${questionId}"`)
}

describe('validateAnswer: what it accepts', () => {
  it('returns the answer in question order and multi-select labels in option order', () => {
    const answer = validateAnswer(questions, {
      answers: [
        { id: 'name', selected: [], custom: 'atlas' },
        { id: 'features', selected: ['Search', 'Auth'], custom: 'SSO too' },
        { id: 'db', selected: ['SQLite'] },
      ],
    })
    expect(answer).toEqual({
      answers: [
        { id: 'db', selected: ['SQLite'] },
        { id: 'features', selected: ['Auth', 'Search'], custom: 'SSO too' },
        { id: 'name', selected: [], custom: 'atlas' },
      ],
    })
    expect(answer.answers.map((item) => item.id)).toEqual(['db', 'features', 'name'])
  })

  it('accepts a batch where every question is skipped', () => {
    const skipped = { answers: questions.map(({ id }) => ({ id, selected: [] })) }
    expect(validateAnswer(questions, skipped)).toEqual(skipped)
  })

  it('accepts custom alone on a single-select question', () => {
    const answer = validateAnswer(questions, {
      answers: [
        { id: 'db', selected: [], custom: 'MariaDB' },
        { id: 'features', selected: [] },
        { id: 'name', selected: [] },
      ],
    })
    expect(answer.answers[0]).toEqual({ id: 'db', selected: [], custom: 'MariaDB' })
  })

  it('drops fields the encoding does not know', () => {
    const answer = validateAnswer(questions, {
      answers: [
        { id: 'db', selected: ['Postgres'], note: 'x' },
        { id: 'features', selected: [] },
        { id: 'name', selected: [] },
      ],
    })
    expect(answer.answers[0]).toEqual({ id: 'db', selected: ['Postgres'] })
  })

  it('returns a new object, not the provider’s', () => {
    const given = {
      answers: [
        { id: 'db', selected: ['Postgres'] },
        { id: 'features', selected: [] },
        { id: 'name', selected: [] },
      ],
    }
    const answer = validateAnswer(questions, given)
    given.answers[0]!.selected.push('SQLite')
    expect(answer.answers[0]?.selected).toEqual(['Postgres'])
  })
})

describe('validateAnswer: BAD_ANSWER naming the question and the rule', () => {
  const rest = [
    { id: 'features', selected: [] },
    { id: 'name', selected: [] },
  ]

  it('an answer that is not an object with an answers array', () => {
    expectBadAnswer(null, undefined, 'shape')
    expectBadAnswer({ answers: 'db' }, undefined, 'shape')
    expectBadAnswer([], undefined, 'shape')
  })

  it('an item without a string id', () => {
    expectBadAnswer({ answers: [{ selected: [] }, ...rest] }, undefined, 'shape')
  })

  it('an unknown id', () => {
    expectBadAnswer(
      { answers: [{ id: 'db', selected: [] }, ...rest, { id: 'cache', selected: [] }] },
      'cache',
      'unknown-id',
    )
  })

  it('a missing id', () => {
    expectBadAnswer({ answers: rest }, 'db', 'missing-answer')
  })

  it('the same id twice', () => {
    expectBadAnswer(
      { answers: [{ id: 'db', selected: [] }, { id: 'db', selected: [] }, ...rest] },
      'db',
      'duplicate-id',
    )
  })

  it('a label that is not one of the question’s options', () => {
    expectBadAnswer(
      { answers: [{ id: 'db', selected: ['MySQL'] }, ...rest] },
      'db',
      'unknown-label',
    )
  })

  it('a label of another question', () => {
    expectBadAnswer({ answers: [{ id: 'db', selected: ['Auth'] }, ...rest] }, 'db', 'unknown-label')
  })

  it('any label on an optionless question', () => {
    expectBadAnswer(
      {
        answers: [
          { id: 'db', selected: [] },
          { id: 'features', selected: [] },
          { id: 'name', selected: ['atlas'] },
        ],
      },
      'name',
      'unknown-label',
    )
  })

  it('two labels on a single-select question', () => {
    expectBadAnswer(
      { answers: [{ id: 'db', selected: ['Postgres', 'SQLite'] }, ...rest] },
      'db',
      'single-select',
    )
  })

  it('custom beside selected on a single-select question', () => {
    expectBadAnswer(
      { answers: [{ id: 'db', selected: ['Postgres'], custom: 'MariaDB' }, ...rest] },
      'db',
      'custom-with-selection',
    )
  })

  it.each(['', '   ', '\n\t'])('a blank custom (%j)', (custom) => {
    expectBadAnswer(
      { answers: [{ id: 'db', selected: [], custom }, ...rest] },
      'db',
      'blank-custom',
    )
  })

  it('a repeated label on a multi-select question', () => {
    expectBadAnswer(
      {
        answers: [
          { id: 'db', selected: [] },
          { id: 'features', selected: ['Auth', 'Auth'] },
          { id: 'name', selected: [] },
        ],
      },
      'features',
      'repeated-label',
    )
  })

  it('selected that is not an array of strings, or a custom that is not a string', () => {
    expectBadAnswer({ answers: [{ id: 'db', selected: 'Postgres' }, ...rest] }, 'db', 'shape')
    expectBadAnswer({ answers: [{ id: 'db', selected: [1] }, ...rest] }, 'db', 'shape')
    expectBadAnswer({ answers: [{ id: 'db', selected: [], custom: 5 }, ...rest] }, 'db', 'shape')
  })
})

describe('encodeAnswer', () => {
  it('answers a question without a draft, or a skipped one, as { id, selected: [] }', () => {
    expect(encodeAnswer(questions, [{ id: 'db', selected: ['Postgres'], skipped: true }])).toEqual({
      answers: [
        { id: 'db', selected: [] },
        { id: 'features', selected: [] },
        { id: 'name', selected: [] },
      ],
    })
  })

  it('lets typed text override the choice on a single-select question only', () => {
    const answer = encodeAnswer(questions, [
      { id: 'db', selected: ['Postgres'], custom: 'MariaDB' },
      { id: 'features', selected: ['Search', 'Auth'], custom: 'SSO' },
      { id: 'name', custom: 'atlas' },
    ])
    expect(answer).toEqual({
      answers: [
        { id: 'db', selected: [], custom: 'MariaDB' },
        { id: 'features', selected: ['Auth', 'Search'], custom: 'SSO' },
        { id: 'name', selected: [], custom: 'atlas' },
      ],
    })
  })

  it('treats blank text as no answer', () => {
    const answer = encodeAnswer(questions, [{ id: 'db', selected: ['SQLite'], custom: '   ' }])
    expect(answer.answers[0]).toEqual({ id: 'db', selected: ['SQLite'] })
  })

  it('throws BAD_ANSWER for a label the question does not offer', () => {
    const error = thrownBy(
      () => encodeAnswer(questions, [{ id: 'db', selected: ['MySQL'] }]),
      'BAD_ANSWER',
    )
    expect(error.details).toEqual({ questionId: 'db', rule: 'unknown-label' })
  })

  it('throws BAD_ANSWER for a draft of a question that was not asked', () => {
    const error = thrownBy(() => encodeAnswer(questions, [{ id: 'cache' }]), 'BAD_ANSWER')
    expect(error.details).toEqual({ questionId: 'cache', rule: 'unknown-id' })
  })
})

describe('exact shapes', () => {
  it('an answer without custom has no custom key, and a shape error names no question', () => {
    const answer = validateAnswer(questions, {
      answers: questions.map(({ id }) => ({ id, selected: [], custom: undefined })),
    })
    for (const item of answer.answers) expect(Object.keys(item)).toEqual(['id', 'selected'])
    expect(
      thrownBy(() => validateAnswer(questions, { answers: 'no' }), 'BAD_ANSWER').details,
    ).toStrictEqual({
      rule: 'shape',
    })
  })

  it('encodeAnswer: a draft with only typed text on a multi-select keeps no choices and no stray keys', () => {
    const multi: AskUserQuestionItem[] = [
      { id: 'm', question: 'Which?', multiSelect: true, options: [{ label: 'A' }, { label: 'B' }] },
      { id: 's', question: 'One?', options: [{ label: 'A' }] },
    ]
    const answer = encodeAnswer(multi, [
      { id: 'm', custom: 'C too' },
      { id: 's', selected: ['A'] },
    ])
    expect(answer).toStrictEqual({
      answers: [
        { id: 'm', selected: [], custom: 'C too' },
        { id: 's', selected: ['A'] },
      ],
    })
    expect(Object.keys(answer.answers[1]!)).toEqual(['id', 'selected'])
  })
})

describe('validateAnswer: unreadable answers, exact messages and the label table', () => {
  const boom = new Error('boom')
  const q = (labels: string[]): AskUserQuestionItem => ({
    id: 'q',
    question: 'Which?',
    options: labels.map((label) => ({ label })),
  })

  it('an answer whose read throws is BAD_ANSWER unreadable, with the throw as cause', () => {
    const answer = Object.defineProperty({}, 'answers', {
      get() {
        throw boom
      },
    })
    const error = thrownBy(() => validateAnswer([q(['a'])], answer), 'BAD_ANSWER')
    expect(error.message).toBe('the answer could not be read')
    expect(error.details).toStrictEqual({ rule: 'unreadable' })
    expect(error.cause).toBe(boom)
  })

  it('names the shape it wants', () => {
    expect(thrownBy(() => validateAnswer([q(['a'])], {}), 'BAD_ANSWER').message).toBe(
      'the answer must be an object with an answers array',
    )
    expect(
      thrownBy(() => validateAnswer([q(['a'])], { answers: [{ id: 1 }] }), 'BAD_ANSWER').message,
    ).toBe('each answer must be an object with a string id')
  })

  it('indexes a question that may still change afresh on every answer', () => {
    // Nothing frozen.
    const open = q(['a'])
    validateAnswer([open], { answers: [{ id: 'q', selected: ['a'] }] })
    open.options?.push({ label: 'b' })
    expect(validateAnswer([open], { answers: [{ id: 'q', selected: ['b'] }] })).toEqual({
      answers: [{ id: 'q', selected: ['b'] }],
    })
    // The question frozen, its options not.
    const options = [{ label: 'a' }]
    const frozenQuestion = Object.freeze({ id: 'q', question: 'Which?', options })
    validateAnswer([frozenQuestion], { answers: [{ id: 'q', selected: ['a'] }] })
    options.push({ label: 'b' })
    expect(validateAnswer([frozenQuestion], { answers: [{ id: 'q', selected: ['b'] }] })).toEqual({
      answers: [{ id: 'q', selected: ['b'] }],
    })
    // The question and each option frozen, the list not.
    const growing: { label: string }[] = [Object.freeze({ label: 'a' })]
    const frozenButList = Object.freeze({ id: 'q', question: 'Which?', options: growing })
    validateAnswer([frozenButList], { answers: [{ id: 'q', selected: ['a'] }] })
    growing.push(Object.freeze({ label: 'b' }))
    expect(validateAnswer([frozenButList], { answers: [{ id: 'q', selected: ['b'] }] })).toEqual({
      answers: [{ id: 'q', selected: ['b'] }],
    })
    // Each option frozen, the list and the question not.
    const frozenEach = q([])
    frozenEach.options = [Object.freeze({ label: 'a' })]
    validateAnswer([frozenEach], { answers: [{ id: 'q', selected: ['a'] }] })
    frozenEach.options.push(Object.freeze({ label: 'b' }))
    expect(validateAnswer([frozenEach], { answers: [{ id: 'q', selected: ['b'] }] })).toEqual({
      answers: [{ id: 'q', selected: ['b'] }],
    })
    // The question and the list frozen, one option not.
    const loose = { label: 'a' }
    const oneLoose = Object.freeze({
      id: 'q',
      question: 'Which?',
      options: Object.freeze([loose, Object.freeze({ label: 'b' })]),
    }) as unknown as AskUserQuestionItem
    validateAnswer([oneLoose], { answers: [{ id: 'q', selected: ['a'] }] })
    loose.label = 'c'
    expect(validateAnswer([oneLoose], { answers: [{ id: 'q', selected: ['c'] }] })).toEqual({
      answers: [{ id: 'q', selected: ['c'] }],
    })
  })
})

describe('encodeAnswer: typed text and unknown drafts', () => {
  it('turns CRLF and CR into LF and trims, once for every UI', () => {
    const open: AskUserQuestionItem = { id: 'q', question: 'Why?' }
    expect(encodeAnswer([open], [{ id: 'q', custom: '  one\r\ntwo\rthree \n' }])).toEqual({
      answers: [{ id: 'q', selected: [], custom: 'one\ntwo\nthree' }],
    })
  })

  it('names a draft for a question that was not asked', () => {
    const error = thrownBy(
      () => encodeAnswer([{ id: 'q', question: 'Why?' }], [{ id: 'other', skipped: true }]),
      'BAD_ANSWER',
    )
    expect(error.message).toBe('a draft names question "other", which was not asked')
    expect(error.details).toStrictEqual({ questionId: 'other', rule: 'unknown-id' })
  })
})
