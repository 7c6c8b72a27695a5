import { describe, expect, it } from 'vitest'
import { createActor, transition } from 'xstate'
import type { Actor } from 'xstate'
import {
  canSubmit,
  currentQuestion,
  isQuestionAnswered,
  previewAnswer,
  questionnaireAnswer,
  questionnaireMachine,
} from '../../src/machines/questionnaire.machine.js'
import { describePlanReview, qualifiesForPlanReview } from '../../src/vocabulary/index.js'
import type { QuestionnaireEvent } from '../../src/machines/questionnaire.machine.js'
import { UserQuestionError, validateAnswer, validateRequest } from '../../src/protocol/index.js'
import type { AskUserQuestionItem } from '../../src/protocol/index.js'
import { deploymentQuestions, planReviewQuestion } from '../../src/cli/scenario.js'

type QuestionnaireActor = Actor<typeof questionnaireMachine>

function start(questions: AskUserQuestionItem[]): QuestionnaireActor {
  validateRequest({ questions })
  return createActor(questionnaireMachine, { input: { questions } }).start()
}

function send(actor: QuestionnaireActor, ...events: QuestionnaireEvent[]): QuestionnaireActor {
  for (const event of events) actor.send(event)
  return actor
}

/** The event changes nothing, and the machine says so beforehand: a UI greys its button out by `can`. */
function expectIgnored(actor: QuestionnaireActor, event: unknown): void {
  const before = actor.getSnapshot()
  expect(before.can(event as QuestionnaireEvent)).toBe(false)
  actor.send(event as QuestionnaireEvent)
  const after = actor.getSnapshot()
  expect(after.value).toEqual(before.value)
  expect(after.status).toBe(before.status)
  expect(after.context).toEqual(before.context)
}

const color: AskUserQuestionItem = {
  id: 'color',
  question: 'Which colour?',
  options: [{ label: 'Red' }, { label: 'Green' }, { label: 'Blue' }],
}
const toppings: AskUserQuestionItem = {
  id: 'toppings',
  question: 'Which toppings?',
  multiSelect: true,
  options: [{ label: 'Cheese' }, { label: 'Olives' }, { label: 'Basil' }],
}
const note: AskUserQuestionItem = { id: 'note', question: 'Anything else?' }
const batch = [color, toppings, note]

