import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { runs } from '../support/runs.js'
import {
  UserQuestionError,
  encodeAnswer,
  validateAnswer,
  validateRequest,
} from '../../src/vocabulary/index.js'
import type { AskUserQuestionAnswer, AskUserQuestionItem } from '../../src/vocabulary/index.js'

/**
 * The request and answer rules against a small reference oracle written from
 * DESIGN §3 and §5 alone, on generated valid and invalid inputs.
 */

const text = fc.constantFrom('a', 'b', 'Yes', 'No', 'Postgres', ' ', '', 'x y')
const label = fc.constantFrom('Yes', 'No', 'Maybe', 'Later', ' ', '')

const option = fc.oneof(
  { weight: 8, arbitrary: fc.record({ label }, { requiredKeys: ['label'] }) },
  {
    weight: 2,
    arbitrary: fc.record({ label, description: fc.constantFrom('why', 7 as unknown as string) }),
  },
  { weight: 1, arbitrary: fc.constantFrom(null, 'Yes', 3) as fc.Arbitrary<unknown> },
)

const question = fc.record(
  {
    id: fc.oneof(
      { weight: 9, arbitrary: fc.constantFrom('q1', 'q2', 'q3', ' ') },
      { weight: 1, arbitrary: fc.constant(5) },
    ),
    question: fc.oneof({ weight: 9, arbitrary: text }, { weight: 1, arbitrary: fc.constant(null) }),
    detail: fc.oneof(text, fc.constant(4)),
    header: text,
    options: fc.oneof(
      { weight: 9, arbitrary: fc.array(option, { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.constant('Yes') },
    ),
    multiSelect: fc.oneof(
      { weight: 9, arbitrary: fc.boolean() },
      { weight: 1, arbitrary: fc.constant('yes') },
    ),
    intent: fc.oneof(
      fc.record({ kind: fc.constantFrom('plan-review', 'other'), approve: label }),
      fc.constant({ kind: 'plan-review' }),
    ),
  },
  { requiredKeys: ['id', 'question'] },
)

const request = fc.oneof(
  { weight: 12, arbitrary: fc.record({ questions: fc.array(question, { maxLength: 3 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      questions: fc.array(question, { minLength: 1, maxLength: 2 }),
      timeoutMs: fc.constantFrom(-1, Number.NaN, 0, 10, Infinity, '5'),
    }),
  },
  { weight: 1, arbitrary: fc.anything() },
)

type Dict = Record<string, unknown>
const isDict = (value: unknown): value is Dict =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const filled = (value: unknown) => typeof value === 'string' && value.trim().length > 0

/** The reference: the code of the first rule broken, or 'ok'. */
function requestOracle(input: unknown): string {
  if (!isDict(input)) return 'INVALID_REQUEST'
  const questions = input.questions
  if (Array.isArray(questions) && questions.length === 0) return 'EMPTY_QUESTIONS'
  if (!Array.isArray(questions)) return 'INVALID_REQUEST'
  const ids: string[] = []
  for (const q of questions) {
    if (!isDict(q) || !filled(q.id) || ids.includes(q.id as string) || !filled(q.question))
      return 'INVALID_REQUEST'
    ids.push(q.id as string)
    for (const key of ['detail', 'header'])
      if (q[key] !== undefined && typeof q[key] !== 'string') return 'INVALID_REQUEST'
    if (q.options !== undefined) {
      if (!Array.isArray(q.options)) return 'INVALID_REQUEST'
      const labels: string[] = []
      for (const o of q.options) {
        if (!isDict(o) || !filled(o.label) || labels.includes(o.label as string))
          return 'INVALID_REQUEST'
        if (o.description !== undefined && typeof o.description !== 'string')
          return 'INVALID_REQUEST'
        labels.push(o.label as string)
      }
    }
    if (q.multiSelect !== undefined && typeof q.multiSelect !== 'boolean') return 'INVALID_REQUEST'
    if (q.intent !== undefined) {
      const intent = q.intent
      if (!isDict(intent) || typeof intent.kind !== 'string' || typeof intent.approve !== 'string')
        return 'INVALID_REQUEST'
    }
  }
  const t = input.timeoutMs
  if (t !== undefined && (typeof t !== 'number' || !(t >= 0))) return 'INVALID_REQUEST'
  for (const q of questions as Dict[]) {
    const intent = q.intent as Dict | undefined
    if (intent === undefined) continue
    if (intent.kind !== 'plan-review' || !filled(q.detail)) return 'BAD_INTENT'
    if (!((q.options as Dict[] | undefined) ?? []).some((o) => o.label === intent.approve))
      return 'BAD_INTENT'
  }
  return 'ok'
}

function codeOf(run: () => unknown): string {
  try {
    run()
    return 'ok'
  } catch (error: unknown) {
    expect(error).toBeInstanceOf(UserQuestionError)
    return (error as UserQuestionError).code
  }
}

const validQuestions: fc.Arbitrary<AskUserQuestionItem[]> = fc
  .uniqueArray(
    fc.record({
      id: fc.constantFrom('q1', 'q2', 'q3', 'q4'),
      labels: fc.uniqueArray(fc.constantFrom('Yes', 'No', 'Maybe', 'Later'), { maxLength: 4 }),
      multiSelect: fc.boolean(),
    }),
    { minLength: 1, maxLength: 4, selector: (q) => q.id },
  )
  .map((items) =>
    items.map(({ id, labels, multiSelect }) => ({
      id,
      question: `Question ${id}?`,
      ...(labels.length > 0 ? { options: labels.map((l) => ({ label: l })) } : {}),
      multiSelect,
    })),
  )

const answerItem = fc.record(
  {
    id: fc.constantFrom('q1', 'q2', 'q3', 'q4', 'q9'),
    selected: fc.array(fc.constantFrom('Yes', 'No', 'Maybe', 'Later', 'Other'), { maxLength: 3 }),
    custom: fc.constantFrom('typed', ' ', 'more words'),
  },
  { requiredKeys: ['id', 'selected'] },
)

/** The reference answer rules of DESIGN §5: the canonical answer, or undefined when invalid. */
function answerOracle(
  questions: AskUserQuestionItem[],
  answer: { answers: Dict[] },
): AskUserQuestionAnswer | undefined {
  const items = answer.answers
  const ids = items.map((item) => item.id)
  if (new Set(ids).size !== ids.length) return undefined
  if (ids.some((id) => !questions.some((q) => q.id === id))) return undefined
  const result: AskUserQuestionAnswer = { answers: [] }
  for (const q of questions) {
    const item = items.find((i) => i.id === q.id)
    if (item === undefined) return undefined
    const selected = item.selected as string[]
    const offered = (q.options ?? []).map((o) => o.label)
    if (selected.some((l) => !offered.includes(l)) || new Set(selected).size !== selected.length)
      return undefined
    const custom = item.custom as string | undefined
    if (custom !== undefined && custom.trim() === '') return undefined
    if (!q.multiSelect && (selected.length > 1 || (selected.length > 0 && custom !== undefined)))
      return undefined
    const ordered = offered.filter((l) => selected.includes(l))
    result.answers.push(
      custom === undefined
        ? { id: q.id, selected: ordered }
        : { id: q.id, selected: ordered, custom },
    )
  }
  return result
}

describe('validation agrees with a reference oracle', () => {
  it('validateRequest: same verdict and code on generated requests', () => {
    fc.assert(
      fc.property(request, (input) => {
        expect(codeOf(() => validateRequest(input))).toBe(requestOracle(input))
      }),
      { numRuns: runs(3_000) },
    )
  })

  it('validateAnswer: accepts exactly what the oracle accepts, returning its canonical form', () => {
    fc.assert(
      fc.property(validQuestions, fc.array(answerItem, { maxLength: 5 }), (questions, items) => {
        const answer = { answers: items }
        const expected = answerOracle(questions, answer)
        if (expected === undefined)
          expect(codeOf(() => validateAnswer(questions, answer))).toBe('BAD_ANSWER')
        else expect(validateAnswer(questions, answer)).toEqual(expected)
      }),
      { numRuns: runs(3_000) },
    )
  })

  it('validateAnswer(encodeAnswer(...)) is the identity on canonical answers', () => {
    const canonical = validQuestions.chain((questions) =>
      fc
        .tuple(
          ...questions.map((q) => {
            const labels = (q.options ?? []).map((o) => o.label)
            const selected = q.multiSelect
              ? fc.subarray(labels)
              : fc.oneof(fc.constant([] as string[]), ...labels.map((l) => fc.constant([l])))
            return fc.record({
              selected,
              custom: fc.option(fc.constantFrom('typed', 'x'), { nil: undefined }),
            })
          }),
        )
        .map((drafts) => ({
          questions,
          answer: {
            answers: questions.map((q, index) => {
              const { selected, custom } = drafts[index]!
              if (custom === undefined) return { id: q.id, selected }
              return { id: q.id, selected: q.multiSelect ? selected : [], custom }
            }),
          },
        })),
    )
    fc.assert(
      fc.property(canonical, ({ questions, answer }) => {
        expect(validateAnswer(questions, answer)).toEqual(answer)
        const encoded = encodeAnswer(questions, answer.answers)
        expect(encoded).toEqual(answer)
        expect(validateAnswer(questions, encoded)).toEqual(encoded)
      }),
      { numRuns: runs(2_000) },
    )
  })
})
