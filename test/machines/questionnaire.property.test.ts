import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createActor } from 'xstate'
import { getShortestPaths } from 'xstate/graph'
import { canSubmit, questionnaireMachine } from '../../src/machines/questionnaire.machine.js'
import { qualifiesForPlanReview } from '../../src/vocabulary/index.js'
import type {
  QuestionnaireContext,
  QuestionnaireEvent,
} from '../../src/machines/questionnaire.machine.js'
import { validateAnswer, validateRequest } from '../../src/protocol/index.js'
import type { AskUserQuestionItem } from '../../src/protocol/index.js'
import {
  questionnaireEventCases,
  questionnaireLogic,
  serializeQuestionnaireSnapshot,
} from '../support/questionnaire-paths.js'
import type { QuestionnaireSnapshot } from '../support/questionnaire-paths.js'

const labelPool = ['Yes', 'No', 'Later (Recommended)', ' padded ', '__proto__', 'Ünïcode ✓', 'a']
const textArb = fc.oneof(
  fc.constantFrom('', '   ', '\n\t', 'typed', ' spaced text '),
  fc.string({ maxLength: 12 }),
)

const optionsArb = fc
  .uniqueArray(fc.constantFrom(...labelPool), { maxLength: 4 })
  .map((labels) => labels.map((label) => ({ label })))

const questionArb = (id: string): fc.Arbitrary<AskUserQuestionItem> =>
  fc
    .record(
      {
        question: fc.constant(`Question ${id}?`),
        options: optionsArb,
        multiSelect: fc.boolean(),
        detail: fc.constantFrom('The plan: 1. build 2. ship', '  '),
        planReview: fc.boolean(),
      },
      { requiredKeys: ['question', 'options'] },
    )
    .map(({ question, options, multiSelect, detail, planReview }) => {
      const item: AskUserQuestionItem = { id, question }
      if (options.length > 0 || planReview === true) item.options = options
      if (multiSelect !== undefined) item.multiSelect = multiSelect
      if (detail !== undefined) item.detail = detail
      const approve = options[0]?.label
      if (planReview === true && approve !== undefined && detail?.trim() !== '') {
        item.intent = { kind: 'plan-review', approve }
      }
      return item
    })

const requestArb: fc.Arbitrary<AskUserQuestionItem[]> = fc
  .uniqueArray(fc.constantFrom('q1', 'q2', 'q3', '__proto__', 'constructor'), {
    minLength: 1,
    maxLength: 4,
  })
  .chain((ids) => fc.tuple(...ids.map(questionArb)))
  .filter((questions) => {
    try {
      validateRequest({ questions })
      return true
    } catch {
      return false
    }
  })

function eventArb(questions: AskUserQuestionItem[]): fc.Arbitrary<QuestionnaireEvent> {
  const labels = [...new Set(questions.flatMap((q) => (q.options ?? []).map((o) => o.label)))]
  const labelArb = fc.constantFrom(...labels, 'not an option', '')
  return fc.oneof(
    labelArb.map((label) => ({ type: 'option.chosen' as const, label })),
    labelArb.map((label) => ({ type: 'option.toggled' as const, label })),
    textArb.map((text) => ({ type: 'custom.typed' as const, text })),
    fc.constant({ type: 'question.skipped' as const }),
    fc.constant({ type: 'question.back' as const }),
    fc.constant({ type: 'question.next' as const }),
    fc
      .integer({ min: -1, max: questions.length })
      .map((index) => ({ type: 'question.selected' as const, index })),
    fc.constant({ type: 'batch.submitted' as const }),
    fc.constant({ type: 'batch.cancelled' as const }),
    fc.constant({ type: 'plan.approved' as const }),
    fc
      .option(textArb, { nil: undefined })
      .map((feedback) =>
        feedback === undefined
          ? { type: 'plan.refused' as const }
          : { type: 'plan.refused' as const, feedback },
      ),
    fc.constant({ type: 'plan.discussed' as const }),
  )
}