describe('questionnaireMachine: the generic flow', () => {
  it('starts on the first question with an empty draft for every question', () => {
    const snapshot = start(batch).getSnapshot()
    expect(snapshot.value).toBe('answering')
    expect(snapshot.context.index).toBe(0)
    expect(snapshot.context.drafts).toEqual({
      color: { selected: [], skipped: false },
      toppings: { selected: [], skipped: false },
      note: { selected: [], skipped: false },
    })
    expect(canSubmit(snapshot.context)).toBe(false)
  })

  it('option.chosen selects the label and moves to the next question', () => {
    const { context } = send(start(batch), { type: 'option.chosen', label: 'Green' }).getSnapshot()
    expect(context.drafts.color).toEqual({ selected: ['Green'], skipped: false })
    expect(context.index).toBe(1)
    expect(isQuestionAnswered(context, 'color')).toBe(true)
  })

  it('option.chosen on the last question selects and stays there', () => {
    const questions = [note, color]
    const actor = send(start(questions), { type: 'question.next' })
    send(actor, { type: 'option.chosen', label: 'Blue' }, { type: 'option.chosen', label: 'Red' })
    expect(actor.getSnapshot().context.index).toBe(1)
    expect(actor.getSnapshot().context.drafts.color?.selected).toEqual(['Red'])
  })

  it('option.chosen replaces typed text on a single-select question', () => {
    const actor = send(
      start(batch),
      { type: 'custom.typed', text: 'Magenta' },
      { type: 'option.chosen', label: 'Red' },
    )
    expect(actor.getSnapshot().context.drafts.color).toEqual({ selected: ['Red'], skipped: false })
  })

  it('ignores option.chosen for a label the question does not offer, or on a multi-select question', () => {
    const actor = start(batch)
    expectIgnored(actor, { type: 'option.chosen', label: 'Purple' })
    expectIgnored(actor, { type: 'option.chosen', label: 'Cheese' })
    expectIgnored(actor, { type: 'option.chosen', label: 'red' })
    expectIgnored(actor, { type: 'option.chosen' })
    send(actor, { type: 'question.next' })
    expectIgnored(actor, { type: 'option.chosen', label: 'Cheese' })
  })

  it('option.toggled adds and removes labels, kept in option order, and does not advance', () => {
    const actor = send(
      start(batch),
      { type: 'question.next' },
      { type: 'option.toggled', label: 'Basil' },
      { type: 'option.toggled', label: 'Cheese' },
      { type: 'option.toggled', label: 'Olives' },
      { type: 'option.toggled', label: 'Olives' },
    )
    const { context } = actor.getSnapshot()
    expect(context.index).toBe(1)
    expect(context.drafts.toppings?.selected).toEqual(['Cheese', 'Basil'])
    send(
      actor,
      { type: 'option.toggled', label: 'Cheese' },
      { type: 'option.toggled', label: 'Basil' },
    )
    expect(isQuestionAnswered(actor.getSnapshot().context, 'toppings')).toBe(false)
  })

  it('ignores option.toggled on a single-select question and for a label not offered', () => {
    const actor = start(batch)
    expectIgnored(actor, { type: 'option.toggled', label: 'Red' })
    send(actor, { type: 'question.next' })
    expectIgnored(actor, { type: 'option.toggled', label: 'Anchovies' })
    expectIgnored(actor, { type: 'option.toggled', label: 42 })
  })

  it('custom.typed replaces the choice on a single-select question', () => {
    const actor = send(
      start(batch),
      { type: 'option.chosen', label: 'Red' },
      { type: 'question.back' },
      { type: 'custom.typed', text: 'Teal' },
    )
    expect(actor.getSnapshot().context.drafts.color).toEqual({
      selected: [],
      custom: 'Teal',
      skipped: false,
    })
    expect(actor.getSnapshot().context.index).toBe(0)
  })

  it('custom.typed stands beside the choices on a multi-select question', () => {
    const actor = send(
      start(batch),
      { type: 'question.next' },
      { type: 'option.toggled', label: 'Olives' },
      { type: 'custom.typed', text: 'Capers' },
    )
    expect(actor.getSnapshot().context.drafts.toppings).toEqual({
      selected: ['Olives'],
      custom: 'Capers',
      skipped: false,
    })
  })

  it('ignores empty or whitespace text when there is no text to clear', () => {
    const actor = send(start(batch), { type: 'question.selected', index: 2 })
    expectIgnored(actor, { type: 'custom.typed', text: '' })
    expectIgnored(actor, { type: 'custom.typed', text: '  \n\t ' })
    expectIgnored(actor, { type: 'custom.typed' })
    expectIgnored(actor, { type: 'custom.typed', text: 7 })
    expect(isQuestionAnswered(actor.getSnapshot().context, 'note')).toBe(false)
  })

  it('blank text clears typed text, leaving the question unanswered', () => {
    const actor = send(
      start(batch),
      { type: 'question.selected', index: 2 },
      { type: 'custom.typed', text: 'Ship it' },
    )
    expect(canSubmit(actor.getSnapshot().context)).toBe(false)
    // Only text clears text: what is not a string (a sender outside TypeScript) changes nothing.
    expectIgnored(actor, { type: 'custom.typed' })
    expectIgnored(actor, { type: 'custom.typed', text: 7 })
    send(actor, { type: 'custom.typed', text: '   ' })
    expect(actor.getSnapshot().context.drafts.note).toEqual({ selected: [], skipped: false })
    expect(isQuestionAnswered(actor.getSnapshot().context, 'note')).toBe(false)
  })

  it('question.skipped answers { id, selected: [] }, keeps the drafts and moves on', () => {
    const actor = send(
      start(batch),
      { type: 'option.chosen', label: 'Red' },
      { type: 'option.toggled', label: 'Cheese' },
      { type: 'question.back' },
      { type: 'question.skipped' },
    )
    const { context } = actor.getSnapshot()
    expect(context.index).toBe(1)
    expect(context.drafts.color).toEqual({ selected: ['Red'], skipped: true })
    expect(context.drafts.toppings?.selected).toEqual(['Cheese'])
    expect(previewAnswer(context).answers[0]).toEqual({ id: 'color', selected: [] })
  })

  it('answering a skipped question again clears the skip', () => {
    const actor = send(
      start(batch),
      { type: 'question.skipped' },
      { type: 'question.back' },
      { type: 'option.chosen', label: 'Blue' },
    )
    expect(actor.getSnapshot().context.drafts.color).toEqual({ selected: ['Blue'], skipped: false })
  })

  it('question.skipped on the last question stays there', () => {
    const actor = send(
      start(batch),
      { type: 'question.selected', index: 2 },
      { type: 'question.skipped' },
    )
    expect(actor.getSnapshot().context.index).toBe(2)
    expect(actor.getSnapshot().context.drafts.note?.skipped).toBe(true)
  })

  it('question.back, question.next and question.selected move within range only', () => {
    const actor = start(batch)
    expectIgnored(actor, { type: 'question.back' })
    send(actor, { type: 'question.next' })
    expect(actor.getSnapshot().context.index).toBe(1)
    send(actor, { type: 'question.next' })
    expectIgnored(actor, { type: 'question.next' })
    send(actor, { type: 'question.back' })
    expect(actor.getSnapshot().context.index).toBe(1)
    for (const index of [-1, 3, 1.5, Number.NaN, Infinity, '0', undefined]) {
      expectIgnored(actor, { type: 'question.selected', index })
    }
    send(actor, { type: 'question.selected', index: 0 })
    expect(currentQuestion(actor.getSnapshot().context).id).toBe('color')
  })

  it('ignores batch.submitted while a question is neither answered nor skipped', () => {
    const actor = send(
      start(batch),
      { type: 'option.chosen', label: 'Red' },
      { type: 'option.toggled', label: 'Basil' },
    )
    expectIgnored(actor, { type: 'batch.submitted' })
    send(
      actor,
      { type: 'question.next' },
      { type: 'question.skipped' },
      { type: 'batch.submitted' },
    )
    const snapshot = actor.getSnapshot()
    expect(snapshot.value).toBe('submitted')
    expect(snapshot.output).toEqual({
      status: 'submitted',
      answer: {
        answers: [
          { id: 'color', selected: ['Red'] },
          { id: 'toppings', selected: ['Basil'] },
          { id: 'note', selected: [] },
        ],
      },
    })
  })

  it('submits a canonical answer: typed text without choices, no custom key when unused', () => {
    const actor = send(
      start(batch),
      { type: 'custom.typed', text: 'Teal' },
      { type: 'question.next' },
      { type: 'option.toggled', label: 'Olives' },
      { type: 'option.toggled', label: 'Cheese' },
      { type: 'custom.typed', text: 'Capers' },
      { type: 'question.next' },
      { type: 'custom.typed', text: 'Thanks' },
      { type: 'batch.submitted' },
    )
    const output = actor.getSnapshot().output
    expect(output).toEqual({
      status: 'submitted',
      answer: {
        answers: [
          { id: 'color', selected: [], custom: 'Teal' },
          { id: 'toppings', selected: ['Cheese', 'Olives'], custom: 'Capers' },
          { id: 'note', selected: [], custom: 'Thanks' },
        ],
      },
    })
    if (output?.status !== 'submitted') throw new Error('expected a submitted output')
    expect(validateAnswer(batch, output.answer)).toEqual(output.answer)
  })

  it('batch.cancelled dismisses the whole batch', () => {
    const actor = send(
      start(batch),
      { type: 'option.chosen', label: 'Red' },
      { type: 'batch.cancelled' },
    )
    expect(actor.getSnapshot().value).toBe('cancelled')
    expect(actor.getSnapshot().output).toEqual({ status: 'cancelled', reason: 'dismissed' })
  })

  it('ignores plan-review events in the generic flow and anything after the end', () => {
    const actor = start(batch)
    expectIgnored(actor, { type: 'plan.approved' })
    expectIgnored(actor, { type: 'plan.refused', feedback: 'no' })
    expectIgnored(actor, { type: 'plan.discussed' })
    expectIgnored(actor, { type: 'key.pressed', key: 'Escape' })
    expectIgnored(actor, { type: 'answer.received' })
    send(actor, { type: 'batch.cancelled' })
    const ended = actor.getSnapshot()
    for (const event of [
      { type: 'batch.submitted' },
      { type: 'question.skipped' },
      { type: 'plan.approved' },
    ] as const) {
      const [next] = transition(questionnaireMachine, ended, event)
      expect(next.value).toBe('cancelled')
      expect(next.output).toEqual({ status: 'cancelled', reason: 'dismissed' })
    }
  })

  it('keeps ids such as __proto__ and constructor as plain data', () => {
    const questions: AskUserQuestionItem[] = [
      { id: '__proto__', question: 'One?', options: [{ label: 'A' }] },
      { id: 'constructor', question: 'Two?' },
    ]
    const actor = send(
      start(questions),
      { type: 'option.chosen', label: 'A' },
      { type: 'custom.typed', text: 'two' },
    )
    expect(canSubmit(actor.getSnapshot().context)).toBe(true)
    send(actor, { type: 'batch.submitted' })
    expect(actor.getSnapshot().output).toEqual({
      status: 'submitted',
      answer: {
        answers: [
          { id: '__proto__', selected: ['A'] },
          { id: 'constructor', selected: [], custom: 'two' },
        ],
      },
    })
  })

  it('walks a batch of 50 questions with 2,000-character descriptions', () => {
    const long = 'x'.repeat(2_000)
    const questions: AskUserQuestionItem[] = Array.from({ length: 50 }, (_, index) => ({
      id: `q${index}`,
      question: `Question ${index}: ${long}`,
      detail: long,
      multiSelect: index % 2 === 1,
      options: Array.from({ length: 4 }, (_, option) => ({
        label: `Option ${option} of ${index}`,
        description: long,
      })),
    }))
    const actor = start(questions)
    for (const [index, question] of questions.entries()) {
      const label = `Option ${index % 4} of ${index}`
      if (question.multiSelect === true) {
        send(actor, { type: 'option.toggled', label }, { type: 'question.next' })
      } else {
        send(actor, { type: 'option.chosen', label })
      }
      expect(actor.getSnapshot().context.index).toBe(Math.min(index + 1, 49))
    }
    send(actor, { type: 'batch.submitted' })
    const output = actor.getSnapshot().output
    if (output?.status !== 'submitted') throw new Error('expected a submitted output')
    expect(output.answer.answers).toHaveLength(50)
    expect(output.answer.answers[49]).toEqual({ id: 'q49', selected: ['Option 1 of 49'] })
    expect(validateAnswer(questions, output.answer)).toEqual(output.answer)
  })

  it('drives the demo scenario', () => {
    const actor = send(
      start(deploymentQuestions),
      { type: 'option.chosen', label: 'eu-west-1 (Recommended)' },
      { type: 'option.toggled', label: 'Smoke tests' },
      { type: 'question.next' },
      { type: 'question.skipped' },
      { type: 'batch.submitted' },
    )
    expect(actor.getSnapshot().output).toEqual({
      status: 'submitted',
      answer: {
        answers: [
          { id: 'region', selected: ['eu-west-1 (Recommended)'] },
          { id: 'checks', selected: ['Smoke tests'] },
          { id: 'announce', selected: [] },
        ],
      },
    })
  })
})

