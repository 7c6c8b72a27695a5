import { describe, expect, it } from 'vitest'
import {
  checkIntent,
  describePlanReview,
  qualifiesForPlanReview,
} from '../../src/vocabulary/index.js'
import type { AskUserQuestionItem } from '../../src/vocabulary/index.js'
import { choice, thrownBy } from '../support/controllable-provider.js'

/** What an intent means (src/vocabulary/intent.ts): the BAD_INTENT rules and the plan-review reading. */

const approve = { label: 'Approve' }
const refuse = { label: 'Refuse' }
const plan = (overrides: Record<string, unknown> = {}): AskUserQuestionItem =>
  ({
    id: 'plan',
    question: 'Proceed?',
    detail: '1. deploy',
    options: [approve, refuse],
    intent: { kind: 'plan-review', approve: 'Approve' },
    ...overrides,
  }) as AskUserQuestionItem

describe('checkIntent', () => {
  it('passes a question without an intent, and a well-formed plan review', () => {
    expect(() => checkIntent(choice('a'), 0)).not.toThrow()
    expect(() => checkIntent(plan(), 0)).not.toThrow()
  })

  it('names the position, the question and the rule', () => {
    const unknown = thrownBy(
      () => checkIntent(plan({ intent: { kind: 'vote' as 'plan-review', approve: 'Approve' } }), 3),
      'BAD_INTENT',
    )
    expect(unknown.message).toBe('questions[3].intent.kind "vote" is not a known intent')
    expect(unknown.details).toStrictEqual({
      questionId: 'plan',
      field: 'questions[3].intent',
      rule: 'unknown-kind',
    })
    const noDetail = thrownBy(() => checkIntent(plan({ detail: ' ' }), 0), 'BAD_INTENT')
    expect(noDetail.message).toBe(
      'question "plan" declares a plan-review intent but has no detail to carry the plan',
    )
    const notOption = thrownBy(
      () => checkIntent(plan({ intent: { kind: 'plan-review', approve: 'Ship' } }), 0),
      'BAD_INTENT',
    )
    expect(notOption.message).toBe(
      'question "plan": intent.approve "Ship" names none of its options',
    )
    expect(notOption.details).toStrictEqual({
      questionId: 'plan',
      field: 'questions[0].intent',
      rule: 'approve-not-an-option',
    })
  })
})

describe('describePlanReview', () => {
  it('reads the approving and the refusing option', () => {
    const question = plan()
    const choiceOf = describePlanReview([question])
    expect(choiceOf).toStrictEqual({ question, approve, refuse })
    expect(choiceOf?.approve).toBe(question.options?.[0])
    expect(qualifiesForPlanReview([question])).toBe(true)
  })

  it('reads a plan review with the approve option alone, and one whose approve comes second', () => {
    const alone = plan({ options: [approve] })
    expect(describePlanReview([alone])).toStrictEqual({ question: alone, approve })
    expect(Object.keys(describePlanReview([alone]) ?? {})).toEqual(['question', 'approve'])
    const second = plan({ options: [refuse, approve] })
    expect(describePlanReview([second])).toStrictEqual({ question: second, approve, refuse })
  })

  it.each<[string, AskUserQuestionItem[]]>([
    ['no question', []],
    ['two questions', [plan(), plan({ id: 'other' })]],
    ['no intent', [plan({ intent: undefined })]],
    ['another intent', [plan({ intent: { kind: 'vote' as 'plan-review', approve: 'Approve' } })]],
    ['no detail', [plan({ detail: undefined })]],
    ['a blank detail', [plan({ detail: '  ' })]],
    ['multi-select', [plan({ multiSelect: true })]],
    ['no options', [plan({ options: undefined })]],
    ['an approve that is no option', [plan({ intent: { kind: 'plan-review', approve: 'Go' } })]],
    ['three options', [plan({ options: [approve, refuse, { label: 'Later' }] })]],
  ])('does not qualify with %s', (_name, questions) => {
    expect(describePlanReview(questions)).toBeUndefined()
    expect(qualifiesForPlanReview(questions)).toBe(false)
  })

  it('qualifies single-select written out', () => {
    expect(qualifiesForPlanReview([plan({ multiSelect: false })])).toBe(true)
  })
})