/** The draft invariants every UI relies on when it renders from a snapshot. */
function checkContext(context: QuestionnaireContext): void {
  const { questions } = context
  expect(context.index).toBeGreaterThanOrEqual(0)
  expect(context.index).toBeLessThan(questions.length)
  expect(Object.keys(context.drafts).sort()).toEqual(questions.map(({ id }) => id).sort())
  for (const question of questions) {
    const draft = context.drafts[question.id]
    if (draft === undefined) throw new Error(`no draft for ${question.id}`)
    const offered = (question.options ?? []).map(({ label }) => label)
    expect(draft.selected).toEqual(offered.filter((label) => draft.selected.includes(label)))
    if (draft.custom !== undefined) expect(draft.custom.trim()).not.toBe('')
    if (question.multiSelect !== true) {
      expect(draft.selected.length).toBeLessThanOrEqual(1)
      if (draft.custom !== undefined) expect(draft.selected).toEqual([])
    }
  }
}

describe('questionnaireMachine properties', () => {
  it('any submitted answer is canonical, and an event the machine cannot take changes nothing', () => {
    fc.assert(
      fc.property(
        requestArb.chain((questions) =>
          fc.tuple(fc.constant(questions), fc.array(eventArb(questions), { maxLength: 40 })),
        ),
        ([questions, events]) => {
          const actor = createActor(questionnaireMachine, { input: { questions } }).start()
          expect(actor.getSnapshot().value).toBe(
            qualifiesForPlanReview(questions) ? 'planReview' : 'answering',
          )
          for (const event of events) {
            const before = actor.getSnapshot()
            if (before.status === 'done') break
            const accepted = before.can(event)
            const submittable = canSubmit(before.context)
            actor.send(event)
            const after = actor.getSnapshot()
            if (!accepted) {
              expect(after.value).toEqual(before.value)
              expect(after.context).toEqual(before.context)
            }
            if (event.type === 'batch.submitted' && before.value === 'answering') {
              expect(after.value).toBe(submittable ? 'submitted' : 'answering')
            }
            checkContext(after.context)
            const output = after.output
            if (output?.status === 'submitted') {
              expect(validateAnswer(questions, output.answer)).toEqual(output.answer)
              expect(JSON.stringify(output.answer)).not.toContain('"custom":""')
            }
          }
        },
      ),
      { numRuns: 400 },
    )
  })

  const planArb = fc
    .record({
      approve: fc.constantFrom('Approve', 'Ship it (Recommended)'),
      other: fc.option(fc.constantFrom('Revise', 'Hold'), { nil: undefined }),
      otherFirst: fc.boolean(),
      text: fc.constantFrom('typed', 'Split step 3', ' with spaces '),
    })
    .map(({ approve, other, otherFirst, text }) => {
      const options =
        other === undefined ? [{ label: approve }] : [{ label: approve }, { label: other }]
      if (otherFirst) options.reverse()
      const question: AskUserQuestionItem = {
        id: 'plan',
        question: 'Approve this plan?',
        detail: '1. build\n2. ship',
        options,
        intent: { kind: 'plan-review', approve },
      }
      return { questions: [question], text }
    })

  function reachableOutputs(
    questions: AskUserQuestionItem[],
    text: string,
    genericFlow: boolean,
  ): Set<string> {
    const paths = getShortestPaths(questionnaireLogic(genericFlow), {
      input: { questions },
      events: (snapshot: QuestionnaireSnapshot) =>
        questionnaireEventCases(snapshot, { customText: text, feedback: text }),
      stopWhen: (snapshot: QuestionnaireSnapshot) => snapshot.status === 'done',
      serializeState: (snapshot: QuestionnaireSnapshot) =>
        serializeQuestionnaireSnapshot(snapshot, 'exact'),
    })
    return new Set(
      paths
        .map(({ state }) => state.output)
        .filter((output) => output !== undefined)
        .map((output) => JSON.stringify(output)),
    )
  }

  it('every answer the generic flow reaches for a plan review, the planReview flow reaches too', () => {
    fc.assert(
      fc.property(planArb, ({ questions, text }) => {
        expect(qualifiesForPlanReview(questions)).toBe(true)
        const generic = reachableOutputs(questions, text, true)
        const review = reachableOutputs(questions, text, false)
        const submitted = (outputs: Set<string>) =>
          [...outputs].filter((output) => output.includes('"submitted"')).sort()
        expect(submitted(generic).length).toBeGreaterThanOrEqual(3)
        for (const output of generic) expect(review).toContain(output)
        // And nothing more than the generic flow, apart from the discuss reason.
        expect(submitted(review)).toEqual(submitted(generic))
        expect(review).toContain(JSON.stringify({ status: 'cancelled', reason: 'discuss' }))
      }),
      { numRuns: 60 },
    )
  })
})