describe('questionnaireMachine: plan review', () => {
  const plan = planReviewQuestion('# The plan\n1. Ship it')

  it('starts in planReview when the request qualifies', () => {
    expect(start([plan]).getSnapshot().value).toBe('planReview')
  })

  it('plan.approved answers the approve label', () => {
    const actor = send(start([plan]), { type: 'plan.approved' })
    expect(actor.getSnapshot().output).toEqual({
      status: 'submitted',
      answer: { answers: [{ id: 'plan', selected: ['Approve'] }] },
    })
  })

  it('plan.refused answers the other option', () => {
    const actor = send(start([plan]), { type: 'plan.refused' })
    expect(actor.getSnapshot().output).toEqual({
      status: 'submitted',
      answer: { answers: [{ id: 'plan', selected: ['Revise'] }] },
    })
  })

  it('plan.refused with feedback answers the feedback as custom (typed text replaces the choice)', () => {
    const actor = send(start([plan]), { type: 'plan.refused', feedback: 'Canary first' })
    expect(actor.getSnapshot().output).toEqual({
      status: 'submitted',
      answer: { answers: [{ id: 'plan', selected: [], custom: 'Canary first' }] },
    })
    // The draft says so too, as it does for text typed on a single-select question.
    expect(actor.getSnapshot().context.drafts.plan).toEqual({
      selected: [],
      skipped: false,
      custom: 'Canary first',
    })
  })

  it('without another option, refusing needs feedback', () => {
    const lone: AskUserQuestionItem = { ...plan, options: [{ label: 'Approve' }] }
    const actor = start([lone])
    expect(actor.getSnapshot().value).toBe('planReview')
    expectIgnored(actor, { type: 'plan.refused' })
    expectIgnored(actor, { type: 'plan.refused', feedback: '   ' })
    expectIgnored(actor, { type: 'plan.refused', feedback: 3 })
    send(actor, { type: 'plan.refused', feedback: 'Split step 3' })
    expect(actor.getSnapshot().output).toEqual({
      status: 'submitted',
      answer: { answers: [{ id: 'plan', selected: [], custom: 'Split step 3' }] },
    })
  })

  it('plan.discussed cancels with reason discuss; batch.cancelled with dismissed', () => {
    expect(send(start([plan]), { type: 'plan.discussed' }).getSnapshot().output).toEqual({
      status: 'cancelled',
      reason: 'discuss',
    })
    expect(send(start([plan]), { type: 'batch.cancelled' }).getSnapshot().output).toEqual({
      status: 'cancelled',
      reason: 'dismissed',
    })
  })

  it('question.skipped submits a skip', () => {
    expect(send(start([plan]), { type: 'question.skipped' }).getSnapshot().output).toEqual({
      status: 'submitted',
      answer: { answers: [{ id: 'plan', selected: [] }] },
    })
  })

  it('ignores the generic events during a plan review', () => {
    const actor = start([plan])
    for (const event of [
      { type: 'option.chosen', label: 'Approve' },
      { type: 'option.toggled', label: 'Approve' },
      { type: 'custom.typed', text: 'hello' },
      { type: 'question.next' },
      { type: 'question.back' },
      { type: 'question.selected', index: 0 },
      { type: 'batch.submitted' },
    ] as const) {
      expectIgnored(actor, event)
    }
  })

  it('the generic flow stays available by swapping the guard', () => {
    const generic = questionnaireMachine.provide({
      guards: { qualifiesForPlanReview: () => false },
    })
    const actor = createActor(generic, { input: { questions: [plan] } }).start()
    send(actor, { type: 'option.chosen', label: 'Approve' }, { type: 'batch.submitted' })
    expect(actor.getSnapshot().output).toEqual({
      status: 'submitted',
      answer: { answers: [{ id: 'plan', selected: ['Approve'] }] },
    })
  })

  it.each([
    ['two questions', [plan, note]],
    ['no intent', [{ ...plan, intent: undefined }]],
    ['no detail', [{ ...plan, detail: undefined }]],
    ['blank detail', [{ ...plan, detail: '  ' }]],
    ['multi-select', [{ ...plan, multiSelect: true }]],
    ['approve not offered', [{ ...plan, intent: { kind: 'plan-review', approve: 'Yes' } }]],
    ['two other options', [{ ...plan, options: [...(plan.options ?? []), { label: 'Later' }] }]],
    ['unknown kind', [{ ...plan, intent: { kind: 'review', approve: 'Approve' } }]],
  ] as const)('does not qualify with %s', (_name, questions) => {
    const items = questions as unknown as AskUserQuestionItem[]
    expect(qualifiesForPlanReview(items)).toBe(false)
    expect(describePlanReview(items)).toBeUndefined()
    expect(
      createActor(questionnaireMachine, { input: { questions: items } })
        .start()
        .getSnapshot().value,
    ).toBe('answering')
  })

  it('describes the choice a plan-review screen offers', () => {
    expect(describePlanReview([plan])).toEqual({
      question: plan,
      approve: { label: 'Approve', description: 'Run the plan as written' },
      refuse: { label: 'Revise', description: 'Send it back with changes' },
    })
  })
})

describe('questionnaireAnswer', () => {
  it('returns a submitted answer and throws ASK_CANCELLED with the reason otherwise', () => {
    const answer = { answers: [{ id: 'plan', selected: ['Approve'] }] }
    expect(questionnaireAnswer({ status: 'submitted', answer })).toBe(answer)
    const messages = {
      dismissed: 'The user dismissed the questions',
      discuss: 'The user wants to discuss the plan instead of answering',
    } as const
    for (const reason of ['dismissed', 'discuss'] as const) {
      let caught: unknown
      try {
        questionnaireAnswer({ status: 'cancelled', reason })
      } catch (error: unknown) {
        caught = error
      }
      expect(caught).toBeInstanceOf(UserQuestionError)
      expect((caught as UserQuestionError).code).toBe('ASK_CANCELLED')
      expect((caught as UserQuestionError).message).toBe(messages[reason])
      expect((caught as UserQuestionError).details).toEqual({ reason })
    }
  })

  it('isQuestionAnswered is false for an id that was not asked', () => {
    expect(isQuestionAnswered(start(batch).getSnapshot().context, 'missing')).toBe(false)
  })
})
